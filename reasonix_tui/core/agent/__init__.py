"""Agent writes: the write policy, secret detection, the approval queue and the agent's
side of a write (write now, or propose and wait).
"""

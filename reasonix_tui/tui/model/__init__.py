"""The Context Center's UI-free model: the immutable snapshot, its rows, diffs, row cache
and loader, and what the approval dialog shows (no textual import).
"""

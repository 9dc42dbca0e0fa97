"""Session transcripts (one reader per format), history search over them, and memory
suggestions mined from them.
"""

"""reasonix-tui: a terminal Context Center for a coding agent's durable memory."""

__version__ = "0.1.0"

"""A centred message for panes with nothing to show."""

from __future__ import annotations

from textual.widgets import Static

__all__ = ["EmptyState"]


class EmptyState(Static):
    """Muted, centred text ("No revisions yet", "Select a fact")."""

    DEFAULT_CSS = """
    EmptyState {
        width: 1fr;
        height: 1fr;
        content-align: center middle;
        text-align: center;
        color: $text-muted;
        padding: 1 2;
    }
    """

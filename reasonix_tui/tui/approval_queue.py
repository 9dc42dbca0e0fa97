"""The approval queue as the Context Center sees it (placeholder until core.approvals lands)."""

from __future__ import annotations

from typing import Any

__all__ = ["ApprovalQueue"]


class ApprovalQueue:
    """Pending proposals, the presence marker and the modal flow."""

    def __init__(self, app: Any) -> None:
        self.app = app
        """The Context Center."""
        self.pending: list[Any] = []
        """Proposals waiting for a decision, oldest first."""

    @property
    def count(self) -> int:
        """How many proposals wait."""
        return len(self.pending)

    def start(self) -> None:
        """Write the presence marker and read what is pending."""

    def stop(self) -> None:
        """Remove the presence marker."""

    def refresh(self) -> None:
        """Read the queue again."""

    def show_next(self, force: bool = False) -> None:
        """Open the modal for the oldest pending proposal."""

"""App-level messages: things that happened (past tense) and user intents (``…Requested``).

Panes post intents; they bubble to the screen and the app, which owns every write.
Workers only post the "happened" messages; handlers on the app own the state change
(house style §3.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from textual.message import Message

from .state import CenterSnapshot, Changes

__all__ = [
    "StoreReloaded",
    "StoreLoadFailed",
    "SidecarsReloaded",
    "WriteFinished",
    "PinRequested",
    "VerifyRequested",
    "ForgetRequested",
    "NewFactRequested",
    "EditRequested",
    "QuickAddRequested",
    "CopyRefRequested",
    "RestoreRequested",
    "RecoverRequested",
    "ShowFactRequested",
]


@dataclass
class StoreReloaded(Message):
    """A fresh snapshot was read (after a file change, a write or ctrl+r)."""

    snapshot: CenterSnapshot
    """The new snapshot."""
    base: CenterSnapshot | None
    """The snapshot the changes were computed against."""
    changes: Changes
    """What differs from ``base``."""

    def can_replace(self, message: Message) -> bool:
        """A burst of reloads draws once (the handler re-diffs when the base moved on)."""
        return isinstance(message, StoreReloaded)


@dataclass
class StoreLoadFailed(Message):
    """Reading the store failed; the last good snapshot stays on screen."""

    error: str
    """What went wrong."""


@dataclass
class SidecarsReloaded(Message):
    """Files beside the store changed: approvals, recall traces, the audit log."""

    approvals: bool = False
    """The approval queue changed."""
    recall: bool = False
    """A recall trace was written."""
    audit: bool = False
    """The audit log grew."""
    instructions: bool = False
    """An instruction document may have changed."""

    def can_replace(self, message: Message) -> bool:
        """Merge with a queued one of the same kind only."""
        return isinstance(message, SidecarsReloaded) and (
            message.approvals,
            message.recall,
            message.audit,
            message.instructions,
        ) == (self.approvals, self.recall, self.audit, self.instructions)


@dataclass
class WriteFinished(Message):
    """A write worker finished (successfully or with a refusal)."""

    action: str
    """What was attempted (``pin``, ``forget``...)."""
    ok: bool
    """False when the store refused."""
    text: str
    """Result line or the store's refusal, shown to the person."""
    warnings: tuple[str, ...] = ()
    """Warnings from ``SaveResult.warnings`` (superseded value...)."""
    fact_id: str | None = None
    """The fact written, to keep it selected."""
    paths: tuple[str, ...] = ()
    """Files the write touched (re-read by an incremental reload)."""


@dataclass
class PinRequested(Message):
    """Pin or unpin a fact."""

    fact_id: str
    """Target."""
    pin: bool
    """True to pin, False to unpin."""


@dataclass
class VerifyRequested(Message):
    """Mark a fact verified now."""

    fact_id: str
    """Target."""


@dataclass
class BulkRequested(Message):
    """Verify or forget several marked facts at once (forget asks first)."""

    action: str
    """``verify`` or ``forget``."""
    fact_ids: tuple[str, ...]
    """Targets."""


@dataclass
class ForgetRequested(Message):
    """Forget (archive) a fact; the app asks for confirmation first."""

    fact_id: str
    """Target."""


@dataclass
class NewFactRequested(Message):
    """Open the form for a new fact."""

    prefill: dict[str, str] = field(default_factory=dict)
    """Initial values (from a suggestion, for example)."""


@dataclass
class EditRequested(Message):
    """Edit a fact in the form or in ``$EDITOR``."""

    fact_id: str
    """Target."""
    external: bool = False
    """True for ``$EDITOR``."""


@dataclass
class QuickAddRequested(Message):
    """Append a note to the standing instructions."""

    scope: str = "project"
    """``project``, ``local`` or ``user``."""


@dataclass
class CopyRefRequested(Message):
    """Copy a fact's reference to the clipboard."""

    fact_id: str
    """Target."""


@dataclass
class RestoreRequested(Message):
    """Restore an old revision as a new one."""

    fact_id: str
    """Target."""
    revision: int
    """The revision to bring back."""


@dataclass
class RecoverRequested(Message):
    """Recover an archived fact."""

    path: str
    """The archive file."""


@dataclass
class ShowFactRequested(Message):
    """Jump to a fact in the facts pane (palette, recall hit, activity line)."""

    ref: str
    """Fact id or ref."""

"""App-level messages: things that happened (past tense) and user intents (``…Requested``).

Panes post intents; they bubble to the screen and the app, which owns every write: each
intent becomes one job of the app's single write worker, which posts
:class:`WriteFinished`, after which the app reloads what the write touched. Workers only
post the "happened" messages; handlers on the app own the state change (house style
§3.3). :class:`StoreUpdate` is what the app's ``store_changed`` signal carries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from ..core.agent.proposals import ApprovalResult, AutoWrite, Proposal, WaitInfo
from .model.proposals import ProposalView
from .model.snapshot import CenterSnapshot, Changes

__all__ = [
    "StoreUpdate",
    "StoreReloaded",
    "StoreLoadFailed",
    "SnapshotResolved",
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
    "FactHighlighted",
    "EditFileRequested",
    "ApprovalDecided",
    "ReviewApprovalsRequested",
    "UndoAutoWriteRequested",
    "SuggestionAcceptRequested",
    "SuggestionDismissRequested",
    "ApprovalsRead",
    "ProposalViewReady",
    "AgentWaitRead",
    "HealthChecked",
    "HealthFixRequested",
    "HealthUndoRequested",
]


@dataclass(frozen=True)
class StoreUpdate:
    """What the app's ``store_changed`` signal carries to the panes."""

    snapshot: CenterSnapshot
    """The new snapshot."""
    changes: Changes
    """What changed since the previous one."""
    select: str | None = None
    """A fact to put the cursor on (the one a write just wrote), now that it is on screen."""


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
class SnapshotResolved(Message):
    """The subject/topic resolution of a snapshot is ready: a copy of it (same generation)
    that carries the resolution."""

    snapshot: CenterSnapshot
    """The resolved copy."""


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
    suggestions: bool = False
    """A suggestion was accepted or dismissed."""
    waiting: bool = False
    """An agent started or stopped waiting for a decision (never opens a dialog)."""

    def _kind(self) -> tuple[bool, ...]:
        return (self.approvals, self.recall, self.audit, self.instructions, self.suggestions, self.waiting)

    def can_replace(self, message: Message) -> bool:
        """Merge with a queued one of the same kind only."""
        return isinstance(message, SidecarsReloaded) and message._kind() == self._kind()


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
    refresh: tuple[str, ...] = ()
    """Sidecars to read again after it (``suggestions``, ``instructions``, ``approvals``)."""
    approval: ApprovalResult | None = None
    """An approval decision's result."""
    changed: Proposal | None = None
    """An approve refused because the proposal file changed since it was shown."""
    proposal_id: str = ""
    """The proposal an approval job was about."""


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


@dataclass
class FactHighlighted(Message):
    """The facts table's cursor is on another fact (the Revisions pane follows)."""

    fact_id: str | None
    """The fact, or ``None`` (an error row or an empty table)."""


@dataclass
class EditFileRequested(Message):
    """Open a plain file (an instruction document) in ``$EDITOR``."""

    path: str
    """The file."""


@dataclass
class ApprovalDecided(Message):
    """The person decided on a proposal (the app applies it in the write worker)."""

    proposal_id: str
    """The proposal."""
    action: str
    """``approve`` or ``deny``."""
    digest: str
    """The digest of the content the person was shown (the core refuses another)."""
    edits: dict[str, Any] | None = None
    """Fields changed in the form ("edit, then approve")."""


@dataclass
class ReviewApprovalsRequested(Message):
    """Open the dialog again for proposals put off with "later"."""


@dataclass
class UndoAutoWriteRequested(Message):
    """Undo the agent's newest unasked write."""


@dataclass
class SuggestionAcceptRequested(Message):
    """Accept a suggestion with the person's edits."""

    suggestion_id: str
    """The suggestion."""
    values: Any
    """The form's :class:`~reasonix_tui.tui.writes.FactFormValues`."""


@dataclass
class SuggestionDismissRequested(Message):
    """Dismiss a suggestion for good."""

    suggestion_id: str
    """The suggestion."""


@dataclass
class ApprovalsRead(Message):
    """The approval queue was read (a worker result)."""

    pending: list[Proposal]
    """Pending proposals, oldest first."""
    auto: list[AutoWrite]
    """Auto-writes not announced yet."""
    latest: AutoWrite | None
    """The newest auto-write (for ctrl+z)."""


@dataclass
class ProposalViewReady(Message):
    """A proposal's dialog view was computed in a worker."""

    view: ProposalView
    """The view."""
    purpose: str
    """``open`` (push the dialog) or ``refresh`` (update the open one)."""


@dataclass
class AgentWaitRead(Message):
    """Whether the agent still waits for the proposal on screen (a worker result)."""

    proposal_id: str
    """The proposal."""
    waiting: WaitInfo
    """What its waiting marker says."""


@dataclass
class HealthChecked(Message):
    """Memory health was computed (a worker result)."""

    report: Any
    """The :class:`~reasonix_tui.core.health.HealthReport`."""
    generation: int = 0
    """Which request it answers (an older one is dropped)."""


@dataclass
class HealthFixRequested(Message):
    """Apply one fix of a health finding (``archive``, ``merge``, ``verify``, ``unpin``,
    ``pin``, ``edit``, ``dismiss``)."""

    finding: Any
    """The :class:`~reasonix_tui.core.health.Finding` as shown."""
    action: str
    """The fix."""


@dataclass
class HealthUndoRequested(Message):
    """Take back the last health fix."""

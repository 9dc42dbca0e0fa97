"""The approval flow's state: which proposals wait, which one is on screen, which one is
being edited, what was announced (no textual import, no app).

The app owns everything that happens (reading the queue, preparing a dialog's view in a
worker, pushing the dialog and the form, applying a decision through the one write
worker); this object only holds what it needs to decide *whether* to show something:

* a proposal that is on screen, being prepared for the screen, being edited or being
  applied is never shown again;
* only a change to the set of pending proposals (or to one's content) is news: the
  heartbeat, presence markers, results and waiting markers never open a dialog;
* a proposal put off with "later" stays queued until ``A`` (or the palette) asks again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ..core.agent.proposals import AutoWrite, Proposal
from ..core.compat.gotime import Timestamp, parse_rfc3339
from ..core.store.fields import EDITABLE_NAMES
from .model.proposals import ProposalView
from .model.snapshot import CenterSnapshot
from .writes import FactFormValues, form_from_fact

__all__ = ["ApprovalFlow", "QueueChange", "ANNOUNCE_WINDOW_NS", "form_values", "form_edits", "announcement"]

ANNOUNCE_WINDOW_NS = 86_400 * 1_000_000_000
"""Auto-writes older than this at start are not announced (they were missed, not news)."""


@dataclass(frozen=True)
class QueueChange:
    """What a fresh read of the queue means for the screen."""

    gone: bool = False
    """The proposal on screen was decided elsewhere or removed."""
    changed: Proposal | None = None
    """The proposal on screen has new content (its file changed): show it again."""


@dataclass
class ApprovalFlow:
    """Pending proposals and what the Context Center is doing with them."""

    pending: list[Proposal] = field(default_factory=list)
    """Proposals waiting for a decision, oldest first (those being applied excluded)."""
    deferred: set[str] = field(default_factory=set)
    """Proposals the person put off with "later" (reopened with ``A``)."""
    in_flight: set[str] = field(default_factory=set)
    """Proposals whose decision is being applied."""
    done: set[str] = field(default_factory=set)
    """Proposals decided here (a read of the queue that started before the decision
    landed must not bring one back)."""
    view: ProposalView | None = None
    """What the open dialog shows (``None``: no dialog)."""
    preparing: str | None = None
    """Id of a proposal whose view is being computed (its dialog opens next)."""
    editing: str | None = None
    """Id of the proposal whose fact form is open ("edit, then approve")."""
    changed: set[str] = field(default_factory=set)
    """Proposals whose file changed after they were shown (marked when shown again)."""
    auto_seen: set[str] = field(default_factory=set)
    """Auto-write records already announced."""
    last_auto: AutoWrite | None = None
    """The newest auto-write (announced or not); ctrl+z undoes it while :meth:`can_undo`."""
    undone: set[str] = field(default_factory=set)
    """Auto-write records undone in this session."""

    @property
    def count(self) -> int:
        """How many proposals wait (including the one on screen)."""
        return len(self.pending)

    @property
    def showing(self) -> str | None:
        """Id of the proposal whose dialog is open."""
        return self.view.id if self.view is not None else None

    @property
    def busy(self) -> bool:
        """A dialog or a form of the flow is open, or a dialog is about to open."""
        return self.showing is not None or self.preparing is not None or self.editing is not None

    def get(self, proposal_id: str) -> Proposal | None:
        """A pending proposal by id."""
        return next((p for p in self.pending if p.id == proposal_id), None)

    def position(self, proposal_id: str) -> int:
        """1-based place of a proposal in the queue (1 when unknown)."""
        for i, p in enumerate(self.pending):
            if p.id == proposal_id:
                return i + 1
        return 1

    def update(self, pending: list[Proposal]) -> QueueChange:
        """Take a fresh read of the queue; say what it means for the dialog on screen."""
        self.pending = [p for p in pending if p.id not in self.in_flight and p.id not in self.done]
        ids = {p.id for p in self.pending}
        self.deferred &= ids
        self.changed &= ids
        if self.editing is not None and self.editing not in ids and self.editing not in self.in_flight:
            self.editing = None  # decided elsewhere: the form's submit is refused by the core anyway
        if self.showing is None:
            return QueueChange()
        now = self.get(self.showing)
        if now is None:
            return QueueChange(gone=self.showing not in self.in_flight)
        if self.view is not None and now.digest != self.view.digest:
            self.changed.add(now.id)
            return QueueChange(changed=now)
        return QueueChange()

    def next_candidate(self, force: bool = False) -> Proposal | None:
        """The oldest proposal to open a dialog for, or ``None`` (also while busy)."""
        if self.busy:
            return None
        if force:
            self.deferred.clear()
        return next((p for p in self.pending if p.id not in self.deferred and p.id not in self.in_flight), None)

    def shown(self, view: ProposalView) -> None:
        """A dialog for ``view`` is on screen (or shows ``view`` now, after a refresh)."""
        self.preparing = None
        self.view = view

    def closed(self) -> ProposalView | None:
        """The dialog closed; returns what it showed."""
        view, self.view = self.view, None
        return view

    def deciding(self, proposal_id: str) -> None:
        """A decision on ``proposal_id`` goes to the write worker."""
        self.in_flight.add(proposal_id)
        self.pending = [p for p in self.pending if p.id != proposal_id]
        self.changed.discard(proposal_id)
        if self.editing == proposal_id:
            self.editing = None

    def decided(self, proposal_id: str, *, still_pending: Proposal | None = None, finished: bool = True) -> None:
        """The write worker is done with ``proposal_id``: ``finished`` when a decision was
        recorded; ``still_pending`` when the core refused because the file changed (it goes
        back to the front, marked changed). Neither: it failed and stays in the queue."""
        self.in_flight.discard(proposal_id)
        if finished and still_pending is None:
            self.done.add(proposal_id)
        elif still_pending is not None:
            self.pending = [still_pending, *[p for p in self.pending if p.id != proposal_id]]
            self.changed.add(proposal_id)
            self.deferred.discard(proposal_id)

    # ----------------------------------------------------------------- auto-writes

    def can_undo(self, snapshot: CenterSnapshot, complete: bool, record: AutoWrite | None = None) -> bool:
        """Undo is offered while the written fact is still at the written revision."""
        record = record if record is not None else self.last_auto
        if record is None or record.id in self.undone:
            return False
        row = snapshot.rows.get(record.fact_id)
        if row is not None:
            return row.revision == record.revision
        # Not in the store view: gone, unless the view predates the write (the watcher
        # reports approvals/ and the store separately). The core re-checks on undo anyway.
        written = parse_rfc3339(record.created_at)
        return not complete or (written is not None and written.ns >= snapshot.loaded_at.ns)

    def take_undo(self) -> AutoWrite | None:
        """The record to undo now (and forget it as undoable)."""
        record = self.last_auto
        if record is None:
            return None
        self.last_auto = None
        self.undone.add(record.id)
        return record


def announcement(records: list[AutoWrite], now: Timestamp, undoable: bool) -> str:
    """One notice for the auto-writes of the last day (``""`` when none is news); older ones
    were missed while no Context Center was open and are not news any more."""
    fresh = []
    for record in records:
        ts = parse_rfc3339(record.created_at)
        if ts is not None and now.ns - ts.ns <= ANNOUNCE_WINDOW_NS:
            fresh.append((ts.ns, record.id, record))
    if not fresh:
        return ""
    fresh.sort(key=lambda item: item[:2])
    ordered = [record for _, _, record in fresh]
    newest = ordered[-1]
    req = newest.requester
    who = (req.agent or "The agent") + (f" (via {req.source})" if req.source else "")
    undo = " Press ctrl+z to undo it." if undoable else ""
    if len(ordered) == 1 and newest.is_update:
        undo = f" Press ctrl+z to bring revision {newest.previous_revision} back." if undo else ""
        return (
            f"{who} updated {newest.ref} (revision {newest.previous_revision} → {newest.revision}) without asking "
            f"(auto_confirm_project_remember is on).{undo}"
        )
    if len(ordered) == 1:
        return (
            f"{who} saved {newest.ref} (revision {newest.revision}) without asking: a new low-risk project fact.{undo}"
        )
    refs = ", ".join(r.ref for r in ordered[:5]) + (f" and {len(ordered) - 5} more" if len(ordered) > 5 else "")
    undo = f" Press ctrl+z to undo the newest ({newest.ref})." if undo else ""
    return f"The agent wrote {len(ordered)} low-risk project facts without asking: {refs}.{undo}"


def form_values(view: ProposalView) -> FactFormValues:
    """The fact form for "edit, then approve": every field as it would be written, so an
    update shows the subject key, keywords, activation, volatility and expiry it keeps."""
    planned = view.planned
    args = view.args
    if planned is None:
        fallback = {"name": view.name, "type": view.type or "project", "scope": view.scope or "project"}
        values: dict[str, Any] = {name: str(args.get(name) or fallback.get(name) or "") for name in EDITABLE_NAMES}
        return FactFormValues(**values)
    return replace(form_from_fact(planned), name=str(args.get("name") or planned.name or view.name or ""))


def form_edits(initial: FactFormValues, submitted: FactFormValues) -> dict[str, Any]:
    """The arguments the person changed in the form (``{}``: approved as proposed)."""
    before, after = asdict(initial), asdict(submitted)
    edits: dict[str, Any] = {k: after[k] for k in EDITABLE_NAMES if after[k] != before[k]}
    if submitted.verified and not initial.verified:
        edits["verified"] = True
    return edits

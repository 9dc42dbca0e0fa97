"""The Context Center's approval flow: the presence marker agents look for, reading the queue and
the auto-writes, preparing a proposal's dialog off the UI thread, and applying the person's
decision through the write worker, bound to the digest of the content the person saw.
:class:`~.approval_flow.ApprovalFlow` only holds the state."""

from __future__ import annotations

from functools import partial

from textual import on, work
from textual.widgets import Input, TextArea

from ..core.agent.proposals import Proposal
from ..core.store.atomic import ensure_dir
from . import writes
from .app_base import CenterAppBase
from .approval_flow import announcement, form_edits, form_values
from .messages import (
    AgentWaitRead,
    ApprovalDecided,
    ApprovalsRead,
    ProposalViewReady,
    ReviewApprovalsRequested,
    UndoAutoWriteRequested,
    WriteFinished,
)
from .model.proposals import Decision, ProposalView, proposal_view
from .screens.approval import ApprovalScreen
from .screens.fact_form import FactFormScreen
from .screens.main import MainScreen

HEARTBEAT_SECONDS = 5.0
"""How often the presence marker is refreshed."""


class ApprovalsMixin(CenterAppBase):
    """Presence, the approval queue and the approval dialog of :class:`~.app.ContextCenterApp`."""

    def _start_presence(self) -> None:
        """Tell agents a person can answer: a marker refreshed by a heartbeat."""
        try:
            for folder in (self.queue.proposals_dir, self.queue.auto_dir, self.queue.waiting_dir):
                ensure_dir(folder, 0o700)  # watched from the start: no new-folder race later
            self._marker = self.queue.presence_marker(self.layout)
            self._marker.start()
            self.set_interval(HEARTBEAT_SECONDS, self._beat, name="presence-heartbeat")
        except Exception:  # a read-only root: no marker, the app still works
            self._marker = None

    def _beat(self) -> None:
        marker = self._marker
        if marker is not None:
            self.run_worker(marker.beat, thread=True, group="presence", exit_on_error=False)
        # A safety net for a watcher event that never came: read the queue again. Only a
        # proposal that is new (or changed) can open anything.
        self.refresh_approvals()

    def refresh_approvals(self) -> None:
        """Read the queue and the auto-writes in a thread worker."""
        self._read_approvals()

    @work(thread=True, group="approvals-read", exclusive=True, exit_on_error=False, description="read approvals")
    def _read_approvals(self) -> None:
        pending = self.queue.pending()
        seen = set(self.approvals.auto_seen)
        auto = [r for r in self.queue.auto_writes() if r.id not in seen]
        # Each auto-write is announced once, ever: the record moves to ``auto/seen/`` as it
        # is read, so the next start is quiet. The newest one stays undoable (from ``seen/``).
        for record in auto:
            try:
                self.queue.dismiss_auto_write(record)
            except (OSError, ValueError):
                pass  # read-only root: ``auto_seen`` still keeps this session quiet
        try:
            latest = self.queue.latest_auto_write()
        except OSError:
            latest = None
        self.post_message(ApprovalsRead(pending, auto, latest))

    @on(ApprovalsRead)
    def _approvals_read(self, message: ApprovalsRead) -> None:
        if not self.screen_stack:
            return  # a read that finished while the app was closing
        flow = self.approvals
        change = flow.update(message.pending)
        screen = self._open_dialog()
        if screen is not None:
            if change.gone:
                screen.dismiss(Decision("gone"))
            else:
                screen.set_total(flow.count, flow.position(screen.view.id))
                if change.changed is not None:
                    self._prepare_view(change.changed, "refresh")
        self._refresh_status()
        self._show_next()
        if message.latest is not None and message.latest.id not in flow.undone:
            flow.last_auto = message.latest
        fresh = [r for r in message.auto if r.id not in flow.auto_seen]
        flow.auto_seen.update(r.id for r in fresh)
        newest = max(fresh, key=lambda r: (r.created_at, r.id), default=None)
        text = announcement(
            fresh, self.clock(), newest is not None and flow.can_undo(self.snapshot, self.complete, newest)
        )
        if text:
            self.notify(text, title="agent auto-write", timeout=15)
        self.refresh_bindings()

    def _refresh_status(self) -> None:
        if not self.screen_stack:
            return
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                screen.refresh_status()
        self.refresh_bindings()  # the footer's "A Approvals" follows the count

    def _open_dialog(self) -> ApprovalScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, ApprovalScreen):
                return screen
        return None

    def _show_next(self, force: bool = False) -> None:
        """Prepare the dialog for the oldest pending proposal (never while a dialog or a
        proposal's form is open, and not before the first store load completed)."""
        if not self.complete or self._open_dialog() is not None:
            return
        flow = self.approvals
        proposal = flow.next_candidate(force)
        if proposal is None:
            if force and not flow.busy:
                self.notify("No pending proposals.", timeout=3)
            return
        flow.preparing = proposal.id
        self._prepare_view(proposal, "open")

    @work(thread=True, group="approvals-preview", exit_on_error=False, description="prepare a proposal")
    def _prepare_view(self, proposal: Proposal, purpose: str) -> None:
        """Compute a proposal's dialog view off the UI thread (the preview runs the policy,
        reads the store and diffs; a big proposal takes a while)."""
        try:
            preview = self.queue.preview(proposal, self.make_store())
        except Exception:  # a broken proposal is still shown, from its own arguments
            preview = None
        try:
            waiting = self.queue.waiter(proposal.id)
        except Exception:
            waiting = None
        view = proposal_view(
            proposal, self.snapshot, preview, changed=proposal.id in self.approvals.changed, waiting=waiting
        )
        self.post_message(ProposalViewReady(view, purpose))

    @on(ProposalViewReady)
    def _view_ready(self, message: ProposalViewReady) -> None:
        if not self.screen_stack:
            return
        view = message.view
        flow = self.approvals
        screen = self._open_dialog()
        if message.purpose == "refresh":
            if screen is not None and screen.view.id == view.id and flow.get(view.id) is not None:
                flow.shown(view)
                screen.update_view(view)
            return
        if flow.preparing != view.id:
            return
        flow.preparing = None
        if screen is not None or flow.editing is not None or flow.get(view.id) is None:
            self._show_next()
            return
        over_text = isinstance(self.focused, (Input, TextArea))
        flow.shown(view)
        self.push_screen(
            ApprovalScreen(view, flow.position(view.id), flow.count, over_text=over_text, zone=self.settings.time_zone),
            partial(self._dialog_closed, view.id),
        )

    def _refresh_open_dialog(self) -> None:
        """The store changed: the open dialog's diff, holder and conflict are recomputed."""
        screen = self._open_dialog()
        if screen is None:
            return
        proposal = self.approvals.get(screen.view.id)
        if proposal is not None:
            self._prepare_view(proposal, "refresh")

    def _read_wait(self) -> None:
        screen = self._open_dialog()
        if screen is not None:
            self._wait_worker(screen.view.id)

    @work(thread=True, group="approvals-wait", exclusive=True, exit_on_error=False, description="read the agent's wait")
    def _wait_worker(self, proposal_id: str) -> None:
        self.post_message(AgentWaitRead(proposal_id, self.queue.waiter(proposal_id)))

    @on(AgentWaitRead)
    def _wait_read(self, message: AgentWaitRead) -> None:
        screen = self._open_dialog()
        if screen is not None and screen.view.id == message.proposal_id:
            screen.set_waiting(message.waiting)

    def _dialog_closed(self, proposal_id: str, decision: Decision | None) -> None:
        flow = self.approvals
        view = flow.closed()
        action = decision.action if decision is not None else "later"
        proposal = flow.get(proposal_id)
        if action == "gone" or proposal is None:
            self._show_next()
        elif action == "later":
            flow.deferred.add(proposal_id)
            self.notify(
                f'{proposal.title} stays queued ({flow.count} pending). Press A (or the palette\'s "approvals: review pending") to open it again.',
                timeout=5,
            )
            self._show_next()
        elif action == "edit" and view is not None:
            self._edit_proposal(proposal, view)
        elif action in ("approve", "deny") and decision is not None:
            self.post_message(ApprovalDecided(proposal_id, action, decision.digest))
        else:
            self._show_next()

    def _edit_proposal(self, proposal: Proposal, view: ProposalView) -> None:
        """ "Edit, then approve": the form pre-filled with the fact as it would be written.
        While it is open no dialog opens (new proposals only raise the count)."""
        flow = self.approvals
        initial = form_values(view)
        digest = view.digest
        flow.editing = proposal.id

        def submitted(result: writes.FactFormValues | None) -> None:
            if flow.editing == proposal.id:
                flow.editing = None
            if result is None:
                flow.deferred.discard(proposal.id)
                self._show_next()
                return
            self.post_message(ApprovalDecided(proposal.id, "approve", digest, form_edits(initial, result)))

        self.push_screen(FactFormScreen(initial, title=f"Edit, then approve: {proposal.title}"), submitted)

    @on(ApprovalDecided)
    def _approval_decided(self, message: ApprovalDecided) -> None:
        self.approvals.deciding(message.proposal_id)
        self._refresh_status()
        self.run_write(
            "approval",
            lambda store: writes.decide(
                store, self.queue, message.proposal_id, message.action, message.digest, message.edits
            ),
        )
        self._show_next()

    def _approval_finished(self, message: WriteFinished) -> None:
        flow = self.approvals
        result = message.approval
        if message.proposal_id:
            flow.decided(
                message.proposal_id,
                still_pending=message.changed,
                finished=message.ok and message.changed is None and result is not None,
            )
        if message.changed is not None:
            self.notify(
                f"Not applied: {message.changed.title} changed since you opened it. It is shown again with the new content.",
                title="changed since you opened it",
                severity="warning",
                timeout=10,
            )
            self._show_next()
        elif not message.ok or result is None:
            self.notify(f"Not applied: {message.text}", title="approval failed", severity="error", timeout=15)
        elif result.state == "approved":
            self.notify(result.message or "Approved and saved.", title="approved", timeout=5)
        elif result.state == "denied":
            what = "nothing was saved" if result.tool == "remember" else "nothing was archived"
            self.notify(f"Denied: {what}. The agent has been told.", title="denied", timeout=4)
        elif result.state == "conflict":
            self.notify(
                f"Not applied: {result.message}",
                title="conflict: the fact changed after the proposal",
                severity="error",
                timeout=15,
            )
        else:
            self.notify(f"Not applied: {result.message}", title="approval failed", severity="error", timeout=15)
        if result is not None and result.notice:
            self.notify(result.notice, title="note", severity="warning", timeout=20)
        self._refresh_status()

    @on(UndoAutoWriteRequested)
    def _undo_requested(self, message: UndoAutoWriteRequested) -> None:
        flow = self.approvals
        if not flow.can_undo(self.snapshot, self.complete):
            return
        record = flow.take_undo()
        if record is None:
            return
        self.refresh_bindings()
        self.run_write("undo", lambda store: writes.undo_auto_write(store, self.queue, record))

    @on(ReviewApprovalsRequested)
    def _review_requested(self, message: ReviewApprovalsRequested) -> None:
        self._show_next(force=True)

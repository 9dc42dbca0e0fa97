"""The approval flow: the Context Center side of ``core.approvals``.

* While the app is open it holds a presence marker (``start`` / a heartbeat timer /
  ``stop``), so agents know a person can answer.
* ``refresh`` reads the queue in a thread worker (at start, so proposals left from before
  the app started are shown, and whenever the watcher sees ``approvals/`` change). New
  proposals open :class:`ApprovalScreen` over whatever is showing; more pending ones
  queue behind it with the count in the dialog and the status line.
* A decision runs ``ApprovalQueue.apply`` in a thread worker; a conflict comes back as
  such and is shown, never applied. ``e`` opens the fact form pre-filled with the
  proposal, and saving approves with those edits.
* Low-risk auto-writes get one notification each, once ever (records move to
  ``auto/seen/``); ``ctrl+z`` undoes the newest while the fact is still at that revision.
"""

from __future__ import annotations

import threading
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from textual.timer import Timer

from ..core.approvals import ApprovalQueue, AutoWrite, PresenceMarker, Proposal
from ..core.gotime import parse_rfc3339
from ..core.store.model import StoreError
from ..core.store.store import Store
from .proposals import Decision, ProposalView, proposal_view

if TYPE_CHECKING:
    from .app import ContextCenterApp

__all__ = ["ApprovalFlow"]

ANNOUNCE_WINDOW_NS = 86_400 * 1_000_000_000
"""Auto-writes older than this at start are not announced (they were missed, not news)."""

_FORM_FIELDS = ("name", "title", "description", "type", "scope", "activation", "volatility", "subject_key", "keywords", "expires_at", "body")


class ApprovalFlow:
    """Pending proposals, the presence marker and the modal flow for one app."""

    def __init__(self, app: ContextCenterApp) -> None:
        self.app = app
        """The Context Center."""
        self.pending: list[Proposal] = []
        """Proposals waiting for a decision, oldest first."""
        self.deferred: set[str] = set()
        """Proposals the person put off with "later" (reopened from the palette)."""
        self.in_flight: set[str] = set()
        """Proposals being applied right now."""
        self.showing: str | None = None
        """Id of the proposal in the open dialog."""
        self.auto_seen: set[str] = set()
        """Auto-write records already announced."""
        self.last_auto: AutoWrite | None = None
        """The newest auto-write (announced or not); ctrl+z undoes it while :meth:`can_undo`."""
        self.undone: set[str] = set()
        """Auto-write records undone in this session."""
        self.queue = ApprovalQueue(app.layout)
        """The core approval queue of the app's state root."""
        self._apply_store: Store | None = None
        self._apply_lock = threading.Lock()
        self._marker: PresenceMarker | None = None
        self._heartbeat: Timer | None = None

    # ----------------------------------------------------------------- lifecycle

    @property
    def count(self) -> int:
        """How many proposals wait (including the one on screen)."""
        return len(self.pending)

    def start(self) -> None:
        """Write the presence marker, start its heartbeat and read the queue."""
        try:
            self._marker = self.queue.presence_marker(self.app.layout)
            self._marker.start()
            self._heartbeat = self.app.set_interval(5.0, self._beat, name="presence-heartbeat")
        except Exception:  # a read-only root: no marker, the app still works
            self._marker = None
        self.refresh()

    def _beat(self) -> None:
        marker = self._marker
        if marker is not None:
            self.app.run_worker(marker.beat, thread=True, group="presence", exit_on_error=False)

    def stop(self) -> None:
        """Remove the presence marker."""
        if self._heartbeat is not None:
            self._heartbeat.stop()
        if self._marker is not None:
            self._marker.stop()
            self._marker = None

    # ----------------------------------------------------------------- reading

    def refresh(self) -> None:
        """Read the queue and the auto-writes in a thread worker."""
        self.app.run_worker(self._read, thread=True, group="approvals-read", exclusive=True, exit_on_error=False, description="read approvals")

    def _read(self) -> None:
        pending = self.queue.pending()
        auto = [r for r in self.queue.auto_writes() if r.id not in self.auto_seen]
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
        self.app.call_from_thread(self._update, pending, auto, latest)

    def _update(self, pending: list[Proposal], auto: list[AutoWrite], latest: AutoWrite | None = None) -> None:
        self.pending = [p for p in pending if p.id not in self.in_flight]
        ids = {p.id for p in self.pending}
        self.deferred &= ids
        self._refresh_status()
        screen = self._open_dialog()
        if screen is not None:
            if screen.view.id not in ids:
                screen.dismiss(Decision("gone"))
            else:
                screen.set_total(self.count)
        self.show_next()
        if latest is not None and latest.id not in self.undone:
            self.last_auto = latest
        self._announce([r for r in auto if r.id not in self.auto_seen])
        self.app.refresh_bindings()

    def _announce(self, records: list[AutoWrite]) -> None:
        """One notice for the auto-writes of the last day; older ones were missed while no
        Context Center was open and are not news any more (the Activity pane lists them)."""
        self.auto_seen.update(r.id for r in records)
        now = self.app.clock().ns
        fresh = []
        for record in records:
            ts = parse_rfc3339(record.created_at)
            if ts is not None and now - ts.ns <= ANNOUNCE_WINDOW_NS:
                fresh.append((ts.ns, record.id, record))
        if not fresh:
            return
        fresh.sort(key=lambda item: item[:2])
        ordered = [record for _, _, record in fresh]
        newest = ordered[-1]
        req = newest.requester
        who = (req.agent or "The agent") + (f" (via {req.source})" if req.source else "")
        undo = " Press ctrl+z to undo it." if self.can_undo(newest) else ""
        if len(ordered) == 1 and newest.is_update:
            undo = f" Press ctrl+z to bring revision {newest.previous_revision} back." if undo else ""
            text = (
                f"{who} updated {newest.ref} (revision {newest.previous_revision} → {newest.revision}) without asking "
                f"(auto_confirm_project_remember is on).{undo}"
            )
        elif len(ordered) == 1:
            text = f"{who} saved {newest.ref} (revision {newest.revision}) without asking: a new low-risk project fact.{undo}"
        else:
            refs = ", ".join(r.ref for r in ordered[:5]) + (f" and {len(ordered) - 5} more" if len(ordered) > 5 else "")
            undo = f" Press ctrl+z to undo the newest ({newest.ref})." if undo else ""
            text = f"The agent wrote {len(ordered)} low-risk project facts without asking: {refs}.{undo}"
        self.app.notify(text, title="agent auto-write", timeout=15)

    def can_undo(self, record: AutoWrite | None = None) -> bool:
        """Undo is offered while the written fact is still at the written revision."""
        record = record if record is not None else self.last_auto
        if record is None or record.id in self.undone:
            return False
        snapshot = self.app.snapshot
        row = snapshot.rows.get(record.fact_id)
        if row is not None:
            return row.revision == record.revision
        # Not in the store view: gone, unless the view predates the write (the watcher
        # reports approvals/ and the store separately). The core re-checks on undo anyway.
        written = parse_rfc3339(record.created_at)
        return not self.app.complete or (written is not None and written.ns >= snapshot.loaded_at.ns)

    def _refresh_status(self) -> None:
        from .screens.main import MainScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, MainScreen):
                screen.refresh_status()
        self.app.refresh_bindings()  # the footer's "A Approvals" follows the count

    def _open_dialog(self) -> Any:
        from .screens.approval import ApprovalScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, ApprovalScreen):
                return screen
        return None

    # ----------------------------------------------------------------- dialog

    def store_changed(self) -> None:
        """The store was read again: the open dialog's preview (diff, subject holder,
        conflict) is recomputed in a thread worker and shown in place."""
        screen = self._open_dialog()
        if screen is None:
            return
        proposal = next((p for p in self.pending if p.id == screen.view.id), None)
        if proposal is None:
            return

        def work() -> None:
            view = self.view_for(proposal)
            self.app.call_from_thread(screen.update_view, view)

        self.app.run_worker(work, thread=True, group="approvals-preview", exclusive=True, exit_on_error=False, description="refresh the proposal preview")

    def view_for(self, proposal: Proposal) -> ProposalView:
        """The dialog's view of a proposal (a fresh preview from the core queue)."""
        try:
            preview = self.queue.preview(proposal)
        except Exception:  # a broken proposal is still shown, from its own arguments
            preview = None
        return proposal_view(proposal, self.app.snapshot, preview)

    def show_next(self, force: bool = False) -> None:
        """Open the dialog for the oldest pending proposal that is not on screen."""
        from .screens.approval import ApprovalScreen

        if self._open_dialog() is not None or not self.app.complete:
            return  # the first store load calls this again, so the dialog has its data
        if force:
            self.deferred.clear()
        candidates = [p for p in self.pending if p.id not in self.deferred and p.id not in self.in_flight]
        if not candidates:
            if force:
                self.app.notify("No pending proposals.", timeout=3)
            return
        proposal = candidates[0]
        self.showing = proposal.id
        position = self.pending.index(proposal) + 1
        view = self.view_for(proposal)
        self.app.push_screen(ApprovalScreen(view, position, self.count), lambda d: self._decided(proposal, view, d))

    def _decided(self, proposal: Proposal, view: ProposalView, decision: Decision | None) -> None:
        self.showing = None
        action = decision.action if decision is not None else "later"
        if action == "later":
            self.deferred.add(proposal.id)
            self.app.notify(
                f"{proposal.title} stays queued ({self.count} pending). Press A (or the palette's \"approvals: review pending\") to open it again.",
                timeout=5,
            )
        elif action == "edit":
            self._edit(proposal, view)
            return
        elif action in ("approve", "deny"):
            self._apply(proposal, action, None)
            return
        self.show_next()

    def _edit(self, proposal: Proposal, view: ProposalView) -> None:
        from .actions import FactFormValues
        from .screens.fact_form import FactFormScreen

        args = view.args
        values = FactFormValues(
            name=str(args.get("name") or view.name or ""),
            title=str(args.get("title") or ""),
            description=str(args.get("description") or ""),
            type=str(args.get("type") or view.type or "project"),
            scope=str(args.get("scope") or view.scope or "project"),
            activation=str(args.get("activation") or ""),
            volatility=str(args.get("volatility") or ""),
            subject_key=str(args.get("subject_key") or ""),
            keywords=str(args.get("keywords") or ""),
            expires_at=str(args.get("expires_at") or ""),
            body=str(args.get("body") or ""),
        )

        def submitted(result: FactFormValues | None) -> None:
            if result is None:
                self.deferred.discard(proposal.id)
                self.show_next()
                return
            data = asdict(result)
            edits = {k: data[k] for k in _FORM_FIELDS if data[k] != str(args.get(k) or "")}
            if result.verified:
                edits["verified"] = True
            self._apply(proposal, "approve", edits)

        self.app.push_screen(FactFormScreen(values, title=f"Edit, then approve: {proposal.title}"), submitted)

    def _apply(self, proposal: Proposal, decision: str, edits: dict[str, Any] | None) -> None:
        self.in_flight.add(proposal.id)
        self.pending = [p for p in self.pending if p.id != proposal.id]
        self._refresh_status()
        self.app.run_worker(
            lambda: self._apply_worker(proposal, decision, edits),
            thread=True,
            group="approvals-apply",
            exit_on_error=False,
            description="apply a decision",
        )
        self.show_next()

    def _apply_worker(self, proposal: Proposal, decision: str, edits: dict[str, Any] | None) -> None:
        try:
            with self._apply_lock:  # one decision at a time through the shared store
                result = self.queue.apply(proposal, decision, edits=edits, store=self._store())
            outcome = (result.state, result.message, result.fact_id)
        except (StoreError, OSError, ValueError) as exc:
            outcome = ("error", str(exc), "")
        self.app.call_from_thread(self._applied, proposal, outcome)

    def _store(self) -> Store:
        """One store for every decision, so its parse cache stays warm in memory (applying
        then costs a directory scan, not a re-read of the cache file: the agent waits on it)."""
        if self._apply_store is None:
            self._apply_store = Store(self.app.layout, settings=self.app.settings, actor="agent-approved")
        return self._apply_store

    def _applied(self, proposal: Proposal, outcome: tuple[str, str, str]) -> None:
        state, message, fact_id = outcome
        self.in_flight.discard(proposal.id)
        if state == "approved":
            self.app.notify(message or "Approved and saved.", title="approved", timeout=5)
        elif state == "denied":
            self.app.notify("Denied: nothing was saved. The agent has been told.", title="denied", timeout=4)
        elif state == "conflict":
            self.app.notify(
                f"Not applied: {message}", title="conflict: the fact changed after the proposal", severity="error", timeout=15
            )
        else:
            self.app.notify(f"Not applied: {message}", title="approval failed", severity="error", timeout=15)
        if fact_id:
            from .screens.main import MainScreen

            for screen in self.app.screen_stack:
                if isinstance(screen, MainScreen):
                    screen.pending_select = fact_id
        if not self.app.watch_enabled:
            self.app.reload_store()  # with the watcher on, it re-reads just the written file
        self.refresh()

    # ----------------------------------------------------------------- auto-writes

    def undo_last_auto(self) -> None:
        """Undo the newest announced auto-write (archive it if unchanged since)."""
        record = self.last_auto
        if record is None or not self.can_undo(record):
            return
        self.last_auto = None
        self.undone.add(record.id)
        self.app.refresh_bindings()

        def work() -> None:
            try:
                res = self.queue.undo_auto_write(record, store=Store(self.app.layout, settings=self.app.settings, actor="context-center"))
                if record.is_update:
                    text = f"Undone: {record.ref} has revision {record.previous_revision}'s content again (as revision {res.fact.revision})."
                else:
                    text = f"Undone: {record.ref} moved to the archive."
                ok = True
            except (StoreError, OSError) as exc:
                text, ok = f"Could not undo: {exc}", False
            self.app.call_from_thread(self.app.notify, text, severity="information" if ok else "error", timeout=6)
            self.app.call_from_thread(self.app.reload_store)

        self.app.run_worker(work, thread=True, group="store-write", exit_on_error=False, description="undo an auto-write")

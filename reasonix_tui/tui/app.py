"""``ContextCenterApp``: the owner of the snapshot, the watcher, the reload worker, the one
write worker and the approval flow.

Data flow (house style §3.3): the app holds one immutable :class:`CenterSnapshot` and a
``store_changed`` :class:`~textual.signal.Signal`; panes draw from the snapshot on mount
and subscribe. Panes post ``…Requested`` intents; every store change (the person's edits,
approval decisions, suggestion accept/dismiss, undo of an auto-write, a quick-add note)
becomes one job of a single write worker, which runs the jobs one at a time through one
warm store and posts :class:`WriteFinished` for each; the app then reloads the files the
write touched. A write and an outside change reach the screen by the same path
(``StoreReloaded``).

Approvals: the app reads the queue in a worker, computes a proposal's dialog view in a
worker before it pushes the dialog, and applies a decision through the write worker,
bound to the digest of the content the person saw. :class:`~.approval_flow.ApprovalFlow`
only holds the state.
"""

from __future__ import annotations

import gc
import os
import shlex
import subprocess
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, cast

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.signal import Signal
from textual.theme import Theme
from textual.widgets import Input, TextArea
from textual.worker import Worker, WorkerState

from ..core.agent.approvals import ApprovalQueue, PresenceMarker
from ..core.agent.proposals import Proposal
from ..core.compat.gotime import Timestamp
from ..core.paths import Layout
from ..core.settings import Settings
from ..core.store.atomic import ensure_dir
from ..core.store.model import StoreError
from ..core.store.store import Store, fact_file_problem
from . import writes
from .approval_flow import ApprovalFlow, announcement, form_edits, form_values
from .commands import FactsProvider
from .messages import (
    AgentWaitRead,
    ApprovalDecided,
    ApprovalsRead,
    BulkRequested,
    CopyRefRequested,
    EditFileRequested,
    EditRequested,
    ForgetRequested,
    HealthChecked,
    HealthFixRequested,
    HealthUndoRequested,
    NewFactRequested,
    PinRequested,
    ProposalViewReady,
    QuickAddRequested,
    RecoverRequested,
    RestoreRequested,
    ReviewApprovalsRequested,
    SidecarsReloaded,
    SnapshotResolved,
    StoreLoadFailed,
    StoreReloaded,
    StoreUpdate,
    SuggestionAcceptRequested,
    SuggestionDismissRequested,
    UndoAutoWriteRequested,
    VerifyRequested,
    WriteFinished,
)
from .model.loader import load_snapshot, save_row_cache, update_snapshot
from .model.proposals import Decision, ProposalView, proposal_view
from .model.rows import Clock
from .model.snapshot import CenterSnapshot, diff_snapshots, resolve_snapshot, with_identity_index
from .screens.approval import ApprovalScreen
from .screens.dialogs import ConfirmScreen, QuickAddScreen
from .screens.fact_form import FactFormScreen
from .screens.help import HelpScreen, binding_ids
from .screens.main import PANES, MainScreen

__all__ = ["ContextCenterApp", "StoreUpdate", "make_app", "THEME", "PANES"]

THEME = Theme(
    name="reasonix-tui",
    primary="#4FB3BF",
    secondary="#7A86B6",
    accent="#E8B04B",
    warning="#E89B4B",
    error="#E0605E",
    success="#7BC47F",
    foreground="#D8DEE9",
    background="#0F141A",
    surface="#151B23",
    panel="#1E2631",
    dark=True,
    variables={
        "block-cursor-background": "#2B5F68",
        "block-cursor-foreground": "#F2F5F8",
        "block-cursor-blurred-background": "#22343B",
        "footer-key-foreground": "#E8B04B",
        "input-cursor-text-style": "none",
    },
)
"""The Context Center's theme (the built-in themes stay selectable)."""

HEARTBEAT_SECONDS = 5.0
"""How often the presence marker is refreshed."""

HEALTH_SLICE_SECONDS = 3.0
"""How long one slice of a big store's first health scan may take before its findings are shown."""

TICK_SECONDS = 30.0
"""How often relative ages ("3m ago") are redrawn."""

WriteJob = Callable[[Store], writes.Outcome]
"""One store change, run by the write worker."""

_STORE_WRITES = frozenset(
    {"pin", "unpin", "verify", "forget", "new", "edit", "restore", "recover", "accept", "undo", "archive", "merge"}
)
"""Jobs that change fact files (reloaded after, wholly when they name no paths)."""


def _real_clock() -> Timestamp:
    return Timestamp.now()


class ContextCenterApp(App[None]):
    """The Context Center."""

    CSS_PATH = "app.tcss"
    TITLE = "Reasonix Context Center"
    COMMANDS = App.COMMANDS | {FactsProvider}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app-help", tooltip="Keys of every pane"),
        Binding("question_mark", "help", "Help", id="app-help-question", key_display="?", show=False),
        Binding("q", "quit_main", "Quit", id="app-quit", show=False, tooltip="Quit (when no text box has focus)"),
        Binding("ctrl+r", "reload", "Reload", id="app-reload", tooltip="Read the store again"),
        Binding(
            "A", "review_approvals", "Approvals", id="app-approvals", tooltip="Open the pending agent proposals again"
        ),
        Binding(
            "ctrl+z",
            "undo_agent_write",
            "Undo agent write",
            id="app-undo-auto",
            tooltip="Archive the fact the agent just wrote",
        ),
        *[
            Binding(str(i + 1), f"show_pane('{pane}')", title, show=False, id=f"app-pane-{pane}")
            for i, (pane, title) in enumerate(PANES)
        ],
    ]

    def __init__(
        self,
        layout: Layout,
        settings: Settings | None = None,
        *,
        watch: bool = True,
        clock: Clock | None = None,
        demo: bool = False,
    ) -> None:
        super().__init__()
        self.layout = layout
        """Paths of the store being shown."""
        self.settings = settings or Settings()
        """Effective settings."""
        self.watch_enabled = watch
        """Watch the store for outside changes (off in tests and snapshots)."""
        self.clock: Clock = clock or _real_clock
        """Source of "now" (frozen in tests)."""
        self.demo = demo
        """Opened on a generated demo home."""
        self.snapshot: CenterSnapshot = CenterSnapshot.empty(self.settings.pinned_budget_chars)
        """The one immutable view of the store."""
        self.loaded = False
        """Rows are on screen (maybe from a partial snapshot of a big first load)."""
        self.complete = False
        """The first load has finished (``snapshot.reading`` is ``(0, 0)`` since)."""
        self.stale = False
        """The last reload failed: the screen shows the last good snapshot."""
        self.store_changed: Signal[StoreUpdate] = Signal(self, "store-changed")
        """Published after every reload that changed something."""
        self.sidecars_changed: Signal[SidecarsReloaded] = Signal(self, "sidecars-changed")
        """Published when approvals, recall traces, the audit log, instructions or suggestions change."""
        self.clock_ticked: Signal[None] = Signal(self, "clock-ticked")
        """Published every :data:`TICK_SECONDS` so relative ages move on screen."""
        self.approvals = ApprovalFlow()
        """The approval flow's state."""
        self.health: Any = None
        """The last :class:`~reasonix_tui.core.health.HealthReport` (``None`` until the first)."""
        self.health_changed: Signal[Any] = Signal(self, "health-changed")
        """Published with each new health report."""
        self.health_undo: list[writes.HealthUndo] = []
        """Health fixes that can be taken back, newest last."""
        self._health_gen = 0
        self._health_seen = 0
        self._health_lock = threading.Lock()
        self._health_checker: Any = None
        self._health_store: Store | None = None
        self.queue = ApprovalQueue(layout)
        """The approval queue of the state root."""
        self.keymap: dict[str, str] = dict(self.settings.keymap)
        """``[keymap]``: binding id → keys."""
        self._reload_lock = threading.Lock()
        self._reload_paths: set[str] = set()
        self._reload_full = False
        self._reload_running = False
        self._reload_base: CenterSnapshot | None = None
        self._select_after_reload: str | None = None
        self._writes: deque[tuple[str, WriteJob]] = deque()
        self._writes_lock = threading.Lock()
        self._writes_running = False
        self._write_store: Store | None = None
        self._marker: PresenceMarker | None = None
        self.register_theme(THEME)
        self.theme = "reasonix-tui"

    # ----------------------------------------------------------------- lifecycle

    def get_default_screen(self) -> Screen[Any]:
        """The main screen with the seven panes."""
        return MainScreen()

    def on_mount(self) -> None:
        """Keymap, presence marker, first load, the approval queue and the watcher."""
        self._apply_keymap()
        self._start_presence()
        self.reload_store()
        self._warm_language()
        self.refresh_approvals()
        # An approve that a crash interrupted after its write landed is finished first.
        self.run_write("approval", lambda store: writes.finish_interrupted(store, self.queue))
        if self.watch_enabled:
            self.watch_files()
            # Ages ("3m", "stale") move with the clock: recompute rows now and then
            # (files are only stat'ed; unchanged ones are not parsed again).
            self.set_interval(300, self.reload_store, name="age-refresh")
        self.set_interval(TICK_SECONDS, self._tick, name="clock-tick")

    @work(thread=True, group="lang-warm", exit_on_error=False, description="load language resources")
    def _warm_language(self) -> None:
        """Load the segmenter, dictionary and meaning model once, off the UI thread, so
        "try a query" and the detail labels do not pay for them (thread worker)."""
        from ..core import lang

        lang.warm()

    @work(thread=True, group="resolve", exit_on_error=False, description="resolve subjects and topics")
    def _resolve_worker(self, snapshot: CenterSnapshot) -> None:
        """Which facts are superseded, for the detail view's label (thread worker; never
        blocks a reload, which runs in its own worker): a copy of the snapshot that carries
        it goes to :meth:`_snapshot_resolved`."""
        if snapshot.generation != self.snapshot.generation:
            return
        try:
            resolved = resolve_snapshot(snapshot)
        except Exception:  # noqa: BLE001 - a label in the detail view is never worth a failed worker
            return
        if resolved is not None:
            self.post_message(SnapshotResolved(resolved))

    @on(SnapshotResolved)
    def _snapshot_resolved(self, message: SnapshotResolved) -> None:
        """Hold the resolved copy when it is still of the snapshot on screen."""
        if message.snapshot.generation == self.snapshot.generation:
            self.snapshot = message.snapshot

    # ----------------------------------------------------------------- memory health

    def refresh_health(self) -> None:
        """Compute memory health again in a worker (requests made while one runs collapse
        into one run; :class:`HealthChecked` carries the result)."""
        self._health_gen += 1
        self._health_worker(self._health_gen)

    @work(thread=True, group="health", exit_on_error=False, description="check memory health")
    def _health_worker(self, generation: int) -> None:
        """Findings of the store, the traces and the instructions (thread worker). One
        long-lived checker and store, so a run after a write scans only what changed."""
        from ..core.health import Dismissals, HealthChecker, gather, memo_path

        with self._health_lock:
            if generation != self._health_gen:
                return  # a newer request follows: it will do the work
            if self._health_checker is None:
                self._health_checker = HealthChecker(memo_path(self.layout))
                self._health_store = Store(self.layout, settings=self.settings, actor="context-center")
            checker = self._health_checker
            while True:
                # A big store's first scan is done in slices, each shown as it lands
                # ("secrets: 3,000/10,000 facts scanned"), so the pane fills in step by step.
                ctx = gather(self.layout, self.settings, self._health_store, now=self.clock())
                report = checker.report(ctx, Dismissals(self.layout).fingerprints(), budget_s=HEALTH_SLICE_SECONDS)
                checker.save()
                self.post_message(HealthChecked(report, generation))
                if not any(p.startswith("secrets:") for p in report.partial) or generation != self._health_gen:
                    return

    @on(HealthChecked)
    def _health_checked(self, message: HealthChecked) -> None:
        if not self.screen_stack or message.generation < self._health_gen and self.health is not None:
            return  # a newer run is on its way
        self.health = message.report
        self._health_seen = message.generation
        self.health_changed.publish(message.report)

    @on(HealthFixRequested)
    def _health_fix_requested(self, message: HealthFixRequested) -> None:
        finding, action = message.finding, message.action
        fix = finding.fix(action)
        if fix is None:
            self.notify(f"This finding offers no {action} fix.", severity="warning", timeout=4)
            return
        undo = self.health_undo
        if action == "edit":
            if fix.fact_id and fix.fact_id in self.snapshot.facts:
                self.post_message(EditRequested(fix.fact_id, external=True))
            elif fix.path:
                self._edit_file(fix.path, fact_file=finding.kind == "unreadable")
            return
        if action == "dismiss":
            self.run_write("dismiss", lambda store: writes.health_dismiss(store, finding, undo))
            return
        if action == "merge":
            facts = [self.snapshot.facts.get(r.id) for r in finding.facts]
            if any(f is None for f in facts):
                self.notify(
                    "A fact of this finding is no longer active; look at the findings again.", severity="warning"
                )
                return
            try:
                draft, values = writes.merge_form([f for f in facts if f is not None], fix.keep_id or fix.fact_id)
            except StoreError as exc:
                self.notify(str(exc), title="merge: refused", severity="error")
                return
            others = ", ".join(r.ref for r in finding.facts if r.id != draft.id)
            screen = FactFormScreen(values, title=f"Merge into {finding.facts[0].ref} (saving archives {others})")

            def saved(values: writes.FactFormValues | None) -> None:
                if values is not None:
                    self.run_write("merge", lambda store: writes.health_merge(store, finding, draft, values, undo))

            self.push_screen(screen, saved)
            return
        self.run_write(action, lambda store: writes.health_fix(store, finding, action, undo))

    @on(HealthUndoRequested)
    def _health_undo_requested(self, message: HealthUndoRequested) -> None:
        if not self.health_undo:
            self.notify("No health fix to undo.", timeout=3)
            return
        item = self.health_undo.pop()
        self.run_write("undo", lambda store: writes.health_undo(store, item))

    def on_unmount(self) -> None:
        """Remove the presence marker."""
        if self._marker is not None:
            self._marker.stop()
            self._marker = None

    def _tick(self) -> None:
        self.clock_ticked.publish(None)

    def make_store(self) -> Store:
        """A store for reads by panes and the person's actions (actor ``context-center``)."""
        return Store(self.layout, settings=self.settings, actor="context-center")

    # ----------------------------------------------------------------- keymap

    def _apply_keymap(self) -> None:
        if not self.keymap:
            return
        known = binding_ids(type(self))
        unknown = sorted(set(self.keymap) - set(known))
        self.set_keymap({k: v for k, v in self.keymap.items() if k in known})
        if unknown:
            self.notify(
                f"[keymap] in settings.toml names unknown binding ids: {', '.join(unknown)} (F1 lists the ids).",
                severity="warning",
                timeout=12,
            )

    def effective_keys(self, binding_id: str, default: str) -> str:
        """The keys a binding has now (the ``[keymap]`` setting applied)."""
        return self.keymap.get(binding_id) or default

    # ----------------------------------------------------------------- reload

    def reload_store(self, paths: Iterable[str] | None = None) -> None:
        """Read the store again: only ``paths`` when given (watcher, writes), else everything.

        Requests are queued and drained by one thread worker at a time. Each result builds
        on the newest snapshot *read* (not the newest shown: the screen may not have taken
        the last one yet), so no change is lost between two batches.
        """
        with self._reload_lock:
            if paths is None or not self.loaded:
                self._reload_full = True
            else:
                self._reload_paths.update(paths)
            if self._reload_running:
                return
            self._reload_running = True
        self._reload_worker()

    def _partial_poster(self, shown: list[CenterSnapshot | None]) -> Callable[[CenterSnapshot], None]:
        """For a first load: post each partial snapshot, diffed against the one before
        (``shown[0]``: the last one posted)."""

        def post(partial_snapshot: CenterSnapshot) -> None:
            previous = shown[0]
            self.post_message(StoreReloaded(partial_snapshot, previous, diff_snapshots(previous, partial_snapshot)))
            shown[0] = partial_snapshot

        return post

    @work(thread=True, group="store-reload", exit_on_error=False, description="read the store")
    def _reload_worker(self) -> None:
        """Drain queued reload requests; post :class:`StoreReloaded` for each result (thread worker)."""
        with self._reload_lock:
            base = self._reload_base
        try:
            while True:
                with self._reload_lock:
                    full, paths = self._reload_full, self._reload_paths
                    self._reload_full, self._reload_paths = False, set()
                    if not full and not paths:
                        self._reload_running = False
                        return
                snapshot = None
                if not full and base is not None:
                    snapshot = update_snapshot(base, self.layout, self.settings, self.clock(), paths)
                shown: list[CenterSnapshot | None] = [base]
                if snapshot is None:
                    progress = self._partial_poster(shown) if base is None else None
                    snapshot = load_snapshot(self.layout, self.settings, self.clock(), base, progress=progress)
                # Against what the screen has (the last partial of a first load), so the
                # screen applies a diff instead of working one out itself.
                changes = diff_snapshots(shown[0], snapshot)
                # Complete before it is posted: nothing changes a snapshot once the screen has it.
                snapshot = with_identity_index(snapshot, shown[0], changes)
                with self._reload_lock:
                    self._reload_base = snapshot  # the next batch builds on this one
                self.post_message(StoreReloaded(snapshot, shown[0], changes))
                # After posting, so the screen does not wait for it:
                if snapshot.cache_dirty:
                    save_row_cache(self.layout, snapshot)
                base = snapshot
        except BaseException:
            with self._reload_lock:
                self._reload_running = False
            raise

    @on(StoreReloaded)
    def _store_reloaded(self, message: StoreReloaded) -> None:
        if not self.screen_stack:
            return  # read while the app was closing
        changes = message.changes
        base = message.base
        if (base is None and self.loaded) or (base is not None and base.generation != self.snapshot.generation):
            changes = diff_snapshots(self.snapshot if self.loaded else None, message.snapshot)
        first_rows = not self.loaded
        complete = not message.snapshot.reading[1]
        first = complete and not self.complete  # the first complete snapshot
        self.loaded = True
        self.complete = self.complete or complete
        self.snapshot = message.snapshot
        if complete:
            self._resolve_worker(message.snapshot)
            self.refresh_health()
        if first and len(message.snapshot.rows) > 2_000:
            # A big store is millions of long-lived objects without cycles: keep the cyclic
            # GC from walking them again and again (a full pass costs ~0.3 s at 100k facts).
            # Once, at the first load, so later cyclic garbage is still collected.
            gc.freeze()
        if self.stale:
            self.stale = False
            self._set_stale(False)
        if self.approvals.last_auto is not None:
            self.refresh_bindings()  # ctrl+z follows whether the auto-written fact changed
        select = None
        if self._select_after_reload is not None and self._select_after_reload in message.snapshot.rows:
            select, self._select_after_reload = self._select_after_reload, None
        if changes.empty and not first and not first_rows and select is None:
            if not complete:
                self.store_changed.publish(StoreUpdate(message.snapshot, changes))  # progress line
            return
        if not first:
            self._refresh_open_dialog()
        self.store_changed.publish(StoreUpdate(message.snapshot, changes, select))
        if first:
            self._show_next()  # proposals left from before the start

    @on(StoreLoadFailed)
    def _store_load_failed(self, message: StoreLoadFailed) -> None:
        self.stale = True
        self._set_stale(True)
        self.notify(f"Could not read the store: {message.error}. Showing the last good state.", severity="error")

    def _set_stale(self, stale: bool) -> None:
        for screen in self.screen_stack:
            for node in screen.query("#status-bar"):
                node.set_class(stale, "-stale")
            if isinstance(screen, MainScreen):
                screen.refresh_status()

    @on(Worker.StateChanged)
    def _worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state != WorkerState.ERROR:
            return
        error = worker.error
        if worker.group == "store-reload":
            self.post_message(StoreLoadFailed(f"{type(error).__name__}: {error}"))
        elif worker.group == "store-watcher":
            self.notify(f"Stopped watching for changes: {error}. Press ctrl+r to reload.", severity="warning")
        else:
            self.notify(f"{worker.description or worker.name}: {error}", severity="error")

    # ----------------------------------------------------------------- watcher

    def watch_targets(self) -> list[Path]:
        """Directories the watcher follows (only those that exist)."""
        root = self.layout.root
        return [root] if root.exists() else []

    def store_paths(self, paths: Iterable[str]) -> list[str]:
        """The paths of a batch that are in the fact directories (or are them)."""
        lay = self.layout
        dirs = (str(lay.project_dir), str(lay.global_dir))
        return [p for p in paths if p.startswith(dirs)]

    def classify(self, paths: Iterable[str]) -> tuple[bool, SidecarsReloaded]:
        """Which reloads a batch of changed paths needs. Under ``approvals/`` only pending
        proposals and auto-write records are news for the queue; the presence heartbeat,
        results and decided copies are not, and waiting markers only refresh the dialog."""
        lay = self.layout
        store_dirs = (str(lay.project_dir), str(lay.global_dir))
        approvals = str(lay.approvals_dir) + os.sep
        # The folders themselves count: files written right after a folder is created can
        # land before the watcher watches it (inotify), and a read after its event sees them.
        queue_dirs = tuple(approvals + d for d in ("proposals", "auto"))
        waiting_dir = approvals + "waiting"
        store = False
        side = SidecarsReloaded()
        for path in paths:
            name = os.path.basename(path)
            if name.endswith((".tmp", ".lock")):
                continue
            if path.startswith(store_dirs):
                store = True
            elif path in queue_dirs or path.startswith(tuple(d + os.sep for d in queue_dirs)):
                side.approvals = True
            elif path == waiting_dir or path.startswith(waiting_dir + os.sep):
                side.waiting = True
            elif path.startswith(str(lay.recall_dir)):
                side.recall = True
            elif path == str(lay.audit_log):
                side.audit = True
            elif os.path.dirname(path) == str(lay.root) and name.endswith(".md"):
                side.instructions = True
        return store, side

    @work(exclusive=True, group="store-watcher", exit_on_error=False, description="watch the store")
    async def watch_files(self) -> None:
        """Follow the state root with watchfiles and reload what changed."""
        from watchfiles import awatch

        targets = self.watch_targets()
        if not targets:
            return
        async for batch in awatch(*targets, debounce=30, step=10, recursive=True):
            paths = [path for _change, path in batch]
            store, side = self.classify(paths)
            if store:
                self.reload_store(self.store_paths(paths))
            if side.approvals or side.recall or side.audit or side.instructions or side.waiting:
                self.post_message(side)

    @on(SidecarsReloaded)
    def _sidecars_reloaded(self, message: SidecarsReloaded) -> None:
        if message.approvals:
            self.refresh_approvals()
        if message.waiting:
            self._read_wait()
        if message.recall or message.instructions:
            self.refresh_health()  # usage findings read the traces; diagnostics the documents
        self.sidecars_changed.publish(message)

    # ----------------------------------------------------------------- actions

    def action_reload(self) -> None:
        """Read everything again."""
        self.reload_store()
        self.post_message(SidecarsReloaded(approvals=True, recall=True, audit=True, instructions=True))
        self.notify("Reloaded.", timeout=2)

    def action_help(self) -> None:
        """Show every key (as the keymap has them)."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_quit_main(self) -> None:
        """``q`` on the main screen, outside a text box: quit."""
        self.exit()

    def action_show_pane(self, pane: str) -> None:
        """Switch to pane ``pane``."""
        if isinstance(self.screen, MainScreen):
            cast(MainScreen, self.screen).show_pane(pane)

    def action_review_approvals(self) -> None:
        """Open the approval dialog again for proposals put off with "later"."""
        self._show_next(force=True)

    def action_undo_agent_write(self) -> None:
        """Undo the newest low-risk write the agent made without asking."""
        self.post_message(UndoAutoWriteRequested())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Pane keys are off while a modal is open; the active pane's key is greyed out;
        ``q`` and ``?`` only act on the main screen outside a text box."""
        if action == "undo_agent_write":
            return self.approvals.can_undo(self.snapshot, self.complete)
        if action == "review_approvals":
            # Shown while proposals wait and no dialog is up (the dialog has its own keys).
            return self.approvals.count > 0 and isinstance(self.screen, MainScreen)
        if action == "quit_main":
            return isinstance(self.screen, MainScreen) and not isinstance(self.focused, (Input, TextArea))
        if action == "show_pane":
            if not isinstance(self.screen, MainScreen):
                return False
            if parameters and parameters[0] == cast(MainScreen, self.screen).active_pane:
                return None
        return True

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Palette: panes, reload, and the facts actions."""
        yield from super().get_system_commands(screen)
        for i, (pane, title) in enumerate(PANES):
            yield SystemCommand(
                f"view: {title}", f"Show the {title} pane (key {i + 1})", partial(self.action_show_pane, pane)
            )
        yield SystemCommand("store: reload", "Read the store, approvals and traces again (ctrl+r)", self.action_reload)
        last = self.approvals.last_auto
        if last is not None and self.approvals.can_undo(self.snapshot, self.complete):
            yield SystemCommand(
                f"approvals: undo {last.ref}",
                f"Archive {last.ref}, which the agent wrote without asking (ctrl+z)",
                self.action_undo_agent_write,
            )
        if isinstance(screen, MainScreen):
            yield from screen.palette_commands()

    # ----------------------------------------------------------------- the write worker

    def run_write(self, action: str, fn: WriteJob) -> None:
        """Queue ``fn(store)`` for the one write worker; its result comes back as
        :class:`WriteFinished`. Jobs run one at a time, in order, through one store."""
        with self._writes_lock:
            self._writes.append((action, fn))
            if self._writes_running:
                return
            self._writes_running = True
        self._write_worker()

    def _store_for_writes(self) -> Store:
        """One store for every write, so its parse cache stays warm (an approval then costs
        a directory scan, not a re-read of the cache file: the agent waits on it)."""
        if self._write_store is None:
            self._write_store = self.make_store()
        return self._write_store

    @work(thread=True, group="store-write", exit_on_error=False, description="write to the store")
    def _write_worker(self) -> None:
        """Drain the write queue (thread worker)."""
        while True:
            with self._writes_lock:
                if not self._writes:
                    self._writes_running = False
                    return
                action, fn = self._writes.popleft()
            try:
                outcome = fn(self._store_for_writes())
            except StoreError as exc:
                self.post_message(WriteFinished(action, False, str(exc)))
                continue
            except Exception as exc:  # never leave the queue stuck: report and go on
                self.post_message(WriteFinished(action, False, f"{type(exc).__name__}: {exc}"))
                continue
            self.post_message(
                WriteFinished(
                    action,
                    outcome.ok,
                    outcome.text,
                    outcome.warnings,
                    outcome.fact_id,
                    outcome.paths,
                    outcome.refresh,
                    outcome.approval,
                    outcome.changed,
                    outcome.proposal_id,
                )
            )

    @on(WriteFinished)
    def _write_finished(self, message: WriteFinished) -> None:
        if not self.screen_stack:
            return  # the write is done; nothing is left to show it on
        if message.proposal_id or message.approval is not None:
            self._approval_finished(message)
        elif message.text:
            if message.ok:
                self.notify(message.text, title=message.action, timeout=4)
                for warning in message.warnings:
                    self.notify(warning, title="warning", severity="warning", timeout=12)
            else:
                self.notify(message.text, title=f"{message.action}: refused", severity="error", timeout=12)
        if message.fact_id:
            self._select_after_reload = message.fact_id
        if message.ok and (message.paths or message.action in _STORE_WRITES):
            self.reload_store(message.paths or None)
        if "health" in message.refresh and not (message.ok and (message.paths or message.action in _STORE_WRITES)):
            self.refresh_health()  # a dismissal: no reload follows to do it
        if message.refresh:
            self.post_message(
                SidecarsReloaded(
                    approvals="approvals" in message.refresh,
                    instructions="instructions" in message.refresh,
                    audit="audit" in message.refresh,
                    suggestions="suggestions" in message.refresh,
                )
            )

    # ----------------------------------------------------------------- the person's writes

    @on(PinRequested)
    def _pin_requested(self, message: PinRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is not None and self._refuse_unreadable(fact, "pin" if message.pin else "unpin"):
            return
        ref = str(fact.id) if fact else message.fact_id
        self.run_write("pin" if message.pin else "unpin", lambda store: writes.pin(store, ref, message.pin))

    @on(VerifyRequested)
    def _verify_requested(self, message: VerifyRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is not None and self._refuse_unreadable(fact, "verify"):
            return
        self.run_write("verify", lambda store: writes.verify(store, message.fact_id))

    def _refuse_unreadable(self, fact: Any, what: str) -> bool:
        """Say why a side action will not touch a file that does not parse (the store
        refuses it too); True when refused."""
        problem = fact_file_problem(fact)
        if not problem:
            return False
        self.notify(
            f"Not changed: {fact.ref}'s {problem}. Press E to fix the file in $EDITOR; its bytes are left as they are.",
            title=f"{what}: refused",
            severity="error",
            timeout=12,
        )
        return True

    @on(BulkRequested)
    def _bulk_requested(self, message: BulkRequested) -> None:
        ids = tuple(i for i in message.fact_ids if i in self.snapshot.facts)
        if not ids:
            return
        if message.action == "verify":
            self.run_write("verify", lambda store: writes.many(store, "verify", ids))
            return
        refs = [self.snapshot.facts[i].ref for i in ids]
        listing = "\n".join(f"  {r}" for r in refs[:8]) + (f"\n  … and {len(refs) - 8} more" if len(refs) > 8 else "")
        question = (
            f"Forget these {len(ids)} facts?\n\n{listing}\n\n"
            "They move to the archive and stop loading in future sessions. You can recover each from the Archive pane."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_write("forget", lambda store: writes.many(store, "forget", ids))

        self.push_screen(ConfirmScreen(f"Forget {len(ids)} facts?", question, yes="Forget all", danger=True), answered)

    @on(ForgetRequested)
    def _forget_requested(self, message: ForgetRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        question = (
            f"Forget [b]{fact.display_title}[/b] ({fact.ref})?\n\n"
            "It is moved to the archive and stops loading in future sessions. "
            "You can recover it from the Archive pane."
        )
        self.push_screen(
            ConfirmScreen("Forget this fact?", question, yes="Forget", danger=True),
            partial(self._forget_confirmed, str(fact.id)),
        )

    def _forget_confirmed(self, fact_id: str, confirmed: bool | None) -> None:
        if confirmed:
            self.run_write("forget", lambda store: writes.forget(store, fact_id))

    @on(NewFactRequested)
    def _new_requested(self, message: NewFactRequested) -> None:
        values = writes.FactFormValues(**message.prefill) if message.prefill else writes.FactFormValues()  # type: ignore[arg-type]  # prefill holds string fields only
        self.push_screen(FactFormScreen(values, title="New fact"), self._new_submitted)

    def _new_submitted(self, values: writes.FactFormValues | None) -> None:
        if values is not None:
            self.run_write("new", lambda store: writes.save_form(store, values))

    @on(EditRequested)
    def _edit_requested(self, message: EditRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        if fact_file_problem(fact):
            if message.external:
                # The file does not parse: the person fixes its own bytes in place.
                self._edit_file(fact.path, fact_file=True)
            else:
                self._refuse_unreadable(fact, "edit")
            return
        if message.external:
            self.edit_in_editor(str(fact.id))
            return
        screen = FactFormScreen(writes.form_from_fact(fact), title=f"Edit {fact.ref} (revision {fact.revision})")
        self.push_screen(screen, partial(self._edit_submitted, str(fact.id), fact.revision))

    def _edit_submitted(self, fact_id: str, revision: int, values: writes.FactFormValues | None) -> None:
        if values is not None:
            self.run_write(
                "edit",
                lambda store: writes.save_form(store, values, fact_id=fact_id, expected_revision=revision),
            )

    def _run_editor(self, path: str, hint: str = "") -> bool:
        """Run ``$VISUAL``/``$EDITOR`` (else ``vi``) on ``path`` with the app suspended;
        False (and a notification) when it cannot run."""
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            with self.suspend():
                subprocess.run([*shlex.split(editor), path], check=False)
        except Exception as exc:  # SuspendNotSupported, editor not found
            self.notify(f"Cannot open {editor}: {exc}.{hint}", severity="error")
            return False
        return True

    @on(EditFileRequested)
    def _edit_file_requested(self, message: EditFileRequested) -> None:
        self._edit_file(message.path)

    def _edit_file(self, path: str, *, fact_file: bool = False) -> None:
        """Open a file in ``$VISUAL``/``$EDITOR`` in place: an instruction document (the
        person's own), or a fact file that does not parse (there is nothing to re-render)."""
        if not self._run_editor(path):
            return
        if fact_file:
            self.reload_store([path])
        else:
            self.post_message(SidecarsReloaded(instructions=True))

    def edit_in_editor(self, fact_id: str) -> None:
        """Edit a fact file's text in ``$VISUAL``/``$EDITOR``, saved with its expected revision."""
        from ..core.store.fileformat import parse_fact_text, render_fact

        fact = self.snapshot.facts.get(fact_id)
        if fact is None:
            return
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as fh:
            fh.write(render_fact(fact))
            tmp = fh.name
        try:
            if not self._run_editor(tmp, " Use e (form) instead."):
                return
            text = Path(tmp).read_text(encoding="utf-8")
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        edited = parse_fact_text(text, path=fact.path, dir_scope=fact.scope)
        if edited.parse_error:
            self.notify(f"Not saved: the frontmatter does not parse ({edited.parse_error}).", severity="error")
            return
        values = writes.form_from_fact(edited)
        if values == writes.form_from_fact(fact):
            self.notify("No change.", timeout=2)
            return
        self._edit_submitted(fact_id, fact.revision, values)

    @on(CopyRefRequested)
    def _copy_ref(self, message: CopyRefRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        self.copy_to_clipboard(fact.ref)
        self.notify(f"Copied {fact.ref} (id {fact.id}).", timeout=3)

    @on(RestoreRequested)
    def _restore_requested(self, message: RestoreRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        question = (
            f"Restore revision {message.revision} of [b]{fact.ref}[/b]?\n\n"
            f"It becomes revision {fact.revision + 1}; revision {fact.revision} stays in the history."
        )
        self.push_screen(
            ConfirmScreen("Restore revision?", question, yes="Restore"),
            partial(self._restore_confirmed, str(fact.id), message.revision),
        )

    def _restore_confirmed(self, fact_id: str, revision: int, confirmed: bool | None) -> None:
        if confirmed:
            self.run_write("restore", lambda store: writes.restore(store, fact_id, revision))

    @on(RecoverRequested)
    def _recover_requested(self, message: RecoverRequested) -> None:
        self.run_write("recover", lambda store: writes.recover(store, message.path))

    @on(QuickAddRequested)
    def _quick_add(self, message: QuickAddRequested) -> None:
        self.push_screen(QuickAddScreen(message.scope), self._quick_add_submitted)

    def _quick_add_submitted(self, result: tuple[str, str] | None) -> None:
        if not result:
            return
        scope, note = result
        self.run_write("note", lambda store: writes.quick_add(self.layout, scope, note))

    @on(SuggestionAcceptRequested)
    def _suggestion_accept(self, message: SuggestionAcceptRequested) -> None:
        self.run_write("accept", lambda store: writes.accept_suggestion(store, message.suggestion_id, message.values))

    @on(SuggestionDismissRequested)
    def _suggestion_dismiss(self, message: SuggestionDismissRequested) -> None:
        self.run_write("dismiss", lambda store: writes.dismiss_suggestion(store, message.suggestion_id))

    # ----------------------------------------------------------------- approvals: presence

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

    # ----------------------------------------------------------------- approvals: the queue

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

    # ----------------------------------------------------------------- approvals: the dialog

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
            preview = self.queue.preview(proposal, self._preview_store())
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

    def _preview_store(self) -> Store:
        return Store(self.layout, settings=self.settings, actor="context-center")

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


def make_app(
    layout: Layout,
    settings: Settings | None = None,
    watch: bool = True,
    clock: Clock | None = None,
    *,
    demo: bool = False,
) -> ContextCenterApp:
    """The one factory for the Context Center, shared by production, tests and benchmarks."""
    return ContextCenterApp(layout, settings, watch=watch, clock=clock, demo=demo)

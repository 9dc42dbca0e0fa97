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

The class is put together from parts by role, the way large Textual apps split theirs:

* :class:`~.app_base.CenterAppBase`: the state, the reload and write workers, the watcher;
* :class:`~.app_approvals.ApprovalsMixin`: presence, the approval queue and its dialog;
* :class:`~.app_edits.PersonEditsMixin`: the person's own writes (forms, confirmations,
  ``$EDITOR``).

This module holds what ties them together: the keys, actions and palette, the lifecycle,
memory health, and what the app does with each worker's result.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterable
from functools import partial
from typing import Any, ClassVar, cast

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.signal import Signal
from textual.theme import Theme
from textual.widgets import Input, TextArea
from textual.worker import Worker, WorkerState

from ..core.paths import Layout
from ..core.settings import Settings
from ..core.store.model import StoreError
from ..core.store.store import Store
from . import writes
from .app_approvals import ApprovalsMixin
from .app_edits import PersonEditsMixin
from .commands import FactsProvider
from .messages import (
    EditRequested,
    HealthChecked,
    HealthFixRequested,
    HealthUndoRequested,
    SidecarsReloaded,
    StoreLoadFailed,
    StoreReloaded,
    StoreUpdate,
    UndoAutoWriteRequested,
    WriteFinished,
)
from .model.rows import Clock
from .model.snapshot import diff_snapshots
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

HEALTH_SLICE_SECONDS = 3.0
"""How long one slice of a big store's first health scan may take before its findings are shown."""

TICK_SECONDS = 30.0
"""How often relative ages ("3m ago") are redrawn."""

HEALTH_AUTO_FACTS = 20_000
"""Above this many facts memory health runs only when asked (ctrl+r): it reads every fact
and compares them in pairs, which at 100k facts takes minutes and gigabytes."""

BIG_STORE_ROWS = 2_000
"""A first start with more rows than this shows the table before its background work starts."""

BACKGROUND_AFTER_S = 1.0
"""How long after a big store's first screen the deferred work starts."""

_STORE_WRITES = frozenset(
    {"pin", "unpin", "verify", "forget", "new", "edit", "restore", "recover", "accept", "undo", "archive", "merge"}
)
"""Jobs that change fact files (reloaded after, wholly when they name no paths)."""


class ContextCenterApp(ApprovalsMixin, PersonEditsMixin):
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
        super().__init__(layout, settings, watch=watch, clock=clock, demo=demo)
        self.health: Any = None
        """The last :class:`~reasonix_tui.core.health.HealthReport` (``None`` until the first)."""
        self.health_changed: Signal[Any] = Signal(self, "health-changed")
        """Published with each new health report."""
        self.health_undo: list[writes.HealthUndo] = []
        """Health fixes that can be taken back, newest last."""
        self.health_deferred = ""
        """Why memory health has not run (a big store: it runs when asked), or ``""``."""
        self._health_asked = False
        self._health_gen = 0
        self._health_seen = 0
        self._health_lock = threading.Lock()
        self._health_checker: Any = None
        self._health_store: Store | None = None
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
        self.reload_store()  # then, once it is on screen, the language resources (_store_reloaded)
        self.refresh_approvals()
        # An approve that a crash interrupted after its write landed is finished first.
        self.run_write("approval", lambda store: writes.finish_interrupted(store, self.queue))
        if self.watch_enabled:
            self.watch_files()
            # Ages ("3m", "stale") move with the clock: recompute rows now and then
            # (files are only stat'ed; unchanged ones are not parsed again).
            self.set_interval(300, self.reload_store, name="age-refresh")
        self.set_interval(TICK_SECONDS, self._tick, name="clock-tick")

    # ----------------------------------------------------------------- memory health

    def refresh_health(self, asked: bool = False) -> None:
        """Compute memory health again in a worker (requests made while one runs collapse
        into one run; :class:`HealthChecked` carries the result). Not before the first
        complete snapshot, and for a store over :data:`HEALTH_AUTO_FACTS` facts only once
        ``asked`` (ctrl+r): until then :attr:`health_deferred` says why."""
        self._health_asked = self._health_asked or asked
        if not self._health_asked:
            if not self.complete:
                return  # the first complete snapshot starts it
            n = len(self.snapshot.facts)
            if n > HEALTH_AUTO_FACTS:
                if not self.health_deferred:
                    self.health_deferred = (
                        f"Memory health is checked only when asked above {HEALTH_AUTO_FACTS:,} facts "
                        f"(this store has {n:,}): it reads and compares every fact. Press ctrl+r to check now."
                    )
                    self.health_changed.publish(None)
                return
        self.health_deferred = ""
        self._health_gen += 1
        self._health_worker(self._health_gen)

    @work(thread=True, group="health", exit_on_error=False, description="check memory health")
    def _health_worker(self, generation: int) -> None:
        """Findings of the store, the traces and the instructions (thread worker). One
        long-lived checker and store, so a run after a write scans only what changed."""
        from ..core.health import HealthChecker, memo_path
        from ..core.health import worker as health

        with self._health_lock:
            if generation != self._health_gen:
                return  # a newer request follows: it will do the work
            first = None
            if self._health_checker is None:
                self._health_checker = HealthChecker(memo_path(self.layout))
                self._health_store = Store(self.layout, settings=self.settings, actor="context-center")
                # an unchanged store answers at once from the last full run (of any process)
                first = health.first_answer(self.layout, self.settings, self._health_store, now=self.clock())
                if first is not None:
                    self.post_message(HealthChecked(first, generation))
            checker = self._health_checker
            while True:
                # A big store's first scan is done in slices, each shown as it lands
                # ("secrets: 3,000/10,000 facts scanned"), so the pane fills in step by step.
                report, facts = health.run(
                    checker,
                    self.layout,
                    self.settings,
                    self._health_store,
                    now=self.clock(),
                    budget_s=HEALTH_SLICE_SECONDS,
                )
                if first is None or (report.findings, report.dismissed) != (first.findings, first.dismissed):
                    self.post_message(HealthChecked(report, generation))
                if not any(p.startswith("secrets:") for p in report.partial) or generation != self._health_gen:
                    if generation == self._health_gen:
                        checker.prime(facts)  # a report from the saved state: later writes redo only their part
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

    # ----------------------------------------------------------------- results: a reload

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
        if complete and first and len(message.snapshot.rows) > BIG_STORE_ROWS:
            # A big store's first screen comes first: the work it does not show (language
            # resources, the resolver, memory health) waits until the table is on screen.
            self.call_after_refresh(self.set_timer, BACKGROUND_AFTER_S, self._start_background)
        elif complete:
            if first:
                self._warm_language()
            self._resolve_worker(message.snapshot)
            self.refresh_health()
        if first and len(message.snapshot.rows) > BIG_STORE_ROWS:
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

    def _start_background(self) -> None:
        """What a big store's first start deferred: language resources, resolver, health."""
        self._warm_language()
        self._resolve_worker(self.snapshot)
        self.refresh_health()

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

    # ----------------------------------------------------------------- results: files beside the store changed

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
        self._health_asked = True  # a big store's memory health too, from now on
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

    # ----------------------------------------------------------------- results: a write finished

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

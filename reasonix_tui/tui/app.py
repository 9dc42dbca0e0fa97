"""``ContextCenterApp``: the owner of the snapshot, the watcher, the reload and write workers.

Data flow (house style §3.3): the app holds one immutable :class:`CenterSnapshot` and a
``store_changed`` :class:`~textual.signal.Signal`; panes draw from ``app.snapshot`` on mount
and subscribe. Panes post ``…Requested`` intents; the app runs every write in a thread
worker through the store API (actor ``context-center``) and then reloads, so a write and
an outside change reach the screen by the same path (``StoreReloaded``).
"""

from __future__ import annotations

import gc
import os
import shlex
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.signal import Signal
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from ..core.gotime import Timestamp
from ..core.paths import Layout
from ..core.settings import Settings
from ..core.store.model import StoreError
from ..core.store.store import Store
from . import actions
from .commands import FactsProvider
from .messages import (
    CopyRefRequested,
    EditRequested,
    BulkRequested,
    ForgetRequested,
    NewFactRequested,
    PinRequested,
    QuickAddRequested,
    RecoverRequested,
    RestoreRequested,
    SidecarsReloaded,
    StoreLoadFailed,
    StoreReloaded,
    VerifyRequested,
    WriteFinished,
)
from .state import (
    CenterSnapshot,
    Changes,
    Clock,
    attach_identity_index,
    attach_resolution,
    diff_snapshots,
    load_snapshot,
    save_row_cache,
    update_snapshot,
)

if TYPE_CHECKING:
    from .approval_queue import ApprovalFlow

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

PANES: tuple[tuple[str, str], ...] = (
    ("facts", "Facts"),
    ("revisions", "Revisions"),
    ("archive", "Archive"),
    ("instructions", "Instructions"),
    ("recall", "Recall"),
    ("suggestions", "Suggestions"),
    ("activity", "Activity"),
)
"""Pane ids and titles, in key order (1-7)."""


@dataclass(frozen=True)
class StoreUpdate:
    """What ``store_changed`` carries."""

    snapshot: CenterSnapshot
    """The new snapshot."""
    changes: Changes
    """What changed since the previous one."""


def _real_clock() -> Timestamp:
    return Timestamp.now()


class ContextCenterApp(App[None]):
    """The Context Center."""

    CSS_PATH = "app.tcss"
    TITLE = "Reasonix Context Center"
    COMMANDS = App.COMMANDS | {FactsProvider}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app-help", tooltip="Keys of every pane"),
        Binding("ctrl+r", "reload", "Reload", id="app-reload", tooltip="Read the store again"),
        Binding("A", "review_approvals", "Approvals", id="app-approvals", tooltip="Open the pending agent proposals again"),
        Binding("ctrl+z", "undo_agent_write", "Undo agent write", id="app-undo-auto", tooltip="Archive the fact the agent just wrote"),
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
        """True once the first snapshot arrived."""
        self.stale = False
        """The last reload failed: the screen shows the last good snapshot."""
        self.store_changed: Signal[StoreUpdate] = Signal(self, "store-changed")
        """Published after every reload that changed something."""
        self.sidecars_changed: Signal[SidecarsReloaded] = Signal(self, "sidecars-changed")
        """Published when approvals, recall traces, the audit log or instructions change."""
        self._reload_lock = threading.Lock()
        self._reload_paths: set[str] = set()
        self._reload_full = False
        self._reload_running = False
        self.approvals: ApprovalFlow | None = None
        """The approval flow (see :mod:`.approval_queue`; set when the app is mounted)."""
        self.register_theme(THEME)
        self.theme = "reasonix-tui"

    # ----------------------------------------------------------------- lifecycle

    def get_default_screen(self) -> Screen[Any]:
        """The main screen with the seven panes."""
        from .screens.main import MainScreen

        return MainScreen()

    def on_mount(self) -> None:
        """First load, the approval queue, and the watcher."""
        from .approval_queue import ApprovalFlow

        self.approvals = ApprovalFlow(self)
        self.approvals.start()
        self.reload_store()
        self._warm_language()
        if self.watch_enabled:
            self.watch_files()
            # Ages ("3m", "stale") move with the clock: recompute rows now and then
            # (files are only stat'ed; unchanged ones are not parsed again).
            self.set_interval(300, self.reload_store, name="age-refresh")

    @work(thread=True, group="lang-warm", exit_on_error=False, description="load language resources")
    def _warm_language(self) -> None:
        """Load the segmenter, dictionary and meaning model once, off the UI thread, so
        "try a query" and the detail labels do not pay for them (thread worker)."""
        from ..core import lang

        lang.warm()

    @work(thread=True, group="resolve", exit_on_error=False, description="resolve subjects and topics")
    def _resolve_worker(self, snapshot: CenterSnapshot) -> None:
        """Which facts are superseded, for the detail view's label (thread worker; never
        blocks a reload, which runs in its own worker)."""
        if snapshot is not self.snapshot:
            return
        try:
            attach_resolution(snapshot)
        except Exception:  # noqa: BLE001 - a label in the detail view is never worth a failed worker
            return

    def on_unmount(self) -> None:
        """Remove the presence marker."""
        if self.approvals is not None:
            self.approvals.stop()

    def make_store(self) -> Store:
        """A store for writes by the person in the Context Center."""
        return Store(self.layout, settings=self.settings, actor="context-center")

    # ----------------------------------------------------------------- reload

    def reload_store(self, paths: Iterable[str] | None = None) -> None:
        """Read the store again: only ``paths`` when given (watcher), else everything.

        Requests are queued and drained by one thread worker at a time, so incremental
        updates always build on the newest snapshot and none is lost.
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

        def post(partial: CenterSnapshot) -> None:
            previous = shown[0]
            self.post_message(StoreReloaded(partial, previous, diff_snapshots(previous, partial)))
            shown[0] = partial

        return post

    @work(thread=True, group="store-reload", exit_on_error=False, description="read the store")
    def _reload_worker(self) -> None:
        """Drain queued reload requests; post :class:`StoreReloaded` for each result (thread worker)."""
        base: CenterSnapshot | None = self.snapshot if self.loaded else None
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
                self.post_message(StoreReloaded(snapshot, shown[0], changes))
                # After posting, so the screen does not wait for either:
                attach_identity_index(snapshot, shown[0], changes)
                if snapshot.cache_dirty:
                    save_row_cache(self.layout, snapshot)
                base = snapshot
        except BaseException:
            with self._reload_lock:
                self._reload_running = False
            raise

    @on(StoreReloaded)
    def _store_reloaded(self, message: StoreReloaded) -> None:
        changes = message.changes
        if message.base is not self.snapshot or (message.base is None and self.loaded):
            changes = diff_snapshots(self.snapshot if self.loaded else None, message.snapshot)
        first_rows = not self.loaded
        complete = not message.snapshot.reading[1]
        first = complete and not self.complete  # the first complete snapshot
        self.loaded = True
        self.complete = self.complete or complete
        self.snapshot = message.snapshot
        if complete:
            self._resolve_worker(message.snapshot)
        if first and len(message.snapshot.rows) > 2_000:
            # A big store is millions of long-lived objects without cycles: keep the cyclic
            # GC from walking them again and again (a full pass costs ~0.3 s at 100k facts).
            # Once, at the first load, so later cyclic garbage is still collected.
            gc.freeze()
        if self.stale:
            self.stale = False
            self._set_stale(False)
        if self.approvals is not None and self.approvals.last_auto is not None:
            self.refresh_bindings()  # ctrl+z follows whether the auto-written fact changed
        if changes.empty and not first and not first_rows:
            if not complete:
                self.store_changed.publish(StoreUpdate(message.snapshot, changes))  # progress line
            return
        if self.approvals is not None and not first:
            self.approvals.store_changed()
        self.store_changed.publish(StoreUpdate(message.snapshot, changes))
        if first and self.approvals is not None:
            self.approvals.show_next()

    @on(StoreLoadFailed)
    def _store_load_failed(self, message: StoreLoadFailed) -> None:
        self.stale = True
        self._set_stale(True)
        self.notify(f"Could not read the store: {message.error}. Showing the last good state.", severity="error")

    def _set_stale(self, stale: bool) -> None:
        from .screens.main import MainScreen

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
        elif worker.group == "store-write":
            text = str(error) if isinstance(error, StoreError) else f"{type(error).__name__}: {error}"
            self.post_message(WriteFinished(worker.name or "write", False, text))
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
        """Which reloads a batch of changed paths needs."""
        lay = self.layout
        store_dirs = (str(lay.project_dir), str(lay.global_dir))
        store = False
        side = SidecarsReloaded()
        for path in paths:
            name = os.path.basename(path)
            if name.endswith(".tmp") or name.endswith(".lock"):
                continue
            if path.startswith(store_dirs):
                store = True
            elif path.startswith(str(lay.approvals_dir)):
                side.approvals = True
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
            if side.approvals or side.recall or side.audit or side.instructions:
                self.post_message(side)

    @on(SidecarsReloaded)
    def _sidecars_reloaded(self, message: SidecarsReloaded) -> None:
        if message.approvals and self.approvals is not None:
            self.approvals.refresh()
        self.sidecars_changed.publish(message)

    # ----------------------------------------------------------------- actions

    def action_reload(self) -> None:
        """Read everything again."""
        self.reload_store()
        self.post_message(SidecarsReloaded(approvals=True, recall=True, audit=True, instructions=True))
        self.notify("Reloaded.", timeout=2)

    def action_help(self) -> None:
        """Show every key."""
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_show_pane(self, pane: str) -> None:
        """Switch to pane ``pane``."""
        from .screens.main import MainScreen

        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                if screen is not self.screen:
                    return
                screen.show_pane(pane)

    def action_review_approvals(self) -> None:
        """Open the approval dialog again for proposals put off with "later"."""
        if self.approvals is not None:
            self.approvals.show_next(force=True)

    def action_undo_agent_write(self) -> None:
        """Undo the newest low-risk write the agent made without asking."""
        if self.approvals is not None:
            self.approvals.undo_last_auto()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Pane keys are off while a modal is open; the active pane's key is greyed out."""
        if action == "undo_agent_write":
            return self.approvals is not None and self.approvals.can_undo()
        if action == "review_approvals":
            # Shown while proposals wait and no dialog is up (the dialog has its own keys).
            from .screens.main import MainScreen

            return self.approvals is not None and self.approvals.count > 0 and isinstance(self.screen, MainScreen)
        if action == "show_pane":
            from .screens.main import MainScreen

            if not isinstance(self.screen, MainScreen):
                return False
            if parameters and parameters[0] == self.screen.active_pane:
                return None
        return True

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Palette: panes, reload, and the facts actions."""
        yield from super().get_system_commands(screen)
        for i, (pane, title) in enumerate(PANES):
            yield SystemCommand(f"view: {title}", f"Show the {title} pane (key {i + 1})", partial(self.action_show_pane, pane))
        yield SystemCommand("store: reload", "Read the store, approvals and traces again (ctrl+r)", self.action_reload)
        if self.approvals is not None and self.approvals.can_undo() and self.approvals.last_auto is not None:
            ref = self.approvals.last_auto.ref
            yield SystemCommand(f"approvals: undo {ref}", f"Archive {ref}, which the agent wrote without asking (ctrl+z)", self.action_undo_agent_write)
        from .screens.main import MainScreen

        if isinstance(screen, MainScreen):
            yield from screen.palette_commands()

    # ----------------------------------------------------------------- writes

    def run_write(self, action: str, fn: Callable[[Store], actions.Outcome]) -> None:
        """Run ``fn(store)`` in a thread worker; the result comes back as :class:`WriteFinished`."""
        self._write_worker(action, fn)

    @work(thread=True, group="store-write", exit_on_error=False, description="write to the store")
    def _write_worker(self, action: str, fn: Callable[[Store], actions.Outcome]) -> None:
        try:
            outcome = fn(self.make_store())
        except StoreError as exc:
            self.post_message(WriteFinished(action, False, str(exc)))
            return
        self.post_message(WriteFinished(action, True, outcome.text, outcome.warnings, outcome.fact_id, outcome.paths))

    @on(WriteFinished)
    def _write_finished(self, message: WriteFinished) -> None:
        if message.ok:
            self.notify(message.text, title=message.action, timeout=4)
            for warning in message.warnings:
                self.notify(warning, title="warning", severity="warning", timeout=12)
        else:
            self.notify(message.text, title=f"{message.action}: refused", severity="error", timeout=12)
        self.reload_store(message.paths or None)
        if message.fact_id:
            from .screens.main import MainScreen

            for screen in self.screen_stack:
                if isinstance(screen, MainScreen):
                    screen.pending_select = message.fact_id

    @on(PinRequested)
    def _pin_requested(self, message: PinRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        ref = str(fact.id) if fact else message.fact_id
        self.run_write("pin" if message.pin else "unpin", lambda store: actions.pin(store, ref, message.pin))

    @on(VerifyRequested)
    def _verify_requested(self, message: VerifyRequested) -> None:
        self.run_write("verify", lambda store: actions.verify(store, message.fact_id))

    @on(BulkRequested)
    def _bulk_requested(self, message: BulkRequested) -> None:
        from .screens.dialogs import ConfirmScreen

        ids = tuple(i for i in message.fact_ids if i in self.snapshot.facts)
        if not ids:
            return
        if message.action == "verify":
            self.run_write("verify", lambda store: actions.many(store, "verify", ids))
            return
        refs = [self.snapshot.facts[i].ref for i in ids]
        listing = "\n".join(f"  {r}" for r in refs[:8]) + (f"\n  … and {len(refs) - 8} more" if len(refs) > 8 else "")
        question = (
            f"Forget these {len(ids)} facts?\n\n{listing}\n\n"
            "They move to the archive and stop loading in future sessions. You can recover each from the Archive pane."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_write("forget", lambda store: actions.many(store, "forget", ids))

        self.push_screen(ConfirmScreen(f"Forget {len(ids)} facts?", question, yes="Forget all", danger=True), answered)

    @on(ForgetRequested)
    def _forget_requested(self, message: ForgetRequested) -> None:
        from .screens.dialogs import ConfirmScreen

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
            self.run_write("forget", lambda store: actions.forget(store, fact_id))

    @on(NewFactRequested)
    def _new_requested(self, message: NewFactRequested) -> None:
        from .screens.fact_form import FactFormScreen

        values = actions.FactFormValues(**message.prefill) if message.prefill else actions.FactFormValues()
        self.push_screen(FactFormScreen(values, title="New fact"), self._new_submitted)

    def _new_submitted(self, values: actions.FactFormValues | None) -> None:
        if values is not None:
            self.run_write("new", lambda store: actions.save_form(store, values))

    @on(EditRequested)
    def _edit_requested(self, message: EditRequested) -> None:
        fact = self.snapshot.facts.get(message.fact_id)
        if fact is None:
            return
        if message.external:
            self.edit_in_editor(str(fact.id))
            return
        from .screens.fact_form import FactFormScreen

        screen = FactFormScreen(actions.form_from_fact(fact), title=f"Edit {fact.ref} (revision {fact.revision})")
        self.push_screen(screen, partial(self._edit_submitted, str(fact.id), fact.revision))

    def _edit_submitted(self, fact_id: str, revision: int, values: actions.FactFormValues | None) -> None:
        if values is not None:
            self.run_write(
                "edit",
                lambda store: actions.save_form(store, values, fact_id=fact_id, expected_revision=revision),
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

    def edit_file_in_editor(self, path: str, on_done: Callable[[], None] | None = None) -> None:
        """Open a plain file (an instruction document) in ``$VISUAL``/``$EDITOR``.

        Instruction files are the person's own documents, not store facts: they are edited
        in place, as any editor would, and the Instructions pane resolves them again after.
        """
        if not self._run_editor(path):
            return
        self.post_message(SidecarsReloaded(instructions=True))
        if on_done is not None:
            on_done()

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
        values = actions.form_from_fact(edited)
        if values == actions.form_from_fact(fact):
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
        from .screens.dialogs import ConfirmScreen

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
            self.run_write("restore", lambda store: actions.restore(store, fact_id, revision))

    @on(RecoverRequested)
    def _recover_requested(self, message: RecoverRequested) -> None:
        self.run_write("recover", lambda store: actions.recover(store, message.path))

    @on(QuickAddRequested)
    def _quick_add(self, message: QuickAddRequested) -> None:
        from .screens.dialogs import QuickAddScreen

        self.push_screen(QuickAddScreen(message.scope), self._quick_add_submitted)

    def _quick_add_submitted(self, result: tuple[str, str] | None) -> None:
        if not result:
            return
        scope, note = result
        self._quick_add_worker(scope, note)

    @work(thread=True, group="store-write", exit_on_error=False, description="quick-add a note")
    def _quick_add_worker(self, scope: str, note: str) -> None:
        from .backend import quick_add

        try:
            text = quick_add(self.layout, scope, note)
        except (OSError, StoreError, ValueError) as exc:
            self.post_message(WriteFinished("note", False, str(exc)))
            return
        self.post_message(WriteFinished("note", True, text))
        self.post_message(SidecarsReloaded(instructions=True))


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

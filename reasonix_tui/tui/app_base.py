"""What the Context Center is built on: the one immutable snapshot and its signals, the reload
worker (a queue of requests drained by one thread worker), the watcher, and the one write
worker that runs every store change in order through one warm store."""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.signal import Signal

from ..core.agent.approvals import ApprovalQueue
from ..core.agent.presence import PresenceMarker
from ..core.compat.gotime import Timestamp
from ..core.paths import Layout
from ..core.settings import Settings
from ..core.store.model import StoreError
from ..core.store.store import Store
from . import writes
from .approval_flow import ApprovalFlow
from .messages import (
    SidecarsReloaded,
    SnapshotResolved,
    StoreReloaded,
    StoreUpdate,
    WriteFinished,
)
from .model.loader import load_snapshot, save_row_cache, update_snapshot
from .model.rows import Clock
from .model.snapshot import CenterSnapshot, diff_snapshots, resolve_snapshot, with_identity_index, with_order

WriteJob = Callable[[Store], writes.Outcome]
"""One store change, run by the write worker."""


def _real_clock() -> Timestamp:
    return Timestamp.now()


class CenterAppBase(App[None]):
    """The Context Center's state, its reads and its writes (no bindings, no screens)."""

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
        """Published every :data:`~.app.TICK_SECONDS` so relative ages move on screen."""
        self.approvals = ApprovalFlow()
        """The approval flow's state."""
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

    # ----------------------------------------------------------------- warm-up and labels

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

    def _tick(self) -> None:
        self.clock_ticked.publish(None)

    def make_store(self) -> Store:
        """A store for reads by panes and the person's actions (actor ``context-center``)."""
        return Store(self.layout, settings=self.settings, actor="context-center")

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
            partial_snapshot = with_order(partial_snapshot)  # sorted here, not on the UI thread
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
                snapshot = with_order(with_identity_index(snapshot, shown[0], changes), changes)
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

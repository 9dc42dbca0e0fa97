"""A store kept current from file-system events, for long-lived processes.

The MCP server and the warm hook server answer many calls from one process. A plain
:class:`~.store.Store` re-validates the whole store on every read (one ``stat`` per fact
file, a parse-cache lookup each, a sort of every fact), so a call costs about 10 ms per
1,000 facts before the query even starts. :class:`LiveStore` keeps the two fact folders'
state in memory instead and brings it up to date from what changed:

* a watcher thread (``watchfiles``, one inotify/FSEvents watch per fact folder, not
  recursive) collects the paths that changed;
* every read first runs a **cheap consistency check** that touches no fact file: a
  ``stat`` of each fact folder and of the **generation file**, which every committed store
  change replaces (:func:`.journal.bump_generation`);
* when the check agrees with the events, only the changed paths are stat-ed and the files
  whose stat key moved are parsed (through the parse cache); unchanged facts stay the *same
  objects*, so the recall index keyed by them is reused;
* when the events may have been missed — the watcher is not (yet) running, a folder's
  stat moved (an entry was created, removed or renamed) with no event naming that folder,
  the generation moved with no event at all, a folder appeared or was replaced — that
  folder gets the full re-validation a plain store does on every read;
* the watcher thread also re-validates everything every :data:`REVALIDATE_S` seconds in the
  background: an in-place edit (which moves no folder stat) whose event was lost is seen
  then at the latest;
* while nothing changed, :meth:`LiveStore.snapshot` returns the very same
  :class:`~.store.Snapshot` object.

Writes are unchanged: a mutation holds the store lock and reads fresh from disk, and the
paths it committed are re-read on the next read (read-your-writes without waiting for
their events).
"""

from __future__ import annotations

import os
import stat as stat_mod
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..compat.gotime import Timestamp
from ..paths import Layout
from ..settings import Settings
from . import index_md, journal
from .cache import StatKey, stat_key
from .journal import bump_generation, generation_path
from .model import Fact
from .results import FileError, Snapshot
from .scan import fact_file_problem, read_through, scan_fact_entries
from .store import Store

__all__ = ["LiveStore", "bump_generation", "generation_path", "REVALIDATE_S", "STEP_MS"]

REVALIDATE_S = 300.0
"""The watcher thread re-validates every folder in full this often (a lost in-place edit's net)."""

STEP_MS = 20
"""How often the watcher looks for new events (its latency, and its idle wake-up period)."""

DEBOUNCE_MS = 100
"""Longest the watcher groups a burst of events before handing them over."""

SLACK_NS = 10_000_000
"""File timestamps come from a coarse clock (a few ms behind): a folder stamped within this
long before its latest events arrived may hold a change those events do not report."""

Mark = tuple[int, int, int, int] | None
"""A folder's or file's ``(ino, size, mtime_ns, ctime_ns)``, ``None`` when absent."""


def _mark(path: str) -> Mark:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass
class _Folder:
    """What one fact folder holds, as a plain scan would report it."""

    scope: str
    path: str
    entries: dict[str, tuple[StatKey | None, Fact | None, tuple[FileError, ...]]] = field(default_factory=dict)
    """file name → (stat key, the fact or ``None``, its error rows)."""
    top: tuple[FileError, ...] = ()
    """Errors about the folder itself (not a directory, cannot list)."""
    facts: list[Fact] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    mark: Mark = None
    """The folder's stat when its state was last known to be complete."""
    scanned: bool = False

    def rebuild(self) -> None:
        """The lists a plain scan returns, in ``ReadDir`` (byte) order."""
        facts: list[Fact] = []
        errors: list[FileError] = list(self.top)
        for name in sorted(self.entries, key=lambda n: n.encode("utf-8", "surrogateescape")):
            _key, fact, errs = self.entries[name]
            if fact is not None:
                facts.append(fact)
            errors.extend(errs)
        self.facts, self.errors = facts, errors


class _Watcher(threading.Thread):
    """Collects changed paths under the watched folders until stopped."""

    def __init__(self, owner: LiveStore, folders: list[str]) -> None:
        super().__init__(name="reasonix-tui-store-watch", daemon=True)
        self.owner = owner
        self.folders = folders
        self.marks = {f: _mark(f) for f in folders}
        """Each folder's identity when the watch was set (a replaced folder needs a new watch)."""
        self.stop_event = threading.Event()
        self.ready = threading.Event()
        """Set once the watch is in place (the first tick came back)."""
        self.failed = False

    def run(self) -> None:
        try:
            from watchfiles import watch

            for batch in watch(
                *self.folders,
                watch_filter=None,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                stop_event=self.stop_event,
                rust_timeout=1000,
                yield_on_timeout=True,
                recursive=False,
                raise_interrupt=False,
            ):
                self.ready.set()
                if batch:
                    self.owner._events([path for _change, path in batch])
                self.owner._tick()
        except Exception:
            self.failed = True
        finally:
            self.ready.clear()

    def stop(self) -> None:
        self.stop_event.set()


class LiveStore(Store):
    """A :class:`~.store.Store` whose reads follow file-system events (see the module doc).

    ``watch=False`` keeps the same in-memory state but never trusts events: every read
    runs the full re-validation (what a plain store does), for platforms or tests without
    a watcher. :meth:`close` stops the watcher thread.
    """

    long_lived = True
    """Serves many calls from one process (indexes worth keeping warm are kept)."""

    def __init__(
        self,
        layout: Layout,
        settings: Settings | None = None,
        actor: str = "cli",
        clock: Callable[[], Timestamp] | None = None,
        use_cache: bool = True,
        *,
        watch: bool = True,
        revalidate_s: float = REVALIDATE_S,
    ) -> None:
        super().__init__(layout, settings=settings, actor=actor, clock=clock, use_cache=use_cache)
        self._watch = watch
        self._revalidate_s = revalidate_s
        self._live = threading.RLock()
        self._pending_lock = threading.Lock()
        self._pending: set[str] = set()
        self._batch_ns: dict[str, int] = {}
        """Folder → when its latest events arrived (wall clock, as file timestamps are)."""
        self._explained: dict[str, Mark] = {}
        """Folder → its stat right after our own last commit into it (explained by the commit)."""
        self._folders: dict[str, _Folder] = {}
        self._generation: Mark = None
        self._watcher: _Watcher | None = None
        self._trusted = False
        """The watcher was ready at the last full validation: events can be trusted since."""
        self._full_at = 0.0
        self._snapshot: Snapshot | None = None
        self._closed = False
        self._fact_dirs = super()._dirs()
        self.full_validations = 0
        """How many full re-validations ran (for tests and benchmarks)."""

    def _dirs(self) -> list[tuple[str, Path]]:
        """The fact folders (fixed for a layout: worked out once, not on every read)."""
        return list(self._fact_dirs)

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Stop the watcher (reads still work: every one re-validates in full)."""
        with self._live:
            self._closed = True
            self._stop_watcher()

    def _stop_watcher(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        self._trusted = False

    def _ensure_watcher(self) -> None:
        """A watcher over the fact folders that exist, restarted when one appears or is replaced."""
        if not self._watch or self._closed:
            return
        wanted = [str(d) for _scope, d in self._dirs() if os.path.isdir(d)]
        w = self._watcher
        if (
            w is not None
            and w.is_alive()
            and not w.failed
            and w.folders == wanted
            and all(
                _mark(f) is not None and w.marks[f] is not None and _mark(f)[0] == w.marks[f][0]  # type: ignore[index]  # marks are set for every wanted file
                for f in wanted
            )
        ):
            return
        self._stop_watcher()
        if wanted:
            self._watcher = _Watcher(self, wanted)
            self._watcher.start()

    # ------------------------------------------------------------------ events

    def _events(self, paths: Iterable[str]) -> None:
        now = time.time_ns()
        with self._pending_lock:
            for path in paths:
                self._pending.add(path)
                self._batch_ns[os.path.dirname(path)] = now

    def _tick(self) -> None:
        """Called by the watcher about once a second: the periodic full validation."""
        if time.monotonic() - self._full_at >= self._revalidate_s:
            with self._live:
                if time.monotonic() - self._full_at >= self._revalidate_s:
                    self._sync(force_full=True)

    # ------------------------------------------------------------------ reads

    def _scan_dir(self, scope: str, directory: Path) -> tuple[list[Fact], list[FileError]]:
        if self._memo is not None:  # inside a mutation: fresh from disk under the lock
            return super()._scan_dir(scope, directory)
        with self._live:
            self._sync()
            folder = self._folders.get(str(directory))
            if folder is None or folder.scope != scope:
                return super()._scan_dir(scope, directory)
            return list(folder.facts), list(folder.errors)

    def snapshot(self) -> Snapshot:
        """The current snapshot: the same object as last time while nothing changed."""
        if self._memo is not None:
            return super().snapshot()
        with self._live:
            self._sync()
            if self._snapshot is None:
                facts: list[Fact] = []
                errors: list[FileError] = []
                for _scope, directory in self._dirs():
                    folder = self._folders[str(directory)]
                    facts.extend(folder.facts)
                    errors.extend(folder.errors)
                facts.sort(key=lambda f: (f.name.encode("utf-8", "surrogatepass"), f.scope, f.id))
                self._snapshot = Snapshot.build(facts, errors, self.clock())
            return self._snapshot

    def fact_files(self) -> tuple[Snapshot, dict[str, tuple[str, StatKey]]]:
        """The current snapshot and, for each of its facts' files, ``(scope, stat key)``:
        what an on-disk index built from those files must match to be used as is."""
        with self._live:
            snap = self.snapshot()
            files = {}
            for folder in self._folders.values():
                for name, (key, fact, _errs) in folder.entries.items():
                    if fact is not None and key is not None:
                        files[os.path.join(folder.path, name)] = (folder.scope, key)
            return snap, files

    def list_all(self) -> list[Fact]:
        """``ListAll`` from the current snapshot."""
        if self._memo is not None:
            return super().list_all()
        return list(self.snapshot().facts)

    # ------------------------------------------------------------------ writes

    def _commit(self, tx: journal.Change) -> None:
        try:
            super()._commit(tx)
        finally:
            # Read-your-writes: the committed paths are re-read on the next read, whether
            # or not their events have arrived by then; the folders' new stat is explained.
            paths = [p for step in tx.steps for p in (step.path, step.src) if p]
            with self._pending_lock:
                self._pending.update(paths)
                for folder in {os.path.dirname(p) for p in paths}:
                    self._explained[folder] = _mark(folder)

    # ------------------------------------------------------------------ the check

    def _sync(self, force_full: bool = False) -> bool:
        """Bring every folder up to date; ``True`` when anything changed. Holds ``_live``."""
        self._ensure_watcher()
        dirs = self._dirs()
        marks = {str(d): _mark(str(d)) for _scope, d in dirs}  # before the events are taken
        generation = _mark(generation_path(self.layout.root))
        with self._pending_lock:
            pending, self._pending = self._pending, set()
            batch_ns, explained = dict(self._batch_ns), self._explained
            self._explained = {}
        w = self._watcher
        watching = w is not None and w.ready.is_set() and w.is_alive() and not w.failed
        by_folder: dict[str, list[str]] = {}
        for path in pending:
            by_folder.setdefault(os.path.dirname(path), []).append(path)
        full = force_full or not (watching and self._trusted)
        if generation != self._generation and not pending:
            full = True  # our writers wrote, and no event says where
        changed = False
        for scope, d in dirs:
            key = str(d)
            folder = self._folders.get(key)
            if folder is None or folder.scope != scope:
                folder = self._folders[key] = _Folder(scope, key)
            mark = marks[key]
            if (
                full
                or not folder.scanned
                or mark is None
                or folder.mark is None
                or mark[0] != folder.mark[0]
                or (
                    mark != folder.mark
                    and mark != explained.get(key)
                    # the folder changed after (or about when) its latest events arrived,
                    # or with no event at all: an entry may be new, gone or replaced
                    and (key not in by_folder or mark[2] >= batch_ns.get(key, 0) - SLACK_NS)
                )
            ):
                changed |= self._full_scan(folder, mark)
            else:
                changed |= self._apply(folder, by_folder.get(key, ()), marks[key])
        self._generation = generation
        if full:
            self._full_at = time.monotonic()
            self._trusted = watching
        if changed:
            self._snapshot = None  # whoever synced, the next snapshot() builds a new one
        return changed

    def _full_scan(self, folder: _Folder, mark: Mark) -> bool:
        """Today's re-validation of one folder: a stat per file, parse what changed."""
        self.full_validations += 1
        cache = self._cache_for(Path(folder.path))
        entries: dict[str, tuple[StatKey | None, Fact | None, tuple[FileError, ...]]] = {}
        top: list[FileError] = []
        for entry in scan_fact_entries(folder.scope, folder.path):
            name = os.path.basename(entry.path)
            if entry.path == folder.path:
                top.append(FileError(entry.path, folder.scope, entry.error))
                continue
            entries[name] = self._read_entry(folder, entry.path, entry.stat, entry.error, cache)
        if cache is not None and not folder.scanned:
            # warms the parse cache for one-shot processes; later passes leave it alone (a
            # rewrite of 100k rows per change would cost more than the change)
            cache.retain({n for n, (_k, f, _e) in entries.items() if f is not None})
            cache.save()
        changed = (
            not folder.scanned
            or tuple(top) != folder.top
            or entries.keys() != folder.entries.keys()
            or any(folder.entries[n][1] is not v[1] or folder.entries[n][2] != v[2] for n, v in entries.items())
        )
        folder.entries, folder.top, folder.mark, folder.scanned = entries, tuple(top), mark, True
        if changed:
            folder.rebuild()
        return changed

    def _apply(self, folder: _Folder, paths: Iterable[str], mark: Mark) -> bool:
        """Re-read exactly ``paths`` of one folder (events); ``True`` when anything changed."""
        changed = False
        cache = self._cache_for(Path(folder.path))
        for path in paths:
            name = os.path.basename(path)
            if not name.endswith(".md") or name == index_md.INDEX_NAME:
                continue
            new = self._live_entry(folder, path, cache)
            old = folder.entries.get(name)
            if new is None:
                if old is not None:
                    del folder.entries[name]
                    changed = True
                continue
            if old is None or old[1] is not new[1] or old[2] != new[2]:
                folder.entries[name] = new
                changed = True
        folder.mark = mark
        if changed:
            folder.rebuild()
        return changed

    def _live_entry(
        self, folder: _Folder, path: str, cache: object
    ) -> tuple[StatKey | None, Fact | None, tuple[FileError, ...]] | None:
        """One path under the folder's rules (``scan_fact_entries``), or ``None`` when it is
        not a fact file (gone, a directory)."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return self._read_entry(folder, path, None, f"cannot read: {exc.strerror or exc}", cache)
        if stat_mod.S_ISDIR(st.st_mode):
            return None
        if stat_mod.S_ISLNK(st.st_mode):
            real_dir = os.path.realpath(folder.path)
            target = os.path.realpath(path)
            if os.path.dirname(target) != real_dir and not target.startswith(real_dir + os.sep):
                return self._read_entry(
                    folder, path, None, f"symlink points outside the store ({target}); not loaded", cache
                )
            try:
                st = os.stat(path)
            except OSError as exc:
                return self._read_entry(folder, path, None, f"cannot read: {exc.strerror or exc}", cache)
        if not stat_mod.S_ISREG(st.st_mode):
            return self._read_entry(folder, path, None, "not a regular file", cache)
        return self._read_entry(folder, path, st, "", cache)

    def _read_entry(
        self, folder: _Folder, path: str, st: os.stat_result | None, error: str, cache: object
    ) -> tuple[StatKey | None, Fact | None, tuple[FileError, ...]]:
        scope = folder.scope
        if error or st is None:
            return None, None, (FileError(path, scope, error),)
        key = stat_key(st)
        old = folder.entries.get(os.path.basename(path))
        if old is not None and old[0] == key and old[1] is not None:
            return old
        try:
            fact = read_through(cache, path, scope, st)  # type: ignore[arg-type]  # st is set when the file exists
        except OSError as exc:
            return key, None, (FileError(path, scope, f"cannot read: {exc.strerror or exc}"),)
        problem = fact_file_problem(fact)
        return key, fact, ((FileError(path, scope, problem),) if problem else ())

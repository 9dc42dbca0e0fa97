"""Reading the store into a snapshot: a full load (with the row cache, partial snapshots while
a first load reads) and an incremental update of the paths that changed.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...core.compat.gotime import Timestamp
from ...core.paths import Layout
from ...core.settings import Settings
from ...core.store.cache import ParseCache
from ...core.store.index_md import INDEX_NAME
from ...core.store.model import Fact
from ...core.store.results import ArchivedFact
from ...core.store.scan import read_fact_file, read_through, scan_fact_entries
from ...core.store.store import Store
from .rows import ERROR_KEY_PREFIX, ErrorRow, FactRow, RowSource, row_source
from .snapshot import CenterSnapshot, LazyFacts, next_generation, no_gc

__all__ = ["update_snapshot", "save_row_cache", "load_snapshot"]


ROW_CACHE_VERSION = 4
"""Bumped whenever :class:`RowSource` changes shape or content (4: identity keys are
``precedence.identity_keys`` strings, errors are ``fact_file_problem`` texts)."""

_STORE_READ_THRESHOLD = 200
"""More files than this missing from the row cache: read them through the store's parse cache."""


def row_cache_path(layout: Layout) -> Path:
    """The Context Center's row cache for this pair of fact directories."""
    import hashlib

    digest = hashlib.sha1(f"{layout.project_dir}\0{layout.global_dir}".encode("utf-8", "surrogateescape")).hexdigest()
    return layout.cache_dir / f"tui-rows-{digest[:16]}.marshal"


_SOURCE_FIELDS = len(RowSource._fields)


_CACHE_CHUNK = 4096
"""Entries per marshal record (short records let the UI thread run between them)."""


def _load_row_cache(layout: Layout) -> dict[str, tuple[tuple[int, ...], RowSource]]:
    """``path -> (stat signature, RowSource)``; anything unexpected gives an empty cache."""
    import marshal
    import struct

    out: dict[str, tuple[tuple[int, ...], RowSource]] = {}
    make = RowSource._make
    try:
        data = row_cache_path(layout).read_bytes()
        view = memoryview(data)
        offset = 0
        header = True
        while offset < len(data):
            (size,) = struct.unpack_from("<Q", data, offset)
            offset += 8
            record = marshal.loads(view[offset : offset + size])
            offset += size
            if header:
                if record != (ROW_CACHE_VERSION, _SOURCE_FIELDS):
                    return {}
                header = False
                continue
            for path, sig, fields in record:
                if len(fields) != _SOURCE_FIELDS:
                    return {}
                out[path] = (sig, make(fields))
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        return {}
    return out


def save_row_cache(layout: Layout, snapshot: CenterSnapshot) -> None:
    """Write the row cache (atomically; a failure is ignored: it is only a cache)."""
    import marshal
    import struct
    import tempfile
    import time

    target = row_cache_path(layout)
    tmp = ""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tui-rows-", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:

            def record(value: Any) -> None:
                blob = marshal.dumps(value)
                fh.write(struct.pack("<Q", len(blob)))
                fh.write(blob)

            record((ROW_CACHE_VERSION, _SOURCE_FIELDS))
            chunk: list[tuple[Any, ...]] = []
            for key, src in snapshot.sources.items():
                path = snapshot.paths.get(key)
                sig = snapshot.sigs.get(key)
                if path is None or sig is None:
                    continue
                chunk.append((path[0], sig, tuple(src)))
                if len(chunk) >= _CACHE_CHUNK:
                    record(tuple(chunk))
                    chunk = []
                    time.sleep(0)  # let the UI thread take the GIL
            if chunk:
                record(tuple(chunk))
        os.replace(tmp, target)
    except (OSError, ValueError):
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _read_archive(layout: Layout, settings: Settings) -> tuple[ArchivedFact, ...]:
    """Archived facts of both scopes, newest first (``Store.list_archived``)."""
    return tuple(Store(layout, settings=settings, actor="context-center").list_archived())


def _sig(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


class _Builder:
    """Accumulates one snapshot's rows (shared by the full scan and the incremental update)."""

    def __init__(self, now: Timestamp) -> None:
        self.now = now
        self.rows: dict[str, FactRow] = {}
        self.sources: dict[str, RowSource] = {}
        self.paths: dict[str, tuple[str, str]] = {}
        self.sigs: dict[str, tuple[int, ...]] = {}
        self.loaded: dict[str, Fact] = {}
        self.errors: dict[str, ErrorRow] = {}
        self.parsed = 0

    def add(
        self, path: str, scope: str, sig: tuple[int, ...], src: RowSource, fact: Fact | None, row: FactRow | None
    ) -> None:
        key = src.key
        if key in self.paths and self.paths[key][0] != path:
            key = f"{key}@{scope}"  # the same id in both directories (a copy left by hand)
        self.sources[key] = src
        self.paths[key] = (path, scope)
        self.sigs[key] = sig
        self.rows[key] = row if row is not None and row.key == key else src.row(self.now, key)
        if fact is not None:
            self.loaded[key] = fact

    def error(self, path: str, scope: str, message: str) -> None:
        err = ErrorRow(path=path, message=message, scope=scope)
        self.errors[path] = err
        self.rows[ERROR_KEY_PREFIX + path] = err.row()

    def parse_into(self, path: str, scope: str, st: os.stat_result) -> None:
        self.parsed += 1
        try:
            fact = read_fact_file(path, scope, st)
        except OSError as exc:
            self.error(path, scope, f"cannot read: {exc.strerror or exc}")
            return
        self.add(path, scope, _sig(st), row_source(fact), fact, None)

    def partial(self, settings: Settings, archived: tuple[ArchivedFact, ...], done: int, total: int) -> CenterSnapshot:
        """A snapshot of the rows so far (copies: the builder goes on filling its own)."""
        copy = _Builder(self.now)
        copy.rows, copy.sources, copy.paths = dict(self.rows), dict(self.sources), dict(self.paths)
        copy.sigs, copy.loaded, copy.errors = dict(self.sigs), dict(self.loaded), dict(self.errors)
        return replace(copy.snapshot(settings, archived, "partial"), cache_dirty=False, reading=(done, total))

    def snapshot(self, settings: Settings, archived: tuple[ArchivedFact, ...], source: str) -> CenterSnapshot:
        project = pinned = pinned_chars = 0
        for src in self.sources.values():
            if src.scope == "project":
                project += 1
            if src.activation == "pinned":
                pinned += 1
                pinned_chars += src.pinned_len
        unreadable = len(self.errors) + sum(1 for src in self.sources.values() if src.error)
        counts = {"project": project, "global": len(self.sources) - project, "pinned": pinned, "unreadable": unreadable}
        return CenterSnapshot(
            facts=LazyFacts(self.paths, self.loaded),
            rows=self.rows,
            errors=tuple(self.errors.values()),
            archived=archived,
            pinned_chars=pinned_chars,
            pinned_budget=settings.pinned_budget_chars,
            pinned_refused=settings.pinned_ceiling > 0,
            loaded_at=self.now,
            source=source,
            sources=self.sources,
            paths=self.paths,
            sigs=self.sigs,
            cache_dirty=self.parsed > 0,
            counts=counts,
            generation=next_generation(),
        )


def load_snapshot(
    layout: Layout,
    settings: Settings | None,
    now: Timestamp,
    previous: CenterSnapshot | None = None,
    *,
    use_cache: bool = True,
    progress: Callable[[CenterSnapshot], None] | None = None,
) -> CenterSnapshot:
    """Read both fact directories into a :class:`CenterSnapshot` (blocking: a thread worker).

    The store's directory rules (``scan_fact_entries``, spec §1.4: ``*.md`` but
    ``MEMORY.md``, no directories, symlinks confined to the store) give the files, and the
    store's reader (``read_fact_file``) parses every file whose stat signature changed; unchanged files come from ``previous`` or from the row cache, so
    opening a 100k-fact store costs a directory scan, not 100k parses. Fact bodies are
    parsed only when a pane asks for one (:class:`LazyFacts`).

    When many files must be read and ``progress`` is given, it is called with partial
    snapshots (``reading`` set) every :data:`PROGRESS_EVERY_S` seconds, so a first start on
    a big store shows rows and takes keys while the rest is still being read.
    """
    settings = settings or Settings()
    # Building 100k rows allocates millions of objects: without this the cyclic GC runs
    # hundreds of times for nothing (nothing here makes cycles). Re-enabled on the way out.
    with no_gc():
        return _load_snapshot(layout, settings, now, previous, use_cache, progress)


def _load_snapshot(
    layout: Layout,
    settings: Settings,
    now: Timestamp,
    previous: CenterSnapshot | None,
    use_cache: bool,
    progress: Callable[[CenterSnapshot], None] | None = None,
) -> CenterSnapshot:
    cache = _load_row_cache(layout) if use_cache else {}
    prior: dict[str, tuple[tuple[int, ...], RowSource, Fact | None, FactRow | None]] = {}
    reuse_rows = previous is not None and abs(now.ns - previous.loaded_at.ns) < 60 * 1_000_000_000
    if previous is not None:
        facts = previous.facts
        for key, (path, _scope) in previous.paths.items():
            loaded = facts.loaded(key) if isinstance(facts, LazyFacts) else None
            prior[path] = (
                previous.sigs[key],
                previous.sources[key],
                loaded,
                previous.rows.get(key) if reuse_rows else None,
            )
    # New rows are computed at ``now``; reused rows keep theirs (at most a minute older).
    b = _Builder(now)
    misses: list[tuple[str, str, os.stat_result]] = []
    names: dict[str, set[str]] = {"global": set(), "project": set()}
    whole = {"global": True, "project": True}  # every file of the directory is a miss
    for scope, directory in (("global", layout.global_dir), ("project", layout.project_dir)):
        for entry in scan_fact_entries(scope, directory):
            path, st = entry.path, entry.stat
            if st is None:
                b.error(path, scope, entry.error)
                continue
            names[scope].add(os.path.basename(path))
            sig = _sig(st)
            hit = prior.get(path)
            if hit is not None and hit[0] == sig:
                b.add(path, scope, sig, hit[1], hit[2], hit[3])
                whole[scope] = False
                continue
            cached = cache.get(path)
            if cached is not None and cached[0] == sig:
                b.add(path, scope, sig, cached[1], None, None)
                whole[scope] = False
                continue
            misses.append((path, scope, st))
    if len(misses) <= _STORE_READ_THRESHOLD:
        for path, scope, st in misses:
            b.parse_into(path, scope, st)
        archived = _read_archive(layout, settings)
    else:
        # Many files unknown to the row cache (a first start): read them through the
        # store's own parse cache (kept warm by the CLI and the agent, and written here
        # when every file of a directory went through it), showing rows as they come.
        archived = _read_archive(layout, settings)
        caches = {scope: _parse_cache(layout, scope) for scope in ("global", "project")}
        clock = _progress_clock
        started = clock()
        next_post = started + PROGRESS_FIRST_S
        for i, (path, scope, st) in enumerate(misses):
            _read_through(b, caches[scope], path, scope, st)
            if progress is not None and i + 1 < len(misses) and clock() >= next_post:
                progress(b.partial(settings, archived, i + 1, len(misses)))
                # Each partial costs the screen a sort of every row so far: space them out
                # as the load goes on (a handful of partials even for 100k files).
                now_s = clock()
                next_post = now_s + max(PROGRESS_EVERY_S, PROGRESS_GROWTH * (now_s - started))
        for scope, pc in caches.items():
            if pc is not None and whole[scope]:
                pc.retain(names[scope])
                pc.save()
    snapshot = b.snapshot(settings, archived, "files")
    if reuse_rows and previous is not None:
        snapshot = replace(snapshot, loaded_at=previous.loaded_at)  # the age of the oldest row
    if use_cache and not snapshot.cache_dirty and len(cache) != len(snapshot.paths):
        snapshot = replace(snapshot, cache_dirty=True)  # files were removed
    return snapshot


PROGRESS_FIRST_S = 0.25
"""A first load that takes longer than this shows the rows read so far..."""

PROGRESS_EVERY_S = 0.6
"""...and again after at least this long..."""


_progress_clock = time.monotonic
"""The clock that spaces partial snapshots (a test replaces it)."""

PROGRESS_GROWTH = 1.0
"""...and at least this share of the time the load has taken so far."""


def _parse_cache(layout: Layout, scope: str) -> ParseCache | None:
    try:
        return ParseCache(layout.cache_dir, layout.dir_for(scope))
    except Exception:  # pragma: no cover - a cache is never required
        return None


def _read_through(b: _Builder, pc: ParseCache | None, path: str, scope: str, st: os.stat_result) -> None:
    """Add one file's row, from the store's parse cache when it holds this version."""
    b.parsed += 1
    try:
        fact = read_through(pc, path, scope, st)
    except OSError as exc:
        b.error(path, scope, f"cannot read: {exc.strerror or exc}")
        return
    b.add(path, scope, _sig(st), row_source(fact), fact, None)


def update_snapshot(
    previous: CenterSnapshot,
    layout: Layout,
    settings: Settings | None,
    now: Timestamp,
    paths: Iterable[str],
) -> CenterSnapshot | None:
    """Apply a batch of changed paths to ``previous`` by reading only those files.

    Returns ``None`` when the batch needs a full scan (a fact directory itself changed,
    a symlink, a directory named ``*.md``).
    """
    with no_gc():
        return _update_snapshot(previous, layout, settings or Settings(), now, paths)


def _update_snapshot(
    previous: CenterSnapshot, layout: Layout, settings: Settings, now: Timestamp, paths: Iterable[str]
) -> CenterSnapshot | None:
    dirs = {str(layout.project_dir): "project", str(layout.global_dir): "global"}
    archive_dirs = {os.path.join(d, ".archive") for d in dirs}
    wanted: set[str] = set()
    loaded_at = previous.loaded_at
    archive_changed = False
    for path in paths:
        if path in dirs:
            return None
        parent, name = os.path.split(path)
        if parent in archive_dirs:
            archive_changed = True
        elif parent in dirs and name.endswith(".md") and name != INDEX_NAME:
            wanted.add(path)
    if not wanted and not archive_changed:
        return previous
    b = _Builder(now)
    # Copy the dicts at C speed, then drop the entries of the changed paths.
    b.sources = dict(previous.sources)
    b.paths = dict(previous.paths)
    b.sigs = dict(previous.sigs)
    b.rows = {k: r for k, r in previous.rows.items() if not k.startswith(ERROR_KEY_PREFIX)}
    facts = previous.facts
    b.loaded = dict(facts._loaded) if isinstance(facts, LazyFacts) else {}
    touched: set[str] = set()
    for key, (path, _scope) in previous.paths.items():
        if path in wanted:
            touched.add(key)
            for table in (b.sources, b.paths, b.sigs, b.rows, b.loaded):
                table.pop(key, None)
    before_keys = set(b.rows)
    for err in previous.errors:
        if err.path not in wanted:
            b.errors[err.path] = err
            b.rows[ERROR_KEY_PREFIX + err.path] = err.row()
    for path in sorted(wanted):
        scope = dirs[os.path.dirname(path)]
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            b.error(path, scope, f"cannot read: {exc.strerror or exc}")
            continue
        if not stat.S_ISREG(st.st_mode):
            return None  # a symlink, a directory named *.md, a special file: the full scan's rules
        b.parse_into(path, scope, st)
    archived = _read_archive(layout, settings) if archive_changed else previous.archived
    touched.update(k for k in b.rows if k not in before_keys)
    touched.update(ERROR_KEY_PREFIX + p for p in wanted)
    # The row cache is rewritten after full scans only (a burst of edits must not rewrite it each time).
    return replace(
        b.snapshot(settings, archived, previous.source),
        cache_dirty=False,
        loaded_at=loaded_at,
        derived_from=previous.generation,
        touched=frozenset(touched),
    )

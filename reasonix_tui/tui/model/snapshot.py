"""What the Context Center shows, as immutable data (no textual import).

:class:`CenterSnapshot` is the one thing the app owns: the facts of both scopes, the rows
the facts table draws, files that failed to read, archived facts and the pinned budget
use. :func:`load_snapshot` builds one from the fact directories; :func:`update_snapshot`
applies a batch of changed paths; :func:`diff_snapshots` says what changed between two,
so panes update by diff and keep their cursor.

Reading uses the store's own directory rules and file reader (``scan_fact_entries``,
``read_fact_file``, ``fact_file_problem``) on changed files only: unchanged ones come from
the previous snapshot or from the row cache (``save_row_cache``), and a first open with
no row cache reads through the store's parse cache, handing out partial snapshots as it
goes (a big first start shows rows at once). Fact bodies are parsed on demand
(:class:`LazyFacts`). The only files written here are the row cache and, on a first
start, the store's parse cache.
"""

from __future__ import annotations

import gc
import itertools
import os
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, NamedTuple

from ...core.store.freshness import windows_for_kind
from ...core.compat.gostr import trim_space
from ...core.compat.gotime import DAY_NS, Timestamp
from ...core.paths import Layout
from ...core.settings import Settings
from ...core.store.index_md import INDEX_NAME
from ...core.store.model import Fact
from ...core.store.precedence import identity_keys
from ...core.store.cache import ParseCache
from ...core.store.store import ArchivedFact, Store, fact_file_problem, read_fact_file, read_through, scan_fact_entries

if TYPE_CHECKING:
    from ...core.resolve import Resolution

__all__ = [
    "Clock",
    "RowSource",
    "LazyFacts",
    "update_snapshot",
    "save_row_cache",
    "with_identity_index",
    "resolve_snapshot",
    "freshness_label",
    "FactRow",
    "ErrorRow",
    "CenterSnapshot",
    "Changes",
    "load_snapshot",
    "diff_snapshots",
    "fact_row",
    "relative_time",
    "ago",
    "human_time",
]

Clock = Callable[[], Timestamp]
"""A source of "now" (injected so tests and snapshots are deterministic)."""

ERROR_KEY_PREFIX = "error:"
"""Row keys of files that failed to read start with this (fact rows use the fact id)."""


def relative_time(ts: Timestamp | None, now: Timestamp) -> str:
    """A short age such as ``3m``, ``5h``, ``12d``, ``2y`` (``-`` when unknown)."""
    if ts is None:
        return "-"
    return relative_ns(ts.ns, now.ns)


def relative_ns(ts_ns: int, now_ns: int) -> str:
    """:func:`relative_time` on nanoseconds."""
    secs = (now_ns - ts_ns) / 1e9
    future = secs < 0
    secs = abs(secs)
    if secs < 60:
        text = "now"
    elif secs < 3600:
        text = f"{int(secs // 60)}m"
    elif secs < 86400:
        text = f"{int(secs // 3600)}h"
    elif secs < 86400 * 365:
        text = f"{int(secs // 86400)}d"
    else:
        text = f"{secs / (86400 * 365):.1f}y"
    return f"in {text}" if future and text != "now" else text


def ago(ts: Timestamp | None, now: Timestamp) -> str:
    """An age for a sentence: ``just now``, ``3m ago``, ``in 2d`` (``at an unknown time``)."""
    if ts is None:
        return "at an unknown time"
    rel = relative_ns(ts.ns, now.ns)
    if rel == "now":
        return "just now"
    return rel if rel.startswith("in ") else f"{rel} ago"


def human_time(ts: Timestamp | None, zone: str = "local", *, label: bool = True) -> str:
    """A time for people, to the second: ``2026-07-25 16:40:00 UTC`` (``zone="utc"``) or
    the local time with its zone name (``zone="local"``); ``label=False`` leaves the zone
    name out (a column says it once). The detail view keeps the stored nanosecond form."""
    if ts is None:
        return "-"
    dt = ts.to_datetime()
    if zone != "utc":
        dt = dt.astimezone()
    text = dt.strftime("%Y-%m-%d %H:%M:%S")
    return f"{text} {zone_name(zone)}" if label else text


def zone_name(zone: str = "local") -> str:
    """``UTC``, or the local zone's abbreviation."""
    if zone == "utc":
        return "UTC"
    from datetime import datetime

    return datetime.now().astimezone().strftime("%Z") or "local"


class FactRow(NamedTuple):
    """One line of the facts table (a named tuple: 100k of them are built at start)."""

    key: str
    """Row key: the fact id, or ``error:<path>`` for a file that failed to read."""
    title: str
    """Display title."""
    ref: str
    """``<scope>/<name>.md``."""
    type: str
    """Fact type."""
    scope: str
    """``project`` or ``global``."""
    activation: str
    """Resolved activation: ``pinned`` or ``relevant``."""
    freshness: str
    """``fresh``, ``current``, ``stale``, ``expired`` (``error`` for error rows)."""
    subject: str
    """Subject key (may be empty)."""
    revision: int
    """Revision number (0 for error rows)."""
    updated_ns: int
    """Update time in ns (0 when unknown), for sorting."""
    updated: str
    """Relative update time."""
    search: str
    """Lowercased text the filter matches against."""
    error: str = ""
    """Parse problem (the row is drawn as an error row when set)."""

    @property
    def is_error(self) -> bool:
        """True for files that failed to read or parse."""
        return bool(self.error)


def freshness_label(
    type_: str, volatility: str, expires_ns: int | None, start_ns: int | None, now_ns: int
) -> str:
    """:func:`~reasonix_tui.core.store.freshness.freshness_for` on plain numbers (spec §5).

    ``start_ns`` is the clock start (updated, else created, renewed by verification); the
    windows are the core's (``windows_for_kind``). A row keeps only these numbers, so 100k
    rows can be re-labelled without their facts. A test checks it against
    ``freshness_for`` on every combination it can build.
    """
    if expires_ns is not None and now_ns > expires_ns:
        return "expired"
    if start_ns is None or start_ns > now_ns:
        return "current"
    windows = windows_for_kind(type_, volatility)
    if windows is None:
        return "fresh"
    age = now_ns - start_ns
    if age <= windows[0] * DAY_NS:
        return "fresh"
    if age <= windows[1] * DAY_NS:
        return "current"
    return "stale"


class RowSource(NamedTuple):
    """The clock-independent part of a row, as cached between starts (one per fact file)."""

    key: str
    """Fact id."""
    title: str
    """Display title (with a warning sign when the file has a problem)."""
    ref: str
    """Reference."""
    type: str
    """Type."""
    scope: str
    """Scope."""
    activation: str
    """Resolved activation."""
    volatility: str
    """Volatility."""
    subject: str
    """Subject key."""
    revision: int
    """Revision."""
    start_ns: int | None
    """Freshness clock start."""
    updated_ns: int | None
    """Updated (else created) time."""
    expires_ns: int | None
    """Expiry."""
    search: str
    """Filter text."""
    error: str
    """What is wrong with the file (``fact_file_problem``), or ``""``."""
    keys: tuple[str, ...]
    """Identity keys (``precedence.identity_keys``: ``id:…``, ``name:…``, ``title:…``, ``subject:…``)."""
    pinned_len: int
    """Runes this fact adds to pinned guidance."""

    def row(self, now: Timestamp, key: str | None = None) -> FactRow:
        """The table row at ``now``."""
        updated = self.updated_ns
        now_ns = now.ns
        return FactRow(
            key or self.key,
            self.title,
            self.ref,
            self.type,
            self.scope,
            self.activation,
            freshness_label(self.type, self.volatility, self.expires_ns, self.start_ns, now_ns),
            self.subject,
            self.revision,
            updated or 0,
            relative_ns(updated, now_ns) if updated is not None else "-",
            self.search,
            self.error,
        )


def row_source(fact: Fact) -> RowSource:
    """The cacheable row data of a fact."""
    updated = fact.updated_at or fact.created_at
    title = fact.display_title
    ref = fact.ref
    search = " ".join(
        (title, ref, fact.id, fact.description, fact.keywords, fact.subject_key, fact.type, fact.scope)
    ).lower()
    start = fact.clock_start
    body = trim_space(fact.body)  # the store's pinned-budget count (Store.pinned_total)
    activation = fact.resolved_activation
    problem = fact_file_problem(fact)
    return RowSource(
        key=str(fact.id),
        title=("⚠ " + title) if problem else title,
        ref=ref,
        type=fact.type,
        scope=fact.scope,
        activation=activation,
        volatility=fact.volatility,
        subject=fact.subject_key,
        revision=fact.revision,
        start_ns=start.ns if start is not None else None,
        updated_ns=updated.ns if updated is not None else None,
        expires_ns=fact.expires_at.ns if fact.expires_at is not None else None,
        search=search,
        error=problem,
        keys=tuple(identity_keys(fact)),
        pinned_len=len(body) if body and activation == "pinned" else 0,
    )


def fact_row(fact: Fact, now: Timestamp) -> FactRow:
    """The table row of a fact."""
    return row_source(fact).row(now)


@dataclass(frozen=True, slots=True)
class ErrorRow:
    """A file that could not be read at all."""

    path: str
    """The file."""
    message: str
    """Why."""
    scope: str = "project"
    """The directory it is in."""

    def row(self) -> FactRow:
        """The table row for this error."""
        name = os.path.basename(self.path)
        return FactRow(
            key=ERROR_KEY_PREFIX + self.path,
            title=f"⚠ {name}",
            ref=f"{self.scope}/{name}",
            type="-",
            scope=self.scope,
            activation="-",
            freshness="error",
            subject="",
            revision=0,
            updated_ns=0,
            updated="-",
            search=f"{name} {self.message} error".lower(),
            error=self.message,
        )


class LazyFacts(Mapping[str, Fact]):
    """Facts by row key, parsed on first access (a 100k-fact table never needs them all).

    Iterating keys is free; reading a value parses that one file (then it is kept).
    """

    def __init__(self, paths: Mapping[str, tuple[str, str]], loaded: dict[str, Fact] | None = None) -> None:
        self._paths = paths
        self._loaded: dict[str, Fact] = loaded if loaded is not None else {}

    def __getitem__(self, key: str) -> Fact:
        fact = self._loaded.get(key)
        if fact is None:
            path, scope = self._paths[key]
            try:
                fact = read_fact_file(path, scope)
            except OSError:
                raise KeyError(key) from None
            self._loaded[key] = fact
        return fact

    def __contains__(self, key: object) -> bool:
        return key in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def loaded(self, key: str) -> Fact | None:
        """The parsed fact when it was already read (never parses)."""
        return self._loaded.get(key)


_GENERATIONS = itertools.count(1)
"""Snapshot generation numbers (process-wide, increasing)."""


@dataclass(frozen=True)
class CenterSnapshot:
    """An immutable view of the store at one moment."""

    facts: Mapping[str, Fact]
    """Active facts by row key (a :class:`LazyFacts`: values are parsed on access)."""
    rows: Mapping[str, FactRow]
    """Table rows by key (facts and error rows)."""
    errors: tuple[ErrorRow, ...] = ()
    """Files that could not be read."""
    archived: tuple[ArchivedFact, ...] = ()
    """Archived facts of both scopes, newest first."""
    pinned_chars: int = 0
    """Runes of pinned guidance in use."""
    pinned_budget: int = 1500
    """The budget pinned guidance is measured against (0: none)."""
    pinned_refused: bool = False
    """A pin over :attr:`pinned_budget` is refused (the budget was configured, as in Reasonix)."""
    loaded_at: Timestamp = field(default_factory=lambda: Timestamp(0))
    """When this snapshot was read."""
    source: str = "files"
    """How it was read (``files``: scan with the row cache)."""
    sources: Mapping[str, RowSource] = field(default_factory=dict)
    """Clock-independent row data by key (identity keys, pinned length...)."""
    paths: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """``(path, directory scope)`` by key."""
    sigs: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """File stat signature by key (a hand edit that changes no row still shows as a change)."""
    cache_dirty: bool = False
    """Files were parsed that the row cache does not hold: write it after posting."""
    counts: Mapping[str, int] = field(default_factory=dict)
    """``project``, ``global``, ``pinned`` and ``unreadable`` row counts."""
    generation: int = 0
    """This snapshot's number: every snapshot the loader makes gets the next one (0: empty)."""
    derived_from: int = 0
    """:attr:`generation` of the snapshot an incremental update started from (0 for a full scan)."""
    touched: frozenset[str] = frozenset()
    """Row keys that incremental update dropped or (re)built."""
    reading: tuple[int, int] = (0, 0)
    """``(files read, files to read)`` while a first load is still going (a partial
    snapshot: more rows follow); ``(0, 0)`` once complete."""

    identity: Mapping[str, tuple[str, ...]] | None = None
    """Row keys by identity key (:func:`with_identity_index` builds it before the snapshot is
    posted; ``None`` on a partial snapshot of a first load: lookups then scan the rows)."""
    resolution: Resolution | None = None
    """Which facts are superseded (subject and topic resolver): :func:`resolve_snapshot`
    makes a copy of the snapshot that carries it (``None`` until then)."""

    @classmethod
    def empty(cls, budget: int = 1500) -> CenterSnapshot:
        """A snapshot with nothing in it."""
        return cls(facts=LazyFacts({}), rows={}, pinned_budget=budget)

    def find(self, ref: str) -> Fact | None:
        """A fact by id or ref (``project/x.md``; ``.md`` optional)."""
        if ref in self.facts:
            return self.facts.get(ref)
        want = ref if ref.endswith(".md") else ref + ".md"
        for key, src in self.sources.items():
            if src.ref == want or src.key == ref:
                return self.facts.get(key)
        return None

    def subject_holder(self, fact: Fact) -> tuple[Fact | None, Fact | None]:
        """``(holder in the same scope if not this fact, holder in the other scope)``."""
        if not fact.subject_key:
            return None, None
        same = other = None
        index = self.identity
        candidates = index.get("subject:" + fact.subject_key, ()) if index is not None else self.sources
        for key in candidates:
            src = self.sources.get(key)
            if src is None or src.subject != fact.subject_key or src.key == fact.id:
                continue
            if src.scope == fact.scope and same is None:
                same = self.facts.get(key)
            elif src.scope != fact.scope and other is None:
                other = self.facts.get(key)
        return same, other

    def overrides(self, fact: Fact) -> list[tuple[Fact, str]]:
        """Project-over-global: facts in the other scope sharing an identity key, with the
        kind of key shared (``id``, ``name``, ``title`` or ``subject``).

        For a global fact these are the project facts that suppress it; for a project fact,
        the global facts it suppresses (spec §6.6). The keys are ``precedence.identity_keys``,
        the ones recall and the store use; looked up through the identity index when it is
        built, else by a scan of the rows.
        """
        mine = identity_keys(fact)
        found: list[tuple[Fact, str]] = []
        index = self.identity
        if index is not None:
            seen: set[str] = set()
            for ident in mine:
                for key in index.get(ident, ()):
                    src = self.sources.get(key)
                    if src is None or src.scope == fact.scope or key in seen:
                        continue
                    seen.add(key)
                    other = self.facts.get(key)
                    if other is not None:
                        found.append((other, _key_kind(ident)))
            return found
        wanted = set(mine)
        for key, src in self.sources.items():
            if src.scope == fact.scope:
                continue
            for ident in src.keys:
                if ident in wanted:
                    other = self.facts.get(key)
                    if other is not None:
                        found.append((other, _key_kind(ident)))
                    break
        return found


def _key_kind(ident: str) -> str:
    """``name`` of ``name:deploy-target``."""
    return ident.partition(":")[0]


RESOLVE_LIMIT = 5_000
"""Stores up to this many facts get the subject/topic resolution in the Context Center."""


def resolve_snapshot(snapshot: CenterSnapshot, limit: int = RESOLVE_LIMIT) -> CenterSnapshot | None:
    """A copy of ``snapshot`` (same generation) carrying its
    :class:`~reasonix_tui.core.resolve.Resolution`; ``None`` for a partial snapshot, one of
    more than ``limit`` facts, or one that has it already (run in a worker: it takes time)."""
    if snapshot.reading[1] or len(snapshot.facts) > limit or snapshot.resolution is not None:
        return None
    from ...core.resolve import resolve

    facts = [f for f in (snapshot.facts.get(k) for k in list(snapshot.facts)) if f is not None]
    return replace(snapshot, resolution=resolve(facts))


def with_identity_index(
    snapshot: CenterSnapshot, previous: CenterSnapshot | None = None, changes: Changes | None = None
) -> CenterSnapshot:
    """A copy of ``snapshot`` (same generation) carrying its identity index, patched from
    ``previous``'s when ``changes`` (``previous`` → ``snapshot``) are few, else built anew.

    The reload worker calls it before posting, so the snapshot the screen holds is never
    changed afterwards. A live update patches a few keys; a first load builds it once.
    """
    with _no_gc():
        return replace(snapshot, identity=_identity_index(snapshot, previous, changes))


def _identity_index(
    snapshot: CenterSnapshot, previous: CenterSnapshot | None, changes: Changes | None
) -> dict[str, tuple[str, ...]]:
    old = previous.identity if previous is not None else None
    if old is not None and previous is not None:
        if changes is not None and not changes.full:
            gone = [k for k in changes.removed | changes.changed if k in previous.sources]
            new = [k for k in changes.added | changes.changed if k in snapshot.sources]
        else:
            gone = [k for k in previous.sources if snapshot.sources.get(k) is not previous.sources[k]]
            new = [k for k in snapshot.sources if previous.sources.get(k) is not snapshot.sources[k]]
        if len(gone) + len(new) < 1000:
            index = dict(old)
            for key in gone:
                for ident in previous.sources[key].keys:
                    keys = index.get(ident)
                    if keys and key in keys:
                        index[ident] = tuple(k for k in keys if k != key)
            for key in new:
                for ident in snapshot.sources[key].keys:
                    index[ident] = (*index.get(ident, ()), key)
            return index
    lists: dict[str, list[str]] = {}
    for key, src in snapshot.sources.items():
        for ident in src.keys:
            bucket = lists.get(ident)
            if bucket is None:
                lists[ident] = [key]
            else:
                bucket.append(key)
    return {ident: tuple(keys) for ident, keys in lists.items()}


@dataclass(frozen=True, slots=True)
class Changes:
    """What differs between two snapshots (row keys)."""

    added: frozenset[str] = frozenset()
    """New rows."""
    removed: frozenset[str] = frozenset()
    """Rows that disappeared."""
    changed: frozenset[str] = frozenset()
    """Rows whose content changed."""
    archive_changed: bool = False
    """The archive list differs."""
    full: bool = False
    """Everything should be redrawn (first load or clock change)."""

    @property
    def empty(self) -> bool:
        """Nothing to do."""
        return not (self.added or self.removed or self.changed or self.archive_changed or self.full)

    @property
    def touched(self) -> frozenset[str]:
        """Every key that was added, removed or changed."""
        return self.added | self.removed | self.changed


def diff_snapshots(old: CenterSnapshot | None, new: CenterSnapshot) -> Changes:
    """Row-level differences (``full`` when there was no previous snapshot)."""
    if old is None:
        return Changes(added=frozenset(new.rows), full=True, archive_changed=True)
    old_rows, new_rows = old.rows, new.rows
    if new.derived_from and new.derived_from == old.generation:
        # An incremental update knows which keys it touched: no need to walk 100k rows.
        touched = new.touched
        added = frozenset(k for k in touched if k in new_rows and k not in old_rows)
        removed = frozenset(k for k in touched if k in old_rows and k not in new_rows)
        changed = frozenset(
            k
            for k in touched
            if k in old_rows and k in new_rows and (old_rows[k] != new_rows[k] or old.sigs.get(k) != new.sigs.get(k))
        )
        archive_changed = old.archived is not new.archived and [a.path for a in old.archived] != [a.path for a in new.archived]
        return Changes(added=added, removed=removed, changed=changed, archive_changed=archive_changed)
    added = frozenset(k for k in new_rows if k not in old_rows)
    removed = frozenset(k for k in old_rows if k not in new_rows)
    changed_keys: set[str] = set()
    old_sigs, new_sigs = old.sigs, new.sigs
    for key, row in new_rows.items():
        prev = old_rows.get(key)
        if prev is None or prev is row:
            continue
        if prev != row or old_sigs.get(key) != new_sigs.get(key):
            changed_keys.add(key)
    archive_changed = [a.path for a in old.archived] != [a.path for a in new.archived]
    return Changes(added=added, removed=removed, changed=frozenset(changed_keys), archive_changed=archive_changed)


# --------------------------------------------------------------------------- loading

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

    def add(self, path: str, scope: str, sig: tuple[int, ...], src: RowSource, fact: Fact | None, row: FactRow | None) -> None:
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
            generation=next(_GENERATIONS),
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
    with _no_gc():
        return _load_snapshot(layout, settings, now, previous, use_cache, progress)


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic GC while building 100k-row structures (they hold no cycles)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


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
            prior[path] = (previous.sigs[key], previous.sources[key], loaded, previous.rows.get(key) if reuse_rows else None)
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
    with _no_gc():
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
                table.pop(key, None)  # type: ignore[attr-defined]
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

"""What the Context Center shows, as immutable data (no textual import).

:class:`CenterSnapshot` is the one thing the app owns: the facts of both scopes, the rows
the facts table draws, files that failed to read, archived facts and the pinned budget
use. :func:`~.loader.load_snapshot` builds one from the fact directories;
:func:`~.loader.update_snapshot` applies a batch of changed paths; :func:`diff_snapshots`
says what changed between two, so panes update by diff and keep their cursor. Rows are
:mod:`.rows`.

Reading uses the store's own directory rules and file reader (``scan_fact_entries``,
``read_fact_file``, ``fact_file_problem``) on changed files only: unchanged ones come from
the previous snapshot or from the row cache (``loader.save_row_cache``), and a first open with
no row cache reads through the store's parse cache, handing out partial snapshots as it
goes (a big first start shows rows at once). Fact bodies are parsed on demand
(:class:`LazyFacts`). The only files written here are the row cache and, on a first
start, the store's parse cache.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ...core.compat.gotime import Timestamp
from ...core.store.model import Fact
from ...core.store.precedence import identity_keys
from ...core.store.results import ArchivedFact
from ...core.store.scan import read_fact_file
from .rows import ErrorRow, FactRow, RowSource

if TYPE_CHECKING:
    from ...core.resolve import Resolution

__all__ = [
    "LazyFacts",
    "with_identity_index",
    "with_order",
    "default_order",
    "resolve_snapshot",
    "CenterSnapshot",
    "Changes",
    "diff_snapshots",
]


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


def next_generation() -> int:
    """The next snapshot generation number (process-wide, increasing from 1)."""
    return next(_GENERATIONS)


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
    order: tuple[str, ...] | None = None
    """Every row key in the facts table's default order (error rows first, then by title
    without case, then by key), worked out by the reload worker for a big change so the
    table does not sort on the UI thread; ``None``: the table sorts itself."""

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
    with no_gc():
        return replace(snapshot, identity=_identity_index(snapshot, previous, changes))


def default_order(rows: Mapping[str, FactRow]) -> tuple[str, ...]:
    """Row keys in the facts table's default order (title ascending, no filter): error
    rows first, then by lower-cased title, ties by key — the order
    :meth:`~reasonix_tui.tui.widgets.facts_table.FactsTable` sorts into itself."""
    with no_gc():
        keys = sorted(rows)
        keys.sort(key=lambda k: rows[k].title.lower())
        errors = [k for k in keys if rows[k].error]
        if errors:
            error_set = set(errors)
            keys = errors + [k for k in keys if k not in error_set]
        return tuple(keys)


ORDER_AFTER = 200
"""A change touching more rows than this (or a full load) comes with :attr:`CenterSnapshot.order`."""


def with_order(snapshot: CenterSnapshot, changes: Changes | None = None) -> CenterSnapshot:
    """``snapshot`` carrying its default row order when the table would sort it all again
    (a full load or more than :data:`ORDER_AFTER` touched rows); else unchanged."""
    if changes is not None and not changes.full and len(changes.touched) <= ORDER_AFTER:
        return snapshot
    return replace(snapshot, order=default_order(snapshot.rows))


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
        archive_changed = old.archived is not new.archived and [a.path for a in old.archived] != [
            a.path for a in new.archived
        ]
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


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic GC while building 100k-row structures (they hold no cycles)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

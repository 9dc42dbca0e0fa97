"""What the Context Center shows, as immutable data (no textual import).

:class:`CenterSnapshot` is the one thing the app owns: the facts of both scopes, the rows
the facts table draws, files that failed to read, archived facts and the pinned budget
use. :func:`load_snapshot` builds one from the store; :func:`diff_snapshots` says what
changed between two, so panes update by diff and keep their cursor.

Reading goes through the store API (``Store.snapshot()``) when the store module is
present; until then (and as a fallback) the two fact directories are read with the
file-format parser directly. Nothing here writes.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ..core.freshness import freshness_for
from ..core.gotime import Timestamp
from ..core.paths import Layout
from ..core.settings import Settings
from ..core.store.model import Fact

__all__ = [
    "Clock",
    "FactRow",
    "ErrorRow",
    "ArchivedEntry",
    "CenterSnapshot",
    "Changes",
    "load_snapshot",
    "diff_snapshots",
    "fact_row",
    "relative_time",
    "pinned_usage",
]

Clock = Callable[[], Timestamp]
"""A source of "now" (injected so tests and snapshots are deterministic)."""

ERROR_KEY_PREFIX = "error:"
"""Row keys of files that failed to read start with this (fact rows use the fact id)."""


def relative_time(ts: Timestamp | None, now: Timestamp) -> str:
    """A short age such as ``3m``, ``5h``, ``12d``, ``2y`` (``-`` when unknown)."""
    if ts is None:
        return "-"
    secs = (now.ns - ts.ns) / 1e9
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


@dataclass(frozen=True, slots=True)
class FactRow:
    """One line of the facts table."""

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


_SLUGGY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def fact_ref(fact: Fact) -> str:
    """``fact.ref`` with a fast path for names that are already slugs (the common case)."""
    name = fact.name
    if _SLUGGY.fullmatch(name):
        return f"{fact.scope}/{name}.md"
    return fact.ref


def fact_row(fact: Fact, now: Timestamp) -> FactRow:
    """The table row of a fact."""
    updated = fact.updated_at or fact.created_at
    title = fact.title.strip() if fact.title and "\n" not in fact.title else fact.display_title
    if not title:
        title = fact.name.replace("-", " ")
    ref = fact_ref(fact)
    search = " ".join(
        (
            title,
            ref,
            fact.id,
            fact.description,
            fact.keywords,
            fact.subject_key,
            fact.type,
            fact.scope,
        )
    ).lower()
    if fact.parse_error:
        title = "⚠ " + title
    return FactRow(
        key=str(fact.id),
        title=title,
        ref=ref,
        type=fact.type,
        scope=fact.scope,
        activation=fact.resolved_activation,
        freshness=freshness_for(fact, now),
        subject=fact.subject_key,
        revision=fact.revision,
        updated_ns=updated.ns if updated else 0,
        updated=relative_time(updated, now),
        search=search,
        error=f"frontmatter: {fact.parse_error}" if fact.parse_error else "",
    )


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


@dataclass(frozen=True, slots=True)
class ArchivedEntry:
    """An archived (forgotten) fact."""

    path: str
    """The file under ``.archive/``."""
    fact: Fact
    """What it holds."""
    archived_at: Timestamp | None
    """When it was archived (from the stamp, else the mtime)."""


def pinned_usage(facts: Iterable[Fact]) -> int:
    """Runes of the trimmed bodies of every pinned fact (what the budget counts, spec §3.6)."""
    return sum(len(f.body.strip()) for f in facts if f.pinned and f.body.strip())


def identity_keys(fact: Fact) -> list[tuple[str, str]]:
    """The identity keys of spec §6.6: id, slug name, normalised title, subject key."""
    from ..core.store.model import normalized_phrase, slug

    name = fact.name if _SLUGGY.fullmatch(fact.name) else slug(fact.name)
    keys = [("id", str(fact.id)), ("name", name)]
    if fact.title:
        raw = fact.title
        title = _NOT_ALNUM.sub("", raw.lower()) if raw.isascii() else normalized_phrase(raw)
        if title:
            keys.append(("title", title))
    if fact.subject_key:
        keys.append(("subject", fact.subject_key))
    return keys


@dataclass(frozen=True)
class CenterSnapshot:
    """An immutable view of the store at one moment."""

    facts: Mapping[str, Fact]
    """Active facts by id."""
    rows: Mapping[str, FactRow]
    """Table rows by key (facts and error rows)."""
    errors: tuple[ErrorRow, ...] = ()
    """Files that could not be read."""
    archived: tuple[ArchivedEntry, ...] = ()
    """Archived facts of both scopes, newest first."""
    pinned_chars: int = 0
    """Runes of pinned guidance in use."""
    pinned_budget: int = 1500
    """The configured ceiling (0: none)."""
    loaded_at: Timestamp = field(default_factory=lambda: Timestamp(0))
    """When this snapshot was read."""
    source: str = "store"
    """``store`` (the store API) or ``files`` (direct read fallback)."""
    keys_by_id: Mapping[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Identity keys of each fact (carried over between reloads for unchanged facts)."""

    @classmethod
    def empty(cls, budget: int = 1500) -> CenterSnapshot:
        """A snapshot with nothing in it."""
        return cls(facts={}, rows={}, pinned_budget=budget)

    def find(self, ref: str) -> Fact | None:
        """A fact by id or ref (``project/x.md``)."""
        if ref in self.facts:
            return self.facts[ref]
        for fact in self.facts.values():
            if fact.ref == ref:
                return fact
        return None

    def subject_holder(self, fact: Fact) -> tuple[Fact | None, Fact | None]:
        """``(holder in the same scope if not this fact, holder in the other scope)``."""
        if not fact.subject_key:
            return None, None
        same = other = None
        for f in self.facts.values():
            if f.subject_key != fact.subject_key or f.id == fact.id:
                continue
            if f.scope == fact.scope and same is None:
                same = f
            elif f.scope != fact.scope and other is None:
                other = f
        return same, other

    def overrides(self, fact: Fact) -> list[tuple[Fact, str]]:
        """Project-over-global: facts in the other scope sharing an identity key, with the key.

        For a global fact these are the project facts that suppress it; for a project fact,
        the global facts it suppresses (spec §6.6).
        """
        found: list[tuple[Fact, str]] = []
        mine = dict(self.keys_by_id.get(str(fact.id)) or identity_keys(fact))
        mine_set = set(mine.items())
        known = self.keys_by_id
        for key, other in self.facts.items():
            if other.scope == fact.scope:
                continue
            keys = known.get(key)
            if keys is None:
                keys = identity_keys(other)
            for pair in keys:
                if pair in mine_set:
                    found.append((other, pair[0]))
                    break
        return found


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
    added = frozenset(k for k in new_rows if k not in old_rows)
    removed = frozenset(k for k in old_rows if k not in new_rows)
    changed = set()
    for key, row in new_rows.items():
        prev = old_rows.get(key)
        if prev is None or prev is row:
            continue
        if prev != row:
            changed.add(key)
            continue
        f_old, f_new = old.facts.get(key), new.facts.get(key)
        if f_old is not f_new and f_old != f_new:
            changed.add(key)
    archive_changed = [a.path for a in old.archived] != [a.path for a in new.archived]
    return Changes(added=added, removed=removed, changed=frozenset(changed), archive_changed=archive_changed)


# --------------------------------------------------------------------------- loading


def _store_class() -> Any:
    try:
        from ..core.store.store import Store
    except ImportError:
        return None
    return Store


def _error_rows(errors: Iterable[Any], layout: Layout) -> tuple[ErrorRow, ...]:
    out: list[ErrorRow] = []
    for err in errors:
        if isinstance(err, tuple) and len(err) >= 2:
            path, message = str(err[0]), str(err[1])
        else:
            path = str(getattr(err, "path", err))
            message = str(getattr(err, "message", getattr(err, "error", "")) or "unreadable")
        scope = "global" if path.startswith(str(layout.global_dir)) else "project"
        out.append(ErrorRow(path=path, message=message, scope=scope))
    return tuple(out)


def _archived_entries(items: Iterable[Any]) -> tuple[ArchivedEntry, ...]:
    out = [
        ArchivedEntry(path=str(getattr(a, "path", "")), fact=a.fact, archived_at=getattr(a, "archived_at", None))
        for a in items
    ]
    return tuple(out)


def _read_dirs(layout: Layout) -> tuple[list[Fact], list[ErrorRow], list[ArchivedEntry]]:
    """Fallback reader: both directories with the file-format parser (no store module)."""
    from ..core.gotime import parse_archive_stamp
    from ..core.store.fileformat import parse_fact_bytes

    facts: list[Fact] = []
    errors: list[ErrorRow] = []
    archived: list[ArchivedEntry] = []
    for scope, directory in (("global", layout.global_dir), ("project", layout.project_dir)):
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith(".md") or entry.name == "MEMORY.md":
                continue
            try:
                if entry.is_dir():
                    continue
                data = Path(entry.path).read_bytes()
                mtime = Timestamp.from_seconds(entry.stat().st_mtime)
                facts.append(parse_fact_bytes(data, path=entry.path, dir_scope=scope, mtime=mtime))
            except (OSError, ValueError) as exc:
                errors.append(ErrorRow(path=entry.path, message=str(exc), scope=scope))
        archive_dir = Path(directory) / ".archive"
        try:
            archive_entries = list(os.scandir(archive_dir))
        except OSError:
            archive_entries = []
        for entry in archive_entries:
            if not entry.name.endswith(".md") or not entry.is_file():
                continue
            try:
                data = Path(entry.path).read_bytes()
                mtime = Timestamp.from_seconds(entry.stat().st_mtime)
            except OSError:
                continue
            fact = parse_fact_bytes(data, path=entry.path, dir_scope=scope, mtime=mtime)
            archived.append(ArchivedEntry(entry.path, fact, parse_archive_stamp(entry.name) or mtime))
    archived.sort(key=lambda a: (-(a.archived_at.ns if a.archived_at else 0), a.fact.name, a.path))
    return facts, errors, archived


def load_snapshot(
    layout: Layout, settings: Settings | None, now: Timestamp, previous: CenterSnapshot | None = None
) -> CenterSnapshot:
    """Read the store into a :class:`CenterSnapshot` (blocking: call from a thread worker).

    With ``previous`` (taken less than a minute ago), rows of unchanged facts are reused,
    so a reload after one outside change costs little more than the store read.
    """
    settings = settings or Settings()
    store_cls = _store_class()
    source = "files"
    if store_cls is not None:
        store = store_cls(layout, settings=settings, actor="context-center")
        snap = store.snapshot()
        facts = list(snap.facts)
        errors = list(_error_rows(getattr(snap, "errors", ()) or (), layout))
        archived_items = getattr(snap, "archived", None)
        if archived_items is None:
            archived_items = store.list_archived()
        archived = list(_archived_entries(archived_items))
        source = "store"
    else:
        facts, errors, archived = _read_dirs(layout)
    by_id: dict[str, Fact] = {}
    rows: dict[str, FactRow] = {}
    reuse = previous is not None and abs(now.ns - previous.loaded_at.ns) < 60 * 1_000_000_000
    old_facts = previous.facts if previous is not None and reuse else {}
    old_rows = previous.rows if previous is not None and reuse else {}
    old_keys = previous.keys_by_id if previous is not None and reuse else {}
    keys_by_id: dict[str, list[tuple[str, str]]] = {}
    for fact in facts:
        key = str(fact.id)
        if key in by_id:
            # Same id in both directories (a copy left by hand): keep both visible.
            key = f"{key}@{fact.scope}"
        old = old_facts.get(key)
        if old is not None and old == fact:
            by_id[key] = old
            rows[key] = old_rows[key]
            keys_by_id[key] = old_keys.get(key) or identity_keys(old)
            continue
        by_id[key] = fact
        keys_by_id[key] = identity_keys(fact)
        row = fact_row(fact, now)
        rows[key] = row if row.key == key else replace(row, key=key)
    fact_paths = {f.path for f in facts}
    errors = [e for e in errors if e.path not in fact_paths]
    for err in errors:
        row = err.row()
        rows[row.key] = row
    snapshot = CenterSnapshot(
        facts=by_id,
        rows=rows,
        errors=tuple(errors),
        archived=tuple(archived),
        pinned_chars=pinned_usage(facts),
        pinned_budget=settings.pinned_budget_chars,
        loaded_at=now if not reuse or previous is None else previous.loaded_at,
        source=source,
        keys_by_id=keys_by_id,
    )
    return snapshot


def update_snapshot(
    previous: CenterSnapshot,
    layout: Layout,
    settings: Settings | None,
    now: Timestamp,
    paths: Iterable[str],
) -> CenterSnapshot | None:
    """Apply a batch of changed paths to ``previous`` by reading only those files.

    Returns ``None`` when the batch needs a full reload (a store directory appeared or
    vanished, a symlink or a directory named ``*.md``). The files are parsed with the same
    parser the store uses, so the result equals a full read for ordinary changes; a
    full read happens anyway on ctrl+r and after every write made here.
    """
    from ..core.store.fileformat import parse_fact_bytes

    settings = settings or Settings()
    dirs = {str(layout.project_dir): "project", str(layout.global_dir): "global"}
    archive_dirs = {os.path.join(d, ".archive") for d in dirs}
    by_path: dict[str, str] | None = None
    facts = dict(previous.facts)
    rows = dict(previous.rows)
    keys_by_id = dict(previous.keys_by_id)
    errors = {e.path: e for e in previous.errors}
    pinned = previous.pinned_chars
    archive_changed = False

    def contribution(f: Fact) -> int:
        body = f.body.strip()
        return len(body) if body and f.pinned else 0

    for path in paths:
        if path in dirs:
            return None
        parent, name = os.path.split(path)
        if parent in archive_dirs:
            archive_changed = True
            continue
        if parent not in dirs:
            continue
        if not name.endswith(".md") or name == "MEMORY.md":
            continue
        if by_path is None:
            by_path = {f.path: k for k, f in facts.items()}
        old_key = by_path.pop(path, None)
        if old_key is not None:
            old = facts.pop(old_key)
            rows.pop(old_key, None)
            keys_by_id.pop(old_key, None)
            pinned -= contribution(old)
        errors.pop(path, None)
        rows.pop(ERROR_KEY_PREFIX + path, None)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            errors[path] = ErrorRow(path, f"cannot read: {exc.strerror or exc}", dirs[parent])
            continue
        import stat as _stat

        if not _stat.S_ISREG(st.st_mode):
            return None
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            errors[path] = ErrorRow(path, f"cannot read: {exc.strerror or exc}", dirs[parent])
            continue
        fact = parse_fact_bytes(data, path=path, dir_scope=dirs[parent], mtime=Timestamp(st.st_mtime_ns))
        key = str(fact.id)
        if key in facts and facts[key].path != path:
            key = f"{key}@{fact.scope}"
        facts[key] = fact
        by_path[path] = key
        row = fact_row(fact, now)
        rows[key] = row if row.key == key else replace(row, key=key)
        keys_by_id[key] = identity_keys(fact)
        pinned += contribution(fact)
    for err in errors.values():
        row = err.row()
        rows[row.key] = row
    archived = previous.archived
    if archive_changed:
        store_cls = _store_class()
        if store_cls is not None:
            archived = _archived_entries(store_cls(layout, settings=settings, actor="context-center").list_archived())
        else:
            archived = tuple(_read_dirs(layout)[2])
    return CenterSnapshot(
        facts=facts,
        rows=rows,
        errors=tuple(errors.values()),
        archived=archived,
        pinned_chars=pinned,
        pinned_budget=settings.pinned_budget_chars,
        loaded_at=previous.loaded_at,
        source=previous.source,
        keys_by_id=keys_by_id,
    )

"""The store: the only writer of fact files (spec §1-§4, §8, §9).

Reads follow Reasonix exactly (directory scan order, lookup rules, legacy ids) and never
rewrite a file. Every mutation:

* holds a cross-process file lock (Reasonix only has an in-process mutex) around the
  whole read-modify-write, so concurrent processes each land as their own revision;
* snapshots the previous bytes under ``.revisions/<id>/`` (or moves the file to
  ``.archive/``) before anything is replaced, so no user text is ever lost;
* writes atomically (temp file + rename, or temp file + hard link for create-only);
* keeps ``MEMORY.md`` in step while preserving hand-written lines;
* appends one line to the audit log, refused mutations included.
"""

from __future__ import annotations

import os
import stat as stat_mod
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..compat.gostr import go_quote, one_line, trim_space
from ..compat.gotime import Timestamp, format_archive_stamp, parse_archive_stamp
from ..paths import Layout
from ..settings import Settings, load_settings
from . import index_md, journal, safeio
from .atomic import atomic_create, ensure_dir
from .audit import AuditEntry, AuditLog
from .cache import ParseCache, stat_key
from .fields import EDITABLE_NAMES
from .fileformat import flatten_yaml, parse_fact_bytes, render_fact, split_frontmatter
from .model import (
    Conflict,
    Fact,
    FactId,
    InvalidInput,
    NotFound,
    StoreError,
    new_memory_id,
    normalize_activation,
    normalize_fact_scope,
    normalize_subject_key,
    normalize_type,
    normalize_volatility,
    normalized_phrase,
    parse_reference,
    slug,
)
from .precedence import Override, find_overrides, pinned_guidance

__all__ = [
    "Store",
    "FactEntry",
    "scan_fact_entries",
    "read_fact_file",
    "read_through",
    "fact_file_problem",
    "SaveRequest",
    "SaveResult",
    "ArchiveResult",
    "ArchivedFact",
    "FileError",
    "Snapshot",
    "MigrationResult",
    "ActivationResult",
]


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, slots=True)
class SaveRequest:
    """What a caller wants saved (mirrors the ``remember`` tool's arguments)."""

    description: str = ""
    body: str = ""
    name: str = ""
    title: str = ""
    type: str = ""
    scope: str = ""
    keywords: str = ""
    subject_key: str = ""
    activation: str = ""
    volatility: str = ""
    expires_at: Timestamp | None = None
    last_verified_at: Timestamp | None = None
    verified: bool = False
    """Stamp ``last_verified_at`` with now."""
    id: str = ""
    supersedes: tuple[str, ...] | None = None
    """reasonix-tui extension; ``None`` inherits on update."""
    extra: tuple[tuple[str, str], ...] | None = None
    """Unknown frontmatter keys to keep; ``None`` inherits on update."""

    @classmethod
    def from_fact(cls, fact: Fact, **changes: Any) -> SaveRequest:
        """A request that rewrites ``fact`` as it is (by id), with ``changes`` applied."""
        base = cls(
            **{name: getattr(fact, name) for name in EDITABLE_NAMES},
            last_verified_at=fact.last_verified_at,
            id=fact.id,
            supersedes=fact.supersedes,
            extra=fact.extra,
        )
        return replace(base, **changes)


@dataclass(frozen=True, slots=True)
class SaveResult:
    """The outcome of a save, restore, recover, pin, unpin or verify."""

    fact: Fact
    """The fact as written."""
    previous: Fact | None = None
    """The active fact before the write (None for a create)."""
    created: bool = False
    """True when a new fact was created."""
    warnings: tuple[str, ...] = ()
    """Things a person should see (e.g. the superseded-value guard)."""
    archived: tuple[str, ...] = ()
    """Archive paths written on the way (single-active-copy rule)."""
    message: str = ""
    """A one-line human summary."""
    changed: bool = True
    """False when nothing was written (e.g. restoring the revision that is already active)."""


@dataclass(frozen=True, slots=True)
class ActivationResult:
    """Outcome of pin/unpin: ``changed`` False means it already had that activation."""

    fact: Fact
    changed: bool
    message: str
    result: SaveResult | None = None


@dataclass(frozen=True, slots=True)
class ArchiveResult:
    """Outcome of a forget."""

    path: str
    """The last archive path written, or ``""`` when nothing was archived."""
    fact: Fact | None
    """The fact that was active, when it could be read first."""
    paths: tuple[str, ...] = ()
    """Every archive path written."""
    message: str = ""


@dataclass(frozen=True, slots=True)
class ArchivedFact:
    """A fact in some ``.archive/``."""

    path: str
    fact: Fact
    archived_at: Timestamp | None
    scope: str


@dataclass(frozen=True, slots=True)
class FileError:
    """A file in a store directory that could not be read as a fact."""

    path: str
    scope: str
    message: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """An immutable view of the store at one moment."""

    facts: tuple[Fact, ...]
    """Active facts of both scopes, sorted by (name, scope, id)."""
    errors: tuple[FileError, ...] = ()
    """Unreadable files (shown as error rows)."""
    loaded_at: Timestamp | None = None
    by_id: dict[str, Fact] = field(default_factory=dict, compare=False)

    @classmethod
    def build(cls, facts: Iterable[Fact], errors: Iterable[FileError], loaded_at: Timestamp) -> Snapshot:
        fs = tuple(facts)
        return cls(facts=fs, errors=tuple(errors), loaded_at=loaded_at, by_id={f.id: f for f in fs})


@dataclass(frozen=True, slots=True)
class MigrationResult:
    """Outcome of ``migrate``."""

    migrated: int
    paths: tuple[str, ...] = ()
    backups: tuple[str, ...] = ()


# --------------------------------------------------------------------------- helpers


def _runes_trimmed(text: str) -> int:
    return len(trim_space(text))


def _is_local(name: str) -> bool:
    """Go ``filepath.IsLocal`` for a single relative name."""
    if not name or os.path.isabs(name) or name.startswith(("/", "\\")):
        return False
    parts = name.replace("\\", "/").split("/")
    depth = 0
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            depth -= 1
            if depth < 0:
                return False
        else:
            depth += 1
    return depth > 0 or name not in ("", ".")


def safe_join(base: str, name: str) -> str:
    """``safeJoin``: refuse any name that escapes ``base`` (spec §8.4)."""
    if not base or not _is_local(name):
        raise InvalidInput(f"memory path escapes store: {name}")
    joined = os.path.normpath(os.path.join(os.path.abspath(base), name))
    rel = os.path.relpath(joined, os.path.abspath(base))
    if rel == ".." or rel.startswith(".." + os.sep):
        raise InvalidInput(f"memory path escapes store: {name}")
    return joined


class _RootLock:
    """One per state root per process: a thread RLock plus the cross-process file lock
    (``flock`` on a descriptor opened without following a symlink; a FIFO or symlink
    planted at ``store.lock`` is refused, never opened or truncated)."""

    def __init__(self, path: str) -> None:
        self.rlock = threading.RLock()
        self.path = path
        self.depth = 0
        self._fd: int | None = None

    @contextmanager
    def hold(self) -> Iterator[None]:
        with self.rlock:
            if self.depth == 0:
                try:
                    fd = safeio.open_lock_fd(self.path)
                except OSError as exc:
                    raise StoreError(f"cannot lock the store ({self.path}): {exc.strerror or exc}") from None
                try:
                    safeio.acquire_fd_lock(fd, self.path)
                except BaseException:
                    os.close(fd)
                    raise
                self._fd = fd
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
                if self.depth == 0 and self._fd is not None:
                    fd, self._fd = self._fd, None
                    os.close(fd)  # releases the flock


_ROOT_LOCKS: dict[str, _RootLock] = {}
_ROOT_LOCKS_GUARD = threading.Lock()


def _root_lock(path: Path) -> _RootLock:
    key = os.path.abspath(path)
    with _ROOT_LOCKS_GUARD:
        lock = _ROOT_LOCKS.get(key)
        if lock is None:
            lock = _ROOT_LOCKS[key] = _RootLock(key)
        return lock


# --------------------------------------------------------------------------- directory rules


@dataclass(frozen=True, slots=True)
class FactEntry:
    """One candidate fact file of a store directory (or why it cannot be one)."""

    path: str
    """The file (``<dir>/<name>.md``)."""
    stat: os.stat_result | None
    """Its stat (following an in-store symlink); ``None`` with an error."""
    error: str = ""
    """Why it is listed but not readable as a fact (shown as an error row)."""


def scan_fact_entries(scope: str, directory: Path | str) -> Iterator[FactEntry]:
    """The active-fact scan of spec §1.4 in ``ReadDir`` (byte) order.

    ``*.md`` entries other than ``MEMORY.md`` that are not directories; subdirectories
    are never entered. Beyond Reasonix, a symlink whose target leaves the store is
    reported instead of read. The one definition of which files are facts, used by the
    store and the Context Center alike.
    """
    directory = str(directory)
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name.encode("utf-8", "surrogateescape"))
    except FileNotFoundError:
        return
    except NotADirectoryError:
        yield FactEntry(directory, None, "store path is not a directory")
        return
    except OSError as exc:
        yield FactEntry(directory, None, f"cannot list directory: {exc.strerror or exc}")
        return
    real_dir: str | None = None
    for entry in entries:
        name = entry.name
        if not name.endswith(".md") or name == index_md.INDEX_NAME:
            continue
        path = entry.path
        try:
            if entry.is_dir(follow_symlinks=False):
                continue
            if entry.is_symlink():
                real_dir = real_dir or os.path.realpath(directory)
                target = os.path.realpath(path)
                if os.path.dirname(target) != real_dir and not target.startswith(real_dir + os.sep):
                    yield FactEntry(path, None, f"symlink points outside the store ({target}); not loaded")
                    continue
                st = os.stat(path)
            else:
                st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            yield FactEntry(path, None, f"cannot read: {exc.strerror or exc}")
            continue
        if not stat_mod.S_ISREG(st.st_mode):
            yield FactEntry(path, None, "not a regular file")
            continue
        yield FactEntry(path, st)


def read_fact_file(path: str, scope: str, st: os.stat_result | None = None) -> Fact:
    """Read and parse one fact file of a ``scope`` directory (``OSError`` when unreadable)."""
    fd = safeio.open_regular(path)  # never blocks: a FIFO named like a fact is refused
    try:
        if st is None:
            st = os.fstat(fd)
        data = safeio.read_fd(fd)
    finally:
        os.close(fd)
    return parse_fact_bytes(data, path=path, dir_scope=scope, mtime=Timestamp(st.st_mtime_ns))


def read_through(cache: ParseCache | None, path: str, scope: str, st: os.stat_result) -> Fact:
    """One fact file of a ``scope`` directory through that directory's parse cache: the
    cached fact when the cache holds this version of the file (stat key) for this scope,
    else read, parsed and remembered. ``OSError`` when the file cannot be read."""
    name = os.path.basename(path)
    key = stat_key(st)
    fact = cache.get(name, key) if cache is not None else None
    if fact is None or fact.scope != (fact.file_scope or scope):
        fact = read_fact_file(path, scope, st)
        if cache is not None:
            cache.put(name, key, fact)
    return fact


def fact_file_problem(fact: Fact) -> str:
    """What a person should know about a fact file that was read, or ``""``."""
    if fact.parse_error:
        return f"frontmatter could not be parsed: {fact.parse_error}"
    if fact.encoding == "lossy-utf-8":
        return "file is not valid UTF-8/UTF-16/GB18030; shown with replacement characters"
    return ""


def _refuse_unreadable(fact: Fact, op: str) -> None:
    """Side actions (pin, unpin, verify) re-render a fact's file: refuse on one that did
    not parse, so its bytes stay as they are (a re-render would drop what failed to parse)."""
    problem = fact_file_problem(fact)
    if problem:
        raise StoreError(
            f"cannot {op} {fact.path or fact.name}: its {problem}; the file was left as it is. "
            "Fix it in an editor first (in the Context Center: E on its row)"
        )


# --------------------------------------------------------------------------- store


def inherit_fact(
    req: SaveRequest,
    existing: Fact | None,
    *,
    now: Timestamp,
    name: str,
    scope: str,
    parsed: Any,
    clear_expiry: bool,
    new_id: FactId,
) -> Fact:
    """Spec §2.8 steps 6-8: the fact a save writes, given its slugged ``name``.

    On an update (``existing``) an empty scope, activation, volatility, subject key, keyword
    list, expiry, verification time, ``supersedes`` and extra keys are kept from ``existing``,
    and the revision moves on; a new fact gets ``new_id`` and revision 1. The type is
    normalised (never inherited), the body trimmed; a scope still empty comes from a qualified
    reference, else "project". Used by the store's save and by the agent's plan of it.
    """
    activation = normalize_activation(req.activation)
    volatility = normalize_volatility(req.volatility)
    subject = normalize_subject_key(req.subject_key)
    expires = req.expires_at
    verified_at = now if req.verified else req.last_verified_at
    keywords = req.keywords
    supersedes = req.supersedes
    extra = req.extra
    if existing is not None:
        fact_id, revision, created_at = existing.id, existing.revision + 1, existing.created_at or now
        scope = scope or existing.scope
        activation = activation or existing.activation
        volatility = volatility or existing.volatility
        subject = subject or existing.subject_key
        if expires is None and not clear_expiry:
            expires = existing.expires_at
        if verified_at is None:
            verified_at = existing.last_verified_at
        if not trim_space(keywords):
            keywords = existing.keywords
        if supersedes is None:
            supersedes = existing.supersedes
        if extra is None:
            extra = existing.extra
    else:
        fact_id, revision, created_at = new_id, 1, now
    if clear_expiry:
        expires = None
    if not scope:
        scope = parsed.scope if parsed is not None and parsed.qualified else "project"
    scope = normalize_fact_scope(scope)
    return Fact(
        id=fact_id,
        revision=revision,
        created_at=created_at,
        updated_at=now,
        name=name,
        title=req.title,
        description=req.description,
        keywords=keywords,
        activation=activation,
        volatility=volatility,
        subject_key=subject,
        expires_at=expires,
        last_verified_at=verified_at,
        type=normalize_type(req.type),
        scope=scope,
        body=trim_space(req.body),
        file_scope=scope,
        supersedes=tuple(supersedes or ()),
        extra=tuple(extra or ()),
    )


class Store:
    """The Reasonix memory store for one state root and workspace."""

    def __init__(
        self,
        layout: Layout,
        settings: Settings | None = None,
        actor: str = "cli",
        clock: Callable[[], Timestamp] | None = None,
        use_cache: bool = True,
    ) -> None:
        self.layout = layout
        """Paths."""
        self.settings = settings if settings is not None else load_settings(layout.root)
        """Effective settings (pinned budget, ...)."""
        self.actor = actor
        """Default audit actor for mutations made through this store."""
        self.clock = clock or Timestamp.now
        """Time source (tests inject a frozen clock)."""
        self.audit = AuditLog(layout.audit_log, self.clock)
        """The audit log."""
        self._use_cache = use_cache
        self._caches: dict[str, ParseCache] = {}
        self._lock = _root_lock(layout.lock_file)
        self._memo: dict[str, tuple[list[Fact], list[FileError]]] | None = None
        self._mutation_depth = 0

    # ------------------------------------------------------------------ basics

    @property
    def project_dir(self) -> Path:
        """Project fact directory."""
        return self.layout.project_dir

    @property
    def global_dir(self) -> Path:
        """Global fact directory."""
        return self.layout.global_dir

    def dir_for(self, scope: str) -> Path:
        """``DirFor``: the global dir for ``global``, else the project dir."""
        return self.layout.dir_for(normalize_fact_scope(scope))

    def _dirs(self) -> list[tuple[str, Path]]:
        """``dirs()``: global first, then project (when they differ)."""
        if self.global_dir != self.project_dir:
            return [("global", self.global_dir), ("project", self.project_dir)]
        return [("project", self.project_dir)]

    @contextmanager
    def mutation(self) -> Iterator[None]:
        """Hold the in-process and cross-process locks of the state root (reentrant per thread)."""
        with self._lock.hold():
            outermost = self._mutation_depth == 0
            if outermost:
                # Within one locked mutation nobody else can write, so each directory is
                # scanned once and reused until we write ourselves (see _changed).
                self._memo = {}
                # A change whose process died after journaling it is finished (and logged,
                # marked recovered) before anything else is written.
                if journal.replay(self.layout.root, self.audit):
                    self._memo.clear()
            self._mutation_depth += 1
            try:
                yield
            finally:
                self._mutation_depth -= 1
                if outermost:
                    self._memo = None

    def _changed(self) -> None:
        """Forget memoised directory scans after this process wrote something."""
        if self._memo is not None:
            self._memo.clear()

    # ------------------------------------------------------------------ reading

    def _cache_for(self, directory: Path) -> ParseCache | None:
        if not self._use_cache:
            return None
        key = str(directory)
        cache = self._caches.get(key)
        if cache is None:
            cache = ParseCache(self.layout.cache_dir, directory)
            self._caches[key] = cache
        return cache

    def _scan_dir(self, scope: str, directory: Path) -> tuple[list[Fact], list[FileError]]:
        """Active facts of one directory in ``ReadDir`` order, plus unreadable files."""
        memo_key = f"{scope}\0{directory}"
        if self._memo is not None:
            hit = self._memo.get(memo_key)
            if hit is not None:
                return list(hit[0]), list(hit[1])
        result = self._scan_dir_uncached(scope, directory)
        if self._memo is not None:
            self._memo[memo_key] = (list(result[0]), list(result[1]))
        return result

    def _scan_dir_uncached(self, scope: str, directory: Path) -> tuple[list[Fact], list[FileError]]:
        facts: list[Fact] = []
        errors: list[FileError] = []
        cache = self._cache_for(directory)
        seen: set[str] = set()
        for entry in scan_fact_entries(scope, directory):
            if entry.error:
                errors.append(FileError(entry.path, scope, entry.error))
                continue
            assert entry.stat is not None
            seen.add(os.path.basename(entry.path))
            try:
                fact = read_through(cache, entry.path, scope, entry.stat)
            except OSError as exc:
                errors.append(FileError(entry.path, scope, f"cannot read: {exc.strerror or exc}"))
                continue
            facts.append(fact)
            problem = fact_file_problem(fact)
            if problem:
                errors.append(FileError(entry.path, scope, problem))
        if cache is not None:
            cache.retain(seen)
            cache.save()
        return facts, errors

    def list_dir(self, scope: str) -> list[Fact]:
        """Active facts of one scope's directory in ``ReadDir`` order."""
        scope = normalize_fact_scope(scope)
        return self._scan_dir(scope, self.dir_for(scope))[0]

    def _list_all_with_errors(self) -> tuple[list[Fact], list[FileError]]:
        facts: list[Fact] = []
        errors: list[FileError] = []
        for scope, directory in self._dirs():
            fs, es = self._scan_dir(scope, directory)
            facts.extend(fs)
            errors.extend(es)
        facts.sort(key=lambda f: (f.name.encode("utf-8", "surrogatepass"), f.scope, f.id))
        return facts, errors

    def list_all(self) -> list[Fact]:
        """``ListAll``: active facts of both scopes sorted by name, scope, id."""
        return self._list_all_with_errors()[0]

    def snapshot(self) -> Snapshot:
        """An immutable snapshot with the unreadable files."""
        facts, errors = self._list_all_with_errors()
        return Snapshot.build(facts, errors, self.clock())

    def _find_in(self, scope: str, raw: str, name: str) -> Fact | None:
        for fact in self.list_dir(scope):
            if fact.id == raw or slug(fact.name) == name:
                return replace(fact, name=slug(fact.name))
        return None

    def find(self, ref: str) -> Fact | None:
        """``findActive``: qualified refs search one scope; others project then global."""
        parsed = parse_reference(ref)
        if not parsed.raw:
            return None
        if parsed.qualified:
            return self._find_in(parsed.scope, parsed.raw, parsed.name)
        for scope in ("project", "global"):
            if scope == "global" and self.global_dir == self.project_dir:
                break
            found = self._find_in(scope, parsed.raw, parsed.name)
            if found is not None:
                return found
        return None

    def get(self, ref: str) -> Fact:
        """Like :meth:`find` but raises ``memory "<ref>" not found``."""
        fact = self.find(ref)
        if fact is None:
            raise NotFound(f'memory "{ref}" not found')
        return fact

    def find_by_id(self, fact_id: str) -> Fact | None:
        """The active fact with exactly this id (either scope)."""
        for scope in ("project", "global"):
            for fact in self.list_dir(scope):
                if fact.id == fact_id:
                    return replace(fact, name=slug(fact.name))
        return None

    # ------------------------------------------------------------------ audit helpers

    def _audit(self, op: str, ok: bool, actor: str | None, **fields: Any) -> None:
        self.audit.record(op, ok, actor or self.actor, workspace=str(self.layout.workspace), **fields)

    def _entry(self, op: str, ok: bool, actor: str | None, **fields: Any) -> AuditEntry:
        """An audit line to be written as part of a change."""
        return self.audit.entry(op, ok, actor or self.actor, workspace=str(self.layout.workspace), **fields)

    @contextmanager
    def _audited(self, op: str, actor: str | None, **fields: Any) -> Iterator[None]:
        """Log a refusal when the block raises a store error."""
        try:
            yield
        except StoreError as exc:
            if not getattr(exc, "audited", False):
                self._audit(op, False, actor, reason=str(exc), **fields)
                exc.audited = True  # type: ignore[attr-defined]  # a mark on the exception: audited once
            raise

    # ------------------------------------------------------------------ validation

    def pinned_total(self, exclude_id: str = "", exclude_name: str = "") -> int:
        """Rune count of every pinned body (``TrimSpace``), excluding one fact."""
        total = 0
        for fact in self.list_all():
            if not fact.pinned or not trim_space(fact.body):
                continue
            if exclude_id and fact.id == exclude_id:
                continue
            if not exclude_id and exclude_name and fact.name == exclude_name:
                continue
            total += _runes_trimmed(fact.body)
        return total

    @staticmethod
    def _budget_message(total: int, budget: int) -> str:
        return (
            f"pinning this fact would put pinned guidance at {total} chars, over the {budget} budget you "
            "configured (memory.pinned_budget_chars): unpin or consolidate existing pinned facts, raise the "
            "budget, or move rules that must always hold into REASONIX.md/AGENTS.md instructions"
        )

    def _validate(self, fact: Fact) -> None:
        """``validateSave``: pinned budget (only when configured, as current Reasonix), then subject key."""
        budget = self.settings.pinned_ceiling
        if budget > 0 and fact.pinned:
            total = _runes_trimmed(fact.body) + self.pinned_total(exclude_id=fact.id, exclude_name=fact.name)
            if total > budget:
                raise Conflict(self._budget_message(total, budget))
        key = normalize_subject_key(fact.subject_key)
        if key:
            for other in self.list_dir(fact.scope):
                if normalize_subject_key(other.subject_key) != key:
                    continue
                if other.id == fact.id:
                    break
                current = one_line(other.description) or one_line(other.body)
                raise Conflict(
                    f"subject {go_quote(key)} is already tracked by memory id={other.id} "
                    f"revision={other.revision} name={other.name} (current: {current}); if this is the new "
                    "value of the same fact, update that id instead of creating a second one"
                )

    def subject_holder(self, key: str, scope: str) -> Fact | None:
        """The active fact holding a subject key in a scope."""
        key = normalize_subject_key(key)
        if not key:
            return None
        for other in self.list_dir(scope):
            if normalize_subject_key(other.subject_key) == key:
                return other
        return None

    # ------------------------------------------------------------------ revisions on disk

    def _snapshot_revision(self, existing: Fact, tx: journal.Change) -> str | None:
        """Plan the copy of the active file's raw bytes to ``.revisions/<id>/<rev>.md``."""
        if not existing.id or existing.revision < 1 or not existing.path:
            return None
        raw = self._read_checked(existing.path)
        target = os.path.join(os.path.dirname(existing.path), ".revisions", existing.id, f"{existing.revision:09d}.md")
        tx.put(target, raw, 0o644)
        return target

    def _read_checked(self, path: str) -> bytes:
        """A store file's bytes read through the descriptor that was checked (regular file,
        no symlink, no symlinked folder below the root); refusals become store errors."""
        try:
            return safeio.read_confined(path)[0]
        except (safeio.NotRegularFile, safeio.EscapesRoot) as exc:
            raise StoreError(f"refusing to read {path}: {exc}") from None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None

    def _index_step(self, tx: journal.Change, directory: str, scope: str, changes: dict[str, Fact | None]) -> None:
        """Plan ``MEMORY.md`` of ``directory`` with ``changes`` applied (stem → new fact, or
        ``None`` when it leaves), brought in step with the folder's files.

        As Reasonix's ``reindexIn``, every other line (hand-written ones, and managed lines
        for other facts) is kept as it is. Beyond it, the index is repaired from the folder
        on every write: a fact file without a line gets one, and a line for a fact that was
        archived (its file gone, an archive copy present) is dropped.
        """
        try:
            existing = index_md.read_index(directory)
        except OSError as exc:
            raise StoreError(
                f"memory index {os.path.join(directory, index_md.INDEX_NAME)} is unreadable: {exc.strerror or exc}"
            ) from exc
        present: dict[str, Fact] = {}
        for found in self._scan_dir(scope, Path(directory))[0]:
            if not found.parse_error:
                present[found.stem] = found
        lines = index_md.index_lines_except(existing, "")
        for stem, fact in changes.items():
            if fact is None:
                present.pop(stem, None)
                lines.pop(stem, None)
            else:
                present.pop(fact.stem, None)  # migration indexes a file under slug(name), not its stem
                present[stem] = fact
                lines[stem] = index_md.render_index_line(stem, fact)
        for stem, fact in present.items():
            if stem not in lines:
                lines[stem] = index_md.render_index_line(stem, fact)
        orphans = [stem for stem in lines if stem not in present and stem not in changes]
        if orphans:
            gone = _archived_stems(os.path.join(directory, ".archive"))
            for stem in orphans:
                if stem in gone:
                    del lines[stem]
        text = index_md.rewrite_index_text(existing, lines)
        path = os.path.join(directory, index_md.INDEX_NAME)
        exists = os.path.lexists(path)
        if (text == existing and exists) or (not text and not exists):
            return
        tx.put(path, text, 0o644)

    def _commit(self, tx: journal.Change) -> None:
        """Commit a planned change (the directory scans are stale afterwards)."""
        self._changed()
        tx.commit()
        self._changed()

    def _check_index_readable(self, directory: Path) -> None:
        try:
            index_md.read_index(str(directory))
        except OSError as exc:
            raise StoreError(
                f"memory index {os.path.join(directory, index_md.INDEX_NAME)} is unreadable: {exc.strerror or exc}"
            ) from exc

    # ------------------------------------------------------------------ save

    def save(
        self,
        req: SaveRequest,
        *,
        expected_revision: int | None = None,
        require_create: bool = False,
        clear_expiry: bool = False,
        actor: str | None = None,
        op: str | None = None,
    ) -> SaveResult:
        """``SaveWithOptions`` (spec §2.8) plus lock, audit and the superseded-value guard."""
        with self.mutation():
            ref_for_audit = req.name or req.id
            try:
                result, tx = self._save_locked(req, expected_revision, require_create, clear_expiry)
                prev = result.previous
                tx.log(
                    self._entry(
                        op or ("create" if result.created else "update"),
                        True,
                        actor,
                        id=result.fact.id,
                        ref=result.fact.ref,
                        rev_before=prev.revision if prev else None,
                        rev_after=result.fact.revision,
                        path=result.fact.path,
                        detail={"warnings": list(result.warnings)} if result.warnings else {},
                    )
                )
                self._commit(tx)
            except StoreError as exc:
                self._audit(op or "save", False, actor, id=req.id, ref=ref_for_audit, reason=str(exc))
                exc.audited = True  # type: ignore[attr-defined]  # a mark on the exception: audited once
                raise
            written = self._read_path(result.fact.path, result.fact.scope) or result.fact
            return replace(result, fact=written)

    def _save_locked(
        self, req: SaveRequest, expected_revision: int | None, require_create: bool, clear_expiry: bool
    ) -> tuple[SaveResult, journal.Change]:
        """Validate a save and plan its change (nothing is written until it is committed)."""
        now = self.clock()
        req_name = trim_space(req.name)
        req_scope = trim_space(req.scope)
        parsed = parse_reference(req_name) if req_name else None
        # 1. conflicting reference
        if not req.id and parsed is not None and parsed.qualified and req_scope:
            if normalize_fact_scope(req_scope) != parsed.scope:
                raise InvalidInput(
                    f'memory reference scope "{parsed.scope}" conflicts with explicit scope "{req_scope}"'
                )
        # 2. existing
        existing: Fact | None = None
        if req.id:
            existing = self.find(req.id)
            if existing is None:
                raise NotFound(f'memory id "{req.id}" not found')
        elif req_name:
            existing = self.find(req_name)
        # 3. expected revision
        if expected_revision is not None:
            actual = existing.revision if existing else 0
            if actual != expected_revision:
                raise Conflict(f"memory revision conflict: expected {expected_revision}, found {actual}")
        # 4. create-only
        if require_create and existing is not None:
            raise Conflict(f'memory "{existing.name}" already exists; automatic writes are create-only')
        # 5. name
        if not req_name:
            if existing is None:
                raise InvalidInput("memory needs a name")
            name = existing.name
        elif existing is not None and not req.id:
            name = existing.name
        else:
            assert parsed is not None
            name = parsed.name
        name = slug(name)
        if not name:
            raise InvalidInput("memory name needs at least one letter or digit")
        if existing is not None and existing.path and os.path.islink(existing.path):
            raise StoreError(f"refusing to write {existing.path!r} through a symlink")
        # 6-8. identity, inheritance, type/scope
        new_id = FactId(trim_space(req.id)) if req.id or existing is not None else new_memory_id()
        fact = inherit_fact(
            req, existing, now=now, name=name, scope=req_scope, parsed=parsed, clear_expiry=clear_expiry, new_id=new_id
        )
        scope, fact_id = fact.scope, fact.id
        # 9. validation
        self._validate(fact)
        # 10-12. target
        directory = self.dir_for(scope)
        ensure_dir(directory)
        self._check_index_readable(directory)
        for other in self.list_dir(scope):
            if slug(other.name) == name and other.id != fact_id:
                raise Conflict(f'memory name "{name}" is already used by id "{other.id}"')
        path = safe_join(str(directory), name + ".md")
        if os.path.lexists(path) and (existing is None or os.path.abspath(existing.path) != path):
            mode = os.lstat(path).st_mode
            if not stat_mod.S_ISREG(mode):
                raise StoreError(f"refusing to replace {path}: it is a {safeio.kind_of(mode)}, not a regular fact file")
            holder = self._read_path(path, scope)
            if holder is not None and holder.id != fact_id:
                raise Conflict(f'memory file "{name}.md" already holds id "{holder.id}"')
        fact = replace(fact, path=path)
        warnings = self._superseded_value_warnings(existing, fact)
        tx = journal.Change(self.layout.root, self.audit)
        index: dict[str, tuple[str, dict[str, Fact | None]]] = {str(directory): (scope, {name: fact})}
        # 13. snapshot
        if existing is not None:
            self._snapshot_revision(existing, tx)
        # 14. write
        tx.put(path, render_fact(fact), 0o644)
        # 15. move or rename
        if existing is not None and existing.path and os.path.abspath(existing.path) != path:
            old_dir = os.path.dirname(existing.path)
            if os.path.lexists(existing.path):
                tx.remove(existing.path)
            index.setdefault(old_dir, (existing.file_scope or existing.scope, {}))[1][existing.stem] = None
        # 17. single active copy
        archived: list[str] = []
        if not req.id and parsed is not None and not parsed.qualified:
            other_scope = "global" if scope == "project" else "project"
            other_dir = self.dir_for(other_scope)
            if other_dir != directory:
                for other in self.list_dir(other_scope):
                    if slug(other.name) == name and other.id != fact_id:
                        archived_path = self._archive_step(tx, str(other_dir), other.stem)
                        if archived_path:
                            archived.append(archived_path)
                        index.setdefault(str(other_dir), (other_scope, {}))[1][other.stem] = None
                        break
        # 16. index (every folder written to, recomputed from its files)
        for index_dir, (index_scope, changes) in index.items():
            self._index_step(tx, index_dir, index_scope, changes)
        result = SaveResult(
            fact=fact,
            previous=existing,
            created=existing is None,
            warnings=tuple(warnings),
            archived=tuple(archived),
        )
        return result, tx

    def _read_path(self, path: str, scope: str) -> Fact | None:
        try:
            return read_fact_file(path, scope)
        except OSError:
            return None

    def _read_history_file(self, path: str, scope: str) -> Fact | None:
        """A revision or archive file, read through its checked descriptor (a symlink or a
        symlinked folder is skipped: its content never enters the store)."""
        try:
            raw, st = safeio.read_confined(path)
        except OSError:
            return None
        return parse_fact_bytes(raw, path=path, dir_scope=scope, mtime=Timestamp(st.st_mtime_ns))

    def _superseded_value_warnings(self, existing: Fact | None, new: Fact) -> list[str]:
        """Warn when a subject key gets back a value an earlier revision replaced."""
        if existing is None or not new.subject_key:
            return []
        new_value = normalized_phrase(new.body) or normalized_phrase(new.description)
        if not new_value or new_value == (normalized_phrase(existing.body) or normalized_phrase(existing.description)):
            return []
        history = self._revisions_for(existing)
        chain = sorted(history + [existing], key=lambda f: f.revision)
        for i, old in enumerate(chain[:-1]):
            old_value = normalized_phrase(old.body) or normalized_phrase(old.description)
            if old_value != new_value:
                continue
            replacer = chain[i + 1]
            return [
                f"subject {new.subject_key}: this value was replaced in revision {replacer.revision} "
                f"(revision {old.revision} → {replacer.revision}: {one_line(replacer.description) or one_line(replacer.body)[:80]}); "
                "saving it again brings back a superseded answer"
            ]
        return []

    # ------------------------------------------------------------------ revisions / restore

    def _revisions_for(self, active: Fact) -> list[Fact]:
        seen: dict[int, Fact] = {}
        for scope, directory in self._dirs():
            rev_dir = os.path.join(directory, ".revisions", active.id)
            try:
                names = sorted(os.listdir(rev_dir), key=os.fsencode)
            except OSError:
                continue
            for name in names:
                if not name.endswith(".md"):
                    continue
                path = os.path.join(rev_dir, name)
                fact = self._read_history_file(path, scope)
                if fact is None or fact.id != active.id or fact.revision in seen:
                    continue
                seen[fact.revision] = fact
        return sorted(seen.values(), key=lambda f: f.revision, reverse=True)

    def revisions(self, ref: str) -> list[Fact]:
        """Stored prior revisions of the active fact, newest first (spec §1.6)."""
        return self._revisions_for(self.get(ref))

    def restore(self, ref: str, revision: int, actor: str | None = None) -> SaveResult:
        """Restore an old revision as a new one (spec §8.2)."""
        with self.mutation(), self._audited("restore", actor, ref=ref):
            active = self.get(ref)
            if revision == active.revision:
                return SaveResult(
                    fact=active,
                    previous=active,
                    changed=False,
                    message=f"{active.name} is already at revision {revision}; nothing restored",
                )
            old = next((r for r in self._revisions_for(active) if r.revision == revision), None)
            if old is None:
                raise NotFound(f'memory "{active.id}" revision {revision} not found')
            req = SaveRequest.from_fact(old, id=active.id)
            return self.save(req, expected_revision=active.revision, actor=actor, op="restore")

    # ------------------------------------------------------------------ activation / verify

    def set_activation(self, ref: str, activation: str, actor: str | None = None) -> ActivationResult:
        """Pin or unpin (``/memory pin|unpin``)."""
        target = normalize_activation(activation)
        if not target:
            raise InvalidInput("activation must be one of relevant, pinned")
        op = "pin" if target == "pinned" else "unpin"
        with self.mutation(), self._audited(op, actor, ref=ref):
            fact = self.get(ref)
            _refuse_unreadable(fact, op)
            if fact.resolved_activation == target:
                return ActivationResult(fact, False, f"{fact.name} is already {target}")
            result = self.save(
                SaveRequest.from_fact(fact, activation=target),
                expected_revision=fact.revision,
                actor=actor,
                op=op,
            )
            return ActivationResult(
                result.fact,
                True,
                f"{result.fact.name} is now {target} (takes effect in session-context on the next real user turn)",
                result,
            )

    def verify(self, ref: str, actor: str | None = None) -> SaveResult:
        """Stamp ``last_verified_at = now`` (``/memory verify``)."""
        with self.mutation(), self._audited("verify", actor, ref=ref):
            fact = self.get(ref)
            _refuse_unreadable(fact, "verify")
            result = self.save(
                SaveRequest.from_fact(fact, last_verified_at=None, verified=True),
                expected_revision=fact.revision,
                actor=actor,
                op="verify",
            )
            return replace(
                result,
                message=f"{fact.name} verified; freshness clock renewed (revision {fact.revision} -> {result.fact.revision})",
            )

    # ------------------------------------------------------------------ archive (forget)

    def _archive_step(self, tx: journal.Change, directory: str, name: str) -> str:
        """Plan the move of ``<dir>/<name>.md`` to ``.archive/<stamp>-<name>.md`` (one
        rename); ``""`` if absent."""
        src = safe_join(directory, name + ".md")
        if not os.path.lexists(src):
            return ""
        archive_dir = os.path.join(directory, ".archive")
        if os.path.islink(archive_dir):
            raise StoreError(f"refusing to archive into {archive_dir!r}: it is a symlink")
        stamp = format_archive_stamp(self.clock())
        dest = os.path.join(archive_dir, f"{stamp}-{name}.md")
        k = 0
        while os.path.lexists(dest) or any(st.path == dest for st in tx.steps):
            k += 1
            dest = os.path.join(archive_dir, f"{stamp}-{name}-{k}.md")
        tx.move(src, dest)
        return dest

    def archive(self, ref: str, actor: str | None = None) -> ArchiveResult:
        """``Archive`` / ``Delete`` / forget (spec §8.1): never a hard delete."""
        with self.mutation(), self._audited("forget", actor, ref=ref):
            parsed = parse_reference(ref)
            if not parsed.name and not parsed.raw:
                raise InvalidInput("memory needs a name")
            fact = self.find(ref)
            targets: list[tuple[str, str, str]] = []
            if fact is not None and fact.id == trim_space(ref):
                targets = [(fact.file_scope or fact.scope, os.path.dirname(fact.path), fact.stem)]
            elif fact is not None and parsed.qualified:
                targets = [(fact.file_scope or fact.scope, os.path.dirname(fact.path), fact.stem)]
            elif fact is not None:
                targets = [(sc, str(d), slug(fact.name)) for sc, d in self._dirs()]
            elif parsed.qualified:
                targets = [(parsed.scope, str(self.dir_for(parsed.scope)), parsed.name)]
            else:
                if not parsed.name:
                    raise InvalidInput("memory needs a name")
                targets = [(sc, str(d), parsed.name) for sc, d in self._dirs()]
            tx = journal.Change(self.layout.root, self.audit)
            paths: list[str] = []
            for scope, directory, name in targets:
                if not os.path.isdir(directory):
                    continue
                archived = self._archive_step(tx, directory, name)
                if archived:
                    paths.append(archived)
                try:
                    had_line = name in index_md.managed_stems(index_md.read_index(directory))
                except OSError:
                    had_line = False
                if archived or had_line:
                    self._index_step(tx, directory, scope, {name: None})
            last = paths[-1] if paths else ""
            if fact is not None and last:
                message = (
                    f'Forgot memory "{ref}" (it no longer applies and will not load in future sessions; '
                    f"archived from {fact.ref})."
                )
            else:
                message = f'Forgot memory "{ref}" (it no longer applies and will not load in future sessions).'
            fields: dict[str, Any] = {
                "id": fact.id if fact else "",
                "ref": fact.ref if fact else ref,
                "rev_before": fact.revision if fact else None,
                "path": last,
                "reason": "" if paths else ("not found" if fact is None else "nothing to archive"),
                "detail": {"archived": paths},
            }
            if tx:
                tx.log(self._entry("forget", bool(paths), actor, **fields))
                self._commit(tx)
            else:
                self._audit("forget", False, actor, **fields)
            return ArchiveResult(path=last, fact=fact, paths=tuple(paths), message=message)

    def list_archived(self) -> list[ArchivedFact]:
        """Archived facts of both directories, newest first, then name, then path."""
        out: list[ArchivedFact] = []
        for scope, directory in self._dirs():
            archive_dir = os.path.join(directory, ".archive")
            try:
                names = os.listdir(archive_dir)
            except OSError:
                continue
            for name in names:
                if not name.endswith(".md"):
                    continue
                path = os.path.join(archive_dir, name)
                fact = self._read_history_file(path, scope)
                if fact is None:
                    continue
                when = parse_archive_stamp(name)
                if when is None:
                    try:
                        when = Timestamp(os.stat(path).st_mtime_ns)
                    except OSError:
                        when = None
                out.append(ArchivedFact(path=path, fact=fact, archived_at=when, scope=fact.scope))
        out.sort(key=lambda a: (-(a.archived_at.ns if a.archived_at else 0), a.fact.name, a.path))
        return out

    def _max_known_revision(self, fact_id: str) -> int:
        best = 0
        for scope, directory in self._dirs():
            candidates: list[str] = []
            archive_dir = os.path.join(directory, ".archive")
            rev_dir = os.path.join(directory, ".revisions", fact_id)
            for folder in (archive_dir, rev_dir):
                try:
                    candidates.extend(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".md"))
                except OSError:
                    continue
            for path in candidates:
                fact = self._read_history_file(path, scope)
                if fact is not None and fact.id == fact_id:
                    best = max(best, fact.revision)
        return best

    def recover(self, archive_path: str, actor: str | None = None) -> SaveResult:
        """``RestoreArchived`` (spec §8.3): bring an archived fact back as a new revision."""
        with self.mutation(), self._audited("recover", actor, path=str(archive_path)):
            wanted = os.path.normpath(os.path.abspath(os.fspath(archive_path)))
            owner: tuple[str, Path] | None = None
            raw = b""
            for scope, directory in self._dirs():
                archive_dir = os.path.join(os.path.abspath(directory), ".archive")
                if os.path.dirname(wanted) != archive_dir or not wanted.endswith(".md"):
                    continue
                try:
                    # Read through the descriptor that was checked: the archive folder
                    # without following a symlink, the file O_NOFOLLOW and regular.
                    raw, st = safeio.read_confined(wanted)
                except OSError:
                    continue
                owner = (scope, directory)
                break
            if owner is None:
                raise NotFound("archived memory not found")
            scope, directory = owner
            archived = parse_fact_bytes(raw, path=wanted, dir_scope=scope, mtime=Timestamp(st.st_mtime_ns))
            name = slug(archived.name)
            if not name:
                raise InvalidInput("memory name needs at least one letter or digit")
            active = self.find_by_id(archived.id)
            if active is not None:
                raise Conflict(f'memory id "{archived.id}" is already active as "{active.name}"')
            for other_scope in ("project", "global"):
                for other in self.list_dir(other_scope):
                    if slug(other.name) == name:
                        raise Conflict(f'memory name "{name}" is already active as id "{other.id}"')
            now = self.clock()
            revision = max(self._max_known_revision(archived.id) + 1, archived.revision + 1)
            fact = replace(
                archived,
                name=name,
                scope=scope,
                file_scope=scope,
                revision=revision,
                created_at=archived.created_at or now,
                updated_at=now,
            )
            self._validate(fact)
            self._check_index_readable(directory)
            target = safe_join(str(directory), name + ".md")
            if os.path.lexists(target):
                raise Conflict(f'memory name "{name}" is already active')
            fact = replace(fact, path=target)
            # Snapshot the archived bytes, rewrite the archive file as the new revision, then
            # one rename makes it active: never active and archived at once.
            tx = journal.Change(self.layout.root, self.audit)
            tx.put(os.path.join(directory, ".revisions", archived.id, f"{archived.revision:09d}.md"), raw, 0o644)
            tx.put(wanted, render_fact(fact), 0o644)
            tx.move(wanted, target)
            self._index_step(tx, str(directory), scope, {name: fact})
            tx.log(
                self._entry(
                    "recover",
                    True,
                    actor,
                    id=fact.id,
                    ref=fact.ref,
                    rev_before=archived.revision,
                    rev_after=fact.revision,
                    path=target,
                    detail={"archive_path": wanted},
                )
            )
            self._commit(tx)
            written = self._read_path(target, scope) or fact
            return SaveResult(
                fact=written,
                previous=None,
                created=True,
                message=f"recovered {written.name} as revision={written.revision} id={written.id} scope={written.scope}",
            )

    # ------------------------------------------------------------------ derived views

    def subjects(self) -> list[tuple[str, Fact]]:
        """Subject keys in use: ``(key, fact)`` sorted by key (then scope)."""
        rows = [(f.subject_key, f) for f in self.list_all() if f.subject_key]
        rows.sort(key=lambda r: (r[0], r[1].scope, r[1].name))
        return rows

    def pinned_guidance(self, facts: list[Fact] | None = None) -> list[Fact]:
        """Pinned facts with bodies, global ones suppressed by a project fact (spec §6.6)."""
        return list(
            pinned_guidance(
                self.list_all() if facts is None else facts, resolved=self.settings.recall_mode != "reasonix-exact"
            ).facts
        )

    def overrides(self, facts: list[Fact] | None = None) -> list[Override]:
        """``FindOverrides``: project facts shadowing global ones, with the shared key."""
        return find_overrides(self.list_all() if facts is None else facts)

    # ------------------------------------------------------------------ migration

    def migrate(self, app_version: str = "", actor: str | None = None) -> MigrationResult:
        """``MigrateV2`` (spec §9.1), with fork K's create-once backup of every original."""
        from ... import __version__

        version = app_version or __version__
        migrated: list[str] = []
        backups: list[str] = []
        with self.mutation(), self._audited("migrate", actor):
            for scope, directory in self._dirs():
                if not os.path.exists(directory):
                    continue
                if not os.path.isdir(directory):
                    raise StoreError(f"memory store path {directory} is not a directory")
                self._check_index_readable(directory)
                for entry in sorted(os.scandir(directory), key=lambda e: os.fsencode(e.name)):
                    name = entry.name
                    if not name.endswith(".md") or name == index_md.INDEX_NAME:
                        continue
                    if entry.is_dir(follow_symlinks=False) or entry.is_symlink():
                        continue
                    path = os.path.join(directory, name)
                    try:
                        raw, st = safeio.read_confined(path)
                    except OSError:
                        continue  # a FIFO, a device or unreadable: not a fact file to migrate
                    if _already_migrated(raw):
                        continue
                    backup = self._backup_original(str(directory), name, raw, version)
                    if backup:
                        backups.append(backup)
                    fact = parse_fact_bytes(raw, path=path, dir_scope=scope, mtime=Timestamp(st.st_mtime_ns))
                    fact = replace(fact, name=slug(fact.name) or fact.name, scope=fact.file_scope or scope)
                    tx = journal.Change(self.layout.root, self.audit)
                    tx.put(path, render_fact(fact), 0o644)
                    # ``reindexIn(dir, slug(name))``: the line names the slug even when the file keeps its stem.
                    self._index_step(tx, str(directory), scope, {fact.name: fact})
                    tx.log(
                        self._entry(
                            "migrate",
                            True,
                            actor,
                            id=fact.id,
                            ref=fact.ref,
                            rev_after=fact.revision,
                            path=path,
                            detail={"backup": backup},
                        )
                    )
                    self._commit(tx)
                    migrated.append(path)
        return MigrationResult(migrated=len(migrated), paths=tuple(migrated), backups=tuple(backups))

    def _backup_original(self, directory: str, name: str, raw: bytes, version: str) -> str:
        backup_dir = os.path.join(directory, ".migration-backup")
        ensure_dir(backup_dir)
        target = os.path.join(backup_dir, name)
        k = 0
        while True:
            try:
                atomic_create(target, raw, 0o600)
                break
            except FileExistsError:
                if self._read_checked(target) == raw:
                    break
                k += 1
                target = os.path.join(backup_dir, f"{name}.{k}")
        manifest = os.path.join(backup_dir, "manifest.json")
        import json

        try:
            atomic_create(
                manifest,
                json.dumps({"migrated_at": self.clock().rfc3339(), "app_version": version or "dev"}, indent=2) + "\n",
                0o600,
            )
        except FileExistsError:
            pass
        return target


def _archived_stems(archive_dir: str) -> set[str]:
    """Names of facts with an archive copy (``<stamp>-<name>[-<k>].md``)."""
    out: set[str] = set()
    try:
        names = os.listdir(archive_dir)
    except OSError:
        return out
    for name in names:
        if not name.endswith(".md"):
            continue
        if parse_archive_stamp(name) is None:
            continue
        rest = name[20:-3]
        out.add(rest)
        base, dash, k = rest.rpartition("-")
        if dash and k.isdigit():
            out.add(base)
    return out


def _already_migrated(raw: bytes) -> bool:
    """The skip check of §9.1 on the raw (not charset-decoded) bytes."""
    text = raw.decode("utf-8", errors="replace")
    yaml_text, _ = split_frontmatter(text)
    if yaml_text is None:
        return False
    flat, err = flatten_yaml(yaml_text)
    if err:
        return False
    if not trim_space(flat.get("id", "")):
        return False
    rev = trim_space(flat.get("revision", ""))
    return rev.isdigit() and rev.isascii() and int(rev) >= 1

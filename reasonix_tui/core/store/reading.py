"""Reading the store (spec §1): its directories, the locked mutation, scans and lookups.

:class:`StoreReader` is the base of :class:`~.store.Store`. Reads follow Reasonix exactly
(directory scan order, lookup rules, legacy ids) and never rewrite a file; each directory's
scan goes through its parse cache and, within one locked mutation, is scanned once until
the store writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from operator import attrgetter
from pathlib import Path

from ..compat.gotime import Timestamp
from ..paths import Layout
from ..settings import Settings, load_settings
from . import journal, safeio
from .audit import AuditLog
from .cache import ParseCache
from .fileformat import parse_fact_bytes
from .locks import root_lock
from .model import (
    Fact,
    NotFound,
    normalize_fact_scope,
    parse_reference,
    slug,
)
from .precedence import Override, find_overrides, pinned_guidance
from .results import FileError, Snapshot
from .scan import read_dir_through, read_fact_file
from .sealed import collector_paused

__all__ = ["StoreReader"]

_LIST_ALL_ORDER = attrgetter("name", "scope", "id")
_BY_NAME = attrgetter("name")


class StoreReader:
    """The reading side of :class:`~.store.Store` for one state root and workspace."""

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
        self._lock = root_lock(layout.lock_file)
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
        cache = self._cache_for(directory)
        with collector_paused(long_lived=True):  # thousands of facts made in one go
            facts, problems, seen = read_dir_through(cache, scope, directory)
        errors = [FileError(path, scope, message) for path, message in problems]
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
        with collector_paused(long_lived=True):
            for scope, directory in self._dirs():
                fs, es = self._scan_dir(scope, directory)
                facts.extend(fs)
                errors.extend(es)
            # By name (as UTF-8 bytes: code-point order is the same order), scope, id.
            facts.sort(key=_BY_NAME)
            if len(set(map(_BY_NAME, facts))) != len(facts):  # a name twice: then scope, id
                facts.sort(key=_LIST_ALL_ORDER)
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

    def _history_files(self, folder: str, scope: str) -> Iterator[Fact]:
        """Every readable ``*.md`` revision or archive file of ``folder`` (see
        :meth:`_read_history_file`), in byte order of the names; none when it cannot be listed."""
        try:
            names = sorted(os.listdir(folder), key=os.fsencode)
        except OSError:
            return
        for name in names:
            if name.endswith(".md"):
                fact = self._read_history_file(os.path.join(folder, name), scope)
                if fact is not None:
                    yield fact

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

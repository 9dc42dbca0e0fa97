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

:class:`Store` is built in layers, one module each: :class:`~.reading.StoreReader` (scans,
lookups, the lock), :class:`~.writing.StoreWriter` (planning and committing a change; save,
restore, pin, verify) and, here, forgetting, recovering from the archive and migration.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..compat.gostr import trim_space
from ..compat.gotime import Timestamp, parse_archive_stamp
from . import index_md, journal, safeio
from .atomic import atomic_create, ensure_dir
from .fileformat import flatten_yaml, parse_fact_bytes, render_fact, split_frontmatter
from .model import (
    Conflict,
    InvalidInput,
    NotFound,
    StoreError,
    parse_reference,
    slug,
)
from .results import ArchivedFact, ArchiveResult, MigrationResult, SaveResult
from .writing import StoreWriter, safe_join

__all__ = ["Store"]


class Store(StoreWriter):
    """The Reasonix memory store for one state root and workspace."""

    # ------------------------------------------------------------------ archive (forget)

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
            for fact in self._history_files(os.path.join(directory, ".archive"), scope):
                when = parse_archive_stamp(os.path.basename(fact.path))
                if when is None:
                    try:
                        when = Timestamp(os.stat(fact.path).st_mtime_ns)
                    except OSError:
                        when = None
                out.append(ArchivedFact(path=fact.path, fact=fact, archived_at=when, scope=fact.scope))
        out.sort(key=lambda a: (-(a.archived_at.ns if a.archived_at else 0), a.fact.name, a.path))
        return out

    def _max_known_revision(self, fact_id: str) -> int:
        best = 0
        for scope, directory in self._dirs():
            for folder in (os.path.join(directory, ".archive"), os.path.join(directory, ".revisions", fact_id)):
                for fact in self._history_files(folder, scope):
                    if fact.id == fact_id:
                        best = max(best, fact.revision)
        return best

    # ------------------------------------------------------------------ recover

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

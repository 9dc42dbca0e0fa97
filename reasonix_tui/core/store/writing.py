"""Writing the store (spec §2.8, §8.1-§8.2): a change is validated, planned as a
:class:`~.journal.Change` (revision snapshot, the file, archive moves, ``MEMORY.md``) and
committed with its audit line under the store's lock.

:class:`StoreWriter` adds save, restore, pin/unpin and verify to
:class:`~.reading.StoreReader`; :class:`~.store.Store` builds on it.
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..compat.gostr import go_quote, one_line, trim_space
from ..compat.gotime import format_archive_stamp, parse_archive_stamp
from . import index_md, journal, safeio
from .atomic import ensure_dir
from .audit import AuditEntry
from .fileformat import render_fact
from .model import (
    Conflict,
    Fact,
    FactId,
    InvalidInput,
    NotFound,
    Reference,
    StoreError,
    new_memory_id,
    normalize_activation,
    normalize_fact_scope,
    normalize_subject_key,
    normalized_phrase,
    parse_reference,
    slug,
)
from .reading import StoreReader
from .requests import SaveRequest, inherit_fact, save_name
from .results import ActivationResult, SaveResult
from .scan import fact_file_problem

__all__ = ["StoreWriter", "safe_join"]


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


def _refuse_unreadable(fact: Fact, op: str) -> None:
    """Side actions (pin, unpin, verify) re-render a fact's file: refuse on one that did
    not parse, so its bytes stay as they are (a re-render would drop what failed to parse)."""
    problem = fact_file_problem(fact)
    if problem:
        raise StoreError(
            f"cannot {op} {fact.path or fact.name}: its {problem}; the file was left as it is. "
            "Fix it in an editor first (in the Context Center: E on its row)"
        )


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


class StoreWriter(StoreReader):
    """The writing side of :class:`~.store.Store`: validation, planned steps, save and its variants."""

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
        existing = self._existing_for_save(req, parsed, req_scope, expected_revision, require_create)
        # 5. name
        if not req_name and existing is None:
            raise InvalidInput("memory needs a name")
        name = slug(save_name(req, parsed, existing))
        if not name:
            raise InvalidInput("memory name needs at least one letter or digit")
        if existing is not None and existing.path and os.path.islink(existing.path):
            raise StoreError(f"refusing to write {existing.path!r} through a symlink")
        # 6-8. identity, inheritance, type/scope
        new_id = FactId(trim_space(req.id)) if req.id or existing is not None else new_memory_id()
        fact = inherit_fact(req, existing, now=now, name=name, parsed=parsed, clear_expiry=clear_expiry, new_id=new_id)
        scope, fact_id = fact.scope, fact.id
        # 9. validation
        self._validate(fact)
        # 10-12. target
        directory = self.dir_for(scope)
        path = self._save_target_path(directory, scope, name, fact_id, existing)
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
            archived = self._archive_other_copy(tx, index, fact, directory)
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

    def _existing_for_save(
        self,
        req: SaveRequest,
        parsed: Reference | None,
        req_scope: str,
        expected_revision: int | None,
        require_create: bool,
    ) -> Fact | None:
        """Spec §2.8 steps 1-4: the active fact a save replaces (``None``: it creates one),
        refusing a reference whose scope conflicts, an unknown id, a revision conflict and an
        update of a create-only save."""
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
        elif trim_space(req.name):
            existing = self.find(trim_space(req.name))
        # 3. expected revision
        if expected_revision is not None:
            actual = existing.revision if existing else 0
            if actual != expected_revision:
                raise Conflict(f"memory revision conflict: expected {expected_revision}, found {actual}")
        # 4. create-only
        if require_create and existing is not None:
            raise Conflict(f'memory "{existing.name}" already exists; automatic writes are create-only')
        return existing

    def _save_target_path(self, directory: Path, scope: str, name: str, fact_id: str, existing: Fact | None) -> str:
        """Spec §2.8 steps 10-12: the file a save writes (``<dir>/<name>.md``), refusing a name
        another fact uses, a file held by another id and anything but a regular file."""
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
        return path

    def _archive_other_copy(
        self, tx: journal.Change, index: dict[str, tuple[str, dict[str, Fact | None]]], fact: Fact, directory: Path
    ) -> list[str]:
        """Spec §2.8 step 17 (an unqualified name): plan the archive of a fact of the same name
        in the other scope's directory, so one copy stays active; its index line leaves."""
        other_scope = "global" if fact.scope == "project" else "project"
        other_dir = self.dir_for(other_scope)
        if other_dir == directory:
            return []
        archived: list[str] = []
        for other in self.list_dir(other_scope):
            if slug(other.name) == fact.name and other.id != fact.id:
                archived_path = self._archive_step(tx, str(other_dir), other.stem)
                if archived_path:
                    archived.append(archived_path)
                index.setdefault(str(other_dir), (other_scope, {}))[1][other.stem] = None
                break
        return archived

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
            for fact in self._history_files(os.path.join(directory, ".revisions", active.id), scope):
                if fact.id == active.id and fact.revision not in seen:
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

    # ------------------------------------------------------------------ archive step

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

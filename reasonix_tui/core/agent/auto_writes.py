"""Automatic writes: low-risk agent writes that landed unasked are recorded under
``<root>/approvals/auto/`` so the Context Center can announce them and offer undo.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..compat.gotime import parse_rfc3339
from ..paths import Layout
from ..store import safeio
from ..store.atomic import ensure_dir
from ..store.model import Fact
from . import stamps
from .proposals import ApprovalError, AutoWrite, Requester
from .queue_files import QueueFiles, read_json, same_root, write_json

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["AutoWriteLog"]


class AutoWriteLog(QueueFiles):
    """The queue's record of automatic writes (see :class:`~.approvals.ApprovalQueue`)."""

    def record_auto_write(
        self, fact: Fact, requester: Requester | None = None, layout: Layout | None = None, previous_revision: int = 0
    ) -> AutoWrite:
        """Note a low-risk write that landed unasked, so the Context Center can offer undo
        (``previous_revision``: the revision an automatic update replaced)."""
        lay = layout or self.layout
        rec = AutoWrite(
            id=stamps.new_id("a"),
            fact_id=fact.id,
            ref=fact.ref,
            revision=fact.revision,
            name=fact.name,
            description=fact.description,
            created_at=stamps.now(),
            requester=requester or Requester.current(),
            workspace=str(lay.workspace),
            state_root=str(lay.root),
            previous_revision=previous_revision,
        )
        ensure_dir(self.auto_dir, 0o700)
        path = self.auto_dir / f"{rec.id}.json"
        write_json(path, rec.to_dict())
        return replace(rec, path=str(path))

    def auto_writes(self) -> list[AutoWrite]:
        """Auto writes not yet dismissed or undone, oldest first."""
        try:
            paths = list(self.auto_dir.glob("*.json"))
        except OSError:
            return []
        out = [rec for rec in map(_read_auto_write, paths) if rec is not None]
        out.sort(key=lambda r: (r.created_at, r.id))
        return out

    def latest_auto_write(self, scan: int = 16) -> AutoWrite | None:
        """The newest auto write, announced (``auto/seen/``) or not, undone or not.

        Record ids start with their UTC second, so only the ``scan`` newest file names of
        each folder are read: the answer stays cheap however many records ``seen/`` holds.
        Whether the fact is still at the written revision is the caller's to check.
        """
        best: AutoWrite | None = None
        for directory in (self.auto_dir, self.auto_dir / "seen"):
            try:
                names = sorted((p.name for p in directory.glob("*.json")), reverse=True)[:scan]
            except OSError:
                continue
            for name in names:
                rec = _read_auto_write(directory / name)
                if rec is not None and (best is None or _auto_key(rec) > _auto_key(best)):
                    best = rec
        return best

    def dismiss_auto_write(self, record: AutoWrite | str) -> None:
        """Mark an auto-write notice as seen (moves it to ``auto/seen/``)."""
        rid = self._checked(record if isinstance(record, str) else record.id)
        seen = self.auto_dir / "seen"
        ensure_dir(seen, 0o700)
        try:
            safeio.rename(self.auto_dir / f"{rid}.json", seen / f"{rid}.json")
        except FileNotFoundError:
            pass

    def undo_auto_write(self, record: AutoWrite, store: Store | None = None, actor: str = "context-center") -> Any:
        """Undo an automatic write while the fact is still the revision that was written:
        a new fact is archived; an update brings the replaced revision back (as a new one)."""
        from ..store.model import Conflict, NotFound
        from ..store.store import Store

        if not same_root(record.state_root or self.layout.root, self.layout.root):
            raise ApprovalError("the auto-write belongs to another state root")
        layout = Layout(root=self.layout.root, workspace=Path(record.workspace or self.layout.workspace))
        st = store if store is not None and store.layout.workspace == layout.workspace else Store(layout, actor=actor)
        fact = st.find_by_id(record.fact_id)
        if fact is None:
            self.dismiss_auto_write(record)
            raise NotFound(f'memory "{record.ref}" is no longer active; nothing to undo')
        if fact.revision != record.revision:
            raise Conflict(
                f"memory revision conflict: expected {record.revision}, found {fact.revision} "
                f'(memory "{fact.ref}" changed after the automatic write; undo would discard that change)'
            )
        if record.is_update:
            res: Any = st.restore(fact.id, record.previous_revision, actor=actor)
        else:
            res = st.archive(fact.id, actor=actor)
        self.dismiss_auto_write(record)
        return res


def _read_auto_write(path: Path) -> AutoWrite | None:
    """An auto-write record file, or ``None`` when it is unreadable or not one."""
    data = read_json(path)
    if data is None:
        return None
    try:
        return AutoWrite.from_dict(data, str(path))
    except ValueError:
        return None


def _auto_key(record: AutoWrite) -> tuple[int, str]:
    """Order of auto writes: their time (parsed: RFC 3339 text with trimmed fractions does
    not sort as text), then id."""
    ts = parse_rfc3339(record.created_at)
    return (ts.ns if ts is not None else 0, record.id)

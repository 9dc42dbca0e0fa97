"""The append-only audit log: every store mutation and every refused one.

One JSON object per line in ``<root>/reasonix-tui/audit.jsonl``::

    {"at": "2026-…Z", "op": "update", "ok": true, "actor": "context-center",
     "id": "mem-…", "ref": "project/x.md", "rev_before": 2, "rev_after": 3,
     "reason": "", "path": "/…/x.md", "workspace": "/…", "pid": 123, "detail": {…}}

Actors: ``cli`` (a person on the command line), ``context-center`` (a person in the
TUI), ``agent-auto`` (a low-risk agent write applied without asking),
``agent-approved`` (an agent write a person approved). Refusals carry ``ok: false``
and the reason. Lines are written with one ``write`` on an ``O_APPEND`` descriptor,
so concurrent writers never interleave within a line. The file is private (0600, an
existing one is tightened), opened without following a symlink and never blocks on a FIFO.

A store mutation writes its line as part of the change (:mod:`.journal`): a change that
landed but whose process died before logging gets its line from the next writer, with
``detail.recovered`` set; ``detail.txn`` ties a line to its change.
"""

from __future__ import annotations

import io
import json
import os
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..compat.gotime import Timestamp
from . import safeio

__all__ = ["ACTORS", "AuditEntry", "AuditLog"]

ACTORS = ("cli", "context-center", "agent-auto", "agent-approved")


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One line of the audit log."""

    at: str
    """RFC3339 UTC time."""
    op: str
    """``create``, ``update``, ``forget``, ``restore``, ``recover``, ``pin``, ``unpin``, ``verify``, ``migrate``, …"""
    ok: bool
    """False for a refused mutation."""
    actor: str
    """Who asked for it."""
    id: str = ""
    ref: str = ""
    rev_before: int | None = None
    rev_after: int | None = None
    reason: str = ""
    """Why it was refused (or a note)."""
    path: str = ""
    workspace: str = ""
    pid: int = 0
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The JSON line (without newline)."""
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AuditEntry:
        """Tolerant reader: unknown keys ignored, missing ones defaulted."""
        return cls(
            at=str(data.get("at", "")),
            op=str(data.get("op", "")),
            ok=bool(data.get("ok", False)),
            actor=str(data.get("actor", "")),
            id=str(data.get("id", "") or ""),
            ref=str(data.get("ref", "") or ""),
            rev_before=data.get("rev_before") if isinstance(data.get("rev_before"), int) else None,
            rev_after=data.get("rev_after") if isinstance(data.get("rev_after"), int) else None,
            reason=str(data.get("reason", "") or ""),
            path=str(data.get("path", "") or ""),
            workspace=str(data.get("workspace", "") or ""),
            pid=int(data.get("pid", 0) or 0) if isinstance(data.get("pid", 0), int) else 0,
            detail=dict(data["detail"]) if isinstance(data.get("detail"), dict) else {},
        )


class AuditLog:
    """Appends to and reads the audit log file."""

    def __init__(self, path: Path, clock: Callable[[], Timestamp] = Timestamp.now) -> None:
        self.path = path
        """The JSON-lines file."""
        self.clock = clock
        """Time source for new entries (the store passes its own, so tests and demos agree)."""

    def append(self, entry: AuditEntry) -> None:
        """Append one entry (a failure to log a refusal never breaks anything)."""
        try:
            self.append_strict(entry)
        except OSError:
            pass

    def append_strict(self, entry: AuditEntry) -> None:
        """Append one entry; ``OSError`` when it cannot be written (a change is then undone)."""
        line = (entry.to_json() + "\n").encode("utf-8", "backslashreplace")  # a lone surrogate stays a JSON escape
        safeio.append_bytes(self.path, line, 0o600)

    def entry(self, op: str, ok: bool, actor: str, **fields: Any) -> AuditEntry:
        """An entry stamped now (not written)."""
        return AuditEntry(at=self.clock().rfc3339(), op=op, ok=ok, actor=actor, pid=os.getpid(), **fields)

    def tail_mentions(self, token: str, window: int = 1 << 18) -> bool:
        """True when ``token`` occurs in the last ``window`` bytes of the log."""
        try:
            with safeio.open_read(self.path) as fh:
                size = os.fstat(fh.fileno()).st_size
                fh.seek(max(size - window, 0))
                return token.encode("utf-8") in fh.read()
        except OSError:
            return False

    def record(self, op: str, ok: bool, actor: str, **fields: Any) -> AuditEntry:
        """Build and append an entry stamped now."""
        entry = self.entry(op, ok, actor, **fields)
        self.append(entry)
        return entry

    def read(self, limit: int | None = None) -> list[AuditEntry]:
        """Entries newest first (malformed lines skipped)."""
        try:
            fh = io.TextIOWrapper(safeio.open_read(self.path), encoding="utf-8", errors="replace")
        except OSError:
            return []
        with fh:
            lines: deque[str] | list[str] = deque(fh, maxlen=limit) if limit else fh.readlines()
        out: list[AuditEntry] = []
        for line in reversed(list(lines)):
            line = line.strip()
            if not line:
                continue
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                out.append(AuditEntry.from_dict(data))
        return out

"""The append-only audit log: every store mutation and every refused one.

One JSON object per line in ``<root>/reasonix-tui/audit.jsonl``::

    {"at": "2026-…Z", "op": "update", "ok": true, "actor": "context-center",
     "id": "mem-…", "ref": "project/x.md", "rev_before": 2, "rev_after": 3,
     "reason": "", "path": "/…/x.md", "workspace": "/…", "pid": 123, "detail": {…}}

Actors: ``cli`` (a person on the command line), ``context-center`` (a person in the
TUI), ``agent-auto`` (a low-risk agent write applied without asking),
``agent-approved`` (an agent write a person approved). Refusals carry ``ok: false``
and the reason. Lines are written with one ``write`` on an ``O_APPEND`` descriptor,
so concurrent writers never interleave within a line.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..gotime import Timestamp

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
        """Append one entry (a failure to log never breaks the mutation itself)."""
        line = (entry.to_json() + "\n").encode("utf-8")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError:
            pass

    def record(self, op: str, ok: bool, actor: str, **fields: Any) -> AuditEntry:
        """Build and append an entry stamped now."""
        entry = AuditEntry(at=self.clock().rfc3339(), op=op, ok=ok, actor=actor, pid=os.getpid(), **fields)
        self.append(entry)
        return entry

    def read(self, limit: int | None = None) -> list[AuditEntry]:
        """Entries newest first (malformed lines skipped)."""
        try:
            fh = open(self.path, encoding="utf-8", errors="replace")
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

"""Dismissed findings, kept in the state root (``<root>/reasonix-tui/health.json``, 0600).

A dismissal is kept by :attr:`~.model.Finding.fingerprint`, which includes the revisions
of the facts involved: a dismissed finding stays hidden while those revisions stand and
comes back when one of them changes. Read-modify-write holds a lock, so two processes
dismissing at once both land.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..compat.gotime import Timestamp
from ..paths import Layout
from ..store import locks, safeio
from .model import Finding

__all__ = ["Dismissals", "state_path"]


def state_path(layout: Layout) -> Path:
    """``<root>/reasonix-tui/health.json``."""
    return layout.tui_dir / "health.json"


class Dismissals:
    """The dismissed fingerprints of one state root."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        """Where the file lives."""
        self.path = state_path(layout)
        """The state file."""

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(safeio.read_regular(self.path))
        except (OSError, ValueError):
            return {}
        entries = data.get("dismissed") if isinstance(data, dict) else None
        return {str(k): v for k, v in entries.items() if isinstance(v, dict)} if isinstance(entries, dict) else {}

    def _write(self, entries: dict[str, Any]) -> None:
        payload = json.dumps({"version": 1, "dismissed": entries}, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        safeio.write_atomic(self.path, payload.encode("utf-8"), 0o600, durable=True)

    def _locked(self) -> Any:
        safeio.make_dirs(self.layout.tui_dir)
        return locks.hold_lock(self.layout.tui_dir / "health.lock", timeout=10)

    def fingerprints(self) -> frozenset[str]:
        """Every dismissed fingerprint (an unreadable or missing file holds none)."""
        return frozenset(self._read())

    def entries(self) -> dict[str, dict[str, Any]]:
        """Fingerprint → ``{"at", "kind", "title", "key"}``."""
        return self._read()

    def dismiss(self, finding: Finding, now: Timestamp | None = None) -> bool:
        """Dismiss ``finding`` for good (for its current revisions); False when it already was."""
        with self._locked():
            entries = self._read()
            if finding.fingerprint in entries:
                return False
            entries[finding.fingerprint] = {
                "at": (now or Timestamp.now()).rfc3339(),
                "kind": finding.kind,
                "title": finding.title,
                "key": finding.key,
            }
            self._write(entries)
        return True

    def restore(self, fingerprint: str) -> bool:
        """Undo a dismissal; False when ``fingerprint`` was not dismissed."""
        with self._locked():
            entries = self._read()
            if fingerprint not in entries:
                return False
            del entries[fingerprint]
            self._write(entries)
        return True

"""Presence: an open Context Center tells agents it is there with a marker file under
``<root>/approvals/presence/`` refreshed every few seconds; agents read the live ones.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from pathlib import Path

from ..compat.gotime import Timestamp, parse_rfc3339
from ..paths import Layout
from ..store import safeio
from ..store.atomic import ensure_dir
from ..store.tempfiles import pid_alive as _pid_alive
from . import stamps
from .proposals import FORMAT_VERSION, HEARTBEAT_SECONDS, STALE_SECONDS, PresenceInfo, as_int, as_str
from .queue_files import read_json, write_json

__all__ = ["PresenceMarker", "open_context_centers"]


class PresenceMarker:
    """Tells agents a Context Center is open: a file refreshed every few seconds.

    Use ``start()`` / ``beat()`` / ``stop()`` (the TUI calls ``beat`` from a timer), or
    ``start(background=True)`` to let a daemon thread beat, or use it as a context manager.
    """

    def __init__(self, layout: Layout, *, interval: float = HEARTBEAT_SECONDS) -> None:
        self.layout = layout
        self.interval = interval
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.path = layout.approvals_dir / "presence" / f"{_safe_host(self.host)}-{self.pid}.json"
        self.started_at = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, background: bool = False) -> PresenceMarker:
        """Write the marker (and optionally beat from a daemon thread)."""
        self.started_at = stamps.now()
        self.beat()
        if background and self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="reasonix-tui-presence", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.beat()

    def beat(self) -> None:
        """Refresh the heartbeat (never raises)."""
        data = {
            "version": FORMAT_VERSION,
            "pid": self.pid,
            "host": self.host,
            "started_at": self.started_at or stamps.now(),
            "heartbeat_at": stamps.now(),
            "workspace": str(self.layout.workspace),
        }
        try:
            ensure_dir(self.path.parent, 0o700)
            write_json(self.path, data)
        except OSError:
            pass

    def stop(self) -> None:
        """Remove the marker and stop the heartbeat thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        try:
            safeio.remove(self.path)
        except OSError:
            pass

    def __enter__(self) -> PresenceMarker:
        return self.start(background=True)

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _safe_host(host: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", host)[:64] or "host"


def open_context_centers(presence_dir: Path, stale_after: float = STALE_SECONDS) -> list[PresenceInfo]:
    """Open Context Centers: live pid (same host) and a fresh heartbeat; dead ones are cleaned up."""
    out: list[PresenceInfo] = []
    try:
        entries = sorted(presence_dir.glob("*.json"))
    except OSError:
        return out
    now_ns = Timestamp.now().ns
    host = socket.gethostname()
    for path in entries:
        data = read_json(path)
        if data is None:
            continue
        pid = as_int(data.get("pid"))
        marker_host = as_str(data.get("host"))
        beat = parse_rfc3339(as_str(data.get("heartbeat_at")))
        if marker_host == host and not _pid_alive(pid):
            try:
                safeio.remove(path)
            except OSError:
                pass
            continue
        if beat is None or (now_ns - beat.ns) > stale_after * 1e9:
            continue
        out.append(
            PresenceInfo(
                pid,
                marker_host,
                as_str(data.get("started_at")),
                as_str(data.get("heartbeat_at")),
                as_str(data.get("workspace")),
                str(path),
            )
        )
    return out

"""The hooks' log, ``<root>/reasonix-tui/hooks.log`` (errors never go to stdout)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.paths import Layout


def utc_now() -> str:
    """Now in UTC to the second (``2025-01-02T03:04:05Z``), for log lines and session state."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def append_log(layout: Layout | None, message: str) -> None:
    """Append one line to ``hooks.log`` (rotated to ``hooks.log.1`` past 1 MB). Never raises
    for a file error; without a layout there is nowhere to write."""
    if layout is None:
        return
    try:
        from ..core.store import safeio

        log = layout.tui_dir / "hooks.log"
        line = f"{utc_now()} {message.rstrip()}\n".encode("utf-8", "backslashreplace")
        if safeio.append_bytes(log, line, 0o600) > 1_000_000:
            safeio.rename(log, log.with_name("hooks.log.1"))
    except OSError:
        pass

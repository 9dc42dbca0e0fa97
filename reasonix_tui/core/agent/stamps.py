"""Times and ids stamped on approval-queue records (proposals, results, intents, presence
markers, auto-write records).

Kept in one module so a test or the screenshot script can freeze them for the whole queue
(``monkeypatch.setattr(stamps, "now", ...)``): callers look them up as ``stamps.now()``.
"""

from __future__ import annotations

import secrets
import time

from ..compat.gotime import Timestamp

__all__ = ["now", "new_id"]


def now() -> str:
    """The current time as RFC 3339 text."""
    return Timestamp.now().rfc3339()


def new_id(prefix: str) -> str:
    """A new record id: ``prefix``, the UTC second, then random hex (file-name safe)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return f"{prefix}-{stamp}-{secrets.token_hex(5)}"

"""Dismissed and accepted suggestions: the state file ``<root>/reasonix-tui/suggestions.json``.

Each entry keeps the candidate's id and its occurrence keys (a memory) or step keys (a
skill), so the same candidate found again under another id stays hidden.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...paths import Layout
from ...store.atomic import atomic_write
from .model import (
    SkillSuggestion,
    Suggestion,
)

__all__ = ["state_path"]


def state_path(layout: Layout) -> Path:
    """``<root>/reasonix-tui/suggestions.json``."""
    return layout.tui_dir / "suggestions.json"


def load_state(layout: Layout) -> dict[str, dict[str, Any]]:
    from ...store.safeio import read_regular

    try:
        data = json.loads(read_regular(state_path(layout)))  # never blocks on a FIFO
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    for key in ("dismissed", "accepted"):
        if not isinstance(data.get(key), dict):
            data[key] = {}
    return data  # type: ignore[no-any-return]  # checked above: a dict of dicts


def save_state(layout: Layout, data: dict[str, Any]) -> None:
    atomic_write(state_path(layout), json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", 0o600)


def state_keys(entries: dict[str, Any]) -> set[str]:
    keys: set[str] = set()
    for v in entries.values():
        if isinstance(v, dict) and isinstance(v.get("keys"), list):
            keys.update(k for k in v["keys"] if isinstance(k, str) and k)
    return keys


def matches_raw(sid: str, skeys: Sequence[str], skill: bool, ids: set[str], keys: set[str]) -> bool:
    """The same candidate: its id, or one of its occurrences (memories) / most of its steps (skills)."""
    if sid in ids:
        return True
    if skill:
        mine = {"steps:" + k for k in skeys}
        return len(mine) >= 3 and len(mine & keys) >= 0.7 * len(mine)
    return any(k in keys for k in skeys)


def state_record(s: Suggestion) -> list[str]:
    if isinstance(s, SkillSuggestion):
        return ["steps:" + k for k in s.keys]
    return list(s.keys)

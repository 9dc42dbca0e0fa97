"""What the checks read: the store's snapshot, unreadable files, the recorded recall traces,
the instruction resolution of the workspace (:func:`gather`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..compat.gotime import Timestamp
from ..paths import Layout
from ..settings import Settings
from ..store.model import Fact
from .base import HealthContext

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["gather", "instruction_diagnostics", "instruction_targets", "function_words", "INSTRUCTION_WALK_LIMIT"]


def _signature(path: str) -> str:
    try:
        st = os.lstat(path)
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}"


def gather(
    layout: Layout,
    settings: Settings,
    store: Store | None = None,
    *,
    now: Timestamp | None = None,
    facts: Sequence[Fact] | None = None,
    errors: Sequence[tuple[str, str, str]] | None = None,
) -> HealthContext:
    """Read what the checks need: the store's active facts and unreadable files (unless
    given), the recorded recall traces and the instruction diagnostics of the workspace."""
    from ..recall.trace import TraceStore

    if facts is None or errors is None:
        from ..store.store import Store

        snap = (store or Store(layout, settings=settings, actor="cli")).snapshot()
        facts = snap.facts if facts is None else facts
        errors = [(e.path, e.scope, e.message) for e in snap.errors] if errors is None else errors
        now = now or snap.loaded_at
    now = now or Timestamp.now()
    traces = TraceStore(layout).history(100_000)
    return HealthContext(
        facts=facts,
        scans={},
        now=now,
        pinned_budget=settings.pinned_budget_chars,
        pinned_refused=settings.pinned_ceiling > 0,
        errors=[(p, s, m, _signature(p)) for p, s, m in errors],
        traces=traces,
        diagnostics=instruction_diagnostics(layout),
        workspace=str(layout.workspace),
        function_words=function_words(),
    )


def instruction_diagnostics(layout: Layout) -> tuple[Any, ...]:
    """The instruction diagnostics of the workspace root and of every folder below it that
    holds an instruction document (each once)."""
    from ..instructions.resolver import resolve

    diagnostics: dict[tuple[str, str, str, int], Any] = {}
    for target in instruction_targets(str(layout.workspace)):
        try:
            found = resolve(target, str(layout.root), str(layout.workspace)).diagnostics
        except (OSError, ValueError):
            continue
        for d in found:
            if d.code == "target_outside_workspace" and target != str(layout.workspace):
                continue
            diagnostics.setdefault((d.code, d.path, d.source_path, d.line), d)
    return tuple(diagnostics.values())


INSTRUCTION_WALK_LIMIT = 2000
"""Folders of the workspace looked at for instruction documents below the root."""
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "target", "dist", "build"})


def instruction_targets(workspace: str, limit: int = INSTRUCTION_WALK_LIMIT) -> list[str]:
    """The workspace root and every folder below it that holds an instruction document
    (hidden folders and dependency or build folders skipped; at most ``limit`` folders
    walked), so imports rejected or missing in a sub-folder's ``AGENTS.md`` are found too."""
    from ..instructions.documents import DOCUMENT_NAMES, LOCAL_DOCUMENT_NAMES

    names = frozenset(DOCUMENT_NAMES + LOCAL_DOCUMENT_NAMES)
    out = [workspace]
    seen = 0
    for here, dirs, files in os.walk(workspace):
        seen += 1
        if seen > limit:
            break
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        if here != workspace and names.intersection(files):
            out.append(here)
    return out


def function_words() -> frozenset[str]:
    """Words that are never evidence of a topic (the language package's English closed class)."""
    try:
        from ..lang import FUNCTION_WORDS
    except ImportError:
        return frozenset()
    return frozenset(FUNCTION_WORDS)

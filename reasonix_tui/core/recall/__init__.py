"""Automatic recall, the explicit ``memory`` tool, pinned guidance and recall traces.

Plain Python: no textual, no mcp. Entry points:

* :func:`recall` — automatic recall over a list of facts (pure).
* :func:`run_recall` / :func:`try_recall` — recall for a workspace, recorded or dry-run.
* :class:`TraceStore` — ``last.json`` + bounded ``history.jsonl`` under ``layout.recall_dir``.
* :func:`memory_tool_call`, :func:`search_memories` — the explicit ``memory`` tool.
* :func:`pinned_block` — the session-start ``BackgroundBlock``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import MODES, recall
    from .enhance import ALL_ENHANCEMENTS, Enhancements
    from .index import RecallIndex, clear_index_cache, get_index
    from .memory_tool import MemoryToolError, SearchHit, memory_tool_call, search_memories
    from .pinned import PinnedReport, background_block, pinned_block, pinned_report
    from .pool import PinnedGuidance, find_overrides, identity_keys, pinned_guidance
    from .results import Considered, RecallHit, RecallResult
    from .service import load_facts, run_recall, store_for, try_recall
    from .trace import RecallTrace, TraceCandidate, TraceHit, TraceStore, render_history_text, render_recall_text

_HOME = {
    "engine": ("MODES", "recall"),
    "results": ("Considered", "RecallHit", "RecallResult"),
    "enhance": ("ALL_ENHANCEMENTS", "Enhancements"),
    "index": ("RecallIndex", "clear_index_cache", "get_index"),
    "pinned": ("PinnedReport", "background_block", "pinned_block", "pinned_report"),
    "pool": ("PinnedGuidance", "find_overrides", "identity_keys", "pinned_guidance"),
    "memory_tool": ("MemoryToolError", "SearchHit", "memory_tool_call", "search_memories"),
    "service": ("load_facts", "run_recall", "store_for", "try_recall"),
    "trace": ("RecallTrace", "TraceCandidate", "TraceHit", "TraceStore", "render_history_text", "render_recall_text"),
}
_WHERE = {name: module for module, names in _HOME.items() for name in names}


def __getattr__(name: str) -> Any:
    """Names are imported from their module on first use: a one-shot ``memory search`` does
    not pay for the recall engine it never runs."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "recall",
    "RecallResult",
    "RecallHit",
    "Considered",
    "MODES",
    "Enhancements",
    "ALL_ENHANCEMENTS",
    "RecallIndex",
    "get_index",
    "clear_index_cache",
    "identity_keys",
    "pinned_guidance",
    "PinnedGuidance",
    "find_overrides",
    "pinned_block",
    "pinned_report",
    "PinnedReport",
    "background_block",
    "memory_tool_call",
    "search_memories",
    "SearchHit",
    "MemoryToolError",
    "run_recall",
    "try_recall",
    "load_facts",
    "store_for",
    "RecallTrace",
    "TraceHit",
    "TraceCandidate",
    "TraceStore",
    "render_recall_text",
    "render_history_text",
]

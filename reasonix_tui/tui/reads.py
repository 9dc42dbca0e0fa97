"""What the panes read outside the fact table, over the core APIs (no textual import);
the quick-add note is the one write here (``writes.quick_add`` runs it in the write worker).

Each function is blocking (call it from a thread worker) and returns the core's own
types: instruction resolutions, audit entries, recall traces, suggestions. Tests that
want fixed data replace these functions, never the panes.
"""

from __future__ import annotations

from ..core.compat.gotime import Timestamp
from ..core.instructions import render as instruction_render
from ..core.instructions.documents import Resolution
from ..core.instructions.quickadd import append_doc, check_scope, doc_path
from ..core.instructions.resolver import resolve
from ..core.paths import Layout
from ..core.recall import RecallTrace, TraceStore, run_recall
from ..core.sessions import suggestions
from ..core.settings import Settings
from ..core.store.audit import AuditEntry
from ..core.store.store import Store

__all__ = [
    "quick_add",
    "resolve_instructions",
    "instruction_block",
    "read_audit",
    "last_trace",
    "trace_history",
    "try_query",
    "scan_suggestions",
]


def _store(layout: Layout, settings: Settings) -> Store:
    return Store(layout, settings=settings, actor="context-center")


# ----------------------------------------------------------------- instructions


def quick_add(layout: Layout, scope: str, note: str) -> str:
    """Append ``note`` to the instruction document of ``scope`` (store-format §10.1)."""
    check_scope(scope)
    path = doc_path(scope, layout)
    result = append_doc(path, note, lock_path=layout.tui_dir / "instructions.lock")
    if not result.appended:
        return "Empty note: nothing written."
    created = " (created)" if result.created else ""
    return f"Added “{result.note}” to {result.path}{created}."


def resolve_instructions(layout: Layout, target: str | None = None) -> Resolution:
    """The instruction documents that apply to ``target`` (default: the workspace)."""
    return resolve(target or str(layout.workspace), str(layout.root))


def instruction_block(resolution: Resolution) -> str:
    """The provider-visible block of a resolution."""
    return instruction_render.instruction_block(resolution)


# ----------------------------------------------------------------- audit


def read_audit(layout: Layout, settings: Settings, limit: int = 2000) -> list[AuditEntry]:
    """The newest ``limit`` audit entries, newest first (``Store.audit``)."""
    return _store(layout, settings).audit.read(limit)


# ----------------------------------------------------------------- recall


def last_trace(layout: Layout) -> RecallTrace | None:
    """The last recorded recall trace (``None`` when there is none)."""
    return TraceStore(layout).last()


def trace_history(layout: Layout, limit: int = 200) -> list[RecallTrace]:
    """Recorded traces, newest first."""
    return TraceStore(layout).history(limit)


def try_query(layout: Layout, settings: Settings, query: str, now: Timestamp | None = None) -> RecallTrace:
    """What automatic recall would return for ``query`` now, without recording a trace."""
    return run_recall(layout, query, settings=settings, source="context-center", now=now, record=False)


# ----------------------------------------------------------------- suggestions


def scan_suggestions(layout: Layout, settings: Settings, now: Timestamp | None = None) -> suggestions.SuggestionsView:
    """Current suggestion candidates (memories then skills, each ranked) and the counts the
    heading shows: sessions scanned, the window, how many more wait past the cap."""
    return suggestions.list_suggestions(layout, _store(layout, settings), now=now, settings=settings)

"""Recall for a workspace: load the facts, run :func:`~.engine.recall`, record the trace.

This is what the CLI (``reasonix-tui recall``), the ``user-prompt-submit`` hook, the MCP
server and the Context Center's Recall pane call:

* :func:`run_recall` — automatic recall for a real turn; records the trace.
* :func:`try_recall` — the same recall as a dry run ("try a query"); records nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..gotime import Timestamp
from ..paths import Layout
from ..settings import Settings, load_settings
from ..store.model import Fact
from .engine import RecallResult, recall
from .trace import RecallTrace, TraceStore

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["load_facts", "store_for", "serve_live", "run_recall", "try_recall"]

_STORES: dict[tuple[str, str, Settings], Store] = {}
_STORES_LOCK = threading.Lock()
_LIVE = False


def serve_live(on: bool = True) -> None:
    """Declare this process long-lived (the warm hook server): :func:`store_for` then hands
    out :class:`~reasonix_tui.core.store.live.LiveStore`\\ s, whose reads follow file-system
    events. One-shot processes keep plain stores (a watcher would cost more than it saves)."""
    global _LIVE
    _LIVE = on


def store_for(layout: Layout, settings: Settings | None = None) -> Store:
    """A process-wide :class:`Store` per layout, so its parse cache (and the warm recall
    index keyed by its fact objects) survive between calls in a long-lived process."""
    from ..store.store import Store

    settings = settings if settings is not None else load_settings(layout.root)
    key = (str(layout.root), str(layout.workspace), settings)
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            if _LIVE:
                from ..store.live import LiveStore

                store = LiveStore(layout, settings=settings, actor="agent-auto")
            else:
                store = Store(layout, settings=settings, actor="agent-auto")
            _STORES[key] = store
        return store


def load_facts(layout: Layout, settings: Settings | None = None, store: Store | None = None) -> Sequence[Fact]:
    """Active facts of both scopes (``ListAll`` order)."""
    store = store if store is not None else store_for(layout, settings)
    return store.snapshot().facts


def try_recall(
    layout: Layout,
    settings: Settings | None = None,
    query: str = "",
    *,
    now: Timestamp | None = None,
    mode: str | None = None,
    store: Store | None = None,
    facts: Sequence[Fact] | None = None,
) -> RecallResult:
    """What automatic recall returns for ``query`` now. Records nothing."""
    settings = settings if settings is not None else load_settings(layout.root)
    if facts is None:
        facts = () if settings.no_memory else load_facts(layout, settings, store)
    return recall(facts, query, now, settings, mode=mode, workspace=layout.workspace.name)


def run_recall(
    layout: Layout,
    query: str,
    *,
    settings: Settings | None = None,
    source: str = "cli",
    session_id: str = "",
    now: Timestamp | None = None,
    mode: str | None = None,
    store: Store | None = None,
    facts: Sequence[Fact] | None = None,
    record: bool = True,
) -> RecallTrace:
    """Automatic recall for one turn, recorded under ``layout.recall_dir``.

    A failure to write the trace never loses the recall: the returned trace then
    carries a note saying it was not recorded.
    """
    settings = settings if settings is not None else load_settings(layout.root)
    now = now or Timestamp.now()
    result = try_recall(layout, settings, query, now=now, mode=mode, store=store, facts=facts)
    trace = RecallTrace.from_result(result, at=now, source=source, session_id=session_id,
                                    workspace=str(layout.workspace))
    if record:
        try:
            TraceStore(layout).record(trace, keep_prompt=settings.record_prompts)
        except (OSError, ValueError) as exc:  # full disk, read-only root, a planted FIFO...
            trace = replace(trace, notes=(*trace.notes, f"trace not recorded: {exc}"))
    return trace

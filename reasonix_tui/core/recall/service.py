"""Recall for a workspace: load the facts, run :func:`~.engine.recall`, record the trace.

This is what the CLI (``reasonix-tui recall``), the ``user-prompt-submit`` hook, the MCP
server and the Context Center's Recall pane call:

* :func:`run_recall` — automatic recall for a real turn; records the trace.
* :func:`try_recall` — the same recall as a dry run ("try a query"); records nothing.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..compat.gotime import Timestamp
from ..paths import Layout
from ..settings import Settings, load_settings
from ..store.model import Fact
from .engine import recall
from .results import RecallResult
from .trace import RecallTrace, TraceStore

if TYPE_CHECKING:
    from ..store.store import Store
    from .index import RecallIndex

__all__ = [
    "load_facts",
    "store_for",
    "seed_once",
    "serve_live",
    "use_disk_index",
    "disk_index",
    "run_recall",
    "try_recall",
]

_STORES: dict[tuple[str, str, Settings], Store] = {}
_STORES_LOCK = threading.Lock()
_LIVE = False
_DISK = False


def serve_live(on: bool = True) -> None:
    """Declare this process long-lived (the warm hook server): :func:`store_for` then hands
    out :class:`~reasonix_tui.core.store.live.LiveStore`\\ s, whose reads follow file-system
    events. One-shot processes keep plain stores (a watcher would cost more than it saves)."""
    global _LIVE
    _LIVE = on
    from .search_postings import build_postings_in_background

    build_postings_in_background(on)


def use_disk_index(on: bool = True) -> None:
    """Declare this process one-shot (``reasonix-tui recall``, a hook answered in-process):
    recall then starts from the on-disk recall index (:mod:`.disk_index`), validated by one
    ``stat`` per fact file, instead of loading every fact and building the index."""
    global _DISK
    _DISK = on


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
    """Active facts of both scopes (``ListAll`` order). A long-lived process's store is
    first seeded from the on-disk recall rows (:func:`seed_once`)."""
    store = store if store is not None else store_for(layout, settings)
    seed_once(store)
    return store.snapshot().facts


_SEEDED: weakref.WeakSet[Store] = weakref.WeakSet()


def seed_once(store: Store) -> int:
    """The first time a long-lived process reads ``store`` (a live store: the warm hook
    server, the MCP server, the Context Center), seed the per-fact memo from the on-disk
    rows of its recall index (:func:`.warm_rows.seed_from_rows`), so building the warm index
    analyses only the facts whose files changed; the number seeded (0 afterwards, for a
    one-shot store, or with memory off)."""
    if not getattr(store, "long_lived", False) or store.settings.no_memory:
        return 0
    with _STORES_LOCK:
        if store in _SEEDED:
            return 0
        _SEEDED.add(store)
    from .warm_rows import seed_from_rows

    try:
        return seed_from_rows(store)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return 0  # unreadable rows: everything is analysed, as before


def try_recall(
    layout: Layout,
    settings: Settings | None = None,
    query: str = "",
    *,
    now: Timestamp | None = None,
    mode: str | None = None,
    store: Store | None = None,
    facts: Sequence[Fact] | None = None,
    index: RecallIndex | None = None,
) -> RecallResult:
    """What automatic recall returns for ``query`` now. Records nothing. ``index``: the
    index of the store's facts (given facts are then not needed)."""
    settings = settings if settings is not None else load_settings(layout.root)
    if facts is None and index is None:
        index = disk_index(layout, settings, store)
        if index is not None:
            from .disk_index import Changed

            try:
                return recall((), query, now, settings, mode=mode, workspace=layout.workspace.name, index=index)
            except Changed:
                index = None  # a fact file changed while we answered: the store's own answer
    if facts is None and index is None:
        facts = () if settings.no_memory else load_facts(layout, settings, store)
    return recall(facts or (), query, now, settings, mode=mode, workspace=layout.workspace.name, index=index)


def disk_index(layout: Layout, settings: Settings, store: Store | None = None) -> RecallIndex | None:
    """In a one-shot process (:func:`use_disk_index`), the recall index from disk
    (:func:`.disk_index.index_for`); ``None`` elsewhere, or when the store must be loaded.
    Facts of a stored index are read on use: :class:`.disk_index.Changed` says one changed."""
    if not _DISK or settings.no_memory:
        return None
    from .disk_index import index_for

    st = store if store is not None else store_for(layout, settings)
    live = sys.modules.get("reasonix_tui.core.store.live")  # not imported: no store is live
    return None if live is not None and isinstance(st, live.LiveStore) else index_for(st)


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
    index: RecallIndex | None = None,
) -> RecallTrace:
    """Automatic recall for one turn, recorded under ``layout.recall_dir``.

    A failure to write the trace never loses the recall: the returned trace then
    carries a note saying it was not recorded.
    """
    settings = settings if settings is not None else load_settings(layout.root)
    now = now or Timestamp.now()
    result = try_recall(layout, settings, query, now=now, mode=mode, store=store, facts=facts, index=index)
    trace = RecallTrace.from_result(
        result, at=now, source=source, session_id=session_id, workspace=str(layout.workspace)
    )
    if record:
        try:
            TraceStore(layout).record(trace, keep_prompt=settings.record_prompts)
        except (OSError, ValueError) as exc:  # full disk, read-only root, a planted FIFO...
            trace = replace(trace, notes=(*trace.notes, f"trace not recorded: {exc}"))
    return trace

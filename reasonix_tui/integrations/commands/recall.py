"""``reasonix-tui recall`` and ``memory recall|search|pinned``: automatic recall, its traces,
the explicit ``memory`` tool's search and the session-start pinned block.

* ``recall QUERY`` runs automatic recall for the workspace as an agent turn would,
  records the trace and prints the block (``--json``: the trace; ``--dry-run``: record
  nothing).
* ``memory recall`` shows the last trace as ``/memory recall`` does (``--history N``:
  several, newest first).
* ``memory search QUERY`` is the ``memory`` tool's ``search`` (all facts, pinned and
  expired included).
* ``memory pinned`` prints the block a session starts with.
"""

from __future__ import annotations

import argparse
import os
import sys

from ...core.compat.gotime import Timestamp
from ...core.settings import RECALL_MODES as MODES  # the engine's MODES, without importing the engine
from ...core.store.model import InvalidInput
from ...core.store.sealed import collector_paused
from ..cli import CliContext, Registry, freeze_before_exit

# Each handler imports what it runs: a one-shot `memory search` does not load the recall engine.

__all__ = ["register"]


def _one_thread_blas() -> None:
    """Load numpy with one BLAS thread in this one-shot process (unless the user chose a
    thread count, or numpy is loaded already).

    OpenBLAS starts a thread per core when numpy loads, and each spins for a while after
    every product: for one query that costs more CPU than it saves (``import numpy`` alone:
    about 80 ms more CPU on two cores). The environment is put back at once, so processes
    this one starts are not affected. The figures are the same: OpenBLAS splits a product
    by rows and columns, never along the sum, and the answer path's products are float64
    or matrix-vector (``tests/test_one_shot_loads.py``)."""
    if "numpy" in sys.modules or any(
        k in os.environ for k in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
    ):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401  # loaded now, with the setting above
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def _query(args: argparse.Namespace) -> str:
    return " ".join(args.query)


def _recall(args: argparse.Namespace, ctx: CliContext) -> int:
    _one_thread_blas()
    from ...core.recall import run_recall
    from ...core.recall.memo import FACT_MEMO, memo_path
    from ...core.recall.service import use_disk_index

    settings = ctx.settings
    # A one-shot process: recall starts from the on-disk recall index; when files changed,
    # tokens and features of unchanged facts come from the last run.
    FACT_MEMO.attach(memo_path(ctx.layout.cache_dir))
    use_disk_index()
    # What the stored index and the listing make (at 100k facts: many small objects) lives
    # until the process ends: collection passes over it, set off by everything allocated
    # after it (the query's tokenizer, the scoring), would only cost time. In a process
    # started for this command it is frozen at the end (not walked by the first collection
    # after the pause nor at exit); driven in-process, the collector is only paused.
    with collector_paused():
        try:
            trace = run_recall(
                ctx.layout,
                _query(args),
                settings=settings,
                source=args.source,
                session_id=args.session_id or "",
                mode=args.mode,
                store=ctx.store,
                record=not args.dry_run,
            )
        finally:
            use_disk_index(False)  # the CLI can be driven in-process (tests, embedding)
        FACT_MEMO.save()
        freeze_before_exit()
    if args.json:
        ctx.print_json(trace.to_json())
        return 0
    if trace.block:
        ctx.stdout.write(trace.block + "\n")
    else:
        ctx.stderr.write(f"reasonix-tui: nothing recalled ({trace.suppressed})\n")
    return 0


def _memory_recall(args: argparse.Namespace, ctx: CliContext) -> int:
    from ...core.recall import TraceStore, render_history_text, render_recall_text

    traces = TraceStore(ctx.layout)
    if args.history is not None:
        if args.history < 1:
            raise InvalidInput("--history must be at least 1")
        items = traces.history(args.history)
        if args.json:
            ctx.print_json([t.to_json() for t in items])
        else:
            ctx.print(render_history_text(items))
        return 0
    last = traces.last()
    if args.json:
        ctx.print_json(last.to_json() if last is not None else None)
    else:
        ctx.print(render_recall_text(last))
    return 0


def _search(args: argparse.Namespace, ctx: CliContext) -> int:
    _one_thread_blas()
    from ...core.recall.memory_tool import format_search, search_memories
    from ...core.recall.search_index import search_from_disk

    query = " ".join(args.query)
    resolved = ctx.settings.recall_mode != "reasonix-exact"
    if ctx.settings.no_memory:
        hits = search_memories(
            (), query, type_=args.type or "", scope=args.scope or "", limit=args.limit, resolved=resolved
        )
    else:  # a one-shot process: start from the on-disk index, not from every fact
        with collector_paused():  # the listing's objects live until the process ends (as recall's)
            hits = search_from_disk(
                ctx.store, query, type_=args.type or "", scope=args.scope or "", limit=args.limit, resolved=resolved
            )
            freeze_before_exit()
    if args.json:
        ctx.print_json(
            {
                "query": query,
                "hits": [
                    {
                        "id": h.fact.id,
                        "ref": h.fact.ref,
                        "name": h.fact.name,
                        "title": h.fact.display_title,
                        "revision": h.fact.revision,
                        "scope": h.fact.scope,
                        "type": h.fact.type,
                        "activation": h.fact.resolved_activation,
                        "description": h.fact.description,
                        "score": h.score,
                        "snippet": h.snippet,
                        "superseded": h.superseded,
                    }
                    for h in hits
                ],
            }
        )
    else:
        ctx.print(
            format_search(query, hits)
            .replace(
                'Use operation="read" with a stable memory id to inspect the full saved fact.',
                "Read a whole fact with: reasonix-tui memory show ID",
            )
            .replace("use the history tool;", "use `reasonix-tui history search`;")
        )
    return 0


def _pinned(args: argparse.Namespace, ctx: CliContext) -> int:
    from ...core.recall import pinned_report

    report = pinned_report(ctx.store, settings=ctx.settings)
    if args.json:
        now = Timestamp.now()
        from .memory import fact_json

        ctx.print_json(
            {
                "block": report.block,
                "chars": report.chars,
                "budget": report.budget,
                "facts": [fact_json(f, now, body=True) for f in report.guidance.facts],
                "suppressed": [
                    {
                        "id": ex.fact.id,
                        "ref": ex.fact.ref,
                        "by": ex.by.id if ex.by else None,
                        "by_ref": ex.by.ref if ex.by else None,
                        "key": ex.key,
                    }
                    for ex in report.guidance.suppressed
                ],
            }
        )
    elif report.block:
        ctx.print(report.block)
    return 0


def register(reg: Registry) -> None:
    """Add ``recall`` and ``memory recall|search|pinned``."""
    p = reg.add_top("recall", help="automatic recall for a query, as an agent turn gets it (records a trace)")
    p.add_argument("query", nargs="+", help="the user's message")
    p.add_argument("--json", action="store_true", help="print the trace instead of the block")
    p.add_argument("--source", default="cli", help="who asks (cli, hook, mcp, ...), kept in the trace")
    p.add_argument("--session-id", help="the agent session, kept in the trace")
    p.add_argument("--mode", choices=MODES, help="override the recall mode setting")
    p.add_argument("--dry-run", action="store_true", help="do not record a trace")
    p.set_defaults(func=_recall)

    p = reg.add_memory("recall", help="the last automatic recall (or several) and why")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--history", type=int, metavar="N", help="show the newest N traces")
    p.set_defaults(func=_memory_recall)

    p = reg.add_memory("search", help="the memory tool's search: every fact, pinned and expired included")
    p.add_argument("query", nargs="+")
    p.add_argument("--type", help="user, feedback, project or reference")
    p.add_argument("--scope", help="project or global")
    p.add_argument("--limit", type=int, default=0, help="results (default 8, max 20)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_search)

    p = reg.add_memory("pinned", help="the block a session starts with (protocol and pinned facts)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_pinned)

"""Thin adapters from the panes to the core modules (no textual import).

Each function is blocking (call it from a thread worker) and returns plain data. When a
core module is missing (it is being written in parallel) the function returns ``None``
or an empty value and the pane says what is missing instead of failing.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from ..core.paths import Layout
from ..core.settings import Settings

__all__ = [
    "module_available",
    "quick_add",
    "resolve_instructions",
    "instruction_block",
    "read_audit",
    "last_trace",
    "trace_history",
    "try_query",
    "scan_suggestions",
    "accept_suggestion",
    "dismiss_suggestion",
]


def module_available(name: str) -> bool:
    """True when ``reasonix_tui.core.<name>`` imports."""
    try:
        importlib.import_module(f"reasonix_tui.core.{name}")
    except ImportError:
        return False
    return True


# ----------------------------------------------------------------- instructions


def quick_add(layout: Layout, scope: str, note: str) -> str:
    """Append ``note`` to the instruction document of ``scope`` (store-format §10.1)."""
    from ..core.quickadd import append_doc, check_scope, doc_path

    check_scope(scope)
    path = doc_path(scope, layout)
    result = append_doc(path, note, lock_path=layout.tui_dir / "instructions.lock")
    if not result.appended:
        return "Empty note: nothing written."
    created = " (created)" if result.created else ""
    return f"Added “{result.note}” to {result.path}{created}."


def resolve_instructions(layout: Layout, target: str | None = None) -> Any:
    """The :class:`~reasonix_tui.core.instructions.Resolution` for ``target`` (default: the workspace)."""
    from ..core import instructions

    return instructions.resolve(target or str(layout.workspace), str(layout.root))


def instruction_block(resolution: Any) -> str:
    """The provider-visible block of a resolution."""
    from ..core import instructions

    return instructions.instruction_block(resolution)


# ----------------------------------------------------------------- audit


def read_audit(layout: Layout, limit: int = 2000) -> list[Any]:
    """The newest ``limit`` audit entries, newest first."""
    from ..core.store.audit import AuditLog

    return AuditLog(layout.audit_log).read(limit)


# ----------------------------------------------------------------- recall


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def last_trace(layout: Layout) -> dict[str, Any] | None:
    """The last recall trace as a dict (``None`` when there is none)."""
    try:
        from ..core.recall.trace import TraceStore  # type: ignore[import-not-found]
    except ImportError:
        return _read_json(layout.recall_dir / "last.json")
    trace = TraceStore(layout).last()
    return _trace_dict(trace)


def _trace_dict(trace: Any) -> dict[str, Any] | None:
    if trace is None:
        return None
    if isinstance(trace, dict):
        return trace
    to_json = getattr(trace, "to_json", None) or getattr(trace, "to_dict", None)
    if callable(to_json):
        data = to_json()
        return data if isinstance(data, dict) else None
    from dataclasses import asdict, is_dataclass

    if is_dataclass(trace):
        return asdict(trace)  # type: ignore[arg-type]
    return None


def trace_history(layout: Layout, limit: int = 200) -> list[dict[str, Any]]:
    """Recorded traces, newest first."""
    try:
        from ..core.recall.trace import TraceStore  # type: ignore[import-not-found]
    except ImportError:
        path = layout.recall_dir / "history.jsonl"
        out: list[dict[str, Any]] = []
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []
        for line in reversed(lines[-limit:]):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                out.append(data)
        return out
    traces = TraceStore(layout).history(limit)
    return [d for d in (_trace_dict(t) for t in traces) if d is not None]


def result_dict(result: Any) -> dict[str, Any]:
    """A ``RecallResult`` (or a trace object) as the dict the Recall pane draws."""
    if isinstance(result, dict):
        return result
    if not hasattr(result, "hits") or not hasattr(result, "considered"):
        data = _trace_dict(result)
        return data or {}
    hits = []
    for hit in result.hits:
        fact = hit.fact
        hits.append(
            {
                "id": str(fact.id), "ref": fact.ref, "name": fact.name, "revision": fact.revision,
                "scope": fact.scope, "type": fact.type, "freshness": hit.freshness, "score": hit.score,
                "reason": hit.reason, "snippet": hit.snippet,
            }
        )
    considered = []
    for cand in result.considered:
        fact = cand.fact
        considered.append(
            {
                "id": str(fact.id), "ref": fact.ref, "score": cand.score if cand.score is not None else "",
                "selected": cand.decision == "selected", "why": f"{cand.decision}: {cand.detail}",
            }
        )
    return {
        "query": result.query, "mode": getattr(result, "mode", ""), "hits": hits, "considered": considered,
        "suppressed": result.suppressed, "used_chars": result.used_chars, "char_budget": result.char_budget,
        "omitted_by_limit": result.omitted_by_limit, "omitted_by_budget": result.omitted_by_budget,
        "block": result.block,
    }


def try_query(layout: Layout, settings: Settings, query: str, now: Any = None) -> dict[str, Any] | None:
    """What automatic recall would return for ``query``, without recording a trace."""
    try:
        from ..core import recall as recall_pkg
    except ImportError:
        return None
    dry = getattr(recall_pkg, "try_recall", None)
    if dry is not None:
        return result_dict(dry(layout, settings, query, now=now))
    from ..core.store.store import Store

    facts = Store(layout, settings=settings, actor="context-center").list_all()
    return result_dict(recall_pkg.recall(facts, query, now, settings))


# ----------------------------------------------------------------- suggestions


def scan_suggestions(layout: Layout, settings: Settings, now: Any = None) -> list[Any] | None:
    """Current suggestion candidates (``None`` when the suggestions module is missing)."""
    try:
        from ..core import suggestions
    except ImportError:
        return None
    from ..core.store.store import Store

    store = Store(layout, settings=settings, actor="context-center")
    view = suggestions.list_suggestions(layout, store, now=now)
    return list(view.all())


def accept_suggestion(layout: Layout, settings: Settings, suggestion_id: str, edits: dict[str, Any]) -> Any:
    """Accept a suggestion (optionally edited) as the user's own write."""
    from ..core import suggestions
    from ..core.store.store import Store

    fields = {k: edits.get(k) for k in ("name", "title", "description", "type", "scope", "body")}
    store = Store(layout, settings=settings, actor="context-center")
    return suggestions.accept_suggestion(
        layout, suggestion_id, suggestions.SuggestionEdits(**fields), store=store, actor="context-center"
    )


def dismiss_suggestion(layout: Layout, settings: Settings, suggestion_id: str) -> Any:
    """Dismiss a suggestion for good."""
    from ..core import suggestions
    from ..core.store.store import Store

    return suggestions.dismiss_suggestion(layout, suggestion_id, Store(layout, settings=settings, actor="context-center"))

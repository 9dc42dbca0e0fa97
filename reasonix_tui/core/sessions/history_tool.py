"""The MCP ``history`` tool: arguments in (decoded as Go's ``encoding/json`` would, with its
exact errors), provider text out. Searches that find nothing are logged for memory suggestions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..compat.gostr import go_quote, trim_space
from ..compat.gotime import Timestamp
from ..compat.tokenize import query_terms
from ..paths import Layout
from .history import index_for
from .history_docs import format_around, format_hits
from .history_options import HistoryError, HistoryOptions

__all__ = ["history_tool_call", "log_miss", "misses_path"]


def misses_path(layout: Layout) -> str:
    """``<root>/reasonix-tui/history-misses.jsonl``."""
    return str(layout.tui_dir / "history-misses.jsonl")


def log_miss(layout: Layout, query: str, scope: str, kinds: Sequence[str] | None, tool_name: str, via: str) -> None:
    """Record a zero-result search (the "memory wanted" signal). Never raises."""
    try:
        from ..agent.secret_detection import redact_detected
        from ..settings import load_settings
        from ..store.safeio import append_bytes

        # Kept like a prompt: secrets redacted, or no text at all with record_prompts off.
        query = redact_detected(query) if load_settings(layout.root).record_prompts else ""
        record = {
            "at": Timestamp.now().rfc3339(),
            "query": query,
            "terms": query_terms(query) if query else [],
            "scope": scope,
            "kinds": sorted(kinds) if kinds else [],
            "tool_name": tool_name,
            "workspace": str(layout.workspace),
            "via": via,
        }
        append_bytes(misses_path(layout), (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii"), 0o600)
    except Exception:  # noqa: BLE001 - logging must never break a search
        pass


_GO_TYPES = {
    "operation": "string",
    "query": "string",
    "scope": "string",
    "tool_name": "string",
    "session_path": "string",
    "limit": "int",
    "message_index": "int",
    "before": "int",
    "after": "int",
}


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null"


def _decode_arguments(arguments: Any) -> dict[str, Any]:
    """Go ``json.Unmarshal`` into the tool's input struct, with Go-like error texts."""
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = json.loads(arguments) if arguments else None
        except ValueError as exc:
            raise HistoryError(f"invalid arguments: {exc}") from None
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise HistoryError(
            f"invalid arguments: json: cannot unmarshal {_json_type(arguments)} into Go value of type struct"
        )
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        if key == "kind":
            if value is None:
                continue
            if not isinstance(value, list):
                raise HistoryError(
                    f"invalid arguments: json: cannot unmarshal {_json_type(value)} into Go struct field .kind of type []history.Kind"
                )
            for item in value:
                if not isinstance(item, str):
                    raise HistoryError(
                        f"invalid arguments: json: cannot unmarshal {_json_type(item)} into Go struct field .kind of type history.Kind"
                    )
            out["kind"] = list(value)
            continue
        gotype = _GO_TYPES.get(key)
        if gotype is None or value is None:
            continue
        if gotype == "string":
            if not isinstance(value, str):
                raise HistoryError(
                    f"invalid arguments: json: cannot unmarshal {_json_type(value)} into Go struct field .{key} of type string"
                )
            out[key] = value
        else:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise HistoryError(
                    f"invalid arguments: json: cannot unmarshal {_json_type(value)} into Go struct field .{key} of type int"
                )
            if isinstance(value, float):
                if not value.is_integer():
                    raise HistoryError(
                        f"invalid arguments: json: cannot unmarshal number {value!r} into Go struct field .{key} of type int"
                    )
                value = int(value)
            out[key] = value
    return out


def history_tool_call(layout: Layout, arguments: Any, options: HistoryOptions | None = None) -> str:
    """The MCP ``history`` tool: Reasonix ``historyTool.Execute``.

    Returns the provider-visible text. Invalid input raises :class:`HistoryError` whose
    message is Reasonix's exact error text (the MCP server reports it as a tool error).
    Zero-result searches are logged to ``history-misses.jsonl``.
    """
    args = _decode_arguments(arguments)
    op = trim_space(args.get("operation", ""))
    opts = options or HistoryOptions.for_layout(layout)
    if op == "search":
        query = args.get("query", "")
        result = index_for(opts).search(
            query, args.get("scope", ""), args.get("kind"), args.get("tool_name", ""), args.get("limit", 0)
        )
        if not result.hits:
            log_miss(layout, query, result.scope, args.get("kind"), args.get("tool_name", ""), "mcp")
        return format_hits(query, result.hits)
    if op == "around":
        if "message_index" not in args:
            raise HistoryError("message_index is required for operation=around")
        idx = args["message_index"]
        path = args.get("session_path", "")
        msgs = index_for(opts).around(path, idx, args.get("before", 0), args.get("after", 0))
        return format_around(path, idx, msgs)
    if op == "":
        raise HistoryError("operation is required")
    raise HistoryError(f"unknown operation {go_quote(args.get('operation', ''))}")

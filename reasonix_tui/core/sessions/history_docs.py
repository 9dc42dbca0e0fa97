"""What history search reads and says: the documents (message parts) extracted from a
transcript, a message rendered for the tool, the search results, and the tool's
provider-visible texts (byte-identical to Reasonix's ``internal/history``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..compat.gostr import to_lower, trim_space
from ..compat.retrieval import go_json_quote
from .messages import Message
from .user_text import is_pinned_context_revision

__all__ = [
    "KINDS",
    "DEFAULT_KINDS",
    "MAX_SNIPPET",
    "HISTORY_TOOL_NAME",
    "HISTORY_TOOL_DESCRIPTION",
    "HISTORY_TOOL_SCHEMA",
    "HISTORY_TOOL_SCHEMA_TEXT",
    "Document",
    "Hit",
    "MessageContext",
    "SearchResult",
    "extract_documents",
    "strip_compose_prefixes",
    "is_tool_error",
    "render_message",
    "format_hits",
    "format_around",
]


KINDS = ("user_text", "assistant_text", "tool_input", "tool_error", "tool_output")
"""Record kinds, in schema order."""

DEFAULT_KINDS = frozenset(("user_text", "assistant_text", "tool_input", "tool_error"))
"""Kinds searched when the caller names none (tool outputs are opt-in)."""

MAX_SNIPPET = 240

HISTORY_TOOL_NAME = "history"

HISTORY_TOOL_DESCRIPTION = (
    "Search saved local session history with lightweight BM25 retrieval, then read messages around a hit. "
    "Use search when past decisions, failed attempts, commands, or tool inputs may help the current task; "
    "use around with a returned session_path and message_index to inspect the nearby transcript. "
    "By default it searches user text, assistant text, tool inputs, and tool errors; normal tool outputs "
    "are excluded unless kind includes tool_output."
)
"""Reasonix ``history`` tool description (provider-visible, byte-exact)."""

HISTORY_TOOL_SCHEMA_TEXT = """{
\t\t"type": "object",
\t\t"properties": {
\t\t\t"operation": {"type": "string", "enum": ["search", "around"], "description": "search ranks saved history; around returns nearby messages for a search hit."},
\t\t\t"query": {"type": "string", "description": "Search query for operation=search."},
\t\t\t"scope": {"type": "string", "enum": ["project", "global"], "description": "project searches the current session directory; global also includes compacted-history archives."},
\t\t\t"kind": {"type": "array", "items": {"type": "string", "enum": ["user_text", "assistant_text", "tool_input", "tool_error", "tool_output"]}, "description": "History parts to search. Defaults to user_text, assistant_text, tool_input, and tool_error."},
\t\t\t"tool_name": {"type": "string", "description": "Optional tool-name filter for tool_input, tool_error, or tool_output."},
\t\t\t"limit": {"type": "integer", "description": "Maximum search hits to return, default 8, max 20."},
\t\t\t"session_path": {"type": "string", "description": "Path from a search hit. Required for operation=around."},
\t\t\t"message_index": {"type": "integer", "description": "Message index from a search hit. Required for operation=around."},
\t\t\t"before": {"type": "integer", "description": "Messages before message_index for operation=around, default 3, max 10."},
\t\t\t"after": {"type": "integer", "description": "Messages after message_index for operation=around, default 3, max 10."}
\t\t},
\t\t"required": ["operation"]
\t}"""
"""Reasonix ``history`` tool schema, byte-for-byte as ``tool.go`` returns it (tabs included)."""


HISTORY_TOOL_SCHEMA: dict[str, Any] = json.loads(HISTORY_TOOL_SCHEMA_TEXT)
"""The same schema as a dict (for SDKs that take a JSON object)."""

ZERO_RESULT_LINES = (
    "",
    "0 results does not prove the event never happened. Try:",
    "1. Retry with fewer, rarer terms such as a function name, command, error phrase, ticket id, or decision keyword.",
    "2. Widen scope from project to global when cross-project or compacted-history context may matter.",
    '3. If you need tool output, include kind=["tool_output"] or filter by tool_name for tool input/error/output searches.',
)


_GO_S = r"[\t\n\f\r ]"


_COMPOSE_TAGS = "memory-update|background-jobs|active-goal|hook-context|execution-policy"


_RE_COMPOSE = re.compile(rf"^{_GO_S}*<(?:{_COMPOSE_TAGS})(?:{_GO_S}+[^>]*)?>.*?</(?:{_COMPOSE_TAGS})>{_GO_S}*\n", re.S)


_PLAN_MODE_PREFIX = "[Plan mode"


def strip_compose_prefixes(content: str) -> str:
    """Reasonix ``stripComposePrefixes``: drop leading host blocks, then a plan-mode marker."""
    s = content
    while True:
        nxt = _RE_COMPOSE.sub("", s, count=1)
        if nxt == s:
            break
        s = nxt
    trimmed = trim_space(s)
    if trimmed.startswith(_PLAN_MODE_PREFIX):
        i = trimmed.find("]")
        if i >= 0:
            return trim_space(trimmed[i + 1 :])
    return trimmed


def is_tool_error(content: str) -> bool:
    """``error:`` / ``blocked:`` prefix or ``permission denied`` anywhere (lower-cased, trimmed)."""
    s = to_lower(trim_space(content))
    return s.startswith(("error:", "blocked:")) or "permission denied" in s


@dataclass(frozen=True, slots=True)
class Document:
    """One searchable record."""

    message_index: int
    """Position of the message in the transcript."""
    role: str
    """Message role."""
    kind: str
    """Record kind."""
    tool_name: str
    """Tool name (tool kinds only)."""
    text: str
    """Trimmed document text."""
    call_index: int = -1
    """For ``tool_input``: which call of the message."""


def extract_documents(messages: Sequence[Message], start_index: int = 0) -> list[Document]:
    """Every record of ``messages`` (all five kinds; filters apply at query time).

    Mirrors Reasonix ``extractDocuments``: pinned-context revisions and system messages are
    skipped, blank texts dropped. A Claude tool result flagged ``is_error`` is also a
    ``tool_error`` record.
    """
    out: list[Document] = []
    for i, msg in enumerate(messages, start_index):
        out.extend(message_documents(i, msg))
    return out


def message_documents(i: int, msg: Message) -> list[Document]:
    docs: list[Document] = []
    if is_pinned_context_revision(msg):
        return docs
    role = msg.role
    if role == "user":
        if trim_space(msg.content):
            _append_doc(docs, i, role, "user_text", "", strip_compose_prefixes(msg.content))
    elif role == "assistant":
        if trim_space(msg.content):
            _append_doc(docs, i, role, "assistant_text", "", msg.content)
        for ci, call in enumerate(msg.tool_calls):
            _append_doc(docs, i, role, "tool_input", call.name, call.name + " " + call.arguments, ci)
    elif role == "tool":
        text = msg.name + " " + msg.content
        if msg.is_error or is_tool_error(msg.content):
            _append_doc(docs, i, role, "tool_error", msg.name, text)
        _append_doc(docs, i, role, "tool_output", msg.name, text)
    return docs


def _append_doc(docs: list[Document], i: int, role: str, kind: str, tool: str, text: str, call_index: int = -1) -> None:
    text = trim_space(text)
    if text:
        docs.append(Document(i, role, kind, tool, text, call_index))


def _truncate(s: str, max_runes: int) -> str:
    s = trim_space(s)
    if len(s) <= max_runes:
        return s
    return s[:max_runes] + "..."


def render_message(idx: int, msg: Message) -> str:
    """Reasonix ``renderMessage`` for ``around``."""
    role = msg.role
    if role == "user":
        out = f"[{idx} user]\n" + _truncate(strip_compose_prefixes(msg.content), 2000)
    elif role == "assistant":
        if trim_space(msg.content):
            out = f"[{idx} assistant]\n" + _truncate(msg.content, 2000)
        else:
            out = f"[{idx} assistant]"
        for call in msg.tool_calls:
            out += f"\n[tool call: {call.name}]\n" + _truncate(call.arguments, 1200)
    elif role == "tool":
        out = f"[{idx} tool {msg.name} result]\n" + _truncate(msg.content, 2000)
    elif role == "system":
        out = f"[{idx} system]\n" + _truncate(msg.content, 1200)
    else:
        out = f"[{idx} {role}]\n" + _truncate(msg.content, 2000)
    return trim_space(out)


@dataclass(frozen=True, slots=True)
class Hit:
    """A ranked search result."""

    score: float
    session_path: str
    session_id: str
    source: str
    message_index: int
    role: str
    kind: str
    tool_name: str
    snippet: str

    def to_json(self) -> dict[str, Any]:
        """Reasonix's JSON shape (``tool_name`` omitted when empty)."""
        out: dict[str, Any] = {
            "score": self.score,
            "session_path": self.session_path,
            "session_id": self.session_id,
            "source": self.source,
            "message_index": self.message_index,
            "role": self.role,
            "kind": self.kind,
        }
        if self.tool_name:
            out["tool_name"] = self.tool_name
        out["snippet"] = self.snippet
        return out


@dataclass(frozen=True, slots=True)
class MessageContext:
    """One rendered message of an ``around`` window."""

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Hits plus what was searched."""

    query: str
    scope: str
    hits: tuple[Hit, ...]
    documents: int = 0
    """Documents in the selection (``N``)."""
    files: int = 0
    """Session files in the selection."""


def format_hits(query: str, hits: Sequence[Hit]) -> str:
    """Reasonix ``formatHits`` (the search output, or the zero-result guidance)."""
    if not hits:
        return "\n".join(("No saved session history matched " + go_json_quote(query) + ".",) + ZERO_RESULT_LINES)
    parts = [f"History search results for {go_json_quote(query)}:\n"]
    for i, hit in enumerate(hits, 1):
        line = (
            f"\n{i}. score={hit.score:.3f} source={hit.source} session_id={hit.session_id} "
            f"message_index={hit.message_index} kind={hit.kind} role={hit.role}"
        )
        if hit.tool_name:
            line += f" tool={hit.tool_name}"
        line += f"\n   session_path: {hit.session_path}\n   snippet: {hit.snippet}\n"
        parts.append(line)
    parts.append('\nUse operation="around" with a session_path and message_index to read nearby messages.')
    return trim_space("".join(parts))


def format_around(path: str, idx: int, msgs: Sequence[MessageContext]) -> str:
    """Reasonix ``formatAround``."""
    parts = [f"History around {path} message_index={idx}:\n"]
    for m in msgs:
        parts.append(f"\n{m.text}\n")
    return trim_space("".join(parts))

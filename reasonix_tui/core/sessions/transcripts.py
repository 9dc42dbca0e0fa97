"""Session transcripts: one message model, lenient streaming readers for two formats.

Spec: instructions-history-suggestions §B.1-§B.2 (Reasonix), plus Claude Code's
transcripts (the JSONL files a hook's ``transcript_path`` points to).

**Reasonix** (``<root>/sessions``, ``<root>/projects/<slug>/sessions``, ``<root>/archive``)::

    {"schema_version":1}                         optional header (first value only)
    {"role":"user","content":"...","raw_content":"...","origin":"user","createdAt":1712345678901}
    {"role":"assistant","content":"...","tool_calls":[{"id":"c1","name":"bash","arguments":"{...}"}]}
    {"role":"tool","tool_call_id":"c1","name":"bash","content":"error: ..."}

A file is a transcript iff its name ends in ``.jsonl`` and not in one of the sidecar
suffixes (:func:`is_session_transcript_name`). A session is hidden while
``<stem>.cleanup-pending.json`` exists. Sub-agent transcripts live in
``<dir>/subagents/<ref>.jsonl`` next to ``<ref>.meta.json`` (``parentSession``).

**Claude Code** (``~/.claude/projects/<project-slug>/<session-uuid>.jsonl``): one JSON
object per line with ``type`` (``user`` | ``assistant`` | ``summary`` | ``system`` |
``file-history-snapshot`` ...), ``message`` (``role``, ``content`` as a string or content
blocks ``text`` / ``tool_use`` / ``tool_result`` / ``thinking`` / ``image``), ``sessionId``,
``timestamp``, ``cwd``, ``isSidechain``, ``isMeta``. A ``tool_result`` block becomes a
``tool`` message named after its ``tool_use`` (matched by id), so both formats give the
history search the same shape.

Reading is lenient and streaming: the file is read line by line (never slurped), a line
that is not JSON (or not an object) is skipped and counted, a line longer than
:data:`MAX_LINE_BYTES` is skipped and counted, and a truncated last line is tolerated
(it is counted as broken and its offset is not consumed, so an appending writer's next
line is picked up later). Nothing here raises on bad content; only ``OSError`` from
opening a file reaches the caller, and :func:`read_transcript` catches that too.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..compat.encoding import read_text
from ..store.safeio import open_read
from ..compat.gostr import one_line, trim_space, truncate_runes
from ..compat.gotime import Timestamp, parse_rfc3339

__all__ = [
    "FORMAT_REASONIX",
    "FORMAT_CLAUDE",
    "MAX_LINE_BYTES",
    "ToolCall",
    "Message",
    "ReadStats",
    "Transcript",
    "SessionInfo",
    "JsonLine",
    "iter_json_lines",
    "ReasonixParser",
    "ClaudeParser",
    "sniff_format",
    "read_transcript",
    "read_reasonix_session",
    "read_claude_transcript",
    "is_session_transcript_name",
    "cleanup_pending_path",
    "is_cleanup_pending",
    "is_visible_session",
    "subagents_dir",
    "subagent_parent_session",
    "is_visible_subagent_session",
    "list_transcripts",
    "list_sessions",
    "session_id_of",
    "branch_meta_updated",
    "claude_home",
    "claude_project_slugs",
    "claude_project_dir",
    "list_claude_transcripts",
    "strip_transient_user_blocks",
    "user_preview_text",
    "user_message_text",
    "is_synthetic_user_text",
    "is_host_generated_user_message",
    "is_user_authored_turn_message",
    "is_pinned_context_revision",
    "steer_text",
]

FORMAT_REASONIX = "reasonix"
FORMAT_CLAUDE = "claude"

MAX_LINE_BYTES = 64 * 1024 * 1024
"""Lines longer than this are skipped (and counted) instead of being held in memory."""

_SIDECAR_SUFFIXES = (
    ".events.jsonl",
    ".turns.jsonl",
    ".conflicts.jsonl",
    ".guardian.jsonl",
    ".wire.jsonl",
    ".adjudication.jsonl",
    ".execution.jsonl",
)


# --------------------------------------------------------------------------------------
# The message model


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool invocation requested by an assistant message."""

    id: str
    """The call id (links the ``tool`` result)."""
    name: str
    """Tool name."""
    arguments: str
    """Raw JSON argument text (Claude's ``input`` object is serialised compactly)."""


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation message in either transcript format."""

    role: str
    """``system`` | ``user`` | ``assistant`` | ``tool`` (or whatever the file says)."""
    content: str = ""
    """Provider-visible text."""
    raw_content: str = ""
    """Reasonix: the exact user-typed text when it differs from ``content``."""
    origin: str = ""
    """``user`` | ``host`` | ``""`` (legacy Reasonix messages carry none)."""
    name: str = ""
    """Tool name on ``tool`` messages."""
    tool_call_id: str = ""
    """The call a ``tool`` message answers."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Calls requested by an ``assistant`` message."""
    reasoning: str = ""
    """Thinking / reasoning text (never indexed)."""
    created_at: Timestamp | None = None
    """When the message was written, when the file says."""
    is_error: bool = False
    """Claude: the tool result was flagged ``is_error``."""
    local_only: bool = False
    """Reasonix ``local_only`` display records."""
    sidechain: bool = False
    """Claude: part of a sub-agent side chain."""
    offset: int = -1
    """Byte offset of the line this message came from."""


@dataclass(frozen=True, slots=True)
class ReadStats:
    """What a reader saw besides the messages."""

    lines: int = 0
    """Non-blank lines read."""
    broken: int = 0
    """Lines skipped because they were not a JSON object (or too long)."""
    skipped: int = 0
    """Valid records that are not messages (headers, Claude snapshots, summaries...)."""
    truncated_tail: bool = False
    """The file ended in a partial line that did not parse."""
    oversized: int = 0
    """Lines skipped for exceeding :data:`MAX_LINE_BYTES` (also counted in ``broken``)."""


@dataclass(frozen=True, slots=True)
class Transcript:
    """A whole transcript file, read leniently."""

    path: str
    """Absolute path as given."""
    format: str
    """:data:`FORMAT_REASONIX` or :data:`FORMAT_CLAUDE`."""
    messages: tuple[Message, ...]
    """Messages in file order; ``message_index`` is the position here."""
    stats: ReadStats = field(default_factory=ReadStats)
    """Counts of broken and skipped lines."""
    schema_version: int | None = None
    """Reasonix header version (``None`` for headerless legacy files)."""
    session_id: str = ""
    """The file stem (Claude: ``sessionId`` when present)."""
    cwd: str = ""
    """Claude: the working directory recorded in the transcript."""
    error: str = ""
    """Why the file could not be opened at all (then ``messages`` is empty)."""

    @property
    def ok(self) -> bool:
        """True when the file was opened (broken lines do not count)."""
        return not self.error


@dataclass(frozen=True, slots=True)
class JsonLine:
    """One line of a JSONL file."""

    offset: int
    """Byte offset of the line start."""
    end: int
    """Byte offset just past the line (and its newline)."""
    value: Any
    """The decoded value (``None`` with ``ok=False`` when broken)."""
    ok: bool
    """True when the line decoded as JSON."""
    complete: bool
    """True when the line ended with a newline."""
    oversized: bool = False
    """True when the line was skipped for its size."""


# --------------------------------------------------------------------------------------
# Streaming JSONL


def _decode_line(raw: bytes) -> tuple[Any, bool]:
    try:
        return json.loads(raw), True
    except UnicodeDecodeError:
        try:
            return json.loads(raw.decode("utf-8", errors="replace")), True
        except ValueError:
            return None, False
    except ValueError:
        return None, False
    except RecursionError:
        return None, False


def iter_json_lines(path: str | os.PathLike[str], start: int = 0, max_line: int = MAX_LINE_BYTES) -> Iterator[JsonLine]:
    """Yield every non-blank line of a JSONL file from byte ``start``, decoded.

    Memory is bounded by the longest line (at most ``max_line``); longer lines are
    skipped in chunks and reported with ``oversized=True``. A leading UTF-8 BOM is ignored.
    """
    with open_read(path) as fh:  # never blocks on a FIFO
        if start:
            fh.seek(start)
        offset = start
        first = start == 0
        while True:
            raw = fh.readline(max_line + 1)
            if not raw:
                return
            end = offset + len(raw)
            if len(raw) > max_line and not raw.endswith(b"\n"):
                # Skip the rest of an oversized line without holding it.
                while True:
                    chunk = fh.readline(1 << 20)
                    if not chunk:
                        break
                    end += len(chunk)
                    if chunk.endswith(b"\n"):
                        break
                yield JsonLine(offset, end, None, False, True, oversized=True)
                offset = end
                first = False
                continue
            complete = raw.endswith(b"\n")
            body = raw
            if first and body.startswith(b"\xef\xbb\xbf"):
                body = body[3:]
            first = False
            if body.strip():
                value, ok = _decode_line(body)
                yield JsonLine(offset, end, value, ok, complete)
            offset = end


# --------------------------------------------------------------------------------------
# Parsers (stateful, so an index can resume a growing file)


def _str(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return json.dumps(value)
    if isinstance(value, list):
        # OpenAI-style content parts: keep the text ones.
        parts = []
        for item in value:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(item["text"])
            elif isinstance(item, str):
                parts.append(item)
        return "\n".join(parts)
    return json.dumps(value, ensure_ascii=False)


def _arguments_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _ms_timestamp(value: Any) -> Timestamp | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return Timestamp(int(value) * 1_000_000)


class ReasonixParser:
    """Turns decoded lines of a Reasonix session into :class:`Message` values.

    The first value is a header iff it is an object with a ``schema_version`` key; every
    other value is a ``provider.Message``. A JSON ``null`` decodes to an empty message, as
    Go's decoder does, so message indexes match Reasonix.
    """

    def __init__(self) -> None:
        self.seen_first = False
        """True once the first value was consumed."""
        self.schema_version: int | None = None
        """Header version, when the file has one."""

    def feed(self, line: JsonLine) -> tuple[list[Message], str]:
        """Messages for one line, and ``"message"``, ``"skipped"`` or ``"broken"``."""
        if not line.ok:
            return [], "broken"
        value = line.value
        first = not self.seen_first
        self.seen_first = True
        if value is None:
            return [Message(role="", offset=line.offset)], "message"
        if not isinstance(value, dict):
            return [], "broken"
        if first and "schema_version" in value:
            v = value.get("schema_version")
            self.schema_version = v if isinstance(v, int) and not isinstance(v, bool) else None
            return [], "skipped"
        return [self.message_from(value, line.offset)], "message"

    @staticmethod
    def message_from(obj: dict[str, Any], offset: int = -1) -> Message:
        """Build a message from one ``provider.Message`` object (lenient about types)."""
        get = obj.get
        role = get("role")
        role = role if type(role) is str else _str(role)
        content = get("content")
        content = content if type(content) is str else _str(content)
        raw = get("raw_content")
        raw = raw if type(raw) is str else _str(raw)
        provider_content = get("provider_content")
        if provider_content and role == "user":
            # Early Context Engine v2 builds inverted the two fields; migrate on load.
            if not raw:
                raw = content
            content = _str(provider_content)
        calls: tuple[ToolCall, ...] = ()
        raw_calls = get("tool_calls")
        if raw_calls and isinstance(raw_calls, list):
            out = []
            for c in raw_calls:
                if not isinstance(c, dict):
                    continue
                fn = c.get("function") if isinstance(c.get("function"), dict) else {}
                name = _str(c.get("name")) or _str(fn.get("name"))
                args = c.get("arguments") if "arguments" in c else fn.get("arguments")
                out.append(ToolCall(id=_str(c.get("id")), name=name, arguments=_arguments_text(args)))
            calls = tuple(out)
        origin = get("origin")
        name = get("name")
        return Message(
            role=role,
            content=content,
            raw_content=raw,
            origin=origin if type(origin) is str else _str(origin),
            name=name if type(name) is str else _str(name),
            tool_call_id=_str(get("tool_call_id")),
            tool_calls=calls,
            reasoning=_str(get("reasoning_content")),
            created_at=_ms_timestamp(get("createdAt")),
            local_only=get("local_only") is True,
            offset=offset,
        )


_CLAUDE_HOST_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated by the user while running local commands",
    "[Request interrupted by user",
    "This session is being continued from a previous conversation",
    "<system-reminder>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-prompt-submit-hook>",
)


def _claude_block_text(content: Any) -> str:
    """Text of a ``tool_result`` content (string, or blocks of text/image)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "image":
                    parts.append("[image]")
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    if content is None:
        return ""
    return _str(content)


class ClaudeParser:
    """Turns decoded lines of a Claude Code transcript into :class:`Message` values.

    ``user`` lines with string content are user messages; content blocks split into a
    user text message (consecutive text blocks joined) and one ``tool`` message per
    ``tool_result``. ``assistant`` lines give text, tool calls and thinking. Lines of
    other types (summaries, snapshots, system events) are skipped, not broken.
    """

    def __init__(self) -> None:
        self.tool_names: dict[str, str] = {}
        """``tool_use`` id → tool name, to name the results."""
        self.session_id = ""
        """``sessionId`` of the first line that has one."""
        self.cwd = ""
        """``cwd`` of the first line that has one."""

    def feed(self, line: JsonLine) -> tuple[list[Message], str]:
        """Messages for one line, and ``"message"``, ``"skipped"`` or ``"broken"``."""
        if not line.ok:
            return [], "broken"
        obj = line.value
        if not isinstance(obj, dict):
            return [], "broken"
        if not self.session_id and isinstance(obj.get("sessionId"), str):
            self.session_id = obj["sessionId"]
        if not self.cwd and isinstance(obj.get("cwd"), str):
            self.cwd = obj["cwd"]
        kind = obj.get("type")
        if kind not in ("user", "assistant"):
            return [], "skipped"
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return [], "skipped"
        created = parse_rfc3339(obj["timestamp"]) if isinstance(obj.get("timestamp"), str) else None
        sidechain = obj.get("isSidechain") is True
        content = msg.get("content")
        out: list[Message] = []
        base = dict(created_at=created, sidechain=sidechain, offset=line.offset)
        if kind == "user":
            host = obj.get("isMeta") is True or obj.get("isCompactSummary") is True or sidechain
            if isinstance(content, str):
                out.append(Message(role="user", content=content, origin=self._origin(content, host), **base))
            elif isinstance(content, list):
                texts: list[str] = []

                def flush() -> None:
                    if texts:
                        text = "\n".join(texts)
                        out.append(Message(role="user", content=text, origin=self._origin(text, host), **base))
                        texts.clear()

                for block in content:
                    if not isinstance(block, dict):
                        continue
                    btype = block.get("type")
                    if btype == "text" and isinstance(block.get("text"), str):
                        texts.append(block["text"])
                    elif btype == "tool_result":
                        flush()
                        call_id = _str(block.get("tool_use_id"))
                        out.append(
                            Message(
                                role="tool",
                                content=_claude_block_text(block.get("content")),
                                name=self.tool_names.get(call_id, ""),
                                tool_call_id=call_id,
                                is_error=block.get("is_error") is True,
                                **base,
                            )
                        )
                flush()
            return out, "message" if out else "skipped"
        # assistant
        texts = []
        reasoning: list[str] = []
        calls: list[ToolCall] = []
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                btype = block.get("type")
                if btype == "text" and isinstance(block.get("text"), str):
                    texts.append(block["text"])
                elif btype == "thinking" and isinstance(block.get("thinking"), str):
                    reasoning.append(block["thinking"])
                elif btype in ("tool_use", "server_tool_use"):
                    call_id = _str(block.get("id"))
                    name = _str(block.get("name"))
                    if call_id:
                        self.tool_names[call_id] = name
                    calls.append(ToolCall(id=call_id, name=name, arguments=_arguments_text(block.get("input"))))
        if not texts and not calls:
            return [], "skipped"
        out.append(
            Message(
                role="assistant",
                content="\n".join(texts),
                tool_calls=tuple(calls),
                reasoning="\n".join(reasoning),
                origin="",
                **base,
            )
        )
        return out, "message"

    @staticmethod
    def _origin(text: str, host: bool) -> str:
        if host:
            return "host"
        stripped = text.lstrip()
        if any(stripped.startswith(p) for p in _CLAUDE_HOST_PREFIXES):
            return "host"
        return "user"


Parser = ReasonixParser | ClaudeParser


def sniff_format(path: str | os.PathLike[str], probe_lines: int = 20) -> str:
    """Guess the transcript format from the first lines (Claude lines carry ``type`` and
    ``message`` or ``sessionId``; Reasonix lines carry ``role`` or ``schema_version``)."""
    p = os.fspath(path)
    if os.sep + ".claude" + os.sep in p or "/.claude/" in p:
        hint = FORMAT_CLAUDE
    else:
        hint = FORMAT_REASONIX
    try:
        for i, line in enumerate(iter_json_lines(p)):
            if i >= probe_lines:
                break
            v = line.value
            if not line.ok or not isinstance(v, dict):
                continue
            if "role" in v or "schema_version" in v:
                return FORMAT_REASONIX
            if "type" in v and ("message" in v or "sessionId" in v or "uuid" in v):
                return FORMAT_CLAUDE
    except OSError:
        pass
    return hint


def _read(path: str, parser: Parser, fmt: str) -> Transcript:
    messages: list[Message] = []
    lines = broken = skipped = oversized = 0
    truncated = False
    try:
        for line in iter_json_lines(path):
            lines += 1
            if line.oversized:
                oversized += 1
            msgs, status = parser.feed(line)
            if status == "broken":
                broken += 1
                if not line.complete:
                    truncated = True
            elif status == "skipped":
                skipped += 1
            messages.extend(msgs)
    except OSError as exc:
        return Transcript(path=path, format=fmt, messages=(), error=f"{type(exc).__name__}: {exc}",
                          session_id=session_id_of(path))
    stats = ReadStats(lines=lines, broken=broken, skipped=skipped, truncated_tail=truncated, oversized=oversized)
    if isinstance(parser, ClaudeParser):
        return Transcript(path=path, format=fmt, messages=tuple(messages), stats=stats,
                          session_id=session_id_of(path), cwd=parser.cwd)
    return Transcript(path=path, format=fmt, messages=tuple(messages), stats=stats,
                      schema_version=parser.schema_version, session_id=session_id_of(path))


def read_reasonix_session(path: str | os.PathLike[str]) -> Transcript:
    """Read a Reasonix session file (header optional, broken lines skipped and counted)."""
    return _read(os.fspath(path), ReasonixParser(), FORMAT_REASONIX)


def read_claude_transcript(path: str | os.PathLike[str]) -> Transcript:
    """Read a Claude Code transcript."""
    return _read(os.fspath(path), ClaudeParser(), FORMAT_CLAUDE)


def read_transcript(path: str | os.PathLike[str], fmt: str | None = None) -> Transcript:
    """Read a transcript of either format (sniffed when ``fmt`` is ``None``)."""
    p = os.fspath(path)
    fmt = fmt or sniff_format(p)
    return read_claude_transcript(p) if fmt == FORMAT_CLAUDE else read_reasonix_session(p)


# --------------------------------------------------------------------------------------
# Discovery and visibility (Reasonix)


def session_id_of(path: str | os.PathLike[str]) -> str:
    """File basename without its extension (Reasonix ``sessionID``)."""
    base = os.path.basename(os.fspath(path))
    stem, _ = os.path.splitext(base)
    return stem


def is_session_transcript_name(name: str) -> bool:
    """Reasonix ``IsSessionTranscriptName``: ``*.jsonl`` but not a sidecar log."""
    if not name.endswith(".jsonl"):
        name = trim_space(name)
        if not name.endswith(".jsonl"):
            return False
    elif name[:1].isspace():
        name = trim_space(name)
    return not name.endswith(_SIDECAR_SUFFIXES)


def cleanup_pending_path(session_path: str | os.PathLike[str]) -> str:
    """``<stem>.cleanup-pending.json`` next to the session (``""`` for an empty path)."""
    p = trim_space(os.fspath(session_path))
    if not p:
        return ""
    stem = p[: -len(".jsonl")] if p.endswith(".jsonl") else p
    return stem + ".cleanup-pending.json"


def is_cleanup_pending(session_path: str | os.PathLike[str]) -> bool:
    """True while the session's delayed-cleanup marker exists."""
    marker = cleanup_pending_path(session_path)
    return bool(marker) and os.path.exists(marker)


def is_visible_session(session_path: str | os.PathLike[str]) -> bool:
    """Reasonix ``IsVisibleSession``: non-empty path and not cleanup-pending."""
    return bool(trim_space(os.fspath(session_path))) and not is_cleanup_pending(session_path)


def subagents_dir(session_dir: str | os.PathLike[str]) -> str:
    """``<dir>/subagents`` (``""`` for an empty dir)."""
    d = trim_space(os.fspath(session_dir))
    return os.path.join(d, "subagents") if d else ""


def subagent_parent_session(path: str | os.PathLike[str]) -> tuple[str, bool]:
    """The ``parentSession`` recorded in ``<ref>.meta.json`` beside a sub-agent transcript.

    Returns ``(parent, True)`` when the meta file was read, ``("", False)`` otherwise.
    """
    p = os.fspath(path)
    base = os.path.basename(p)
    if not base.endswith(".jsonl"):
        return "", False
    ref = base[: -len(".jsonl")]
    if not ref:
        return "", False
    try:
        text = read_text(os.path.join(os.path.dirname(p), ref + ".meta.json")).text
        meta = json.loads(text)
    except (OSError, ValueError):
        return "", False
    if not isinstance(meta, dict):
        return "", False
    parent = meta.get("parentSession")
    if not isinstance(parent, str):
        parent = meta.get("parent_session") if isinstance(meta.get("parent_session"), str) else ""
    return trim_space(parent), True


def is_visible_subagent_session(session_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """A sub-agent transcript is visible unless it, or its parent session, is cleanup-pending."""
    if not is_visible_session(path):
        return False
    parent, ok = subagent_parent_session(path)
    if not ok or not parent:
        return True
    return not is_cleanup_pending(os.path.join(os.fspath(session_dir), parent + ".jsonl"))


def list_transcripts(directory: str | os.PathLike[str], visible: Callable[[str], bool] | None = None) -> list[tuple[str, os.stat_result]]:
    """Transcript files directly in ``directory`` (no recursion), with their stat.

    A missing or unreadable directory gives an empty list.
    """
    d = trim_space(os.fspath(directory))
    if not d:
        return []
    out: list[tuple[str, os.stat_result]] = []
    try:
        with os.scandir(d) as it:
            entries = list(it)
    except OSError:
        return []
    for entry in entries:
        if not is_session_transcript_name(entry.name):
            continue
        try:
            if entry.is_dir():
                continue
            st = entry.stat()
        except OSError:
            continue
        path = os.path.join(d, entry.name)
        if visible is not None and not visible(path):
            continue
        out.append((path, st))
    return out


def branch_meta_updated(session_path: str | os.PathLike[str]) -> Timestamp | None:
    """``updated_at`` of the branch meta sidecar ``<session>.jsonl.meta``, when readable."""
    try:
        meta = json.loads(read_text(os.fspath(session_path) + ".meta").text)
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict):
        return None
    value = meta.get("updated_at")
    ts = parse_rfc3339(value) if isinstance(value, str) else None
    if ts is not None and ts.ns <= 0:
        return None
    return ts


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A listed session (Reasonix ``agent.ListSessions``)."""

    path: str
    """Transcript path."""
    session_id: str
    """File stem."""
    last_activity: Timestamp
    """Branch meta ``updated_at``, else the file mtime."""
    turns: int
    """User-authored turns."""
    preview: str
    """First user-authored text, one line, at most 80 runes."""
    format: str = FORMAT_REASONIX
    """Transcript format."""


def list_sessions(directory: str | os.PathLike[str], fmt: str = FORMAT_REASONIX) -> list[SessionInfo]:
    """Visible sessions of a directory, most recently active first (ties by path),
    without those that have no user-authored turn."""
    out: list[SessionInfo] = []
    visible = is_visible_session if fmt == FORMAT_REASONIX else None
    for path, st in list_transcripts(directory, visible):
        transcript = read_transcript(path, fmt)
        if not transcript.ok:
            continue
        turns = 0
        preview = ""
        for msg in transcript.messages:
            if is_user_authored_turn_message(msg):
                turns += 1
                if not preview:
                    preview = truncate_runes(one_line(user_message_text(msg)), 80, 77, "…")
        if turns == 0:
            continue
        updated = branch_meta_updated(path) if fmt == FORMAT_REASONIX else None
        out.append(
            SessionInfo(
                path=path,
                session_id=session_id_of(path),
                last_activity=updated or Timestamp(st.st_mtime_ns),
                turns=turns,
                preview=preview,
                format=fmt,
            )
        )
    out.sort(key=lambda s: (-s.last_activity.ns, s.path))
    return out


# --------------------------------------------------------------------------------------
# Claude Code locations


def claude_home(env: dict[str, str] | None = None) -> Path:
    """``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    env = os.environ if env is None else env
    base = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if base:
        return Path(os.path.expanduser(base))
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".claude"


def claude_project_slugs(workspace: str | os.PathLike[str]) -> list[str]:
    """Candidate directory names Claude Code uses for a workspace.

    Claude replaces ``/`` and ``.`` with ``-`` (``/Users/me/proj`` → ``-Users-me-proj``);
    newer builds replace every non-alphanumeric character. Both are tried, in that order.
    """
    ws = os.path.normpath(os.path.abspath(os.fspath(workspace)))
    a = ws.replace("\\", "-").replace("/", "-").replace(".", "-").replace(":", "-")
    b = re.sub(r"[^A-Za-z0-9]", "-", ws)
    return list(dict.fromkeys([a, b]))


def claude_project_dir(workspace: str | os.PathLike[str], home: Path | None = None) -> Path | None:
    """The existing ``~/.claude/projects/<slug>`` directory of a workspace, if any."""
    root = (home or claude_home()) / "projects"
    for slug in claude_project_slugs(workspace):
        d = root / slug
        if d.is_dir():
            return d
    return None


def list_claude_transcripts(project_dir: str | os.PathLike[str]) -> list[tuple[str, os.stat_result]]:
    """Claude transcripts of one project directory, plus ``<session>/subagents/*.jsonl``."""
    d = os.fspath(project_dir)
    out = list_transcripts(d)
    try:
        with os.scandir(d) as it:
            subdirs = [e.path for e in it if e.is_dir(follow_symlinks=False)]
    except OSError:
        subdirs = []
    for sub in subdirs:
        out.extend(list_transcripts(os.path.join(sub, "subagents")))
    return out


# --------------------------------------------------------------------------------------
# Host-text classification (Reasonix internal/agent; used by suggestions and previews)

TRANSIENT_USER_BLOCK_TAGS = (
    "response-language",
    "reasoning-language",
    "memory-update",
    "background-jobs",
    "active-goal",
    "autoresearch-runtime",
    "hook-context",
    "capability-route",
    "interrupted-turn-recovery",
    "execution-policy",
)
_GO_S = r"[\t\n\f\r ]"  # RE2 \s
_ALT = "|".join(re.escape(t) for t in TRANSIENT_USER_BLOCK_TAGS)
_RE_TRANSIENT = re.compile(rf"^{_GO_S}*<(?:{_ALT})(?:{_GO_S}+[^>]*)?>.*?</(?:{_ALT})>{_GO_S}*\n?", re.S)
_RE_TRAILING_EXEC_POLICY = re.compile(rf"\n*<execution-policy(?:{_GO_S}+[^>]*)?>.*?</execution-policy>{_GO_S}*\Z", re.S)
_RE_MEMORY_COMPILER = re.compile(r"<memory-compiler-execution>" + _GO_S + r"*(.*?)" + _GO_S + r"*</memory-compiler-execution>", re.S)
_MEMORY_COMPILER_OPEN = "<memory-compiler-execution>"

DELIVERY_RUNTIME_MARKER = """<delivery-runtime>
This session is in delivery-first mode. Before any state-changing tool call,
establish concrete, verifiable acceptance criteria with todo_write. After the
change, inspect the result, run relevant verification, and sign off each step
with complete_step citing the successful verification command. The host enforces
these gates and will reject mutation or finalization when evidence is missing.
</delivery-runtime>"""

MID_TURN_STEER_PREFIX = (
    "[Mid-turn steer queued by the user. Do not treat this as a new task; use it only as additional "
    "guidance for the current task after completing the current step.]"
)
HOST_NOTICE_PREFIX = (
    "[Mid-turn notice from the host runtime; the user did not send this. Do not treat it as a new task or "
    "as a message to answer; use it only as additional guidance for the current task after completing the "
    "current step.]"
)
EXECUTOR_HANDOFF_MARKER = "Reasonix executor handoff"

_HOST_RECOVERY_TOOL_FAILED = "A tool failed. Use read-only diagnosis as needed"
_HOST_RECOVERY_TRANSIENT = "The tool timed out or hit a transient execution limit."
LEGACY_SYNTHETIC_USER_PREFIXES = (
    "<reasoning-language>",
    "Plan approved — plan mode is off",
    "Host final-answer readiness check failed",
    "This turn ended with work still outstanding:",
    "The current task list still has an in-progress item.",
    "You are already in the executor phase",
    "The previous assistant response was interrupted while a tool call",
    "The previous assistant response was interrupted during streaming",
    "The previous assistant response was interrupted before visible",
    "The previous assistant response finished without any visible answer",
    "<compaction-summary>",
    "Summary of the later conversation (compacted from here on):",
    "Summary of earlier conversation (compacted up to here):",
    "Continue pursuing the active goal",
    "The agent signaled goal completion and all tasks are marked done.",
    "Goal signaled complete but issues remain:",
    "No tool calls in recent turns.",
    _HOST_RECOVERY_TOOL_FAILED,
    _HOST_RECOVERY_TRANSIENT,
    "The host could not confirm this turn is complete:",
    "This task has reached its ",
    "Your tool-call round limit (",
    "The following tools are unavailable in the current workflow phase:",
    "Auto recovery has reached its limit for this turn.",
    "Host progress check:",
    "Host progress redirect:",
)

_WS4 = " \t\r\n"


def _memory_compiler_source_event(body: str) -> str:
    try:
        contract = json.loads(trim_space(body))
    except ValueError:
        return ""
    if not isinstance(contract, dict):
        return ""
    planner = contract.get("planner_ir")
    if isinstance(planner, dict) and isinstance(planner.get("source_event"), str):
        s = trim_space(planner["source_event"])
        if s:
            return s
    se = contract.get("source_event")
    return trim_space(se) if isinstance(se, str) else ""


def _unwrap_memory_compiler(content: str) -> str:
    for _ in range(24):
        if _MEMORY_COMPILER_OPEN not in content:
            return content
        nxt = _RE_MEMORY_COMPILER.sub(lambda m: _memory_compiler_source_event(m.group(1)), content)
        if nxt == content:
            break
        content = nxt
    idx = content.find(_MEMORY_COMPILER_OPEN)
    if idx >= 0:
        content = content[:idx].rstrip(_WS4)
    return content


def _strip_trailing_delivery_runtime(s: str) -> str:
    trimmed = s.rstrip(_WS4)
    if trimmed.endswith(DELIVERY_RUNTIME_MARKER):
        return trimmed[: -len(DELIVERY_RUNTIME_MARKER)].rstrip(_WS4)
    return s


def _strip_trailing_memory_recall(s: str) -> str:
    trimmed = s.rstrip(_WS4)
    if not trimmed.endswith("</memory-recall>"):
        return s
    idx = trimmed.rfind("<memory-recall>")
    if idx >= 0:
        return trimmed[:idx].rstrip(_WS4)
    return s


def strip_transient_user_blocks(content: str) -> str:
    """Reasonix ``StripTransientUserBlocks``: drop host-injected blocks from a user turn."""
    s = _unwrap_memory_compiler(content)
    while True:
        nxt = _RE_TRANSIENT.sub("", s, count=1)
        if nxt == s:
            break
        s = nxt
    s = _strip_trailing_delivery_runtime(s)
    s = _RE_TRAILING_EXEC_POLICY.sub("", s)
    s = _strip_trailing_memory_recall(s)
    return s.lstrip(_WS4)


def _handoff_task(s: str) -> str:
    trimmed = trim_space(s)
    if not trimmed.startswith("# " + EXECUTOR_HANDOFF_MARKER):
        return s
    header = "Original task:\n"
    i = trimmed.find(header)
    if i < 0:
        return s
    rest = trimmed[i + len(header):]
    j = rest.find("\n\nPlanner output:")
    if j >= 0:
        rest = rest[:j]
    task = trim_space(rest)
    return task if task else s


def user_preview_text(content: str) -> str:
    """Reasonix ``UserPreviewText``: the user-authored part of a persisted user message."""
    s = strip_transient_user_blocks(content)
    s = _handoff_task(s)
    s = strip_transient_user_blocks(s)
    return trim_space(s)


def user_message_text(msg: Message) -> str:
    """Reasonix ``UserMessageText``: ``raw_content`` when set, else the stripped content."""
    if msg.raw_content:
        return trim_space(msg.raw_content)
    return user_preview_text(msg.content)


def _trim_leading_steer_wrapper(content: str) -> tuple[str, bool]:
    s = content.lstrip(_WS4)
    for tag in ("response-language", "reasoning-language"):
        open_tag = f"<{tag}>"
        if not s.startswith(open_tag):
            continue
        close = f"</{tag}>"
        j = s.find(close)
        if j < 0:
            continue
        return s[j + len(close):].lstrip(_WS4), True
    return "", False


def _steer_kind(content: str) -> tuple[str, bool, bool]:
    s = content
    while True:
        for i, prefix in enumerate((MID_TURN_STEER_PREFIX, HOST_NOTICE_PREFIX)):
            if s.startswith(prefix):
                after = s[len(prefix):]
                if after.startswith("\n"):
                    after = after[1:]
                suffix = "\n\n" + DELIVERY_RUNTIME_MARKER
                if after.endswith(suffix):
                    after = after[: -len(suffix)]
                return after, i == 1, True
        nxt, ok = _trim_leading_steer_wrapper(s)
        if not ok:
            return "", False, False
        s = nxt


def steer_text(content: str) -> tuple[str, bool]:
    """Reasonix ``SteerText``: the user text of a mid-turn steer, and whether it is one."""
    text, _, ok = _steer_kind(content)
    return text, ok


def _is_host_recovery_guidance(text: str) -> bool:
    trimmed = trim_space(text)
    if not trimmed:
        return False
    if trimmed.startswith("↪ "):
        trimmed = trim_space(trimmed[len("↪ "):])
    return trimmed.startswith(_HOST_RECOVERY_TOOL_FAILED) or trimmed.startswith(_HOST_RECOVERY_TRANSIENT)


def is_synthetic_user_text(content: str) -> bool:
    """Reasonix ``IsSyntheticUserText``: legacy recognition of host-written user turns."""
    trimmed = trim_space(strip_transient_user_blocks(content))
    if _is_host_recovery_guidance(trimmed):
        return True
    steer, host_notice, is_steer = _steer_kind(content)
    if is_steer:
        if host_notice:
            return True
        steer = trim_space(steer)
        if _is_host_recovery_guidance(steer):
            return True
    for prefix in LEGACY_SYNTHETIC_USER_PREFIXES:
        if trimmed.startswith(prefix) or (is_steer and steer.startswith(prefix)):
            return True
    return False


def is_host_generated_user_message(msg: Message) -> bool:
    """Explicit ``origin`` decides; legacy messages without one fall back to the text."""
    if msg.role != "user":
        return False
    if msg.origin == "host":
        return True
    if msg.origin == "user":
        return False
    return is_synthetic_user_text(msg.content)


def is_user_authored_turn_message(msg: Message) -> bool:
    """Reasonix ``IsUserAuthoredTurnMessage``: a real, visible user turn start."""
    if msg.role != "user" or is_host_generated_user_message(msg):
        return False
    if not trim_space(strip_transient_user_blocks(user_message_text(msg))):
        return False
    _, is_steer = steer_text(msg.content)
    return not is_steer


def is_pinned_context_revision(msg: Message) -> bool:
    """Host-authored standing-context updates, excluded from history surfaces."""
    return msg.role == "user" and msg.origin == "host" and trim_space(msg.content).startswith("<pinned_context_revision")

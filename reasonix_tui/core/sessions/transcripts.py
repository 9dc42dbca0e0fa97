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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..compat.encoding import read_text
from ..compat.gostr import one_line, trim_space, truncate_runes
from ..compat.gotime import Timestamp, parse_rfc3339
from .claude import ClaudeParser
from .messages import (
    FORMAT_CLAUDE,
    FORMAT_REASONIX,
    JsonLine,
    Message,
    ReadStats,
    ToolCall,
    Transcript,
    arguments_text,
    content_text,
    iter_json_lines,
    ms_timestamp,
)
from .user_text import is_user_authored_turn_message, user_message_text

__all__ = [
    "SessionInfo",
    "ReasonixParser",
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
    "scan_transcripts",
    "list_sessions",
    "session_id_of",
    "branch_meta_updated",
]


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


# --------------------------------------------------------------------------------------
# Streaming JSONL


# --------------------------------------------------------------------------------------
# Parsers (stateful, so an index can resume a growing file)


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
        role = role if type(role) is str else content_text(role)
        content = get("content")
        content = content if type(content) is str else content_text(content)
        raw = get("raw_content")
        raw = raw if type(raw) is str else content_text(raw)
        provider_content = get("provider_content")
        if provider_content and role == "user":
            # Early Context Engine v2 builds inverted the two fields; migrate on load.
            if not raw:
                raw = content
            content = content_text(provider_content)
        calls: tuple[ToolCall, ...] = ()
        raw_calls = get("tool_calls")
        if raw_calls and isinstance(raw_calls, list):
            out = []
            for c in raw_calls:
                if not isinstance(c, dict):
                    continue
                fn: dict[str, Any] = c["function"] if isinstance(c.get("function"), dict) else {}
                name = content_text(c.get("name")) or content_text(fn.get("name"))
                args = c.get("arguments") if "arguments" in c else fn.get("arguments")
                out.append(ToolCall(id=content_text(c.get("id")), name=name, arguments=arguments_text(args)))
            calls = tuple(out)
        origin = get("origin")
        tool_name = get("name")
        return Message(
            role=role,
            content=content,
            raw_content=raw,
            origin=origin if type(origin) is str else content_text(origin),
            name=tool_name if type(tool_name) is str else content_text(tool_name),
            tool_call_id=content_text(get("tool_call_id")),
            tool_calls=calls,
            reasoning=content_text(get("reasoning_content")),
            created_at=ms_timestamp(get("createdAt")),
            local_only=get("local_only") is True,
            offset=offset,
        )


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
        return Transcript(
            path=path, format=fmt, messages=(), error=f"{type(exc).__name__}: {exc}", session_id=session_id_of(path)
        )
    stats = ReadStats(lines=lines, broken=broken, skipped=skipped, truncated_tail=truncated, oversized=oversized)
    if isinstance(parser, ClaudeParser):
        return Transcript(
            path=path, format=fmt, messages=tuple(messages), stats=stats, session_id=session_id_of(path), cwd=parser.cwd
        )
    return Transcript(
        path=path,
        format=fmt,
        messages=tuple(messages),
        stats=stats,
        schema_version=parser.schema_version,
        session_id=session_id_of(path),
    )


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
        fallback = meta.get("parent_session")
        parent = fallback if isinstance(fallback, str) else ""
    return trim_space(parent), True


def is_visible_subagent_session(session_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """A sub-agent transcript is visible unless it, or its parent session, is cleanup-pending."""
    if not is_visible_session(path):
        return False
    parent, ok = subagent_parent_session(path)
    if not ok or not parent:
        return True
    return not is_cleanup_pending(os.path.join(os.fspath(session_dir), parent + ".jsonl"))


def scan_transcripts(directory: str) -> tuple[set[str], list[tuple[str, os.stat_result]]]:
    """One ``scandir`` of ``directory`` (no recursion): every entry name, and the transcript
    files with their stat. A blank, missing or unreadable directory gives nothing."""
    if not trim_space(directory):
        return set(), []
    try:
        with os.scandir(directory) as it:
            entries = list(it)
    except OSError:
        return set(), []
    names = {e.name for e in entries}
    files: list[tuple[str, os.stat_result]] = []
    for e in entries:
        if not is_session_transcript_name(e.name):
            continue
        try:
            if e.is_dir():
                continue
            files.append((e.path, e.stat()))
        except OSError:
            continue
    return names, files


def list_transcripts(
    directory: str | os.PathLike[str], visible: Callable[[str], bool] | None = None
) -> list[tuple[str, os.stat_result]]:
    """Transcript files directly in ``directory`` (no recursion), with their stat.

    A missing or unreadable directory gives an empty list.
    """
    _names, files = scan_transcripts(trim_space(os.fspath(directory)))
    return [(path, st) for path, st in files if visible is None or visible(path)]


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

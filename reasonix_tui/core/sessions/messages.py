"""The transcript message model shared by every transcript format, and the lenient JSON-lines
reader under them: one bad line never hides the rest.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..compat.gotime import Timestamp
from ..store.safeio import open_read

__all__ = [
    "FORMAT_REASONIX",
    "FORMAT_CLAUDE",
    "MAX_LINE_BYTES",
    "ToolCall",
    "Message",
    "ReadStats",
    "Transcript",
    "JsonLine",
    "iter_json_lines",
]


FORMAT_REASONIX = "reasonix"


FORMAT_CLAUDE = "claude"


MAX_LINE_BYTES = 64 * 1024 * 1024
"""Lines longer than this are skipped (and counted) instead of being held in memory."""


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


def content_text(value: Any) -> str:
    """A message's content as text (text parts of a content list joined; anything else as JSON)."""
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


def arguments_text(value: Any) -> str:
    """Tool-call arguments as text (compact JSON unless already a string)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def ms_timestamp(value: Any) -> Timestamp | None:
    """A positive millisecond epoch number as a timestamp (else ``None``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return Timestamp(int(value) * 1_000_000)

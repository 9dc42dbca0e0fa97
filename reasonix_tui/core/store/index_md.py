"""``MEMORY.md``: the derived per-directory index that keeps hand-written text (spec §1.7).

Only *managed* lines (``- [label](stem.md) — …``) are rewritten; every other line is
kept verbatim, so notes a person typed into ``MEMORY.md`` survive every save.
"""

from __future__ import annotations

import os
import re

from ..compat.encoding import decode_bytes
from ..compat.gostr import one_line
from . import safeio
from .atomic import atomic_write
from .model import Fact, display_title, normalize_fact_scope, normalize_type

__all__ = [
    "INDEX_NAME",
    "MANAGED_LINE",
    "render_index_line",
    "read_index",
    "flush_index",
    "reindex",
    "managed_stems",
    "rewrite_index_text",
    "index_lines_except",
]

INDEX_NAME = "MEMORY.md"
MANAGED_LINE = re.compile(r"^\s*-\s\[.+?\]\(([^)]+)\.md\)\s*—\s.*$")


def render_index_line(name: str, fact: Fact) -> str:
    """``- [<label>](<name>.md) — [<scope>/<type><pinned>] <description>``."""
    label = display_title(fact.title, name)
    pinned = " pinned" if fact.pinned else ""
    scope = normalize_fact_scope(fact.scope)
    type_ = normalize_type(fact.type)
    return f"- [{label}]({name}.md) — [{scope}/{type_}{pinned}] {one_line(fact.description)}"


def read_index(directory: str) -> str:
    """The decoded ``MEMORY.md`` text; ``""`` when missing. Any other error raises ``OSError``."""
    path = os.path.join(directory, INDEX_NAME)
    try:
        data = safeio.read_regular(path)  # a FIFO here is an error, never a hang
    except FileNotFoundError:
        return ""
    return decode_bytes(data).text


def managed_stems(text: str) -> list[str]:
    """Stems of the managed lines, in order."""
    out: list[str] = []
    for line in text.split("\n"):
        m = MANAGED_LINE.match(line.rstrip("\r"))
        if m:
            out.append(m.group(1))
    return out


def rewrite_index_text(existing: str, lines: dict[str, str]) -> str:
    """The pure rewrite of §1.7 steps 2-6, mirroring Reasonix's ``flushIndexIn``.

    Every kept line is written followed by ``\n`` (including the empty element after
    the final newline), so a newly appended entry lands after one blank line, exactly
    as Reasonix writes it.
    """
    preserved: list[str] = []
    processed: set[str] = set()
    preserved_empty = True
    for raw in existing.split("\n"):
        line = raw.rstrip("\r")
        m = MANAGED_LINE.match(line)
        if m:
            stem = m.group(1)
            fresh = lines.get(stem)
            if fresh is not None:
                preserved.append(fresh + "\n")
                processed.add(stem)
                preserved_empty = False
            continue
        preserved.append(line + "\n")
        if line.strip():
            preserved_empty = False
    new_stems = sorted((s for s in lines if s not in processed), key=lambda s: s.encode("utf-8"))
    parts: list[str] = ["# Memory\n\n"] if preserved_empty and new_stems else preserved
    parts = list(parts) + [lines[stem] + "\n" for stem in new_stems]
    text = "".join(parts).rstrip("\n")
    return text + "\n" if text else ""


def index_lines_except(text: str, name: str) -> dict[str, str]:
    """Managed lines keyed by stem, without ``name`` (``indexLinesExceptIn``)."""
    keep: dict[str, str] = {}
    for line in text.split("\n"):
        m = MANAGED_LINE.match(line.rstrip("\r"))
        if m and m.group(1) != name:
            keep[m.group(1)] = line.rstrip("\r")
    return keep


def flush_index(directory: str, lines: dict[str, str], existing: str | None = None) -> None:
    """Rewrite ``MEMORY.md`` with ``lines`` (stem → fresh line). Read errors abort the write."""
    if existing is None:
        existing = read_index(directory)
    text = rewrite_index_text(existing, lines)
    path = os.path.join(directory, INDEX_NAME)
    if text == existing and os.path.exists(path):
        return
    if not text and not os.path.exists(path):
        return
    atomic_write(path, text, 0o644)


def reindex(directory: str, name: str, fact: Fact | None) -> None:
    """``reindexIn`` (``fact`` given) or remove ``name``'s line (``fact`` is None)."""
    existing = read_index(directory)
    lines = index_lines_except(existing, name)
    if fact is not None:
        lines[name] = render_index_line(name, fact)
    flush_index(directory, lines, existing)

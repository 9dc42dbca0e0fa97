"""Markdown documents with YAML frontmatter that are not Reasonix fact files.

Claude Code's memory topic files, skill files (``SKILL.md``) and other agents' notes
(Cursor's ``.mdc`` rules…) carry frontmatter but need no byte compatibility with Go, so
python-frontmatter reads and writes them. Reasonix fact files never go through here: they
are read and rendered byte-exact by :mod:`reasonix_tui.core.store.fileformat`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import frontmatter
import yaml

__all__ = ["MarkdownDocument", "read_markdown", "write_markdown"]


@dataclass(frozen=True, slots=True)
class MarkdownDocument:
    """A document split into its frontmatter and its body."""

    metadata: Mapping[str, Any] = field(default_factory=dict)
    """The frontmatter (empty when absent, not a mapping, or not valid YAML)."""
    body: str = ""
    """The text after the frontmatter, stripped of surrounding blank space."""
    body_line: int = 1
    """1-based line of ``text`` on which the body starts (for line numbers in the body)."""


def read_markdown(text: str) -> MarkdownDocument:
    """Split ``text``; a frontmatter that does not parse is dropped, the body is kept."""
    text = text.replace("\r\n", "\n")
    try:
        post = frontmatter.loads(text)
        metadata: Mapping[str, Any] = post.metadata
        body = post.content
    except (yaml.YAMLError, ValueError, TypeError):
        metadata = {}
        parts = frontmatter.YAMLHandler.FM_BOUNDARY.split(text.strip(), 2)
        body = parts[2].strip() if len(parts) == 3 and not parts[0].strip() else text.strip()
    if not isinstance(metadata, Mapping):
        metadata = {}
    start = len(text.rstrip()) - len(body)
    return MarkdownDocument(dict(metadata), body, text[: max(start, 0)].count("\n") + 1)


def write_markdown(metadata: Mapping[str, Any], body: str) -> str:
    """``---``, the metadata as YAML in the given key order, ``---``, a blank line, the body."""
    post = frontmatter.Post(body.rstrip(" \t\r\n"), **dict(metadata))
    return frontmatter.dumps(post, sort_keys=False, allow_unicode=True, width=1 << 30) + "\n"

"""Options, limits and validation of the session ``history`` tool.

The directories a search may read (:class:`HistoryOptions`), Reasonix's limits and
scopes, and the checks that give Reasonix's exact error texts (:class:`HistoryError`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from ..compat.gostr import go_quote, trim_space
from ..paths import Layout, abs_clean
from ..store.model import InvalidInput
from .claude import claude_project_dir
from .history_docs import (
    DEFAULT_KINDS,
    KINDS,
)
from .transcripts import (
    subagents_dir,
)

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "DEFAULT_AROUND",
    "MAX_AROUND",
    "SCORE_FLOOR",
    "SOURCE_PROJECT",
    "SOURCE_GLOBAL",
    "SOURCE_ARCHIVE",
    "SOURCE_CLAUDE",
    "HistoryError",
    "HistoryOptions",
    "normalize_scope",
    "normalize_kinds",
    "clamp_limit",
    "under_root",
]

KIND_ID = {k: i for i, k in enumerate(KINDS)}


KIND_ROLE = ("user", "assistant", "assistant", "tool", "tool")


DEFAULT_LIMIT = 8
MAX_LIMIT = 20
DEFAULT_AROUND = 3
MAX_AROUND = 10
SCORE_FLOOR = 0.15

SOURCE_PROJECT = "project"
SOURCE_GLOBAL = "global"
SOURCE_ARCHIVE = "archive"
SOURCE_CLAUDE = "claude"


class HistoryError(InvalidInput):
    """Invalid ``history`` input; ``str(err)`` is Reasonix's exact message."""


@dataclass(frozen=True, slots=True)
class HistoryOptions:
    """The directories the tool may read (Reasonix ``history.Options`` plus Claude)."""

    session_dir: str = ""
    """The current session directory (project scope)."""
    global_session_dir: str = ""
    """The user-global session directory (global scope)."""
    archive_dir: str = ""
    """Compacted-history archives (global scope)."""
    claude_dir: str = ""
    """The workspace's Claude Code project directory (searched in every scope, source ``claude``)."""

    @classmethod
    def for_layout(cls, layout: Layout, include_claude: bool = True) -> HistoryOptions:
        """Desktop layout: project sessions of the workspace, CLI sessions, archives, and
        the workspace's Claude Code transcripts when present."""
        claude = claude_project_dir(layout.workspace) if include_claude else None
        return cls(
            session_dir=str(layout.project_sessions_dir),
            global_session_dir=str(layout.global_sessions_dir),
            archive_dir=str(layout.history_archive_dir),
            claude_dir=str(claude) if claude else "",
        )

    def normalized(self) -> HistoryOptions:
        """The same options with every directory absolute and cleaned."""

        def n(d: str) -> str:
            return abs_clean(d) if trim_space(d) else ""

        return HistoryOptions(n(self.session_dir), n(self.global_session_dir), n(self.archive_dir), n(self.claude_dir))

    def roots(self) -> list[str]:
        """Every root ``around`` may open (Reasonix's five, plus the Claude directory)."""
        out = [self.session_dir, self.global_session_dir, self.archive_dir]
        if self.session_dir:
            out.append(subagents_dir(self.session_dir))
        if self.global_session_dir:
            out.append(subagents_dir(self.global_session_dir))
        if self.claude_dir:
            out.append(self.claude_dir)
        return [r for r in out if trim_space(r)]


def under_root(path: str, root: str) -> bool:
    """Go ``Rel(abs root, abs path)`` is ``.`` or does not start with ``..``."""
    if not trim_space(path) or not trim_space(root):
        return False
    try:
        rel = os.path.relpath(abs_clean(path), abs_clean(root))
    except ValueError:
        return False
    return rel == "." or (rel != ".." and not rel.startswith(".." + os.sep))


def clamp_limit(n: int, default: int, maximum: int) -> int:
    if n <= 0:
        return default
    return min(n, maximum)


def normalize_scope(scope: str | None) -> str:
    """``""`` → project; ``project`` | ``global``; ``archive`` (archives only) is our extension."""
    s = trim_space(scope or "")
    if s in ("", SOURCE_PROJECT):
        return SOURCE_PROJECT
    if s in (SOURCE_GLOBAL, SOURCE_ARCHIVE):
        return s
    raise HistoryError('scope must be "project" or "global"')


def normalize_kinds(kinds: Sequence[str] | None) -> frozenset[str]:
    """Default kinds when empty; ``unknown kind "<k>"`` for anything else."""
    if not kinds:
        return DEFAULT_KINDS
    out = set()
    for k in kinds:
        if k not in KIND_ID:
            raise HistoryError(f"unknown kind {go_quote(str(k))}")
        out.add(k)
    return frozenset(out)

"""Which session transcripts the ``history`` tool reads, and ``around`` windows.

A scope lists Reasonix's session directories, their sub-agents (those pending cleanup
left out), the archives and the workspace's Claude Code transcripts; ``around`` opens
one transcript inside those roots and renders the messages about one index.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..compat.gostr import trim_space
from .history_docs import (
    MessageContext,
    render_message,
)
from .history_options import (
    DEFAULT_AROUND,
    MAX_AROUND,
    SOURCE_ARCHIVE,
    SOURCE_CLAUDE,
    SOURCE_GLOBAL,
    SOURCE_PROJECT,
    HistoryError,
    HistoryOptions,
    clamp_limit,
    under_root,
)
from .messages import FORMAT_CLAUDE, FORMAT_REASONIX
from .transcripts import (
    is_session_transcript_name,
    is_visible_session,
    is_visible_subagent_session,
    list_claude_transcripts,
    read_transcript,
    scan_transcripts,
    subagents_dir,
)
from .user_text import is_pinned_context_revision

__all__ = ["SessionSources"]


def _stem(name: str) -> str:
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name


class SessionSources:
    """The transcripts the ``history`` tool may read: listing per scope (Reasonix's order),
    the directories a scope covers, and the path checks of ``around``."""

    def __init__(self, options: HistoryOptions) -> None:
        self.options = options
        """The directories searched (absolute, cleaned)."""
        self._meta_cache: dict[str, tuple[int, int, str, bool]] = {}

    def _subagent_parent(self, path: str) -> tuple[str, bool]:
        """``parentSession`` of a sub-agent transcript, cached by the meta file's mtime/size."""
        meta = path[: -len(".jsonl")] + ".meta.json"
        try:
            st = os.stat(meta)
        except OSError:
            return "", False
        cached = self._meta_cache.get(meta)
        if cached is not None and cached[0] == st.st_mtime_ns and cached[1] == st.st_size:
            return cached[2], cached[3]
        from .transcripts import subagent_parent_session

        parent, ok = subagent_parent_session(path)
        self._meta_cache[meta] = (st.st_mtime_ns, st.st_size, parent, ok)
        return parent, ok

    def _list_session_dir(self, d: str) -> list[tuple[str, os.stat_result]]:
        """Visible transcripts of a session directory and of its ``subagents/``."""
        names, files = scan_transcripts(d)
        out = [(p, st) for p, st in files if _stem(os.path.basename(p)) + ".cleanup-pending.json" not in names]
        sub_names, sub_files = scan_transcripts(subagents_dir(d))
        for path, st in sub_files:
            if _stem(os.path.basename(path)) + ".cleanup-pending.json" in sub_names:
                continue
            parent, ok = self._subagent_parent(path)
            if ok and parent and parent + ".cleanup-pending.json" in names:
                continue
            out.append((path, st))
        return out

    def sources(self, scope: str) -> list[tuple[str, str, str, os.stat_result]]:
        """``(path, source label, format, stat)`` for a scope, de-duplicated by path (first wins).

        Sorted by modification time (newest first), then path, as Reasonix lists them.
        """
        o = self.options
        out: list[tuple[str, str, str, os.stat_result]] = []
        seen: set[str] = set()

        def add(files: Iterable[tuple[str, os.stat_result]], label: str, fmt: str) -> None:
            for path, st in files:
                if path in seen:
                    continue
                seen.add(path)
                out.append((path, label, fmt, st))

        if scope in (SOURCE_PROJECT, SOURCE_GLOBAL) and trim_space(o.session_dir):
            add(self._list_session_dir(o.session_dir), SOURCE_PROJECT, FORMAT_REASONIX)
        if scope == SOURCE_GLOBAL and trim_space(o.global_session_dir):
            add(self._list_session_dir(o.global_session_dir), SOURCE_GLOBAL, FORMAT_REASONIX)
        if scope in (SOURCE_GLOBAL, SOURCE_ARCHIVE) and trim_space(o.archive_dir):
            add(scan_transcripts(o.archive_dir)[1], SOURCE_ARCHIVE, FORMAT_REASONIX)
        if o.claude_dir and scope in (SOURCE_PROJECT, SOURCE_GLOBAL):
            add(list_claude_transcripts(o.claude_dir), SOURCE_CLAUDE, FORMAT_CLAUDE)
        out.sort(key=lambda t: (-t[3].st_mtime_ns, t[0]))
        return out

    def scope_dirs(self, scope: str) -> list[str]:
        o = self.options
        dirs: list[str] = []
        if scope in (SOURCE_PROJECT, SOURCE_GLOBAL):
            dirs += [o.session_dir, subagents_dir(o.session_dir)]
        if scope == SOURCE_GLOBAL:
            dirs += [o.global_session_dir, subagents_dir(o.global_session_dir)]
        if scope in (SOURCE_GLOBAL, SOURCE_ARCHIVE):
            dirs.append(o.archive_dir)
        if o.claude_dir and scope in (SOURCE_PROJECT, SOURCE_GLOBAL):
            dirs.append(o.claude_dir)
            try:
                with os.scandir(o.claude_dir) as it:
                    dirs += [os.path.join(e.path, "subagents") for e in it if e.is_dir(follow_symlinks=False)]
            except OSError:
                pass
        return [d for d in dirs if d]

    def allowed_path(self, path: str) -> bool:
        """Inside a configured root, lexically *and* after resolving symlinks, and named
        like a transcript."""
        if not is_session_transcript_name(os.path.basename(path)):
            return False
        roots = self.options.roots()
        lexical = any(under_root(path, r) for r in roots)
        if not lexical:
            return False
        real = os.path.realpath(path)
        return any(under_root(real, os.path.realpath(r)) for r in roots)

    def visible_path(self, path: str) -> bool:
        """Reasonix ``visiblePath`` (sub-agents follow their parent; archives always visible)."""
        o = self.options
        for d in (o.session_dir, o.global_session_dir):
            if not trim_space(d):
                continue
            if under_root(path, subagents_dir(d)):
                return is_visible_subagent_session(d, path)
            if under_root(path, d):
                return is_visible_session(path)
        if trim_space(o.archive_dir) and under_root(path, o.archive_dir):
            return True
        if o.claude_dir and under_root(path, o.claude_dir):
            return True
        return False

    def around(self, session_path: str, message_index: int, before: int = 0, after: int = 0) -> list[MessageContext]:
        """Reasonix ``Searcher.Around`` (with the same error texts)."""
        path = trim_space(session_path)
        if not path:
            raise HistoryError("session_path is required")
        if message_index < 0:
            raise HistoryError("message_index must be non-negative")
        if not self.allowed_path(path):
            raise HistoryError("session_path is outside the configured history roots")
        if not self.visible_path(path):
            raise HistoryError("session_path is pending cleanup")
        fmt = (
            FORMAT_CLAUDE if self.options.claude_dir and under_root(path, self.options.claude_dir) else FORMAT_REASONIX
        )
        transcript = read_transcript(path, fmt)
        if not transcript.ok:
            if not os.path.exists(path):
                raise HistoryError(f"open {path}: no such file or directory")
            raise HistoryError(transcript.error)
        msgs = transcript.messages
        if message_index >= len(msgs):
            raise HistoryError(f"message_index {message_index} is outside session length {len(msgs)}")
        b = clamp_limit(before, DEFAULT_AROUND, MAX_AROUND)
        a = clamp_limit(after, DEFAULT_AROUND, MAX_AROUND)
        start = max(message_index - b, 0)
        end = min(message_index + a + 1, len(msgs))
        return [
            MessageContext(i, render_message(i, msgs[i]))
            for i in range(start, end)
            if not is_pinned_context_revision(msgs[i])
        ]

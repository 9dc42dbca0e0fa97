"""The sessions suggestions look at, mined once per file version.

Sessions of the workspace: Reasonix desktop sessions (``<root>/projects/<slug>/sessions``),
Reasonix CLI sessions whose branch meta names the workspace (``<root>/sessions``), and
the workspace's Claude Code transcripts. Hidden (cleanup-pending) sessions and sessions
without a user-authored turn are skipped. The **window** is a time span: sessions active
within ``window_days`` of the newest one (``[suggestions] window_days``; 0 takes
everything).

Each transcript is mined once per version (size and mtime): its durable statements
(:mod:`.statements`), its steps (:mod:`.procedures`) and the requests that started them.
The results of every file are kept in ``<root>/reasonix-tui/cache/suggestions-<hash>.marshal``
(0600, checksummed, tied to the miner's source), so a later ``suggest`` reads only new or
changed transcripts. A missing or foreign cache is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from ...compat.encoding import read_text
from ...compat.gostr import one_line, trim_space, truncate_runes
from ...compat.gotime import DAY_NS, Timestamp, parse_rfc3339
from ...paths import Layout, abs_clean
from ...store.sealed import read_sealed, source_stamp, write_sealed
from ..claude import claude_project_dir
from ..messages import FORMAT_CLAUDE, FORMAT_REASONIX
from ..transcripts import is_session_transcript_name, read_transcript, session_id_of
from ..user_text import is_user_authored_turn_message, user_message_text

__all__ = ["SessionRecord", "MinedHistory", "mine_sessions", "cache_path", "list_transcripts", "miner_stamp"]

_MAGIC = b"RXTSUGG1"
_VERSION = 1
_TRIGGER_RUNES = 300


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """What one transcript contributes."""

    path: str
    fmt: str
    session_id: str
    source: str
    """``session`` (Reasonix) or ``claude-session``."""
    last_ns: int
    """Last activity: branch meta ``updated_at``, else the newest message time, else the file's mtime."""
    turns: int
    """User-authored turns."""
    statements: tuple[Any, ...]
    """Statements as :meth:`~.statements.Statement.to_tuple` tuples (built into objects on demand)."""
    steps: tuple[Any, ...]
    """:class:`~.procedures.Step` values."""
    triggers: dict[int, str]
    """Message index → the request text that started steps."""
    tools: frozenset[str] = frozenset()
    """Programs its commands ran (``yarn``, ``alembic``): words that name a tool."""


@dataclass(frozen=True, slots=True)
class MinedHistory:
    """The sessions inside the window, mined."""

    sessions: tuple[SessionRecord, ...]
    """Newest first."""
    read: int
    """Files read in this call (the rest came from the cache)."""
    listed: int
    """Transcripts listed before the window."""


MINER_MODULES = (
    "sentences.py",
    "entities.py",
    "rule_patterns.py",
    "exclusion_patterns.py",
    "fact_patterns.py",
    "signals.py",
    "statements.py",
    "procedures.py",
    "language.py",
    "titles.py",
    "items.py",
    "clustering.py",
    "known.py",
    "candidates.py",
)
"""The modules of this package whose code decides what the miner finds (their digest is
part of the cache key)."""


def miner_stamp() -> str:
    """A digest of the miner's source (a changed miner makes cached results stale)."""
    return _source_stamp()


def _source_stamp() -> str:
    """The miner's code, the transcript readers, and the language package when installed."""
    here = os.path.dirname(os.path.abspath(__file__))
    sessions = os.path.dirname(here)
    core = os.path.dirname(sessions)
    files = [os.path.join(here, n) for n in MINER_MODULES]
    files += [os.path.join(sessions, n) for n in ("transcripts.py", "messages.py", "claude.py", "user_text.py")]
    lang_dir = os.path.join(core, "lang")
    if os.path.isdir(lang_dir):
        files += sorted(os.path.join(lang_dir, n) for n in os.listdir(lang_dir) if n.endswith(".py"))
    return source_stamp(*files)


def cache_path(layout: Layout) -> str:
    """``<root>/reasonix-tui/cache/suggestions-<hash of workspace and directories>.marshal``."""
    key = "\0".join(
        (
            abs_clean(str(layout.workspace)),
            abs_clean(str(layout.project_sessions_dir)),
            abs_clean(str(layout.global_sessions_dir)),
        )
    ).encode("utf-8", "surrogatepass")
    return str(layout.cache_dir / f"suggestions-{hashlib.sha256(key).hexdigest()[:20]}.marshal")


def _cache_key() -> tuple[Any, ...]:
    return (_VERSION, _source_stamp(), sys.byteorder)


def _load_cache(path: str) -> dict[str, tuple[Any, ...]]:
    data = read_sealed(path, _MAGIC)
    if type(data) is not tuple or len(data) != 2 or tuple(data[0]) != _cache_key() or not isinstance(data[1], dict):
        return {}
    return data[1]


def _meta(path: str) -> tuple[int, str, int]:
    """``(meta mtime, workspace_root, updated_at ns)`` of a Reasonix branch meta."""
    meta_path = path + ".meta"
    try:
        st = os.stat(meta_path)
    except OSError:
        return (0, "", 0)
    try:
        meta = json.loads(read_text(meta_path).text)
    except (OSError, ValueError):
        return (st.st_mtime_ns, "", 0)
    if not isinstance(meta, dict):
        return (st.st_mtime_ns, "", 0)
    root = meta.get("workspace_root")
    ws = abs_clean(root) if isinstance(root, str) and trim_space(root) else ""
    updated = parse_rfc3339(meta["updated_at"]) if isinstance(meta.get("updated_at"), str) else None
    return (st.st_mtime_ns, ws, updated.ns if updated is not None and updated.ns > 0 else 0)


def list_transcripts(layout: Layout, include_claude: bool = True) -> list[tuple[str, str, os.stat_result, bool]]:
    """``(path, format, stat, needs the meta's workspace)`` of every candidate transcript
    (Reasonix sessions pending cleanup left out)."""
    out: list[tuple[str, str, os.stat_result, bool]] = []
    seen: set[str] = set()

    def scan(directory: str, fmt: str, filtered: bool) -> None:
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            return
        names = {e.name for e in entries}
        for e in entries:
            if not e.name.endswith(".jsonl") or not is_session_transcript_name(e.name) or e.path in seen:
                continue
            try:
                if e.is_dir():
                    continue
                st = e.stat()
            except OSError:
                continue
            if fmt == FORMAT_REASONIX and e.name[: -len(".jsonl")] + ".cleanup-pending.json" in names:
                continue
            seen.add(e.path)
            out.append((e.path, fmt, st, filtered))

    project = str(layout.project_sessions_dir)
    scan(project, FORMAT_REASONIX, False)
    if abs_clean(str(layout.global_sessions_dir)) != abs_clean(project):
        scan(str(layout.global_sessions_dir), FORMAT_REASONIX, True)
    if include_claude:
        cdir = claude_project_dir(layout.workspace)
        if cdir is not None:
            scan(str(cdir), FORMAT_CLAUDE, False)
    return out


def _mine(path: str, fmt: str) -> tuple[Any, ...] | None:
    from .procedures import extract_steps
    from .statements import extract_statements

    t = read_transcript(path, fmt)
    if not t.ok:
        return None
    sid = session_id_of(path)
    source = "claude-session" if fmt == FORMAT_CLAUDE else "session"
    turns = sum(1 for m in t.messages if is_user_authored_turn_message(m))
    statements = extract_statements(t.messages, sid, path, source)
    steps = extract_steps(t.messages)
    triggers: dict[int, str] = {}
    for s in steps:
        if s.trigger >= 0 and s.trigger not in triggers:
            triggers[s.trigger] = truncate_runes(
                one_line(user_message_text(t.messages[s.trigger])), _TRIGGER_RUNES, _TRIGGER_RUNES - 1, "…"
            )
    last_msg = max((m.created_at.ns for m in t.messages if m.created_at is not None), default=0)
    return (
        sid,
        source,
        turns,
        tuple(s.to_tuple() for s in statements),
        tuple(s.to_tuple() for s in steps),
        triggers,
        last_msg,
    )


def mine_sessions(
    layout: Layout,
    window_days: int = 30,
    include_claude: bool = True,
    use_cache: bool = True,
    listing: list[tuple[str, str, os.stat_result, bool]] | None = None,
) -> MinedHistory:
    """The workspace's sessions inside the window, mined (from the cache where unchanged)."""
    from .language import configure
    from .procedures import Step

    configure(layout.cache_dir)
    path = cache_path(layout)
    cache = _load_cache(path) if use_cache else {}
    fresh: dict[str, tuple[Any, ...]] = {}
    read = 0
    ws = abs_clean(str(layout.workspace))
    records: list[SessionRecord] = []
    if listing is None:
        listing = list_transcripts(layout, include_claude)
    for p, fmt, st, filtered in listing:
        meta = _meta(p) if fmt == FORMAT_REASONIX else (0, "", 0)
        cached = cache.get(p)
        if cached is not None and cached[0] == fmt and cached[1] == st.st_size and cached[2] == st.st_mtime_ns:
            mined = cached[4]
        else:
            mined = _mine(p, fmt)
            read += 1
            if mined is None:
                continue
        fresh[p] = (fmt, st.st_size, st.st_mtime_ns, 0, mined)
        if filtered and meta[1] != ws:
            continue
        sid, source, turns, statements, steps, triggers, last_msg = mined
        if turns == 0:
            continue
        last = meta[2] or last_msg or st.st_mtime_ns
        step_objs = tuple(Step(*s) for s in steps)
        records.append(
            SessionRecord(
                path=p,
                fmt=fmt,
                session_id=sid,
                source=source,
                last_ns=last,
                turns=turns,
                statements=tuple(statements),
                steps=step_objs,
                triggers=dict(triggers),
                tools=frozenset(k[0].split(" ", 1)[0].lower() for k in steps if not k[0].startswith("edit ")),
            )
        )
    records.sort(key=lambda r: (-r.last_ns, r.path))
    if window_days > 0 and records:
        newest = records[0].last_ns
        records = [r for r in records if r.last_ns >= newest - window_days * DAY_NS]
    if use_cache and (read or set(fresh) != set(cache)):
        try:
            write_sealed(path, _MAGIC, (_cache_key(), fresh))
        except (OSError, ValueError):
            pass
    return MinedHistory(tuple(records), read, len(listing))


def timestamp(ns: int) -> Timestamp | None:
    """``Timestamp`` or ``None`` for 0."""
    return Timestamp(ns) if ns > 0 else None

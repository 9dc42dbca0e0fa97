"""Recall traces: what the agent got recalled on a turn, and why.

Every automatic recall made for a turn (``reasonix-tui recall``, the
``user-prompt-submit`` hook, the MCP server) records a :class:`RecallTrace` under
``<root>/projects/<slug>/recall/`` (Reasonix ignores the directory):

* ``last.json`` — the newest trace, replaced atomically;
* ``history.jsonl`` — one trace per line, appended; when it grows past
  ``rotate_bytes`` it is rewritten (atomically) with the newest ``keep`` traces.

Both files are private (0600 in a 0700 folder, written without following symlinks) and
hold the prompt with secrets redacted (:func:`~reasonix_tui.core.agent.secret_detection.redact_detected`);
with ``[privacy] record_prompts = false`` they hold no prompt text at all.

:func:`render_recall_text` prints a trace as ``/memory recall`` does
(instructions-history-suggestions §D.2).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..compat.gostr import one_line
from ..compat.gotime import Timestamp
from ..paths import Layout
from ..store import locks, safeio
from ..store.atomic import atomic_write, ensure_dir
from .results import Considered, RecallHit, RecallResult

__all__ = ["TraceHit", "TraceCandidate", "RecallTrace", "TraceStore", "render_recall_text", "render_history_text"]

TRACE_VERSION = 1


def _f(value: Any, default: Any = "") -> Any:
    return default if value is None else value


@dataclass(frozen=True, slots=True)
class TraceHit:
    """A fact that reached the block."""

    id: str
    ref: str
    name: str
    title: str
    revision: int
    scope: str
    type: str
    freshness: str
    score: float
    reason: str
    snippet: str
    markers: tuple[str, ...] = ()
    """Enhanced-mode flags shown in the entry (stale, possibly outdated)."""
    notes: tuple[str, ...] = ()
    """Enhanced-mode notes (what changed relative to Reasonix)."""
    base_score: float | None = None
    """Enhanced mode: the score before supersession/demotion adjustments."""
    channels: tuple[str, ...] = ()
    """Enhanced mode: what each channel contributed (``lexical: …``, ``translated: …``,
    ``meaning: …``, ``supersession: …``, ``subject: …``)."""

    @classmethod
    def from_hit(cls, hit: RecallHit) -> TraceHit:
        """From an engine hit."""
        f = hit.fact
        return cls(
            id=str(f.id),
            ref=f.ref,
            name=f.name,
            title=f.display_title,
            revision=f.revision,
            scope=f.scope,
            type=f.type,
            freshness=hit.freshness,
            score=hit.score,
            reason=hit.reason,
            snippet=hit.snippet,
            markers=hit.markers,
            notes=hit.notes,
            base_score=hit.base_score,
            channels=hit.channels,
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "id": self.id,
            "ref": self.ref,
            "name": self.name,
            "title": self.title,
            "revision": self.revision,
            "scope": self.scope,
            "type": self.type,
            "freshness": self.freshness,
            "score": self.score,
            "reason": self.reason,
            "snippet": self.snippet,
            "markers": list(self.markers),
            "notes": list(self.notes),
            "base_score": self.base_score,
            "channels": list(self.channels),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TraceHit:
        """Inverse of :meth:`to_json` (tolerates missing keys)."""
        return cls(
            id=str(_f(d.get("id"))),
            ref=str(_f(d.get("ref"))),
            name=str(_f(d.get("name"))),
            title=str(_f(d.get("title"))),
            revision=int(_f(d.get("revision"), 0)),
            scope=str(_f(d.get("scope"))),
            type=str(_f(d.get("type"))),
            freshness=str(_f(d.get("freshness"))),
            score=float(_f(d.get("score"), 0.0)),
            reason=str(_f(d.get("reason"))),
            snippet=str(_f(d.get("snippet"))),
            markers=tuple(d.get("markers") or ()),
            notes=tuple(d.get("notes") or ()),
            base_score=d.get("base_score"),
            channels=tuple(d.get("channels") or ()),
        )


@dataclass(frozen=True, slots=True)
class TraceCandidate:
    """A candidate and the decision about it."""

    id: str
    ref: str
    name: str
    scope: str
    type: str
    revision: int
    decision: str
    """``selected``, ``gate``, ``expired``, ``floor``, ``limit``, ``budget``, ``pinned``,
    ``suppressed``, ``superseded`` or ``zero-score``."""
    detail: str
    score: float | None = None
    matched: tuple[str, ...] = ()
    freshness: str = ""
    rank: int | None = None
    channels: tuple[str, ...] = ()
    """Enhanced mode: what each channel contributed (see :attr:`TraceHit.channels`)."""

    @property
    def selected(self) -> bool:
        """True when the fact reached the block."""
        return self.decision == "selected"

    @property
    def why(self) -> str:
        """``<decision>: <detail>``."""
        return f"{self.decision}: {self.detail}"

    @classmethod
    def from_considered(cls, c: Considered) -> TraceCandidate:
        """From an engine candidate."""
        f = c.fact
        return cls(
            id=str(f.id),
            ref=f.ref,
            name=f.name,
            scope=f.scope,
            type=f.type,
            revision=f.revision,
            decision=c.decision,
            detail=c.detail,
            score=c.score,
            matched=c.matched,
            freshness=c.freshness,
            rank=c.rank,
            channels=c.channels,
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (with ``selected`` and ``why`` for readers that want one line)."""
        return {
            "id": self.id,
            "ref": self.ref,
            "name": self.name,
            "scope": self.scope,
            "type": self.type,
            "revision": self.revision,
            "decision": self.decision,
            "detail": self.detail,
            "score": self.score,
            "matched": list(self.matched),
            "freshness": self.freshness,
            "rank": self.rank,
            "channels": list(self.channels),
            "selected": self.selected,
            "why": self.why,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TraceCandidate:
        """Inverse of :meth:`to_json`."""
        score = d.get("score")
        return cls(
            id=str(_f(d.get("id"))),
            ref=str(_f(d.get("ref"))),
            name=str(_f(d.get("name"))),
            scope=str(_f(d.get("scope"))),
            type=str(_f(d.get("type"))),
            revision=int(_f(d.get("revision"), 0)),
            decision=str(_f(d.get("decision"))),
            detail=str(_f(d.get("detail"))),
            score=float(score) if isinstance(score, (int, float)) else None,
            matched=tuple(d.get("matched") or ()),
            freshness=str(_f(d.get("freshness"))),
            rank=d.get("rank"),
            channels=tuple(d.get("channels") or ()),
        )


@dataclass(frozen=True, slots=True)
class RecallTrace:
    """One recorded automatic recall."""

    query: str
    """The trimmed query."""
    at: str
    """When (RFC 3339, UTC)."""
    source: str = "cli"
    """Who asked: ``cli``, ``hook``, ``mcp``, ``context-center``..."""
    session_id: str = ""
    """The agent session, when known."""
    mode: str = "enhanced"
    """``enhanced`` or ``reasonix-exact``."""
    hits: tuple[TraceHit, ...] = ()
    considered: tuple[TraceCandidate, ...] = ()
    considered_total: int = 0
    """Candidates before the cap on :attr:`considered`."""
    suppressed: str = ""
    used_chars: int = 0
    char_budget: int = 2400
    omitted_by_limit: int = 0
    omitted_by_budget: int = 0
    limit: int = 4
    block: str = ""
    terms: tuple[str, ...] = ()
    pool_size: int = 0
    notes: tuple[str, ...] = ()
    workspace: str = ""
    version: int = TRACE_VERSION
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    """Unknown keys read from a newer trace, kept on rewrite."""

    @property
    def omitted(self) -> int:
        """Hits omitted by the limit or the budget."""
        return self.omitted_by_limit + self.omitted_by_budget

    @classmethod
    def from_result(
        cls,
        result: RecallResult,
        *,
        at: Timestamp | None = None,
        source: str = "cli",
        session_id: str = "",
        workspace: str = "",
    ) -> RecallTrace:
        """Build a trace from a :class:`RecallResult`."""
        return cls(
            query=result.query,
            at=(at or Timestamp.now()).rfc3339(),
            source=source,
            session_id=session_id,
            mode=result.mode,
            hits=tuple(TraceHit.from_hit(h) for h in result.hits),
            considered=tuple(TraceCandidate.from_considered(c) for c in result.considered),
            considered_total=result.considered_total,
            suppressed=result.suppressed,
            used_chars=result.used_chars,
            char_budget=result.char_budget,
            omitted_by_limit=result.omitted_by_limit,
            omitted_by_budget=result.omitted_by_budget,
            limit=result.limit,
            block=result.block,
            terms=result.terms,
            pool_size=result.pool_size,
            notes=result.notes,
            workspace=workspace,
        )

    def for_disk(self, keep_prompt: bool = True) -> RecallTrace:
        """The trace as it may be stored: the prompt with secrets redacted and only the
        query terms that survive the redaction, or (``keep_prompt=False``) neither."""
        from ..agent.secret_detection import redact_detected

        if not keep_prompt:
            return replace(self, query="", terms=(), extra={**self.extra, "prompt_recorded": False})
        query = redact_detected(self.query)
        if query == self.query:
            return self
        low = query.lower()
        return replace(self, query=query, terms=tuple(t for t in self.terms if str(t).lower() in low))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        data = {
            "version": self.version,
            "query": self.query,
            "at": self.at,
            "source": self.source,
            "session_id": self.session_id,
            "mode": self.mode,
            "workspace": self.workspace,
            "hits": [h.to_json() for h in self.hits],
            "considered": [c.to_json() for c in self.considered],
            "considered_total": self.considered_total,
            "suppressed": self.suppressed,
            "used_chars": self.used_chars,
            "char_budget": self.char_budget,
            "omitted_by_limit": self.omitted_by_limit,
            "omitted_by_budget": self.omitted_by_budget,
            "omitted": self.omitted,
            "limit": self.limit,
            "terms": list(self.terms),
            "pool_size": self.pool_size,
            "notes": list(self.notes),
            "block": self.block,
        }
        for k, v in self.extra.items():
            data.setdefault(k, v)
        return data

    _KNOWN = frozenset(
        "version query at source session_id mode workspace hits considered considered_total suppressed used_chars "
        "char_budget omitted_by_limit omitted_by_budget omitted limit terms pool_size notes block".split()
    )

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RecallTrace:
        """Inverse of :meth:`to_json`; raises ``ValueError`` on a non-trace."""
        if not isinstance(d, dict) or "query" not in d:
            raise ValueError("not a recall trace")

        def num(key: str, default: int = 0) -> int:
            v = d.get(key)
            return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else default

        return cls(
            query=str(_f(d.get("query"))),
            at=str(_f(d.get("at"))),
            source=str(_f(d.get("source"))),
            session_id=str(_f(d.get("session_id"))),
            mode=str(_f(d.get("mode"), "enhanced")),
            hits=tuple(TraceHit.from_json(h) for h in d.get("hits") or () if isinstance(h, dict)),
            considered=tuple(TraceCandidate.from_json(c) for c in d.get("considered") or () if isinstance(c, dict)),
            considered_total=num("considered_total"),
            suppressed=str(_f(d.get("suppressed"))),
            used_chars=num("used_chars"),
            char_budget=num("char_budget", 2400),
            omitted_by_limit=num("omitted_by_limit"),
            omitted_by_budget=num("omitted_by_budget"),
            limit=num("limit", 4),
            block=str(_f(d.get("block"))),
            terms=tuple(d.get("terms") or ()),
            pool_size=num("pool_size"),
            notes=tuple(d.get("notes") or ()),
            workspace=str(_f(d.get("workspace"))),
            version=num("version", TRACE_VERSION),
            extra={k: v for k, v in d.items() if k not in cls._KNOWN},
        )


class TraceStore:
    """``last.json`` and a bounded ``history.jsonl`` in one recall directory."""

    def __init__(
        self,
        where: Layout | str | os.PathLike[str],
        *,
        keep: int = 200,
        rotate_bytes: int = 4 * 1024 * 1024,
    ) -> None:
        self.dir = Path(where.recall_dir if isinstance(where, Layout) else where)
        """The recall directory."""
        self.keep = max(keep, 1)
        """Traces kept when the history is rotated."""
        self.rotate_bytes = max(rotate_bytes, 1024)
        """History size that triggers a rotation."""

    @property
    def last_path(self) -> Path:
        """``last.json``."""
        return self.dir / "last.json"

    @property
    def history_path(self) -> Path:
        """``history.jsonl``."""
        return self.dir / "history.jsonl"

    def _lock(self) -> Any:
        return locks.hold_lock(self.dir / ".trace.lock", timeout=10)

    def record(self, trace: RecallTrace, *, keep_prompt: bool = True) -> None:
        """Write ``last.json`` atomically and append to the history (rotating it when large).

        The prompt is stored redacted (or not at all with ``keep_prompt=False``); a lone
        surrogate in it is stored as its JSON escape, never an encoding error."""
        ensure_dir(self.dir)
        data = trace.for_disk(keep_prompt).to_json()
        line = json.dumps(data, ensure_ascii=True, separators=(",", ":")) + "\n"
        with self._lock():
            # the same compact line as the history's: an indented dump goes through json's
            # pure-Python encoder, several milliseconds of every warm hook call
            atomic_write(self.last_path, line, 0o600, durable=False)
            size = safeio.append_bytes(self.history_path, line.encode("ascii"), 0o600)
            if size > self.rotate_bytes:
                self._rotate()

    def _rotate(self) -> None:
        lines = self._lines()
        kept: list[str] = []
        total = 0
        for ln in reversed(lines):
            if len(kept) >= self.keep or total + len(ln) > self.rotate_bytes // 2:
                break
            kept.append(ln)
            total += len(ln)
        kept.reverse()
        atomic_write(self.history_path, "".join(x + "\n" for x in kept), 0o600, durable=False)

    def _lines(self) -> list[str]:
        try:
            text = safeio.read_text(self.history_path, errors="replace")
        except OSError:
            return []
        return [ln for ln in text.splitlines() if ln.strip()]

    def last(self) -> RecallTrace | None:
        """The newest trace, or ``None`` (missing or unreadable)."""
        try:
            return RecallTrace.from_json(json.loads(safeio.read_text(self.last_path)))
        except (OSError, ValueError, TypeError):
            return None

    def history(self, n: int = 20) -> list[RecallTrace]:
        """Up to ``n`` traces, newest first (unreadable lines are skipped)."""
        out: list[RecallTrace] = []
        for ln in reversed(self._lines()):
            if len(out) >= n:
                break
            try:
                out.append(RecallTrace.from_json(json.loads(ln)))
            except (ValueError, TypeError):
                continue
        return out

    def clear(self) -> None:
        """Remove both files."""
        with self._lock():
            for p in (self.last_path, self.history_path):
                safeio.remove(p)


def render_recall_text(trace: RecallTrace | None) -> str:
    """``/memory recall``: the last automatic recall, as Reasonix prints it (§D.2)."""
    if trace is None or (not trace.query and not trace.hits and not trace.suppressed):
        return "last memory recall: none"
    lines = ["last memory recall", f"  query={one_line(trace.query)}"]
    budget = f"  budget={trace.used_chars}/{trace.char_budget} omitted={trace.omitted}"
    if trace.suppressed:
        budget += f" suppressed={trace.suppressed}"
    lines.append(budget)
    for h in trace.hits:
        lines.append(
            f"  id={h.id} revision={h.revision} scope={h.scope} type={h.type} freshness={h.freshness} score={h.score:.3f}"
        )
        lines.append(f"    name={h.name} reason={one_line(h.reason)}")
    return "\n".join(lines)


def render_history_text(traces: Iterable[RecallTrace]) -> str:
    """Several traces, newest first, each in the ``/memory recall`` shape with when/where it ran."""
    chunks = []
    for i, t in enumerate(traces, 1):
        text = render_recall_text(t)
        first, _, rest = text.partition("\n")
        head = f"memory recall #{i} at={t.at} source={t.source} mode={t.mode}"
        if t.session_id:
            head += f" session={t.session_id}"
        chunks.append(head + ("\n" + rest if rest else "\n  " + first))
    return "\n\n".join(chunks) if chunks else "last memory recall: none"

"""Durable statements in one session: every user-authored turn, scored in its context.

For each user-authored turn (never tool output, host or meta records, compaction
summaries, command wrappers or pasted material — see :mod:`.signals`), the sentences are
scored; a sentence at :data:`~.signals.THRESHOLD` or above is a statement, joined by
neighbouring sentences that carry its detail or reason. When the turn answers the
assistant's previous step (a tool call or a claim) with a correction, the statement's
rule sentences gain weight and the step is kept as context.

The result is a list of :class:`Statement` — plain data, cached per session file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...compat.gostr import one_line, truncate_runes
from ..messages import Message
from ..user_text import is_user_authored_turn_message, user_message_text
from .language import merge_terms
from .sentences import has_cjk, prepare_text, split_sentences
from .signals import (
    EXTEND_THRESHOLD,
    THRESHOLD,
    SentenceScore,
    clean_statement,
    correction_signal,
    distinct_tokens,
    score_sentence,
)
from .titles import readable_name, short_title

__all__ = ["Statement", "FLOOR", "extract_statements", "step_description"]

FLOOR = 2.0
"""Statements scoring at least this are kept (``suggest --all`` lists them); only those at
:data:`THRESHOLD` or above are suggested."""
MAX_MESSAGE = 600
"""Runes of the whole message kept as evidence."""


@dataclass(frozen=True, slots=True)
class Statement:
    """One durable-looking statement and where it was said."""

    session_id: str
    path: str
    source: str
    """``session`` (Reasonix) or ``claude-session``."""
    index: int
    """Message index in the transcript."""
    at_ns: int
    message: str
    """The whole message as said (one line)."""
    text: str
    """The statement: its sentences, cleaned (the candidate's description)."""
    core: str
    """The strongest sentence, cleaned (the candidate's title)."""
    score: float
    reasons: tuple[str, ...]
    context: str
    """The assistant's step it corrected (``bash: npm install date-fns``), or ``""``."""
    policy: bool
    """Phrased as a rule."""
    entities: tuple[tuple[str, str], ...]
    """``(kind, value)`` of concrete things it names."""
    terms: tuple[tuple[str, float], ...] = ()
    """Weighted merge terms of the statement (:func:`.language.merge_terms`)."""
    core_terms: tuple[tuple[str, float], ...] = ()
    """Merge terms of its strongest sentence."""
    values: tuple[str, ...] = ()
    """The concrete things among the terms."""
    words: tuple[str, ...] = ()
    """Its lower-cased words (tool names are recognised against the history's commands)."""
    name: str = ""
    """A readable name from its strongest sentence (``""``: derive one later from its kind)."""

    def to_tuple(self) -> tuple[Any, ...]:
        """Marshal-friendly form."""
        return (
            self.session_id,
            self.path,
            self.source,
            self.index,
            self.at_ns,
            self.message,
            self.text,
            self.core,
            self.score,
            self.reasons,
            self.context,
            self.policy,
            self.entities,
            self.terms,
            self.core_terms,
            self.values,
            self.words,
            self.name,
        )

    @classmethod
    def from_tuple(cls, t: Sequence[Any]) -> Statement:
        """Inverse of :meth:`to_tuple`."""
        return cls(*t)


def tool_arguments(arguments: str) -> dict[str, Any]:
    """A tool call's JSON arguments as an object (``{}`` when they are not one)."""
    try:
        value = json.loads(arguments) if arguments else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def step_description(name: str, arguments: str) -> str:
    """A tool call in one line: ``bash: npm install x``, ``edit: src/a.ts`` (a long path
    keeps its last three parts)."""
    args = tool_arguments(arguments)
    lname = name.lower()
    for key in ("command", "cmd"):
        if isinstance(args.get(key), str):
            return f"{lname}: {truncate_runes(one_line(args[key]), 120, 119, '…')}"
    for key in ("file_path", "path", "filePath", "file"):
        if isinstance(args.get(key), str):
            parts = [p for p in args[key].replace("\\", "/").split("/") if p]
            short = "/".join(parts[-3:]) if len(parts) > 3 or args[key].startswith("/") else args[key]
            return f"{lname}: {short}"
    return lname


def _step_tokens(name: str, arguments: str) -> frozenset[str]:
    args = tool_arguments(arguments)
    parts = [str(v) for v in args.values() if isinstance(v, str) and len(v) < 400]
    return distinct_tokens(" ".join(parts))


_CLAIM_TOKENS_MAX = 4000


def extract_statements(
    messages: Sequence[Message], session_id: str, path: str, source: str, default_at_ns: int = 0
) -> list[Statement]:
    """Every statement of a session scoring at least :data:`FLOOR`."""
    out: list[Statement] = []
    prev_desc = ""
    prev_tokens: frozenset[str] = frozenset()
    for index, msg in enumerate(messages):
        if msg.role == "assistant":
            if msg.tool_calls:
                call = msg.tool_calls[-1]
                prev_desc = step_description(call.name, call.arguments)
                toks: set[str] = set(prev_tokens)
                for c in msg.tool_calls:
                    toks |= _step_tokens(c.name, c.arguments)
                prev_tokens = frozenset(toks)
            text = msg.content.strip()
            if text:
                if not msg.tool_calls:
                    prev_desc = "claim: " + truncate_runes(one_line(text), 80, 79, "…")
                prev_tokens = prev_tokens | distinct_tokens(text[:_CLAIM_TOKENS_MAX])
            continue
        if msg.role != "user" or not is_user_authored_turn_message(msg):
            continue
        said = user_message_text(msg)
        at = msg.created_at.ns if msg.created_at else default_at_ns
        out.extend(_message_statements(said, session_id, path, source, index, at, prev_desc, prev_tokens))
        prev_desc, prev_tokens = "", frozenset()
    return out


def _message_statements(
    said: str, session_id: str, path: str, source: str, index: int, at: int, prev_desc: str, prev_tokens: frozenset[str]
) -> list[Statement]:
    prose, _removed = prepare_text(said)
    sentences = split_sentences(prose)
    if not sentences:
        return []
    scores = [score_sentence(s) for s in sentences]
    weight, why = correction_signal(prose, prev_desc, prev_tokens)
    if weight:
        _apply_correction(scores, weight, why)
    message = truncate_runes(one_line(said), MAX_MESSAGE, MAX_MESSAGE - 1, "…")
    out: list[Statement] = []
    used: set[int] = set()
    order = sorted(range(len(scores)), key=lambda i: (-scores[i].score, not scores[i].policy, i))
    for i in order:
        sc = scores[i]
        if i in used or sc.excluded or sc.score < FLOOR:
            continue
        group = _with_neighbours(scores, i, used)
        used.update(group)
        parts = [clean_statement(scores[k].text) for k in group]
        text = _join(p for p in parts if p)
        core = clean_statement(sc.text)
        if not text or not core:
            continue
        reasons: list[str] = []
        for k in [i, *group]:
            for r in scores[k].reasons:
                if r not in reasons:
                    reasons.append(r)
        ents: dict[tuple[str, str], None] = {}
        for k in group:
            for e in scores[k].entities:
                ents[(e.kind, e.value)] = None
        terms, values, words = merge_terms(text)
        core_terms, _cv, _cw = merge_terms(core)
        name = readable_name(short_title(core), text, "")
        out.append(
            Statement(
                session_id=session_id,
                path=path,
                source=source,
                index=index,
                at_ns=at,
                message=message,
                text=text,
                core=core,
                score=round(max(scores[k].score for k in group) + (0.5 if len(group) > 1 else 0.0), 2),
                reasons=tuple(reasons + (["sentences that support each other"] if len(group) > 1 else [])),
                context=prev_desc if weight >= 1.5 else "",
                policy=any(scores[k].policy for k in group),
                entities=tuple(ents),
                terms=tuple(terms.items()),
                core_terms=tuple(core_terms.items()),
                values=tuple(sorted(values)),
                words=words,
                name=name,
            )
        )
    return [s for s in out if s.score >= FLOOR]


def _apply_correction(scores: Sequence[SentenceScore], weight: float, why: str) -> None:
    """A correction of the previous step weighs on the message's rule sentences."""
    corrected = False
    for sc in scores:
        if not sc.excluded and not sc.task and (sc.policy or sc.score >= 1.0):
            sc.add(weight, why)
            corrected = True
    if not corrected and weight >= 2.0:
        # "no, tests here run with …" right after the step it names: what the person
        # says instead is how things are, however plainly worded (its first statement)
        first = next((sc for sc in scores if not sc.excluded and not sc.task and sc.score >= 0), None)
        if first is not None:
            first.add(weight, why)


def _with_neighbours(scores: Sequence[SentenceScore], i: int, used: set[int]) -> list[int]:
    """Sentence ``i`` and the neighbours that extend it (at most three in all), in order."""
    group = [i]
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(scores) and j not in used and len(group) < 3:
            o = scores[j]
            if o.excluded or o.task or o.score < EXTEND_THRESHOLD:
                break
            group.append(j)
            j += step
    group.sort()
    return group


def _join(parts: Any) -> str:
    parts = list(parts)
    stop = "。" if any(has_cjk(p) for p in parts) else "."
    out = ""
    for p in parts:
        if out and not re.search(r"[.!?。！？;；:：]$", out):
            out += stop
        out = (out + ("" if stop == "。" else " ") + p) if out else p
    if out and not re.search(r"[.!?。！？)）`\"”]$", out):
        out += stop
    return out


def statement_threshold() -> float:
    """The score a statement needs to be suggested."""
    return THRESHOLD


__all__ += ["statement_threshold", "SentenceScore"]

"""Findings from the pinned budget and the recorded recall traces: pinned guidance near or
over the budget, pinned facts no turn was about, facts never or often recalled."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..compat.gostr import trim_space
from ..compat.gotime import DAY_NS, Timestamp
from ..recall.results import SUPPRESSED_EMPTY, SUPPRESSED_GENERIC, SUPPRESSED_NO_TERMS
from ..recall.trace import RecallTrace
from ..store.model import Fact
from .base import (
    NO_TIME,
    FindingMemo,
    archive_fix,
    day,
    edit_fix,
    make_finding,
    memo_get,
    name_of,
    num,
)
from .model import INFO, PROBLEM, WARNING, FactRef, Finding, Fix, TraceSpan

__all__ = [
    "MIN_TURNS",
    "OFTEN_SHARE",
    "OFTEN_MIN",
    "BUDGET_WARN_SHARE",
    "DISTINCTIVE_SHARE",
    "check_pinned_budget",
    "Usage",
    "usage_from_traces",
    "check_recall_usage",
    "DF_SAMPLE",
    "pinned_unused_inputs",
    "pinned_candidates",
    "check_pinned_unused",
    "KeptWords",
]

MIN_TURNS = 10
"""Usage findings need at least this many recorded turns since the fact was created."""
OFTEN_SHARE = 0.25
"""A fact recalled in at least this share of the turns since it was created is "often"."""
OFTEN_MIN = 5
"""...and in at least this many turns."""
BUDGET_WARN_SHARE = 0.8
"""Pinned guidance at or above this share of the budget is a warning (above it: a problem)."""
DISTINCTIVE_SHARE = 0.2
"""A word found in more than this share of the store's facts says nothing about a topic
(used to decide whether a turn was about a pinned fact)."""

_SKIPPED_TURNS = frozenset({SUPPRESSED_GENERIC, SUPPRESSED_EMPTY, SUPPRESSED_NO_TERMS})

# --------------------------------------------------------------------------- pinned


def check_pinned_budget(facts: Sequence[Fact], budget: int, refused: bool = True) -> list[Finding]:
    """Pinned guidance at or over :data:`BUDGET_WARN_SHARE` of the pinned budget (the
    store's count: every pinned body, trimmed)."""
    if budget <= 0:
        return []
    pinned = [(len(trim_space(f.body)), f) for f in facts if f.pinned and trim_space(f.body)]
    used = sum(n for n, _ in pinned)
    if used < BUDGET_WARN_SHARE * budget:
        return []
    pinned.sort(key=lambda x: (-x[0], x[1].name))
    severity = PROBLEM if used > budget else WARNING
    share = used / budget
    head = f"pinned guidance uses {num(used)} of {num(budget)} chars ({share:.0%}): " + (
        (
            "over the budget, new pins are refused"
            if refused
            else "over the budget (pins are refused only with memory.pinned_budget_chars set)"
        )
        if used > budget
        else "close to the budget"
    )
    evidence = [head, *(f"{num(n):>7} chars  {name_of(f)}" for n, f in pinned[:12])]
    if len(pinned) > 12:
        evidence.append(f"… and {len(pinned) - 12} more pinned facts")
    refs = [FactRef.of(f, "pinned") for _, f in pinned]
    biggest = pinned[0][1]
    fixes = [
        Fix("unpin", f"unpin the largest, {biggest.ref} ({num(pinned[0][0])} chars)", fact_id=str(biggest.id)),
        edit_fix(biggest),
    ]
    title = f"pinned guidance {num(used)}/{num(budget)} chars"
    return [
        make_finding(
            "pinned-budget",
            severity,
            title,
            refs,
            evidence,
            fixes,
            extra=str(budget),
            data={"used": used, "budget": budget},
        )
    ]


# --------------------------------------------------------------------------- recall usage


@dataclass(frozen=True)
class Usage:
    """What the recorded recall traces say about each fact."""

    span: TraceSpan
    """The turns that count (recall ran)."""
    turn_times: tuple[int, ...]
    """Their times (ns), sorted."""
    recalled: Mapping[str, tuple[int, ...]]
    """Fact id → times (ns) of the turns that recalled it."""
    lost: Mapping[str, Counter[str]]
    """Fact id → decisions of the turns where it was a candidate and lost (budget, floor…)."""
    terms: tuple[tuple[int, frozenset[str]], ...]
    """Per turn: time and query terms (empty when prompts are not recorded)."""

    def turns_since(self, ns: int) -> int:
        """Counted turns at or after ``ns``."""
        return len(self.turn_times) - bisect.bisect_left(self.turn_times, ns)


def usage_from_traces(traces: Iterable[RecallTrace]) -> Usage:
    """Fold recorded traces into per-fact usage (generic and empty turns left out)."""
    from ..compat.gotime import parse_rfc3339

    times: list[int] = []
    recalled: dict[str, list[int]] = {}
    lost: dict[str, Counter[str]] = {}
    terms: list[tuple[int, frozenset[str]]] = []
    for t in traces:
        if t.suppressed in _SKIPPED_TURNS:
            continue
        at = parse_rfc3339(t.at)
        if at is None:
            continue
        times.append(at.ns)
        terms.append((at.ns, frozenset(str(x) for x in t.terms)))
        for h in t.hits:
            recalled.setdefault(h.id, []).append(at.ns)
        for c in t.considered:
            if c.decision not in ("selected", "pinned", "suppressed", "zero-score", "superseded"):
                lost.setdefault(c.id, Counter())[c.decision] += 1
    times.sort()
    span = TraceSpan(len(times), Timestamp(times[0]) if times else None, Timestamp(times[-1]) if times else None)
    return Usage(
        span,
        tuple(times),
        {k: tuple(sorted(v)) for k, v in recalled.items()},
        lost,
        tuple(sorted(terms, key=lambda x: x[0])),
    )


def _since(fact: Fact) -> int:
    start = fact.created_at or fact.updated_at
    return start.ns if start is not None else NO_TIME


def check_recall_usage(
    facts: Sequence[Fact], usage: Usage, now: Timestamp, memo: FindingMemo | None = None
) -> list[Finding]:
    """Facts never recalled in the recorded turns since they were created (at least
    :data:`MIN_TURNS` of them), and facts recalled often."""
    out: list[Finding] = []
    if usage.span.turns < MIN_TURNS:
        return out
    first_turn, last_day = usage.turn_times[0], day(usage.span.last)
    for f in facts:
        if f.pinned:
            continue
        if f.expires_at is not None and now > f.expires_at:
            continue  # expired: its own finding
        since = _since(f)
        turns = usage.turns_since(since)
        if turns < MIN_TURNS:
            continue
        fid = str(f.id)
        recalled = usage.recalled.get(fid, ())
        hits = len(recalled) - bisect.bisect_left(recalled, since) if recalled else 0
        if hits and not (hits >= OFTEN_MIN and hits >= OFTEN_SHARE * turns):
            continue
        lost = usage.lost.get(fid)
        sig = (turns, hits, max(since, first_turn) // DAY_NS, last_day, tuple(lost.most_common()) if lost else ())
        found = memo_get(
            memo,
            "usage",
            f,
            sig,
            lambda f=f,  # type: ignore[misc]  # a default-argument lambda binds the loop values
            turns=turns,
            hits=hits,
            since=since,
            lost=lost: _usage_finding(f, turns, hits, Timestamp(max(since, first_turn)), last_day, lost),
        )
        if found is not None:
            out.append(found)
    return out


def _usage_finding(
    f: Fact, turns: int, hits: int, first: Timestamp, last_day: str, lost: Counter[str] | None
) -> Finding:
    window = f"{day(first)} → {last_day}"
    if not hits:
        evidence = [f"not recalled in any of the {turns} recorded turns since it was created ({window})"]
        if lost:
            evidence.append("it was a candidate and lost: " + ", ".join(f"{k} ×{v}" for k, v in lost.most_common()))
        else:
            evidence.append("no recorded turn came close to it")
        evidence.append("a fact nobody asks about costs nothing per turn, but it may be obsolete")
        fixes = [archive_fix(f, ""), edit_fix(f)]
        return make_finding(
            "never-recalled",
            INFO,
            f"{f.display_title}: never recalled in {turns} turns",
            [FactRef.of(f)],
            evidence,
            fixes,
            data={"turns": turns},
        )
    evidence = [
        f"recalled in {hits} of the {turns} recorded turns since it was created ({hits / turns:.0%}, {window})",
        f"pinning it would cost {num(len(trim_space(f.body)))} chars of the pinned budget in every session",
    ]
    fixes = [Fix("pin", f"pin {f.ref}", fact_id=str(f.id))]
    return make_finding(
        "often-recalled",
        INFO,
        f"{f.display_title}: recalled in {hits}/{turns} turns",
        [FactRef.of(f)],
        evidence,
        fixes,
        data={"turns": turns, "recalled": hits},
    )


DF_SAMPLE = 2000
"""Document frequencies are counted over at most this many facts (an even sample of a
bigger store), so the cost does not grow with the store."""


def _sample(facts: Sequence[Fact], limit: int = DF_SAMPLE) -> Sequence[Fact]:
    if len(facts) <= limit:
        return facts
    ordered = sorted(facts, key=lambda f: str(f.id))
    step = len(ordered) / limit
    return [ordered[int(i * step)] for i in range(limit)]


def pinned_unused_inputs(facts: Sequence[Fact]) -> tuple[list[Fact], Sequence[Fact]]:
    """The facts :func:`check_pinned_unused` reads: the pinned facts with a body, and the
    sample document frequencies are counted over (with the traces, nothing else matters:
    a write to any other fact leaves its findings as they were)."""
    return [f for f in facts if f.pinned and trim_space(f.body)], _sample(facts)


def pinned_candidates(pinned: Sequence[Fact], usage: Usage, words: Callable[[Fact], frozenset[str]]) -> frozenset[str]:
    """The words :func:`check_pinned_unused` counts document frequencies of: the pinned
    facts' words that some recorded turn asked about."""
    asked = _asked(usage)
    return frozenset().union(*(words(f) & asked for f in pinned)) if asked else frozenset()


def _asked(usage: Usage) -> frozenset[str]:
    return frozenset().union(*(t for _, t in usage.terms)) if usage.terms else frozenset()


def check_pinned_unused(
    facts: Sequence[Fact],
    usage: Usage,
    words: Callable[[Fact], frozenset[str]],
    function_words: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Pinned facts no recorded turn (at least :data:`MIN_TURNS` since the fact was
    created) was about: no query named any of the fact's distinctive words (words found
    in at most :data:`DISTINCTIVE_SHARE` of the facts, function words never)."""
    pinned, sample = pinned_unused_inputs(facts)
    if not pinned or usage.span.turns < MIN_TURNS:
        return []
    if not _asked(usage):
        return []  # prompts are not recorded: nothing to judge by
    candidates = pinned_candidates(pinned, usage, words)
    df: Counter[str] = Counter()
    if candidates:
        for f in sample:
            df.update(words(f) & candidates)
    limit = max(2, int(DISTINCTIVE_SHARE * len(sample)))
    out: list[Finding] = []
    for f in pinned:
        since = _since(f)
        turns = [(t, terms) for t, terms in usage.terms if t >= since]
        if len(turns) < MIN_TURNS:
            continue
        mine = frozenset(
            w
            for w in words(f) & candidates
            if w not in function_words and (len(w) >= 3 or not w.isascii()) and not w.isdigit() and df[w] <= limit
        )
        if any(mine & terms for _, terms in turns):
            continue
        first = Timestamp(turns[0][0])
        size = len(trim_space(f.body))
        evidence = [
            f"none of the {len(turns)} recorded turns since it was created ({day(first)} → {day(usage.span.last)}) "
            "asked about any of its distinctive words",
            f"it rides in every session anyway: {num(size)} chars of the pinned budget",
        ]
        fixes = [
            Fix("unpin", f"unpin {f.ref} (recall still finds it when a turn asks)", fact_id=str(f.id)),
            archive_fix(f, ""),
        ]
        out.append(
            make_finding(
                "pinned-unused",
                WARNING,
                f"{f.display_title}: pinned, never relevant in {len(turns)} turns",
                [FactRef.of(f, "pinned")],
                evidence,
                fixes,
                data={"turns": len(turns), "chars": size},
            )
        )
    return out


class KeptWords:
    """What :func:`check_pinned_unused` read of each fact's words, kept by fact key between
    processes (the checker's state): every word of each pinned fact, and of each fact of
    the document-frequency sample only its words among the candidates
    (:func:`pinned_candidates`) — all the check reads of it, valid while the candidates are
    the same. A write to a fact of the sample then has that fact alone analysed, not the
    whole sample (2,000 facts' recall tokens: the recall's memo read whole from disk, or
    every fact analysed again)."""

    def __init__(self, state: Any = None) -> None:
        self.candidates: tuple[str, ...] = ()
        self.pinned: dict[bytes, tuple[str, ...]] = {}
        self.sample: dict[bytes, tuple[str, ...]] = {}
        self.dirty = False
        if type(state) is tuple and len(state) == 3 and all(isinstance(x, dict) for x in state[1:]):
            self.candidates, self.pinned, self.sample = tuple(state[0]), state[1], state[2]

    def state(self) -> tuple[Any, ...]:
        """What ``KeptWords(state)`` takes (marshal-able)."""
        return (self.candidates, dict(self.pinned), dict(self.sample))

    def reader(
        self,
        pinned: Sequence[Fact],
        usage: Usage,
        key: Callable[[Fact], bytes],
        words: Callable[[Fact], frozenset[str]],
    ) -> Callable[[Fact], frozenset[str]]:
        """A ``words`` for :func:`check_pinned_unused` over a store whose pinned facts are
        ``pinned``: kept values where they hold, ``words(fact)`` computed (and kept) for
        the others. For a fact that is not pinned it gives the words among the candidates
        only, which is all the check reads of it."""
        kept = self
        mine = {key(f) for f in pinned}
        full: dict[bytes, frozenset[str]] = {}
        found: list[frozenset[str]] = []

        def pinned_words(fact: Fact, k: bytes) -> frozenset[str]:
            w = full.get(k)
            if w is None:
                held = kept.pinned.get(k)
                w = full[k] = frozenset(held) if held is not None else words(fact)
                if held is None:
                    kept.pinned[k] = tuple(sorted(w))
                    kept.dirty = True
            return w

        def candidates() -> frozenset[str]:
            if not found:
                found.append(pinned_candidates(pinned, usage, lambda f: pinned_words(f, key(f))))
                now = tuple(sorted(found[0]))
                if now != kept.candidates:
                    kept.candidates, kept.sample, kept.dirty = now, {}, True
            return found[0]

        def read(fact: Fact) -> frozenset[str]:
            k = key(fact)
            if k in mine:
                return pinned_words(fact, k)
            cands = candidates()
            held = kept.sample.get(k)
            if held is not None:
                return frozenset(held)
            part = words(fact) & cands
            kept.sample[k] = tuple(sorted(part))
            kept.dirty = True
            return part

        return read

    def retain(self, pinned: Sequence[Fact], sample: Sequence[Fact], key: Callable[[Fact], bytes]) -> None:
        """Forget the facts no longer pinned or in the sample."""
        for kept, facts in ((self.pinned, pinned), (self.sample, sample)):
            if len(kept) > len(facts) or len(kept) > 2 * DF_SAMPLE:
                alive = {key(f) for f in facts}
                for gone in [k for k in kept if k not in alive]:
                    del kept[gone]
                self.dirty = True

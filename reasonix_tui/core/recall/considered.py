"""The explanation of one recall: every candidate and what became of it (selected, weak
match, expired, below the floor, over the limit or budget, superseded...), kept lazily and
capped, as :class:`~.results.Considered` entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..lang.terms import TRANSLATED
from ..store.model import Fact
from .channels import C_MIN, E_MIN, E_STRONG, EVERYDAY_LONE, SIM_GATE, SINGLE_SIM, ChannelScores
from .enhance import Enhancements
from .gate import LONE_PRIOR, PAIR_PRIOR
from .index import EXPIRED, LABELS, RecallIndex
from .results import Considered

__all__ = ["Hit", "Explained", "best_first", "everyday_detail"]


@dataclass
class Hit:
    doc: int
    fact: Fact
    score: float
    code: int
    matched: list[str]
    notes: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)
    base: float = 0.0


def best_first(items: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` items with the highest scores, best first."""
    if k <= 0:
        return items[:0]
    if len(items) > k:
        part = np.argpartition(-scores, k - 1)[:k]
        items, scores = items[part], scores[part]
    return items[np.argsort(-scores, kind="stable")]


class Explained:
    """The decisions of one recall run (the base of the engine's run)."""

    idx: RecallIndex
    terms: tuple[str, ...]
    enh: Enhancements | None
    max_considered: int
    considered: dict[int, tuple[Any, ...]]
    cs: ChannelScores | None
    _weak: tuple[np.ndarray, np.ndarray]
    _expired: tuple[np.ndarray, np.ndarray]
    _n_candidates: int

    def _matched(self, doc: int) -> list[str]:
        raise NotImplementedError

    def _channel_list(self, doc: int | None, hit: Hit | None = None, fact: Fact | None = None) -> list[str]:
        raise NotImplementedError

    _PRIORITY = {
        "selected": 0,
        "superseded": 1,
        "suppressed": 2,
        "budget": 3,
        "limit": 4,
        "floor": 5,
        "expired": 6,
        "gate": 7,
        "zero-score": 8,
        "pinned": 9,
    }

    def _consider(
        self,
        doc: int | None,
        decision: str,
        detail: str,
        score: float | None,
        hit: Hit | None = None,
        rank: int | None = None,
        code: int | None = None,
        fact: Fact | None = None,
    ) -> None:
        """Record a decision (built lazily: only the entries that survive the cap are materialised)."""
        fact = fact or (hit.fact if hit is not None else self.idx.docs[doc])  # type: ignore[index]  # doc is set whenever hit is None
        key = id(fact)
        old = self.considered.get(key)
        if old is not None and old[0] == "superseded" and decision != "selected":
            return
        if hit is not None:
            code = hit.code
        self.considered[key] = (decision, detail, score, doc, hit, rank, code, fact)

    def _explain_rejected(self) -> None:
        """Record the best weak or expired candidates and the matching excluded facts."""
        room = max(self.max_considered - len(self.considered), 0)
        if room:
            w_docs, w_scores = self._weak
            e_docs, e_scores = self._expired
            docs = np.concatenate((w_docs, e_docs))
            scores = np.concatenate((w_scores, e_scores))
            expired = np.concatenate((np.zeros(len(w_docs), dtype=bool), np.ones(len(e_docs), dtype=bool)))
            order = best_first(np.arange(len(docs)), scores, room)
            for i in order:
                doc = int(docs[i])
                fact = self.idx.docs[doc]
                if id(fact) in self.considered:
                    continue
                if expired[i]:
                    exp = fact.expires_at
                    self._consider(
                        doc,
                        "expired",
                        f"expired at {exp.rfc3339()}" if exp else "expired",
                        float(scores[i]),
                        code=EXPIRED,
                    )
                elif scores[i] <= 0:
                    self._consider(doc, "zero-score", "score 0", float(scores[i]))
                else:
                    self._consider(doc, "gate", "", float(scores[i]))
        self._excluded = self.idx.excluded_hits(self.terms)
        for i in self._excluded[: max(self.max_considered - len(self.considered), 0)]:
            ex, matched = self.idx.excluded_match(i, self.terms)
            if id(ex.fact) not in self.considered:
                self.considered[id(ex.fact)] = (
                    ex.kind,
                    ex.explanation,
                    None,
                    None,
                    None,
                    None,
                    None,
                    ex.fact,
                    tuple(matched),
                )

    def _considered_total(self) -> int:
        return self._n_candidates + len(getattr(self, "_excluded", ()))

    def _considered_list(self) -> tuple[Considered, ...]:
        items = sorted(
            self.considered.values(),
            key=lambda c: (self._PRIORITY.get(c[0], 10), c[5] or 0, -(c[2] or 0.0)),
        )
        if self.max_considered > 0:
            items = items[: self.max_considered]
        out = []
        for item in items:
            decision, detail, score, doc, hit, rank, code, fact = item[:8]
            if len(item) > 8:
                matched = item[8]
            elif hit is not None and hit.matched:
                matched = tuple(hit.matched)
            else:
                matched = tuple(self._matched(doc)) if doc is not None else ()
            if decision == "gate":
                if self.cs is not None and doc is not None and doc in self.cs.vetoed:
                    detail = (
                        f"weak match: only {', '.join(matched) or 'nothing'} matched, and the turn means something "
                        f"else (meaning {self.cs.sims.get(doc) or 0.0:.2f}, under {SINGLE_SIM})"
                    )
                elif self.cs is not None and doc is not None and doc in self.cs.astray:
                    detail = (
                        f"weak match: only {', '.join(matched) or 'nothing'} matched, and the rest of the turn "
                        "is about something no fact holds"
                    )
                elif self.cs is not None and doc is not None and (everyday := everyday_detail(self.cs, doc)):
                    detail = everyday
                elif self.cs is not None and doc is not None:
                    e, c = self.cs.gate_figures(doc)
                    detail = (
                        f"weak match: {', '.join(matched) or 'nothing'} matched ({c:.0%} of the query's words, "
                        f"evidence {e:.2f}); needs evidence {E_STRONG}, or {E_MIN} with {C_MIN:.0%} of the words, "
                        "or a whole identifier"
                    )
                else:
                    detail = (
                        f"weak match: only {', '.join(matched) or 'nothing'} matched; needs 2 terms, a long "
                        "term in a short query, or a distinctive term"
                    )
            channels = tuple(self._channel_list(doc, hit, fact)) if self.enh is not None else ()
            out.append(
                Considered(
                    fact=fact,
                    decision=decision,
                    detail=detail,
                    score=score,
                    matched=matched,
                    freshness=LABELS[code] if code is not None else "",
                    rank=rank,
                    channels=channels,
                )
            )
        return tuple(out)


def everyday_detail(cs: ChannelScores, doc: int) -> str:
    """Why ``doc`` lost when one of the gate's tests of a turn's everyday words
    (:mod:`.gate`) decided it, in the words of that test ("" when none did: the fact's
    evidence and coverage decided, or another rule). Those tests only take back what a
    channel passed, so a fact they name met an evidence rule on its words (lexical or
    translated) or was passed by the meaning channel."""
    i = cs.position(doc)
    if i < 0 or i >= len(cs.everyday) or not cs.everyday[i] or not (cs.ruled[i] or cs.barred[i]):
        return ""
    e, c = float(cs.evidence[i]), float(cs.coverage[i])
    found = []
    pairs = list(zip(cs.units, cs.which[:, i].tolist()))
    for unit, a in pairs:
        if a >= 0:
            channel = unit.alternatives[a][2]
            via = "" if channel == "lexical" else f" ({channel}: ×{TRANSLATED})"
            found.append(f"{unit.label} {unit.prior:.2f}{via}")
    sim = cs.sims.get(doc)
    cosine = f"meaning {sim:.2f}" if sim is not None else "no meaning cosine"
    under = f"{cosine} is under {SIM_GATE}" if sim is not None else f"no meaning cosine reaches {SIM_GATE}"
    if cs.everyday[i] == EVERYDAY_LONE:
        priors = ", ".join(f"{u.label} {u.prior:.2f}" for u in cs.units)
        held = next(
            (
                u.label + ("" if u.alternatives[a][2] == "lexical" else f" ({u.alternatives[a][2]})")
                for u, a in pairs
                if a >= 0
            ),
            "nothing",
        )
        head = f"everyday-words turn ({priors}; all under {LONE_PRIOR}): only {held} found, not written as a name"
        if cs.ruled[i]:
            return f"{head}, and {under} (the words met the line: {c:.0%} of the query's words, evidence {e:.2f})"
    else:
        one = int(cs.count[i]) < 2
        alike = " (glossed to one word of the fact, counted once)" if one and len(found) > 1 else ""
        head = (
            f"everyday words: {', '.join(found) or 'nothing'}{alike} {'holds' if len(found) < 2 else 'hold'} "
            f"{c:.0%} of the query's words but {'carries' if len(found) < 2 else 'carry'} {float(cs.firm[i]):.2f} "
            f"of information, under {LONE_PRIOR if one else PAIR_PRIOR} for {'one word' if one else 'two or more'}"
        )
        if cs.ruled[i]:
            return f"{head} (evidence {e:.2f})"
    return (
        f"{head}; the meaning channel does not carry a turn of everyday words ({cosine}), and the words miss "
        f"the line ({c:.0%} of the query's words, evidence {e:.2f})"
    )

"""The enhanced channels' scoring as it was computed before it followed the postings: one
dense array per query word over every fact of the snapshot. Kept as the reference the
sparse scoring of :mod:`reasonix_tui.core.recall.channels` must equal, value for value."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reasonix_tui.core import bm25
from reasonix_tui.core.lang import QueryUnit, query_units
from reasonix_tui.core.lang.terms import TRANSLATED
from reasonix_tui.core.recall import channels as ch
from reasonix_tui.core.recall import gate
from reasonix_tui.core.recall.channel_hits import _posting
from reasonix_tui.core.recall.memo import FACT_MEMO


@dataclass
class Dense:
    """Per document of the snapshot."""

    score: np.ndarray
    candidates: np.ndarray
    passed: np.ndarray
    evidence: np.ndarray
    coverage: np.ndarray
    best: list[np.ndarray]
    which: list[np.ndarray]
    sims: dict[int, float]
    vetoed: frozenset[int]
    alone: int = -1

    def matched(self, units: tuple[QueryUnit, ...], doc: int) -> list[str]:
        return [u.label for u, w in zip(units, self.which) if w[doc] >= 0]

    def channels(self, cidx: ch.ChannelIndex, units: tuple[QueryUnit, ...], doc: int) -> list[str]:
        out: list[str] = []
        for unit, best, which in zip(units, self.best, self.which):
            a = int(which[doc])
            if a < 0 or best[doc] <= 0:
                continue
            key, _, channel = unit.alternatives[a]
            if channel == "lexical":
                out.append(f"lexical: {unit.label}")
            elif channel == "related":
                out.append(f"related: {unit.label}→{unit.show(a)}")
            elif key.startswith("t:"):
                src = cidx.source(doc, key)
                out.append(f"translated: {unit.label}→{src}" if src else f"translated: {unit.label}")
            else:
                out.append(f"translated: {unit.label}→{unit.show(a)}")
        sim = self.sims.get(doc)
        if sim is not None and doc == self.alone:
            out.append(f"meaning alone: {sim:.2f}")
        elif sim is not None and sim > ch.SIM_FLOOR:
            out.append(f"meaning: {sim:.2f}")
        return out


def dense_scores(cidx: ch.ChannelIndex, query: str, *, dictionary: bool = True, meaning: bool = True) -> Dense:
    n = cidx.n
    units = query_units(query)
    prior_total = sum(u.prior for u in units) or 1.0
    score, evidence, matched = np.zeros(n), np.zeros(n), np.zeros(n)
    count, content = np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32)
    rare, distinct, literal = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    bests: list[np.ndarray] = []
    whiches: list[np.ndarray] = []
    qv = _query_vec(query) if meaning else None
    for unit in units:
        best, best_ev, which = _unit_scores(cidx, unit, dictionary, rare)
        _related_agreed(cidx, unit, qv, best, best_ev, which)
        hit = which >= 0
        score += best
        evidence += best_ev
        np.add(matched, unit.prior, out=matched, where=hit)
        np.add(count, 1, out=count, where=hit)
        if unit.prior >= ch.CONTENT_PRIOR:
            np.add(content, 1, out=content, where=hit)
        if unit.distinctive:
            distinct |= hit & (which == 0) & (unit.alternatives[0][0].startswith("x:"))
        if unit.distinctive:
            literal |= hit
        elif not unit.alternatives[0][0].startswith("w:"):  # a Chinese word found as written
            lexical = np.asarray([channel == "lexical" for _, _, channel in unit.alternatives])
            literal |= hit & lexical[np.maximum(which, 0)]
        bests.append(best)
        whiches.append(which)
    e = evidence / cidx.idf_one
    c = matched / prior_total
    candidates = matched > 0
    weighty, echo = _weighty(units, whiches, c, count, content)
    if echo.any():
        held_name = gate.named(units, np.stack(whiches), echo, lambda d: cidx.docs[d])
        weighty |= held_name
        echo &= ~held_name
    free = distinct | ((content >= 2) & (e >= ch.E_PAIR) & (c >= ch.C_PAIR)) | rare
    passed = candidates & (
        ((e >= ch.E_STRONG) & (c >= ch.C_STRONG) & (weighty | echo))
        | ((e >= ch.E_MIN) & (c >= ch.C_MIN) & (weighty | echo))
        | ((c >= ch.C_FULL) & (count >= 2) & (weighty | echo))
        | free
    )
    on_echo = passed & ~free & ~weighty
    titled = passed.copy()
    near = np.flatnonzero(candidates & ~passed & (c >= ch.C_FULL))
    if len(near) > ch.TITLE_CHECKS:
        near = near[np.argpartition(-score[near], ch.TITLE_CHECKS)[: ch.TITLE_CHECKS]]
    for d in near.tolist():
        title = FACT_MEMO.get(cidx.docs[d], "title-keys", ch._title_keys)
        if title and title <= {units[i].alternatives[int(w[d])][0] for i, w in enumerate(whiches) if w[d] >= 0}:
            passed[d] = True
    titled = passed & ~titled
    sims: dict[int, float] = {}
    vetoed: list[int] = []
    focus = candidates & (passed | (e >= ch.E_MEANING))
    if meaning and focus.any():
        held = passed.copy()
        sims = _meaning(cidx, query, np.flatnonzero(focus), score, passed, e)
        passed &= held | weighty | literal
        for d in np.flatnonzero(passed & ~held & ~weighty).tolist():
            if sims.get(d, 0.0) < ch.SIM_GATE:
                passed[d] = False
        for d in np.flatnonzero(passed & on_echo).tolist():
            if sims.get(d, 0.0) < ch.SIM_GATE:
                passed[d] = False
        for d in np.flatnonzero(passed & (count == 1) & ~literal & ~titled).tolist():
            if d in sims and sims[d] < ch.SINGLE_SIM:
                passed[d] = False
                vetoed.append(d)
    else:
        passed &= ~on_echo
    alone = _alone(cidx, query, units, score, candidates, passed, sims) if meaning and not passed.any() else -1
    return Dense(score, candidates, passed, e, c, bests, whiches, sims, frozenset(vetoed), alone)


def _weighty(
    units: tuple[QueryUnit, ...], whiches: list[np.ndarray], c: np.ndarray, count: np.ndarray, content: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every fact's words, each of the fact's words counted once (two query words glossed to
    the same word are one), weighed by prior (a translated one at ``TRANSLATED``); ``count``
    and ``content`` are corrected in place."""
    firm = np.zeros(len(c))
    for d in np.flatnonzero(count).tolist():
        best: dict[str, tuple[float, float]] = {}
        for unit, w in zip(units, whiches):
            a = int(w[d])
            if a >= 0:
                key, _, channel = unit.alternatives[a]
                weight = unit.prior if channel == "lexical" else unit.prior * TRANSLATED
                best[key] = max(best.get(key, (0.0, 0.0)), (weight, unit.prior))
        count[d] = len(best)
        content[d] = sum(1 for _, prior in best.values() if prior >= ch.CONTENT_PRIOR)
        firm[d] = sum(weight for weight, _ in best.values())
    loose = (c < ch.C_FULL) | (firm >= gate.LONE_PRIOR) | ((count >= 2) & (firm >= gate.PAIR_PRIOR))
    if units and max(u.prior for u in units) < gate.LONE_PRIOR:
        return loose & (count >= 2), loose & (count < 2)
    return loose, np.zeros(len(c), dtype=bool)


def _alone(
    cidx: ch.ChannelIndex,
    query: str,
    units: tuple[QueryUnit, ...],
    score: np.ndarray,
    candidates: np.ndarray,
    passed: np.ndarray,
    sims: dict[int, float],
) -> int:
    """Meaning alone (no fact passed on words): the one fact the turn clearly means."""
    from reasonix_tui.core.lang import embed
    from reasonix_tui.core.recall.meaning_alone import best_alone

    qv = embed([query])[0]
    found = best_alone(cidx.vectors(), cidx.n, units, qv, cidx.similarity_spread) if np.abs(qv).sum() > 0 else None
    if found is None:
        return -1
    d, s = found
    if d not in sims:
        score[d] += ch.MEANING_WEIGHT * cidx.idf_one * max(s - ch.SIM_FLOOR, 0.0)
        sims[d] = float(np.float32(s))
    candidates[d] = passed[d] = True
    return d


def _unit_scores(
    cidx: ch.ChannelIndex, unit: QueryUnit, dictionary: bool, rare: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = cidx.n
    best, best_ev, which = np.zeros(n), np.zeros(n), np.full(n, -1, dtype=np.int16)
    for ai, (key, weight, channel) in enumerate(unit.alternatives):
        if channel == "translated" and not dictionary:
            continue
        if channel == "related" and any(w >= 0 and unit.alternatives[w][2] != "related" for w in which.tolist()):
            continue  # the word itself is in a fact: no related word is read
        post = _posting(cidx, key, channel)
        if post is None:
            continue
        docs, tf = post
        idf = cidx.idf(len(docs))
        if channel == "lexical" and weight >= 1.0 and len(docs) == 1 and unit.known and unit.prior >= ch.RARE_PRIOR:
            rare[docs] = True
        contrib = bm25.term_score(weight * idf, tf, cidx.norm[docs])
        better = contrib > best[docs]
        d = docs[better]
        best[d] = contrib[better]
        best_ev[d] = (weight if channel == "lexical" else weight * ch.TRANSLATED_EVIDENCE / TRANSLATED) * idf
        which[d] = ai
    return best, best_ev, which


def _query_vec(query: str) -> np.ndarray | None:
    from reasonix_tui.core.lang import embed

    qv = embed([query])[0]
    return qv if float(np.abs(qv).sum()) > 0 else None


def _related_agreed(
    cidx: ch.ChannelIndex, unit: QueryUnit, qv: np.ndarray | None, best: np.ndarray, ev: np.ndarray, which: np.ndarray
) -> None:
    """A match through a related word stands only when the word itself is in no fact and
    the fact's cosine with the turn is above ``RELATED_SIM`` (in place)."""
    related = np.asarray([channel == "related" for _, _, channel in unit.alternatives])
    hit = which >= 0
    via = hit & related[np.maximum(which, 0)]
    if not via.any():
        return
    own = (hit & ~via).any()  # unit_hits reads no related word once the word itself matched
    sims = cidx.vectors() @ qv if qv is not None else np.zeros(cidx.n)
    drop = via & (own | (sims <= ch.RELATED_SIM))
    best[drop], ev[drop], which[drop] = 0.0, 0.0, -1


def _meaning(
    cidx: ch.ChannelIndex, query: str, cand: np.ndarray, score: np.ndarray, passed: np.ndarray, e: np.ndarray
) -> dict[int, float]:
    from reasonix_tui.core.lang import embed

    qv = embed([query])[0]
    if float(np.abs(qv).sum()) <= 0:
        return {}
    s = ch._cosines(cidx.vectors(), cand, qv)  # the same blocks (a block size changes the last bits)
    score[cand] += ch.MEANING_WEIGHT * cidx.idf_one * np.maximum(s - ch.SIM_FLOOR, 0.0)
    passed[cand] |= (s >= ch.SIM_GATE) & (e[cand] >= ch.E_MEANING)
    mean, sd = cidx.similarity_spread(qv)
    if cidx.n >= ch.MEANING_MIN_FACTS and sd > 0:
        passed[cand] |= ((s - mean) / sd >= ch.Z_GATE) & (e[cand] >= ch.E_MEANING)
    return dict(zip(cand.tolist(), s.tolist()))

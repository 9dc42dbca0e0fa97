"""Enhanced recall's evidence channels over one snapshot: BM25F by field, translation,
meaning, and the idf-weighted gate.

* **lexical** — every query word (:func:`~reasonix_tui.core.lang.query_units`) against
  the facts' terms (stems, whole identifiers and their segments, jieba words), scored
  BM25F-style: a term's frequency counts :data:`FIELD_WEIGHTS` times in each field
  (name/title/keywords/subject over description over body), then the usual saturation
  and length normalisation (k1 = 1.2, b = 0.75) and the Reasonix idf.
* **translated** — a Chinese query word through its CC-CEDICT glosses against English
  words, and an English query word against the glosses of a fact's Chinese words; it
  weighs :data:`~reasonix_tui.core.lang.terms.TRANSLATED` of a real match. A word counts
  once, through its best channel.
* **meaning** — the cosine between the query's and each candidate's meaning vector
  (:mod:`reasonix_tui.core.lang.meaning`); it adds to the score of facts that matched a
  word and can carry a partial match through the gate, but never admits a fact alone.
* **the gate** — evidence is counted in information, not terms: ``E`` is the idf mass of
  the matched words (weighted by channel) in units of the idf of a word found in one
  fact, ``C`` the share of the query's content words matched. A fact passes with
  ``E ≥ E_STRONG`` and ``C ≥ C_STRONG``, or ``E ≥ E_MIN`` and ``C ≥ C_MIN``, or two words
  covering ``C ≥ C_FULL`` (each query word weighed by its
  prior, :func:`~reasonix_tui.core.lang.prior.word_prior`), or a whole identifier/number of
  the query, or ``E ≥ E_MEANING`` with a meaning similarity of at least ``SIM_GATE`` or ``Z_GATE``
  standard deviations above the store's (stores of ``MEANING_MIN_FACTS`` or more). Function words are no
  query words at all.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import bm25
from ..lang import QueryUnit, query_units
from ..lang.terms import TRANSLATED
from ..store.model import Fact
from .fields import fact_fields, fact_vectors
from .memo import FACT_MEMO

__all__ = [
    "ChannelIndex",
    "ChannelScores",
    "about_fact",
    "score_query",
    "FIELD_WEIGHTS",
    "E_STRONG",
    "E_MIN",
    "C_MIN",
    "SIM_GATE",
    "SINGLE_SIM",
    "Z_GATE",
    "E_MEANING",
]

FIELD_WEIGHTS = {"label": 3.0, "desc": 1.5, "body": 1.0}
"""BM25F field weights: name/title/keywords/subject, description, body."""
E_STRONG = 1.6
E_MIN = 0.8
C_MIN = 0.4
C_STRONG = 0.25
C_FULL = 0.8
"""Two or more words covering this share of the query pass whatever the store's idf (a
store where every fact says "helm chart values" still answers "helm chart values")."""
CONTENT_PRIOR = 0.5
ABOUT_SHARE = 0.5
"""Share of a turn's information (its words' priors) a fact must hold for the turn to be
about it when fewer than two of the words found are content words (:func:`about_fact`)."""
E_PAIR = 1.0
C_PAIR = 0.25
"""Two content words (prior ≥ ``CONTENT_PRIOR``) matched, with ``E ≥ E_PAIR`` and ``C ≥
C_PAIR``, pass: a long instruction ("write the command to install this project's
dependencies into answer.txt") holds more words than its topic."""
RARE_PRIOR = 0.95
"""A word known to be this rare in the language (its prior rests on evidence, not on the
word being unknown), written in exactly one fact, passes that fact on its own: the
counterpart of Reasonix's distinctive term for words (灰度 "canary release" is as specific
as ``checkout_v2``)."""
SIM_GATE = 0.45
"""... or when the similarity itself reaches this."""
Z_GATE = 3.5
"""The meaning channel carries a partial match through the gate when the fact's similarity
to the query stands this many standard deviations above the store's."""
SINGLE_SIM = 0.13
"""The meaning cosine under which one matched word alone does not pass a fact (see
:func:`_single_word_veto`). Calibration on the open parts: unrelated turns passing on one
everyday word score 0.02-0.12 against the fact; the targets that pass on one word 0.15-0.60
(one Chinese question about an English fact at 0.00)."""
MEANING_MIN_FACTS = 10
E_MEANING = 0.5
TRANSLATED_EVIDENCE = 0.85
"""A translated match's weight as gate evidence (its score weight is lower)."""
MEANING_WEIGHT = 2.0
"""Score added per unit of cosine above :data:`SIM_FLOOR`, in units of the top idf."""
SIM_FLOOR = 0.25
_IDENT_SEGMENTS = 0.9
TITLE_CHECKS = 32
"""Candidates (best scores first) checked for a title the query spells out."""


_KEY_IDS: dict[str, int] = {}
"""Every key seen by this process → a small integer (only grows; per-fact arrays use it)."""
_KEY_LOCK = threading.Lock()
_FILE_KEYS: list[str] = []
"""Every ``f:`` key seen, sorted (prefix searches)."""


def _fact_weights(fact: Fact) -> tuple[list[str], bytes, float]:
    """``(keys, BM25F-weighted frequencies as float64 bytes, length)`` of one fact: plain
    strings and bytes, so one-shot processes keep them in the per-fact memo on disk."""
    ff = fact_fields(fact)
    acc: dict[str, float] = {}
    wl, wd, wb = FIELD_WEIGHTS["label"], FIELD_WEIGHTS["desc"], FIELD_WEIGHTS["body"]
    for items, w in ((ff.label, wl), (ff.desc, wd), (ff.body, wb)):
        for k, tf in items:
            acc[k] = acc.get(k, 0.0) + w * tf
    return list(acc), np.fromiter(acc.values(), dtype=np.float64, count=len(acc)).tobytes(), float(max(ff.length, 1))


def _fact_terms(fact: Fact) -> tuple[np.ndarray, np.ndarray, float]:
    """``(key ids, BM25F-weighted frequencies, length)`` of one fact (memoised per object,
    so a rebuild after one write touches one fact; the ids are this process's own)."""
    keys, weights, length = FACT_MEMO.get_durable(fact, "channel-weights", _fact_weights)
    with _KEY_LOCK:
        for k in keys:
            if k.startswith("f:") and k not in _KEY_IDS:
                bisect.insort(_FILE_KEYS, k)
        ids = [_KEY_IDS.setdefault(k, len(_KEY_IDS)) for k in keys]
    tfs = np.frombuffer(weights, dtype=np.float64)
    if len(tfs) != len(ids):
        raise ValueError("channel weights do not match their keys")
    return np.asarray(ids, dtype=np.int64), tfs.copy(), float(length)


FACT_MEMO.register_transient("channel-terms")
FACT_MEMO.register_transient("title-keys")


class ChannelIndex:
    """Postings of every fact term with BM25F-weighted frequencies (built once per snapshot
    from per-fact arrays: concatenation and one sort)."""

    def __init__(self, docs: tuple[Fact, ...]) -> None:
        self.docs = docs
        n = len(docs)
        self.n = n
        per = [FACT_MEMO.get(f, "channel-terms", _fact_terms) for f in docs]
        dl = np.fromiter((p[2] for p in per), dtype=np.float64, count=n)
        if per:
            keys = np.concatenate([p[0] for p in per])
            tfs = np.concatenate([p[1] for p in per])
            doc_of = np.repeat(np.arange(n, dtype=np.int64), [len(p[0]) for p in per])
        else:
            keys = np.zeros(0, dtype=np.int64)
            tfs = np.zeros(0)
            doc_of = np.zeros(0, dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        self._docs = doc_of[order]
        self._tfs = tfs[order]
        sorted_keys = keys[order]
        self._keys, self._start = np.unique(sorted_keys, return_index=True)
        self._end = np.append(self._start[1:], len(sorted_keys))
        avg = float(dl.mean()) if n else 1.0
        self.norm = bm25.length_norm(dl, avg or 1.0)
        """Per-document length normalisation."""
        self.idf_one = bm25.idf(n, 1) if n else 1.0
        """idf of a term found in one fact: the unit of evidence."""
        self._lock = threading.Lock()
        self._vectors: np.ndarray | None = None
        self._moments: tuple[np.ndarray, np.ndarray] | None = None

    def posting(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(documents, weighted term frequencies)`` of ``key``."""
        kid = _KEY_IDS.get(key)
        if kid is None:
            return None
        i = int(self._keys.searchsorted(kid))
        if i >= len(self._keys) or int(self._keys[i]) != kid:
            return None
        s, e = int(self._start[i]), int(self._end[i])
        return self._docs[s:e], self._tfs[s:e]

    def source(self, doc: int, key: str) -> str:
        """The Chinese word a translated key of ``doc`` came from."""
        return dict(fact_fields(self.docs[doc]).sources).get(key, "")

    def idf(self, df: int) -> float:
        """Reasonix's idf for a document frequency."""
        return bm25.idf(self.n, df)

    def vectors(self) -> np.ndarray:
        """Meaning vectors of every document (embedded once per snapshot; memoised per fact)."""
        if self._vectors is None:
            with self._lock:
                if self._vectors is None:
                    self._vectors = fact_vectors(list(self.docs))
        return self._vectors

    def similarity_spread(self, qv: np.ndarray) -> tuple[float, float]:
        """Mean and standard deviation of the query's cosine over every fact, from the
        snapshot's mean vector and second-moment matrix (no pass over the facts)."""
        if self._moments is None:
            with self._lock:
                if self._moments is None:
                    v = self.vectors().astype(np.float64)
                    n = max(len(v), 1)
                    self._moments = (v.sum(axis=0) / n, (v.T @ v) / n)
        mean_vec, second = self._moments
        q = qv.astype(np.float64)
        mean = float(q @ mean_vec)
        var = float(q @ second @ q) - mean * mean
        return mean, math.sqrt(var) if var > 0 else 0.0

    @classmethod
    def build(cls, index: Any) -> ChannelIndex:
        """For :meth:`RecallIndex.extra`."""
        return cls(index.docs)


class Similarities:
    """Meaning cosines of some documents (sorted document numbers and their values), looked
    up on demand: the trace reads a few dozen of the thousands a query may score."""

    def __init__(self, docs: np.ndarray | None = None, values: np.ndarray | None = None) -> None:
        self.docs = docs if docs is not None else np.zeros(0, dtype=np.int64)
        self.values = values if values is not None else np.zeros(0, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.docs)

    def get(self, doc: int) -> float | None:
        """The cosine of ``doc`` (``None`` when it was not scored)."""
        return self.get_many(np.asarray([doc], dtype=np.int64))[0]

    def get_many(self, docs: np.ndarray) -> list[float | None]:
        """:meth:`get` for several documents."""
        if not len(self.docs):
            return [None] * len(docs)
        at = np.minimum(self.docs.searchsorted(docs), len(self.docs) - 1)
        found = (self.docs[at] == docs).tolist()
        values = self.values[at].tolist()
        return [v if ok else None for v, ok in zip(values, found)]


@dataclass
class ChannelScores:
    """One query's channel evidence over a snapshot."""

    score: np.ndarray
    candidates: np.ndarray
    passed: np.ndarray
    units: tuple[QueryUnit, ...]
    evidence: np.ndarray
    coverage: np.ndarray
    best: list[np.ndarray] = field(default_factory=list)
    """Per unit: the contribution of its best alternative, per document."""
    which: list[np.ndarray] = field(default_factory=list)
    """Per unit: the index of that alternative (-1: no match)."""
    sims: Similarities = field(default_factory=lambda: Similarities())
    """Meaning cosine of the candidates (when the channel is on)."""
    vetoed: frozenset[int] = frozenset()
    """Facts that passed on one word alone and were kept out by the meaning channel."""

    def channels(self, cidx: ChannelIndex, doc: int) -> list[str]:
        """What each channel contributed to ``doc``, one short string per matched word."""
        return self.channels_of(cidx, [doc])[0]

    def channels_of(self, cidx: ChannelIndex, docs: Sequence[int]) -> list[list[str]]:
        """:meth:`channels` of several documents (one gather per query word, not one
        array lookup per word and document)."""
        at = np.asarray(docs, dtype=np.int64)
        picked = [
            (unit, which[at].tolist(), best[at].tolist())
            for unit, best, which in zip(self.units, self.best, self.which)
        ]
        sims = self.sims.get_many(at)
        outs: list[list[str]] = []
        for i, doc in enumerate(docs):
            out: list[str] = []
            for unit, whiches, bests in picked:
                a = whiches[i]
                if a < 0 or bests[i] <= 0:
                    continue
                key, _, channel = unit.alternatives[a]
                if channel == "lexical":
                    out.append(f"lexical: {unit.label}")
                elif key.startswith("t:"):
                    src = cidx.source(doc, key)
                    out.append(f"translated: {unit.label}→{src}" if src else f"translated: {unit.label}")
                else:
                    out.append(f"translated: {unit.label}→{unit.show(a)}")
            sim = sims[i]
            if sim is not None and sim > SIM_FLOOR:
                out.append(f"meaning: {sim:.2f}")
            outs.append(out)
        return outs

    def matched(self, doc: int) -> list[str]:
        """The query words ``doc`` matched (any channel)."""
        return self.matched_of([doc])[0]

    def matched_of(self, docs: Sequence[int]) -> list[list[str]]:
        """:meth:`matched` of several documents (one gather per query word)."""
        at = np.asarray(docs, dtype=np.int64)
        picked = [(u.label, w[at].tolist()) for u, w in zip(self.units, self.which)]
        return [[label for label, whiches in picked if whiches[i] >= 0] for i in range(len(docs))]


def score_query(cidx: ChannelIndex, query: str, *, dictionary: bool = True, meaning: bool = True) -> ChannelScores:
    """Score every fact of the snapshot that matches a query word."""
    n = cidx.n
    units = query_units(query)
    prior_total = sum(u.prior for u in units) or 1.0
    score = np.zeros(n)
    evidence = np.zeros(n)
    matched = np.zeros(n)
    count = np.zeros(n, dtype=np.int32)
    content = np.zeros(n, dtype=np.int32)
    rare = np.zeros(n, dtype=bool)
    distinct = np.zeros(n, dtype=bool)
    literal = np.zeros(n, dtype=bool)
    bests: list[np.ndarray] = []
    whiches: list[np.ndarray] = []
    for unit in units:
        best, best_ev, which = _unit_scores(cidx, unit, dictionary, rare)
        hit = which >= 0
        score += best
        evidence += best_ev
        np.add(matched, unit.prior, out=matched, where=hit)
        np.add(count, 1, out=count, where=hit)
        if unit.prior >= CONTENT_PRIOR:
            np.add(content, 1, out=content, where=hit)
        if unit.distinctive:
            first = unit.alternatives[0][0]
            distinct |= hit & (which == 0) & (first.startswith("x:"))
        if unit.distinctive or not unit.alternatives[0][0].startswith("w:"):
            literal |= hit  # an identifier, a number, or a Chinese word (its meaning vector is read through glosses)
        bests.append(best)
        whiches.append(which)
    e = evidence / cidx.idf_one
    c = matched / prior_total
    candidates = matched > 0
    passed = candidates & (
        ((e >= E_STRONG) & (c >= C_STRONG))
        | ((e >= E_MIN) & (c >= C_MIN))
        | distinct
        | ((c >= C_FULL) & (count >= 2))
        | ((content >= 2) & (e >= E_PAIR) & (c >= C_PAIR))
        | rare
    )
    titled = passed.copy()
    _title_pass(cidx, units, whiches, score, candidates & ~passed & (c >= C_FULL), passed)
    titled = passed & ~titled
    sims = Similarities()
    vetoed: frozenset[int] = frozenset()
    # The meaning channel only matters for facts that pass, or could pass with it.
    focus = candidates & (passed | (e >= E_MEANING))
    if meaning and focus.any():
        sims = _meaning_channel(cidx, query, np.flatnonzero(focus), score, passed, e)
        vetoed = _single_word_veto(sims, passed & (count == 1) & ~literal & ~titled, passed)
    return ChannelScores(
        score=score,
        candidates=candidates,
        passed=passed,
        units=units,
        evidence=e,
        coverage=c,
        best=bests,
        which=whiches,
        sims=sims,
        vetoed=vetoed,
    )


def _single_word_veto(sims: Similarities, single: np.ndarray, passed: np.ndarray) -> frozenset[int]:
    """A fact that passed on one query word alone (not an identifier or a number, not a title
    the query spells out) stays out when the meaning channel finds the turn unrelated to it
    (cosine below :data:`SINGLE_SIM`): one shared everyday word ("周末", "Friday") in a turn
    about something else is no evidence, and however rare the word is in the store, the
    turn's other words say what it is about. Returns the facts kept out."""
    out = []
    for d in np.flatnonzero(single).tolist():
        sim = sims.get(d)
        if sim is not None and sim < SINGLE_SIM:
            passed[d] = False
            out.append(d)
    return frozenset(out)


def _unit_scores(
    cidx: ChannelIndex, unit: QueryUnit, dictionary: bool, rare: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One query word's best alternative per fact: ``(score, evidence, alternative index)``
    (-1 where none matched); marks in ``rare`` the facts that alone hold a known-rare word."""
    n = cidx.n
    best = np.zeros(n)
    best_ev = np.zeros(n)
    which = np.full(n, -1, dtype=np.int16)
    for ai, (key, weight, channel) in enumerate(unit.alternatives):
        if channel == "translated" and not dictionary:
            continue
        if key.startswith("&"):
            post = _conjunction(cidx, key)
        elif key.startswith("^"):
            post = _file_prefix(cidx, key[1:])
        else:
            post = cidx.posting(key)
            if post is None and channel == "translated" and key.startswith("w:"):
                post = _prefix(cidx, key)
        if post is None:
            continue
        docs, tf = post
        idf = cidx.idf(len(docs))
        if channel == "lexical" and weight >= 1.0 and len(docs) == 1 and unit.known and unit.prior >= RARE_PRIOR:
            rare[docs] = True
        contrib = bm25.term_score(weight * idf, tf, cidx.norm[docs])
        better = contrib > best[docs]
        if better.all():
            d = docs
            best[d] = contrib
        elif better.any():
            d = docs[better]
            best[d] = contrib[better]
        else:
            continue
        best_ev[d] = (weight if channel == "lexical" else weight * TRANSLATED_EVIDENCE / TRANSLATED) * idf
        which[d] = ai
    return best, best_ev, which


def _title_pass(
    cidx: ChannelIndex,
    units: Sequence[QueryUnit],
    whiches: list[np.ndarray],
    score: np.ndarray,
    near: np.ndarray,
    passed: np.ndarray,
) -> None:
    """A fact whose title the query's words spell out ("retries" → "Retries") passes: the
    title names what the fact is about. The title weighs 3× in the score, so the best few
    such candidates hold any title match."""
    near = np.flatnonzero(near)
    if len(near) > TITLE_CHECKS:
        near = near[np.argpartition(-score[near], TITLE_CHECKS)[:TITLE_CHECKS]]
    for d in near.tolist():
        title = FACT_MEMO.get(cidx.docs[d], "title-keys", _title_keys)
        if title and title <= {units[i].alternatives[int(w[d])][0] for i, w in enumerate(whiches) if w[d] >= 0}:
            passed[d] = True


def _cosines(vec: Any, rows: np.ndarray, qv: np.ndarray) -> np.ndarray:
    """``vec[rows] @ qv``, gathered in blocks that stay in the CPU cache (the same values)."""
    if len(rows) <= _COSINE_BLOCK:
        return vec[rows] @ qv  # type: ignore[no-any-return]  # vectors: an array or rows read from disk
    out = np.empty(len(rows), dtype=np.result_type(np.float32, qv))
    for i in range(0, len(rows), _COSINE_BLOCK):
        np.dot(vec[rows[i : i + _COSINE_BLOCK]], qv, out=out[i : i + _COSINE_BLOCK])
    return out


_COSINE_BLOCK = 256


def _meaning_channel(
    cidx: ChannelIndex, query: str, cand: np.ndarray, score: np.ndarray, passed: np.ndarray, e: np.ndarray
) -> Similarities:
    """Add the meaning channel to ``score`` and ``passed`` for the candidates ``cand``;
    return their similarities (empty when the model is missing)."""
    try:
        from ..lang import embed

        qv = embed([query])[0]
        vec = cidx.vectors()
    except (ImportError, OSError, ValueError):
        return Similarities()
    if float(np.abs(qv).sum()) <= 0:
        return Similarities()
    s = _cosines(vec, cand, qv)
    score[cand] += MEANING_WEIGHT * cidx.idf_one * np.maximum(s - SIM_FLOOR, 0.0)
    passed[cand] |= (s >= SIM_GATE) & (e[cand] >= E_MEANING)
    mean, sd = cidx.similarity_spread(qv)
    if cidx.n >= MEANING_MIN_FACTS and sd > 0:
        z = (s - mean) / sd
        passed[cand] |= (z >= Z_GATE) & (e[cand] >= E_MEANING)
    return Similarities(cand, s)


def about_fact(query: str, fact: Fact) -> bool:
    """Whether a turn is about one given fact (one that is not in the recall pool, such as a
    pinned default): two of its content words (prior ≥ :data:`CONTENT_PRIOR`) are in the
    fact, directly or through the dictionary; or two or more words carrying the information
    of two content words (priors summing to 2 × :data:`CONTENT_PRIOR`: "Jest" 1.0 and
    "tests" 0.45) and :data:`ABOUT_SHARE` of the turn's; or the words found cover
    :data:`C_FULL` of the turn."""
    units = query_units(query)
    if not units:
        return False
    keys = fact_fields(fact).keys()
    found = [u for u in units if any(key in keys for key, _, _ in u.alternatives)]
    content = sum(1 for u in found if u.prior >= CONTENT_PRIOR)
    mass = sum(u.prior for u in found)
    share = mass / (sum(u.prior for u in units) or 1.0)
    return (
        content >= 2
        or (len(found) >= 2 and mass >= 2 * CONTENT_PRIOR and share >= ABOUT_SHARE)
        or (bool(found) and share >= C_FULL)
    )


def _title_keys(fact: Fact) -> frozenset[str]:
    """Keys of a fact's title (or of its name when it has no title)."""
    from ..lang import analyze

    return frozenset(
        t.key
        for t in analyze(fact.title or fact.name.replace("-", " "), index=False)
        if t.key.startswith(("w:", "x:", "z:"))
    )


def _prefix(cidx: ChannelIndex, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """A translated English key against a fact word whose key is a shorter prefix of it
    (a gloss "document" → ``docume`` meets "docs" → ``doc``; "application" meets "app")."""
    word = key[2:]
    for size in range(len(word) - 1, 2, -1):
        post = cidx.posting("w:" + word[:size])
        if post is not None:
            return post
    return None


def _file_prefix(cidx: ChannelIndex, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Documents with a file name that ``key`` (``f:nvm``) begins and is shorter than
    (``f:nvmrc``); the frequency is the largest."""
    with _KEY_LOCK:
        lo = bisect.bisect_right(_FILE_KEYS, key)
        hi = bisect.bisect_left(_FILE_KEYS, key + "\uffff")
        names = _FILE_KEYS[lo:hi]
    acc: dict[int, float] = {}
    for name in names:
        post = cidx.posting(name)
        if post is None:
            continue
        for d, tf in zip(post[0].tolist(), post[1].tolist()):
            acc[d] = max(acc.get(d, 0.0), tf)
    if not acc:
        return None
    docs = np.fromiter(acc, dtype=np.int64, count=len(acc))
    order = np.argsort(docs)
    return docs[order], np.fromiter(acc.values(), dtype=np.float64, count=len(acc))[order]


def _conjunction(cidx: ChannelIndex, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``&k1&k2…``: documents having every key; the frequency is the smallest."""
    parts = [p for p in key.split("&") if p]
    posts = [cidx.posting(p) for p in parts]
    if any(p is None for p in posts):
        return None
    docs, tf = posts[0]  # type: ignore[misc]  # postings are (docs, tf) pairs
    for other in posts[1:]:
        od, ot = other  # type: ignore[misc]  # postings are (docs, tf) pairs
        at = od.searchsorted(docs)  # postings are sorted: membership by binary search
        mask = od[np.minimum(at, len(od) - 1)] == docs
        docs, tf = docs[mask], tf[mask]
        if not len(docs):
            return None
        tf = np.minimum(tf, ot[at[mask]])
    return docs, tf

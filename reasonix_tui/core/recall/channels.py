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
  word and can carry a partial match through the gate. When no fact passed on words, it
  may admit the one fact the turn clearly means (:mod:`.meaning_alone`).
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from .. import bm25
from ..lang import QueryUnit, query_units
from ..lang.terms import TRANSLATED
from ..store.model import Fact
from .answer_types import fact_types, type_names
from .aside import aside
from .channel_hits import LEXICAL, RARE_PRIOR, RELATED, TRANSLATED_EVIDENCE, UnitHits, positions, unit_hits
from .fields import fact_fields, fact_vectors
from .gate import C_FULL, CONTENT_PRIOR, about_fact
from .gate import named as gate_named
from .gate import weighty as gate_weighty
from .meaning_alone import admit, best_alone, best_by_answer
from .memo import FACT_MEMO

__all__ = [
    "ChannelIndex",
    "ChannelScores",
    "about_fact",
    "score_query",
    "title_keys",
    "FIELD_WEIGHTS",
    "E_STRONG",
    "E_MIN",
    "C_MIN",
    "SIM_GATE",
    "SINGLE_SIM",
    "EVERYDAY_LONE",
    "EVERYDAY_LIGHT",
    "Z_GATE",
    "E_MEANING",
    "RARE_PRIOR",
    "TRANSLATED_EVIDENCE",
]

FIELD_WEIGHTS = {"label": 3.0, "desc": 1.5, "body": 1.0}
"""BM25F field weights: name/title/keywords/subject, description, body."""
E_STRONG = 1.6
E_MIN = 0.8
C_MIN = 0.4
C_STRONG = 0.25
E_PAIR = 1.0
C_PAIR = 0.25
"""Two content words (prior ≥ ``CONTENT_PRIOR``) matched, with ``E ≥ E_PAIR`` and ``C ≥
C_PAIR``, pass: a long instruction ("write the command to install this project's
dependencies into answer.txt") holds more words than its topic."""
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
EVERYDAY_LONE = 1
""":attr:`ChannelScores.everyday`: a turn made only of everyday words, the fact holds one of
them only and not as a name (:func:`~.gate.weighty`'s second array)."""
EVERYDAY_LIGHT = 2
""":attr:`ChannelScores.everyday`: the words found hold :data:`~.gate.C_FULL` of the turn and
carry less information than :data:`~.gate.LONE_PRIOR` (one word) or
:data:`~.gate.PAIR_PRIOR` (two or more)."""
MEANING_MIN_FACTS = 10
E_MEANING = 0.5
MEANING_WEIGHT = 2.0
"""Score added per unit of cosine above :data:`SIM_FLOOR`, in units of the top idf."""
SIM_FLOOR = 0.25
ANSWER_SCORE = 0.01
"""A fact admitted by its answer type whose cosine is under :data:`SIM_FLOOR` scores this
much per unit of the meaning weight (it is the only fact that passed)."""
RELATED_SIM = SIM_FLOOR
"""The meaning cosine above which a match through a related word stands (the floor above
which the meaning channel adds to a fact's score: the turn is about the fact)."""
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
FACT_MEMO.register_transient("key-sources")


def _key_sources(fact: Fact) -> dict[str, str]:
    """Translated key → the Chinese word of ``fact`` it came from."""
    return dict(fact_fields(fact).sources)


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
        self._answer_types = np.fromiter(
            (FACT_MEMO.get(f, "answer-types", fact_types) for f in docs), dtype=np.int16, count=n
        )
        """Per document, the answer types its text holds (:mod:`.answer_types`)."""

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

    def file_keys(self, key: str) -> list[str]:
        """The file-name keys seen by this process that ``key`` (``f:nvm``) begins and is
        shorter than (``f:nvmrc``)."""
        with _KEY_LOCK:
            lo = bisect.bisect_right(_FILE_KEYS, key)
            hi = bisect.bisect_left(_FILE_KEYS, key + "\uffff")
            return _FILE_KEYS[lo:hi]

    def source(self, doc: int, key: str) -> str:
        """The Chinese word a translated key of ``doc`` came from."""
        return FACT_MEMO.get(self.docs[doc], "key-sources", _key_sources).get(key, "")  # type: ignore[no-any-return]  # a dict of strings

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

    def answer_types(self, docs: np.ndarray) -> np.ndarray:
        """The answer types (:func:`~.answer_types.fact_types`) of ``docs``, read when the
        index was built (memoised per fact: a rebuild after one write reads one fact)."""
        types: np.ndarray = self._answer_types[docs]
        return types

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
    """One query's channel evidence over the facts that matched a query word: ``docs``
    holds their document numbers (sorted), the other arrays are by position in ``docs``."""

    docs: np.ndarray
    score: np.ndarray
    candidates: np.ndarray
    passed: np.ndarray
    units: tuple[QueryUnit, ...]
    evidence: np.ndarray
    coverage: np.ndarray
    which: np.ndarray = field(default_factory=lambda: np.zeros((0, 1), dtype=np.int16))
    """Per unit (rows) and position in ``docs`` (columns, one more for a fact outside them):
    the index of the unit's best alternative there, -1 where the unit did not match. A
    match is recorded only where it contributes a positive score."""
    sims: Similarities = field(default_factory=lambda: Similarities())
    """Meaning cosine of the candidates (when the channel is on)."""
    vetoed: frozenset[int] = frozenset()
    """Facts that passed on one word alone and were kept out by the meaning channel."""
    astray: frozenset[int] = frozenset()
    """Facts that passed on one word alone in a turn about something the store does not
    hold (:func:`~.aside.aside`)."""
    alone: int = -1
    """The fact the meaning channel admitted alone (no word matched enough; -1: none)."""
    answer: str = ""
    """When :attr:`alone` was admitted by its answer type: the types the turn expects
    (:func:`~.answer_types.type_names`)."""
    everyday: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    """By position: which test of a turn's everyday words (:mod:`.gate`) holds the fact back
    unless something else passes it — :data:`EVERYDAY_LONE` (a turn made only of everyday
    words, the fact holds one of them, not as a name), :data:`EVERYDAY_LIGHT` (the words
    found hold the turn and carry too little information), 0: neither. For the trace only."""
    ruled: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """By position: the words met an evidence/coverage rule (before the everyday-words tests)."""
    barred: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """By position: the meaning channel passed the fact and the everyday-words tests took it back."""
    firm: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """By position: the information of the words found (priors; a translation at a discount)."""
    count: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """By position: the query words found (two glossed to the same word counted once)."""

    def chosen(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(documents, scores, passed the gate)`` of the candidates, by document number."""
        keep = self.candidates
        if keep.all():  # every fact matched a word of some information (the usual case)
            return self.docs, self.score, self.passed
        return self.docs[keep], self.score[keep], self.passed[keep]

    def position(self, doc: int) -> int:
        """``doc``'s position in :attr:`docs` (-1 when it matched no query word)."""
        i = int(self.docs.searchsorted(doc))
        return i if i < len(self.docs) and int(self.docs[i]) == doc else -1

    def gate_figures(self, doc: int) -> tuple[float, float]:
        """``(evidence, coverage)`` of ``doc`` for the gate (zeros when it matched nothing)."""
        i = int(self.docs.searchsorted(doc))
        if i >= len(self.docs) or int(self.docs[i]) != doc:
            return 0.0, 0.0
        return float(self.evidence[i]), float(self.coverage[i])

    def alternatives_of(self, docs: np.ndarray) -> list[list[int]]:
        """Per document of ``docs``, per unit: the index of the best alternative that
        matched it (-1: none)."""
        m = len(self.docs)
        if m:
            at = np.minimum(self.docs.searchsorted(docs), m - 1)
            cols = np.where(self.docs[at] == docs, at, m)
        else:
            cols = np.zeros(len(docs), dtype=np.int64)
        table: list[list[int]] = self.which[:, cols].T.tolist()
        return table

    def channels(self, cidx: ChannelIndex, doc: int) -> list[str]:
        """What each channel contributed to ``doc``, one short string per matched word."""
        return self.channels_of(cidx, [doc])[0]

    def channels_of(self, cidx: ChannelIndex, docs: Sequence[int]) -> list[list[str]]:
        """:meth:`channels` of several documents."""
        return [chans for chans, _ in self.explain_of(cidx, docs)]

    def matched(self, doc: int) -> list[str]:
        """The query words ``doc`` matched (any channel)."""
        return self.matched_of([doc])[0]

    def matched_of(self, docs: Sequence[int]) -> list[list[str]]:
        """:meth:`matched` of several documents."""
        labels = [u.label for u in self.units]
        table = self.alternatives_of(np.asarray(docs, dtype=np.int64))
        return [[label for label, a in zip(labels, row) if a >= 0] for row in table]

    def explain_of(self, cidx: ChannelIndex, docs: Sequence[int]) -> list[tuple[list[str], list[str]]]:
        """``(channels, matched words)`` of several documents, as :meth:`channels` and
        :meth:`matched` say them (one table lookup for all of them)."""
        at = np.asarray(docs, dtype=np.int64)
        table = self.alternatives_of(at)
        sims = self.sims.get_many(at)
        units = self.units
        outs: list[tuple[list[str], list[str]]] = []
        for doc, row, sim in zip(docs, table, sims):
            out: list[str] = []
            words: list[str] = []
            for unit, a in zip(units, row):
                if a < 0:
                    continue
                words.append(unit.label)
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
            if sim is not None and doc == self.alone and self.answer:
                out.append(f"answer type: {self.answer}, meaning {sim:.2f}")
            elif sim is not None and doc == self.alone:
                out.append(f"meaning alone: {sim:.2f}")
            elif sim is not None and sim > SIM_FLOOR:
                out.append(f"meaning: {sim:.2f}")
            outs.append((out, words))
        return outs


def score_query(
    cidx: ChannelIndex,
    query: str,
    *,
    dictionary: bool = True,
    meaning: bool = True,
    answers: bool = True,
    lexicon: bool = True,
) -> ChannelScores:
    """Score the facts of the snapshot that match a query word (only those: the work follows
    the query words' postings, not the size of the store)."""
    units = query_units(query)
    prior_total = sum(u.prior for u in units) or 1.0
    rare_docs: list[np.ndarray] = []
    hits = [unit_hits(cidx, unit, dictionary, rare_docs, lexicon) for unit in units]
    qv = _query_vector(query) if meaning and units else None
    if lexicon:
        hits = _related_agreed(cidx, units, hits, qv)
    sizes = [len(h.docs) for h in hits]
    docs, pos = positions(cidx.n, np.concatenate([_NO_DOCS, *(h.docs for h in hits)]))
    m = len(docs)
    # Every sum runs over the words in query order, as adding one word's array after another would.
    score = np.bincount(pos, np.concatenate([_NO_FLOATS, *(h.best for h in hits)]), m)
    evidence = np.bincount(pos, np.concatenate([_NO_FLOATS, *(h.evidence for h in hits)]), m)
    matched = np.bincount(pos, np.repeat([0.0, *(u.prior for u in units)], [0, *sizes]), m)
    count = np.bincount(pos, minlength=m)
    content = np.bincount(pos[np.repeat([False, *(u.prior >= CONTENT_PRIOR for u in units)], [0, *sizes])], minlength=m)
    distinct = np.zeros(m, dtype=bool)
    literal = np.zeros(m, dtype=bool)
    firm = np.zeros(m)
    which = np.full((len(units), m + 1), -1, dtype=np.int16)  # the last column: a fact outside docs
    start = 0
    for u, (unit, h, size) in enumerate(zip(units, hits, sizes)):
        at = pos[start : start + size]
        start += size
        which[u, at] = h.which
        firm[at] += np.where(LEXICAL[unit.alternatives][h.which], unit.prior, unit.prior * TRANSLATED)
        if unit.distinctive and unit.alternatives[0][0].startswith("x:"):
            distinct[at[h.which == 0]] = True
        if unit.distinctive:
            literal[at] = True  # an identifier or a number
        elif not unit.alternatives[0][0].startswith("w:"):  # a Chinese word found as written, not through its glosses
            literal[at[LEXICAL[unit.alternatives][h.which]]] = True
    e = evidence / cidx.idf_one
    c = matched / prior_total
    candidates = matched > 0
    weighty, echo = gate_weighty(units, which, c, count, content, firm)
    if echo.any():
        held_name = gate_named(units, which, echo, lambda p: cidx.docs[int(docs[p])])
        weighty |= held_name
        echo &= ~held_name
    ruled = ((e >= E_STRONG) & (c >= C_STRONG)) | ((e >= E_MIN) & (c >= C_MIN)) | ((c >= C_FULL) & (count >= 2))
    free = distinct | ((content >= 2) & (e >= E_PAIR) & (c >= C_PAIR)) | _marked(docs, rare_docs)
    passed = candidates & ((ruled & (weighty | echo)) | free)
    everyday = np.where(echo, EVERYDAY_LONE, np.where(weighty, 0, EVERYDAY_LIGHT)).astype(np.int8)
    barred = np.zeros(m, dtype=bool)
    # passed only if the turn's meaning is the fact's (gate.weighty: a turn of everyday words)
    on_echo = passed & ~free & ~weighty
    titled = passed.copy()
    _title_pass(cidx, units, which, docs, score, candidates & ~passed & (c >= C_FULL), passed)
    titled = passed & ~titled
    sims = Similarities()
    vetoed: frozenset[int] = frozenset()
    astray: frozenset[int] = frozenset()
    astray_of: Callable[[np.ndarray], np.ndarray] | None = None
    single = np.zeros(len(docs), dtype=bool)
    # The meaning channel only matters for facts that pass, or could pass with it.
    focus = np.flatnonzero(candidates & (passed | (e >= E_MEANING)))
    if qv is not None and len(focus):
        held = passed.copy()
        sims = _meaning_channel(cidx, qv, docs[focus], focus, score, passed, e)
        barred = passed & ~held & ~weighty
        # The cosine of a turn of everyday words only repeats them (a Chinese word found as
        # written, as for the single-word veto, keeps the channel: "锁" → "锁文件").
        passed &= held | weighty | literal
        _echo_only(sims, docs, passed & ~held & ~weighty, passed)
        _echo_only(sims, docs, passed & on_echo, passed)
        vetoed = _single_word_veto(sims, docs, passed & (count == 1) & ~literal & ~titled, passed)
    else:
        passed &= ~on_echo
    if qv is not None:
        # one shared word in a turn about something the memory does not hold (aside.py):
        # kept out, and not brought back by the meaning channel alone
        unknown = np.array([size == 0 for size in sizes], dtype=bool)
        single = candidates & (count == 1) & ~literal & ~titled
        astray_of = partial(_astray, cidx, units, which, unknown, docs)
        away = astray_of(passed & single)
        astray = frozenset(docs[away].tolist())
        passed &= ~away
    cs = ChannelScores(
        docs=docs,
        score=score,
        candidates=candidates,
        passed=passed,
        units=units,
        evidence=e,
        coverage=c,
        which=which,
        sims=sims,
        vetoed=vetoed,
        everyday=everyday,
        ruled=ruled,
        barred=barred,
        firm=firm,
        count=count,
        astray=astray,
    )
    if qv is not None and not passed.any():
        _admit_alone(cidx, cs, qv, single, astray_of, query if answers else "")
    return cs


def _related_agreed(
    cidx: ChannelIndex, units: Sequence[QueryUnit], hits: list[UnitHits], qv: np.ndarray | None
) -> list[UnitHits]:
    """A query word's match through a related word (:mod:`~..lang.lexicon`; read only for a
    word the store never uses: :func:`~.channel_hits.unit_hits`) stands only where the meaning
    channel agrees the fact is about the turn (cosine above :data:`RELATED_SIM`):
    a dictionary relates words in all their senses ("tell" / "state", "read" / "publication"),
    the turn and the fact say which sense is meant. Without the meaning channel no such match
    stands."""
    marks = [RELATED[u.alternatives][h.which] for u, h in zip(units, hits)]
    if not any(m.any() for m in marks):
        return hits
    close = _NO_DOCS
    if qv is not None:
        docs = np.sort(np.concatenate([h.docs[m] for h, m in zip(hits, marks)]))
        docs = docs[
            np.concatenate(([True], docs[1:] != docs[:-1]))
        ]  # distinct (np.unique costs a first call's imports)
        try:
            sims = _cosines(cidx.vectors(), docs, qv)
        except (ImportError, OSError, ValueError):
            sims = np.zeros(len(docs))
        close = docs[sims > RELATED_SIM]
    out = []
    for h, m in zip(hits, marks):
        if m.any():
            keep = ~m | _marked(h.docs, [close])
            h = UnitHits(h.docs[keep], h.best[keep], h.evidence[keep], h.which[keep])
        out.append(h)
    return out


def _echo_only(sims: Similarities, docs: np.ndarray, light: np.ndarray, passed: np.ndarray) -> None:
    """A fact the meaning channel passed on a turn of everyday words (a Chinese word found
    as written) stays in only when its cosine itself reaches :data:`SIM_GATE` (the fact is
    about that word: 锁 against a lockfile rule, 0.60): how far it stands above the store's
    other facts says nothing, since the one fact holding the turn's only word always does
    (有什么进展吗 against a weekly-sync fact titled 进展同步: 0.37)."""
    at = np.flatnonzero(light)
    for i, sim in zip(at.tolist(), sims.get_many(docs[at])):
        if sim is None or sim < SIM_GATE:
            passed[i] = False


def _query_vector(query: str) -> np.ndarray | None:
    """The turn's meaning vector (``None`` when the model is missing or reads nothing)."""
    try:
        from ..lang import embed

        qv: np.ndarray = embed([query])[0]
    except (ImportError, OSError, ValueError):
        return None
    return qv if float(np.abs(qv).sum()) > 0 else None


def _admit_alone(
    cidx: ChannelIndex,
    cs: ChannelScores,
    qv: np.ndarray,
    single: np.ndarray,
    astray_of: Callable[[np.ndarray], np.ndarray] | None,
    query: str = "",
) -> None:
    """When no fact passed on words, let the meaning channel admit the one fact the turn
    clearly means (:mod:`.meaning_alone`), or, failing that, the one nearest to the turn's
    topic among the facts holding the answer type the question expects (``query``'s
    wh-word and head noun: :mod:`.answer_types`), scored by its meaning alone, unless one word of the
    turn matched it and the rest is about something else (``single`` by position,
    ``astray_of``: :func:`~.aside.aside`; the turn's vector is then carried by that word)."""
    answer = 0
    try:
        found = best_alone(cidx.vectors(), cidx.n, cs.units, qv, cidx.similarity_spread)
        if found is None and query:
            typed = best_by_answer(cidx.vectors(), cidx.n, cs.units, query, cidx.answer_types, qv)
            if typed is not None:
                found, answer = typed[:2], typed[2]
    except (ImportError, OSError, ValueError):
        return
    if found is None:
        return
    i = int(cs.docs.searchsorted(found[0]))
    if astray_of is not None and i < len(cs.docs) and int(cs.docs[i]) == found[0] and single[i]:
        mask = np.zeros(len(single), dtype=bool)
        mask[i] = True
        if astray_of(mask)[i]:
            return
    if answer:
        # its topic's cosine may sit under the meaning channel's floor: the fact still needs a score
        admit(cs, *found, MEANING_WEIGHT * cidx.idf_one * max(found[1] - SIM_FLOOR, ANSWER_SCORE))
        cs.answer = type_names(answer)
        return
    admit(cs, *found, MEANING_WEIGHT * cidx.idf_one * max(found[1] - SIM_FLOOR, 0.0))


_NO_DOCS = np.zeros(0, dtype=np.int64)
_NO_FLOATS = np.zeros(0)


def _marked(docs: np.ndarray, marks: list[np.ndarray]) -> np.ndarray:
    """Which of ``docs`` (sorted) are in any of ``marks``."""
    out = np.zeros(len(docs), dtype=bool)
    if marks and len(docs):
        wanted = np.concatenate(marks)
        at = np.minimum(docs.searchsorted(wanted), len(docs) - 1)
        out[at[docs[at] == wanted]] = True
    return out


def _single_word_veto(sims: Similarities, docs: np.ndarray, single: np.ndarray, passed: np.ndarray) -> frozenset[int]:
    """A fact that passed on one query word alone (not an identifier or a number, not a title
    the query spells out) stays out when the meaning channel finds the turn unrelated to it
    (cosine below :data:`SINGLE_SIM`): one shared everyday word ("周末", "Friday") in a turn
    about something else is no evidence, and however rare the word is in the store, the
    turn's other words say what it is about. ``single`` and ``passed`` are by position in
    ``docs``. Returns the documents kept out."""
    at = np.flatnonzero(single)
    out = []
    for i, d, sim in zip(at.tolist(), docs[at].tolist(), sims.get_many(docs[at])):
        if sim is not None and sim < SINGLE_SIM:
            passed[i] = False
            out.append(d)
    return frozenset(out)


def _title_pass(
    cidx: ChannelIndex,
    units: Sequence[QueryUnit],
    which: np.ndarray,
    docs: np.ndarray,
    score: np.ndarray,
    near: np.ndarray,
    passed: np.ndarray,
) -> None:
    """A fact whose title the query's words spell out ("retries" → "Retries") passes: the
    title names what the fact is about. The title weighs 3× in the score, so the best few
    such candidates hold any title match. Arrays are by position in ``docs``."""
    near = np.flatnonzero(near)
    if len(near) > TITLE_CHECKS:
        near = near[np.argpartition(-score[near], TITLE_CHECKS)[:TITLE_CHECKS]]
    if not len(near):
        return
    for p, d, row in zip(near.tolist(), docs[near].tolist(), which[:, near].T.tolist()):
        title = FACT_MEMO.get(cidx.docs[d], "title-keys", _title_keys)
        if title and title <= {units[u].alternatives[a][0] for u, a in enumerate(row) if a >= 0}:
            passed[p] = True


def _astray(
    cidx: ChannelIndex,
    units: Sequence[QueryUnit],
    which: np.ndarray,
    unknown: np.ndarray,
    docs: np.ndarray,
    mask: np.ndarray,
) -> np.ndarray:
    """:func:`~.aside.aside` over the positions ``mask`` of ``docs``."""
    return aside(units, which, unknown, mask, lambda at: np.asarray(cidx.vectors()[docs[at]], dtype=np.float32))


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
    cidx: ChannelIndex,
    qv: np.ndarray,
    rows: np.ndarray,
    at: np.ndarray,
    score: np.ndarray,
    passed: np.ndarray,
    e: np.ndarray,
) -> Similarities:
    """Add the meaning channel (the turn's vector ``qv``) to ``score`` and ``passed`` (at
    positions ``at``) for the documents ``rows``; return their similarities (empty when the
    model is missing)."""
    try:
        vec = cidx.vectors()
    except (ImportError, OSError, ValueError):
        return Similarities()
    s = _cosines(vec, rows, qv)
    score[at] += MEANING_WEIGHT * cidx.idf_one * np.maximum(s - SIM_FLOOR, 0.0)
    near = e[at] >= E_MEANING
    passed[at] |= (s >= SIM_GATE) & near
    mean, sd = cidx.similarity_spread(qv)
    if cidx.n >= MEANING_MIN_FACTS and sd > 0:
        z = (s - mean) / sd
        passed[at] |= (z >= Z_GATE) & near
    return Similarities(rows, s)


def title_keys(fact: Fact) -> frozenset[str]:
    """Keys of a fact's title, or of its name when it has no title (memoised per fact)."""
    keys: frozenset[str] = FACT_MEMO.get(fact, "title-keys", _title_keys)
    return keys


def _title_keys(fact: Fact) -> frozenset[str]:
    """Keys of a fact's title (or of its name when it has no title)."""
    from ..lang import analyze

    return frozenset(
        t.key
        for t in analyze(fact.title or fact.name.replace("-", " "), index=False)
        if t.key.startswith(("w:", "x:", "z:"))
    )

"""The warm recall index: the pool read and tokenized once per snapshot.

Reasonix rebuilds its ``RecallIndex`` whenever the memory snapshot changes and serves
every turn from it. :func:`get_index` does the same: it keeps the last few indexes
keyed by the identity of the (immutable) fact objects, so a second query against the
same snapshot costs only the query.

Scoring goes through :class:`PoolBM25`, a :class:`~reasonix_tui.core.bm25.BM25Index`
(rank-bm25 with the Reasonix idf) whose postings are turned into numpy arrays on first
use. A query touches only the documents in its terms' postings: the cost follows the
matches, not the store.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..bm25 import BM25Index, length_norm, term_score
from ..compat.gotime import DAY_NS
from ..compat.tokenize import tokens
from ..store.freshness import windows_for
from ..store.model import Fact, parse_reference, slug
from .memo import FACT_MEMO, recall_text
from .pool import Exclusion, Pool, build_pool, list_all_order

__all__ = [
    "PoolBM25",
    "RecallIndex",
    "get_index",
    "clear_index_cache",
]

NO_TIME = -(1 << 62)
"""Stand-in for a zero ``time.Time`` (sorts before every real instant)."""


def _recall_tokens(fact: Fact) -> list[str]:
    return tokens(recall_text(fact))


def _term_freqs(fact: Fact) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """A fact's term frequencies (the dict rank-bm25 would count) and the same as
    ``(interned term ids, counts)`` arrays (memoised per fact object, in memory only)."""
    freqs: dict[str, int] = {}
    for t in FACT_MEMO.get(fact, "tokens", _recall_tokens):
        freqs[t] = freqs.get(t, 0) + 1
    with _TERM_LOCK:
        ids = np.fromiter((_intern(t) for t in freqs), dtype=np.int64, count=len(freqs))
    return freqs, ids, np.fromiter(freqs.values(), dtype=np.int64, count=len(freqs))


_TERM_IDS: dict[str, int] = {}
"""Every token seen by this process → a small integer (only grows)."""


def _intern(term: str) -> int:
    tid = _TERM_IDS.get(term)
    if tid is None:
        tid = _TERM_IDS[term] = len(_TERM_NAMES)
        _TERM_NAMES.append(term)
    return tid


_TERM_LOCK = threading.Lock()
FACT_MEMO.register_transient("term-freqs")
FACT_MEMO.register_transient("identity")
_TERM_NAMES: list[str] = []
"""``_TERM_IDS`` reversed."""


class _ArrayPostings(Mapping[str, Sequence[int]]):
    """Term → ascending internal document numbers, from one sort of every (term id,
    document) pair (no per-term Python lists)."""

    def __init__(self, per_doc: Sequence[np.ndarray]) -> None:
        lens = np.fromiter((len(a) for a in per_doc), dtype=np.int64, count=len(per_doc))
        terms = np.concatenate(per_doc) if len(per_doc) else np.zeros(0, dtype=np.int64)
        docs = np.repeat(np.arange(len(per_doc), dtype=np.int64), lens)
        order = np.argsort(terms, kind="stable")
        self._docs = docs[order]
        sorted_terms = terms[order]
        self._terms, self._start = np.unique(sorted_terms, return_index=True)
        self._end = np.append(self._start[1:], len(sorted_terms))

    def document_frequencies(self) -> dict[str, int]:
        """Term → number of documents containing it (what rank-bm25 calls ``nd``)."""
        return dict(zip(map(_TERM_NAMES.__getitem__, self._terms.tolist()), (self._end - self._start).tolist()))

    def __getitem__(self, term: str) -> Sequence[int]:
        tid = _TERM_IDS.get(term)
        if tid is None:
            raise KeyError(term)
        i = int(self._terms.searchsorted(tid))
        if i >= len(self._terms) or int(self._terms[i]) != tid:
            raise KeyError(term)
        return self._docs[int(self._start[i]) : int(self._end[i])]  # type: ignore[return-value]  # an array slice of ints

    def __iter__(self) -> Any:
        return (_TERM_NAMES[int(t)] for t in self._terms)

    def __len__(self) -> int:
        return len(self._terms)


class PoolBM25(BM25Index):
    """A :class:`BM25Index` that scores a query's postings with numpy.

    Every input document must have at least one token, so input positions and internal
    document numbers coincide. With ``facts`` (the documents' facts), term frequencies and
    postings come from per-fact memoised arrays, so a rebuild after one write counts one
    fact (the statistics are identical).
    """

    def __init__(self, docs: Sequence[Sequence[str]], facts: Sequence[Fact] | None = None) -> None:
        self._per_fact = [FACT_MEMO.get(f, "term-freqs", _term_freqs) for f in facts] if facts is not None else None
        self._array_postings = _ArrayPostings([p[1] for p in self._per_fact]) if self._per_fact is not None else None
        super().__init__(
            docs,
            [p[0] for p in self._per_fact] if self._per_fact is not None else None,
            self._array_postings.document_frequencies() if self._array_postings is not None else None,
        )
        assert self.size == len(docs), "PoolBM25 needs non-empty documents"
        self.norm = length_norm(self.document_lengths(), self.average_length)
        """Per-document length normalisation."""
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray] | None] = {}
        self._per_fact = None  # only needed while building

    def _build_postings(self) -> Mapping[str, Sequence[int]]:
        if self._array_postings is None:
            return super()._build_postings()
        return self._array_postings

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(documents, term frequencies, BM25 contributions)`` for ``term``, or ``None``.

        The contribution ``idf·(tf·(k1+1)) / (tf + norm)`` depends only on the snapshot,
        so it is computed once per term, in Go's evaluation order.
        """
        try:
            return self._arrays[term]
        except KeyError:
            pass
        internal = self._postings.get(term)
        value: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if internal is not None and len(internal):
            idx = np.fromiter(internal, dtype=np.int64, count=len(internal))
            tf = np.fromiter((self.term_frequencies(i)[term] for i in internal), dtype=float, count=len(internal))
            value = (idx, tf, term_score(self.idf(term), tf, self.norm[idx]))
        self._arrays[term] = value
        return value

    def accumulate(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
        """Dense ``(scores, matched-term counts, per-term document arrays)``.

        Scores are summed term by term in query order, each term contributing
        ``idf·(tf·(k1+1)) / (tf + norm)`` exactly as ``retrieval.BM25Score`` does.
        """
        n = self.size
        score = np.zeros(n)
        count = np.zeros(n, dtype=np.int32)
        per_term: list[np.ndarray | None] = []
        for term in terms:
            post = self.postings(term)
            if post is None:
                per_term.append(None)
                continue
            idx, _, contrib = post
            score[idx] += contrib
            count[idx] += 1
            per_term.append(idx)
        return score, count, per_term


@dataclass(frozen=True, slots=True)
class _Freshness:
    """Per document, the instants where the label changes (``FreshnessFor`` made piecewise)."""

    start: np.ndarray
    """Clock start; ``NEVER`` when unknown (then the label is ``current``)."""
    fresh_until: np.ndarray
    """Last instant still ``fresh`` (``NEVER`` for evergreen)."""
    current_until: np.ndarray
    """Last instant still ``current``."""
    expires: np.ndarray
    """Expiry (``NEVER`` when none): strictly after it the fact is ``expired``."""


NEVER = 1 << 62
"""An instant after every real one."""

FRESH, CURRENT, STALE, EXPIRED = 0, 1, 2, 3
LABELS = ("fresh", "current", "stale", "expired")


class RecallIndex:
    """Everything automatic recall needs about one snapshot, built once."""

    def __init__(self, facts: Sequence[Fact]) -> None:
        self.source = tuple(facts)
        """The facts as given (kept alive so identity keys stay valid)."""
        self.all_facts: tuple[Fact, ...] = tuple(list_all_order(self.source))
        """Every active fact in ``ListAll`` order."""
        self.pool: Pool = build_pool(self.all_facts)
        """Pool and exclusions."""
        docs: list[Fact] = []
        texts: list[str] = []
        toks: list[list[str]] = []
        self.tokenless: list[Fact] = []
        """Pool facts with no searchable token (left out of the index)."""
        memo = FACT_MEMO
        for fact in self.pool.facts:
            text = recall_text(fact)
            t = memo.get(fact, "tokens", _recall_tokens)
            if not t:
                self.tokenless.append(fact)
                continue
            docs.append(fact)
            texts.append(text)
            toks.append(t)
        self.docs: tuple[Fact, ...] = tuple(docs)
        """Indexed pool facts, in pool order."""
        self.texts: tuple[str, ...] = tuple(texts)
        """Their recall document texts."""
        self.doc_tokens: tuple[list[str], ...] = tuple(toks)
        """Their tokens."""
        self.bm25: PoolBM25 | None = PoolBM25(toks, docs) if toks else None
        """Scoring index (``None`` when nothing is indexed)."""
        self._doc_arrays(docs)
        self._excluded_postings: dict[str, list[int]] = {}
        self._excluded_tokens: list[frozenset[str]] = []
        for i, ex in enumerate(self.pool.excluded):
            ex_toks = frozenset(memo.get(ex.fact, "tokens", _recall_tokens))
            self._excluded_tokens.append(ex_toks)
            for term in ex_toks:
                self._excluded_postings.setdefault(term, []).append(i)
        self._lock = threading.RLock()
        self._extras: dict[str, Any] = {}

    @classmethod
    def skeleton(cls, facts: Sequence[Fact], indexed: Any) -> RecallIndex:
        """The parts of an index that come from the facts themselves — order, pool,
        documents (pool facts ``indexed(fact)`` says have tokens), per-document arrays —
        without tokenizing anything or building BM25 (:mod:`.disk_patch` adds the rest from
        stored rows)."""
        self = cls.__new__(cls)
        self.source = tuple(facts)
        self.all_facts = tuple(list_all_order(self.source))
        self.pool = build_pool(self.all_facts)
        self.docs = tuple(f for f in self.pool.facts if indexed(f))
        self.tokenless = [f for f in self.pool.facts if not indexed(f)]
        self.bm25 = None
        self._doc_arrays(self.docs)
        self._excluded_postings, self._excluded_tokens = {}, []
        self._lock = threading.RLock()
        self._extras = {}
        return self

    def _doc_arrays(self, docs: Sequence[Fact]) -> None:
        n = len(docs)
        self.is_project = np.fromiter((f.scope == "project" for f in docs), dtype=bool, count=n)
        self.volatile = np.fromiter((f.volatility == "volatile" for f in docs), dtype=bool, count=n)
        """Per document: marked ``volatile`` by its writer."""
        self.updated = np.fromiter(
            (f.updated_at.ns if f.updated_at is not None else NO_TIME for f in docs), dtype=np.int64, count=n
        )
        order = sorted(range(n), key=lambda i: docs[i].id)
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        self.id_rank = rank
        self._fresh = self._freshness_arrays(docs)

    # -- freshness ---------------------------------------------------------------
    @staticmethod
    def _freshness_arrays(docs: Sequence[Fact]) -> _Freshness:
        n = len(docs)
        start = np.full(n, NEVER, dtype=np.int64)
        fresh_until = np.full(n, NEVER, dtype=np.int64)
        current_until = np.full(n, NEVER, dtype=np.int64)
        expires = np.full(n, NEVER, dtype=np.int64)
        for i, f in enumerate(docs):
            if f.expires_at is not None:
                expires[i] = f.expires_at.ns
            cs = f.clock_start
            if cs is None:
                continue
            start[i] = cs.ns
            w = windows_for(f)
            if w is not None:
                fresh_until[i] = cs.ns + w[0] * DAY_NS
                current_until[i] = cs.ns + w[1] * DAY_NS
        return _Freshness(start, fresh_until, current_until, expires)

    def freshness_codes(self, docs: np.ndarray, now_ns: int) -> np.ndarray:
        """``FreshnessFor`` for the given documents, as codes (``LABELS`` order).

        expired when ``now > expires_at``; ``current`` when the clock start is unknown or
        in the future; else fresh/current/stale by the windows (evergreen never ages).
        """
        fr = self._fresh
        out = np.where(
            now_ns <= fr.fresh_until[docs], FRESH, np.where(now_ns <= fr.current_until[docs], CURRENT, STALE)
        )
        out[fr.start[docs] > now_ns] = CURRENT
        out[now_ns > fr.expires[docs]] = EXPIRED
        return out.astype(np.int8)

    def freshness_code(self, doc: int, now_ns: int) -> int:
        """:meth:`freshness_codes` for one document (no array overhead)."""
        fr = self._fresh
        if now_ns > int(fr.expires[doc]):
            return EXPIRED
        if int(fr.start[doc]) > now_ns:
            return CURRENT
        if now_ns <= int(fr.fresh_until[doc]):
            return FRESH
        return CURRENT if now_ns <= int(fr.current_until[doc]) else STALE

    # -- excluded facts ------------------------------------------------------------
    def excluded_matches(self, terms: Sequence[str]) -> list[tuple[Exclusion, list[str]]]:
        """Pinned or suppressed facts that contain a query term (for the trace)."""
        return [self.excluded_match(i, terms) for i in self.excluded_hits(terms)]

    def excluded_hits(self, terms: Sequence[str]) -> list[int]:
        """Positions in ``pool.excluded`` of the facts that contain a query term, in order."""
        hits: set[int] = set()
        for term in terms:
            hits.update(self._excluded_postings.get(term, ()))
        return sorted(hits)

    def excluded_match(self, i: int, terms: Sequence[str]) -> tuple[Exclusion, list[str]]:
        """The excluded fact at position ``i`` and the query terms it contains."""
        toks = self._excluded_tokens[i]
        return self.pool.excluded[i], [t for t in terms if t in toks]

    # -- lazily built extras (enhanced mode) --------------------------------------
    def extra(self, name: str, build: Any) -> Any:
        """A derived structure built once per index (thread-safe)."""
        value = self._extras.get(name)
        if value is None:
            with self._lock:
                value = self._extras.get(name)
                if value is None:
                    value = build(self)
                    self._extras[name] = value
        return value

    def resolve_ref(self, ref: str) -> Fact | None:
        """An active fact by id or reference (project first for unqualified names)."""
        by_id, by_name = self.extra("lookup", _build_lookup)
        raw = ref.strip()
        if raw in by_id:
            found: Fact = by_id[raw]
            return found
        parsed = parse_reference(raw)
        scopes = (parsed.scope,) if parsed.qualified else ("project", "global")
        for scope in scopes:
            fact: Fact | None = by_name.get((scope, parsed.name))
            if fact is not None:
                return fact
        return None


def _build_lookup(index: RecallIndex) -> tuple[dict[str, Fact], dict[tuple[str, str], Fact]]:
    by_id: dict[str, Fact] = {}
    by_name: dict[tuple[str, str], Fact] = {}
    for fact in index.all_facts:
        by_id.setdefault(fact.id, fact)
        by_name.setdefault((fact.scope, slug(fact.name)), fact)
    return by_id, by_name


_CACHE: OrderedDict[int, tuple[tuple[int, ...], RecallIndex]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 4
_LAST: dict[str, tuple[tuple[Fact, ...], RecallIndex]] = {}


def get_index(facts: Sequence[Fact]) -> RecallIndex:
    """The warm index for these facts, built on first use.

    The key is the identity of every fact object. Facts are frozen, and the cached
    index holds them alive, so an identical key means identical content. Passing the
    same tuple again (a store snapshot's ``facts``) skips even computing the key.
    """
    if isinstance(facts, tuple):
        with _CACHE_LOCK:
            last = _LAST.get("tuple")
            if last is not None and last[0] is facts:
                return last[1]
    ident = tuple(map(id, facts))
    key = hash(ident)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0] == ident:
            _CACHE.move_to_end(key)
            if isinstance(facts, tuple):
                _LAST["tuple"] = (facts, hit[1])
            return hit[1]
    index = RecallIndex(facts)
    with _CACHE_LOCK:
        if isinstance(facts, tuple):
            _LAST["tuple"] = (facts, index)
        _CACHE[key] = (ident, index)
        _CACHE.move_to_end(key)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
        cached = [entry[1].source for entry in _CACHE.values()]
    FACT_MEMO.retain(cached)
    return index


def clear_index_cache() -> None:
    """Drop every warm index (tests)."""
    with _CACHE_LOCK:
        _CACHE.clear()
        _LAST.clear()
    FACT_MEMO.clear()

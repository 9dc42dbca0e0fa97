"""The memory search's term matrix: BM25 over every fact's search text, one CSR row per
fact, and the warm matrix a long-lived process keeps per snapshot (derived from the
previous snapshot's after a few changes).

:mod:`.search_index` keeps the same matrix on disk for one-shot commands;
:func:`~.memory_tool.search_memories` ranks with it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..bm25 import idf, length_norm, term_score
from ..compat.tokenize import tokens
from ..store.model import normalize_fact_scope, normalize_type
from .pool import list_all_order

if TYPE_CHECKING:
    from ..store.model import Fact

__all__ = [
    "SEARCH_FLOOR",
    "INCREMENTAL_SHARE",
    "TermMatrix",
    "doc_norms",
    "search_text",
    "term_freqs",
    "rank",
    "warm_search",
    "warm_resolution",
    "seed_warm",
    "clear_warm_search",
]

SEARCH_FLOOR = 0.15
"""A hit scoring below this share of the best hit's score is dropped."""
INCREMENTAL_SHARE = 0.2
"""At most this share of the facts changed: derive the matrix (or patch the index); more: rebuild it."""


def search_text(fact: Fact) -> str:
    """``memorySearchText``: name, title, type, scope, description, keywords, body."""
    return "\n".join(
        (
            fact.name,
            fact.title,
            normalize_type(fact.type),
            normalize_fact_scope(fact.scope),
            fact.description,
            fact.keywords,
            fact.body,
        )
    )


def term_freqs(toks: Sequence[str]) -> dict[str, int]:
    """How often each token occurs."""
    freqs: dict[str, int] = {}
    for t in toks:
        freqs[t] = freqs.get(t, 0) + 1
    return freqs


class TermMatrix:
    """Term frequencies of the indexed facts, one row each (CSR: row offsets, term ids,
    counts), with what ordering needs (name, scope, id per row) and BM25 scoring exactly as
    :class:`~.index.PoolBM25` scores (Reasonix idf, the same floating-point order).

    A query decodes only its own terms' postings (cached per term); a change builds a new
    matrix from this one with :meth:`patched`, copying unchanged rows as arrays."""

    def __init__(
        self,
        names: list[str],
        scopes: list[str],
        ids: list[str],
        terms: list[str],
        offsets: np.ndarray,
        term_ids: np.ndarray,
        counts: np.ndarray,
    ) -> None:
        self.names, self.scopes, self.ids = names, scopes, ids
        """Per row: the fact's name, scope and id (the order of equal scores)."""
        self.terms = terms
        self.offsets, self.term_ids, self.counts = offsets, term_ids, counts
        self._term_index: dict[str, int] | None = None
        self._postings: dict[int, tuple[np.ndarray, np.ndarray] | None] = {}
        self._norm: np.ndarray | None = None

    @classmethod
    def build(cls, docs: Sequence[tuple[tuple[str, str, str], dict[str, int]]]) -> TermMatrix:
        """From ``(name, scope, id), term frequencies`` per row, in row order."""
        term_index: dict[str, int] = {}
        offsets = [0]
        term_ids: list[int] = []
        counts: list[int] = []
        for _key, freqs in docs:
            for t, c in freqs.items():
                tid = term_index.get(t)
                if tid is None:
                    tid = term_index[t] = len(term_index)
                term_ids.append(tid)
                counts.append(c)
            offsets.append(len(term_ids))
        out = cls(
            [k[0] for k, _ in docs],
            [k[1] for k, _ in docs],
            [k[2] for k, _ in docs],
            list(term_index),
            np.asarray(offsets, dtype=np.int64),
            np.asarray(term_ids, dtype=np.int32),
            np.asarray(counts, dtype=np.int32),
        )
        out._term_index = term_index
        return out

    def patched(self, order: Sequence[tuple[tuple[str, str, str], int, dict[str, int] | None]]) -> TermMatrix:
        """A new matrix whose rows are ``order``: each an old row of this one (``row >= 0``)
        or new term frequencies (``row == -1``)."""
        terms = list(self.terms)
        term_index = dict(self._index())
        pieces_ids: list[np.ndarray] = []
        pieces_counts: list[np.ndarray] = []
        lengths: list[int] = []
        run_start = run_end = -1  # a run of consecutive old rows is copied as one slice

        def flush() -> None:
            if run_start >= 0:
                a, b = int(self.offsets[run_start]), int(self.offsets[run_end + 1])
                pieces_ids.append(self.term_ids[a:b])
                pieces_counts.append(self.counts[a:b])

        for _key, old_row, freqs in order:
            if old_row >= 0:
                lengths.append(int(self.offsets[old_row + 1] - self.offsets[old_row]))
                if run_start >= 0 and old_row == run_end + 1:
                    run_end = old_row
                else:
                    flush()
                    run_start = run_end = old_row
                continue
            flush()
            run_start = run_end = -1
            assert freqs is not None
            tids = []
            for t in freqs:
                tid = term_index.get(t)
                if tid is None:
                    tid = term_index[t] = len(terms)
                    terms.append(t)
                tids.append(tid)
            pieces_ids.append(np.asarray(tids, dtype=np.int32))
            pieces_counts.append(np.asarray(list(freqs.values()), dtype=np.int32))
            lengths.append(len(tids))
        flush()
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        empty = np.zeros(0, dtype=np.int32)
        out = TermMatrix(
            [k[0] for k, _, _ in order],
            [k[1] for k, _, _ in order],
            [k[2] for k, _, _ in order],
            terms,
            offsets,
            np.concatenate(pieces_ids) if pieces_ids else empty,
            np.concatenate(pieces_counts) if pieces_counts else empty,
        )
        out._term_index = term_index
        return out

    def _index(self) -> dict[str, int]:
        if self._term_index is None:
            self._term_index = {t: i for i, t in enumerate(self.terms)}
        return self._term_index

    def _term(self, term: str) -> int | None:
        if self._term_index is not None:
            return self._term_index.get(term)
        try:  # a one-shot query looks up a handful of terms: no dictionary of every term
            return self.terms.index(term)
        except ValueError:
            return None

    def _contributions(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(rows, BM25 contributions)`` of ``term``: ``idf·(tf·(k1+1)) / (tf + norm)`` in
        :class:`~.index.PoolBM25`'s evaluation order; cached per term (fixed per matrix)."""
        tid = self._term(term)
        if tid is None:
            return None
        if tid in self._postings:
            return self._postings[tid]
        value = None
        where = np.flatnonzero(self.term_ids == tid)
        if where.size:
            n = len(self.names)
            if self._norm is None:
                self._norm = doc_norms(self.offsets, self.counts, n)
            idx = np.searchsorted(self.offsets, where, side="right") - 1
            tf = self.counts[where].astype(float)
            df = int(where.size)
            value = (idx, term_score(idf(n, df), tf, self._norm[idx]))
        self._postings[tid] = value
        return value

    def score(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, scores)`` of every row matching a term, summed in query order exactly as
        :meth:`.index.PoolBM25.accumulate` does (every match scores above zero: the idf
        and the term frequency are positive)."""
        return summed_scores(len(self.names), terms, self._contributions)


def doc_norms(offsets: np.ndarray, counts: np.ndarray, n: int) -> np.ndarray:
    """Each row's BM25 length normalisation, as :class:`~.index.PoolBM25` computes it
    (rank-bm25's average length: total tokens / corpus size)."""
    doc_len = np.add.reduceat(counts, offsets[:-1]).astype(float)
    avgdl = float(int(doc_len.sum())) / n
    if avgdl <= 0:
        avgdl = 1.0
    norm: np.ndarray = length_norm(doc_len, avgdl)
    return norm


def summed_scores(
    n: int, terms: Sequence[str], contributions: Callable[[str], tuple[Any, np.ndarray] | None]
) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, scores)`` of the ``n`` rows: each term's ``(rows, contributions)`` added in
    query order; the rows that scored."""
    score = np.zeros(n)
    for term in terms:
        post = contributions(term)
        if post is not None:
            score[post[0]] += post[1]
    rows = np.flatnonzero(score > 0)
    return rows, score[rows]


def accumulated(
    n: int, terms: Sequence[str], contributions: Callable[[str], tuple[Any, np.ndarray] | None]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
    """As :meth:`.index.PoolBM25.accumulate`, from each term's ``(rows, contributions)``:
    the ``n`` rows' summed scores, how many terms matched each row, and each term's rows
    (``None`` for a term no row holds)."""
    score = np.zeros(n)
    count = np.zeros(n, dtype=np.int32)
    per_term: list[np.ndarray | None] = []
    for term in terms:
        post = contributions(term)
        if post is None:
            per_term.append(None)
            continue
        idx, contrib = post
        score[idx] += contrib
        count[idx] += 1
        per_term.append(idx)
    return score, count, per_term


class _Warm:
    """The warm search matrix of the last snapshot a long-lived process searched."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.facts: Sequence[Fact] | None = None
        self.all_facts: list[Fact] = []
        self.matrix: TermMatrix | None = None
        self.row_facts: list[Fact] = []
        self.patches = 0
        """How many snapshots were derived from the previous one (tests, benchmarks)."""
        self.resolution: Any = None


_WARM = _Warm()


def warm_search(facts: Sequence[Fact]) -> tuple[TermMatrix, list[Fact], list[Fact]]:
    """``(matrix, fact of each row, every fact in ListAll order)`` for a snapshot's facts.

    The same facts object again costs nothing. A snapshot that shares most fact objects
    with the previous one (a long-lived process after a few changes: a store hands
    unchanged facts back as the same objects) is derived from it: only the new facts are
    tokenized and unchanged rows are copied as arrays. Anything else is built afresh. Both
    give the same answers (``tests/test_search_index.py``)."""
    with _WARM.lock:
        if _WARM.matrix is not None and facts is _WARM.facts:
            return _WARM.matrix, _WARM.row_facts, _WARM.all_facts
        all_facts = list_all_order(facts)
        prev = _WARM.matrix
        old_rows = {id(f): r for r, f in enumerate(_WARM.row_facts)} if prev is not None else {}
        kept = sum(1 for f in all_facts if id(f) in old_rows)
        changes = (len(all_facts) - kept) + (len(old_rows) - kept)
        row_facts: list[Fact] = []
        if prev is not None and changes <= max(8, int(INCREMENTAL_SHARE * len(all_facts))):
            order: list[tuple[tuple[str, str, str], int, dict[str, int] | None]] = []
            for f in all_facts:
                r = old_rows.get(id(f), -1)
                if r >= 0 and _WARM.row_facts[r] is f:
                    order.append(((f.name, f.scope, f.id), r, None))
                    row_facts.append(f)
                    continue
                toks = tokens(search_text(f))
                if toks:
                    order.append(((f.name, f.scope, f.id), -1, term_freqs(toks)))
                    row_facts.append(f)
            matrix = prev.patched(order)
            _WARM.patches += 1
        else:
            docs = []
            for f in all_facts:
                toks = tokens(search_text(f))
                if toks:
                    docs.append(((f.name, f.scope, str(f.id)), term_freqs(toks)))
                    row_facts.append(f)
            matrix = TermMatrix.build(docs)
        _WARM.facts, _WARM.all_facts, _WARM.matrix, _WARM.row_facts = facts, all_facts, matrix, row_facts
        _WARM.resolution = None
        return matrix, row_facts, all_facts


def warm_resolution(facts: Sequence[Fact]) -> Any:
    """The subject/topic resolution of the warm snapshot (``resolve`` of its facts in
    ListAll order), kept with the warm matrix so a search does not key ``resolve``'s own
    cache by every fact's identity on each call."""
    from ..resolve import resolve

    _matrix, _rows, all_facts = warm_search(facts)
    with _WARM.lock:
        if _WARM.facts is facts and _WARM.resolution is not None:
            return _WARM.resolution
    res = resolve(all_facts)
    with _WARM.lock:
        if _WARM.facts is facts:
            _WARM.resolution = res
    return res


def seed_warm(facts: Sequence[Fact], all_facts: list[Fact], matrix: TermMatrix, row_facts: list[Fact]) -> None:
    """Start the warm matrix from one read from disk (when none is warm yet)."""
    with _WARM.lock:
        if _WARM.matrix is None:
            _WARM.facts, _WARM.all_facts, _WARM.matrix, _WARM.row_facts = facts, all_facts, matrix, row_facts
            _WARM.resolution = None


def clear_warm_search() -> None:
    """Forget the warm search matrix (tests)."""
    with _WARM.lock:
        _WARM.facts, _WARM.all_facts, _WARM.matrix, _WARM.row_facts = None, [], None, []
        _WARM.resolution = None


def rank(index: TermMatrix, terms: Sequence[str], limit: int) -> list[tuple[float, int]]:
    """The first ``limit`` rows in ``search_memories`` order (floor applied)."""
    rows, values = index.score(terms)
    if rows.size > limit:
        keep = values >= np.partition(values, -limit)[-limit]
        rows, values = rows[keep], values[keep]
    names, scopes, ids = index.names, index.scopes, index.ids
    scored = sorted(zip(values.tolist(), rows.tolist()), key=lambda p: (-p[0], names[p[1]], scopes[p[1]], ids[p[1]]))
    if scored and scored[0][0] > 0:
        cutoff = scored[0][0] * SEARCH_FLOOR
        scored = [p for j, p in enumerate(scored) if j == 0 or p[0] >= cutoff]
    return scored[:limit]

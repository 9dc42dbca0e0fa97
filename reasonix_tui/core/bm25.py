"""BM25 as Reasonix scores it: the one formula, and an index on top of ``rank-bm25``.

Reasonix (store-format §6.4, history §B.4) uses ``k1 = 1.2``, ``b = 0.75`` and the
"plus one" idf ``ln(1 + (N - df + 0.5) / (df + 0.5))``, which is never negative. The
formula lives here once — :func:`idf`, :func:`length_norm` and :func:`term_score`, in
Go's floating-point order, for floats and numpy arrays alike — and every scorer (recall,
the memory search, history search) calls it.

``rank_bm25.BM25Okapi`` has the same term-frequency part but a different idf (with an
epsilon floor), so :class:`ReasonixBM25` overrides ``_calc_idf`` with :func:`idf`.

``BM25Okapi.get_scores`` scores every document for every query. Recall and history
search must cost what the *matches* cost, so :class:`BM25Index` keeps postings
(term → document numbers) and scores only the documents that contain at least one
query term, through ``get_batch_scores`` (vectorised over the candidates).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = ["BM25Index", "K1", "B", "KP1", "idf", "length_norm", "term_score"]

K1 = 1.2
"""Term-frequency saturation."""
B = 0.75
"""Length normalisation."""
KP1 = 2.2
"""``k1 + 1`` as Go folds the constant."""

_Num = TypeVar("_Num", float, "np.ndarray")


def idf(n_docs: float, df: float) -> float:
    """Reasonix's idf of a term found in ``df`` of ``n_docs`` documents (never negative)."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def length_norm(doc_len: _Num, avg_len: float) -> _Num:
    """``k1·(1 − b + b·len/avgLen)`` for a document length (or an array of them)."""
    norm: _Num = K1 * ((1 - B) + (B * doc_len) / avg_len)
    return norm


def term_score(term_idf: float, tf: _Num, norm: _Num) -> _Num:
    """One term's contribution ``idf·(tf·(k1+1)) / (tf + norm)`` (scalars or arrays)."""
    score: _Num = (term_idf * (tf * KP1)) / (tf + norm)
    return score


@functools.cache
def _okapi() -> Any:
    """:class:`ReasonixBM25`, defined on first use: it subclasses ``rank_bm25.BM25Okapi``,
    and importing ``rank-bm25`` imports ``multiprocessing`` — a one-shot query answered
    from an on-disk index never builds one."""
    from rank_bm25 import BM25Okapi

    class ReasonixBM25(BM25Okapi):  # type: ignore[misc]  # rank_bm25 ships no type information
        """``BM25Okapi`` with Reasonix's parameters and idf.

        ``freqs`` may carry each document's term frequencies already counted (the same dicts
        rank-bm25 would build), so a rebuild after one changed document counts one document.
        """

        def __init__(
            self,
            corpus: Sequence[Sequence[str]],
            freqs: Sequence[dict[str, int]] | None = None,
            nd: dict[str, int] | None = None,
        ) -> None:
            self._pre_freqs = freqs
            self._pre_nd = nd
            super().__init__(corpus, k1=K1, b=B)
            if self.avgdl <= 0:  # type: ignore[has-type]  # set by rank_bm25's untyped __init__
                self.avgdl = 1.0
            self._doc_len_array = np.asarray(self.doc_len, dtype=float)

        def _initialize(self, corpus: Sequence[Sequence[str]]) -> dict[str, int]:
            if self._pre_freqs is None:
                return super()._initialize(corpus)  # type: ignore[no-any-return]  # rank_bm25 is untyped
            nd: Counter[str] = Counter()
            num_doc = 0
            for document, frequencies in zip(corpus, self._pre_freqs):
                self.doc_len.append(len(document))
                num_doc += len(document)
                self.doc_freqs.append(frequencies)
                if self._pre_nd is None:
                    nd.update(frequencies.keys())
                self.corpus_size += 1
            self.avgdl = num_doc / self.corpus_size
            return self._pre_nd if self._pre_nd is not None else dict(nd)

        def _calc_idf(self, nd: dict[str, int]) -> None:
            n = self.corpus_size
            for word, df in nd.items():
                self.idf[word] = idf(n, df)
            self.average_idf = (sum(self.idf.values()) / len(self.idf)) if self.idf else 0.0

        def get_batch_scores(self, query: Sequence[str], doc_ids: Sequence[int]) -> list[float]:
            """Scores of ``doc_ids`` only, summed over ``query`` terms in query order."""
            if not doc_ids:
                return []
            ids = list(doc_ids)
            score = np.zeros(len(ids))
            doc_len = self._doc_len_array[ids]
            norm = length_norm(doc_len, self.avgdl)
            for q in query:
                q_idf = self.idf.get(q)
                if not q_idf:
                    continue
                q_freq = np.array([self.doc_freqs[i].get(q, 0) for i in ids], dtype=float)
                score += term_score(q_idf, q_freq, norm)
            return score.tolist()

    return ReasonixBM25


class BM25Index:
    """An immutable BM25 index over tokenized documents, with postings for candidate lookup.

    Documents are addressed by their position in the input. Empty token lists are kept
    out of the statistics (Reasonix leaves zero-token documents out of the index), so
    ``N`` counts only documents with at least one token.
    """

    def __init__(
        self,
        docs: Iterable[Sequence[str]],
        freqs: Sequence[dict[str, int]] | None = None,
        nd: dict[str, int] | None = None,
    ) -> None:
        self._positions: list[int] = []
        corpus: list[Sequence[str]] = []
        pre: list[dict[str, int]] = []
        for pos, toks in enumerate(docs):
            if toks:
                self._positions.append(pos)
                corpus.append(toks)
                if freqs is not None:
                    pre.append(freqs[pos])
        self._internal_of = {pos: i for i, pos in enumerate(self._positions)}
        self.size = len(corpus)
        """Documents with at least one token (``N``)."""
        self._bm25: Any = _okapi()(corpus, pre if freqs is not None else None, nd) if corpus else None
        self._postings: Mapping[str, Sequence[int]] = self._build_postings()

    def _build_postings(self) -> Mapping[str, Sequence[int]]:
        """Term → internal document numbers, ascending."""
        postings: dict[str, list[int]] = {}
        if self._bm25 is not None:
            for internal, freqs in enumerate(self._bm25.doc_freqs):
                for term in freqs:
                    postings.setdefault(term, []).append(internal)
        return postings

    def df(self, term: str) -> int:
        """Number of documents containing ``term``."""
        return len(self._postings.get(term, ()))

    def tf(self, doc: int, term: str) -> int:
        """Term frequency of ``term`` in document ``doc`` (input position)."""
        if self._bm25 is None:
            return 0
        internal = self._internal_of.get(doc)
        if internal is None:
            return 0
        return int(self._bm25.doc_freqs[internal].get(term, 0))

    def idf(self, term: str) -> float:
        """The idf of a term present in the index (``0.0`` for an absent one)."""
        return float(self._bm25.idf.get(term, 0.0)) if self._bm25 is not None else 0.0

    def term_frequencies(self, doc_internal: int) -> Mapping[str, int]:
        """Term → frequency of an internal document."""
        assert self._bm25 is not None
        freqs: Mapping[str, int] = self._bm25.doc_freqs[doc_internal]
        return freqs

    def document_lengths(self) -> np.ndarray:
        """Token counts of the internal documents."""
        return self._bm25._doc_len_array if self._bm25 is not None else np.zeros(0)

    @property
    def average_length(self) -> float:
        """Mean document length (``avgdl``; 1.0 for an empty index)."""
        return float(self._bm25.avgdl) if self._bm25 is not None else 1.0

    def matched_terms(self, doc_internal: int, terms: Sequence[str]) -> list[str]:
        """Query terms present in an internal document, in query order."""
        assert self._bm25 is not None
        freqs = self._bm25.doc_freqs[doc_internal]
        return [t for t in terms if freqs.get(t, 0) > 0]

    def search(self, terms: Sequence[str]) -> list[tuple[int, float, list[str]]]:
        """``(input position, score, matched terms)`` for every document matching a term.

        Scores are positive for every returned document; order is input order.
        """
        if self._bm25 is None or not terms:
            return []
        candidates: set[int] = set()
        for t in terms:
            candidates.update(self._postings.get(t, ()))
        if not candidates:
            return []
        ordered = sorted(candidates)
        scores = self._bm25.get_batch_scores(list(terms), ordered)
        out: list[tuple[int, float, list[str]]] = []
        for internal, score in zip(ordered, scores):
            out.append((self._positions[internal], float(score), self.matched_terms(internal, terms)))
        return out

    def full_scan_scores(self, terms: Sequence[str]) -> list[float]:
        """Baseline: ``get_scores`` over every document (for benchmarks only)."""
        if self._bm25 is None:
            return []
        from rank_bm25 import BM25Okapi  # loaded with the index already

        return [float(s) for s in BM25Okapi.get_scores(self._bm25, list(terms))]


def __getattr__(name: str) -> Any:
    if name == "ReasonixBM25":  # defined on first use (see _okapi)
        return _okapi()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

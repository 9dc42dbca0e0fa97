"""The warm memory search's postings: every term's rows at hand, in a long-lived process.

A :class:`~.term_matrix.TermMatrix` keeps term frequencies by row and finds a term's rows
by scanning every posting of the store the first time the term is asked for (about 5 M
entries at 100k facts: milliseconds per new word). That suits a one-shot process, which
looks up a handful of terms once. A long-lived process (the MCP server, the warm hook
server, the Context Center) answers query after query from the same matrix, so it turns
the matrix around once, in a background thread: :class:`Postings` holds every term's rows
and counts contiguously, and a query then costs its own terms' postings.

:class:`Postings` scores exactly as the matrix does (the same contributions, summed in
query order), so :func:`~.term_matrix.rank` ranks with either. Terms found in at least an
eighth of the rows keep their contributions as one dense vector (zero elsewhere: adding
zero changes no sum), which is added without indexing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from ..bm25 import idf, length_norm, term_score
from .term_matrix import TermMatrix, summed_scores

__all__ = ["Postings", "warm_postings", "build_postings_in_background", "DENSE_SHARE"]

DENSE_SHARE = 8
"""A term in at least 1/``DENSE_SHARE`` of the rows keeps a dense contribution vector."""


class Postings(TermMatrix):
    """A :class:`~.term_matrix.TermMatrix` (the same arrays) also turned around: term → its
    rows (ascending) and counts; contributions computed per term on first use and cached.
    Only :meth:`score` differs: it reads a term's postings instead of scanning for them."""

    def __init__(self, matrix: TermMatrix) -> None:
        super().__init__(
            matrix.names, matrix.scopes, matrix.ids, matrix.terms, matrix.offsets, matrix.term_ids, matrix.counts
        )
        n = len(matrix.names)
        term_ids = matrix.term_ids
        lengths = np.diff(matrix.offsets)
        order = np.argsort(term_ids, kind="stable")  # rows stay ascending within a term
        self._rows = np.repeat(np.arange(n, dtype=np.int32), lengths)[order]
        self._tf = matrix.counts[order]
        self._starts = np.zeros(len(matrix.terms) + 1, dtype=np.int64)
        np.cumsum(np.bincount(term_ids, minlength=len(matrix.terms)), out=self._starts[1:])
        doc_len = np.add.reduceat(matrix.counts, matrix.offsets[:-1]).astype(float) if n else np.zeros(0)
        avgdl = float(int(doc_len.sum())) / n if n else 0.0  # rank-bm25: total tokens / corpus size
        if avgdl <= 0:
            avgdl = 1.0
        self._row_norm = length_norm(doc_len, avgdl)
        self._term_index = matrix._index()  # noqa: SLF001  # the matrix's own term → id table
        self._cache: dict[int, tuple[np.ndarray | slice, np.ndarray] | None] = {}

    def contributions(self, term: str) -> tuple[np.ndarray | slice, np.ndarray] | None:
        """``(rows, BM25 contributions)`` of ``term`` (``rows`` a full slice for a dense
        vector); the matrix's own values."""
        tid = self._index().get(term)
        if tid is None:
            return None
        if tid in self._cache:
            return self._cache[tid]
        a, b = int(self._starts[tid]), int(self._starts[tid + 1])
        value: tuple[np.ndarray | slice, np.ndarray] | None = None
        if b > a:
            n = len(self.names)
            rows = self._rows[a:b].astype(np.intp)
            contrib = term_score(idf(n, b - a), self._tf[a:b].astype(float), self._row_norm[rows])
            if (b - a) * DENSE_SHARE >= n:
                dense = np.zeros(n)
                dense[rows] = contrib
                value = (slice(None), dense)
            else:
                value = (rows, contrib)
        self._cache[tid] = value
        return value

    def score(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, scores)`` of every row matching a term: :meth:`.TermMatrix.score`'s answer."""
        return summed_scores(len(self.names), terms, self.contributions)


class _Slot:
    """The postings of the last warm matrix, and the thread building them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.matrix: TermMatrix | None = None
        self.postings: Postings | None = None
        self.building: TermMatrix | None = None
        self.enabled = False


_SLOT = _Slot()


def build_postings_in_background(on: bool = True) -> None:
    """Let :func:`warm_postings` turn matrices around in a background thread (a long-lived
    process; a one-shot process never asks twice and keeps the matrix's own lookups)."""
    _SLOT.enabled = on


def warm_postings(matrix: TermMatrix, *, wait: bool = False) -> Postings | None:
    """The postings of ``matrix`` when they are ready; otherwise ``None`` (the caller ranks
    with the matrix itself) after starting their build in a background thread, when
    enabled. ``wait``: build them now in this thread (tests, a prewarm thread)."""
    with _SLOT.lock:
        if _SLOT.matrix is matrix:
            return _SLOT.postings
        if not (_SLOT.enabled or wait) or _SLOT.building is matrix:
            return None
        _SLOT.building = matrix
    if wait:
        return _build(matrix)
    threading.Thread(target=_build, args=(matrix,), name="reasonix-tui-search-postings", daemon=True).start()
    return None


def _build(matrix: TermMatrix) -> Postings | None:
    try:
        postings = Postings(matrix)
    except MemoryError:  # pragma: no cover - the matrix's own lookups still answer
        postings = None
    with _SLOT.lock:
        if _SLOT.building is matrix:  # not overtaken by a newer matrix's build
            _SLOT.building = None
            if postings is not None:
                _SLOT.matrix, _SLOT.postings = matrix, postings
    return postings

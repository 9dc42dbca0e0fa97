"""The recall index's file layout (:mod:`.disk_index`): which values sit in the sealed
header and which are sections read by offset (:mod:`~reasonix_tui.core.store.sectioned`).

A one-shot query reads the header (the lists and mappings by file number, the term and key
vocabularies), the per-document arrays it scores with, and — by offset — only the posting
lists of its own terms and keys. The recall tokens' term matrix is kept **by term** (terms
sorted, each term's documents and counts together, with every document's length norm), so a
term's contributions are read, not found by scanning every posting of the store; they are
computed exactly as :meth:`.term_matrix.TermMatrix._contributions` computes them (the same
values in the same order: ``tests/test_recall_disk_index.py`` compares the answers with the
in-memory index's).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..bm25 import idf, term_score
from ..store.sectioned import Sectioned
from .term_matrix import accumulated, doc_norms

__all__ = ["to_sections", "TermPostings", "KeyPostings"]

_ARRAYS = ("is_project", "volatile", "updated", "id_rank", "f_start", "f_fresh", "f_current", "f_expires")
_CHANNEL_ARRAYS = ("start", "end", "docs", "tfs", "norm", "vectors")


def to_sections(payload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bytes]]:
    """``(header, sections)`` of an index payload (:func:`.disk_rows.payload`'s dict)."""
    sections: dict[str, bytes] = {}
    n = len(payload["doc_files"])
    terms: list[str] = payload["terms"]
    offsets = np.frombuffer(payload["offsets"], dtype=np.int64)
    term_ids = np.frombuffer(payload["term_ids"], dtype=np.int32)
    counts = np.frombuffer(payload["counts"], dtype=np.int32)
    order = sorted(range(len(terms)), key=terms.__getitem__)
    rank = np.empty(len(terms), dtype=np.int64)
    rank[order] = np.arange(len(terms), dtype=np.int64)
    docs = np.repeat(np.arange(n, dtype=np.int32), np.diff(offsets)) if n else np.zeros(0, dtype=np.int32)
    key = rank[term_ids] if len(term_ids) else np.zeros(0, dtype=np.int64)
    perm = np.argsort(key, kind="stable")  # each term's documents stay in document order
    starts = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(np.bincount(key, minlength=len(terms)), out=starts[1:])
    sections["bt_start"] = starts.tobytes()
    sections["bt_docs"] = docs[perm].astype(np.int32).tobytes()
    sections["bt_counts"] = counts[perm].astype(np.int32).tobytes()
    sections["bt_norm"] = doc_norms(offsets, counts, n).tobytes() if n else b""
    for name in _ARRAYS:
        sections[name] = payload[name]
    ch = dict(payload["channels"])
    for name in _CHANNEL_ARRAYS:
        value = ch.pop(name)
        if value is not None:
            sections["ch_" + name] = value
    ch["has_vectors"] = "ch_vectors" in sections
    moments = ch.pop("moments")
    ch["moments_d"] = None
    if moments is not None:
        ch["moments_d"] = moments[0]
        sections["ch_mean"], sections["ch_second"] = moments[1], moments[2]
    src_docs, src_starts, src_text = ch.pop("sources")
    char_starts = np.frombuffer(src_starts, dtype=np.int64)
    byte_starts = np.zeros(len(char_starts), dtype=np.int64)
    pieces = [
        src_text[int(a) : int(b)].encode("utf-8", "surrogateescape") for a, b in zip(char_starts, char_starts[1:])
    ]
    if len(char_starts):
        np.cumsum([len(p) for p in pieces], out=byte_starts[1:])
    sections["src_docs"] = src_docs
    sections["src_starts"] = byte_starts.tobytes()
    sections["src_text"] = b"".join(pieces)
    header = {k: v for k, v in payload.items() if k not in _ARRAYS and k not in ("offsets", "term_ids", "counts")}
    header["terms"] = [terms[i] for i in order]
    header["channels"] = ch
    return header, sections


class TermPostings:
    """The parts of :class:`~.index.PoolBM25` a recall uses (as
    :class:`~.stored_views.StoredBM25`), over the by-term postings: a query reads its own
    terms' documents and counts only."""

    def __init__(self, sec: Sectioned, terms: list[str], n: int) -> None:
        self._sec = sec
        self._terms = terms
        self.size = n
        self._starts = sec.array("bt_start", np.int64)
        self._norm: np.ndarray | None = None
        self._cache: dict[str, tuple[np.ndarray, np.ndarray] | None] = {}

    def _rows(self, term: str) -> tuple[int, int] | None:
        i = bisect_left(self._terms, term)
        if i >= len(self._terms) or self._terms[i] != term:
            return None
        return int(self._starts[i]), int(self._starts[i + 1])

    def _contributions(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(documents, BM25 contributions)`` as :meth:`.term_matrix.TermMatrix._contributions`."""
        if term in self._cache:
            return self._cache[term]
        span = self._rows(term)
        value = None
        if span is not None and span[1] > span[0]:
            s, e = span
            if self._norm is None:
                self._norm = self._sec.array("bt_norm", np.float64)
            idx = self._sec.part("bt_docs", np.int32, s, e).astype(np.int64)
            tf = self._sec.part("bt_counts", np.int32, s, e).astype(float)
            value = (idx, term_score(idf(self.size, e - s), tf, self._norm[idx]))
        self._cache[term] = value
        return value

    def matched_terms(self, doc: int, terms: Sequence[str]) -> list[str]:
        """The terms (of ``terms``) document ``doc`` holds."""
        out = []
        for t in terms:
            post = self._contributions(t)
            if post is not None:
                i = int(np.searchsorted(post[0], doc))
                if i < len(post[0]) and int(post[0][i]) == doc:
                    out.append(t)
        return out

    def accumulate(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
        """As :meth:`.index.PoolBM25.accumulate`."""
        return accumulated(self.size, terms, self._contributions)


class KeyPostings:
    """The channels' postings by key, read by offset (documents widened to int64 and weights
    to float64 per list: the values a whole-array conversion gives)."""

    def __init__(self, sec: Sectioned, tfs32: bool) -> None:
        self._sec = sec
        self._tf_type = np.float32 if tfs32 else np.float64

    def get(self, s: int, e: int) -> tuple[np.ndarray, np.ndarray]:
        docs = self._sec.part("ch_docs", np.int32, s, e).astype(np.int64)
        tfs = self._sec.part("ch_tfs", self._tf_type, s, e).astype(np.float64)
        return docs, tfs

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

__all__ = ["to_sections", "TermPostings", "KeyPostings", "Vocab", "vocab_sections", "ExcludedPostings"]

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
    sections.update(vocab_sections("terms", [terms[i] for i in order]))
    sections.update(vocab_sections("ch_keys", ch.pop("keys")))
    ids: dict[str, int] = payload["ids"]
    by_id = sorted(ids)
    sections.update(vocab_sections("ids", by_id))
    sections["id_files"] = np.asarray([ids[k] for k in by_id], dtype=np.int32).tobytes()
    for name in _FILE_LISTS:
        sections[name] = np.asarray(payload[name], dtype=np.int32).tobytes()
    ex_postings: dict[str, list[int]] = payload["ex_postings"]
    ex_terms = sorted(ex_postings)
    sections.update(vocab_sections("ex_terms", ex_terms))
    ex_start = np.zeros(len(ex_terms) + 1, dtype=np.int64)
    np.cumsum([len(ex_postings[t]) for t in ex_terms], out=ex_start[1:])
    sections["ex_start"] = ex_start.tobytes()
    sections["ex_items"] = np.asarray([i for t in ex_terms for i in ex_postings[t]], dtype=np.int32).tobytes()
    header = {k: v for k, v in payload.items() if k not in _ARRAYS and k not in _NOT_IN_HEADER}
    header["channels"] = ch
    return header, sections


_FILE_LISTS = ("doc_files", "pool_files", "all_files")
_NOT_IN_HEADER = ("offsets", "term_ids", "counts", "terms", "ids", "ex_postings", "ex_tokens", *_FILE_LISTS)
"""Sections now (the header keeps the small values: a query unpacks no value per fact)."""


def vocab_sections(name: str, words: list[str]) -> dict[str, bytes]:
    """A sorted list of strings as two sections: ``<name>_text`` (the UTF-8 bytes, one
    after the other) and ``<name>_off`` (``int64`` offsets, one more than words)."""
    pieces = [w.encode("utf-8", "surrogateescape") for w in words]
    off = np.zeros(len(pieces) + 1, dtype=np.int64)
    if pieces:
        np.cumsum([len(p) for p in pieces], out=off[1:])
    return {f"{name}_text": b"".join(pieces), f"{name}_off": off.tobytes()}


class Vocab(Sequence[str]):
    """A sorted list of strings read from :func:`vocab_sections` (both sections read and
    checked on first use; a word is decoded when a search or a slice touches it), so a
    lookup costs a binary search, not unpacking every word of the store."""

    def __init__(self, sec: Sectioned, name: str) -> None:
        self._sec, self._name = sec, name
        self._text: bytes | None = None
        self._off: list[int] | np.ndarray = []
        self._n = (sec.size(f"{name}_off") // 8 - 1) if sec.has(f"{name}_off") else 0

    def _load(self) -> bytes:
        if self._text is None:
            self._off = self._sec.array(f"{self._name}_off", np.int64)
            self._text = self._sec.raw(f"{self._name}_text")
        return self._text

    def __len__(self) -> int:
        return max(self._n, 0)

    def __getitem__(self, i: Any) -> Any:
        text = self._load()
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return text[int(self._off[i]) : int(self._off[i + 1])].decode("utf-8", "surrogateescape")

    def find(self, word: str) -> int | None:
        """The position of ``word``, or ``None``."""
        i = bisect_left(self, word)
        return i if i < len(self) and self[i] == word else None


class ExcludedPostings:
    """The left-out facts' postings (term → positions in the pool's exclusions), read by
    term: :meth:`~.index.RecallIndex.excluded_hits` and ``excluded_match`` over them."""

    def __init__(self, sec: Sectioned) -> None:
        self._sec = sec
        self._terms = Vocab(sec, "ex_terms")
        self._cache: dict[str, list[int]] = {}

    def get(self, term: str) -> list[int]:
        cached = self._cache.get(term)
        if cached is not None:
            return cached
        i = self._terms.find(term)
        got: list[int] = []
        if i is not None:
            start = self._sec.part("ex_start", np.int64, i, i + 2)
            got = self._sec.part("ex_items", np.int32, int(start[0]), int(start[1])).tolist()
        self._cache[term] = got
        return got


class TermPostings:
    """The parts of :class:`~.index.PoolBM25` a recall uses (as
    :class:`~.stored_views.StoredBM25`), over the by-term postings: a query reads its own
    terms' documents and counts only."""

    def __init__(self, sec: Sectioned, terms: Sequence[str], n: int) -> None:
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

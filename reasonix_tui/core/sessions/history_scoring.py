"""Query scoring of the history index: Reasonix's BM25 over the selected documents.

Corpus statistics (``N``, average length, document frequencies) are over the documents
*selected for the call* (scope, kinds and tool filter); scores are summed per document in
query-term order with Go's operation order, so they equal Reasonix's bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import bm25
from .history_columns import IndexColumns
from .history_docs import (
    KINDS,
)
from .history_options import (
    KIND_ID,
    SCORE_FLOOR,
)

__all__ = ["ScoredIndex"]


class ScoredIndex(IndexColumns):
    """The index with Reasonix's BM25 ranking over the documents selected for a call."""

    def _selection(self, file_ids: Sequence[int], kinds: frozenset[str], tool_name: str) -> tuple[Any, int, float]:
        key = (self.generation, tuple(file_ids), kinds, tool_name)
        cached: tuple[Any, int, float] | None = self._mask_cache.get(key)
        if cached is not None:
            return cached
        n = len(self._alive)
        if n == 0:
            result: tuple[Any, int, float] = (np.zeros(0, dtype=bool), 0, 1.0)
            self._mask_cache[key] = result
            return result
        file_sel = np.zeros(len(self._file_by_id), dtype=bool)
        if file_ids:
            file_sel[np.asarray(file_ids, dtype=np.int64)] = True
        doc_kind = np.frombuffer(self._doc_kind, dtype=np.int8)
        kind_sel = np.zeros(len(KINDS), dtype=bool)
        for k in kinds:
            kind_sel[KIND_ID[k]] = True
        sel = np.frombuffer(bytes(self._alive), dtype=np.uint8).astype(bool)
        sel &= file_sel[np.frombuffer(self._doc_file, dtype=np.int32)]
        sel &= kind_sel[doc_kind]
        if tool_name:
            tid = self._tool_ids.get(tool_name, -1)
            textual = doc_kind <= KIND_ID["assistant_text"]
            sel &= textual | (np.frombuffer(self._doc_tool, dtype=np.int32) == tid)
        count = int(sel.sum())
        total = int(np.frombuffer(self._doc_len, dtype=np.int32)[sel].sum(dtype=np.int64)) if count else 0
        avg = total / count if count else 0.0
        if avg <= 0:
            avg = 1.0
        if len(self._mask_cache) > 32:
            self._mask_cache.clear()
        result = (sel, count, avg)
        self._mask_cache[key] = result
        return result

    def rank(
        self, terms: Sequence[str], file_ids: Sequence[int], kinds: frozenset[str], tool_name: str, limit: int
    ) -> tuple[list[tuple[float, int]], int]:
        """The best ``limit`` ``(score, doc id)`` pairs in Reasonix order (score desc, path,
        message index) after the relative floor, and ``N`` of the selection.

        Only the postings of the query terms are touched; scores are summed per document
        in query-term order with Go's operation order, so they equal Reasonix's bit for bit.
        """
        sel, n_docs, avg = self._selection(file_ids, kinds, tool_name)
        if n_docs == 0:
            return [], 0
        doc_len = np.frombuffer(self._doc_len, dtype=np.int32)
        scores = np.zeros(len(self._alive), dtype=np.float64)
        touched = False
        for term in terms:
            post = self._postings(term)
            if post is None:
                continue
            ids, tfs = post
            keep = sel[ids]
            ids = ids[keep]
            df = len(ids)
            if df == 0:
                continue
            tf = tfs[keep].astype(np.float64)
            norm = bm25.length_norm(doc_len[ids].astype(np.float64), avg)
            scores[ids] += bm25.term_score(bm25.idf(float(n_docs), float(df)), tf, norm)
            touched = True
        if not touched:
            return [], n_docs
        cand = np.flatnonzero(scores > 0)
        vals = scores[cand]
        top = float(vals.max())
        floor = vals >= top * SCORE_FLOOR
        cand, vals = cand[floor], vals[floor]
        if len(cand) > limit:
            kth = np.partition(vals, len(vals) - limit)[len(vals) - limit]
            pick = vals >= kth
            cand, vals = cand[pick], vals[pick]
        paths = self._file_by_id
        doc_file = self._doc_file
        doc_msg = self._doc_msg
        best = sorted(
            zip(vals.tolist(), cand.tolist()),
            key=lambda t: (-t[0], paths[doc_file[t[1]]].path, doc_msg[t[1]]),
        )
        return best[:limit], n_docs

"""The warm history index's storage: per-document columns and the postings.

Documents are columns of arrays (file, kind, tool, length, message, call, line offset,
liveness, text); postings live in a compressed-sparse-row *base* (term id → document ids
and term frequencies, numpy arrays) plus a small *delta* for documents added since the
last build, rebuilt when the delta grows or dead documents pass 20%.
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from .history_options import (
    HistoryOptions,
)

__all__ = ["FileEntry", "IndexColumns"]

_NP_TYPES = {"b": np.int8, "i": np.int32, "q": np.int64}


@dataclass
class FileEntry:
    fid: int
    path: str
    fmt: str
    mtime_ns: int = -1
    size: int = -1
    consumed: int = 0
    digest: Any = None
    parser: Any = None
    next_index: int = 0
    doc_ranges: list[tuple[int, int]] = field(default_factory=list)
    broken: int = 0
    alive: bool = True
    has_tail: bool = False


class IndexColumns:
    """The documents and postings of the history index (no file reading, no ranking).

    * Postings live in a compressed-sparse-row *base* (term id → document ids and term
      frequencies, numpy arrays) plus a small *delta* for documents added since the last
      build. A large batch (the cold start) goes straight into a rebuilt base.
    * Documents of a rewritten or vanished file are tombstoned (:meth:`_kill`); the next
      rebuild drops them (when they pass 20% of all documents).
    """

    _DELTA_LIMIT = 50_000
    """Postings added incrementally before the base is rebuilt."""

    def __init__(self, options: HistoryOptions) -> None:
        self.options = options.normalized()
        """The directories searched (absolute, cleaned)."""
        self._lock = threading.RLock()
        self._files: dict[str, FileEntry] = {}
        self._file_by_id: list[FileEntry] = []
        self._doc_file = array("i")
        self._doc_kind = array("b")
        self._doc_tool = array("i")
        self._doc_len = array("i")
        self._doc_msg = array("i")
        self._doc_call = array("i")
        self._doc_offset = array("q")
        self._alive = bytearray()
        self._doc_text: list[str | None] = []
        self._dead = 0
        self._term_ids: dict[str, int] = {}
        self._tool_ids: dict[str, int] = {}
        self._tool_names: list[str] = []
        self._base_off = np.zeros(1, dtype=np.int64)
        self._base_docs = np.zeros(0, dtype=np.int32)
        self._base_tfs = np.zeros(0, dtype=np.int32)
        self._delta: dict[int, tuple[array[int], array[int]]] = {}
        self._delta_size = 0
        self._pending: list[tuple[Any, Any, Any]] = []
        self._pending_size = 0
        self.generation = 0
        """Bumped on every change to the indexed documents."""
        self._mask_cache: dict[Any, Any] = {}
        self._disk: str = ""
        """The on-disk cache file (``enable_disk_cache``), or ``""``."""
        self._disk_cache: tuple[list[str], dict[str, tuple[Any, ...]]] | None = None
        self._disk_remap: Any = None
        self._file_docs: dict[str, list[tuple[Any, ...]]] = {}
        """Documents read in this process, per file (for the disk cache)."""
        self._file_cols: dict[str, tuple[Any, ...]] = {}
        """Columnar records of files restored from the disk cache (term ids of this index)."""
        self._disk_dirty = False

    @property
    def document_count(self) -> int:
        """Live documents."""
        return len(self._alive) - self._dead

    @property
    def term_count(self) -> int:
        """Distinct terms seen."""
        return len(self._term_ids)

    @property
    def file_count(self) -> int:
        """Indexed files."""
        return sum(1 for f in self._files.values() if f.alive)

    def _tool_id(self, name: str) -> int:
        tid = self._tool_ids.get(name)
        if tid is None:
            tid = len(self._tool_names)
            self._tool_ids[name] = tid
            self._tool_names.append(name)
        return tid

    def _changed(self) -> None:
        self.generation += 1
        self._mask_cache.clear()

    def _kill(self, entry: FileEntry) -> None:
        for a, b in entry.doc_ranges:
            for d in range(a, b):
                if self._alive[d]:
                    self._alive[d] = 0
                    self._dead += 1
                    self._doc_text[d] = None
        entry.doc_ranges = []
        entry.alive = False
        self._file_docs.pop(entry.path, None)
        self._file_cols.pop(entry.path, None)
        self._disk_dirty = True
        self._changed()

    def _add_batch(self, first_doc: int, batch: list[list[str]]) -> None:
        """Turn a file's token lists into (term id, doc id, tf) triples, vectorised."""
        lengths = np.fromiter((len(t) for t in batch), dtype=np.int64, count=len(batch))
        ids = self._term_ids
        flat_tokens = list(chain.from_iterable(batch))
        new_terms = set(flat_tokens).difference(ids)
        if new_terms:
            base = len(ids)
            ids.update(zip(sorted(new_terms), range(base, base + len(new_terms))))
        tids = np.fromiter(map(ids.__getitem__, flat_tokens), dtype=np.int64, count=len(flat_tokens))
        self._add_ids(first_doc, tids, lengths)

    def _add_ids(self, first_doc: int, tids: Any, lengths: Any) -> None:
        """Postings triples for consecutive documents given their term ids, vectorised."""
        n = len(lengths)
        local = np.repeat(np.arange(n, dtype=np.int64), lengths)
        key = tids.astype(np.int64) * n + local
        uniq, tf = np.unique(key, return_counts=True)
        t = (uniq // n).astype(np.int32)
        d = (uniq % n + first_doc).astype(np.int32)
        self._pending.append((t, d, tf.astype(np.int32)))
        self._pending_size += len(uniq)

    def _flush_pending(self) -> None:
        if not self._pending:
            return
        if self._pending_size + self._delta_size > max(self._DELTA_LIMIT, len(self._base_docs) // 10):
            self._rebuild()
            return
        for t, d, tf in self._pending:
            # t is sorted (np.unique on term-major keys): one slice per term.
            bounds = np.flatnonzero(np.diff(t)) + 1
            starts = np.concatenate(([0], bounds))
            ends = np.concatenate((bounds, [len(t)]))
            for s, e in zip(starts.tolist(), ends.tolist()):
                term = int(t[s])
                post = self._delta.get(term)
                if post is None:
                    post = (array("i"), array("i"))
                    self._delta[term] = post
                post[0].frombytes(d[s:e].tobytes())
                post[1].frombytes(tf[s:e].tobytes())
            self._delta_size += len(t)
        self._pending.clear()
        self._pending_size = 0
        self._changed()

    def _maybe_rebuild(self) -> None:
        if self._dead and self._dead * 5 > len(self._alive):
            self._rebuild()

    def _rebuild(self) -> None:
        """Merge base, delta and pending postings into a new base, dropping dead documents."""
        parts_t: list[Any] = []
        parts_d: list[Any] = []
        parts_f: list[Any] = []
        counts = np.diff(self._base_off)
        if len(self._base_docs):
            parts_t.append(np.repeat(np.arange(len(counts), dtype=np.int32), counts))
            parts_d.append(self._base_docs)
            parts_f.append(self._base_tfs)
        for term, (d, f) in self._delta.items():
            parts_t.append(np.full(len(d), term, dtype=np.int32))
            parts_d.append(np.frombuffer(d, dtype=np.int32).copy())
            parts_f.append(np.frombuffer(f, dtype=np.int32).copy())
        for t, d, f in self._pending:
            parts_t.append(t)
            parts_d.append(d)
            parts_f.append(f)
        self._delta = {}
        self._delta_size = 0
        self._pending = []
        self._pending_size = 0
        if parts_t:
            t_all = np.concatenate(parts_t)
            d_all = np.concatenate(parts_d)
            f_all = np.concatenate(parts_f)
        else:
            t_all = d_all = f_all = np.zeros(0, dtype=np.int32)
        if self._dead:
            alive = np.frombuffer(bytes(self._alive), dtype=np.uint8).astype(bool)
            keep_post = alive[d_all]
            t_all, d_all, f_all = t_all[keep_post], d_all[keep_post], f_all[keep_post]
            remap = (np.cumsum(alive, dtype=np.int64) - 1).astype(np.int32)
            d_all = remap[d_all]
            self._compact_docs(alive, remap)
        order = np.argsort(t_all, kind="stable")
        t_sorted = t_all[order]
        self._base_docs = np.ascontiguousarray(d_all[order], dtype=np.int32)
        self._base_tfs = np.ascontiguousarray(f_all[order], dtype=np.int32)
        n_terms = len(self._term_ids)
        per_term = np.bincount(t_sorted, minlength=n_terms) if len(t_sorted) else np.zeros(n_terms, dtype=np.int64)
        self._base_off = np.concatenate(([0], np.cumsum(per_term))).astype(np.int64)
        self._changed()

    def _compact_docs(self, alive: Any, remap: Any) -> None:
        keep = np.flatnonzero(alive)

        def squeeze(arr: array[int]) -> array[int]:
            a = np.frombuffer(arr, dtype=_NP_TYPES[arr.typecode])
            out = array(arr.typecode)
            out.frombytes(a[keep].tobytes())
            return out

        self._doc_file = squeeze(self._doc_file)
        self._doc_kind = squeeze(self._doc_kind)
        self._doc_tool = squeeze(self._doc_tool)
        self._doc_len = squeeze(self._doc_len)
        self._doc_msg = squeeze(self._doc_msg)
        self._doc_call = squeeze(self._doc_call)
        self._doc_offset = squeeze(self._doc_offset)
        texts = self._doc_text
        self._doc_text = [texts[i] for i in keep.tolist()]
        self._alive = bytearray(b"\x01" * len(keep))
        self._dead = 0
        for entry in self._files.values():
            entry.doc_ranges = [(int(remap[a]), int(remap[b - 1]) + 1) for a, b in entry.doc_ranges]

    def _postings(self, term: str) -> tuple[Any, Any] | None:
        tid = self._term_ids.get(term)
        if tid is None:
            return None
        parts_d = []
        parts_f = []
        if tid + 1 < len(self._base_off):
            a, b = int(self._base_off[tid]), int(self._base_off[tid + 1])
            if b > a:
                parts_d.append(self._base_docs[a:b])
                parts_f.append(self._base_tfs[a:b])
        delta = self._delta.get(tid)
        if delta is not None and len(delta[0]):
            parts_d.append(np.frombuffer(delta[0], dtype=np.int32).copy())
            parts_f.append(np.frombuffer(delta[1], dtype=np.int32).copy())
        if not parts_d:
            return None
        if len(parts_d) == 1:
            return parts_d[0], parts_f[0]
        return np.concatenate(parts_d), np.concatenate(parts_f)

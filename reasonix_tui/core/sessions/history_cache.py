"""The on-disk cache of the history index, for one-shot processes.

One sealed file per set of searched directories: the vocabulary and, per transcript, a
columnar record of its documents (kinds, tools, positions, texts, term ids), written for
this platform's array layout and this tokenizer.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from typing import Any

import numpy as np

from ..paths import Layout
from ..store.sealed import read_sealed, source_stamp, write_sealed
from .history_columns import FileEntry, IndexColumns
from .history_options import (
    HistoryOptions,
)

__all__ = ["CachedIndex", "history_cache_path"]

_CACHE_MAGIC = b"RXTHIST2"

_CACHE_VERSION = 2


def history_cache_path(layout: Layout, options: HistoryOptions) -> str:
    """``<root>/reasonix-tui/cache/history-<hash of the searched directories>.marshal``."""
    key = "\0".join(options.normalized().roots()).encode("utf-8", "surrogatepass")
    return str(layout.cache_dir / f"history-{hashlib.sha256(key).hexdigest()[:20]}.marshal")


def _options_key(options: HistoryOptions) -> tuple[Any, ...]:
    """What a cache must have been written for: the directories, this platform's array
    layout, and the tokenizer (a changed tokenizer makes every cached term wrong)."""
    import sys

    from ..compat import tokenize as tok

    o = options.normalized()
    return (
        o.session_dir,
        o.global_session_dir,
        o.archive_dir,
        o.claude_dir,
        sys.byteorder,
        array("i").itemsize,
        array("q").itemsize,
        source_stamp(tok.__file__),
    )


def _load_history_cache(path: str, options: HistoryOptions) -> tuple[list[str], dict[str, tuple[Any, ...]]] | None:
    """``(vocabulary, records)``, or ``None`` when the file is missing, corrupt or was
    written for other directories, another platform or another tokenizer."""
    data = read_sealed(path, _CACHE_MAGIC)
    if type(data) is not tuple or len(data) != 4:
        return None
    version, key, vocab, records = data
    if version != _CACHE_VERSION or tuple(key) != _options_key(options):
        return None
    if not isinstance(vocab, list) or not isinstance(records, dict):
        return None
    return vocab, records


def _save_history_cache(
    path: str, options: HistoryOptions, vocab: list[str], records: dict[str, tuple[Any, ...]]
) -> None:
    write_sealed(path, _CACHE_MAGIC, (_CACHE_VERSION, _options_key(options), vocab, records))


class CachedIndex(IndexColumns):
    """The index with its on-disk cache: every indexed file's documents as one columnar
    record, so a one-shot process re-reads only files whose size or mtime changed."""

    def enable_disk_cache(self, path: str | os.PathLike[str]) -> None:
        """Keep every indexed file's documents (kinds, positions, texts, term ids) in
        ``path`` and start from it: a later process re-reads only files whose size or
        mtime changed.

        For one-shot processes (``reasonix-tui history search``); a long-running server
        keeps its index warm in memory instead. A missing, corrupt or foreign cache is
        ignored (everything is read from the session files, as without a cache).
        """
        with self._lock:
            self._disk = os.fspath(path)
            self._disk_cache = _load_history_cache(self._disk, self.options)
            self._disk_remap = None

    def _restore(self, path: str, fmt: str, st: os.stat_result) -> bool:
        """Index a file from the disk cache when it holds this very version of it."""
        cache = self._disk_cache
        if cache is None:
            return False
        vocab, records = cache
        rec = records.get(path)
        if rec is None or rec[0] != fmt or rec[1] != st.st_size or rec[2] != st.st_mtime_ns:
            return False
        (
            _fmt,
            _size,
            _mtime,
            consumed,
            next_index,
            broken,
            kinds,
            tool_table,
            tool_idx,
            msgs,
            calls,
            offsets,
            texts,
            lens,
            ids,
        ) = rec
        if self._disk_remap is None:
            term_ids = self._term_ids
            remap = np.empty(len(vocab), dtype=np.int64)
            for i, term in enumerate(vocab):
                tid = term_ids.get(term)
                if tid is None:
                    tid = term_ids[term] = len(term_ids)
                remap[i] = tid
            self._disk_remap = remap
        entry = FileEntry(fid=len(self._file_by_id), path=path, fmt=fmt)
        # No parser state was kept: any later change to the file is read from the start.
        entry.has_tail = True
        entry.consumed, entry.next_index, entry.broken = consumed, next_index, broken
        self._file_by_id.append(entry)
        self._files[path] = entry
        start = len(self._alive)
        n = len(kinds)
        if n:
            self._doc_file.extend(array("i", [entry.fid]) * n)
            self._doc_kind.frombytes(kinds)
            table = np.asarray([self._tool_id(t) for t in tool_table] or [0], dtype=np.int32)
            self._doc_tool.frombytes(table[np.frombuffer(tool_idx, dtype=np.int32)].tobytes())
            self._doc_len.frombytes(lens)
            self._doc_msg.frombytes(msgs)
            self._doc_call.frombytes(calls)
            self._doc_offset.frombytes(offsets)
            self._alive.extend(b"\x01" * n)
            self._doc_text.extend(texts)
            tids = self._disk_remap[np.frombuffer(ids, dtype=np.int32)]
            self._add_ids(start, tids, np.frombuffer(lens, dtype=np.int32).astype(np.int64))
            entry.doc_ranges.append((start, start + n))
            ids = tids.astype(np.int32).tobytes()  # now in this index's term ids
        entry.mtime_ns, entry.size = st.st_mtime_ns, st.st_size
        # The record with its term ids in this index's numbering (format, size and mtime were
        # just checked equal to the file's).
        self._file_cols[path] = (*rec[:-1], ids)
        self._changed()
        return True

    def _columns(self, entry: FileEntry, docs: list[tuple[Any, ...]]) -> tuple[Any, ...]:
        """A file's documents read in this process, as a columnar cache record."""
        term_ids = self._term_ids
        tool_table = list(dict.fromkeys(d[1] for d in docs))
        tool_index = {name: i for i, name in enumerate(tool_table)}
        flat = [term_ids[t] for d in docs for t in d[6]]
        return (
            entry.fmt,
            entry.size,
            entry.mtime_ns,
            entry.consumed,
            entry.next_index,
            entry.broken,
            array("b", [d[0] for d in docs]).tobytes(),
            tool_table,
            array("i", [tool_index[d[1]] for d in docs]).tobytes(),
            array("i", [d[2] for d in docs]).tobytes(),
            array("i", [d[3] for d in docs]).tobytes(),
            array("q", [d[4] for d in docs]).tobytes(),
            [d[5] for d in docs],
            array("i", [len(d[6]) for d in docs]).tobytes(),
            array("i", flat).tobytes(),
        )

    def save_disk_cache(self) -> bool:
        """Write the disk cache when files were read since it was loaded. Returns whether
        it wrote. Files still being written (a last line without its newline) are left
        out, so they are read again next time."""
        with self._lock:
            if not self._disk or not self._disk_dirty:
                return False
            records: dict[str, tuple[Any, ...]] = {}
            for path, entry in self._files.items():
                if not entry.alive:
                    continue
                cols = self._file_cols.get(path)
                if cols is not None:
                    records[path] = cols
                    continue
                docs = self._file_docs.get(path)
                if docs is None or (entry.has_tail and entry.parser is not None):
                    continue
                records[path] = self._columns(entry, docs)
            vocab = [""] * len(self._term_ids)
            for term, tid in self._term_ids.items():
                vocab[tid] = term
            try:
                _save_history_cache(self._disk, self.options, vocab, records)
            except (OSError, ValueError):
                return False
            self._disk_dirty = False
            return True

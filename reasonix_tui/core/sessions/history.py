"""The session ``history`` tool: BM25 search over saved transcripts, and ``around`` windows.

Spec: instructions-history-suggestions §B.2-§B.6 (Reasonix ``internal/history``).

* Records ("documents") are message parts: ``user_text``, ``assistant_text``,
  ``tool_input``, ``tool_error`` and ``tool_output`` (:func:`extract_documents`).
* Scores are Reasonix's BM25 (``k1 = 1.2``, ``b = 0.75``, idf ``ln(1 + (N-df+0.5)/(df+0.5))``)
  with corpus statistics over the documents *selected for the call* (scope, kinds and
  tool filter), exactly as :class:`reasonix_tui.core.bm25.BM25Index` would score the same
  selection; the tokenizer is :func:`reasonix_tui.core.compat.tokenize.tokens`.
* The cost follows the matches: :class:`HistoryIndex` keeps a warm inverted index
  (term → postings of document ids and term frequencies). A search re-lists the session
  directories, re-reads only files whose size or mtime changed (an appended file is read
  from where the last read stopped), then scores only the postings of the query terms.
* Provider-visible texts (search output, zero-result guidance, around output, tool
  description and schema) are byte-identical to Reasonix.

:func:`~.history_tool.history_tool_call` is the whole MCP ``history`` tool: arguments in, provider text
out, :class:`HistoryError` (with Reasonix's exact message) for invalid input.
"""

from __future__ import annotations

import hashlib
import os
import threading
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from .. import bm25
from ..compat.gostr import go_quote, trim_space
from ..compat.retrieval import make_snippet
from ..compat.tokenize import query_terms, tokens
from ..paths import Layout
from ..store.model import InvalidInput
from ..store.safeio import open_read
from ..store.sealed import read_sealed, source_stamp, write_sealed
from .claude import ClaudeParser, claude_project_dir
from .history_docs import (
    DEFAULT_KINDS,
    KINDS,
    MAX_SNIPPET,
    Hit,
    MessageContext,
    SearchResult,
    message_documents,
    render_message,
    strip_compose_prefixes,
)
from .messages import FORMAT_CLAUDE, FORMAT_REASONIX, iter_json_lines
from .transcripts import (
    Parser,
    ReasonixParser,
    is_session_transcript_name,
    is_visible_session,
    is_visible_subagent_session,
    list_claude_transcripts,
    read_transcript,
    session_id_of,
    subagents_dir,
)
from .user_text import is_pinned_context_revision

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "DEFAULT_AROUND",
    "MAX_AROUND",
    "SCORE_FLOOR",
    "HistoryError",
    "HistoryOptions",
    "HistoryIndex",
    "search",
    "around",
    "index_for",
    "prewarm",
]

_KIND_ID = {k: i for i, k in enumerate(KINDS)}
_KIND_ROLE = ("user", "assistant", "assistant", "tool", "tool")

DEFAULT_LIMIT = 8
MAX_LIMIT = 20
DEFAULT_AROUND = 3
MAX_AROUND = 10
SCORE_FLOOR = 0.15

SOURCE_PROJECT = "project"
SOURCE_GLOBAL = "global"
SOURCE_ARCHIVE = "archive"
SOURCE_CLAUDE = "claude"

_NP_TYPES = {"b": np.int8, "i": np.int32, "q": np.int64}

_BIG_TEXT = 8192
"""Document texts longer than this are not kept in memory; snippets re-read the line."""


class HistoryError(InvalidInput):
    """Invalid ``history`` input; ``str(err)`` is Reasonix's exact message."""


# --------------------------------------------------------------------------------------
# Options


@dataclass(frozen=True, slots=True)
class HistoryOptions:
    """The directories the tool may read (Reasonix ``history.Options`` plus Claude)."""

    session_dir: str = ""
    """The current session directory (project scope)."""
    global_session_dir: str = ""
    """The user-global session directory (global scope)."""
    archive_dir: str = ""
    """Compacted-history archives (global scope)."""
    claude_dir: str = ""
    """The workspace's Claude Code project directory (searched in every scope, source ``claude``)."""

    @classmethod
    def for_layout(cls, layout: Layout, include_claude: bool = True) -> HistoryOptions:
        """Desktop layout: project sessions of the workspace, CLI sessions, archives, and
        the workspace's Claude Code transcripts when present."""
        claude = claude_project_dir(layout.workspace) if include_claude else None
        return cls(
            session_dir=str(layout.project_sessions_dir),
            global_session_dir=str(layout.global_sessions_dir),
            archive_dir=str(layout.history_archive_dir),
            claude_dir=str(claude) if claude else "",
        )

    def normalized(self) -> HistoryOptions:
        """The same options with every directory absolute and cleaned."""

        def n(d: str) -> str:
            return _abs_clean(d) if trim_space(d) else ""

        return HistoryOptions(n(self.session_dir), n(self.global_session_dir), n(self.archive_dir), n(self.claude_dir))

    def roots(self) -> list[str]:
        """Every root ``around`` may open (Reasonix's five, plus the Claude directory)."""
        out = [self.session_dir, self.global_session_dir, self.archive_dir]
        if self.session_dir:
            out.append(subagents_dir(self.session_dir))
        if self.global_session_dir:
            out.append(subagents_dir(self.global_session_dir))
        if self.claude_dir:
            out.append(self.claude_dir)
        return [r for r in out if trim_space(r)]


# --------------------------------------------------------------------------------------
# Documents


# --------------------------------------------------------------------------------------
# Snippets, floor, rendering


# --------------------------------------------------------------------------------------
# Results


# --------------------------------------------------------------------------------------
# The warm index


@dataclass
class _FileEntry:
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


def _abs_clean(p: str) -> str:
    return os.path.normpath(os.path.abspath(p))


def _under_root(path: str, root: str) -> bool:
    """Go ``Rel(abs root, abs path)`` is ``.`` or does not start with ``..``."""
    if not trim_space(path) or not trim_space(root):
        return False
    try:
        rel = os.path.relpath(_abs_clean(path), _abs_clean(root))
    except ValueError:
        return False
    return rel == "." or (rel != ".." and not rel.startswith(".." + os.sep))


class HistoryIndex:
    """A warm, incrementally maintained inverted index over session transcripts.

    * Postings live in a compressed-sparse-row *base* (term id → document ids and term
      frequencies, numpy arrays) plus a small *delta* for documents added since the last
      build. A large batch (the cold start) goes straight into a rebuilt base.
    * Files are re-read only when their size or mtime changes; a file that grew with an
      unchanged prefix (an appended turn, or Reasonix's rewrite-by-rename of the same
      messages plus new ones) is read from where the last read stopped.
    * Documents of a rewritten or vanished file are tombstoned; a search masks them out,
      and the next rebuild drops them (when they pass 20% of all documents).

    Thread-safe (one lock).
    """

    _DELTA_LIMIT = 50_000
    """Postings added incrementally before the base is rebuilt."""

    def __init__(self, options: HistoryOptions) -> None:
        self.options = options.normalized()
        """The directories searched (absolute, cleaned)."""
        self._lock = threading.RLock()
        self._files: dict[str, _FileEntry] = {}
        self._file_by_id: list[_FileEntry] = []
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
        self._meta_cache: dict[str, tuple[int, int, str, bool]] = {}
        self._disk: str = ""
        """The on-disk cache file (``enable_disk_cache``), or ``""``."""
        self._disk_cache: tuple[list[str], dict[str, tuple[Any, ...]]] | None = None
        self._disk_remap: Any = None
        self._file_docs: dict[str, list[tuple[Any, ...]]] = {}
        """Documents read in this process, per file (for the disk cache)."""
        self._file_cols: dict[str, tuple[Any, ...]] = {}
        """Columnar records of files restored from the disk cache (term ids of this index)."""
        self._disk_dirty = False

    # -- bookkeeping --------------------------------------------------------------

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

    # -- listing --------------------------------------------------------------------

    def _subagent_parent(self, path: str) -> tuple[str, bool]:
        """``parentSession`` of a sub-agent transcript, cached by the meta file's mtime/size."""
        meta = path[: -len(".jsonl")] + ".meta.json"
        try:
            st = os.stat(meta)
        except OSError:
            return "", False
        cached = self._meta_cache.get(meta)
        if cached is not None and cached[0] == st.st_mtime_ns and cached[1] == st.st_size:
            return cached[2], cached[3]
        from .transcripts import subagent_parent_session

        parent, ok = subagent_parent_session(path)
        self._meta_cache[meta] = (st.st_mtime_ns, st.st_size, parent, ok)
        return parent, ok

    def _list_session_dir(self, d: str) -> list[tuple[str, os.stat_result]]:
        """Visible transcripts of a session directory and of its ``subagents/``."""
        names, files = _scan(d)
        out = [(p, st) for p, st in files if _stem(os.path.basename(p)) + ".cleanup-pending.json" not in names]
        sub_names, sub_files = _scan(subagents_dir(d))
        for path, st in sub_files:
            if _stem(os.path.basename(path)) + ".cleanup-pending.json" in sub_names:
                continue
            parent, ok = self._subagent_parent(path)
            if ok and parent and parent + ".cleanup-pending.json" in names:
                continue
            out.append((path, st))
        return out

    def sources(self, scope: str) -> list[tuple[str, str, str, os.stat_result]]:
        """``(path, source label, format, stat)`` for a scope, de-duplicated by path (first wins).

        Sorted by modification time (newest first), then path, as Reasonix lists them.
        """
        o = self.options
        out: list[tuple[str, str, str, os.stat_result]] = []
        seen: set[str] = set()

        def add(files: Iterable[tuple[str, os.stat_result]], label: str, fmt: str) -> None:
            for path, st in files:
                if path in seen:
                    continue
                seen.add(path)
                out.append((path, label, fmt, st))

        if scope in (SOURCE_PROJECT, SOURCE_GLOBAL) and trim_space(o.session_dir):
            add(self._list_session_dir(o.session_dir), SOURCE_PROJECT, FORMAT_REASONIX)
        if scope == SOURCE_GLOBAL and trim_space(o.global_session_dir):
            add(self._list_session_dir(o.global_session_dir), SOURCE_GLOBAL, FORMAT_REASONIX)
        if scope in (SOURCE_GLOBAL, SOURCE_ARCHIVE) and trim_space(o.archive_dir):
            add(_scan(o.archive_dir)[1], SOURCE_ARCHIVE, FORMAT_REASONIX)
        if o.claude_dir and scope in (SOURCE_PROJECT, SOURCE_GLOBAL):
            add(list_claude_transcripts(o.claude_dir), SOURCE_CLAUDE, FORMAT_CLAUDE)
        out.sort(key=lambda t: (-t[3].st_mtime_ns, t[0]))
        return out

    # -- updating -------------------------------------------------------------------

    def refresh(self, listed: Sequence[tuple[str, str, str, os.stat_result]]) -> int:
        """Bring the listed files up to date (new, grown, rewritten). Returns files read."""
        read = 0
        with self._lock:
            for path, _label, fmt, st in listed:
                entry = self._files.get(path)
                if entry is not None and entry.alive and entry.mtime_ns == st.st_mtime_ns and entry.size == st.st_size:
                    continue
                if entry is None and self._restore(path, fmt, st):
                    continue
                self._update_file(path, fmt, st, entry)
                self._disk_dirty = True
                read += 1
            self._flush_pending()
        return read

    # -- the on-disk cache (one-shot processes) -----------------------------------------

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
        entry = _FileEntry(fid=len(self._file_by_id), path=path, fmt=fmt)
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

    def _columns(self, entry: _FileEntry, docs: list[tuple[Any, ...]]) -> tuple[Any, ...]:
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

    def forget_missing(self, listed_paths: set[str], directories: Iterable[str]) -> None:
        """Drop files under ``directories`` that are no longer listed (deleted or hidden)."""
        dirs = {_abs_clean(d) for d in directories if trim_space(d)}
        with self._lock:
            if len(listed_paths) == len(self._files) and all(p in self._files for p in listed_paths):
                return
            for path, entry in list(self._files.items()):
                if not entry.alive or path in listed_paths:
                    continue
                if _abs_clean(os.path.dirname(path)) in dirs:
                    self._kill(entry)
                    del self._files[path]
            self._maybe_rebuild()

    def _kill(self, entry: _FileEntry) -> None:
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

    def _update_file(self, path: str, fmt: str, st: os.stat_result, entry: _FileEntry | None) -> None:
        appended = False
        if (
            entry is not None
            and entry.alive
            and not entry.has_tail
            and entry.fmt == fmt
            and st.st_size >= entry.consumed > 0
        ):
            digest = _prefix_digest(path, entry.consumed)
            appended = digest is not None and digest == entry.digest.digest()
        if entry is None or not appended:
            if entry is not None:
                self._kill(entry)
            entry = _FileEntry(fid=len(self._file_by_id), path=path, fmt=fmt)
            if self._disk:
                self._file_docs[path] = []
            entry.parser = ClaudeParser() if fmt == FORMAT_CLAUDE else ReasonixParser()
            entry.digest = hashlib.blake2b(digest_size=16)
            self._file_by_id.append(entry)
            self._files[path] = entry
        self._read_from(entry)
        entry.mtime_ns = st.st_mtime_ns
        entry.size = st.st_size
        self._changed()

    def _read_from(self, entry: _FileEntry) -> None:
        start_doc = len(self._alive)
        old = entry.consumed
        batch_tokens: list[list[str]] = []
        try:
            for line in iter_json_lines(entry.path, start=entry.consumed):
                if not line.complete:
                    # A last line without its newline: index it when it parses, and read the
                    # whole file again if it grows (the writer may still be mid-line).
                    if line.ok:
                        self._index_line(entry, line, False, batch_tokens)
                        entry.has_tail = True
                    else:
                        entry.broken += 1
                    break
                if self._index_line(entry, line, True, batch_tokens) == "broken":
                    entry.broken += 1
                entry.consumed = line.end
        except OSError:
            pass
        if entry.consumed > old:
            try:
                with open_read(entry.path) as fh:
                    fh.seek(old)
                    remaining = entry.consumed - old
                    while remaining > 0:
                        chunk = fh.read(min(remaining, 1 << 20))
                        if not chunk:
                            break
                        entry.digest.update(chunk)
                        remaining -= len(chunk)
            except OSError:
                entry.consumed = 0
                entry.has_tail = True  # forces a full re-read next time
        end_doc = len(self._alive)
        if end_doc > start_doc:
            entry.doc_ranges.append((start_doc, end_doc))
            self._add_batch(start_doc, batch_tokens)

    def _index_line(self, entry: _FileEntry, line: Any, commit: bool, batch: list[list[str]]) -> str:
        parser: Parser = entry.parser if commit else _clone_parser(entry.parser)
        msgs, status = parser.feed(line)
        index = entry.next_index
        for part, msg in enumerate(msgs):
            for doc in message_documents(index, msg):
                toks = tokens(doc.text)
                if not toks:
                    continue
                batch.append(toks)
                self._doc_file.append(entry.fid)
                self._doc_kind.append(_KIND_ID[doc.kind])
                self._doc_tool.append(self._tool_id(doc.tool_name))
                self._doc_len.append(len(toks))
                self._doc_msg.append(doc.message_index)
                self._doc_call.append(doc.call_index if doc.call_index >= 0 else part)
                self._doc_offset.append(line.offset)
                self._alive.append(1)
                text = doc.text if len(doc.text) <= _BIG_TEXT else None
                self._doc_text.append(text)
                if self._disk and commit:
                    self._file_docs.setdefault(entry.path, []).append(
                        (
                            _KIND_ID[doc.kind],
                            doc.tool_name,
                            doc.message_index,
                            doc.call_index if doc.call_index >= 0 else part,
                            line.offset,
                            text,
                            toks,
                        )
                    )
            index += 1
        if commit:
            entry.next_index = index
        return status

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

    # -- searching ------------------------------------------------------------------

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
            kind_sel[_KIND_ID[k]] = True
        sel = np.frombuffer(bytes(self._alive), dtype=np.uint8).astype(bool)
        sel &= file_sel[np.frombuffer(self._doc_file, dtype=np.int32)]
        sel &= kind_sel[doc_kind]
        if tool_name:
            tid = self._tool_ids.get(tool_name, -1)
            textual = doc_kind <= _KIND_ID["assistant_text"]
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

    def document_text(self, did: int) -> str:
        """The text of a document (re-read from its line when it was too big to keep)."""
        text = self._doc_text[did]
        if text is not None:
            return text
        entry = self._file_by_id[self._doc_file[did]]
        offset = self._doc_offset[did]
        kind = KINDS[self._doc_kind[did]]
        tool = self._tool_names[self._doc_tool[did]]
        try:
            line = next(iter_json_lines(entry.path, start=offset))
        except (OSError, StopIteration):
            return ""
        parser: Any = ClaudeParser() if entry.fmt == FORMAT_CLAUDE else ReasonixParser()
        if isinstance(parser, ReasonixParser):
            parser.seen_first = offset > 0
        msgs, _ = parser.feed(line)
        part_or_call = self._doc_call[did]
        if kind == "tool_input":
            for msg in msgs:
                if part_or_call < len(msg.tool_calls):
                    call = msg.tool_calls[part_or_call]
                    return trim_space(call.name + " " + call.arguments)
            return ""
        msg = msgs[part_or_call] if 0 <= part_or_call < len(msgs) else (msgs[0] if msgs else None)
        if msg is None:
            return ""
        if kind == "user_text":
            return strip_compose_prefixes(msg.content)
        if kind == "assistant_text":
            return trim_space(msg.content)
        return trim_space((msg.name or tool) + " " + msg.content)

    def hit(self, did: int, score: float, query: str, terms: Sequence[str], labels: dict[int, str]) -> Hit:
        """Build a :class:`Hit` for a document."""
        entry = self._file_by_id[self._doc_file[did]]
        return Hit(
            score=score,
            session_path=entry.path,
            session_id=session_id_of(entry.path),
            source=labels.get(entry.fid, ""),
            message_index=self._doc_msg[did],
            role=_KIND_ROLE[self._doc_kind[did]],
            kind=KINDS[self._doc_kind[did]],
            tool_name=self._tool_names[self._doc_tool[did]],
            snippet=make_snippet(self.document_text(did), query, terms, MAX_SNIPPET),
        )

    def search(
        self,
        query: str,
        scope: str = "",
        kinds: Sequence[str] | None = None,
        tool_name: str = "",
        limit: int = 0,
    ) -> SearchResult:
        """Validate, refresh the scope's files, and rank (Reasonix ``Searcher.Search``)."""
        q = trim_space(query)
        if not q:
            raise HistoryError("query is required")
        terms = query_terms(q)
        if not terms:
            raise HistoryError("query must contain at least one letter or number")
        scope = normalize_scope(scope)
        lim = _clamp(limit, DEFAULT_LIMIT, MAX_LIMIT)
        kind_set = normalize_kinds(kinds)
        tool = trim_space(tool_name)
        with self._lock:
            listed = self.sources(scope)
            self.refresh(listed)
            self.forget_missing({p for p, _, _, _ in listed}, self._scope_dirs(scope))
            labels: dict[int, str] = {}
            file_ids: list[int] = []
            for path, label, _fmt, _st in listed:
                entry = self._files.get(path)
                if entry is None or not entry.alive:
                    continue
                labels[entry.fid] = label
                file_ids.append(entry.fid)
            file_ids.sort()
            best, n_docs = self.rank(terms, file_ids, kind_set, tool, lim)
            hits = tuple(self.hit(did, s, q, terms, labels) for s, did in best)
        return SearchResult(query=query, scope=scope, hits=hits, documents=n_docs, files=len(file_ids))

    def warm(self, scope: str = SOURCE_GLOBAL) -> int:
        """Index every file of a scope now (e.g. in a background thread at server start).

        Returns the number of live documents.
        """
        scope = normalize_scope(scope)
        with self._lock:
            listed = self.sources(scope)
            self.refresh(listed)
            self.forget_missing({p for p, _, _, _ in listed}, self._scope_dirs(scope))
            return self.document_count

    def _scope_dirs(self, scope: str) -> list[str]:
        o = self.options
        dirs: list[str] = []
        if scope in (SOURCE_PROJECT, SOURCE_GLOBAL):
            dirs += [o.session_dir, subagents_dir(o.session_dir)]
        if scope == SOURCE_GLOBAL:
            dirs += [o.global_session_dir, subagents_dir(o.global_session_dir)]
        if scope in (SOURCE_GLOBAL, SOURCE_ARCHIVE):
            dirs.append(o.archive_dir)
        if o.claude_dir and scope in (SOURCE_PROJECT, SOURCE_GLOBAL):
            dirs.append(o.claude_dir)
            try:
                with os.scandir(o.claude_dir) as it:
                    dirs += [os.path.join(e.path, "subagents") for e in it if e.is_dir(follow_symlinks=False)]
            except OSError:
                pass
        return [d for d in dirs if d]

    # -- around ---------------------------------------------------------------------

    def allowed_path(self, path: str) -> bool:
        """Inside a configured root, lexically *and* after resolving symlinks, and named
        like a transcript."""
        if not is_session_transcript_name(os.path.basename(path)):
            return False
        roots = self.options.roots()
        lexical = any(_under_root(path, r) for r in roots)
        if not lexical:
            return False
        real = os.path.realpath(path)
        return any(_under_root(real, os.path.realpath(r)) for r in roots)

    def visible_path(self, path: str) -> bool:
        """Reasonix ``visiblePath`` (sub-agents follow their parent; archives always visible)."""
        o = self.options
        for d in (o.session_dir, o.global_session_dir):
            if not trim_space(d):
                continue
            if _under_root(path, subagents_dir(d)):
                return is_visible_subagent_session(d, path)
            if _under_root(path, d):
                return is_visible_session(path)
        if trim_space(o.archive_dir) and _under_root(path, o.archive_dir):
            return True
        if o.claude_dir and _under_root(path, o.claude_dir):
            return True
        return False

    def around(self, session_path: str, message_index: int, before: int = 0, after: int = 0) -> list[MessageContext]:
        """Reasonix ``Searcher.Around`` (with the same error texts)."""
        path = trim_space(session_path)
        if not path:
            raise HistoryError("session_path is required")
        if message_index < 0:
            raise HistoryError("message_index must be non-negative")
        if not self.allowed_path(path):
            raise HistoryError("session_path is outside the configured history roots")
        if not self.visible_path(path):
            raise HistoryError("session_path is pending cleanup")
        fmt = (
            FORMAT_CLAUDE if self.options.claude_dir and _under_root(path, self.options.claude_dir) else FORMAT_REASONIX
        )
        transcript = read_transcript(path, fmt)
        if not transcript.ok:
            if not os.path.exists(path):
                raise HistoryError(f"open {path}: no such file or directory")
            raise HistoryError(transcript.error)
        msgs = transcript.messages
        if message_index >= len(msgs):
            raise HistoryError(f"message_index {message_index} is outside session length {len(msgs)}")
        b = _clamp(before, DEFAULT_AROUND, MAX_AROUND)
        a = _clamp(after, DEFAULT_AROUND, MAX_AROUND)
        start = max(message_index - b, 0)
        end = min(message_index + a + 1, len(msgs))
        return [
            MessageContext(i, render_message(i, msgs[i]))
            for i in range(start, end)
            if not is_pinned_context_revision(msgs[i])
        ]


def _scan(d: str) -> tuple[set[str], list[tuple[str, os.stat_result]]]:
    """One ``scandir``: every entry name, and the transcripts with their stat."""
    if not trim_space(d):
        return set(), []
    try:
        with os.scandir(d) as it:
            entries = list(it)
    except OSError:
        return set(), []
    names = {e.name for e in entries}
    files: list[tuple[str, os.stat_result]] = []
    for e in entries:
        if not is_session_transcript_name(e.name):
            continue
        try:
            if e.is_dir():
                continue
            files.append((e.path, e.stat()))
        except OSError:
            continue
    return names, files


def _stem(name: str) -> str:
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name


def _clone_parser(parser: Any) -> Any:
    if isinstance(parser, ClaudeParser):
        c = ClaudeParser()
        c.tool_names = dict(parser.tool_names)
        c.session_id, c.cwd = parser.session_id, parser.cwd
        return c
    r = ReasonixParser()
    r.seen_first, r.schema_version = parser.seen_first, parser.schema_version
    return r


def _prefix_digest(path: str, length: int) -> bytes | None:
    h = hashlib.blake2b(digest_size=16)
    try:
        with open_read(path) as fh:
            remaining = length
            while remaining > 0:
                chunk = fh.read(min(remaining, 1 << 20))
                if not chunk:
                    return None
                h.update(chunk)
                remaining -= len(chunk)
    except OSError:
        return None
    return h.digest()


def _clamp(n: int, default: int, maximum: int) -> int:
    if n <= 0:
        return default
    return min(n, maximum)


def normalize_scope(scope: str | None) -> str:
    """``""`` → project; ``project`` | ``global``; ``archive`` (archives only) is our extension."""
    s = trim_space(scope or "")
    if s in ("", SOURCE_PROJECT):
        return SOURCE_PROJECT
    if s in (SOURCE_GLOBAL, SOURCE_ARCHIVE):
        return s
    raise HistoryError('scope must be "project" or "global"')


def normalize_kinds(kinds: Sequence[str] | None) -> frozenset[str]:
    """Default kinds when empty; ``unknown kind "<k>"`` for anything else."""
    if not kinds:
        return DEFAULT_KINDS
    out = set()
    for k in kinds:
        if k not in _KIND_ID:
            raise HistoryError(f"unknown kind {go_quote(str(k))}")
        out.add(k)
    return frozenset(out)


# --------------------------------------------------------------------------------------
# The on-disk cache of a one-shot process

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


# --------------------------------------------------------------------------------------
# Module-level API (warm indexes per option set)

_INDEXES: dict[HistoryOptions, HistoryIndex] = {}
_INDEXES_LOCK = threading.Lock()


def index_for(options: HistoryOptions) -> HistoryIndex:
    """The process-wide warm index for an option set."""
    with _INDEXES_LOCK:
        idx = _INDEXES.get(options)
        if idx is None:
            idx = HistoryIndex(options)
            _INDEXES[options] = idx
        return idx


def search(
    layout_or_options: Layout | HistoryOptions,
    query: str,
    scope: str = "",
    kinds: Sequence[str] | None = None,
    tool_name: str = "",
    limit: int = 0,
) -> SearchResult:
    """Search with the warm index of a layout (or explicit options)."""
    options = (
        layout_or_options
        if isinstance(layout_or_options, HistoryOptions)
        else HistoryOptions.for_layout(layout_or_options)
    )
    return index_for(options).search(query, scope, kinds, tool_name, limit)


def around(
    layout_or_options: Layout | HistoryOptions, session_path: str, message_index: int, before: int = 0, after: int = 0
) -> list[MessageContext]:
    """``around`` for a layout (or explicit options)."""
    options = (
        layout_or_options
        if isinstance(layout_or_options, HistoryOptions)
        else HistoryOptions.for_layout(layout_or_options)
    )
    return index_for(options).around(session_path, message_index, before, after)


def prewarm(layout: Layout, scope: str = SOURCE_GLOBAL) -> int:
    """Build the warm index of a layout ahead of the first call; returns live documents."""
    return index_for(HistoryOptions.for_layout(layout)).warm(scope)

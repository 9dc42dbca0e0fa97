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
from collections.abc import Iterable, Sequence
from typing import Any

from ..compat.gostr import trim_space
from ..compat.retrieval import make_snippet
from ..compat.tokenize import required_query_terms, tokens
from ..paths import Layout, abs_clean
from ..store.safeio import open_read
from .claude import ClaudeParser
from .history_cache import CachedIndex
from .history_columns import FileEntry
from .history_docs import (
    KINDS,
    MAX_SNIPPET,
    Hit,
    MessageContext,
    SearchResult,
    message_documents,
    strip_compose_prefixes,
)
from .history_options import (
    DEFAULT_LIMIT,
    KIND_ID,
    KIND_ROLE,
    MAX_LIMIT,
    SOURCE_GLOBAL,
    HistoryError,
    HistoryOptions,
    clamp_limit,
    normalize_kinds,
    normalize_scope,
)
from .history_scoring import ScoredIndex
from .history_sources import SessionSources
from .messages import FORMAT_CLAUDE, iter_json_lines
from .transcripts import (
    Parser,
    ReasonixParser,
    session_id_of,
)

__all__ = [
    "HistoryIndex",
    "search",
    "around",
    "index_for",
    "prewarm",
]


_BIG_TEXT = 8192
"""Document texts longer than this are not kept in memory; snippets re-read the line."""


class HistoryIndex(ScoredIndex, CachedIndex):
    """A warm, incrementally maintained inverted index over session transcripts.

    * Postings live in a compressed-sparse-row *base* (term id → document ids and term
      frequencies, numpy arrays) plus a small *delta* for documents added since the last
      build. A large batch (the cold start) goes straight into a rebuilt base.
    * Files are re-read only when their size or mtime changes; a file that grew with an
      unchanged prefix (an appended turn, or Reasonix's rewrite-by-rename of the same
      messages plus new ones) is read from where the last read stopped.
    * Documents of a rewritten or vanished file are tombstoned; a search masks them out,
      and the next rebuild drops them (when they pass 20% of all documents).

    Thread-safe (one lock). The roles live in their own modules: storage in
    :class:`~.history_columns.IndexColumns`, ranking in :class:`~.history_scoring.ScoredIndex`,
    the on-disk cache in :class:`~.history_cache.CachedIndex`, listing and ``around`` in
    :class:`~.history_sources.SessionSources`; this class reads transcripts into documents.
    """

    def __init__(self, options: HistoryOptions) -> None:
        super().__init__(options)
        self._sources = SessionSources(self.options)

    def sources(self, scope: str) -> list[tuple[str, str, str, os.stat_result]]:
        """``(path, source label, format, stat)`` for a scope (:meth:`.SessionSources.sources`)."""
        return self._sources.sources(scope)

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

    def forget_missing(self, listed_paths: set[str], directories: Iterable[str]) -> None:
        """Drop files under ``directories`` that are no longer listed (deleted or hidden)."""
        dirs = {abs_clean(d) for d in directories if trim_space(d)}
        with self._lock:
            if len(listed_paths) == len(self._files) and all(p in self._files for p in listed_paths):
                return
            for path, entry in list(self._files.items()):
                if not entry.alive or path in listed_paths:
                    continue
                if abs_clean(os.path.dirname(path)) in dirs:
                    self._kill(entry)
                    del self._files[path]
            self._maybe_rebuild()

    def _update_file(self, path: str, fmt: str, st: os.stat_result, entry: FileEntry | None) -> None:
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
            entry = FileEntry(fid=len(self._file_by_id), path=path, fmt=fmt)
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

    def _read_from(self, entry: FileEntry) -> None:
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

    def _index_line(self, entry: FileEntry, line: Any, commit: bool, batch: list[list[str]]) -> str:
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
                self._doc_kind.append(KIND_ID[doc.kind])
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
                            KIND_ID[doc.kind],
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
            role=KIND_ROLE[self._doc_kind[did]],
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
        q, terms = required_query_terms(query, HistoryError)
        scope = normalize_scope(scope)
        lim = clamp_limit(limit, DEFAULT_LIMIT, MAX_LIMIT)
        kind_set = normalize_kinds(kinds)
        tool = trim_space(tool_name)
        with self._lock:
            listed = self.sources(scope)
            self.refresh(listed)
            self.forget_missing({p for p, _, _, _ in listed}, self._sources.scope_dirs(scope))
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
            self.forget_missing({p for p, _, _, _ in listed}, self._sources.scope_dirs(scope))
            return self.document_count

    def around(self, session_path: str, message_index: int, before: int = 0, after: int = 0) -> list[MessageContext]:
        """Reasonix ``Searcher.Around`` (with the same error texts)."""
        return self._sources.around(session_path, message_index, before, after)


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

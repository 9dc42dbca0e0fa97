"""A persistent index for one-shot ``memory search``: start from disk, not from every fact.

A one-shot ``reasonix-tui memory search`` used to load every fact (the parse cache),
tokenize every fact's search text and build a BM25 index before answering — about a
second at 10k facts. :func:`search_from_disk` keeps that index on disk instead, next to
the parse cache (``<root>/reasonix-tui/cache/search-<digest>.sealed``):

* **sealed** like the other caches (:mod:`~reasonix_tui.core.store.sealed`: magic,
  SHA-256, marshal; atomic, mode 0600) and **versioned** with the source of the
  tokenizer and of this module (changed code discards it);
* **validated without reading a fact**: one ``stat`` per fact file (a folder listing in
  the store's own order), compared with the stat keys the index was built from;
* **updated incrementally**: when a few files changed, only those are read and tokenized,
  their rows replaced, and the file written back; many changes (or none of the file)
  rebuild it from the store's snapshot.

The index holds, per indexed fact, its file, stat key, name, scope and id (the tie-break
of equal scores) and its term frequencies (one CSR matrix: row offsets, term ids,
counts). A query decodes only its own terms' postings, scores them exactly as
:class:`~.index.PoolBM25` does (Reasonix idf, same floating-point order), and reads only
the hit files to print them. The answer is the one :func:`~.search.search_memories`
gives on the store's snapshot (``tests/test_search_index.py``).

Filtered searches (``--type``/``--scope``: BM25 statistics of the filtered set) and
anything the index cannot vouch for take the full path.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat as stat_mod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import tokenize as _tokenize
from ..bm25 import B, K1
from ..gostr import trim_space
from ..store.index_md import INDEX_NAME
from ..store.cache import stat_key
from ..store.sealed import read_sealed, source_stamp, write_sealed
from ..store.store import read_fact_file
from ..tokenize import query_terms, tokens
from .index import KP1
from .search import SEARCH_FLOOR, SEARCH_SNIPPET, SearchHit, clamp_limit, search_memories, search_text
from ..retrieval import make_snippet

if TYPE_CHECKING:
    from ..store.model import Fact
    from ..store.store import Store

__all__ = ["search_from_disk", "index_path", "SearchIndexFile"]

MAGIC = b"RXTUI-SEARCH-INDEX\n"
VERSION = source_stamp(_tokenize.__file__, __file__) + ":1"
INCREMENTAL_SHARE = 0.2
"""At most this share of the files changed: patch the index; more: rebuild it."""


def index_path(store: Store) -> str:
    """Where the index of this store's pair of fact folders lives."""
    folders = "\0".join(str(d) for _scope, d in store._dirs())  # noqa: SLF001 - the store's own folder order
    digest = hashlib.sha256(os.fsencode(folders)).hexdigest()[:24]
    return os.path.join(str(store.layout.cache_dir), f"search-{digest}.sealed")


@dataclass
class _Listing:
    """The fact files of both folders now: paths in the store's scan order, their scopes
    and stat keys (``None`` when a file needs the store's full rules: a symlink, an
    unreadable entry, a folder that is not a directory)."""

    paths: list[str]
    scopes: list[str]
    keys: list[tuple[int, int, int, int]]


def _listing(store: Store) -> _Listing | None:
    """One ``stat`` per fact file, no open, no parse (``None``: ask the store instead)."""
    paths: list[str] = []
    scopes: list[str] = []
    keys: list[tuple[int, int, int, int]] = []
    for scope, directory in store._dirs():  # noqa: SLF001
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name.encode("utf-8", "surrogateescape"))
        except FileNotFoundError:
            continue
        except OSError:
            return None
        for entry in entries:
            name = entry.name
            if not name.endswith(".md") or name == INDEX_NAME:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return None
            if stat_mod.S_ISDIR(st.st_mode):
                continue
            if not stat_mod.S_ISREG(st.st_mode):
                return None  # a symlink or a special file: the store's own rules decide
            paths.append(entry.path)
            scopes.append(scope)
            keys.append(stat_key(st))
    return _Listing(paths, scopes, keys)


class SearchIndexFile:
    """The on-disk search index (see the module doc)."""

    def __init__(self, files: list[str], keys: list[tuple[int, int, int, int]], rows: list[int],
                 names: list[str], scopes: list[str], ids: list[str], terms: list[str],
                 offsets: np.ndarray, term_ids: np.ndarray, counts: np.ndarray) -> None:
        self.files = files
        """Every fact file the index was built from, in scan order."""
        self.keys = keys
        """Their stat keys."""
        self.rows = rows
        """File → row of the index (``-1``: the fact has no searchable token)."""
        self.names, self.scopes, self.ids = names, scopes, ids
        """Per row: the fact's name, scope and id (the order of equal scores)."""
        self.row_files: list[int] = [0] * len(names)
        for f, r in enumerate(rows):
            if r >= 0:
                self.row_files[r] = f
        self.terms = terms
        self.offsets, self.term_ids, self.counts = offsets, term_ids, counts

    # ------------------------------------------------------------------ disk

    @classmethod
    def load(cls, path: str, folders: str) -> SearchIndexFile | None:
        data = read_sealed(path, MAGIC)
        try:
            if type(data) is not tuple or len(data) != 12 or data[0] != VERSION or data[1] != folders:
                return None
            _, _, files, keys, rows, names, scopes, ids, terms, offsets, term_ids, counts = data
            out = cls(files, keys, rows, names, scopes, ids, terms, np.frombuffer(offsets, dtype=np.int64),
                      np.frombuffer(term_ids, dtype=np.int32), np.frombuffer(counts, dtype=np.int32))
        except (TypeError, ValueError):
            return None
        n = len(names)
        if not (len(files) == len(keys) == len(rows) and len(scopes) == len(ids) == n
                and len(out.offsets) == n + 1 and len(out.term_ids) == len(out.counts) == int(out.offsets[-1])):
            return None
        return out

    def save(self, path: str, folders: str) -> None:
        """Write it sealed and atomically (mode 0600); a failure only costs the next run."""
        try:
            write_sealed(path, MAGIC, (VERSION, folders, self.files, self.keys, self.rows, self.names, self.scopes,
                                       self.ids, self.terms, self.offsets.astype(np.int64).tobytes(),
                                       self.term_ids.astype(np.int32).tobytes(),
                                       self.counts.astype(np.int32).tobytes()))
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------------ building

    @classmethod
    def build(cls, listing: _Listing, facts: dict[str, Fact]) -> SearchIndexFile:
        """From every fact of the listing (``facts``: file → fact)."""
        docs: list[tuple[tuple[str, str, str, int], str, Fact, list[str]]] = []
        rows = [-1] * len(listing.paths)
        for f, path in enumerate(listing.paths):
            fact = facts[path]
            toks = tokens(search_text(fact))
            if toks:
                docs.append(((fact.name, fact.scope, fact.id, f), path, fact, toks))
        # ListAll order (name, scope, id), stable for exact duplicates: the tie-break of
        # search_memories, so equal scores come out in the same order.
        docs.sort(key=lambda d: d[0])
        term_index: dict[str, int] = {}
        offsets = [0]
        term_ids: list[int] = []
        counts: list[int] = []
        names, scopes, ids = [], [], []
        for r, (key, _path, fact, toks) in enumerate(docs):
            rows[key[3]] = r
            freqs: dict[str, int] = {}
            for t in toks:
                freqs[t] = freqs.get(t, 0) + 1
            for t, c in freqs.items():
                tid = term_index.get(t)
                if tid is None:
                    tid = term_index[t] = len(term_index)
                term_ids.append(tid)
                counts.append(c)
            offsets.append(len(term_ids))
            names.append(fact.name)
            scopes.append(fact.scope)
            ids.append(str(fact.id))
        return cls(list(listing.paths), list(listing.keys), rows, names, scopes, ids, list(term_index),
                   np.asarray(offsets, dtype=np.int64), np.asarray(term_ids, dtype=np.int32),
                   np.asarray(counts, dtype=np.int32))

    def patched(self, listing: _Listing, read: dict[str, Fact]) -> SearchIndexFile:
        """This index with the rows of changed, new and removed files replaced (``read``:
        the changed and new files, parsed); unchanged rows are copied as arrays."""
        kept_rows = [r for f, r in enumerate(self.rows) if r >= 0 and self.files[f] not in read]
        live = set(listing.paths)
        kept_rows = [r for r in kept_rows if self.files[self.row_files[r]] in live]
        facts: dict[str, tuple[tuple[str, str, str], dict[str, int]] | None] = {}
        for path, fact in read.items():
            toks = tokens(search_text(fact))
            if not toks:
                facts[path] = None
                continue
            freqs: dict[str, int] = {}
            for t in toks:
                freqs[t] = freqs.get(t, 0) + 1
            facts[path] = ((fact.name, fact.scope, str(fact.id)), freqs)
        position = {p: f for f, p in enumerate(listing.paths)}
        # (order key, source): a kept row of this index, or a freshly read file
        order: list[tuple[tuple[str, str, str, int], int, str]] = [
            ((self.names[r], self.scopes[r], self.ids[r], position[self.files[self.row_files[r]]]), r, "")
            for r in kept_rows
        ]
        order += [((v[0][0], v[0][1], v[0][2], position[p]), -1, p) for p, v in facts.items() if v is not None]
        order.sort(key=lambda o: o[0])
        terms = list(self.terms)
        term_index: dict[str, int] | None = None
        pieces_ids: list[np.ndarray] = []
        pieces_counts: list[np.ndarray] = []
        lengths: list[int] = []
        rows = [-1] * len(listing.paths)
        names, scopes, ids = [], [], []
        for new_row, (key, old_row, path) in enumerate(order):
            rows[key[3]] = new_row
            names.append(key[0])
            scopes.append(key[1])
            ids.append(key[2])
            if old_row >= 0:
                a, b = int(self.offsets[old_row]), int(self.offsets[old_row + 1])
                pieces_ids.append(self.term_ids[a:b])
                pieces_counts.append(self.counts[a:b])
                lengths.append(b - a)
                continue
            if term_index is None:
                term_index = {t: i for i, t in enumerate(terms)}
            freqs = facts[path][1]  # type: ignore[index]
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
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        empty = np.zeros(0, dtype=np.int32)
        return SearchIndexFile(list(listing.paths), list(listing.keys), rows, names, scopes, ids, terms, offsets,
                               np.concatenate(pieces_ids) if pieces_ids else empty,
                               np.concatenate(pieces_counts) if pieces_counts else empty)

    # ------------------------------------------------------------------ query

    def score(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, scores)`` of every row matching a term, summed in query order exactly as
        :meth:`.index.PoolBM25.accumulate` does."""
        n = len(self.names)
        if n == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        doc_len = (np.add.reduceat(self.counts, self.offsets[:-1]) if len(self.counts) else np.zeros(n)).astype(float)
        avgdl = float(int(doc_len.sum())) / n  # rank-bm25: total tokens / corpus size
        if avgdl <= 0:
            avgdl = 1.0
        norm = K1 * ((1 - B) + (B * doc_len) / avgdl)
        score = np.zeros(n)
        count = np.zeros(n, dtype=np.int32)
        for term in terms:
            try:
                tid = self.terms.index(term)
            except ValueError:
                continue
            where = np.flatnonzero(self.term_ids == tid)
            if where.size == 0:
                continue
            idx = np.searchsorted(self.offsets, where, side="right") - 1
            tf = self.counts[where].astype(float)
            df = int(where.size)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            score[idx] += (float(idf) * (tf * KP1)) / (tf + norm[idx])
            count[idx] += 1
        rows = np.flatnonzero((count > 0) & (score > 0))
        return rows, score[rows]


def _rank(index: SearchIndexFile, terms: Sequence[str], limit: int) -> list[tuple[float, int]]:
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


def _current_index(store: Store, listing: _Listing, path: str, folders: str) -> SearchIndexFile | None:
    """The index for ``listing``: loaded as is, patched, or rebuilt (and written back)."""
    index = SearchIndexFile.load(path, folders)
    if index is not None and index.files == listing.paths and index.keys == listing.keys:
        return index
    if index is not None:
        known = dict(zip(index.files, index.keys))
        changed = [(p, s) for p, s, k in zip(listing.paths, listing.scopes, listing.keys) if known.get(p) != k]
        removed = len(known.keys() - set(listing.paths))
        if len(changed) + removed <= max(8, int(INCREMENTAL_SHARE * len(listing.paths))):
            read: dict[str, Fact] = {}
            for p, scope in changed:
                try:
                    fact = read_fact_file(p, scope)
                except OSError:
                    return None
                read[p] = fact
            fresh = index.patched(listing, read)
            if _stat_keys(listing.paths) != listing.keys:
                return None  # a file changed while we read it: the full path decides
            fresh.save(path, folders)
            return fresh
    facts = {f.path: f for f in store.snapshot().facts}
    if set(facts) != set(listing.paths) or _stat_keys(listing.paths) != listing.keys:
        return None  # the store saw something else (a race, a parse-cache quirk): full path
    fresh = SearchIndexFile.build(listing, facts)
    fresh.save(path, folders)
    return fresh


def _stat_keys(paths: list[str]) -> list[tuple[int, int, int, int]] | None:
    out = []
    for p in paths:
        try:
            out.append(stat_key(os.stat(p, follow_symlinks=False)))
        except OSError:
            return None
    return out


def search_from_disk(store: Store, query: str, *, type_: str = "", scope: str = "",
                     limit: int = 0) -> list[SearchHit]:
    """What :func:`~.search.search_memories` returns on ``store.snapshot().facts``, from the
    on-disk index when it can vouch for the answer (else exactly that call)."""

    def full() -> list[SearchHit]:
        return search_memories(store.snapshot().facts, query, type_=type_, scope=scope, limit=limit)

    q = trim_space(query)
    terms = query_terms(q) if q else []
    listing = _listing(store) if terms and not type_ and not scope else None
    if listing is None:
        return full()  # filters, errors (an empty query…) and odd folders: the full path's own answer
    folders = "\0".join(str(d) for _s, d in store._dirs())  # noqa: SLF001
    index = _current_index(store, listing, index_path(store), folders)
    if index is None:
        return full()
    hits: list[SearchHit] = []
    for score, row in _rank(index, terms, clamp_limit(limit)):
        f = index.row_files[row]
        path = index.files[f]
        try:
            fact = read_fact_file(path, listing.scopes[f])
            same = stat_key(os.stat(path, follow_symlinks=False)) == listing.keys[f]
        except OSError:
            return full()
        if not same:
            return full()  # it changed under us
        hits.append(SearchHit(fact, score, make_snippet(search_text(fact), q, terms, SEARCH_SNIPPET)))
    return hits

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
import os
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..compat import tokenize as _tokenize
from ..compat.gostr import trim_space
from ..compat.retrieval import make_snippet
from ..compat.tokenize import query_terms, tokens
from ..store.cache import stat_key
from ..store.scan import read_fact_file
from ..store.sealed import read_sealed, source_stamp, write_sealed
from . import term_matrix as _term_matrix
from .listing import Listing, list_fact_files, stat_keys
from .memory_tool import SEARCH_SNIPPET, SearchHit, clamp_limit, search_memories
from .pool import list_all_order
from .term_matrix import INCREMENTAL_SHARE, TermMatrix, rank, search_text, seed_warm, term_freqs

if TYPE_CHECKING:
    from ..store.live import LiveStore
    from ..store.model import Fact
    from ..store.store import Store

__all__ = [
    "search_from_disk",
    "index_path",
    "SearchIndexFile",
    "seed_from_disk",
]

MAGIC = b"RXTUI-SEARCH-INDEX\n"
VERSION = source_stamp(_tokenize.__file__, _term_matrix.__file__, __file__) + ":2"


def index_path(store: Store) -> str:
    """Where the index of this store's pair of fact folders lives."""
    folders = "\0".join(str(d) for _scope, d in store._dirs())  # noqa: SLF001 - the store's own folder order
    digest = hashlib.sha256(os.fsencode(folders)).hexdigest()[:24]
    return os.path.join(str(store.layout.cache_dir), f"search-{digest}.sealed")


class SearchIndexFile:
    """The on-disk search index (see the module doc): a :class:`TermMatrix` plus the fact
    files it was built from and their stat keys."""

    def __init__(
        self, files: list[str], keys: list[tuple[int, int, int, int]], rows: list[int], matrix: TermMatrix
    ) -> None:
        self.files = files
        """Every fact file the index was built from, in scan order."""
        self.keys = keys
        """Their stat keys."""
        self.rows = rows
        """File → row of the matrix (``-1``: the fact has no searchable token)."""
        self.matrix = matrix
        self.row_files: list[int] = [0] * len(matrix.names)
        for f, r in enumerate(rows):
            if r >= 0:
                self.row_files[r] = f
        self.labels: dict[int, tuple[str, int]] | None = None
        """Enhanced mode: file → (why it is superseded, the file of the current fact), from the
        subject/topic resolver over every fact; ``None`` until computed for these files."""

    # ------------------------------------------------------------------ disk

    @classmethod
    def load(cls, path: str, folders: str) -> SearchIndexFile | None:
        data = read_sealed(path, MAGIC)
        try:
            if type(data) is not tuple or len(data) != 13 or data[0] != VERSION or data[1] != folders:
                return None
            _, _, files, keys, rows, names, scopes, ids, terms, offsets, term_ids, counts, labels = data
            matrix = TermMatrix(
                names,
                scopes,
                ids,
                terms,
                np.frombuffer(offsets, dtype=np.int64),
                np.frombuffer(term_ids, dtype=np.int32),
                np.frombuffer(counts, dtype=np.int32),
            )
        except (TypeError, ValueError):
            return None
        n = len(names)
        if not (
            len(files) == len(keys) == len(rows)
            and len(scopes) == len(ids) == n
            and len(matrix.offsets) == n + 1
            and len(matrix.term_ids) == len(matrix.counts) == int(matrix.offsets[-1])
        ):
            return None
        out = cls(files, keys, rows, matrix)
        if labels is not None:
            if type(labels) is not dict or any(
                type(k) is not int
                or type(v) is not tuple
                or len(v) != 2
                or type(v[0]) is not str
                or type(v[1]) is not int
                or not (0 <= k < len(files) and 0 <= v[1] < len(files))
                for k, v in labels.items()
            ):
                return None
            out.labels = labels
        return out

    def save(self, path: str, folders: str) -> None:
        """Write it sealed and atomically (mode 0600); a failure only costs the next run."""
        m = self.matrix
        try:
            write_sealed(
                path,
                MAGIC,
                (
                    VERSION,
                    folders,
                    self.files,
                    self.keys,
                    self.rows,
                    m.names,
                    m.scopes,
                    m.ids,
                    m.terms,
                    m.offsets.astype(np.int64).tobytes(),
                    m.term_ids.astype(np.int32).tobytes(),
                    m.counts.astype(np.int32).tobytes(),
                    self.labels,
                ),
            )
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------------ building

    @classmethod
    def build(cls, listing: Listing, facts: dict[str, Fact]) -> SearchIndexFile:
        """From every fact of the listing (``facts``: file → fact)."""
        docs: list[tuple[tuple[str, str, str, int], dict[str, int]]] = []
        for f, path in enumerate(listing.paths):
            fact = facts[path]
            toks = tokens(search_text(fact))
            if toks:
                docs.append(((fact.name, fact.scope, str(fact.id), f), term_freqs(toks)))
        # ListAll order (name, scope, id), stable for exact duplicates: the tie-break of
        # search_memories, so equal scores come out in the same order.
        docs.sort(key=lambda d: d[0])
        rows = [-1] * len(listing.paths)
        for r, (key, _freq) in enumerate(docs):
            rows[key[3]] = r
        matrix = TermMatrix.build([(k[:3], fr) for k, fr in docs])
        return cls(list(listing.paths), list(listing.keys), rows, matrix)

    def patched(self, listing: Listing, read: dict[str, Fact]) -> SearchIndexFile:
        """This index with the rows of changed, new and removed files replaced (``read``:
        the changed and new files, parsed); unchanged rows are copied as arrays."""
        m = self.matrix
        live = set(listing.paths)
        position = {p: f for f, p in enumerate(listing.paths)}
        order: list[tuple[tuple[str, str, str, int], int, dict[str, int] | None, str]] = []
        for r in range(len(m.names)):
            path = self.files[self.row_files[r]]
            if path in live and path not in read:
                order.append(((m.names[r], m.scopes[r], m.ids[r], position[path]), r, None, path))
        for path, fact in read.items():
            toks = tokens(search_text(fact))
            if toks:
                order.append(((fact.name, fact.scope, str(fact.id), position[path]), -1, term_freqs(toks), path))
        order.sort(key=lambda o: o[0])
        rows = [-1] * len(listing.paths)
        for new_row, (key, _r, _fr, _p) in enumerate(order):
            rows[key[3]] = new_row
        matrix = m.patched([(k[:3], r, fr) for k, r, fr, _p in order])
        return SearchIndexFile(list(listing.paths), list(listing.keys), rows, matrix)


def seed_from_disk(store: LiveStore) -> bool:
    """Start a long-lived process's warm search from the on-disk index when it was built
    from exactly the files the store holds now (same paths, same stat keys, same row
    order): the first search then costs a file read, not tokenizing every fact."""
    snap, files = store.fact_files()
    folders = "\0".join(str(d) for _s, d in store._dirs())  # noqa: SLF001
    index = SearchIndexFile.load(index_path(store), folders)
    if index is None or len(index.files) != len(files):
        return False
    if any(files.get(p, ("", None))[1] != k for p, k in zip(index.files, index.keys)):
        return False
    by_path = {f.path: f for f in snap.facts}
    try:
        row_facts = [by_path[index.files[f]] for f in index.row_files]
    except KeyError:
        return False
    all_facts = list_all_order(snap.facts)
    indexed = {id(f) for f in row_facts}
    if [f for f in all_facts if id(f) in indexed] != row_facts:
        return False  # another order of exact duplicates: build afresh
    seed_warm(snap.facts, all_facts, index.matrix, row_facts)
    return True


def _labels(index: SearchIndexFile, facts: Sequence[Fact]) -> dict[int, tuple[str, int]]:
    """What enhanced search says of each superseded fact, by file (the resolver over every
    fact in ListAll order, as :func:`~.search.search_memories` runs it)."""
    from ..resolve import resolve

    all_facts = list_all_order(facts)
    res = resolve(all_facts)
    position = {p: f for f, p in enumerate(index.files)}
    out: dict[int, tuple[str, int]] = {}
    for fact in all_facts:
        sup = res.of(fact)
        if sup is not None:
            out[position[fact.path]] = (sup.label, position[res.current(fact).path])
    return out


def _snapshot_facts(store: Store, listing: Listing) -> dict[str, Fact] | None:
    """Every fact of the store by file, when the store reads exactly the listed files."""
    facts = {f.path: f for f in store.snapshot().facts}
    if set(facts) != set(listing.paths) or stat_keys(listing.paths) != listing.keys:
        return None  # the store saw something else (a race, a parse-cache quirk): full path
    return facts


def _relabel(store: Store, listing: Listing, index: SearchIndexFile) -> bool:
    """Compute ``index``'s resolver labels again from every fact of the store; ``False``
    (nothing set) when the store reads other files than ``listing``."""
    facts = _snapshot_facts(store, listing)
    if facts is None:
        return False
    index.labels = _labels(index, list(facts.values()))
    return True


def _current_index(
    store: Store, listing: Listing, path: str, folders: str, resolved: bool = False
) -> SearchIndexFile | None:
    """The index for ``listing``: loaded as is, patched, or rebuilt (and written back).
    ``resolved`` also needs the resolver's labels: they are kept with the index and computed
    again, from every fact, only when the files changed."""
    index = SearchIndexFile.load(path, folders)
    if index is not None and index.files == listing.paths and index.keys == listing.keys:
        if resolved and index.labels is None:
            if not _relabel(store, listing, index):
                return None
            index.save(path, folders)
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
            if stat_keys(listing.paths) != listing.keys:
                return None  # a file changed while we read it: the full path decides
            # which facts supersede which can change with any fact: ask the resolver again
            if resolved and not _relabel(store, listing, fresh):
                return None
            fresh.save(path, folders)
            return fresh
    facts = _snapshot_facts(store, listing)
    if facts is None:
        return None
    fresh = SearchIndexFile.build(listing, facts)
    if resolved:
        fresh.labels = _labels(fresh, list(facts.values()))
    fresh.save(path, folders)
    return fresh


def search_from_disk(
    store: Store, query: str, *, type_: str = "", scope: str = "", limit: int = 0, resolved: bool = False
) -> list[SearchHit]:
    """What :func:`~.search.search_memories` returns on ``store.snapshot().facts``, from the
    on-disk index when it can vouch for the answer (else exactly that call)."""

    def full() -> list[SearchHit]:
        return search_memories(store.snapshot().facts, query, type_=type_, scope=scope, limit=limit, resolved=resolved)

    q = trim_space(query)
    terms = query_terms(q) if q else []
    listing = list_fact_files(store) if terms and not type_ and not scope else None
    if listing is None:
        return full()  # filters, errors (an empty query…) and odd folders: the full path's own answer
    folders = "\0".join(str(d) for _s, d in store._dirs())  # noqa: SLF001
    index = _current_index(store, listing, index_path(store), folders, resolved)
    if index is None:
        return full()
    limit = clamp_limit(limit)

    def hit(f: int, score: float) -> SearchHit | None:
        path = index.files[f]
        try:
            fact = read_fact_file(path, listing.scopes[f])
            same = stat_key(os.stat(path, follow_symlinks=False)) == listing.keys[f]
        except OSError:
            return None
        return SearchHit(fact, score, make_snippet(search_text(fact), q, terms, SEARCH_SNIPPET)) if same else None

    found: list[tuple[int, SearchHit]] = []
    for score, row in rank(index.matrix, terms, limit):
        f = index.row_files[row]
        h = hit(f, score)
        if h is None:
            return full()  # it changed under us
        found.append((f, h))
    if not (resolved and found):
        return [h for _f, h in found]
    # search_memories' labelling (_label_superseded), by file instead of by fact object
    labels = index.labels or {}
    listed = {f for f, _h in found}
    out: list[SearchHit] = []
    placed: set[int] = set()
    for f, h in found:
        label = labels.get(f)
        if label is None:
            if f not in placed:
                out.append(h)
                placed.add(f)
            continue
        why, cur = label
        if cur not in placed:
            current = next((x for g, x in found if g == cur), None)
            if current is None and cur not in listed:
                current = hit(cur, h.score)
                if current is None:
                    return full()
            if current is not None:
                out.append(current)
                placed.add(cur)
        out.append(replace(h, superseded=why))
        placed.add(f)
    return out[: max(limit, len(found))]

"""A persistent index for one-shot ``memory search``: start from disk, not from every fact.

A one-shot ``reasonix-tui memory search`` used to load every fact (the parse cache),
tokenize every fact's search text and build a BM25 index before answering — about a
second at 10k facts. :func:`search_from_disk` keeps that index on disk instead, next to
the parse cache (``<root>/reasonix-tui/cache/search-<digest>.sealed``):

* **sectioned** like the recall index (:mod:`~reasonix_tui.core.store.sectioned`: a
  sealed header, sections with a SHA-256 per 64 KiB chunk, read with ``pread``; atomic,
  mode 0600) and **versioned** with the source of the tokenizer, the term matrix, the
  section reader and this module (changed code discards it);
* **validated without reading a fact**: one ``stat`` per fact file (a folder listing in
  the store's own order), its digest compared with the one the index was built from;
* **updated incrementally**: when a few files changed, only those are read and tokenized,
  their rows replaced, and the file written back; many changes (or none of the file)
  rebuild it from the store's snapshot.

The index holds, per indexed fact, its file, stat key, name, scope and id (the tie-break
of equal scores) and its term frequencies **by term** (sorted vocabulary, each term's rows
and counts, every row's length norm). A query that finds the index current
(:class:`StoredSearchIndex`) reads only its own terms' posting lists, with the recall
index's reader (:class:`~.disk_sections.TermPostings`), scores them exactly as
:class:`~.index.PoolBM25` does (Reasonix idf, same floating-point order), and reads only
the hit files to print them; a chunk that does not match its digest drops the file and the
store answers. Patching reads the file whole. The answer is the one
:func:`~.search.search_memories` gives on the store's snapshot
(``tests/test_search_index.py``, ``tests/test_search_index_sections.py``).

Filtered searches (``--type``/``--scope``: BM25 statistics of the filtered set) and
anything the index cannot vouch for take the full path.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..compat import tokenize as _tokenize
from ..compat.gostr import trim_space
from ..compat.retrieval import make_snippet
from ..compat.tokenize import query_terms, tokens
from ..store.cache import stat_key
from ..store.scan import read_fact_file
from ..store.sealed import collector_paused, source_stamp
from ..store.sectioned import Damaged, Sectioned, discarder, open_sectioned, write_sectioned
from . import disk_sections as _disk_sections
from . import term_matrix as _term_matrix
from .disk_sections import TermPostings, Vocab, vocab_sections
from .listing import Listing, list_fact_files, stat_keys
from .memory_tool import SEARCH_SNIPPET, SearchHit, clamp_limit, search_memories
from .pool import list_all_order
from .term_matrix import (
    INCREMENTAL_SHARE,
    SEARCH_FLOOR,
    TermMatrix,
    doc_norms,
    rank,
    search_text,
    seed_warm,
    term_freqs,
)

if TYPE_CHECKING:
    from ..store.live import LiveStore
    from ..store.model import Fact
    from ..store.store import Store

__all__ = [
    "search_from_disk",
    "index_path",
    "SearchIndexFile",
    "StoredSearchIndex",
    "seed_from_disk",
]

MAGIC = b"RXTUI-SEARCH-SECTIONS\n"
VERSION = source_stamp(_tokenize.__file__, _term_matrix.__file__, _disk_sections.__file__, __file__) + ":3"


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
        """The whole index (to patch it, or to seed a long-lived process's warm search):
        every section read and checked; ``None`` when the file is missing, damaged or from
        other code. Which files it was built from is not checked here (the caller compares)."""
        sec = _open(path, folders)
        if sec is None:
            return None
        try:
            return cls._from_sections(sec)
        except (Damaged, KeyError, TypeError, ValueError, IndexError):
            return None
        finally:
            sec.close()

    @classmethod
    def _from_sections(cls, sec: Sectioned) -> SearchIndexFile | None:
        head = sec.header[3]
        n, n_files = int(head["rows"]), int(head["files"])
        files = list(Vocab(sec, "files"))
        keys = [(int(a), int(b), int(c), int(d)) for a, b, c, d in sec.array("keys", np.int64).reshape(-1, 4).tolist()]
        rows = sec.array("rows", np.int32).tolist()
        names, scopes, ids = list(Vocab(sec, "names")), list(Vocab(sec, "scopes")), list(Vocab(sec, "ids"))
        terms = list(Vocab(sec, "terms"))
        starts = sec.array("bt_start", np.int64)
        docs = sec.array("bt_docs", np.int32)
        counts = sec.array("bt_counts", np.int32)
        if not (
            len(files) == len(keys) == len(rows) == n_files
            and len(names) == len(scopes) == len(ids) == n
            and len(starts) == len(terms) + 1
            and len(docs) == len(counts) == int(starts[-1])
        ):
            return None
        # the by-term postings back to rows (CSR): each row's terms in vocabulary order
        term_of = np.repeat(np.arange(len(terms), dtype=np.int32), np.diff(starts))
        order = np.argsort(docs, kind="stable")
        offsets = np.zeros(n + 1, dtype=np.int64)
        if n:
            np.cumsum(np.bincount(docs, minlength=n), out=offsets[1:])
        matrix = TermMatrix(names, scopes, ids, terms, offsets, term_of[order], counts[order].astype(np.int32))
        out = cls(files, keys, rows, matrix)
        if head["labels"]:
            labels = _read_labels(sec, n_files)
            if labels is None:
                return None
            out.labels = labels
        return out

    def save(self, path: str, folders: str, digest: bytes) -> None:
        """Write it (sections, atomically, mode 0600); a failure only costs the next run.
        ``digest``: :meth:`.listing.Listing.digest` of the files it was built from."""
        m = self.matrix
        n = len(m.names)
        sections: dict[str, bytes] = {}
        sections.update(vocab_sections("files", self.files))
        sections["keys"] = np.asarray(self.keys, dtype=np.int64).reshape(-1, 4).tobytes()
        sections["rows"] = np.asarray(self.rows, dtype=np.int32).tobytes()
        sections["row_files"] = np.asarray(self.row_files, dtype=np.int32).tobytes()
        for name, values in (("names", m.names), ("scopes", m.scopes), ("ids", m.ids)):
            sections.update(vocab_sections(name, values))
        # kept by term (terms sorted, each term's rows in row order, with every row's length
        # norm): a query reads its own terms' rows and counts, as the recall index does
        order = sorted(range(len(m.terms)), key=m.terms.__getitem__)
        rank_of = np.empty(len(m.terms), dtype=np.int64)
        rank_of[order] = np.arange(len(m.terms), dtype=np.int64)
        docs = np.repeat(np.arange(n, dtype=np.int32), np.diff(m.offsets)) if n else np.zeros(0, dtype=np.int32)
        key = rank_of[m.term_ids] if len(m.term_ids) else np.zeros(0, dtype=np.int64)
        perm = np.argsort(key, kind="stable")
        starts = np.zeros(len(m.terms) + 1, dtype=np.int64)
        np.cumsum(np.bincount(key, minlength=len(m.terms)), out=starts[1:])
        sections.update(vocab_sections("terms", [m.terms[i] for i in order]))
        sections["bt_start"] = starts.tobytes()
        sections["bt_docs"] = docs[perm].astype(np.int32).tobytes()
        sections["bt_counts"] = m.counts[perm].astype(np.int32).tobytes()
        sections["bt_norm"] = doc_norms(m.offsets, m.counts, n).tobytes() if n else b""
        if self.labels is not None:
            sections["labels"] = marshal.dumps(self.labels, 4)
        head = {"rows": n, "files": len(self.files), "labels": self.labels is not None}
        try:
            write_sectioned(path, MAGIC, (VERSION, folders, digest, head), sections)
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


def _open(path: str, folders: str) -> Sectioned | None:
    """The index file's header checked (this code's, these folders'); a section that does
    not match its digests later removes the file (the next run writes it again)."""
    sec = open_sectioned(path, MAGIC, Damaged, discarder(path))
    if sec is None:
        return None
    head = sec.header
    if (
        type(head) is not tuple
        or len(head) != 4
        or head[0] != VERSION
        or head[1] != folders
        or type(head[2]) is not bytes
        or type(head[3]) is not dict
    ):
        sec.close()
        return None
    return sec


def _read_labels(sec: Sectioned, n_files: int) -> dict[int, tuple[str, int]] | None:
    with collector_paused():
        try:
            labels = marshal.loads(sec.raw("labels"))
        except (EOFError, ValueError, TypeError):
            return None
    if type(labels) is not dict or any(
        type(k) is not int
        or type(v) is not tuple
        or len(v) != 2
        or type(v[0]) is not str
        or type(v[1]) is not int
        or not (0 <= k < n_files and 0 <= v[1] < n_files)
        for k, v in labels.items()
    ):
        return None
    return labels


class StoredSearchIndex:
    """The index file as a query reads it when it was built from exactly the listed files
    (the listing's digest is in its header): the query's own terms' postings by offset
    (:class:`~.disk_sections.TermPostings`, the recall index's reader), the hit rows'
    files, and — enhanced mode — the resolver's labels. A chunk that does not match its
    digest raises :class:`~reasonix_tui.core.store.sectioned.Damaged`."""

    def __init__(self, sec: Sectioned) -> None:
        self._sec = sec
        head = sec.header[3]
        self.size = int(head["rows"])
        self._files = int(head["files"])
        self.has_labels = bool(head["labels"])
        self._postings = TermPostings(sec, Vocab(sec, "terms"), self.size)

    @classmethod
    def open(cls, path: str, folders: str, listing: Listing, resolved: bool) -> StoredSearchIndex | None:
        sec = _open(path, folders)
        if sec is None:
            return None
        try:
            if sec.header[2] == listing.digest() and sec.header[3]["files"] == len(listing):
                index = cls(sec)
                if index.has_labels or not resolved:
                    return index
        except (Damaged, KeyError, TypeError, ValueError):
            pass
        sec.close()
        return None

    def close(self) -> None:
        self._sec.close()

    def ranked(self, terms: Sequence[str], limit: int) -> list[tuple[float, int]]:
        """:func:`~.term_matrix.rank`'s answer: rows are in ListAll order (name, scope, id,
        then file), so equal scores are ordered by row."""
        score, _count, _rows = self._postings.accumulate(terms)
        rows = np.flatnonzero(score > 0)
        return _ordered(rows, score[rows], limit)

    def row_file(self, row: int) -> int:
        return int(self._sec.part("row_files", np.int32, row, row + 1)[0])

    def labels(self) -> dict[int, tuple[str, int]]:
        got = _read_labels(self._sec, self._files)
        if got is None:
            raise Damaged("labels")
        return got


def _ordered(rows: np.ndarray, values: np.ndarray, limit: int) -> list[tuple[float, int]]:
    """:func:`~.term_matrix.rank` over rows whose order is the tie-break."""
    if rows.size > limit:
        keep = values >= np.partition(values, -limit)[-limit]
        rows, values = rows[keep], values[keep]
    scored = sorted(zip(values.tolist(), rows.tolist()), key=lambda p: (-p[0], p[1]))
    if scored and scored[0][0] > 0:
        cutoff = scored[0][0] * SEARCH_FLOOR
        scored = [p for j, p in enumerate(scored) if j == 0 or p[0] >= cutoff]
    return scored[:limit]


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
            index.save(path, folders, listing.digest())
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
            fresh.save(path, folders, listing.digest())
            return fresh
    facts = _snapshot_facts(store, listing)
    if facts is None:
        return None
    fresh = SearchIndexFile.build(listing, facts)
    if resolved:
        fresh.labels = _labels(fresh, list(facts.values()))
    fresh.save(path, folders, listing.digest())
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
    path = index_path(store)
    limit = clamp_limit(limit)
    stored = StoredSearchIndex.open(path, folders, listing, resolved)
    if stored is not None:
        try:  # nothing changed: the query's terms' postings by offset
            got = _answer(listing, q, terms, limit, resolved, stored.ranked, stored.row_file, stored.labels)
        except Damaged:  # the file was removed: the store answers, the next run writes it again
            got = None
        finally:
            stored.close()
        return full() if got is None else got
    index = _current_index(store, listing, path, folders, resolved)
    if index is None:
        return full()
    got = _answer(
        listing,
        q,
        terms,
        limit,
        resolved,
        lambda t, k: rank(index.matrix, t, k),
        index.row_files.__getitem__,
        lambda: index.labels or {},
    )
    return full() if got is None else got


def _answer(
    listing: Listing,
    q: str,
    terms: list[str],
    limit: int,
    resolved: bool,
    ranked: Callable[[Sequence[str], int], list[tuple[float, int]]],
    row_file: Callable[[int], int],
    labels_of: Callable[[], dict[int, tuple[str, int]]],
) -> list[SearchHit] | None:
    """The hits (``None``: a hit file changed under us, the full path answers)."""

    def hit(f: int, score: float) -> SearchHit | None:
        path = listing.path(f)
        try:
            fact = read_fact_file(path, listing.scope(f))
            same = stat_key(os.stat(path, follow_symlinks=False)) == listing.key(f)
        except OSError:
            return None
        return SearchHit(fact, score, make_snippet(search_text(fact), q, terms, SEARCH_SNIPPET)) if same else None

    found: list[tuple[int, SearchHit]] = []
    for score, row in ranked(terms, limit):
        f = row_file(row)
        h = hit(f, score)
        if h is None:
            return None  # it changed under us
        found.append((f, h))
    if not (resolved and found):
        return [h for _f, h in found]
    # search_memories' labelling (_label_superseded), by file instead of by fact object
    labels = labels_of()
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
                    return None
            if current is not None:
                out.append(current)
                placed.add(cur)
        out.append(replace(h, superseded=why))
        placed.add(f)
    return out[: max(limit, len(found))]

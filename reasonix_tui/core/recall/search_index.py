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
import stat as stat_mod
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..bm25 import idf, length_norm, term_score
from ..compat import tokenize as _tokenize
from ..compat.gostr import trim_space
from ..compat.retrieval import make_snippet
from ..compat.tokenize import query_terms, tokens
from ..store.cache import stat_key
from ..store.index_md import INDEX_NAME
from ..store.scan import read_fact_file
from ..store.sealed import read_sealed, source_stamp, write_sealed
from .memory_tool import SEARCH_FLOOR, SEARCH_SNIPPET, SearchHit, clamp_limit, search_memories, search_text
from .pool import list_all_order

if TYPE_CHECKING:
    from ..store.live import LiveStore
    from ..store.model import Fact
    from ..store.store import Store

__all__ = [
    "search_from_disk",
    "index_path",
    "SearchIndexFile",
    "TermMatrix",
    "warm_search",
    "clear_warm_search",
    "rank",
    "seed_from_disk",
]

MAGIC = b"RXTUI-SEARCH-INDEX\n"
VERSION = source_stamp(_tokenize.__file__, __file__) + ":2"
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


_REG = stat_mod.S_IFREG
_DIR = stat_mod.S_IFDIR
_FMT = 0o170000


def _listing(store: Store) -> _Listing | None:
    """One ``stat`` per fact file, no open, no parse (``None``: ask the store instead).

    Files come folder by folder (the store's order), each folder's names in code-point
    order — ``ReadDir``'s byte order, except for names that are not valid UTF-8, which get
    the store's own byte-order sort."""
    paths: list[str] = []
    scopes: list[str] = []
    keys: list[tuple[int, int, int, int]] = []
    for scope, directory in store._dirs():  # noqa: SLF001
        try:
            with os.scandir(directory) as it:
                found = [(e.name, e) for e in it if e.name.endswith(".md") and e.name != INDEX_NAME]
        except FileNotFoundError:
            continue
        except OSError:
            return None
        try:
            "".join(n for n, _e in found).encode("utf-8")
            found.sort(key=lambda ne: ne[0])
        except UnicodeEncodeError:
            found.sort(key=lambda ne: ne[0].encode("utf-8", "surrogateescape"))
        for _name, entry in found:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return None
            kind = st.st_mode & _FMT
            if kind != _REG:
                if kind == _DIR:
                    continue
                return None  # a symlink or a special file: the store's own rules decide
            paths.append(entry.path)
            scopes.append(scope)
            keys.append((st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns))
    return _Listing(paths, scopes, keys)


def _freqs(toks: Sequence[str]) -> dict[str, int]:
    freqs: dict[str, int] = {}
    for t in toks:
        freqs[t] = freqs.get(t, 0) + 1
    return freqs


class TermMatrix:
    """Term frequencies of the indexed facts, one row each (CSR: row offsets, term ids,
    counts), with what ordering needs (name, scope, id per row) and BM25 scoring exactly as
    :class:`~.index.PoolBM25` scores (Reasonix idf, the same floating-point order).

    A query decodes only its own terms' postings (cached per term); a change builds a new
    matrix from this one with :meth:`patched`, copying unchanged rows as arrays."""

    def __init__(
        self,
        names: list[str],
        scopes: list[str],
        ids: list[str],
        terms: list[str],
        offsets: np.ndarray,
        term_ids: np.ndarray,
        counts: np.ndarray,
    ) -> None:
        self.names, self.scopes, self.ids = names, scopes, ids
        """Per row: the fact's name, scope and id (the order of equal scores)."""
        self.terms = terms
        self.offsets, self.term_ids, self.counts = offsets, term_ids, counts
        self._term_index: dict[str, int] | None = None
        self._postings: dict[int, tuple[np.ndarray, np.ndarray] | None] = {}
        self._norm: np.ndarray | None = None

    @classmethod
    def build(cls, docs: Sequence[tuple[tuple[str, str, str], dict[str, int]]]) -> TermMatrix:
        """From ``(name, scope, id), term frequencies`` per row, in row order."""
        term_index: dict[str, int] = {}
        offsets = [0]
        term_ids: list[int] = []
        counts: list[int] = []
        for _key, freqs in docs:
            for t, c in freqs.items():
                tid = term_index.get(t)
                if tid is None:
                    tid = term_index[t] = len(term_index)
                term_ids.append(tid)
                counts.append(c)
            offsets.append(len(term_ids))
        out = cls(
            [k[0] for k, _ in docs],
            [k[1] for k, _ in docs],
            [k[2] for k, _ in docs],
            list(term_index),
            np.asarray(offsets, dtype=np.int64),
            np.asarray(term_ids, dtype=np.int32),
            np.asarray(counts, dtype=np.int32),
        )
        out._term_index = term_index
        return out

    def patched(self, order: Sequence[tuple[tuple[str, str, str], int, dict[str, int] | None]]) -> TermMatrix:
        """A new matrix whose rows are ``order``: each an old row of this one (``row >= 0``)
        or new term frequencies (``row == -1``)."""
        terms = list(self.terms)
        term_index = dict(self._index())
        pieces_ids: list[np.ndarray] = []
        pieces_counts: list[np.ndarray] = []
        lengths: list[int] = []
        run_start = run_end = -1  # a run of consecutive old rows is copied as one slice

        def flush() -> None:
            if run_start >= 0:
                a, b = int(self.offsets[run_start]), int(self.offsets[run_end + 1])
                pieces_ids.append(self.term_ids[a:b])
                pieces_counts.append(self.counts[a:b])

        for _key, old_row, freqs in order:
            if old_row >= 0:
                lengths.append(int(self.offsets[old_row + 1] - self.offsets[old_row]))
                if run_start >= 0 and old_row == run_end + 1:
                    run_end = old_row
                else:
                    flush()
                    run_start = run_end = old_row
                continue
            flush()
            run_start = run_end = -1
            assert freqs is not None
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
        flush()
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        empty = np.zeros(0, dtype=np.int32)
        out = TermMatrix(
            [k[0] for k, _, _ in order],
            [k[1] for k, _, _ in order],
            [k[2] for k, _, _ in order],
            terms,
            offsets,
            np.concatenate(pieces_ids) if pieces_ids else empty,
            np.concatenate(pieces_counts) if pieces_counts else empty,
        )
        out._term_index = term_index
        return out

    def _index(self) -> dict[str, int]:
        if self._term_index is None:
            self._term_index = {t: i for i, t in enumerate(self.terms)}
        return self._term_index

    def _term(self, term: str) -> int | None:
        if self._term_index is not None:
            return self._term_index.get(term)
        try:  # a one-shot query looks up a handful of terms: no dictionary of every term
            return self.terms.index(term)
        except ValueError:
            return None

    def _contributions(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(rows, BM25 contributions)`` of ``term``: ``idf·(tf·(k1+1)) / (tf + norm)`` in
        :class:`~.index.PoolBM25`'s evaluation order; cached per term (fixed per matrix)."""
        tid = self._term(term)
        if tid is None:
            return None
        if tid in self._postings:
            return self._postings[tid]
        value = None
        where = np.flatnonzero(self.term_ids == tid)
        if where.size:
            n = len(self.names)
            if self._norm is None:
                doc_len = np.add.reduceat(self.counts, self.offsets[:-1]).astype(float)
                avgdl = float(int(doc_len.sum())) / n  # rank-bm25: total tokens / corpus size
                if avgdl <= 0:
                    avgdl = 1.0
                self._norm = length_norm(doc_len, avgdl)
            idx = np.searchsorted(self.offsets, where, side="right") - 1
            tf = self.counts[where].astype(float)
            df = int(where.size)
            value = (idx, term_score(idf(n, df), tf, self._norm[idx]))
        self._postings[tid] = value
        return value

    def score(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, scores)`` of every row matching a term, summed in query order exactly as
        :meth:`.index.PoolBM25.accumulate` does (every match scores above zero: the idf
        and the term frequency are positive)."""
        n = len(self.names)
        score = np.zeros(n)
        for term in terms:
            post = self._contributions(term)
            if post is not None:
                score[post[0]] += post[1]
        rows = np.flatnonzero(score > 0)
        return rows, score[rows]


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
    def build(cls, listing: _Listing, facts: dict[str, Fact]) -> SearchIndexFile:
        """From every fact of the listing (``facts``: file → fact)."""
        docs: list[tuple[tuple[str, str, str, int], dict[str, int]]] = []
        for f, path in enumerate(listing.paths):
            fact = facts[path]
            toks = tokens(search_text(fact))
            if toks:
                docs.append(((fact.name, fact.scope, str(fact.id), f), _freqs(toks)))
        # ListAll order (name, scope, id), stable for exact duplicates: the tie-break of
        # search_memories, so equal scores come out in the same order.
        docs.sort(key=lambda d: d[0])
        rows = [-1] * len(listing.paths)
        for r, (key, _freq) in enumerate(docs):
            rows[key[3]] = r
        matrix = TermMatrix.build([(k[:3], fr) for k, fr in docs])
        return cls(list(listing.paths), list(listing.keys), rows, matrix)

    def patched(self, listing: _Listing, read: dict[str, Fact]) -> SearchIndexFile:
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
                order.append(((fact.name, fact.scope, str(fact.id), position[path]), -1, _freqs(toks), path))
        order.sort(key=lambda o: o[0])
        rows = [-1] * len(listing.paths)
        for new_row, (key, _r, _fr, _p) in enumerate(order):
            rows[key[3]] = new_row
        matrix = m.patched([(k[:3], r, fr) for k, r, fr, _p in order])
        return SearchIndexFile(list(listing.paths), list(listing.keys), rows, matrix)


class _Warm:
    """The warm search matrix of the last snapshot a long-lived process searched."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.facts: Sequence[Fact] | None = None
        self.all_facts: list[Fact] = []
        self.matrix: TermMatrix | None = None
        self.row_facts: list[Fact] = []
        self.patches = 0
        """How many snapshots were derived from the previous one (tests, benchmarks)."""
        self.resolution: Any = None


_WARM = _Warm()


def warm_search(facts: Sequence[Fact]) -> tuple[TermMatrix, list[Fact], list[Fact]]:
    """``(matrix, fact of each row, every fact in ListAll order)`` for a snapshot's facts.

    The same facts object again costs nothing. A snapshot that shares most fact objects
    with the previous one (a long-lived process after a few changes: a store hands
    unchanged facts back as the same objects) is derived from it: only the new facts are
    tokenized and unchanged rows are copied as arrays. Anything else is built afresh. Both
    give the same answers (``tests/test_search_index.py``)."""
    with _WARM.lock:
        if _WARM.matrix is not None and facts is _WARM.facts:
            return _WARM.matrix, _WARM.row_facts, _WARM.all_facts
        all_facts = list_all_order(facts)
        prev = _WARM.matrix
        old_rows = {id(f): r for r, f in enumerate(_WARM.row_facts)} if prev is not None else {}
        kept = sum(1 for f in all_facts if id(f) in old_rows)
        changes = (len(all_facts) - kept) + (len(old_rows) - kept)
        row_facts: list[Fact] = []
        if prev is not None and changes <= max(8, int(INCREMENTAL_SHARE * len(all_facts))):
            order: list[tuple[tuple[str, str, str], int, dict[str, int] | None]] = []
            for f in all_facts:
                r = old_rows.get(id(f), -1)
                if r >= 0 and _WARM.row_facts[r] is f:
                    order.append(((f.name, f.scope, f.id), r, None))
                    row_facts.append(f)
                    continue
                toks = tokens(search_text(f))
                if toks:
                    order.append(((f.name, f.scope, f.id), -1, _freqs(toks)))
                    row_facts.append(f)
            matrix = prev.patched(order)
            _WARM.patches += 1
        else:
            docs = []
            for f in all_facts:
                toks = tokens(search_text(f))
                if toks:
                    docs.append(((f.name, f.scope, str(f.id)), _freqs(toks)))
                    row_facts.append(f)
            matrix = TermMatrix.build(docs)
        _WARM.facts, _WARM.all_facts, _WARM.matrix, _WARM.row_facts = facts, all_facts, matrix, row_facts
        _WARM.resolution = None
        return matrix, row_facts, all_facts


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
    with _WARM.lock:
        if _WARM.matrix is None:
            _WARM.facts, _WARM.all_facts, _WARM.matrix, _WARM.row_facts = snap.facts, all_facts, index.matrix, row_facts
            _WARM.resolution = None
    return True


def warm_resolution(facts: Sequence[Fact]) -> Any:
    """The subject/topic resolution of the warm snapshot (``resolve`` of its facts in
    ListAll order), kept with the warm matrix so a search does not key ``resolve``'s own
    cache by every fact's identity on each call."""
    from ..resolve import resolve

    _matrix, _rows, all_facts = warm_search(facts)
    with _WARM.lock:
        if _WARM.facts is facts and _WARM.resolution is not None:
            return _WARM.resolution
    res = resolve(all_facts)
    with _WARM.lock:
        if _WARM.facts is facts:
            _WARM.resolution = res
    return res


def clear_warm_search() -> None:
    """Forget the warm search matrix (tests)."""
    with _WARM.lock:
        _WARM.facts, _WARM.all_facts, _WARM.matrix, _WARM.row_facts = None, [], None, []
        _WARM.resolution = None


def rank(index: TermMatrix, terms: Sequence[str], limit: int) -> list[tuple[float, int]]:
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


def _snapshot_facts(store: Store, listing: _Listing) -> dict[str, Fact] | None:
    """Every fact of the store by file, when the store reads exactly the listed files."""
    facts = {f.path: f for f in store.snapshot().facts}
    if set(facts) != set(listing.paths) or _stat_keys(listing.paths) != listing.keys:
        return None  # the store saw something else (a race, a parse-cache quirk): full path
    return facts


def _current_index(
    store: Store, listing: _Listing, path: str, folders: str, resolved: bool = False
) -> SearchIndexFile | None:
    """The index for ``listing``: loaded as is, patched, or rebuilt (and written back).
    ``resolved`` also needs the resolver's labels: they are kept with the index and computed
    again, from every fact, only when the files changed."""
    index = SearchIndexFile.load(path, folders)
    if index is not None and index.files == listing.paths and index.keys == listing.keys:
        if resolved and index.labels is None:
            facts = _snapshot_facts(store, listing)
            if facts is None:
                return None
            index.labels = _labels(index, list(facts.values()))
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
            if _stat_keys(listing.paths) != listing.keys:
                return None  # a file changed while we read it: the full path decides
            if resolved:  # which facts supersede which can change with any fact: ask the resolver again
                facts = _snapshot_facts(store, listing)
                if facts is None:
                    return None
                fresh.labels = _labels(fresh, list(facts.values()))
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


def _stat_keys(paths: list[str]) -> list[tuple[int, int, int, int]] | None:
    out = []
    for p in paths:
        try:
            out.append(stat_key(os.stat(p, follow_symlinks=False)))
        except OSError:
            return None
    return out


def search_from_disk(
    store: Store, query: str, *, type_: str = "", scope: str = "", limit: int = 0, resolved: bool = False
) -> list[SearchHit]:
    """What :func:`~.search.search_memories` returns on ``store.snapshot().facts``, from the
    on-disk index when it can vouch for the answer (else exactly that call)."""

    def full() -> list[SearchHit]:
        return search_memories(store.snapshot().facts, query, type_=type_, scope=scope, limit=limit, resolved=resolved)

    q = trim_space(query)
    terms = query_terms(q) if q else []
    listing = _listing(store) if terms and not type_ and not scope else None
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

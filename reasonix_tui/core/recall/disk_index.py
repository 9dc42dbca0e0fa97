"""A persistent recall index for one-shot processes: start from disk, not from every fact.

A one-shot ``reasonix-tui recall`` (and a hook answered in-process, with no hook server)
used to load every fact, read the per-fact memo and build the recall index, the enhanced
channels' postings and the subject/topic resolution before answering — seconds at 10k
facts. :func:`index_for` keeps everything a recall needs about a snapshot on disk instead,
next to the parse cache (``<root>/reasonix-tui/cache/recall-<digest>.sealed``):

* **sealed** like the other caches (:mod:`~reasonix_tui.core.store.sealed`: magic,
  SHA-256, marshal; atomic, mode 0600) and **versioned** with the source of everything
  that derives it (tokenizer, language analysis, fields, channels, resolver, pool, this
  module): changed code discards it;
* **validated without reading a fact**: one ``stat`` per fact file (a folder listing in
  the store's own order), compared with the stat keys the index was built from;
* **kept current**: when files changed, the index is built again from the store's
  snapshot — through the parse cache and the per-fact memo, so only the changed facts
  are read and analysed — and written back.

What it holds: per pool document the recall tokens' term frequencies (CSR; scored exactly
as :class:`~.index.PoolBM25`), the channels' BM25F postings, length norms and meaning
vectors, the freshness and ordering arrays, the pool's exclusions, the resolver's
supersessions and the ``supersedes`` links — all by file number. Facts are read from their
files only when the answer shows them (a hit, a candidate in the trace, the current fact of
a superseded one); a file that changed since raises :class:`Changed` and the caller answers
from the store instead. The answer equals :func:`~.engine.recall` over a fresh
:class:`~.index.RecallIndex` of the store's snapshot (``tests/test_recall_disk_index.py``).
"""

from __future__ import annotations

import glob
import hashlib
import os
import threading
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compat import tokenize as _tokenize
from ..store.atomic import atomic_write
from ..store.cache import stat_key
from ..store.scan import read_fact_file
from ..store.sealed import source_stamp
from ..store.sectioned import Sectioned, discarder, from_blob, open_sectioned, sectioned_blob
from .disk_sections import to_sections
from .index import RecallIndex, _Freshness
from .listing import Listing, list_fact_files, stat_keys
from .stored_views import (
    DocOf,
    HalfRows,
    LazyExclusions,
    LazyFacts,
    LazyTexts,
    StoredPool,
    Successors,
)

if TYPE_CHECKING:
    from ..store.model import Fact
    from ..store.store import Store

__all__ = ["index_for", "index_path", "Changed", "Corrupt", "StoredRecallIndex", "by_id", "listing_digest"]

MAGIC = b"RXTUI-RECALL-INDEX2\n"
_HERE = os.path.dirname(__file__)
_CORE = os.path.dirname(_HERE)
VERSION = (
    source_stamp(
        _tokenize.__file__,
        __file__,
        *(
            os.path.join(_HERE, n)
            for n in (
                "index.py",
                "channels.py",
                "fields.py",
                "enhance.py",
                "pool.py",
                "term_matrix.py",
                "listing.py",
                "stored_views.py",
                "disk_rows.py",
                "disk_sections.py",
                "row_table.py",
                "memo.py",
            )
        ),
        os.path.join(_CORE, "resolve.py"),
        os.path.join(_CORE, "tool_override.py"),
        os.path.join(_CORE, "topic_search.py"),
        os.path.join(_CORE, "freshness.py"),
        os.path.join(_CORE, "store", "precedence.py"),
        os.path.join(_CORE, "store", "model.py"),
        *sorted(glob.glob(os.path.join(_CORE, "lang", "*.py"))),
    )
    + ":2"
)
"""Everything in the file is derived by this code: a change of any of it discards the file."""


class Changed(Exception):
    """A fact file changed after the index was validated: answer from the store."""


def index_path(store: Store) -> str:
    """Where the recall index of this store's pair of fact folders lives."""
    folders = "\0".join(str(d) for _scope, d in store._dirs())  # noqa: SLF001 - the store's own folder order
    digest = hashlib.sha256(os.fsencode(folders)).hexdigest()[:24]
    return os.path.join(str(store.layout.cache_dir), f"recall-{digest}.sealed")


class _Loader:
    """Facts by file number, read on first use (the same object afterwards)."""

    def __init__(self, listing: Listing) -> None:
        self.listing = listing
        self._facts: dict[int, Fact] = {}
        self._pos: dict[int, int] = {}
        self._lock = threading.Lock()

    def fact(self, f: int) -> Fact:
        got = self._facts.get(f)
        if got is not None:
            return got
        path = self.listing.path(f)
        try:
            fact = read_fact_file(path, self.listing.scope(f))
            same = stat_key(os.stat(path, follow_symlinks=False)) == self.listing.key(f)
        except OSError as exc:
            raise Changed(path) from exc
        if not same:
            raise Changed(path)
        with self._lock:
            got = self._facts.get(f)
            if got is None:
                self._facts[f] = got = fact
                self._pos[id(fact)] = f
        return got

    def file_of_id(self, key: int) -> int | None:
        """The file number of a fact this loader read, by ``id(fact)``."""
        return self._pos.get(key)

    def file_of(self, fact: Fact) -> int | None:
        f = self._pos.get(id(fact))
        return f if f is not None and self._facts.get(f) is fact else None


def _channel_class() -> type:
    from .channels import ChannelIndex

    class StoredChannels(ChannelIndex):
        """A :class:`~.channels.ChannelIndex` read from disk: postings by key string."""

        def __init__(self, docs: LazyFacts, sec: Sectioned, ch: dict[str, Any]) -> None:
            from .disk_sections import KeyPostings, Vocab

            self.docs = docs  # type: ignore[assignment]  # lazy facts stand in for the list
            self.n = n = len(docs)
            self._sec = sec
            self._key_list = keys = Vocab(sec, "ch_keys")
            self._start = sec.array("ch_start", np.int64)
            self._end = sec.array("ch_end", np.int64)
            self._postings = KeyPostings(sec, ch["tfs32"])
            self.norm = sec.array("ch_norm", np.float64)
            self.idf_one = ch["idf_one"]
            self._lock = threading.Lock()
            self._vectors = None
            self._has_vectors = ch["has_vectors"]
            self._moments = None
            if ch["moments_d"] is not None:
                d = ch["moments_d"]
                self._moments = (sec.array("ch_mean", np.float64), sec.array("ch_second", np.float64).reshape(d, d))
            self._source_docs: np.ndarray | None = None
            self._source_starts: np.ndarray | None = None
            self._n_docs = n
            _known_file_keys(keys)

        def source(self, doc: int, key: str) -> str:
            """The Chinese word a translated key of ``doc`` came from (kept in the index: no
            fact is analysed, the per-fact memo is not read; only this document's words are
            decoded)."""
            import json

            if self._source_docs is None or self._source_starts is None:
                self._source_docs = self._sec.array("src_docs", np.int32)
                self._source_starts = self._sec.array("src_starts", np.int64)
            i = int(np.searchsorted(self._source_docs, doc))
            if i >= len(self._source_docs) or int(self._source_docs[i]) != doc:
                return ""
            piece = self._sec.text("src_text", int(self._source_starts[i]), int(self._source_starts[i + 1]))
            words: dict[str, str] = dict(json.loads(piece))
            return words.get(key, "")

        def posting(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
            i = bisect_left(self._key_list, key)
            if i >= len(self._key_list) or self._key_list[i] != key:
                return None
            return self._postings.get(int(self._start[i]), int(self._end[i]))

        def answer_types(self, docs: np.ndarray) -> np.ndarray:
            """The answer types of ``docs`` only (memoised per fact): reading every fact's
            would read the whole store back from disk."""
            from .answer_types import fact_types
            from .memo import FACT_MEMO

            return np.fromiter(
                (FACT_MEMO.get(self.docs[int(d)], "answer-types", fact_types) for d in docs),
                dtype=np.int16,
                count=len(docs),
            )

        def vectors(self) -> Any:
            if self._vectors is None:
                if not self._has_vectors:
                    raise ValueError("no meaning vectors")
                # no lock: similarity_spread holds self._lock when it asks; two threads would
                # read the same checked bytes
                if self._n_docs:
                    half = self._sec.array("ch_vectors", np.float16).reshape(self._n_docs, -1)
                    self._vectors = HalfRows(half)  # type: ignore[assignment]  # rows widened on use
                else:
                    self._vectors = np.zeros((0, 256), dtype=np.float32)
            return self._vectors

    return StoredChannels


def _known_file_keys(keys: Sequence[str]) -> None:
    """The channels' prefix search over file names (``^f:nvm`` → ``f:nvmrc``) looks among
    the ``f:`` keys this process has seen: add the stored ones (``keys`` is sorted)."""
    from . import channels

    known = getattr(channels, "_FILE_KEYS", None)
    if known is None:
        return
    mine = keys[bisect_left(keys, "f:") : bisect_left(keys, "f;")]
    if mine:
        with channels._KEY_LOCK:  # noqa: SLF001
            known[:] = sorted(set(known).union(mine))


def _resolution_class() -> type:
    from ..resolve import Resolution, Supersession

    class StoredResolution(Resolution):
        """A :class:`~reasonix_tui.core.resolve.Resolution` by file number."""

        _loader: _Loader
        _rows: dict[int, tuple[int, str, str, bool]]
        _made: dict[int, Supersession]

        def __init__(self, loader: _Loader, rows: dict[int, tuple[int, str, str, bool]]) -> None:
            object.__setattr__(self, "items", ())
            object.__setattr__(self, "_by_old", {})
            object.__setattr__(self, "_loader", loader)
            object.__setattr__(self, "_rows", rows)
            object.__setattr__(self, "_made", {})

        def of(self, fact: Fact) -> Supersession | None:
            f = self._loader.file_of(fact)
            if f is None:
                return None
            row = self._rows.get(f)
            if row is None:
                return None
            got = self._made.get(f)
            if got is None:
                cur, kind, evidence, certain = row
                got = self._made[f] = Supersession(fact, self._loader.fact(cur), kind, evidence, certain)
            return got

        def __len__(self) -> int:
            return len(self._rows)

    return StoredResolution


class StoredRecallIndex(RecallIndex):
    """A :class:`~.index.RecallIndex` read from disk; facts are read from their files on use."""

    def __init__(self, sec: Sectioned, listing: Listing) -> None:  # noqa: D107 - see class
        from .disk_sections import ExcludedPostings, TermPostings, Vocab

        data: dict[str, Any] = sec.header
        self.sections = sec
        loader = self.loader = _Loader(listing)
        self._ids = Vocab(sec, "ids")
        doc_files = _FileList(sec, "doc_files")
        self.docs = LazyFacts(loader, doc_files)  # type: ignore[assignment]  # lazy facts stand in for the list
        self.texts = LazyTexts(self.docs)  # type: ignore[arg-type,assignment]  # lazy texts stand in for the list
        self.pool = StoredPool(
            LazyFacts(loader, _FileList(sec, "pool_files")),  # type: ignore[assignment]  # a pool read from disk
            LazyExclusions(loader, data["excluded"]),
        )
        self._all = LazyFacts(loader, _FileList(sec, "all_files"))
        n = len(doc_files)
        self.bm25 = TermPostings(sec, Vocab(sec, "terms"), n) if n else None  # type: ignore[assignment]  # PoolBM25's interface, from disk

        def arr(name: str, dtype: Any) -> np.ndarray:
            return sec.array(name, dtype)

        self.is_project = arr("is_project", bool)
        self.volatile = arr("volatile", bool)
        self.updated = arr("updated", np.int64)
        self.id_rank = arr("id_rank", np.int64)
        self._fresh = _Freshness(
            arr("f_start", np.int64), arr("f_fresh", np.int64), arr("f_current", np.int64), arr("f_expires", np.int64)
        )
        self._ex = ExcludedPostings(sec)
        self._lock = threading.RLock()
        self._extras = {}
        self._extras["channels"] = _channel_class()(self.docs, sec, data["channels"])
        from .enhance import EnhancedIndex

        self._extras["enhanced"] = EnhancedIndex(
            superseded_by=Successors(loader, data["successors"]),  # type: ignore[arg-type]  # mappings read from disk
            doc_of=DocOf(loader, doc_files),  # type: ignore[arg-type]  # mappings read from disk
        )
        self._extras["resolution"] = _resolution_class()(loader, data["resolution"])

    @property  # type: ignore[override]  # read-only where the base has an attribute
    def all_facts(self) -> Sequence[Fact]:
        """Every active fact in ``ListAll`` order (read from their files on use)."""
        return self._all

    @property  # type: ignore[override]  # read-only where the base has an attribute
    def source(self) -> Sequence[Fact]:
        return self._all

    def fact_by_id(self, fact_id: str) -> Fact | None:
        """The active fact with this id (read from its file), or ``None``."""
        i = self._ids.find(fact_id)
        if i is None:
            return None
        return self.loader.fact(int(self.sections.part("id_files", np.int32, i, i + 1)[0]))

    def has_id(self, fact_id: str) -> bool:
        return self._ids.find(fact_id) is not None

    def excluded_hits(self, terms: Sequence[str]) -> list[int]:
        """As :meth:`~.index.RecallIndex.excluded_hits`: only the query terms' postings
        are read."""
        hits: set[int] = set()
        for term in terms:
            hits.update(self._ex.get(term))
        return sorted(hits)

    def excluded_match(self, i: int, terms: Sequence[str]) -> tuple[Any, list[str]]:
        """As :meth:`~.index.RecallIndex.excluded_match`: a left-out fact holds a term when
        the term's posting names it (the postings were made from those very tokens)."""
        return self.pool.excluded[i], [t for t in terms if i in self._ex.get(t)]


class _FileList(Sequence[int]):
    """File numbers by position (an ``int32`` section, read on first use)."""

    def __init__(self, sec: Sectioned, name: str) -> None:
        self._sec, self._name = sec, name
        self._n = sec.size(name) // 4
        self._arr: np.ndarray | None = None

    def __len__(self) -> int:
        return self._n

    def array(self) -> np.ndarray:
        if self._arr is None:
            self._arr = self._sec.array(self._name, np.int32)
        return self._arr

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return self.array()[i].tolist()
        return int(self.array()[i])

    def __iter__(self) -> Iterator[int]:
        return iter(self.array().tolist())


class _ById:
    """A read-only ``id → fact`` mapping over a stored index (facts read on use)."""

    def __init__(self, index: StoredRecallIndex) -> None:
        self._index = index

    def get(self, key: str, default: Any = None) -> Any:
        got = self._index.fact_by_id(key)
        return default if got is None else got

    def __getitem__(self, key: str) -> Fact:
        got = self._index.fact_by_id(key)
        if got is None:
            raise KeyError(key)
        return got

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._index.has_id(key)


def by_id(index: RecallIndex) -> Any:
    """``id → fact`` of the snapshot an index was made from, as ``Snapshot.by_id`` (a
    stored index reads the facts on use)."""
    if isinstance(index, StoredRecallIndex):
        return _ById(index)
    return {f.id: f for f in index.source}


def listing_digest(listing: Listing) -> bytes:
    """SHA-256 of the listing (paths and stat keys): what the index was built from, checked
    without keeping every path and key in the file's header (:meth:`.listing.Listing.digest`)."""
    return listing.digest()


class Corrupt(Changed):
    """The index file's bytes do not match their digests: answer from the store (the file
    is removed, so the next run writes it again)."""


def _open(sec: Sectioned | None, folders: str, listing: Listing) -> StoredRecallIndex | None:
    if sec is None:
        return None
    head = sec.header
    if type(head) is not tuple or len(head) != 4 or head[0] != VERSION or head[1] != folders:
        return None
    if head[2] != listing_digest(listing) or type(head[3]) is not dict:
        return None
    sec.header = head[3]
    try:
        return StoredRecallIndex(sec, listing)
    except (KeyError, TypeError, ValueError, IndexError, Changed):
        return None


def _load(path: str, folders: str, listing: Listing) -> StoredRecallIndex | None:
    return _open(open_sectioned(path, MAGIC, Corrupt, discarder(path)), folders, listing)


def _written(
    path: str, folders: str, listing: Listing, payload: dict[str, Any], table: Any
) -> StoredRecallIndex | None:
    """Write the index (and its rows); the index over the bytes written (in memory)."""
    from . import disk_rows

    header, sections = to_sections(payload)
    blob = sectioned_blob(MAGIC, (VERSION, folders, listing_digest(listing), header), sections)
    try:
        atomic_write(path, blob, 0o600, durable=False)
        disk_rows.write_rows(disk_rows.rows_path(path), VERSION, folders, listing, table)
    except (OSError, ValueError):
        pass  # a failure only costs the next run
    return _open(from_blob(MAGIC, blob, Corrupt), folders, listing)


def index_for(store: Store) -> RecallIndex | None:
    """The recall index of the store's facts now: read from disk when it was built from
    exactly the files there are (one ``stat`` each, no fact read), else built from the
    store's snapshot and written back. ``None`` when the folders need the store's own rules
    (a symlink, an unreadable entry): the caller then loads the store itself."""
    from .index import get_index

    listing = list_fact_files(store)
    if listing is None:
        return None
    folders = "\0".join(str(d) for _s, d in store._dirs())  # noqa: SLF001
    path = index_path(store)
    stored = _load(path, folders, listing)
    if stored is not None:
        return stored
    from . import disk_rows  # only when files changed

    patched = disk_rows.patch(store, listing, VERSION, folders, path)
    if patched is not None:
        payload, index, table = patched
    else:
        facts = store.snapshot().facts
        index = get_index(facts)
        listed = set(listing.paths)
        if not all(f.path in listed for f in facts):
            return index
        table = disk_rows.fresh_table(index, listing)
        payload = disk_rows.payload(index, listing, table)
    if patched is None and stat_keys(listing.paths) != listing.keys:
        return index  # changed while it was built: answer, write nothing (a patch checked after its load)
    written = _written(path, folders, listing, payload, table)
    if patched is not None and written is not None:
        return written
    return index

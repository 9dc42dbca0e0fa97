"""The on-disk recall index by file: what it holds about each fact file, the index built
from those rows, and the patch after a few files changed.

Next to the recall index (:mod:`.disk_index`) a second sealed file
(``recall-<digest>.rows.sealed``) keeps, per fact file of the snapshot, everything the
index derives from that one fact: its recall tokens' term frequencies, its enhanced
channels' weighted terms and length, its meaning vector (float16, as the per-fact memo
keeps it) and the resolver's topic strings. A query never reads it.

When files changed, :func:`patch` reads it instead of building every fact's values again:
only the changed files are read and analysed; the store's snapshot (through the parse
cache) gives the facts' own fields — order, pool, freshness, identity keys — and the
resolver runs over every fact with the stored values seeded into the per-fact memo (the
memo's disk layer is not read). The term matrix, the channels' postings, the norms and the
meaning moments are then assembled from the rows with array operations. Both paths — a
full build and a patch — go through :func:`payload`, so a patched index is the one a
full build would write (``tests/test_recall_disk_patch.py`` compares them byte for byte).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import bm25
from ..store.sealed import read_sealed, write_sealed
from .listing import Listing
from .memo import FACT_MEMO
from .term_matrix import INCREMENTAL_SHARE, TermMatrix

if TYPE_CHECKING:
    from ..resolve import Resolution
    from ..store.model import Fact
    from ..store.store import Store
    from .index import RecallIndex

__all__ = ["Row", "rows_path", "fresh_rows", "payload", "write_rows", "patch"]

ROWS_MAGIC = b"RXTUI-RECALL-ROWS\n"

Row = tuple[dict[str, int], "tuple[list[str], bytes, float] | None", "bytes | None", "tuple[Any, ...] | None"]
"""One fact file: recall-token frequencies, channel weights ``(keys, float64 weights,
length)`` (``None`` when the fact was no pool document), the float16 meaning vector and the
resolver's topic strings (``None`` when the meaning model is missing)."""


def rows_path(index_file: str) -> str:
    """Where the rows of the recall index at ``index_file`` live."""
    return index_file[: -len(".sealed")] + ".rows.sealed" if index_file.endswith(".sealed") else index_file + ".rows"


def _file_numbers(index: RecallIndex, listing: Listing) -> dict[int, int]:
    pos = {p: f for f, p in enumerate(listing.paths)}
    return {id(f): pos[f.path] for f in index.all_facts}


def fresh_rows(index: RecallIndex) -> dict[int, Row]:
    """The rows of a freshly built index, by ``id(fact)`` (values come from the per-fact
    memo the build filled)."""
    from ..resolve import _topic_strings
    from .channels import _fact_weights
    from .fields import fact_vector
    from .index import _term_freqs

    docs = {id(f) for f in index.docs}
    out: dict[int, Row] = {}
    for fact in index.all_facts:
        freqs = FACT_MEMO.get(fact, "term-freqs", _term_freqs)[0]
        channel = FACT_MEMO.get_durable(fact, "channel-weights", _fact_weights) if id(fact) in docs else None
        try:
            vec: bytes | None = np.asarray(fact_vector(fact)).astype(np.float16).tobytes()
        except (ImportError, OSError, ValueError):
            vec = None
        topic = FACT_MEMO.get_durable(fact, "topic-strings", _topic_strings)
        out[id(fact)] = (freqs, _plain_channel(channel), vec, _plain_topic(topic))
    return out


def _plain_channel(channel: Any) -> tuple[list[str], bytes, float] | None:
    if channel is None:
        return None
    keys, weights, length = channel
    return list(keys), bytes(weights), float(length)


def _plain_topic(topic: Any) -> tuple[Any, ...]:
    keys, labels, cues, strong = topic
    return frozenset(keys), frozenset(labels), tuple(tuple(c) for c in cues), bool(strong)


def payload(index: RecallIndex, listing: Listing, rows: dict[int, Row]) -> dict[str, Any]:
    """What :class:`~.disk_index.StoredRecallIndex` reads: the facts' own fields from
    ``index`` (a full index or a :meth:`~.index.RecallIndex.skeleton`), everything
    derived from a fact's text from its row (``rows`` by ``id(fact)``)."""
    from ..resolve import resolve
    from .enhance import EnhancedIndex

    file_of = _file_numbers(index, listing)
    docs = index.docs
    doc_files = [file_of[id(f)] for f in docs]
    matrix = TermMatrix.build([(("", "", ""), rows[id(f)][0]) for f in docs])
    excluded = [
        (file_of[id(ex.fact)], ex.kind, file_of[id(ex.by)] if ex.by is not None else -1, ex.key)
        for ex in index.pool.excluded
    ]
    ex_postings: dict[str, list[int]] = {}
    ex_tokens: list[list[str]] = []
    for i, ex in enumerate(index.pool.excluded):
        toks = rows[id(ex.fact)][0]
        ex_tokens.append(sorted(toks))
        for term in toks:
            ex_postings.setdefault(term, []).append(i)
    eidx: EnhancedIndex = index.extra("enhanced", EnhancedIndex.build)
    res: Resolution = index.extra("resolution", lambda idx: resolve(idx.all_facts, meaning=True))
    resolution: dict[int, tuple[int, str, str, bool]] = {}
    for fact in index.all_facts:
        s = res.of(fact)
        if s is not None:
            resolution[file_of[id(fact)]] = (file_of[id(s.current)], s.kind, s.evidence, bool(s.certain))
    fr = index._fresh  # noqa: SLF001
    return {
        "ids": {f.id: file_of[id(f)] for f in index.source},  # Snapshot.by_id: the last of equal ids wins
        "all_files": [file_of[id(f)] for f in index.all_facts],
        "pool_files": [file_of[id(f)] for f in index.pool.facts],
        "doc_files": doc_files,
        "excluded": excluded,
        "ex_postings": ex_postings,
        "ex_tokens": ex_tokens,
        "terms": matrix.terms,
        "offsets": matrix.offsets.astype(np.int64).tobytes(),
        "term_ids": matrix.term_ids.astype(np.int32).tobytes(),
        "counts": matrix.counts.astype(np.int32).tobytes(),
        "is_project": index.is_project.astype(bool).tobytes(),
        "volatile": index.volatile.astype(bool).tobytes(),
        "updated": index.updated.astype(np.int64).tobytes(),
        "id_rank": index.id_rank.astype(np.int64).tobytes(),
        "f_start": fr.start.astype(np.int64).tobytes(),
        "f_fresh": fr.fresh_until.astype(np.int64).tobytes(),
        "f_current": fr.current_until.astype(np.int64).tobytes(),
        "f_expires": fr.expires.astype(np.int64).tobytes(),
        "channels": _channels(
            [rows[id(f)][1] for f in docs],
            [rows[id(f)][2] for f in docs],
        ),
        "successors": {d: [file_of[id(f)] for f in fs] for d, fs in eidx.superseded_by.items()},
        "resolution": resolution,
    }


def _channels(per_doc: list[Any], vectors: list[bytes | None]) -> dict[str, Any]:
    """The enhanced channels' part of the payload, from each document's weighted terms:
    postings laid out by key string (documents ascending within a key), the length norms
    (:class:`~.channels.ChannelIndex`'s arithmetic), meaning vectors and their moments."""
    n = len(per_doc)
    vocab: dict[str, int] = {}
    ids: list[np.ndarray] = []
    tfs: list[np.ndarray] = []
    lengths = np.empty(n, dtype=np.float64)
    for d, (keys, weights, length) in enumerate(per_doc):
        ids.append(np.fromiter((vocab.setdefault(k, len(vocab)) for k in keys), dtype=np.int64, count=len(keys)))
        tfs.append(np.frombuffer(weights, dtype=np.float64))
        lengths[d] = length
    names = list(vocab)
    by_name = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(names), dtype=np.int64)
    rank[by_name] = np.arange(len(names), dtype=np.int64)
    all_ids = rank[np.concatenate(ids)] if n else np.zeros(0, dtype=np.int64)
    all_tfs = np.concatenate(tfs) if n else np.zeros(0, dtype=np.float64)
    doc_of = np.repeat(np.arange(n, dtype=np.int64), [len(a) for a in ids])
    order = np.argsort(all_ids, kind="stable")
    counts = np.bincount(all_ids, minlength=len(names))
    end = np.cumsum(counts)
    avg = float(lengths.mean()) if n else 1.0
    out: dict[str, Any] = {
        "keys": [names[i] for i in by_name],
        "start": (end - counts).astype(np.int64).tobytes(),
        "end": end.astype(np.int64).tobytes(),
        "docs": doc_of[order].astype(np.int32).tobytes(),
        "tfs": _tfs_bytes(all_tfs[order]),
        "norm": np.asarray(bm25.length_norm(lengths, avg or 1.0), dtype=np.float64).tobytes(),
        "idf_one": float(bm25.idf(n, 1) if n else 1.0),
        "tfs32": bool(np.array_equal(all_tfs.astype(np.float32).astype(np.float64), all_tfs)),
        "vectors": None,
        "moments": None,
    }
    if any(v is None for v in vectors):
        return out
    half = np.frombuffer(b"".join(vectors), dtype=np.float16)  # type: ignore[arg-type]  # none is None here
    out["vectors"] = half.tobytes()
    if n:
        v = half.reshape(n, -1).astype(np.float32).astype(np.float64)  # as ChannelIndex.similarity_spread
        out["moments"] = (int(v.shape[1]), (v.sum(axis=0) / n).tobytes(), ((v.T @ v) / n).tobytes())
    return out


def _tfs_bytes(tfs: np.ndarray) -> bytes:
    """Weighted term frequencies (sums of small multiples of the field weights) as float32
    when that is exact, else float64."""
    narrow = tfs.astype(np.float32)
    return narrow.tobytes() if np.array_equal(narrow.astype(np.float64), tfs) else tfs.astype(np.float64).tobytes()


def write_rows(
    path: str, version: str, folders: str, listing: Listing, index: RecallIndex, rows: dict[int, Row]
) -> None:
    """Write the rows of ``index`` (by file, in the listing's order; ``None`` for a file
    that is no fact)."""
    by_file: list[Row | None] = [None] * len(listing.paths)
    for fact, f in zip(index.all_facts, _file_numbers(index, listing).values()):
        by_file[f] = rows[id(fact)]
    write_sealed(path, ROWS_MAGIC, (version, folders, listing.paths, listing.keys, by_file))


# ---------------------------------------------------------------------------- patching


def _stored(path: str, version: str, folders: str) -> dict[str, tuple[tuple[int, int, int, int], Row | None]] | None:
    data = read_sealed(path, ROWS_MAGIC)
    if type(data) is not tuple or len(data) != 5 or data[0] != version or data[1] != folders:
        return None
    _v, _f, files, keys, rows = data
    if not (len(files) == len(keys) == len(rows)):
        return None
    return {p: (tuple(k), r) for p, k, r in zip(files, keys, rows)}


def _analyse(facts: list[Fact]) -> dict[int, Row]:
    """Rows of facts whose files changed, computed directly (not through the memo's disk
    layer: reading it whole would cost more than the analysis)."""
    from ..compat.tokenize import tokens
    from ..resolve import _topic_strings
    from .channels import _fact_weights
    from .fields import _compute, _half, meaning_text
    from .memo import recall_text
    from .term_matrix import term_freqs

    for f in facts:
        FACT_MEMO.seed(f, "fields", _compute(f))
    try:
        from ..lang import embed

        vecs: list[bytes | None] = (
            [v.astype(np.float16).tobytes() for v in _half(embed([meaning_text(f) for f in facts]))] if facts else []
        )
    except (ImportError, OSError, ValueError):
        vecs = [None] * len(facts)
    out: dict[int, Row] = {}
    for f, vec in zip(facts, vecs):
        channel = _plain_channel(_fact_weights(f))
        out[id(f)] = (term_freqs(tokens(recall_text(f))), channel, vec, _plain_topic(_topic_strings(f)))
    return out


def patch(
    store: Store, listing: Listing, version: str, folders: str, index_file: str
) -> tuple[dict[str, Any], RecallIndex, dict[int, Row]] | None:
    """The payload of the store's snapshot now (with the skeleton index and the rows it
    came from), patched from the stored rows when few files changed (at most
    :data:`~.term_matrix.INCREMENTAL_SHARE` of them); ``None`` when there are no usable
    rows or too much changed (the caller builds it in full)."""
    from .index import RecallIndex

    path = rows_path(index_file)
    stored = _stored(path, version, folders)
    if stored is None:
        return None
    now = dict(zip(listing.paths, listing.keys))
    changed = sum(1 for p, k in now.items() if p not in stored or stored[p][0] != k)
    changed += sum(1 for p in stored if p not in now)
    if changed > max(1, int(INCREMENTAL_SHARE * len(listing.paths))):
        return None
    facts = store.snapshot().facts
    if any(f.path not in now for f in facts):
        return None  # a fact the listing does not hold (the store's own rules)
    rows: dict[int, Row] = {}
    todo: list[Fact] = []
    for f in facts:
        old = stored.get(f.path)
        row = old[1] if old is not None and old[0] == now[f.path] else None
        if row is None:
            todo.append(f)
        else:
            rows[id(f)] = row
    if todo:
        rows.update(_analyse(todo))
    index = RecallIndex.skeleton(facts, lambda f: bool(rows[id(f)][0]))
    lacking = [f for f in index.docs if rows[id(f)][1] is None]
    if lacking:  # facts that were no pool documents before (their shadowing fact went away)
        from .channels import _fact_weights
        from .fields import _compute

        for f in lacking:
            FACT_MEMO.seed(f, "fields", _compute(f))
            r = rows[id(f)]
            rows[id(f)] = (r[0], _plain_channel(_fact_weights(f)), r[2], r[3])
    for f in index.all_facts:
        _seed(f, rows[id(f)])
    return payload(index, listing, rows), index, rows


def _seed(fact: Fact, row: Row) -> None:
    """The resolver's per-fact inputs, from the row (nothing analysed again)."""
    _freqs, _channel, vec, topic = row
    if topic is not None:
        FACT_MEMO.seed(fact, "topic-strings", topic)
    if vec is not None:
        FACT_MEMO.seed(fact, "meaning", np.frombuffer(vec, dtype=np.float16).astype(np.float32))

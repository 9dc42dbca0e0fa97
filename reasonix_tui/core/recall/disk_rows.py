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

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import bm25
from ..store.sealed import read_sealed, write_sealed
from .listing import Listing, stat_keys
from .memo import FACT_MEMO
from .row_table import Csr, RowTable, Value
from .term_matrix import INCREMENTAL_SHARE

if TYPE_CHECKING:
    from ..resolve import Resolution
    from ..store.model import Fact
    from ..store.store import Store
    from .index import RecallIndex

__all__ = ["rows_path", "fresh_table", "payload", "write_rows", "patch"]

ROWS_MAGIC = b"RXTUI-RECALL-ROWS\n"


def rows_path(index_file: str) -> str:
    """Where the rows of the recall index at ``index_file`` live."""
    return index_file[: -len(".sealed")] + ".rows.sealed" if index_file.endswith(".sealed") else index_file + ".rows"


def _file_numbers(index: RecallIndex, listing: Listing) -> dict[int, int]:
    pos = {p: f for f, p in enumerate(listing.paths)}
    return {id(f): pos[f.path] for f in index.all_facts}


def fresh_table(index: RecallIndex, listing: Listing) -> RowTable:
    """The rows of a freshly built index, by file (values come from the per-fact memo the
    build filled)."""
    from ..resolve import _topic_strings
    from .channels import _fact_weights
    from .fields import fact_fields, fact_vector
    from .index import _term_freqs

    docs = {id(f) for f in index.docs}
    values: list[Value | None] = [None] * len(listing.paths)
    for fact, f in zip(index.all_facts, _file_numbers(index, listing).values()):
        freqs = FACT_MEMO.get(fact, "term-freqs", _term_freqs)[0]
        channel = FACT_MEMO.get_durable(fact, "channel-weights", _fact_weights) if id(fact) in docs else None
        try:
            vec: bytes | None = np.asarray(fact_vector(fact)).astype(np.float16).tobytes()
        except (ImportError, OSError, ValueError):
            vec = None
        topic = FACT_MEMO.get_durable(fact, "topic-strings", _topic_strings)
        values[f] = (freqs, channel, vec, topic, fact_fields(fact).sources if channel is not None else None)
    return RowTable.from_values(values).compact()


def payload(index: RecallIndex, listing: Listing, table: RowTable) -> dict[str, Any]:
    """What :class:`~.disk_index.StoredRecallIndex` reads: the facts' own fields from
    ``index`` (a full index or a :meth:`~.index.RecallIndex.skeleton`), everything
    derived from a fact's text from its file's row in ``table``."""
    from ..resolve import resolve
    from .enhance import EnhancedIndex

    file_of = _file_numbers(index, listing)
    doc_files = [file_of[id(f)] for f in index.docs]
    at = np.asarray(doc_files, dtype=np.int64)
    terms = table.terms.take(at).compact()
    excluded = [
        (file_of[id(ex.fact)], ex.kind, file_of[id(ex.by)] if ex.by is not None else -1, ex.key)
        for ex in index.pool.excluded
    ]
    ex_postings: dict[str, list[int]] = {}
    ex_tokens: list[list[str]] = []
    vocab = table.terms.vocab
    for i, ex in enumerate(index.pool.excluded):
        toks = sorted(map(vocab.__getitem__, table.terms.row(file_of[id(ex.fact)])[0].tolist()))
        ex_tokens.append(toks)
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
        "terms": terms.vocab,
        "offsets": terms.off.astype(np.int64).tobytes(),
        "term_ids": terms.ids.astype(np.int32).tobytes(),
        "counts": terms.val.astype(np.int32).tobytes(),
        "is_project": index.is_project.astype(bool).tobytes(),
        "volatile": index.volatile.astype(bool).tobytes(),
        "updated": index.updated.astype(np.int64).tobytes(),
        "id_rank": index.id_rank.astype(np.int64).tobytes(),
        "f_start": fr.start.astype(np.int64).tobytes(),
        "f_fresh": fr.fresh_until.astype(np.int64).tobytes(),
        "f_current": fr.current_until.astype(np.int64).tobytes(),
        "f_expires": fr.expires.astype(np.int64).tobytes(),
        "channels": _channels(
            table.channel.take(at).compact(),
            table.length[at],
            table.vectors[at] if table.vectors is not None else None,
        )
        | {"sources": _sources_text(table, doc_files)},
        "successors": {d: [file_of[id(f)] for f in fs] for d, fs in eidx.superseded_by.items()},
        "resolution": resolution,
    }


def _channels(rows: Csr, lengths: np.ndarray, vectors: np.ndarray | None) -> dict[str, Any]:
    """The enhanced channels' part of the payload, from the documents' weighted terms (a
    vocabulary sorted by key): postings by key (documents ascending within a key), the
    length norms (:class:`~.channels.ChannelIndex`'s arithmetic), meaning vectors and the
    snapshot's similarity moments."""
    n = len(lengths)
    doc_of = np.repeat(np.arange(n, dtype=np.int64), rows.off[1:] - rows.off[:-1])
    order = np.argsort(rows.ids, kind="stable")
    counts = np.bincount(rows.ids, minlength=len(rows.vocab)) if len(rows.ids) else np.zeros(0, dtype=np.int64)
    end = np.cumsum(counts)
    tfs = rows.val.astype(np.float64)
    avg = float(lengths.mean()) if n else 1.0
    out: dict[str, Any] = {
        "keys": rows.vocab,
        "start": (end - counts).astype(np.int64).tobytes(),
        "end": end.astype(np.int64).tobytes(),
        "docs": doc_of[order].astype(np.int32).tobytes(),
        "tfs": _tfs_bytes(tfs[order]),
        "norm": np.asarray(bm25.length_norm(lengths, avg or 1.0), dtype=np.float64).tobytes(),
        "idf_one": float(bm25.idf(n, 1) if n else 1.0),
        "tfs32": bool(np.array_equal(tfs.astype(np.float32).astype(np.float64), tfs)),
        "vectors": None,
        "moments": None,
    }
    if vectors is None:
        return out
    out["vectors"] = np.ascontiguousarray(vectors, dtype=np.float16).tobytes() if n else b""
    if n:
        v = vectors.astype(np.float32).astype(np.float64)  # as ChannelIndex.similarity_spread
        out["moments"] = (int(v.shape[1]), (v.sum(axis=0) / n).tobytes(), ((v.T @ v) / n).tobytes())
    return out


def _sources_text(table: RowTable, doc_files: list[int]) -> tuple[bytes, bytes, str]:
    """The translated keys' Chinese words by document: the documents that have some
    (int32), where each one's JSON list starts in the text (int64, one more at the end) and
    the text. A query decodes only the documents whose translated hits it explains (as
    thousands of small tuples they cost about half of the index's unpacking)."""
    docs: list[int] = []
    pieces: list[str] = []
    for d, f in enumerate(doc_files):
        if table.sources[f]:
            docs.append(d)
            pieces.append(json.dumps(table.sources[f]))
    starts = np.cumsum([0, *map(len, pieces)], dtype=np.int64)
    return np.asarray(docs, dtype=np.int32).tobytes(), starts.tobytes(), "".join(pieces)


def _tfs_bytes(tfs: np.ndarray) -> bytes:
    """Weighted term frequencies (sums of small multiples of the field weights) as float32
    when that is exact, else float64."""
    narrow = tfs.astype(np.float32)
    return narrow.tobytes() if np.array_equal(narrow.astype(np.float64), tfs) else tfs.astype(np.float64).tobytes()


def write_rows(path: str, version: str, folders: str, listing: Listing, table: RowTable) -> None:
    """Write the rows (one per listed file, in the listing's order)."""
    write_sealed(path, ROWS_MAGIC, (version, folders, listing.paths, listing.keys, table.plain()))


# ---------------------------------------------------------------------------- patching


def _stored(path: str, version: str, folders: str) -> tuple[list[str], list[Any], RowTable] | None:
    data = read_sealed(path, ROWS_MAGIC)
    if type(data) is not tuple or len(data) != 5 or data[0] != version or data[1] != folders:
        return None
    _v, _f, files, keys, plain = data
    try:
        table = RowTable.from_plain(plain)
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return (files, keys, table) if len(files) == len(keys) == len(table) else None


def _analyse(facts: list[Fact]) -> list[Value]:
    """Values of facts whose files changed, computed directly (not through the memo's disk
    layer: reading it whole would cost more than the analysis)."""
    from ..compat.tokenize import tokens
    from ..resolve import _topic_strings
    from .channels import _fact_weights
    from .fields import _compute, _half, fact_fields, meaning_text
    from .memo import recall_text
    from .term_matrix import term_freqs

    for f in facts:
        FACT_MEMO.seed(f, "fields", _compute(f))
    vecs: list[bytes | None] = [None] * len(facts)
    if facts:
        try:
            from ..lang import embed

            vecs = [v.astype(np.float16).tobytes() for v in _half(embed([meaning_text(f) for f in facts]))]
        except (ImportError, OSError, ValueError):
            pass
    return [
        (term_freqs(tokens(recall_text(f))), _fact_weights(f), vec, _topic_strings(f), fact_fields(f).sources)
        for f, vec in zip(facts, vecs)
    ]


def _with(table: RowTable, order: list[int], facts: list[Fact], at: list[int]) -> RowTable:
    """``table``'s rows in ``order`` (a negative entry: no fact), the rows of ``facts``
    (analysed now) at positions ``at``."""
    extra = RowTable.from_values([*_analyse(facts), None])
    base = len(table)
    pick = [r if r >= 0 else base + len(facts) for r in order]
    for i, f in enumerate(at):
        pick[f] = base + i
    return table.joined(extra).take(pick)


def patch(
    store: Store, listing: Listing, version: str, folders: str, index_file: str
) -> tuple[dict[str, Any], RecallIndex, RowTable] | None:
    """The payload of the store's snapshot now (with the skeleton index and the rows it
    came from), patched from the stored rows when few files changed (at most
    :data:`~.term_matrix.INCREMENTAL_SHARE` of them); ``None`` when there are no usable
    rows or too much changed (the caller builds it in full)."""
    from .index import RecallIndex

    stored = _stored(rows_path(index_file), version, folders)
    if stored is None:
        return None
    files, keys, table = stored
    before = {p: (tuple(k), r) for r, (p, k) in enumerate(zip(files, keys))}
    now = dict(zip(listing.paths, listing.keys))
    changed = sum(1 for p, k in now.items() if p not in before or before[p][0] != k)
    changed += sum(1 for p in before if p not in now)
    if changed > max(1, int(INCREMENTAL_SHARE * len(listing.paths))):
        return None
    facts = store.snapshot().facts
    pos = {p: f for f, p in enumerate(listing.paths)}
    if any(f.path not in pos for f in facts) or stat_keys(listing.paths) != listing.keys:
        return None  # a fact the listing does not hold, or a file changed since: a full build
    order = [-1] * len(listing.paths)
    todo: list[Fact] = []
    for fact in facts:
        f = pos[fact.path]
        old = before.get(fact.path)
        if old is not None and old[0] == now[fact.path] and table.has[old[1]]:
            order[f] = old[1]
        else:
            todo.append(fact)
    table = _with(table, order, todo, [pos[f.path] for f in todo])
    index = RecallIndex.skeleton(
        facts, lambda fact: table.terms.off[pos[fact.path] + 1] > table.terms.off[pos[fact.path]]
    )
    lacking = [f for f in index.docs if not table.has_channel[pos[f.path]]]
    if lacking:  # facts that were no pool documents before (their shadowing fact went away)
        table = _with(table, list(range(len(table))), lacking, [pos[f.path] for f in lacking])
    table = table.compact()
    _seed(index.all_facts, table, pos)
    return payload(index, listing, table), index, table


def _seed(facts: Sequence[Fact], table: RowTable, pos: dict[str, int]) -> None:
    """The resolver's per-fact inputs, from the rows (nothing analysed again)."""
    topics = table.topics()
    wide = table.vectors.astype(np.float32) if table.vectors is not None else None
    for fact in facts:
        f = pos[fact.path]
        if topics[f] is not None:
            FACT_MEMO.seed(fact, "topic-strings", topics[f])
        if wide is not None:
            FACT_MEMO.seed(fact, "meaning", wide[f])

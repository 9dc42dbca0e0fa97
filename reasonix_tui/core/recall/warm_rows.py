"""A long-lived process's warm recall index, started from the on-disk rows.

The warm hook server and the MCP server keep one recall index in memory and follow the
store by file-system events (:mod:`~reasonix_tui.core.store.live`). Building that index
the first time used to analyse every fact — language analysis, the meaning model, the
resolver's topic strings — which at 100k facts took minutes of CPU. One-shot commands
already keep all of it on disk, by fact file: the rows beside the on-disk recall index
(:mod:`.disk_rows`, :mod:`.row_table`).

:func:`seed_from_rows` validates those rows exactly as the one-shot path does (one
``stat`` per fact file, compared with the stat keys they were built from, and again after
the store's snapshot is read) and hands each unchanged file's values to the per-fact memo
(:meth:`~.memo.FactMemo.seed`, in memory only) for the very fact objects of the store's
snapshot. The index, the enhanced channels and the resolver are then built as before,
through the memo: a fact whose file changed (or that the rows do not hold) is analysed,
every other one is not. After that the process keeps its index current from events as
before (unchanged facts stay the same objects, so their memoised values are reused).

Seeded values are the values analysis gives (the rows are written from them; a test
compares the answers with a fresh in-memory index).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..store.model import Fact
    from ..store.store import Store
    from .row_table import RowTable

__all__ = ["seed_from_rows"]


def seed_from_rows(store: Store, *, recall: bool = True) -> int:
    """Seed the per-fact memo for the store's current snapshot from the on-disk rows of its
    recall index: each fact whose file's stat key (when it was read) is the one its row was
    built from. The number of facts seeded (0 when there are no valid rows, the folders need
    the store's own rules, or files changed while a plain store's snapshot was read).
    ``recall=False``: only what the subject/topic resolver reads (meaning vectors, topic
    strings), for a process that searches but does not recall (the MCP server)."""
    from . import disk_index, disk_rows

    folders = "\0".join(str(d) for _s, d in store._dirs())  # noqa: SLF001 - the store's own folder order
    stored = disk_rows._stored(disk_rows.rows_path(disk_index.index_path(store)), disk_index.VERSION, folders)  # noqa: SLF001
    if stored is None:
        return 0
    files, keys, table = stored
    parsed = _parsed_keys(store)
    if parsed is None:
        return 0
    facts, now = parsed
    row_of = {p: r for r, (p, k) in enumerate(zip(files, keys)) if tuple(k) == now.get(p)}
    pairs = [(fact, r) for fact in facts if (r := row_of.get(fact.path, -1)) >= 0 and table.has[r]]
    _seed(pairs, table, recall)
    return len(pairs)


def _parsed_keys(store: Store) -> tuple[Sequence[Fact], dict[str, tuple[int, ...]]] | None:
    """The snapshot's facts and the stat key of the file each was read from: a live store
    says (:meth:`~reasonix_tui.core.store.live.LiveStore.fact_files`: even a snapshot read
    before an edit whose event is still pending is matched by the key it was read at);
    for a plain store, one ``stat`` per file before the snapshot is read and again after
    (``None`` when a file changed in between, or the folders need the store's own rules)."""
    from .listing import list_fact_files, stat_keys

    fact_files = getattr(store, "fact_files", None)
    if fact_files is not None:
        snap, files = fact_files()
        return snap.facts, {p: tuple(k) for p, (_scope, k) in files.items()}
    listing = list_fact_files(store)
    if listing is None:
        return None
    facts = store.snapshot().facts
    if stat_keys(listing.paths) != listing.keys:
        return None  # a file changed while the snapshot was read: analyse as before
    return facts, dict(zip(listing.paths, map(tuple, listing.keys)))


def _seed(pairs: list[tuple[Any, int]], table: RowTable, recall: bool) -> None:
    """Each fact's values from its row: meaning vector and topic strings, and with
    ``recall`` what the recall index and its channels read (:func:`_seed_recall`)."""
    from .memo import FACT_MEMO

    topics = table.topics()
    wide = table.vectors.astype(np.float32) if table.vectors is not None else None
    seed = FACT_MEMO.seed
    for fact, r in pairs:
        if wide is not None:
            seed(fact, "meaning", wide[r])
        if topics[r] is not None:
            seed(fact, "topic-strings", topics[r])
    if recall:
        _seed_recall(pairs, table)


def _seed_recall(pairs: list[tuple[Any, int]], table: RowTable) -> None:
    """Recall tokens (as the multiset their frequencies are) and their term frequencies
    (with this process's interned ids, as :func:`~.index._term_freqs` makes them), channel
    weights and translated-key sources."""
    from .index import _TERM_LOCK, _intern
    from .memo import FACT_MEMO

    terms, channel = table.terms, table.channel
    tvocab, toff, tids, tval = terms.vocab, terms.off.tolist(), terms.ids.tolist(), terms.val.tolist()
    ids_all, counts_all = terms.ids.astype(np.int64), terms.val.astype(np.int64)
    with _TERM_LOCK:
        interned = np.fromiter(map(_intern, tvocab), dtype=np.int64, count=len(tvocab))
    cvocab, coff, cids = channel.vocab, channel.off.tolist(), channel.ids.tolist()
    cval = np.ascontiguousarray(channel.val, dtype=np.float64)
    has_channel, lengths = table.has_channel.tolist(), table.length.tolist()
    seed = FACT_MEMO.seed
    for fact, r in pairs:
        a, b = toff[r], toff[r + 1]
        names = [tvocab[t] for t in tids[a:b]]
        counts = tval[a:b]
        seed(fact, "tokens", [t for t, c in zip(names, counts) for _ in range(c)])
        seed(fact, "term-freqs", (dict(zip(names, counts)), interned[ids_all[a:b]], counts_all[a:b]))
        if has_channel[r]:
            a, b = coff[r], coff[r + 1]
            seed(fact, "channel-weights", ([cvocab[k] for k in cids[a:b]], cval[a:b].tobytes(), lengths[r]))
            seed(fact, "key-sources", dict(table.sources[r]))

"""Per-fact-file rows of the on-disk recall index, kept as columns (:class:`RowTable`).

Each fact file has, derived from that one fact: its recall tokens' term frequencies, its
enhanced channels' weighted terms and length, its meaning vector and the resolver's topic
strings. Strings live once in a vocabulary per kind (sorted); a row is a slice of id and
value arrays (CSR). Taking the rows of unchanged files into a new table after a change is
array gathers, and reading or writing the table is a handful of byte strings, not
thousands of Python objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Value", "RowTable", "Csr"]

Value = tuple[dict[str, int], Any, "bytes | None", Any, Any]
"""One fact's values as computed: recall-token frequencies, channel weights ``(keys,
float64 weights, length)`` or ``None``, the float16 meaning vector or ``None``, the topic
strings ``(keys, labels, cues, states a change)`` or ``None``, and the Chinese word each
translated key came from (``FactFields.sources``; ``None`` with no channel weights)."""


@dataclass
class Csr:
    """Rows of ids into a vocabulary, with a value column (CSR)."""

    vocab: list[str]
    off: np.ndarray
    ids: np.ndarray
    val: np.ndarray

    def row(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """Ids and values of row ``r``."""
        a, b = int(self.off[r]), int(self.off[r + 1])
        return self.ids[a:b], self.val[a:b]

    def take(self, rows: np.ndarray) -> Csr:
        """A table of the given rows, in that order (the same vocabulary)."""
        lens = (self.off[1:] - self.off[:-1])[rows]
        off = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lens, out=off[1:])
        pick = np.repeat(self.off[:-1][rows] - off[:-1], lens) + np.arange(int(off[-1]), dtype=np.int64)
        return Csr(self.vocab, off, self.ids[pick], self.val[pick])

    def compact(self) -> Csr:
        """The same rows over a vocabulary of only the strings they use, sorted."""
        seen = np.bincount(self.ids, minlength=len(self.vocab)) if len(self.ids) else np.zeros(len(self.vocab))
        used = np.flatnonzero(seen)
        names = [self.vocab[i] for i in used.tolist()]
        order = sorted(range(len(names)), key=names.__getitem__)
        remap = np.zeros(len(self.vocab), dtype=np.int32)
        remap[used[order]] = np.arange(len(names), dtype=np.int32)
        return Csr([names[i] for i in order], self.off, remap[self.ids], self.val)

    @classmethod
    def build(cls, rows: Sequence[Sequence[tuple[str, Any]] | None], dtype: Any) -> Csr:
        """From ``(string, value)`` pairs per row (``None``: an empty row)."""
        vocab: dict[str, int] = {}
        ids: list[int] = []
        vals: list[Any] = []
        off = [0]
        for items in rows:
            for s, v in items or ():
                ids.append(vocab.setdefault(s, len(vocab)))
                vals.append(v)
            off.append(len(ids))
        return cls(
            list(vocab), np.asarray(off, dtype=np.int64), np.asarray(ids, dtype=np.int32), np.asarray(vals, dtype=dtype)
        )

    def joined(self, other: Csr) -> Csr:
        """This table's rows, then ``other``'s (vocabularies merged)."""
        index = {s: i for i, s in enumerate(self.vocab)}
        vocab = list(self.vocab)
        remap = np.empty(len(other.vocab), dtype=np.int64)
        for j, s in enumerate(other.vocab):
            i = index.get(s)
            if i is None:
                i = index[s] = len(vocab)
                vocab.append(s)
            remap[j] = i
        ids = np.concatenate([self.ids, remap[other.ids].astype(np.int32) if len(other.ids) else other.ids])
        off = np.concatenate([self.off, other.off[1:] + self.off[-1]])
        return Csr(vocab, off, ids, np.concatenate([self.val, other.val.astype(self.val.dtype)]))

    def plain(self) -> tuple[list[str], bytes, bytes, bytes, str]:
        """Marshal-able."""
        return (
            self.vocab,
            self.off.tobytes(),
            self.ids.astype(np.int32).tobytes(),
            self.val.tobytes(),
            self.val.dtype.str,
        )

    @classmethod
    def from_plain(cls, data: Any) -> Csr:
        """:meth:`plain` read back."""
        vocab, off, ids, val, dtype = data
        return cls(
            list(vocab),
            np.frombuffer(off, dtype=np.int64),
            np.frombuffer(ids, dtype=np.int32),
            np.frombuffer(val, dtype=np.dtype(dtype)),
        )


@dataclass
class RowTable:
    """Every fact file's rows (``has[f]``: file ``f`` holds a fact with values)."""

    has: np.ndarray
    terms: Csr
    """Recall-token term frequencies."""
    channel: Csr
    """Channel keys and BM25F-weighted frequencies."""
    has_channel: np.ndarray
    length: np.ndarray
    """Channel document length."""
    vectors: np.ndarray | None
    """float16, one row per file (``None`` when the meaning model was missing)."""
    topic_keys: Csr
    topic_labels: Csr
    cues: list[tuple[tuple[str, str, bool], ...]]
    strong: np.ndarray
    has_topic: np.ndarray
    sources: list[tuple[tuple[str, str], ...]]
    """Per file: translated key → the Chinese word it came from (for traces)."""

    def __len__(self) -> int:
        return len(self.has)

    @classmethod
    def from_values(cls, values: Sequence[Value | None]) -> RowTable:
        """From the values of each file (``None``: no fact)."""
        n = len(values)
        has = np.fromiter((v is not None for v in values), dtype=bool, count=n)
        terms = Csr.build([list(v[0].items()) if v is not None else None for v in values], np.int32)
        chans = [v[1] if v is not None else None for v in values]
        channel = Csr.build(
            [list(zip(c[0], np.frombuffer(c[1], dtype=np.float64).tolist())) if c is not None else None for c in chans],
            np.float64,
        )
        has_channel = np.fromiter((c is not None for c in chans), dtype=bool, count=n)
        length = np.fromiter((float(c[2]) if c is not None else 0.0 for c in chans), dtype=np.float64, count=n)
        vecs = [v[2] if v is not None else None for v in values]
        vectors = None
        if all(x is not None for v, x in zip(values, vecs) if v is not None):
            size = next((len(x) for x in vecs if x is not None), 512)
            vectors = np.frombuffer(b"".join(x if x is not None else bytes(size) for x in vecs), dtype=np.float16)
            vectors = vectors.reshape(n, size // 2)
        topics = [v[3] if v is not None else None for v in values]
        return cls(
            has,
            terms,
            channel,
            has_channel,
            length,
            vectors,
            Csr.build([[(k, 0) for k in sorted(t[0])] if t is not None else None for t in topics], np.int8),
            Csr.build([[(k, 0) for k in sorted(t[1])] if t is not None else None for t in topics], np.int8),
            [tuple(tuple(c) for c in t[2]) if t is not None else () for t in topics],
            np.fromiter((bool(t[3]) if t is not None else False for t in topics), dtype=bool, count=n),
            np.fromiter((t is not None for t in topics), dtype=bool, count=n),
            [tuple(map(tuple, v[4] or ())) if v is not None else () for v in values],
        )

    def take(self, rows: Sequence[int]) -> RowTable:
        """A table of the given rows, in that order."""
        at = np.asarray(rows, dtype=np.int64)
        return RowTable(
            self.has[at],
            self.terms.take(at),
            self.channel.take(at),
            self.has_channel[at],
            self.length[at],
            self.vectors[at] if self.vectors is not None else None,
            self.topic_keys.take(at),
            self.topic_labels.take(at),
            [self.cues[i] for i in at.tolist()],
            self.strong[at],
            self.has_topic[at],
            [self.sources[i] for i in at.tolist()],
        )

    def joined(self, other: RowTable) -> RowTable:
        """This table's rows, then ``other``'s."""
        vectors = None
        if self.vectors is not None and other.vectors is not None:
            if self.vectors.shape[1:] == other.vectors.shape[1:] or not len(other):
                vectors = np.concatenate([self.vectors, other.vectors.reshape(len(other), -1)])
        return RowTable(
            np.concatenate([self.has, other.has]),
            self.terms.joined(other.terms),
            self.channel.joined(other.channel),
            np.concatenate([self.has_channel, other.has_channel]),
            np.concatenate([self.length, other.length]),
            vectors,
            self.topic_keys.joined(other.topic_keys),
            self.topic_labels.joined(other.topic_labels),
            self.cues + other.cues,
            np.concatenate([self.strong, other.strong]),
            np.concatenate([self.has_topic, other.has_topic]),
            self.sources + other.sources,
        )

    def compact(self) -> RowTable:
        """The same rows over sorted vocabularies of only the strings they use."""
        return RowTable(
            self.has,
            self.terms.compact(),
            self.channel.compact(),
            self.has_channel,
            self.length,
            self.vectors,
            self.topic_keys.compact(),
            self.topic_labels.compact(),
            self.cues,
            self.strong,
            self.has_topic,
            self.sources,
        )

    def topics(self) -> list[tuple[frozenset[str], frozenset[str], tuple[Any, ...], bool] | None]:
        """The resolver's topic strings of every file (as
        :func:`~reasonix_tui.core.resolve._topic_strings`; ``None``: none kept)."""
        kv, lv = self.topic_keys.vocab, self.topic_labels.vocab
        kids, koff = self.topic_keys.ids.tolist(), self.topic_keys.off.tolist()
        lids, loff = self.topic_labels.ids.tolist(), self.topic_labels.off.tolist()
        out: list[tuple[frozenset[str], frozenset[str], tuple[Any, ...], bool] | None] = []
        for f, (has, strong) in enumerate(zip(self.has_topic.tolist(), self.strong.tolist())):
            if not has:
                out.append(None)
                continue
            keys = frozenset(map(kv.__getitem__, kids[koff[f] : koff[f + 1]]))
            labels = frozenset(map(lv.__getitem__, lids[loff[f] : loff[f + 1]]))
            out.append((keys, labels, self.cues[f], strong))
        return out

    def plain(self) -> dict[str, Any]:
        """Marshal-able."""
        return {
            "has": self.has.tobytes(),
            "terms": self.terms.plain(),
            "channel": self.channel.plain(),
            "has_channel": self.has_channel.tobytes(),
            "length": self.length.tobytes(),
            "vectors": (self.vectors.shape[1], self.vectors.tobytes()) if self.vectors is not None else None,
            "topic_keys": self.topic_keys.plain(),
            "topic_labels": self.topic_labels.plain(),
            "cues": self.cues,
            "strong": self.strong.tobytes(),
            "has_topic": self.has_topic.tobytes(),
            "sources": self.sources,
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> RowTable:
        """:meth:`plain` read back (``ValueError``/``KeyError``/``TypeError`` when it is not one)."""
        has = np.frombuffer(data["has"], dtype=bool)
        vec = data["vectors"]
        out = cls(
            has,
            Csr.from_plain(data["terms"]),
            Csr.from_plain(data["channel"]),
            np.frombuffer(data["has_channel"], dtype=bool),
            np.frombuffer(data["length"], dtype=np.float64),
            np.frombuffer(vec[1], dtype=np.float16).reshape(len(has), vec[0]) if vec is not None else None,
            Csr.from_plain(data["topic_keys"]),
            Csr.from_plain(data["topic_labels"]),
            list(data["cues"]),
            np.frombuffer(data["strong"], dtype=bool),
            np.frombuffer(data["has_topic"], dtype=bool),
            list(data["sources"]),
        )
        n = len(has)
        parts = (out.terms, out.channel, out.topic_keys, out.topic_labels)
        if (
            any(len(p.off) != n + 1 for p in parts)
            or len(out.cues) != n
            or len(out.sources) != n
            or len(out.length) != n
        ):
            raise ValueError("rows of different lengths")
        return out

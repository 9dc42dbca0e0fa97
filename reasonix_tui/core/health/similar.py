"""Near-duplicates by meaning: facts that say the same thing in different words.

Two steps:

1. :class:`MeaningPairs` finds every pair whose meaning vectors (the recall's meaning
   channel, :func:`~reasonix_tui.core.recall.fields.fact_vectors`) are at least
   :data:`MEANING_MIN` alike. It is kept up to date by *content*: a fact whose text did
   not change keeps its pairs, so after one write only the written fact's row is
   computed (a matrix product of one vector with the store's); from scratch the rows are
   computed in blocks over the upper triangle. A fact's row adds at most
   :data:`PER_FACT` pairs (its nearest neighbours), so a store of look-alike facts stays
   linear. Its state can be saved and loaded, so a one-shot process starts where the
   last one stopped.
2. :func:`near_duplicates` keeps the pairs that also share their words (:func:`judge`):
   the terms of each (the language package's analysis: stems, identifiers, Chinese words),
   weighted by how much each word says on its own (a store-independent prior, so a
   verdict depends on the two facts only and is cached by their content), are covered by
   the other at least :data:`COVER_MIN` both ways — and that do not give different values (each naming an identifier or number the
   other does not: ``v1``/``v2``, ``Node 18``/``Node 20`` is a change, not a duplicate)
   nor state a change ("switched from", "no longer", "不再": the recall's replacement cues).

Calibration (hand-written pairs, see tests/test_health.py): the same rule in other words
scores 0.57-0.94 by meaning; a replaced value of one topic scores as high (0.57-0.87),
which is why the word cover and the value test are needed, and why the subject and topic
resolver's pairs are reported as supersessions before this check sees them.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..store.model import Fact

__all__ = [
    "MEANING_MIN",
    "COVER_MIN",
    "PER_FACT",
    "MAX_GROUP",
    "MeaningPairs",
    "Verdicts",
    "NearDuplicate",
    "near_duplicates",
    "meaning_key",
]

MEANING_MIN = 0.55
"""Cosine of the meaning vectors at or above which a pair is considered."""
COVER_MIN = 0.4
"""idf-weighted share of each fact's terms found in the other, both ways."""
BLOCK = 1024
"""Rows of the similarity matrix computed at once."""
PER_FACT = 5
"""Most pairs a fact's row adds (its nearest neighbours), so a store of look-alike facts
(generated, templated) costs N·5 pairs, not N²."""
MAX_GROUP = 12
"""Largest group of near-duplicates reported as one finding (bigger ones are templates)."""


def _meaning_key(fact: Fact) -> bytes:
    from ..recall.fields import meaning_text

    return hashlib.blake2b(meaning_text(fact).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def meaning_key(fact: Fact) -> bytes:
    """A digest of what the meaning channel reads of a fact (title, description, body)."""
    from ..recall.memo import FACT_MEMO

    return FACT_MEMO.get(fact, "health-key", _meaning_key)  # type: ignore[no-any-return]  # the memo holds what _meaning_key returns


def _pair(a: bytes, b: bytes) -> tuple[bytes, bytes]:
    return (a, b) if a < b else (b, a)


class Verdicts(dict[tuple[bytes, bytes], Any]):
    """What :func:`judge` said per content-key pair (either order), knowing which pairs it
    turned down (:attr:`closed`, in sorted order), so a run skips them without a look."""

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.closed: set[tuple[bytes, bytes]] = {_pair(*k) for k, v in self.items() if v is None}

    def __setitem__(self, key: tuple[bytes, bytes], value: Any) -> None:
        super().__setitem__(key, value)
        if value is None:
            self.closed.add(_pair(*key))

    def forget(self, pair: tuple[bytes, bytes]) -> None:
        """Drop the verdicts of ``pair`` (sorted), both orders."""
        self.pop(pair, None)
        self.pop((pair[1], pair[0]), None)
        self.closed.discard(pair)


class MeaningPairs:
    """Pairs of facts at least :data:`MEANING_MIN` alike by meaning, kept by content key."""

    def __init__(self, threshold: float = MEANING_MIN) -> None:
        self.threshold = threshold
        """The cosine a pair needs."""
        self.known: frozenset[bytes] = frozenset()
        """Content keys whose pairs are known."""
        self.pairs: dict[tuple[bytes, bytes], float] = {}
        """``(key, key)`` (sorted) → cosine."""
        self.verdicts = Verdicts()
        """Content-key pair → what :func:`judge` said (see :func:`near_duplicates`)."""
        self.computed = 0
        """Rows computed by the last :meth:`update`."""
        self.last_keys: list[bytes] = []
        """The content keys of the facts of the last :meth:`update`, in their order."""
        self._matrix: np.ndarray | None = None
        self._rows: dict[bytes, int] = {}
        self._index: dict[bytes, list[tuple[bytes, bytes]]] | None = None

    def update(
        self, facts: Sequence[Fact], keys: Sequence[bytes] | None = None, *, open_only: bool = False
    ) -> list[tuple[int, int, float]]:
        """Pairs ``(i, j, cosine)`` of ``facts`` (``i < j``), computing rows only for facts
        whose content is new since the last update. With ``open_only``, only the pairs
        :func:`judge` did not turn down already (what :func:`near_duplicates` looks at)."""
        keys = list(keys) if keys is not None else [meaning_key(f) for f in facts]
        self.last_keys = keys
        current = frozenset(keys)
        new = [i for i, k in enumerate(keys) if k not in self.known]
        pairs, verdicts, index = self.pairs, self.verdicts, self._pair_index()
        for gone in self.known - current:
            for p in index.pop(gone, ()):
                pairs.pop(p, None)
                verdicts.forget(p)
        self.computed = len(new)
        if new:
            self._add_rows(facts, keys, new)
        self.known = current
        where: dict[bytes, list[int]] = {}
        for i, k in enumerate(keys):
            where.setdefault(k, []).append(i)
        out = []
        chosen = pairs.keys() - verdicts.closed if open_only else pairs.keys()
        for ka, kb in chosen:
            cos = pairs[(ka, kb)]
            for i in where.get(ka, ()):
                for j in where.get(kb, ()):
                    out.append((min(i, j), max(i, j), cos))
        out.sort()
        return out

    def _pair_index(self) -> dict[bytes, list[tuple[bytes, bytes]]]:
        """Content key → the pairs it is in (entries of pairs gone since may linger: harmless)."""
        if self._index is None:
            self._index = {}
            for p in self.pairs:
                self._index.setdefault(p[0], []).append(p)
                self._index.setdefault(p[1], []).append(p)
        return self._index

    def _add_rows(self, facts: Sequence[Fact], keys: list[bytes], new: list[int]) -> None:
        """Compute the rows of the facts at ``new`` (against every other fact)."""
        pairs, index = self.pairs, self._pair_index()
        vecs = self._vectors(facts, keys)
        old = [i for i, k in enumerate(keys) if k in self.known]
        order = np.asarray(old + new, dtype=np.int64)
        base = len(old)
        for s in range(0, len(new), BLOCK):
            rows = order[base + s : base + s + BLOCK]
            cols = order[: base + s + BLOCK]  # old facts, earlier new ones, and this block
            sims = vecs[rows] @ vecs[cols].T
            # a row's own column and the block's upper half are not pairs (each pair once)
            local = np.arange(len(rows))
            sims[local, base + s + local] = -1.0
            upper = np.triu(np.ones((len(rows), len(rows)), dtype=bool), k=1)
            sims[:, base + s : base + s + len(rows)][upper] = -1.0
            for a, b in self._best(sims):
                i, j = int(rows[a]), int(cols[b])
                ki, kj = keys[i], keys[j]
                if ki == kj:
                    continue  # the same text twice: the exact duplicate check reports it
                p = (ki, kj) if ki < kj else (kj, ki)
                if p not in pairs:
                    index.setdefault(ki, []).append(p)
                    index.setdefault(kj, []).append(p)
                pairs[p] = float(sims[a, b])

    def _vectors(self, facts: Sequence[Fact], keys: list[bytes]) -> np.ndarray:
        """The facts' meaning vectors as one matrix: the rows of unchanged texts are taken
        from the last one (a vector depends on the text only), so after a write only the
        written fact's vector is looked up, not every fact's."""
        from ..recall.fields import fact_vectors

        rows = self._rows
        at = [rows.get(k, -1) for k in keys]
        missing = [i for i, r in enumerate(at) if r < 0]
        if self._matrix is None or len(missing) * 4 > len(keys):
            vecs = fact_vectors(list(facts))
        else:
            vecs = self._matrix[np.asarray(at, dtype=np.int64)]
            if missing:
                vecs[missing] = fact_vectors([facts[i] for i in missing])
        self._matrix = vecs
        self._rows = {k: i for i, k in enumerate(keys)}
        return vecs

    def _best(self, sims: np.ndarray) -> list[tuple[int, int]]:
        """Per row, the (at most :data:`PER_FACT`) most similar columns at the threshold."""
        k = min(PER_FACT, sims.shape[1])
        if k <= 0:
            return []
        top = (
            np.argpartition(-sims, k - 1, axis=1)[:, :k]
            if sims.shape[1] > k
            else np.tile(np.arange(sims.shape[1]), (sims.shape[0], 1))
        )
        vals = np.take_along_axis(sims, top, axis=1)
        r, c = np.nonzero(vals >= self.threshold)
        return [(int(a), int(top[a, b])) for a, b in zip(r.tolist(), c.tolist())]

    def state(self) -> tuple[Any, ...]:
        """What :meth:`restore` takes (marshal-able)."""
        return (
            self.threshold,
            tuple(sorted(self.known)),
            tuple((a, b, c) for (a, b), c in self.pairs.items()),
            tuple((a, b, v) for (a, b), v in self.verdicts.items()),
            self._saved_vectors(),
        )

    def _saved_vectors(self) -> tuple[Any, ...]:
        """The vector matrix with its content keys (float16: the precision vectors are kept
        at, so they come back equal), or ``()``."""
        if self._matrix is None or not self._rows:
            return ()
        keys = tuple(self._rows)
        rows = self._matrix[np.fromiter(self._rows.values(), dtype=np.int64, count=len(keys))]
        return (keys, rows.shape[1], rows.astype(np.float16).tobytes())

    def restore(self, state: Any) -> bool:
        """Take the state a previous process saved; False (and nothing taken) when it is
        not one or was made with another threshold."""
        try:
            threshold, known, pairs, verdicts, vectors = state
            if float(threshold) != self.threshold:
                return False
            if vectors:
                keys, dim, blob = vectors
                matrix = np.frombuffer(blob, dtype=np.float16).astype(np.float32).reshape(len(keys), int(dim))
                self._matrix, self._rows = matrix, {bytes(k): i for i, k in enumerate(keys)}
            self.known = frozenset(bytes(k) for k in known)
            self.pairs = {(bytes(a), bytes(b)): float(c) for a, b, c in pairs}
            self.verdicts = Verdicts(((bytes(a), bytes(b)), v) for a, b, v in verdicts)
            self._index = None
        except (TypeError, ValueError):
            return False
        return True


@dataclass(frozen=True, slots=True)
class NearDuplicate:
    """Two facts that say the same thing."""

    i: int
    j: int
    meaning: float
    """Cosine of the meaning vectors."""
    cover: tuple[float, float]
    """Share of each fact's (weighted) terms found in the other."""
    shared: tuple[str, ...]
    """Words both use (as the first fact writes them), rarest first."""
    passages: tuple[str, ...]
    """Runs of three or more words both contain, longest first."""


def _analysed(fact: Fact) -> tuple[tuple[tuple[str, float, str], ...], bool]:
    """``((key, weight, surface), ...)`` of the fact's title, description and body (a key
    once; translated keys left out), each weighted by how much the word says on its own
    (:func:`~reasonix_tui.core.lang.prior.word_prior`, store-independent), and whether it
    states a change (a strong replacement cue)."""
    from ..lang import analyze
    from ..lang.prior import word_prior
    from ..recall.fields import fact_fields, meaning_text

    seen: dict[str, tuple[str, float, str]] = {}
    for t in analyze(meaning_text(fact), index=False):
        if t.key.startswith("t:") or t.key in seen:
            continue
        seen[t.key] = (t.key, word_prior(t.source.lower()), t.source)
    change = any(strong for _, strong in fact_fields(fact).cues)
    return tuple(seen.values()), change


def _terms_of(fact: Fact) -> tuple[dict[str, float], dict[str, str], bool]:
    from ..recall.memo import FACT_MEMO

    terms, change = FACT_MEMO.get(fact, "health-terms", _analysed)
    return {k: w for k, w, _ in terms}, {k: s for k, _, s in terms}, bool(change)


_WORD = re.compile(r"\S+")


def common_passages(a: str, b: str, min_words: int = 3) -> tuple[str, ...]:
    """Runs of at least ``min_words`` words found in both texts (as ``a`` writes them)."""
    aw = _WORD.findall(a)
    bw = _WORD.findall(b)

    def norm(w: str) -> str:
        return w.strip(".,;:!?()[]`'\"").lower()

    sm = difflib.SequenceMatcher(None, [norm(w) for w in aw], [norm(w) for w in bw], autojunk=False)
    runs = [" ".join(aw[m.a : m.a + m.size]) for m in sm.get_matching_blocks() if m.size >= min_words]
    return tuple(sorted(runs, key=len, reverse=True))


def judge(a: Fact, b: Fact) -> tuple[tuple[float, float], tuple[str, ...], tuple[str, ...]] | None:
    """``(cover, shared words, passages)`` when ``a`` and ``b`` say the same thing by their
    words (each covers the other's weighted terms at least :data:`COVER_MIN`, neither names
    an identifier or number the other lacks while the other names one it lacks, neither
    states a change); ``None`` otherwise. Depends on the two facts only."""
    from ..recall.fields import meaning_text

    wa, sa, ca = _terms_of(a)
    wb, _, cb = _terms_of(b)
    if not wa or not wb or ca or cb:
        return None
    shared = wa.keys() & wb.keys()
    ta, tb = sum(wa.values()), sum(wb.values())
    cover = (sum(wa[k] for k in shared) / ta if ta else 0.0, sum(wb[k] for k in shared) / tb if tb else 0.0)
    if min(cover) < COVER_MIN:
        return None
    xa = {k for k in wa.keys() - shared if k.startswith("x:")}
    xb = {k for k in wb.keys() - shared if k.startswith("x:")}
    if xa and xb:
        return None  # each names an identifier or number the other does not: different values
    words = tuple(sa[k] for k in sorted(shared, key=lambda k: (-wa[k], k)))
    return cover, words, common_passages(meaning_text(a), meaning_text(b))


def near_duplicates(
    facts: Sequence[Fact],
    pairs: Sequence[tuple[int, int, float]],
    skip: set[frozenset[str]] | None = None,
    cache: dict[tuple[bytes, bytes], Any] | None = None,
    keys: Sequence[bytes] | None = None,
) -> list[NearDuplicate]:
    """The pairs (from :meth:`MeaningPairs.update`) that :func:`judge` keeps; pairs of
    ids in ``skip`` are left out. ``cache`` (content-key pair → verdict) spares judging
    a pair whose two texts did not change; ``keys`` are the facts' content keys when known."""
    skip = skip or set()
    out: list[NearDuplicate] = []
    for i, j, cos in pairs:
        a, b = facts[i], facts[j]
        key = None
        if cache is not None:
            key = (keys[i], keys[j]) if keys else (meaning_key(a), meaning_key(b))
            if cache.get(key, True) is None:
                continue  # judged before: not a duplicate (most pairs; no need to look further)
        if a.id == b.id or frozenset((str(a.id), str(b.id))) in skip:
            continue
        if key is not None and cache is not None:
            if key not in cache:
                cache[key] = judge(a, b)
            verdict = cache[key]
        else:
            verdict = judge(a, b)
        if verdict is not None:
            cover, words, passages = verdict
            out.append(NearDuplicate(i, j, cos, cover, words, passages))
    return out

"""One query word's matches over a snapshot, sparse: only the facts that hold one of its
keys are touched, so a query costs what its postings hold, not what the store holds.

:func:`unit_hits` scores every alternative of a query word (its own key, translations,
identifier segments, file-name prefixes) against its posting and keeps, per fact, the best
alternative — the first one reaching the highest contribution, as if the alternatives were
applied one after the other and a later one replaced an earlier one only when strictly
better. :func:`positions` maps the union of several words' facts to positions in one
candidate array.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .. import bm25
from ..lang import QueryUnit
from ..lang.terms import TRANSLATED, shortened_form


class Postings(Protocol):
    """What scoring reads of a :class:`~.channels.ChannelIndex`."""

    norm: np.ndarray
    """Per-document length normalisation."""

    def posting(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(documents, weighted term frequencies)`` of ``key``."""

    def idf(self, df: int) -> float:
        """The idf of a term found in ``df`` documents."""

    def file_keys(self, key: str) -> list[str]:
        """The file-name keys that ``key`` begins and is shorter than."""


__all__ = [
    "Postings",
    "UnitHits",
    "unit_hits",
    "positions",
    "RARE_PRIOR",
    "TRANSLATED_EVIDENCE",
    "LEXICAL",
    "RELATED",
]

RARE_PRIOR = 0.95
"""A word known to be this rare in the language (its prior rests on evidence, not on the
word being unknown), written in exactly one fact, passes that fact on its own: the
counterpart of Reasonix's distinctive term for words (灰度 "canary release" is as specific
as ``checkout_v2``)."""
TRANSLATED_EVIDENCE = 0.85
"""A translated match's weight as gate evidence (its score weight is lower)."""

_EMPTY_DOCS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class UnitHits:
    """The facts one query word matched (sorted document numbers) with, per fact, the
    contribution of its best alternative, that alternative's gate evidence and its index."""

    docs: np.ndarray
    best: np.ndarray
    evidence: np.ndarray
    which: np.ndarray


NO_HITS = UnitHits(_EMPTY_DOCS, np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int16))


def unit_hits(
    cidx: Postings, unit: QueryUnit, dictionary: bool, rare: list[np.ndarray], lexicon: bool = True
) -> UnitHits:
    """One query word's best alternative per fact it matched; appends to ``rare`` the facts
    that alone hold a known-rare word. ``dictionary``/``lexicon``: the translated/related
    alternatives count. A related word (:mod:`~..lang.lexicon`) is read only when the word
    itself (or its translation) is in no fact: the store's own use of the word says which
    sense it means."""
    docs_h = best_h = ev_h = which_h = None
    for ai, (key, weight, channel) in enumerate(unit.alternatives):
        if channel == "translated" and not dictionary:
            continue
        if channel == "related" and (
            not lexicon or (docs_h is not None and not RELATED[unit.alternatives][which_h].all())
        ):
            continue
        post = _posting(cidx, key, channel, unit.show(ai))
        if post is None:
            continue
        docs, tf = post
        idf = cidx.idf(len(docs))
        if channel == "lexical" and weight >= 1.0 and len(docs) == 1 and unit.known and unit.prior >= RARE_PRIOR:
            rare.append(docs)
        contrib = bm25.term_score(weight * idf, tf, cidx.norm[docs])
        ev = (weight if channel == "lexical" else weight * TRANSLATED_EVIDENCE / TRANSLATED) * idf
        if docs_h is None or best_h is None or ev_h is None or which_h is None:
            keep = contrib > 0
            if not keep.all():
                docs, contrib = docs[keep], contrib[keep]
            if len(docs):
                docs_h, best_h = docs, contrib
                ev_h, which_h = np.full(len(docs), ev), np.full(len(docs), ai, dtype=np.int16)
            continue
        # a later alternative replaces an earlier one where it is strictly better
        at = np.minimum(docs_h.searchsorted(docs), len(docs_h) - 1)
        present = docs_h[at] == docs
        i = at[present]
        better = contrib[present] > best_h[i]
        if better.any():
            j = i[better]
            best_h[j] = contrib[present][better]
            ev_h[j] = ev
            which_h[j] = ai
        new = ~present & (contrib > 0)
        if new.any():
            merged = np.concatenate((docs_h, docs[new]))
            order = np.argsort(merged, kind="stable")
            docs_h = merged[order]
            best_h = np.concatenate((best_h, contrib[new]))[order]
            ev_h = np.concatenate((ev_h, np.full(int(new.sum()), ev)))[order]
            which_h = np.concatenate((which_h, np.full(int(new.sum()), ai, dtype=np.int16)))[order]
    if docs_h is None or best_h is None or ev_h is None or which_h is None:
        return NO_HITS
    return UnitHits(docs_h, best_h, ev_h, which_h)


def positions(n: int, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted distinct documents, position of each of docs among them)`` for document
    numbers below ``n``: by sorting when they are few, by one pass over a mark array when
    they cover much of the store (the same result either way)."""
    if len(docs) * 8 < n:
        uniq, inverse = np.unique(docs, return_inverse=True)
        return uniq, inverse.reshape(-1)
    mark = np.zeros(n, dtype=bool)
    mark[docs] = True
    uniq = np.flatnonzero(mark)
    inv = np.empty(n, dtype=np.intp)
    inv[uniq] = np.arange(len(uniq))
    return uniq, inv[docs]


def _posting(cidx: Postings, key: str, channel: str, gloss: str = "") -> tuple[np.ndarray, np.ndarray] | None:
    """The documents and weighted frequencies behind one alternative's key (``gloss``: the
    word a translated key was made from)."""
    if key.startswith("&"):
        return _conjunction(cidx, key)
    if key.startswith("^"):
        return _file_prefix(cidx, key[1:])
    post = cidx.posting(key)
    if post is None and channel == "translated" and key.startswith("w:"):
        post = _prefix(cidx, key, gloss)
    return post


def _prefix(cidx: Postings, key: str, gloss: str) -> tuple[np.ndarray, np.ndarray] | None:
    """A translated English key against a fact word whose key is a shorter prefix of it and
    a shortened form of the gloss (:func:`~..lang.terms.shortened_form`): "document" →
    ``docume`` meets "docs" → ``doc``, "grayscale" meets "gray"; "apple" never meets "app",
    nor "news" "new"."""
    word = key[2:]
    for size in range(len(word) - 1, 2, -1):
        post = cidx.posting("w:" + word[:size])
        if post is not None and shortened_form(word[:size], gloss or word):
            return post
    return None


def _file_prefix(cidx: Postings, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Documents with a file name that ``key`` (``f:nvm``) begins and is shorter than
    (``f:nvmrc``); the frequency is the largest."""
    acc: dict[int, float] = {}
    for name in cidx.file_keys(key):
        post = cidx.posting(name)
        if post is None:
            continue
        for d, tf in zip(post[0].tolist(), post[1].tolist()):
            acc[d] = max(acc.get(d, 0.0), tf)
    if not acc:
        return None
    docs = np.fromiter(acc, dtype=np.int64, count=len(acc))
    order = np.argsort(docs)
    return docs[order], np.fromiter(acc.values(), dtype=np.float64, count=len(acc))[order]


def _conjunction(cidx: Postings, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``&k1&k2…``: documents having every key; the frequency is the smallest."""
    parts = [p for p in key.split("&") if p]
    posts = [cidx.posting(p) for p in parts]
    if any(p is None for p in posts):
        return None
    docs, tf = posts[0]  # type: ignore[misc]  # postings are (docs, tf) pairs
    for other in posts[1:]:
        od, ot = other  # type: ignore[misc]  # postings are (docs, tf) pairs
        at = od.searchsorted(docs)  # postings are sorted: membership by binary search
        mask = od[np.minimum(at, len(od) - 1)] == docs
        docs, tf = docs[mask], tf[mask]
        if not len(docs):
            return None
        tf = np.minimum(tf, ot[at[mask]])
    return docs, tf


class _Channel(dict[tuple[tuple[str, float, str], ...], np.ndarray]):
    """Per alternatives tuple of a query word: which alternatives are of one channel (memoised)."""

    def __init__(self, channel: str) -> None:
        super().__init__()
        self.channel = channel

    def __missing__(self, alts: tuple[tuple[str, float, str], ...]) -> np.ndarray:
        out = np.asarray([channel == self.channel for _, _, channel in alts], dtype=bool)
        self[alts] = out
        return out


LEXICAL = _Channel("lexical")
"""``LEXICAL[unit.alternatives]``: a bool array, True where the alternative is lexical."""
RELATED = _Channel("related")
"""``RELATED[unit.alternatives]``: True where the alternative is a related word (:mod:`~..lang.lexicon`)."""

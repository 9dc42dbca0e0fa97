"""Near-duplicates by meaning: facts that say the same thing in different words.

Two steps:

1. :class:`~.neighbours.MeaningPairs` finds the pairs where one fact is among the
   other's :data:`PER_FACT` nearest neighbours by meaning (the recall's meaning channel,
   :func:`~reasonix_tui.core.recall.fields.fact_vectors`; at least :data:`MEANING_MIN`
   alike), kept up to date by *content* and exactly (the same pairs as a search from
   scratch after any writes): after one write only the written fact's row is computed,
   and the fact is offered to the rows it is nearer to than their last neighbour. Its
   state can be saved and loaded, so a new process starts where the last one stopped.
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
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..store.model import Fact
from .neighbours import MEANING_MIN, PER_FACT, MeaningPairs, Verdicts, _pair, meaning_key  # noqa: F401  # _pair: tests

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

COVER_MIN = 0.4
"""idf-weighted share of each fact's terms found in the other, both ways."""
MAX_GROUP = 12
"""Largest group of near-duplicates reported as one finding (bigger ones are templates)."""


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
    from .memo_link import before

    before((fact,), "health-terms")

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

"""Meaning alone: the gate's last resort for a turn that shares no word with any fact.

A paraphrase ("who do I ring at 3am if the site goes down?" against a fact about the
PagerDuty rotation) matches no word, so no lexical or translated evidence exists. When
nothing passed the gate on words, the meaning channel may admit the one fact the turn is
closest to, if three things agree:

* the cosine is high in absolute terms (:data:`SIM_ALONE`);
* it stands out from the store's cosines for *this* turn (:data:`Z_ALONE` standard
  deviations above their mean, from :meth:`~.channels.ChannelIndex.similarity_spread`);
* several of the turn's own words point to that fact (:data:`SUPPORT_WORDS` words, each
  with a cosine of at least :data:`SUPPORT_SIM` to it, in a turn holding :data:`SUPPORT_MASS`
  of information). One topical word carries a
  whole turn's vector in an unrelated question ("what does lateinit do in Kotlin?" beside a
  Kotlin style rule, "这个周末天气怎么样？" beside a no-deploys-at-the-weekend rule), and a
  generic turn has no content words at all; a real paraphrase is spread over its words.

Cost: one float32 matrix-vector product over the store's meaning vectors, only for turns
that recalled nothing on words (the usual turn either recalls something or is generic).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..lang import QueryUnit

__all__ = ["SIM_ALONE", "Z_ALONE", "SUPPORT_SIM", "SUPPORT_WORDS", "SUPPORT_MASS", "best_alone", "admit"]

SIM_ALONE = 0.26
"""The least cosine between the turn and the fact admitted by meaning alone."""
Z_ALONE = 2.8
"""How many standard deviations above the store's mean cosine for the turn it must stand."""
SUPPORT_SIM = 0.12
"""A word of the turn points to the fact when its own vector's cosine with the fact's
reaches this (about the figure under which one shared word is no evidence of relatedness,
:data:`~.channels.SINGLE_SIM`)."""
SUPPORT_WORDS = 3
"""Words of the turn (function words are none) that must point to the fact."""
SUPPORT_MASS = 1.5
"""The least information in the turn: its words' priors
(:func:`~reasonix_tui.core.lang.prior.word_prior`) summed — three content words, not three
everyday ones ("ok", "go", "ahead")."""
MIN_FACTS = 10
"""Smaller stores have no meaningful spread of cosines."""


def best_alone(
    vectors: Any, n: int, units: Sequence[QueryUnit], qv: np.ndarray, spread: Any
) -> tuple[int, float] | None:
    """``(document, cosine)`` of the fact the turn's meaning admits alone, or ``None``.

    ``vectors`` are the store's unit meaning vectors (rows by document), ``qv`` the turn's,
    ``spread(qv)`` returns the mean and standard deviation of the turn's cosines over the
    store."""
    if n < MIN_FACTS or len(units) < SUPPORT_WORDS or sum(u.prior for u in units) < SUPPORT_MASS:
        return None
    sims = np.asarray(vectors @ qv, dtype=np.float32)
    top = int(np.argmax(sims))
    best = float(sims[top])
    if best < SIM_ALONE:
        return None
    mean, sd = spread(qv)
    if sd <= 0 or (best - mean) / sd < Z_ALONE:
        return None
    from ..lang import embed

    words = embed([u.label for u in units])
    support = int(np.count_nonzero(words @ np.asarray(vectors[top], dtype=np.float32) >= SUPPORT_SIM))
    if support < SUPPORT_WORDS:
        return None
    return top, best


def admit(cs: Any, doc: int, sim: float, bonus: float) -> None:
    """Make ``doc`` a passed candidate of the channel scores ``cs``
    (:class:`~.channels.ChannelScores`, arrays by position in ``cs.docs``): inserted with no
    word evidence when no word matched it, its score the meaning ``bonus`` unless the meaning
    channel already added it, its cosine ``sim`` recorded; ``cs.alone`` names it."""
    i = int(cs.docs.searchsorted(doc))
    if i >= len(cs.docs) or int(cs.docs[i]) != doc:
        cs.docs = np.insert(cs.docs, i, doc)
        cs.score = np.insert(cs.score.astype(np.float64), i, 0.0)  # a turn with no word hit has integer sums
        cs.candidates = np.insert(cs.candidates, i, True)
        cs.passed = np.insert(cs.passed, i, False)
        cs.evidence = np.insert(cs.evidence.astype(np.float64), i, 0.0)
        cs.coverage = np.insert(cs.coverage.astype(np.float64), i, 0.0)
        cs.which = np.insert(cs.which, i, -1, axis=1)
    if cs.sims.get(doc) is None:
        cs.score[i] += bonus
        j = int(cs.sims.docs.searchsorted(doc))
        cs.sims = type(cs.sims)(np.insert(cs.sims.docs, j, doc), np.insert(cs.sims.values, j, np.float32(sim)))
    cs.candidates[i] = True
    cs.passed[i] = True
    cs.alone = doc

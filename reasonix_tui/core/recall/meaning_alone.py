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

**Answer type** (:func:`best_by_answer`): when the rule above admits nothing, a question
whose wh-word and head noun expect a type of answer (:mod:`.answer_types`: "who …?" a person
or team, "what's the local port …?" a number, "when …?" a time, "where …?" a place) admits
the fact nearest to the turn's topic *among the facts holding that type*, when its cosine
reaches :data:`ANSWER_SIM` and it leads the next fact of that type by :data:`ANSWER_MARGIN`,
in a turn holding :data:`ANSWER_MASS` of information, and the whole turn's vector agrees
(among the facts nearest to the topic, the one holding the type nearest to the whole turn is
the same). The topic is the turn's words without the answer values it names itself (a
weekday, a number: "what time does the pharmacy close on Sundays?" is about a pharmacy). Among all facts a static model's nearest is often one
merely about the same things; among the facts that can answer, the nearest by a margin is
evidence that it does.

Cost: one float32 matrix-vector product over the store's meaning vectors, only for turns
that recalled nothing on words (the usual turn either recalls something or is generic);
the answer-type route embeds the turn's topic once more and reads the answer types
(computed per fact when the index is built) of the :data:`ANSWER_POOL` nearest facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..lang import QueryUnit

__all__ = [
    "SIM_ALONE",
    "Z_ALONE",
    "SUPPORT_SIM",
    "SUPPORT_WORDS",
    "SUPPORT_MASS",
    "ANSWER_SIM",
    "ANSWER_MARGIN",
    "ANSWER_MASS",
    "ANSWER_POOL",
    "best_alone",
    "best_by_answer",
    "admit",
]

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
ANSWER_SIM = 0.20
"""The least cosine between the turn's topic and the fact admitted by its answer type."""
ANSWER_MARGIN = 0.06
"""How far it must lead the next fact holding the expected type."""
ANSWER_MASS = 1.0
"""The least information in the turn (its words' priors summed): two content words, not the
everyday words of "how long will that take?"."""
ANSWER_POOL = 16
"""The nearest facts whose answer types are read; the next fact of the type outside them
is taken to be as near as the last of them (a margin never overstated)."""


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


def best_by_answer(
    vectors: Any, n: int, units: Sequence[QueryUnit], query: str, types_of: Any, qv: np.ndarray | None = None
) -> tuple[int, float, int] | None:
    """``(document, cosine, the expected types)`` of the fact the turn's answer type admits,
    or ``None`` (see the module). ``types_of(documents)`` returns the answer types of those
    documents (:func:`~.answer_types.fact_types`, computed when the index was built); ``qv``,
    the whole turn's vector, when given, must agree: the fact holding the type nearest to
    the whole turn is the same one."""
    from .answer_types import question_types, topic_words

    want = question_types(query)
    if not want or n < MIN_FACTS or sum(u.prior for u in units) < ANSWER_MASS:
        return None
    words = topic_words([u.label for u in units])
    if not words:
        return None
    from ..lang import embed

    tv = embed([" ".join(words)])[0]
    if float(np.abs(tv).sum()) == 0:
        return None
    sims = np.asarray(vectors @ tv, dtype=np.float32)
    k = min(ANSWER_POOL, n)
    near = np.argpartition(-sims, k - 1)[:k]
    near = near[np.argsort(-sims[near], kind="stable")]
    typed = near[(np.asarray(types_of(near)) & want) != 0]
    if not len(typed):
        return None
    best = float(sims[typed[0]])
    runner = float(sims[typed[1]]) if len(typed) > 1 else (float(sims[near[-1]]) if k < n else 0.0)
    if best < ANSWER_SIM or best - runner < ANSWER_MARGIN:
        return None
    if qv is not None and not _agrees(vectors, qv, near, int(typed[0]), want, types_of):
        return None
    return int(typed[0]), best, want


def _agrees(vectors: Any, qv: np.ndarray, near: np.ndarray, doc: int, want: int, types_of: Any) -> bool:
    """Whether ``doc`` is also the nearest fact holding the type ``want`` by the whole turn's
    vector ``qv`` (among the facts nearest to the topic, ``near``): the two readings of the
    turn — with and without the answer values it names — point to the same fact."""
    whole = np.asarray(vectors[near] @ qv, dtype=np.float32)
    typed = (np.asarray(types_of(near)) & want) != 0
    return bool(typed.any()) and int(near[int(np.argmax(np.where(typed, whole, -2.0)))]) == doc


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

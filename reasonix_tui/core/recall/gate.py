"""The recall gate's tests of a turn's words (:mod:`.channels` applies them): whether the
words a fact holds say something when they hold (nearly) all of a short turn, and whether a
turn is about one given fact (a pinned default, for the session-start block).

A turn made only of everyday words — "any update?", "one more thing", 回头再说 — says nothing
about any fact, even when a fact holds those words: each word's information is its prior
(:func:`~reasonix_tui.core.lang.prior.word_prior`, from shipped word frequencies and
dictionaries), and the words found must carry enough of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..lang import QueryUnit, query_units
from ..lang.terms import TRANSLATED
from ..store.model import Fact
from .fields import fact_fields

__all__ = ["C_FULL", "CONTENT_PRIOR", "ABOUT_SHARE", "LONE_PRIOR", "PAIR_PRIOR", "weighty", "named", "about_fact"]

C_FULL = 0.8
"""Two or more words covering this share of the query pass whatever the store's idf (a
store where every fact says "helm chart values" still answers "helm chart values")."""
CONTENT_PRIOR = 0.5
ABOUT_SHARE = 0.5
"""Share of a turn's information (its words' priors) a fact must hold for the turn to be
about it when fewer than two of the words found are content words (:func:`about_fact`)."""
LONE_PRIOR = 0.7
"""A word of a lower prior (:func:`~reasonix_tui.core.lang.prior.word_prior`: "check" 0.48,
"fix" 0.57, "status" 0.61, "update" 0.66, "进展" 0.61, "继续" 0.32; "database" 0.77) is an
everyday word. Found alone in a fact, it does not pass the gate on its share of the turn
when it holds :data:`C_FULL` of the turn's information (a short generic turn: "please fix
it", "can you check again?", "any update?"), neither through the meaning channel (the
cosine of a one-word turn only repeats the word), nor make the turn about a pinned default
(:func:`about_fact`). Identifiers, numbers, words rare in the store and titles the turn
spells out pass as before."""
PAIR_PRIOR = 0.6
"""Two or more words holding the whole turn must carry this much information together
("one more thing": 0.41 stays silent, "on call this week": 0.69 passes)."""


def weighty(
    units: Sequence[QueryUnit],
    which: np.ndarray,
    c: np.ndarray,
    count: np.ndarray,
    content: np.ndarray,
    firm: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Which facts hold words that say something when they hold (nearly) all of the turn,
    and which hold them only if the turn's meaning is the fact's (see below).

    Everyday words found alone are no evidence because the turn is short: they are all of
    "can you check again?", "any update?" or "one more thing", and still the turn says
    nothing about any fact. So where the words found cover :data:`C_FULL` of the turn, their
    information (``firm``: each word's prior, a word found only through a translation at
    :data:`~reasonix_tui.core.lang.terms.TRANSLATED` of it) must reach :data:`LONE_PRIOR` for
    one word, :data:`PAIR_PRIOR` for two or more. Two query words glossed to the same word
    of the fact (回头 and 再说 both "later") are one word, counted once (``count``,
    ``content`` and ``firm`` are corrected in place).

    In a turn made only of everyday words (every prior below :data:`LONE_PRIOR`: "sounds
    good, ship it", "give me a minute", "can you double-check that?") a fact holding one of
    them only, whatever share of the turn it holds or however rare it is in the store, is
    returned in the second array instead: it passes only when the meaning channel's cosine
    with the turn reaches the gate's line (the turn is about the fact: "where can I read the
    logs?" against a logging fact, 0.53; "give me a minute" against a retry schedule in
    minutes, 0.14)."""
    whole = c >= C_FULL
    if _glossed_alike(units):
        for p in np.flatnonzero(count >= 2).tolist():
            best: dict[str, tuple[float, float]] = {}
            for unit, a in zip(units, which[:, p].tolist()):
                if a >= 0:
                    key, _, channel = unit.alternatives[a]
                    w = unit.prior if channel == "lexical" else unit.prior * TRANSLATED
                    best[key] = max(best.get(key, (0.0, 0.0)), (w, unit.prior))
            count[p] = len(best)
            content[p] = sum(1 for _, prior in best.values() if prior >= CONTENT_PRIOR)
            firm[p] = sum(w for w, _ in best.values())
    loose = ~whole | (firm >= LONE_PRIOR) | ((count >= 2) & (firm >= PAIR_PRIOR))
    maybe = whole & ~loose & (count == 1)
    if maybe.any():
        loose |= maybe & (_own_gloss_prior(units, which, maybe) >= LONE_PRIOR)
    if units and max(u.prior for u in units) < LONE_PRIOR:
        # every word of the turn is an everyday one ("sounds good, ship it", "give me a
        # minute"): one of them found alone says nothing by itself, whatever share of the
        # turn it holds or however rare it is in the store
        lone = loose & (count < 2)
        return loose & ~lone, lone
    return loose, np.zeros_like(loose)


def _own_gloss_prior(units: Sequence[QueryUnit], which: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """By position (those of ``mask``): the highest prior of a turn word found there through
    a gloss of its own dictionary entry that is a specific English word (a translated
    alternative at the full :data:`~reasonix_tui.core.lang.terms.TRANSLATED` weight: 埋点 →
    "event", 覆盖率 → "coverage"; not a gloss of the characters inside an unknown word, nor
    one as common as "time"), else 0.

    The everyday-words test asks whether the turn's one word says something: that is the
    word's own prior, whichever language the fact wrote it in. The translation's
    uncertainty is already in the evidence (a translated match weighs less there); counting
    it a second time here kept every one-word question across languages silent (a word
    found only through a translation could carry at most 0.6 < :data:`LONE_PRIOR`)."""
    out = np.zeros(len(mask))
    at = np.flatnonzero(mask)
    for unit, row in zip(units, which[:, at]):
        if unit.prior < LONE_PRIOR:
            continue
        own = np.asarray(
            [channel == "translated" and weight >= TRANSLATED for _, weight, channel in unit.alternatives], dtype=bool
        )
        hit = row >= 0
        sel = at[hit][own[row[hit]]]
        out[sel] = np.maximum(out[sel], unit.prior)
    return out


def named(units: Sequence[QueryUnit], which: np.ndarray, lone: np.ndarray, fact_at: Any) -> np.ndarray:
    """Which of the ``lone`` facts (positions; ``fact_at(p)`` is the fact) hold the turn's one
    word as a name: a tool or product written as such (:func:`~reasonix_tui.core.tool_override.names_term`:
    capitalised inside a sentence, rare, a command's program), or a sentence that opens with
    the word in lower case ("black is not installed here": a name written as its users write
    it). "should I run black on my changes?" asks about that tool, everyday word or not."""
    from ..tool_override import names_term

    out = np.zeros(len(lone), dtype=bool)
    for p in np.flatnonzero(lone).tolist():
        fact = fact_at(p)
        for unit, a in zip(units, which[:, p].tolist()):
            if a >= 0 and unit.label.isascii() and unit.label.isalpha():
                text = fact.body or ""
                opens = re.search(r"(?:^|[.!?;]\s+)" + re.escape(unit.label) + r"\b", text)
                out[p] = out[p] or names_term(fact, unit.label) or opens is not None
    return out


def _glossed_alike(units: Sequence[QueryUnit]) -> bool:
    """Whether two of the turn's words share an alternative (a gloss, most often)."""
    seen: set[str] = set()
    for unit in units:
        keys = {key for key, _, channel in unit.alternatives if channel != "related"}
        if keys & seen:
            return True
        seen |= keys
    return False


def about_fact(query: str, fact: Fact) -> bool:
    """Whether a turn is about one given fact (one that is not in the recall pool, such as a
    pinned default): two of its content words (prior ≥ :data:`CONTENT_PRIOR`) are in the
    fact, directly or through the dictionary; or two or more words carrying the information
    of two content words (priors summing to 2 × :data:`CONTENT_PRIOR`: "Jest" 1.0 and
    "tests" 0.45) and :data:`ABOUT_SHARE` of the turn's; or the words found cover
    :data:`C_FULL` of the turn."""
    units = query_units(query)
    if not units:
        return False
    keys = fact_fields(fact).keys()
    # a related word (lexicon.py) counts only where the meaning channel agrees (channels.py)
    found = [u for u in units if any(key in keys for key, _, ch in u.alternatives if ch != "related")]
    content = sum(1 for u in found if u.prior >= CONTENT_PRIOR)
    mass = sum(u.prior for u in found)
    share = mass / (sum(u.prior for u in units) or 1.0)
    firm = sum(u.prior if _as_written(u, keys) else u.prior * TRANSLATED for u in found)
    return (
        content >= 2
        or (len(found) >= 2 and mass >= 2 * CONTENT_PRIOR and share >= ABOUT_SHARE)
        or (
            bool(found)
            and share >= C_FULL
            and (firm >= PAIR_PRIOR if len(found) >= 2 else firm >= LONE_PRIOR and _as_written(found[0], keys))
        )
    )


def _as_written(unit: QueryUnit, keys: Any) -> bool:
    """Whether ``unit`` is in a fact's ``keys`` itself, not only through a gloss (稍等一下 →
    "time")."""
    return any(channel == "lexical" and key in keys for key, _, channel in unit.alternatives)

"""A turn that shares one word with a fact but is about something the memory does not hold.

"what's the weather like in Lisbon this weekend?" shares "Lisbon" with a fact saying when
standup is (10:00 Lisbon time); "how long is the train from Berlin to Prague?" shares
"Berlin". The word is a real one, often rare in the store, and the whole turn's meaning
cosine with the fact is high (0.44, 0.47): a static model's turn vector is carried by the
word both share. What says the turn is about something else is the rest of it: words the
memory does not hold anywhere (weather, weekend; Prague), which, read together without the
shared word, are far from the fact by meaning.

So a fact that passed on one word of the turn stays out when the turn's words found in no
fact of the store carry :data:`ASIDE_MASS` of information (their priors, the information of
two content words) and the turn's words the fact does not hold, read as one phrase, have a
meaning cosine with it under :data:`ASIDE_SIM`. A real question naming one thing ("what does
Anika own?", "what's the logging setup?") has no such rest: its other words are few, or the
store holds them, or they mean the fact's topic ("what number should a command-line tool
return when the arguments are wrong?" against an exit-code rule: 0.23).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..lang import QueryUnit
from .gate import CONTENT_PRIOR

__all__ = ["ASIDE_MASS", "ASIDE_SIM", "aside"]

ASIDE_MASS = 2 * CONTENT_PRIOR
"""Information (summed priors) the turn's words found in no fact must carry: two content
words' worth. Calibration on the open parts: unrelated turns 1.0-2.9 ("Lisbon" turn 1.37);
real questions whose one word a fact holds carry 0.0-0.96 of words the store lacks ("what
editor setup do we use in Go?" 0.96), or mean the fact's topic (below)."""
ASIDE_SIM = 0.2
"""The cosine of the turn's words the fact does not hold, read as one phrase, with the
fact: unrelated turns 0.00-0.19, real questions 0.23 and more."""


def aside(
    units: Sequence[QueryUnit],
    which: np.ndarray,
    unknown: np.ndarray,
    single: np.ndarray,
    vectors_at: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Which of the ``single`` facts (positions; one turn word matched them) the turn is not
    about (see the module). ``which`` is the channel scores' unit × position match table
    (-1: no match), ``unknown`` per unit whether no fact of the store holds it,
    ``vectors_at(positions)`` the facts' unit meaning vectors (rows)."""
    out = np.zeros(len(single), dtype=bool)
    mass = sum(u.prior for u, lost in zip(units, unknown.tolist()) if lost)
    if mass < ASIDE_MASS or not single.any():
        return out
    from ..lang import embed

    # a fact matched by one word: the rest of the turn is every other word (one phrase per word)
    for u in range(len(units)):
        at = np.flatnonzero(single & (which[u, : len(single)] >= 0))
        rest = " ".join(unit.label for v, unit in enumerate(units) if v != u)
        if not len(at) or not rest:
            continue
        rv = embed([rest])[0]
        if float(np.abs(rv).sum()) > 0:
            out[at] = np.asarray(vectors_at(at) @ rv) < ASIDE_SIM
    return out

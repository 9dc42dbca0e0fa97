"""English: Snowball stemming and the closed class of function words.

* :func:`stem` is the Snowball English stemmer (``PyStemmer``), so "approve" and
  "approvals" share ``approv``.
* :func:`en_key` is the matching key of a word: its stem cut to :data:`KEY_LEN` runes, so
  that derivations the stemmer keeps apart still meet ("produce" → ``produc``,
  "production" → ``product`` → ``produc``). Words written with digits or ``_`` are keys
  as they are.
* :data:`FUNCTION_WORDS` is Snowball's English stop list (the closed class: articles,
  pronouns, auxiliaries, prepositions, conjunctions) plus indefinite pronouns, question
  words and contractions, which CC-CEDICT's glosses use ("where?", "sth"). A function
  word is never evidence in any channel.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

__all__ = ["stem", "en_key", "is_function_word", "FUNCTION_WORDS", "KEY_LEN", "agent_base"]

KEY_LEN = 6
"""Runes of a stem kept in a matching key."""

FUNCTION_WORDS = frozenset(
    # Snowball's English stop list (snowballstem.org/algorithms/english/stop.txt)
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers "
    "herself it its itself they them their theirs themselves what which who whom this that these those am is "
    "are was were be been being have has had having do does did doing would should could ought i'm you're "
    "he's she's it's we're they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll "
    "he'll she'll we'll they'll isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't "
    "wouldn't shan't shouldn't can't cannot couldn't mustn't let's that's who's what's here's there's when's "
    "where's why's how's a an the and but if or because as until while of at by for with about against between "
    "into through during before after above below to from up down in out on off over under again further then "
    "once here there when where why how all any both each few more most other some such no nor not only own "
    "same so than too very "
    # the same class, beyond that list: modal/auxiliary forms, indefinite pronouns, the
    # abbreviations dictionaries use for them, clitics the tokenizer splits off
    "can will shall may might must also just please whether whose whatever whoever wherever whichever "
    "however something anything nothing everything someone anyone somebody anybody somewhere anywhere "
    "nowhere everywhere sth sb oneself s t d ll m re ve".split()
)
FUNCTION_WORDS = FUNCTION_WORDS | frozenset(w.split("'")[0] for w in FUNCTION_WORDS if "'" in w)
"""English words that are never evidence on their own (with the hosts of the contractions
the tokenizer splits: "isn't" → isn, "doesn't" → doesn)."""

_LOCK = threading.Lock()
_STEMMER: Any = None


def _stemmer() -> Any:
    global _STEMMER
    if _STEMMER is None:
        with _LOCK:
            if _STEMMER is None:
                import Stemmer  # PyStemmer

                _STEMMER = Stemmer.Stemmer("english")
    return _STEMMER


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a lowercased word."""
    return str(_stemmer().stemWord(word))


@lru_cache(maxsize=65536)
def en_key(word: str) -> str:
    """The matching key of a lowercased word (see the module doc)."""
    if not word.isalpha():
        return word
    return stem(word)[:KEY_LEN]


def is_function_word(word: str) -> bool:
    """True for a closed-class English word (lowercased)."""
    return word in FUNCTION_WORDS


_VOWELS = frozenset("aeiou")


@lru_cache(maxsize=65536)
def agent_base(word: str) -> str:
    """The verb an agent noun is derived from, where Snowball keeps them apart (it stems
    "logger" to ``logger`` and "logging" to ``log``), or ``""``. Derivational morphology:

    * a doubled consonant before -er: logger → log, runner → run, planner → plan;
    * -izer/-iser → -ize: serializer → serialize, tokenizer → tokenize;
    * -ator → -ate: validator → validate, migrator → migrate.

    Plurals (loggers, validators) are read the same way.
    """
    w = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
    if len(w) < 5 or not w.isalpha():
        return ""
    if w.endswith(("izer", "iser")):
        return w[:-2] + "e"
    if w.endswith("ator") and len(w) >= 7:
        return w[:-2] + "e"
    if w.endswith("er") and len(w) >= 6:
        body = w[:-2]
        if body[-1] == body[-2] and body[-1] not in _VOWELS and body[-1] not in "lsz" and body[-3] in _VOWELS:
            return body[:-1]
    return ""

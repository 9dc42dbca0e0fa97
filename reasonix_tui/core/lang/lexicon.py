"""English word relations from Open English WordNet: what recall's *related* channel reads.

A turn often says a fact's idea in other words: a synonym ("bills" for invoices), a word of
the same family ("paid" for payouts), a broader or narrower word ("credentials" for
secrets). :func:`related` gives, for the matching key of an English word
(lowercased), the keys of the words WordNet relates to it, each with its
relation and the shipped meaning model's cosine of the two words.

The table (``data/oewn-related.txt.gz``, about 0.5 MB) is derived from the Open English
WordNet 2025 edition (CC BY 4.0) by ``scripts/build_lexicon.py`` and ships inside the
package: nothing is downloaded. It keeps only the first senses of each word (WordNet lists
a word's senses most frequent first) and words in common use; see ``data/README.md`` for
its provenance and licence. It is read once per process, on the first lookup, and searched
as text (no table of 13k entries is built: a lookup is one substring search).
"""

from __future__ import annotations

import gzip
import threading
from functools import lru_cache
from pathlib import Path

__all__ = ["related", "lemmas_of", "Related", "FORM", "SYNONYM", "DERIVED", "BROADER", "TABLE"]

TABLE = Path(__file__).resolve().parent / "data" / "oewn-related.txt.gz"
FORM, SYNONYM, DERIVED, BROADER = "f", "s", "d", "h"
"""Relations: the lemma of an irregular form (paid → pay); a member of the same synset; a
derivation link (pay → payment); one step up or down the hypernym tree (secret → password)."""

Related = tuple[str, str, str, float]
"""``(key, word, relation, cosine)``: the related word's matching key, the word, its
relation (:data:`FORM`, :data:`SYNONYM`, :data:`DERIVED`, :data:`BROADER`) and the meaning model's cosine
of the two words."""

_LOCK = threading.Lock()
_TEXT: list[str] = []


def _text() -> str:
    """The table as one string, each line preceded by a newline (read once)."""
    if not _TEXT:
        with _LOCK:
            if not _TEXT:
                try:
                    raw = gzip.decompress(TABLE.read_bytes()).decode("utf-8")
                except (OSError, EOFError, ValueError):
                    raw = ""
                _TEXT.append("\n" + raw)
    return _TEXT[0]


_DETACH = (
    ("ies", "y"),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("es", "e"),
    ("es", ""),
    ("s", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
)
"""WordNet's own detachment rules (``morphy``): an inflected word's candidate lemmas."""


def _entry(text: str, word: str) -> tuple[int, int] | None:
    at = text.find("\n" + word + "\t")
    if at < 0:
        return None
    start = at + len(word) + 2
    end = text.find("\n", start)
    return start, end if end >= 0 else len(text)


def lemmas_of(word: str) -> tuple[str, ...]:
    """The forms of an English word (lowercased) the table holds: the word itself and every
    lemma WordNet's detachment rules give (payments → payment, stored → store, stopped →
    stop, retained → retained and retain); ``()`` when none is there."""
    text = _text()
    if not word or "\n" in word or "\t" in word or " " in word:
        return ()
    out = [word] if _entry(text, word) else []
    for suffix, ending in _DETACH:
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            stem = word[: -len(suffix)]
            doubled = stem[:-1] if not ending and len(stem) > 2 and stem[-1] == stem[-2] else ""
            for cand in (stem + ending, doubled):
                if cand and cand not in out and _entry(text, cand):
                    out.append(cand)
    return tuple(out)


@lru_cache(maxsize=8192)
def related(word: str) -> tuple[Related, ...]:
    """The words related to an English word (lowercased, as written; its lemmas are found by
    :func:`lemmas_of`): for each lemma, the lemma itself when Snowball keeps it apart from the
    word, then its relations as the table orders them (the lemma of an irregular form,
    synonyms, derivations, broader or narrower words, the closest by meaning first within
    each); one entry per matching key, the first; ``()`` for a word the table does not hold."""
    from .english import en_key

    text = _text()
    own = en_key(word)
    seen = {own}
    out: list[Related] = []
    for lemma in lemmas_of(word):
        found = _entry(text, lemma)
        if found is None:
            continue
        items = [f"{lemma}/{FORM}/1.00"] + text[found[0] : found[1]].split(" ")
        for item in items:
            w, rel, cos = item.split("/")
            k = en_key(w)
            if k not in seen:
                seen.add(k)
                out.append((k, w, rel, float(cos)))
    return tuple(out)

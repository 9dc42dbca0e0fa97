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
its provenance and licence. It is read once per process, on the first lookup, as one text
of lines sorted by word, kept sealed in the language cache folder for the next process (one
string loads in about 2 ms where a dict of its 21k lines took about 14 ms); a word's line is
found by binary search and parsed when it is looked up.
"""

from __future__ import annotations

import gzip
import os
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
_MAGIC = b"RXTLEXTEXT1"
_TABLE: list[str] = []


def _parse() -> str:
    """The table as one text: a ``word<TAB>relations`` line per word, sorted by word, each
    ending in a newline (a word listed twice keeps its last line)."""
    try:
        raw = gzip.decompress(TABLE.read_bytes()).decode("utf-8")
    except (OSError, EOFError, ValueError):
        return ""
    lines = dict(line.split("\t", 1) for line in raw.split("\n") if "\t" in line and not line.startswith("#"))
    return "".join(f"{word}\t{rest}\n" for word, rest in sorted(lines.items()))


def _lines() -> str:
    """The sorted lines of the table (:func:`_parse`): read once per process, from a sealed
    copy in the language cache folder (:func:`.chinese.cache_dir`) when there is one (about
    2 ms), else from the table (about 40 ms), then kept there."""
    if not _TABLE:
        with _LOCK:
            if not _TABLE:
                from ..store.sealed import read_sealed, resource_stamp, source_stamp, write_sealed
                from . import chinese

                folder = chinese.cache_dir()
                stamp = source_stamp(__file__) + resource_stamp(str(TABLE))
                path = os.path.join(folder, f"lang-lexicon-{stamp}.marshal") if folder else ""
                table = read_sealed(path, _MAGIC) if path else None
                if not isinstance(table, str):
                    table = _parse()
                    if path and table:
                        try:
                            write_sealed(path, _MAGIC, table)
                        except (OSError, ValueError):
                            pass
                _TABLE.append(table)
    return _TABLE[0]


def _entry(word: str) -> str | None:
    """The relations of ``word`` as the table writes them (unparsed), ``None`` when the table
    does not hold the word: a binary search over the sorted lines of :func:`_lines`."""
    text = _lines()
    lo, hi = 0, len(text)  # lo is always a line's start
    while lo < hi:
        mid = (lo + hi) // 2
        start = text.rfind("\n", lo, mid) + 1 if mid > lo else lo
        start = max(start, lo)
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        tab = text.find("\t", start, end)
        key = text[start:tab] if tab >= 0 else text[start:end]
        if key == word:
            return text[tab + 1 : end] if tab >= 0 else ""
        if key < word:
            lo = end + 1
        else:
            hi = start
    return None


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


def lemmas_of(word: str) -> tuple[str, ...]:
    """The forms of an English word (lowercased) the table holds: the word itself and every
    lemma WordNet's detachment rules give (payments → payment, stored → store, stopped →
    stop, retained → retained and retain); ``()`` when none is there."""
    out = [word] if _entry(word) is not None else []
    for suffix, ending in _DETACH:
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            stem = word[: -len(suffix)]
            doubled = stem[:-1] if not ending and len(stem) > 2 and stem[-1] == stem[-2] else ""
            for cand in (stem + ending, doubled):
                if cand and cand not in out and _entry(cand) is not None:
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

    own = en_key(word)
    seen = {own}
    out: list[Related] = []
    for lemma in lemmas_of(word):
        items = [f"{lemma}/{FORM}/1.00", *(_entry(lemma) or "").split()]  # "lazy": no relations left
        for item in items:
            w, rel, cos = item.split("/")
            k = en_key(w)
            if k not in seen:
                seen.add(k)
                out.append((k, w, rel, float(cos)))
    return tuple(out)

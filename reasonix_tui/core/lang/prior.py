"""How much a word says on its own, independent of any store: a prior in ``(0, 1]``.

A query's share of matched words (the recall gate's coverage) weighs each word by this
prior, so "看" (look), "用" (use) or "get" count little and "值班" (on duty) or "deploy"
count fully, even when the store has never seen them.

* Chinese words: jieba's shipped inverse document frequencies (``jieba/analyse/idf.txt``,
  computed by jieba's authors on a large Chinese corpus).
* English words: the lower of two priors. How many CC-CEDICT glosses use the word (any
  word starting with its matching key) — a dictionary of 120,000 entries glosses "use",
  "get" and "make" thousands of times and "deploy" or "idempotent" a handful; and how often
  people write it (``wordfreq``'s English corpus frequencies), since a dictionary rarely
  glosses everyday words such as "friday", "weekend" or "thanks".

The tables load lazily, once per process (about 1 s together), from the cache folder when
they were saved there (``wordfreq`` itself is imported only to build its table).
"""

from __future__ import annotations

import bisect
import gzip
import importlib.util
import math
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import chinese
from .english import en_key
from .keyed_tables import cached_table

__all__ = ["word_prior", "word_known", "load_priors", "compound_parts", "gloss_count", "zipf"]

_LOCK = threading.Lock()
_EN_LOADED = False
_EN_TOTAL = 1

ZH_RANGE = (2.0, 9.0)
"""jieba idf mapped linearly onto the prior (below: 0.1, above: 1)."""
EN_RANGE = (4.0, 9.0)
"""``ln(entries / gloss count)`` mapped linearly onto the prior."""
EN_ZIPF = (3.5, 7.0)
"""An English word's Zipf frequency (``log10`` of its uses per billion words) mapped
linearly, reversed, onto the prior: at or below 3.5 (about once in 300,000 words) 1, at 7
("the" is 7.7) the floor; "friday" (5.0) 0.58, "deploy" (3.7) 0.94."""
FLOOR = 0.1


def _jieba_idf_path() -> Path:
    spec = importlib.util.find_spec("jieba")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("jieba is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "analyse" / "idf.txt"


_MAGIC = b"RXTPRIOR"


def _wordfreq_path() -> Path:
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("wordfreq is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "large_en.msgpack.gz"


def _cache_file(kind: str) -> str:
    if not chinese.cache_dir():
        return ""
    return os.path.join(chinese.cache_dir(), f"lang-prior-{kind}-{_stamp(kind)}.marshal")


def _stamp(kind: str) -> str:
    from ..store.sealed import resource_stamp, source_stamp

    sources = {"en": chinese.dictionary_path, "zh": _jieba_idf_path, "freq": _wordfreq_path}
    source = sources[kind]()
    return source_stamp(__file__, str(Path(__file__).with_name("english.py"))) + resource_stamp(str(source))


def _cached(kind: str, build: Callable[[], Any]) -> Any:
    """``build()``, or what it returned last time (sealed in the configured cache folder)."""
    from ..store.sealed import read_sealed, write_sealed

    path = _cache_file(kind)
    value = read_sealed(path, _MAGIC) if path else None
    if value is not None:
        return value
    value = build()
    if path:
        try:
            write_sealed(path, _MAGIC, value)
        except (OSError, ValueError):
            pass
    return value


def _build_zh() -> dict[str, float]:
    zh: dict[str, float] = {}
    with open(_jieba_idf_path(), encoding="utf-8") as fh:
        for line in fh:
            word, _, value = line.rstrip("\n").partition(" ")
            try:
                zh[word] = float(value)
            except ValueError:
                continue
    return zh


def _build_en() -> tuple[list[str], list[int], int]:
    """The English words glosses use (raw, lowercased, sorted), the running sum of their
    gloss counts and the number of entries. A query word's count is the sum over the words
    that start with its matching key (its inflections and derivations), read with a prefix
    range; a word's own count is one step of the sum."""
    with gzip.open(chinese.dictionary_path(), mode="rt", encoding="utf-8") as fh:
        raw = fh.read()  # read directly: an English turn never needs the dictionary itself
    senses = re.findall(r"\] /(.*)/$", raw, flags=re.M)
    counts = Counter(re.findall(r"[a-z]+", "\n".join(senses).lower()))
    words = sorted(counts)
    cum = [0]
    for w in words:
        cum.append(cum[-1] + counts[w])
    return words, cum, max(len(senses), 1)


SUPERLATIVE_ZIPF = 2.5
"""Words in -est are kept down to this Zipf frequency ("clearest" 3.0, "quickest" 3.4):
a comparative is told from an agent noun by its superlative (:func:`zipf`). The prior of
a word this rare is the top one either way."""


def _build_freq() -> dict[str, float]:
    """English words (lowercased letters) more frequent than :data:`EN_ZIPF`'s lower end
    (words in -est down to :data:`SUPERLATIVE_ZIPF`), with their Zipf frequency (``log10``
    of occurrences per billion words) in wordfreq's large English list; a rarer or unlisted
    word has the top prior."""
    from wordfreq import get_frequency_dict

    out: dict[str, float] = {}
    for word, freq in get_frequency_dict("en", wordlist="large").items():
        zipf = math.log10(freq) + 9.0 if freq > 0 else 0.0
        low = SUPERLATIVE_ZIPF if word.endswith("est") else EN_ZIPF[0]
        if zipf > low and word.isascii() and word.isalpha():
            out[word] = round(zipf, 2)
    return out


_TABLES: dict[str, Mapping[str, float]] = {}
"""The word → value tables loaded so far in this process (``zh``, ``freq``)."""


def _table(kind: str, build: Callable[[], dict[str, float]]) -> Mapping[str, float]:
    """The ``kind`` table, once per process: read by bucket from the cache folder
    (:mod:`.keyed_tables`: a query looks up a few words), else built (and kept there)."""
    table = _TABLES.get(kind)
    if table is None:
        with _LOCK:
            table = _TABLES.get(kind)
            if table is None:
                folder = chinese.cache_dir()
                stamp = _stamp(kind) if folder else ""
                table = _TABLES[kind] = cached_table(folder, f"prior-{kind}-keyed", stamp, lambda: (build(), None))[0]
    return table


def _freq_table() -> Mapping[str, float]:
    return _table("freq", _build_freq)


def _zh_table() -> Mapping[str, float]:
    return _table("zh", _build_zh)


_EN_WORDS: list[str] = []
_EN_CUMSUM: list[int] = []


def _en_table() -> None:
    """Load the English table (sorted and summed when it was cached)."""
    global _EN_LOADED, _EN_TOTAL, _EN_WORDS, _EN_CUMSUM
    if not _EN_LOADED:
        with _LOCK:
            if not _EN_LOADED:
                _EN_WORDS, _EN_CUMSUM, _EN_TOTAL = _cached("en", _build_en)
                _EN_LOADED = True


def _en_exact(word: str) -> int:
    """Gloss occurrences of exactly ``word``."""
    _en_table()
    i = bisect.bisect_left(_EN_WORDS, word)
    return _EN_CUMSUM[i + 1] - _EN_CUMSUM[i] if i < len(_EN_WORDS) and _EN_WORDS[i] == word else 0


def _en_count(key: str) -> int:
    """Gloss occurrences of every word starting with ``key``."""
    _en_table()
    lo = bisect.bisect_left(_EN_WORDS, key)
    hi = bisect.bisect_left(_EN_WORDS, key + "{")  # "{" sorts after every lowercase letter
    return _EN_CUMSUM[hi] - _EN_CUMSUM[lo]


def load_priors() -> None:
    """Load both tables now (from the cache folder given to
    :func:`~reasonix_tui.core.lang.configure` when they were saved there before)."""
    _zh_table()
    _en_table()
    _freq_table()


def _scale(value: float, lo: float, hi: float) -> float:
    return min(1.0, max(FLOOR, (value - lo) / (hi - lo)))


@lru_cache(maxsize=16384)
def word_prior(word: str) -> float:
    """The prior of a query word: a Chinese word, or an English word (lowercased)."""
    if not word:
        return FLOOR
    if chinese.han_runs(word) and chinese.han_runs(word)[0] == word:
        idf = _zh_table().get(word)
        return 1.0 if idf is None else _scale(idf, *ZH_RANGE)
    if not word.isalpha() or not word.isascii():
        return 1.0  # identifiers, numbers, other scripts
    n = _en_words(word)  # loads the table, and with it _EN_TOTAL
    by_gloss = _scale(math.log(_EN_TOTAL / (n + 1)), *EN_RANGE)
    lo, hi = EN_ZIPF
    by_freq = _scale(hi - _freq_table().get(word, 0.0), 0.0, hi - lo)
    return min(by_gloss, by_freq)


def _en_words(word: str) -> int:
    """Gloss occurrences of ``word``'s family: the words starting with its matching key or
    with the word itself (the key of "copy" is ``copi``, which "copy" does not start with)."""
    return max(_en_count(en_key(word)), _en_count(word))


@lru_cache(maxsize=16384)
def word_known(word: str) -> bool:
    """Whether the prior of ``word`` rests on evidence: a Chinese word in jieba's idf table,
    an English word CC-CEDICT's glosses use. An unknown word gets the top prior by default
    ("kotlin", a typo), which says nothing about how specific it is."""
    if not word:
        return False
    if chinese.han_runs(word) and chinese.han_runs(word)[0] == word:
        return word in _zh_table()
    if not word.isalpha() or not word.isascii():
        return False
    return _en_words(word) > 0


COMPOUND_PART_MIN = 4
"""Letters of each part of a closed English compound."""
COMPOUND_PART_COUNT = 5
"""Glosses that must use a part for it to count as an English word."""


@lru_cache(maxsize=16384)
def compound_parts(word: str) -> tuple[str, ...]:
    """The two English words a closed compound is written with ("deadletter" → dead,
    letter; "healthcheck" → health, check), or ``()``: a lowercased alphabetic word
    CC-CEDICT's glosses never use (nor its stem: "checkouts", "deploying" are not
    compounds), both of whose parts they use (at least :data:`COMPOUND_PART_COUNT` times,
    :data:`COMPOUND_PART_MIN` letters each: "redshift" stays whole). When several cuts
    work, the most balanced wins. Developers write one concept as one word or two
    ("dead-letter queue", "deadletter", "dead letter")."""
    if len(word) < 2 * COMPOUND_PART_MIN or not word.isalpha() or not word.isascii():
        return ()
    if _en_exact(word) > 0:
        return ()
    from .english import stem

    root = stem(word)
    if _en_exact(root) > 0:
        return ()  # checkouts: a form of a known word
    best: tuple[str, ...] = ()
    for i in range(COMPOUND_PART_MIN, len(word) - COMPOUND_PART_MIN + 1):
        a, b = word[:i], word[i:]
        if root in (a, stem(a)) or len(root) <= len(a):
            continue  # an inflection of the first part (deploying, printers), not a compound
        if _en_exact(a) >= COMPOUND_PART_COUNT and _en_exact(b) >= COMPOUND_PART_COUNT:
            if not best or min(len(a), len(b)) > min(len(x) for x in best):
                best = (a, b)
    return best


def gloss_count(word: str) -> int:
    """How many times CC-CEDICT's glosses use exactly ``word`` (lowercased)."""
    return _en_exact(word)


def zipf(word: str) -> float:
    """wordfreq's Zipf frequency of a lowercased English word, 0 at or below
    :data:`EN_ZIPF`'s lower end (the table keeps no rarer word; a word in -est, at or below
    :data:`SUPERLATIVE_ZIPF`)."""
    return _freq_table().get(word, 0.0)

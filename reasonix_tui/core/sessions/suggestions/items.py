"""Statements and imported notes before merging, and their merge terms.

An :class:`Item` is one statement or imported note; a :class:`Known` is an active fact or
an instruction line. Both carry weighted terms (words, concrete things, tools) from
:func:`.language.merge_terms`, compared by weighted overlap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...compat.gostr import fields, to_lower
from . import language as lang
from .model import Evidence

__all__ = ["Item", "Known", "normalize_key"]


IMPORT_SCORES = {"claude-memory": 3.5, "agent-notes": 3.0}


def normalize_key(s: str) -> str:
    """Lower-cased, whitespace collapsed (Reasonix's dedup key)."""
    return to_lower(" ".join(fields(s)))


@dataclass(slots=True)
class Item:
    """One statement or imported note, before merging."""

    origin: str
    """``history`` | ``claude-memory`` | ``agent-notes`` | ``memory-wanted``."""
    score: float
    reasons: list[str]
    text: str
    """The statement (description)."""
    core: str
    """Its strongest sentence (title)."""
    at_ns: int
    sources: list[Evidence]
    group: str
    """Where it was said: a session id or a file label (repetition counts distinct groups)."""
    policy: bool = False
    context: str = ""
    name: str = ""
    title: str = ""
    type: str = ""
    body: str = ""
    scope: str = "project"
    needs_edit: bool = False
    id_prefix: str = "memory-"
    terms: dict[str, float] = field(default_factory=dict)
    values: set[str] = field(default_factory=set)
    core_terms: dict[str, float] = field(default_factory=dict)
    words: tuple[str, ...] = ()
    weight: float = 0.0
    """Total weight of :attr:`terms` (set when prepared)."""
    superseded: bool = False
    """A newer statement on the same subject gives another value: kept as evidence only."""
    ref: tuple[str, ...] = ()
    """Where it came from, stable between listings: ``(transcript path, statement number)``
    or ``("import", number)`` (the merge state names members by it)."""

    norm: str = ""
    """:attr:`key`, once computed."""

    @property
    def key(self) -> str:
        """Normalised text (dismissals and exact repeats)."""
        if not self.norm:
            self.norm = normalize_key(self.text)
        return self.norm


@dataclass
class Known:
    """An active fact or an instruction line, as merge terms."""

    ref: str
    """``project/name.md`` for a fact, ``AGENTS.md`` for an instruction line."""
    is_fact: bool
    terms: dict[str, float]
    values: set[str]
    head_values: set[str]
    """Values named in the fact's title and description (its subject's current value)."""
    fact: Any = None


TERMS_MEMO: dict[str, tuple[tuple[tuple[str, float], ...], tuple[str, ...], tuple[str, ...]]] = {}
"""Merge terms of fact, instruction and imported texts by text (kept with the result cache,
so a recompute does not load the language resources for texts it has seen)."""


def base_terms(text: str) -> tuple[dict[str, float], set[str], tuple[str, ...]]:
    hit = TERMS_MEMO.get(text)
    if hit is None:
        terms, values, words = lang.merge_terms(text)
        TERMS_MEMO[text] = (tuple(terms.items()), tuple(sorted(values)), words)
        return terms, values, words
    return dict(hit[0]), set(hit[1]), hit[2]


def text_terms(text: str, tools: frozenset[str]) -> tuple[dict[str, float], set[str]]:
    terms, values, words = base_terms(text)
    add_tools(terms, values, words, tools)
    return terms, values


def add_tools(terms: dict[str, float], values: set[str], words: Iterable[str], tools: frozenset[str]) -> None:
    """Words that name a command the history ran (``yarn``, ``alembic``) are tools: concrete."""
    for w in words:
        if w in tools:
            terms.pop("w:" + lang.stem(w), None)
            terms["tool:" + w] = 2.0
            values.add("tool:" + w)
    for t in [t for t in values if t.startswith("code:")]:
        head = t[5:].split(" ", 1)[0]
        if head in tools:
            terms["tool:" + head] = 2.0
            values.add("tool:" + head)


def weighted_overlap(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(min(w, b[t]) for t, w in a.items() if t in b)


def anchor(a: dict[str, float], b: dict[str, float]) -> bool:
    shared = a.keys() & b.keys()
    if any(not t.startswith(("w:", "z:")) for t in shared):
        return True
    return sum(1 for t in shared if t.startswith("w:")) >= 2 or sum(1 for t in shared if t.startswith("z:")) >= 3


def similarity(a: dict[str, float], b: dict[str, float]) -> float:
    """Weighted overlap over the smaller side (0..1)."""
    wa, wb = sum(a.values()), sum(b.values())
    if not wa or not wb:
        return 0.0
    return weighted_overlap(a, b) / min(wa, wb)


def containment(a: dict[str, float], b: dict[str, float]) -> float:
    """Share of ``a``'s weight found in ``b``."""
    wa = sum(a.values())
    return weighted_overlap(a, b) / wa if wa else 0.0

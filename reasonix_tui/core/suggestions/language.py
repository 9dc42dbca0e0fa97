"""Words of a statement, for merging candidates and naming them.

Terms are weighted: concrete things (inline code, hosts, paths, files, identifiers,
versions) weigh most, tool names next, content words least; function words never count.
English words are reduced to a stem so "deploys" meets "deploy".
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..tokenize import tokens
from .signals import Entity, has_cjk

__all__ = ["STOPWORDS", "stem", "content_words", "cjk_terms", "gloss_words", "merge_terms", "VALUE_WEIGHT"]

STOPWORDS = frozenset(
    "a an the and or but if then so to of in on at by for with from into onto up out as is are was were be been "
    "being it its it's this that these those there here i you he she we they me my your our their us them do does "
    "did done not no yes can could would should will shall may might must have has had just also only very too "
    "please pls ok okay now than what which who whom whose when where why how all any some each every more most "
    "other such own same let lets get got gets make made need needs want like one two first next new old good "
    "fine sure right well way thing things about after before again over under off via per don't dont doesn't "
    "isn't aren't won't can't cannot always never use uses using used go goes going went anything everything "
    "something nothing whatever still already yet even ever much many lot lots bit really actually basically "
    "just thanks thank hey hi hello heads up fyi remember note reminder".split()
)
"""Function words (and the generic rule words every statement shares): never evidence."""

_ZH_STOP = frozenset("的了是在和与及或也都就还要把被给让用对从到向以后以前我们你们他们这个那个这些那些一下一点什么怎么".replace("", " ").split())


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A light English stem (plural, -ing, -ed)."""
    w = word.lower()
    if len(w) <= 3 or not w.isalpha():
        return w
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix == "s" and w.endswith("ss"):
                return w
            return w[: -len(suffix)] + repl
    return w


_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


def content_words(text: str) -> list[str]:
    """Stemmed English content words, in order."""
    out = []
    for w in _ASCII_WORD.findall(text):
        lw = w.lower()
        if lw in STOPWORDS or len(lw) < 2:
            continue
        out.append(stem(lw))
    return out


def cjk_terms(text: str) -> list[str]:
    """Chinese terms: overlapping character bigrams without function characters."""
    if not has_cjk(text):
        return []
    out = []
    for t in tokens(text):
        if has_cjk(t) and not (set(t) <= _ZH_STOP) and not (len(t) == 2 and (t[0] in _ZH_STOP and t[1] in _ZH_STOP)):
            out.append(t)
    return out


def gloss_words(text: str) -> list[str]:
    """English words for the Chinese in ``text`` (none without a dictionary)."""
    return []


def entity_term(e: Entity) -> str:
    """The merge term of an entity."""
    return f"{e.kind}:{e.value}"


VALUE_WEIGHT = {"version": 2.0, "port": 2.0, "name": 2.0}
"""Entity kinds that weigh less than the default 3 (a version or a port alone is weak evidence)."""
_WORDS = re.compile(r"(?<![\w.-])[a-z][\w-]*(?![\w-])")


def merge_terms(text: str) -> tuple[dict[str, float], set[str], tuple[str, ...]]:
    """``(terms, values, words)`` of a statement: weighted merge terms, the concrete things
    among them, and its lower-cased words (tool names are recognised later, against the
    commands the history ran)."""
    from .signals import entities

    terms: dict[str, float] = {}
    values: set[str] = set()
    for e in entities(text):
        t = entity_term(e)
        terms[t] = max(terms.get(t, 0.0), VALUE_WEIGHT.get(e.kind, 3.0))
        values.add(t)
    for w in content_words(text):
        terms.setdefault("w:" + w, 1.0)
    for g in gloss_words(text):
        terms.setdefault("w:" + stem(g), 0.8)
    for z in cjk_terms(text):
        terms.setdefault("z:" + z, 0.5)
    words = tuple(sorted(set(_WORDS.findall(text.lower()))))
    return terms, values, words

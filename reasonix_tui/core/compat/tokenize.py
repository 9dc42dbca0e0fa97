"""The shared retrieval tokenizer (store-format §6.3; Reasonix ``retrieval.Tokens``).

* A rune of the Han, Hiragana, Katakana or Hangul scripts is CJK. Consecutive CJK
  runes emit overlapping bigrams; a CJK run of one rune emits that rune.
* Letters (``unicode.IsLetter``), decimal digits (Nd) and ``_`` build a lowercased word.
* Anything else separates.

Examples (pinned by Reasonix's tests)::

    "BM25 检索 cache-first" -> bm25, 检索, cache, first
    "数据库迁移"            -> 数据, 据库, 库迁, 迁移
    "用pnpm装依赖"          -> 用, pnpm, 装依, 依赖

Runs are found with one ``regex`` scan (script properties need the ``regex`` module),
which is several times faster than a Python loop over runes.
"""

from __future__ import annotations

import re
from functools import lru_cache

import regex

from .gostr import to_lower, trim_space

__all__ = ["tokens", "tokens_reference", "query_terms", "required_query_terms", "is_cjk", "CJK_CLASS"]

CJK_CLASS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
_RUNS = regex.compile(
    rf"(?P<cjk>[{CJK_CLASS}]+)|(?P<word>[[\p{{L}}\p{{Nd}}_]--[{CJK_CLASS}]]+)",
    flags=regex.V1,
)
_CJK_ONE = regex.compile(rf"[{CJK_CLASS}]", flags=regex.V1)


def is_cjk(ch: str) -> bool:
    """True for a rune in the Han, Hiragana, Katakana or Hangul scripts."""
    return _CJK_ONE.fullmatch(ch) is not None


_ASCII_WORD = re.compile(r"[a-z0-9_]+")
_RUNS_LOWER = regex.compile(
    rf"([{CJK_CLASS}]+)|([[\p{{L}}\p{{Nd}}_]--[{CJK_CLASS}]]+)",
    flags=regex.V1,
)


def tokens(text: str) -> list[str]:
    """Tokenize ``text`` exactly like Reasonix (duplicates kept, in order).

    Lower-casing the whole text first is equivalent to lower-casing each word (the
    mapping is per rune and never changes a rune's class), except for ``İ`` (Go maps it
    to ``i``; Python to two code points) and ``Σ`` (Python's final-sigma rule), which take
    the reference path. ASCII text needs a single C-level ``findall``.
    """
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    if "\u0130" in text or "\u03a3" in text:
        return tokens_reference(text)
    out: list[str] = []
    for cjk, word in _RUNS_LOWER.findall(text.lower()):
        if cjk:
            if len(cjk) == 1:
                out.append(cjk)
            else:
                out.extend([cjk[i : i + 2] for i in range(len(cjk) - 1)])
        else:
            out.append(word)
    return out


def tokens_reference(text: str) -> list[str]:
    """The straightforward transcription of Reasonix's tokenizer (slow; for tests)."""
    out: list[str] = []
    for m in _RUNS.finditer(text):
        cjk = m.group("cjk")
        if cjk is not None:
            if len(cjk) == 1:
                out.append(cjk)
            else:
                out.extend(cjk[i : i + 2] for i in range(len(cjk) - 1))
        else:
            out.append(to_lower(m.group("word")))
    return out


@lru_cache(maxsize=1024)
def _query_terms(query: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tokens(query.strip())))


def query_terms(query: str) -> list[str]:
    """``Unique(Tokens(TrimSpace(query)))`` in first-seen order."""
    return list(_query_terms(query))


def required_query_terms(query: str, error: type[Exception]) -> tuple[str, list[str]]:
    """The trimmed query and its :func:`query_terms`, as Reasonix's search tools (the
    ``memory`` tool, ``history``) require them: an empty query, or one without a letter
    or a number, raises ``error`` with Reasonix's message."""
    q = trim_space(query)
    if not q:
        raise error("query is required")
    terms = query_terms(q)
    if not terms:
        raise error("query must contain at least one letter or number")
    return q, terms

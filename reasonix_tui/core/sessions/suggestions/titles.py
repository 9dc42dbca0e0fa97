"""Titles and names of candidates: a statement's rule cut to fit a list row, and a readable file name.

A title fits in :data:`TITLE_CELLS` terminal cells (a Han character takes two) and is cut
at a clause or phrase boundary; a name is readable words of the title (the concrete
things for a Chinese rule), never a hash.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ...compat.gostr import one_line
from . import language as lang
from .entities import entities
from .sentences import has_cjk
from .signals import title_text

__all__ = ["readable_name", "short_title"]


CLAUSE = re.compile(r"(?:[,;:](?=\s)|\s[—–-]\s|[，；：、]|\s\(|（)")


SENTENCE_END = re.compile(r"(?<=[\w)`'\"][.!?])(?<!e\.g\.)(?<!i\.e\.)(?<!vs\.)(?<!etc\.)\s+(?=[\w`])|(?<=[。！？])")


TITLE_CELLS = 44
"""A title fits in this many terminal cells (a Han character takes two): the list row of
the Suggestions pane shows it whole."""


def cells(s: str) -> int:
    """Terminal cells ``s`` takes (wide and full-width characters count two)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


PHRASE_BREAK = frozenset(
    "for in on at of by with from into under over and or but so because since when whenever "
    "before after unless until while where which that if as than via per".split()
)


def fit_words(t: str, limit: int) -> str:
    """The longest head of ``t`` within ``limit`` cells that is a whole phrase (English: the
    words before a preposition or conjunction, at least half the room), else that ends at a
    word (jieba's words for Chinese), with ``…``."""
    if has_cjk(t):
        pieces = re.findall(r"[\u3400-\u9fff\uf900-\ufaff]+|[^\u3400-\u9fff\uf900-\ufaff]+", t)
        words: list[str] = []
        for p in pieces:
            words += lang.segment_words(p) if has_cjk(p) else re.findall(r"\S+\s*", p)
    else:
        words = re.findall(r"\S+\s*", t)
        head = ""
        phrase = ""
        for w in words:  # a whole phrase: the head before a preposition or conjunction that fits
            if cells(head) > limit:
                break
            if head and w.strip().lower() in PHRASE_BREAK and cells(head.rstrip()) >= limit // 2:
                phrase = head
            head += w
        if phrase:
            return phrase.rstrip(" ,;:-—")
    out = ""
    for w in words:
        if cells(out + w) > limit - 1:
            break
        out += w
    out = out.rstrip(" ,;:，；：、(（-—")
    return (out or t[: max(1, (limit - 1) // 2)]) + "…"


def short_title(text: str, limit: int = TITLE_CELLS) -> str:
    """A title from a statement: its rule (:func:`.signals.title_text`) whole when it fits in
    ``limit`` cells, else its first sentence or the clauses that fit (never mid-word; a cut
    inside a clause, marked ``…``, only when not even the first clause fits)."""
    t = one_line(title_text(text)).rstrip("。.!！ ")
    if cells(t) <= limit:
        return t
    first = SENTENCE_END.split(t, maxsplit=1)[0].rstrip("。.!！ ")
    if cells(first) <= limit:
        return first
    t = first
    cut = -1
    for m in CLAUSE.finditer(t):
        if cells(t[: m.start()]) > limit:
            break
        if cells(t[: m.start()]) >= 10:
            cut = m.start()
    if cut > 0:
        return t[:cut].rstrip(" ,;:，；：、(（")
    return fit_words(t, limit)


NAME_DROP = lang.STOPWORDS | {"this", "that", "our", "repo", "we", "us", "dev", "anything", "everything"}


SLUG_SEP = re.compile(r"[^a-z0-9]+")


EN_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z0-9._:-]*[A-Za-z0-9]|[A-Za-z]")


ASCII_IN_CJK = re.compile(r"[A-Za-z][A-Za-z0-9._-]*[A-Za-z0-9]")


def readable_name(title: str, text: str, fallback: str) -> str:
    """A readable slug: content words of the title (English), the dictionary gloss of a
    Chinese rule when a dictionary is available, else the concrete things it names;
    ``fallback`` when nothing readable is left. Never a hash."""
    words: list[str] = []

    def add(ws: Iterable[str]) -> None:
        for w in ws:
            w = SLUG_SEP.sub("-", w.lower()).strip("-")
            have = {p for x in words for p in x.split("-")}
            if w and w not in NAME_DROP and len(w) <= 24 and not set(w.split("-")) <= have:
                words.append(w)
            if len(words) >= 8:
                return

    if has_cjk(title):  # the concrete things it names first, then the dictionary's words for the rest
        add(e.value for e in entities(title) if e.kind in ("code", "host", "path", "file", "ident", "env", "handle"))
        add(ASCII_IN_CJK.findall(title))
        add(lang.name_words(title, 3 if len(words) < 2 else 1))
        if not words:
            add(e.value for e in entities(text) if e.kind in ("code", "host", "path", "file", "ident", "env", "handle"))
    else:
        add(EN_NAME_WORD.findall(title.replace("`", "").replace("'", "").replace("’", "")))
    out = ""
    for w in words:
        nxt = f"{out}-{w}" if out else w
        if len(nxt) > 48:
            break
        out = nxt
    return out or fallback

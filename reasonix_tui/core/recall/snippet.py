"""Snippets and home-directory redaction (store-format §6.7; Reasonix ``MakeSnippet``).

Go indexes strings by byte, so :func:`make_snippet` finds its anchor in the UTF-8
bytes of the lowercased text and applies that byte offset to the original text, as
``snippetAround`` does (the two differ only when lowercasing changes a rune's width).
"""

from __future__ import annotations

import regex

from ..gostr import fields, to_lower, trim_space
from ..tokenize import is_cjk

__all__ = ["make_snippet", "redact_home", "HOME_PLACEHOLDER", "fast_fields", "compact_whitespace"]

HOME_PLACEHOLDER = "<local-home>"


def _fold(word: str) -> str:
    """RE2 ``(?i)`` for an ASCII word: each letter with its simple-fold orbit.

    RE2 folds ``s`` with ``ſ`` (U+017F) and ``k`` with ``K`` (U+212A) but, unlike
    Python's ``re.IGNORECASE``, not ``i`` with ``İ``/``ı``; spelling the classes out
    keeps the match set identical to Go's.
    """
    extra = {"s": "\u017f", "k": "\u212a"}
    out = []
    for ch in word:
        if ch.isalpha():
            out.append(f"[{ch}{ch.upper()}{extra.get(ch, '')}]")
        else:
            out.append(regex.escape(ch))
    return "".join(out)


_NOT_SEP_SPACE = r"[^\\/\t\n\f\r ]"  # RE2 \s is [\t\n\f\r ]
_DRIVE = "[a-zA-Z\u017f\u212a]"
_HOME_RE = regex.compile(
    rf"(?:{_DRIVE}:[\\/](?:{_fold('users')}|{_fold('documents and settings')})[\\/]{_NOT_SEP_SPACE}+"
    rf"|/(?:{_fold('users')}|{_fold('home')})/[^/\t\n\f\r ]+)"
)


_PY_ONLY_SPACE = frozenset("\x1c\x1d\x1e\x1f")


def fast_fields(s: str) -> list[str]:
    """Go ``strings.Fields``: ``str.split`` (C speed) unless ``s`` holds U+001C..U+001F,
    which Python treats as whitespace and Go does not."""
    if _PY_ONLY_SPACE.isdisjoint(s):
        return s.split()
    return fields(s)


def compact_whitespace(s: str) -> str:
    """``CompactWhitespace``: runs of whitespace become one space, ends trimmed."""
    return " ".join(fast_fields(s))


def redact_home(text: str) -> str:
    """Replace home-directory prefixes (``/home/x``, ``/Users/x``, ``C:\\Users\\x``) with ``<local-home>``."""
    if "/" not in text and "\\" not in text:
        return text  # every match contains a separator
    return _HOME_RE.sub(HOME_PLACEHOLDER, text)


def _snippet_around(text: str, byte_idx: int, max_runes: int) -> str:
    if text.isascii():
        pos = max(0, min(byte_idx, len(text)))
    else:
        raw = text.encode("utf-8")
        byte_idx = max(0, min(byte_idx, len(raw)))
        while 0 < byte_idx < len(raw) and (raw[byte_idx] & 0xC0) == 0x80:
            byte_idx -= 1
        pos = len(raw[:byte_idx].decode("utf-8"))
    n = len(text)
    start = max(pos - max_runes // 2, 0)
    end = start + max_runes
    if end > n:
        end = n
        start = max(end - max_runes, 0)
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < n else ""
    return prefix + text[start:end] + suffix


def make_snippet(text: str, query: str, terms: list[str] | tuple[str, ...], max_runes: int) -> str:
    """``MakeSnippet``: a whitespace-compacted window of ``max_runes`` runes near the query.

    The anchor is the lowercased trimmed query, else the first term found (single-rune
    non-CJK terms skipped), else the start. The window is centred on the anchor and
    shifted back at the end; ``...`` marks cut sides.
    """
    text = compact_whitespace(text)
    if max_runes <= 0 or len(text) <= max_runes:
        return text
    lower = to_lower(text)
    q = to_lower(trim_space(query))
    ascii_text = text.isascii() and lower.isascii()
    if ascii_text:
        hay: str | bytes = lower
    else:
        hay = lower.encode("utf-8")
    idx = -1
    if q:
        idx = hay.find(q if ascii_text else q.encode("utf-8"))  # type: ignore[arg-type]
    if idx < 0:
        for term in terms:
            if len(term) == 1 and not is_cjk(term):
                continue
            i = hay.find(term if ascii_text else term.encode("utf-8"))  # type: ignore[arg-type]
            if i >= 0:
                idx = i
                break
    if idx < 0:
        idx = 0
    return _snippet_around(text, idx, max_runes)

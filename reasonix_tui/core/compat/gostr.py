"""Go string semantics that the Reasonix on-disk format depends on.

Reasonix is written in Go, and several of its byte-level rules come from Go's
``strings`` and ``unicode`` packages, which differ from Python's built-ins in
small ways (spec §10.5):

* whitespace is ``unicode.IsSpace`` (Python's ``str.split`` also splits on
  U+001C..U+001F);
* lowercasing is per rune with the *simple* mapping (``İ`` becomes ``i``, not
  two code points, and there is no final-sigma context);
* ``IsLetter`` is category L*, ``IsDigit`` is Nd only, ``\\p{N}`` is Nd/Nl/No;
* ``%q`` quoting and ``html.EscapeString`` use their own escape sets.

Everything here is pure and cheap; hot paths (tokenizer, slug) call it a lot.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = [
    "is_space",
    "fields",
    "trim_space",
    "one_line",
    "to_lower",
    "is_letter",
    "is_digit",
    "is_number",
    "go_quote",
    "html_escape",
    "fnv1a64",
    "fnv1a32",
    "bound_filename_component",
    "rune_len",
    "truncate_runes",
]

# unicode.IsSpace: Latin-1 set plus the White_Space property.
_SPACE = frozenset(
    "\t\n\v\f\r \u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def is_space(ch: str) -> bool:
    """Go ``unicode.IsSpace`` for one character."""
    return ch in _SPACE


_PY_ONLY_SPACE = frozenset("\x1c\x1d\x1e\x1f")


def fields(s: str) -> list[str]:
    """Go ``strings.Fields``: split on runs of ``unicode.IsSpace``.

    ``str.split()`` (C speed) uses the same set plus U+001C..U+001F, so it is used unless
    the text holds one of those four.
    """
    if not any(ch in s for ch in _PY_ONLY_SPACE):  # four substring searches, not a set probe per character
        return s.split()
    out: list[str] = []
    start = -1
    for i, ch in enumerate(s):
        if ch in _SPACE:
            if start >= 0:
                out.append(s[start:i])
                start = -1
        elif start < 0:
            start = i
    if start >= 0:
        out.append(s[start:])
    return out


_SPACE_STR = "".join(sorted(_SPACE))


def trim_space(s: str) -> str:
    """Go ``strings.TrimSpace``."""
    return s.strip(_SPACE_STR)


def one_line(s: str) -> str:
    """Collapse whitespace runs to one ASCII space and trim (``strings.Fields`` + join)."""
    return " ".join(fields(s))


@lru_cache(maxsize=4096)
def _lower_char(ch: str) -> str:
    if ch == "\u0130":  # İ: Go's simple mapping gives plain i
        return "i"
    low = ch.lower()
    return low if len(low) == 1 else ch


def to_lower(s: str) -> str:
    """Go ``strings.ToLower``: per-rune simple lowercase mapping.

    Python's ``str.lower`` (C speed) agrees except for ``İ`` (two code points in Python)
    and ``Σ`` (Python's final-sigma rule); only text holding one of those goes rune by rune.
    """
    if s.isascii() or ("\u0130" not in s and "\u03a3" not in s):
        return s.lower()
    return "".join(_lower_char(ch) for ch in s)


@lru_cache(maxsize=8192)
def _category(ch: str) -> str:
    return unicodedata.category(ch)


def is_letter(ch: str) -> bool:
    """Go ``unicode.IsLetter`` (categories Lu, Ll, Lt, Lm, Lo)."""
    if ch < "\x80":
        return ch.isalpha()
    return _category(ch)[0] == "L"


def is_digit(ch: str) -> bool:
    """Go ``unicode.IsDigit`` (category Nd only)."""
    if ch < "\x80":
        return "0" <= ch <= "9"
    return _category(ch) == "Nd"


def is_number(ch: str) -> bool:
    """Regexp ``\\p{N}`` (categories Nd, Nl, No)."""
    if ch < "\x80":
        return "0" <= ch <= "9"
    return _category(ch)[0] == "N"


def _is_print(ch: str) -> bool:
    """Go ``unicode.IsPrint``: L, M, N, P, S and the ASCII space."""
    if ch == " ":
        return True
    return _category(ch)[0] in "LMNPS"


_NAMED_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def go_quote(s: str) -> str:
    """Go ``strconv.Quote`` / ``%q`` for a valid UTF-8 string."""
    out = ['"']
    for ch in s:
        esc = _NAMED_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif _is_print(ch):
            out.append(ch)
        else:
            cp = ord(ch)
            if cp < 0x80:
                out.append(f"\\x{cp:02x}")
            elif cp < 0x10000:
                out.append(f"\\u{cp:04x}")
            else:
                out.append(f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)


_HTML_TABLE = str.maketrans({"<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&#39;", '"': "&#34;"})


def html_escape(s: str) -> str:
    """Go ``html.EscapeString``: exactly five characters are escaped."""
    return s.translate(_HTML_TABLE)


def fnv1a64(data: bytes) -> int:
    """FNV-1a, 64-bit."""
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def fnv1a32(data: bytes) -> int:
    """FNV-1a, 32-bit."""
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def bound_filename_component(s: str, max_len: int) -> str:
    """Reasonix ``BoundFilenameComponent``: cap ``s`` at ``max_len`` UTF-8 bytes.

    Longer strings keep a prefix of ``max_len - 17`` bytes (backed off to a UTF-8
    boundary) followed by ``-`` and the 16-hex-digit FNV-1a-64 of the whole string.
    """
    raw = s.encode("utf-8")
    if max_len <= 0 or len(raw) <= max_len:
        return s
    digest = fnv1a64(raw)
    prefix = raw[: max_len - 17]
    while prefix:
        try:
            text = prefix.decode("utf-8")
            break
        except UnicodeDecodeError:
            prefix = prefix[:-1]
    else:
        text = ""
    return f"{text}-{digest:016x}"


def rune_len(s: str) -> int:
    """Length in Unicode code points (Go ``utf8.RuneCountInString``)."""
    return len(s)


def truncate_runes(s: str, limit: int, keep: int | None = None, ellipsis: str = "...") -> str:
    """Return ``s`` if it has at most ``limit`` runes, else its first ``keep`` runes
    (default ``limit``) followed by ``ellipsis``. Reasonix uses both shapes:
    ``truncate_runes(t, 64, 63)`` gives "63 runes + ..."."""
    if len(s) <= limit:
        return s
    return s[: limit if keep is None else keep] + ellipsis

"""Reasonix's shared retrieval helpers (``internal/retrieval``): snippets and Go quoting.

The tokenizer is :mod:`.tokenize` and BM25 is :mod:`.bm25`; this module holds what both
automatic recall, the ``memory`` search tool and the ``history`` tool print:

* :func:`make_snippet` (``MakeSnippet``): a whitespace-compacted window of ``max_runes``
  runes around the query. Go indexes strings by byte, so the anchor is found in the
  UTF-8 bytes of the lowercased text and applied to the original text, as
  ``snippetAround`` does (the two differ only when lowercasing changes a rune's width).
* :func:`go_json_quote`: Go ``json.Marshal`` of a string, used in the tools' headings.
"""

from __future__ import annotations

from collections.abc import Sequence

from .gostr import one_line, to_lower, trim_space
from .tokenize import is_cjk

__all__ = ["make_snippet", "go_json_quote"]


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


def make_snippet(text: str, query: str, terms: Sequence[str], max_runes: int) -> str:
    """``MakeSnippet``: a whitespace-compacted window of ``max_runes`` runes near the query.

    The anchor is the lowercased trimmed query, else the first term found (single-rune
    non-CJK terms skipped), else the start. The window is centred on the anchor and
    shifted back at the end; ``...`` marks cut sides.
    """
    text = one_line(text)
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
        idx = hay.find(q if ascii_text else q.encode("utf-8"))  # type: ignore[arg-type]  # hay is str or bytes to match
    if idx < 0:
        for term in terms:
            if len(term) == 1 and not is_cjk(term):
                continue
            i = hay.find(term if ascii_text else term.encode("utf-8"))  # type: ignore[arg-type]  # hay is str or bytes to match
            if i >= 0:
                idx = i
                break
    if idx < 0:
        idx = 0
    return _snippet_around(text, idx, max_runes)


_JSON_ESC = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def go_json_quote(s: str) -> str:
    """Go ``json.Marshal`` of a string (HTML-safe escapes, ``\\b``/``\\f`` as in Go ≥ 1.22)."""
    out = ['"']
    for ch in s:
        esc = _JSON_ESC.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        elif "\ud800" <= ch <= "\udfff":
            out.append("\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)

"""Home-directory redaction of recall snippets (store-format §6.7).

Snippets themselves come from :func:`reasonix_tui.core.compat.retrieval.make_snippet`.
"""

from __future__ import annotations

import regex

__all__ = ["redact_home", "HOME_PLACEHOLDER"]

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


def redact_home(text: str) -> str:
    """Replace home-directory prefixes (``/home/x``, ``/Users/x``, ``C:\\Users\\x``) with ``<local-home>``."""
    if "/" not in text and "\\" not in text:
        return text  # every match contains a separator
    return _HOME_RE.sub(HOME_PLACEHOLDER, text)

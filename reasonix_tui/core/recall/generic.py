"""Generic-turn detection (store-format §6.1), exact and enhanced.

Reasonix stays silent on a fixed list of acknowledgements. The enhanced check also
treats a turn made *only* of acknowledgement phrases joined by punctuation or spaces
("ok, continue", "好的，继续下一步", "thanks, go ahead") as generic: such a turn has
no topic, and the exact list misses it because of the extra words, so a fact that
happens to contain "下一步" would be recalled for "继续下一步".
"""

from __future__ import annotations

import regex

from ..compat.gostr import fields, to_lower, trim_space

__all__ = ["GENERIC_TURNS", "is_generic_exact", "is_generic_enhanced"]

GENERIC_TURNS = frozenset(
    {
        "continue",
        "please continue",
        "go on",
        "next",
        "ok",
        "okay",
        "yes",
        "no",
        "继续",
        "好的",
        "好",
        "是",
        "否",
        "下一步",
    }
)
"""Reasonix's list (``genericRecallQuery``)."""

_EXTRA_PHRASES = (
    # English acknowledgements and go-aheads
    "continue",
    "please",
    "go on",
    "go ahead",
    "next",
    "ok",
    "okay",
    "k",
    "yes",
    "yep",
    "yeah",
    "yup",
    "no",
    "nope",
    "sure",
    "thanks",
    "thank you",
    "thx",
    "ty",
    "cool",
    "great",
    "nice",
    "good",
    "perfect",
    "done",
    "lgtm",
    "sounds good",
    "looks good",
    "do it",
    "proceed",
    "carry on",
    "keep going",
    "go",
    "right",
    "alright",
    "all right",
    "fine",
    "got it",
    "understood",
    "agreed",
    "then",
    "and",
    "now",
    "again",
    "retry",
    "try again",
    "next step",
    "same",
    "as before",
    # Chinese
    "继续",
    "请继续",
    "接着",
    "接着来",
    "下一步",
    "好的",
    "好",
    "好吧",
    "行",
    "可以",
    "嗯",
    "嗯嗯",
    "是",
    "是的",
    "对",
    "对的",
    "否",
    "不",
    "不用",
    "谢谢",
    "多谢",
    "没问题",
    "收到",
    "明白",
    "开始",
    "吧",
    "呢",
    "啊",
    "了",
    "然后",
    "再来",
    "重试",
    "继续吧",
    "继续做",
    "做吧",
    # Japanese
    "はい",
    "いいえ",
    "続けて",
    "続けてください",
    "お願いします",
    "ありがとう",
    "次",
)
_PHRASES = sorted({to_lower(p) for p in _EXTRA_PHRASES}, key=len, reverse=True)
_SEPARATORS = regex.compile(r"[\p{P}\p{S}\s]+")


def _normalized(query: str) -> str:
    return to_lower(" ".join(fields(trim_space(query))))


def is_generic_exact(query: str) -> bool:
    """``genericRecallQuery``: trimmed, whitespace-collapsed, lowercased, then a fixed list."""
    return _normalized(query) in GENERIC_TURNS


def _covered(chunk: str) -> bool:
    """True when ``chunk`` (no separators) is a concatenation of acknowledgement phrases."""
    n = len(chunk)
    ok = [False] * (n + 1)
    ok[0] = True
    for i in range(n):
        if not ok[i]:
            continue
        for p in _PHRASES:
            if chunk.startswith(p, i):
                ok[i + len(p)] = True
    return ok[n]


def is_generic_enhanced(query: str) -> bool:
    """The exact list, or a short turn built only from acknowledgement phrases."""
    if is_generic_exact(query):
        return True
    norm = _normalized(query)
    if not norm or len(norm) > 60:
        return False
    words = [w for w in _SEPARATORS.split(norm) if w]
    if not words:
        return False
    # Latin words must each be phrases (or phrase pairs such as "go ahead"); CJK chunks
    # may be glued phrases ("好的继续").
    joined = " ".join(words)
    for p in _PHRASES:
        if " " in p:
            joined = joined.replace(p, p.replace(" ", "\u0000"))
    for word in joined.split(" "):
        word = word.replace("\u0000", " ")
        if word in _PHRASES:
            continue
        if word.isascii() or not _covered(word):
            return False
    return True

"""A person's own prose in a message, split into sentences.

Fenced code, quoted lines and pasted code or log lines are removed first (what the person
did not write themselves); what is left is split at sentence ends in English and Chinese.
"""

from __future__ import annotations

import re

__all__ = ["prepare_text", "split_sentences", "has_cjk"]


CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def has_cjk(s: str) -> bool:
    """True when the text contains a Han character."""
    return CJK.search(s) is not None


FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)


LOG_LINE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|at [\w.$<>]+\(|"
    r"[\w.]*(?:Error|Exception|Warning):|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[\d{2}:\d{2}|"
    r"(?:INFO|WARN|WARNING|ERROR|DEBUG|FATAL|PASS|FAIL)\b|E\s{3}|>>>|\$ |❯ |PS [A-Z]:\\)"
)


CODE_START = re.compile(
    r"^\s*(?:def |class |import |from \S+ import |function |const |let |var |return |export |package |func |"
    r"#include|public |private |if \(|for \(|while \(|SELECT |INSERT |UPDATE |CREATE |ALTER |DROP |//|/\*|\*/|"
    r"--\s|<\w+[^>]*>|\}|\{|@\w+\()"
)


def codey(line: str) -> bool:
    """A line that reads as code or machine output rather than prose."""
    s = line.strip()
    if not s:
        return False
    if LOG_LINE.match(s) or CODE_START.match(s):
        return True
    symbols = sum(ch in "{}()[];=<>|\\$" for ch in s)
    return len(s) >= 8 and symbols / len(s) > 0.12 and not has_cjk(s)


def prepare_text(text: str) -> tuple[str, tuple[str, ...]]:
    """The person's own prose: fenced code, ``>`` quotes and pasted code or log lines
    removed. Returns the text and what was removed (``code``, ``quote``, ``paste``)."""
    removed: list[str] = []
    if "```" in text or "~~~" in text:
        text, n = FENCE.subn("\n", text)
        if n:
            removed.append("code")
    kept: list[str] = []
    lines = text.split("\n")
    pasted = 0
    for line in lines:
        s = line.strip()
        if s.startswith(">"):
            removed.append("quote")
            continue
        if codey(line) or (line.startswith(("    ", "\t")) and s and not has_cjk(s)):
            pasted += 1
            continue
        kept.append(line)
    if pasted:
        removed.append("paste")
    return "\n".join(kept), tuple(dict.fromkeys(removed))


SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；;])\s*|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of prose: ``. ! ?`` followed by a space, ``。！？；;`` and line breaks
    (dots inside ``v2.3.0`` or ``staging.example.com`` do not split)."""
    out = []
    for part in SENT_SPLIT.split(text):
        s = part.strip(" \t-*•")
        if s:
            out.append(s)
    return out

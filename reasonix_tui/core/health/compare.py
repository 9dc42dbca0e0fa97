"""Two facts side by side: which fields differ, and which words within them.

The Health pane shows a finding about two facts as two columns; :func:`compare_facts`
gives, per field, both values and the character spans that differ (word by word, with
:class:`difflib.SequenceMatcher`), so the differing values can be highlighted and the
shared text left plain.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..compat.gotime import Timestamp
from ..store.model import Fact

__all__ = ["FieldDiff", "compare_facts", "word_spans", "FIELDS"]

FIELDS = (
    "title",
    "description",
    "type",
    "scope",
    "activation",
    "subject",
    "keywords",
    "expires",
    "updated",
    "revision",
    "body",
)
"""The fields compared, in display order."""

_WORDS = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class FieldDiff:
    """One field of two facts."""

    field: str
    """Field name (:data:`FIELDS`)."""
    left: str
    """The first fact's value."""
    right: str
    """The second fact's value."""
    left_spans: tuple[tuple[int, int], ...] = ()
    """Character ranges of ``left`` not found in ``right``."""
    right_spans: tuple[tuple[int, int], ...] = ()
    """Character ranges of ``right`` not found in ``left``."""

    @property
    def same(self) -> bool:
        """Both values are equal."""
        return self.left == self.right


def _time(ts: Timestamp | None) -> str:
    return ts.rfc3339()[:19].replace("T", " ") if ts is not None else ""


def _value(fact: Fact, name: str) -> str:
    if name == "subject":
        return fact.subject_key
    if name == "activation":
        return fact.resolved_activation
    if name == "expires":
        return _time(fact.expires_at)
    if name == "updated":
        return _time(fact.updated_at)
    if name == "revision":
        return str(fact.revision)
    if name == "title":
        return fact.display_title
    return str(getattr(fact, name))


def word_spans(left: str, right: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Character spans of the words of ``left`` and of ``right`` that the other lacks
    (adjacent differing words merge into one span)."""
    lw = [(m.start(), m.end()) for m in _WORDS.finditer(left)]
    rw = [(m.start(), m.end()) for m in _WORDS.finditer(right)]
    sm = difflib.SequenceMatcher(None, [left[a:b] for a, b in lw], [right[a:b] for a, b in rw], autojunk=False)
    ls: list[tuple[int, int]] = []
    rs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            ls.append((lw[i1][0], lw[i2 - 1][1]))
        if j2 > j1:
            rs.append((rw[j1][0], rw[j2 - 1][1]))
    return tuple(ls), tuple(rs)


def compare_facts(left: Fact, right: Fact, fields: tuple[str, ...] = FIELDS) -> list[FieldDiff]:
    """Every field of :data:`FIELDS` of both facts, with the differing words marked."""
    out: list[FieldDiff] = []
    for name in fields:
        a, b = _value(left, name), _value(right, name)
        if a == b:
            out.append(FieldDiff(name, a, b))
            continue
        ls, rs = word_spans(a, b)
        out.append(FieldDiff(name, a, b, ls, rs))
    return out

"""The facts table's columns, its filter language and how the columns fit a width."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size

from ..model.rows import FactRow

__all__ = ["Column", "COLUMNS", "column_layout", "fit_cell", "parse_filter", "row_matches"]


@dataclass(frozen=True, slots=True)
class Column:
    """A column of the facts table."""

    key: str
    """Attribute of :class:`FactRow` shown (and sorted on)."""
    label: str
    """Header text."""
    width: int
    """Cells; 0 means "takes the rest"."""
    right: bool = False
    """Right-aligned."""


COLUMNS: tuple[Column, ...] = (
    Column("title", "Title", 0),
    Column("ref", "Ref", 24),
    Column("type", "Type", 9),
    Column("scope", "Scope", 7),
    Column("activation", "Act", 8),
    Column("freshness", "Fresh", 7),
    Column("subject", "Subject", 18),
    Column("revision", "Rev", 4, right=True),
    Column("updated", "Updated", 7, right=True),
)
"""Every column, left to right."""


DROP_ORDER = ("subject", "ref", "updated", "scope", "type", "revision")
"""Columns hidden first when the table is narrow."""


_FILTER_FIELDS = {
    "type": "type",
    "scope": "scope",
    "act": "activation",
    "activation": "activation",
    "fresh": "freshness",
    "freshness": "freshness",
    "subject": "subject",
}


def parse_filter(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Split a filter into free words and ``field:value`` pairs."""
    words: list[str] = []
    pairs: list[tuple[str, str]] = []
    for part in text.lower().split():
        name, sep, value = part.partition(":")
        if sep and name in _FILTER_FIELDS and value:
            pairs.append((_FILTER_FIELDS[name], value))
        elif part in ("pinned", "relevant"):
            pairs.append(("activation", part))
        elif part in ("fresh", "current", "stale", "expired", "error"):
            pairs.append(("freshness", part))
        else:
            words.append(part)
    return words, pairs


def row_matches(row: FactRow, words: list[str], pairs: list[tuple[str, str]]) -> bool:
    """True when the row contains every word and every ``field:value`` prefix."""
    for field_name, value in pairs:
        if not str(getattr(row, field_name)).startswith(value):
            return False
    search = row.search
    return all(word in search for word in words)


def column_layout(width: int) -> list[tuple[Column, int]]:
    """The columns shown at ``width`` cells and each one's width: the narrow columns of
    :data:`DROP_ORDER` go first, so the title keeps at least 20 cells."""
    columns = list(COLUMNS)
    drop = list(DROP_ORDER)

    def fixed(cols: list[Column]) -> int:
        return sum(c.width + 1 for c in cols if c.width)

    while width - fixed(columns) - 1 < 20 and drop:
        name = drop.pop(0)
        columns = [c for c in columns if c.key != name]
    title_width = max(width - fixed(columns) - 1, 8)
    return [(c, c.width or title_width) for c in columns]


def fit_cell(text: str, width: int, right: bool) -> str:
    """``text`` padded (or cut, with an ellipsis) to exactly ``width`` cells."""
    if cell_len(text) > width:
        return set_cell_size(text, max(width - 1, 0)) + "…"
    return text.rjust(width) if right else set_cell_size(text, width)

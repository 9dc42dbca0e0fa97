"""A virtualised facts table on the Line API.

A ``DataTable`` filled row by row costs about 0.25 ms a row here (24 s at 100k), so the
facts table keeps its rows in plain Python structures and draws only the lines on screen
(Toolong's ``LogLines`` approach): ``render_line`` looks the row up by position.

* Rows are keyed by fact id (:class:`~reasonix_tui.tui.model.snapshot.FactRow.key`).
* :meth:`FactsTable.set_rows` takes the new rows and the :class:`Changes`; when nothing
  that affects order or filtering changed it keeps the order and only redraws, otherwise
  it re-sorts (about 0.1 s at 100k). The cursor stays on the same key either way.
* Filter (free text plus ``type:``, ``scope:``, ``act:``, ``fresh:``, ``subject:``) and
  sort (any column, either direction) are plain attributes set through methods; the
  columns and the filter language are in :mod:`.facts_columns`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...core.compat.gotime import Timestamp
from ..model.rows import FactRow, relative_ns
from ..model.snapshot import Changes
from .facts_columns import COLUMNS, Column, column_layout, fit_cell, parse_filter, row_matches

__all__ = ["FactsTable"]


_SORT_ATTR = {"updated": "updated_ns"}
"""Columns that sort on another attribute than the one shown."""

_INCREMENTAL_LIMIT = 200
"""Up to this many changed rows are re-inserted by binary search instead of a full sort."""


class FactsTable(ScrollView, can_focus=True):
    """Every active fact of both scopes, virtualised, keyed by fact id."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "facts-table--header",
        "facts-table--header-sorted",
        "facts-table--cursor",
        "facts-table--cursor-blurred",
        "facts-table--error",
        "facts-table--pinned",
        "facts-table--stale",
        "facts-table--expired",
        "facts-table--fresh",
        "facts-table--empty",
        "facts-table--marked",
    }

    DEFAULT_CSS = """
    FactsTable {
        background: $surface;
        overflow-x: hidden;
        scrollbar-gutter: stable;
        & > .facts-table--header { background: $panel; color: $text; text-style: bold; }
        & > .facts-table--header-sorted { background: $panel; color: $accent; text-style: bold; }
        & > .facts-table--cursor { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
        & > .facts-table--cursor-blurred { background: $block-cursor-blurred-background; }
        & > .facts-table--error { color: $error; }
        & > .facts-table--pinned { color: $accent; }
        & > .facts-table--marked { text-style: bold; background: $secondary 30%; }
        & > .facts-table--stale { color: $warning; }
        & > .facts-table--expired { color: $text-muted; text-style: strike; }
        & > .facts-table--fresh { color: $success; }
        & > .facts-table--empty { color: $text-muted; text-style: italic; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("enter", "select", "Open", show=False),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True, init=False)
    """Position of the cursor in the visible (filtered, sorted) order."""

    class Highlighted(Message):
        """The cursor moved to another row (merged when several queue up)."""

        def __init__(self, table: FactsTable, key: str | None) -> None:
            super().__init__()
            self.table = table
            """The table."""
            self.key = key
            """The highlighted row key, or ``None`` when the table is empty."""

        @property
        def control(self) -> FactsTable:
            """The table that sent the message."""
            return self.table

        def can_replace(self, message: Message) -> bool:
            """A newer highlight replaces an older one still queued."""
            return isinstance(message, FactsTable.Highlighted) and message.table is self.table

    class Selected(Message):
        """Enter or double click on a row."""

        def __init__(self, table: FactsTable, key: str) -> None:
            super().__init__()
            self.table = table
            """The table."""
            self.key = key
            """The chosen row key."""

        @property
        def control(self) -> FactsTable:
            """The table that sent the message."""
            return self.table

    class SortChanged(Message):
        """The sort column or direction changed (the footer and status line show it)."""

        def __init__(self, table: FactsTable) -> None:
            super().__init__()
            self.table = table
            """The table."""

    def __init__(
        self,
        *,
        empty_text: str = "No facts. Press n to add one.",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.empty_text = empty_text
        """Shown when no row matches."""
        self.rows: Mapping[str, FactRow] = {}
        """Every row by key (before filtering)."""
        self.order: list[str] = []
        """Visible keys, filtered and sorted."""
        self._position: dict[str, int] | None = None
        self.sort_column = "title"
        """Key of the sort column."""
        self.sort_reverse = False
        """Descending sort."""
        self.filter_text = ""
        """The current filter."""
        self._line_cache: LRUCache[tuple[object, ...], Strip] = LRUCache(512)
        self.marked: set[str] = set()
        """Row keys marked for a bulk action (``space``)."""
        self._last_highlight: str | None = None
        self._now_ns = 0
        self._presorted: Sequence[str] | None = None

    def set_now(self, now: Timestamp) -> None:
        """The time the Updated column's ages are drawn against (redrawn when it moved)."""
        if now.ns // 1_000_000_000 == self._now_ns // 1_000_000_000:
            return
        self._now_ns = now.ns
        self._line_cache.clear()
        self.refresh()

    # ----------------------------------------------------------------- public API

    @property
    def cursor_key(self) -> str | None:
        """Key of the row under the cursor."""
        if 0 <= self.cursor_row < len(self.order):
            return self.order[self.cursor_row]
        return None

    @property
    def row_count(self) -> int:
        """Visible rows."""
        return len(self.order)

    def index_of(self, key: str) -> int | None:
        """Position of a key in the visible order."""
        if self._position is None:
            self._position = {k: i for i, k in enumerate(self.order)}
        return self._position.get(key)

    def set_rows(
        self, rows: Mapping[str, FactRow], changes: Changes | None = None, order: Sequence[str] | None = None
    ) -> None:
        """Replace the data, keeping the cursor on the same key (diff-aware). ``order``:
        every key of ``rows`` in the default order (title ascending), worked out off the UI
        thread (:func:`~reasonix_tui.tui.model.snapshot.default_order`); used instead of a
        sort whenever the table shows that order unfiltered."""
        keep = self.cursor_key
        old_rows = self.rows
        self.rows = rows
        self._presorted = order
        if self.marked:
            self.marked.intersection_update(rows)
        if (
            changes is not None
            and not changes.full
            and not changes.added
            and not changes.removed
            and self._order_unaffected(old_rows, rows, changes.changed)
        ):
            self._line_cache.clear()
            self.refresh()
            return
        if changes is not None and not changes.full and len(changes.touched) <= _INCREMENTAL_LIMIT and self.order:
            self._reinsert(changes, keep)
            return
        self._rebuild(keep)

    def _order_key(self, key: str) -> tuple[int, object, object]:
        """``(error rank, primary value, tie-breaker)`` of a row, as :meth:`_rebuild` orders them."""
        row = self.rows[key]
        attr = _SORT_ATTR.get(self.sort_column, self.sort_column)
        title = row.title.lower()
        if attr == "title":
            return (0 if row.error else 1, title, key)
        value = getattr(row, attr)
        return (0 if row.error else 1, value.lower() if isinstance(value, str) else value, (title, key))

    def _before(self, a: tuple[int, object, object], b: tuple[int, object, object]) -> bool:
        if a[0] != b[0]:
            return a[0] < b[0]
        if a[1] != b[1]:
            return (a[1] > b[1]) if self.sort_reverse else (a[1] < b[1])  # type: ignore[operator]  # one column: values of one type
        return a[2] < b[2]  # type: ignore[operator]  # one column: values of one type

    def _reinsert(self, changes: Changes, keep: str | None) -> None:
        """A few rows changed: take them out and put them back where they sort (no full sort)."""
        touched = changes.touched
        order = [k for k in self.order if k not in touched]
        words, pairs = parse_filter(self.filter_text) if self.filter_text.strip() else ([], [])
        for key in sorted(changes.added | changes.changed):
            row = self.rows.get(key)
            if row is None or (self.filter_text.strip() and not row_matches(row, words, pairs)):
                continue
            item = self._order_key(key)
            lo, hi = 0, len(order)
            while lo < hi:
                mid = (lo + hi) // 2
                if self._before(self._order_key(order[mid]), item):
                    lo = mid + 1
                else:
                    hi = mid
            order.insert(lo, key)
        self._set_order(order, keep)

    def toggle_mark(self, key: str | None = None) -> bool:
        """Mark or unmark a row (the cursor row by default) for a bulk action; True if marked."""
        key = key if key is not None else self.cursor_key
        if key is None or key not in self.rows or self.rows[key].is_error:
            return False
        if key in self.marked:
            self.marked.discard(key)
        else:
            self.marked.add(key)
        self.refresh()
        return key in self.marked

    def mark_visible(self) -> int:
        """Mark every row the filter shows (error rows excepted); returns how many are marked."""
        self.marked.update(k for k in self.order if not self.rows[k].is_error)
        self.refresh()
        return len(self.marked)

    def clear_marks(self) -> None:
        """Unmark everything."""
        if self.marked:
            self.marked.clear()
            self.refresh()

    def set_filter(self, text: str) -> None:
        """Show only rows matching ``text``."""
        if text == self.filter_text:
            return
        self.filter_text = text
        self._rebuild(self.cursor_key)

    def sort_by(self, column: str, reverse: bool | None = None) -> None:
        """Sort on a column; the same column again flips the direction."""
        if reverse is None:
            reverse = not self.sort_reverse if column == self.sort_column else False
        self.sort_column = column
        self.sort_reverse = reverse
        self._rebuild(self.cursor_key)
        self.post_message(self.SortChanged(self))

    def cycle_sort(self) -> None:
        """Sort on the next column."""
        keys = [c.key for c in COLUMNS]
        nxt = keys[(keys.index(self.sort_column) + 1) % len(keys)] if self.sort_column in keys else keys[0]
        self.sort_by(nxt, reverse=nxt in ("updated", "revision"))

    def move_to_key(self, key: str) -> bool:
        """Put the cursor on a key (clearing the filter if it hides it)."""
        index = self.index_of(key)
        if index is None and key in self.rows and self.filter_text:
            self.filter_text = ""
            self._rebuild(key)
            index = self.index_of(key)
        if index is None:
            return False
        self.cursor_row = index
        return True

    # ----------------------------------------------------------------- ordering

    def _sort_value(self, row: FactRow) -> object:
        attr = _SORT_ATTR.get(self.sort_column, self.sort_column)
        value = getattr(row, attr)
        return value.lower() if isinstance(value, str) else value

    def _order_unaffected(
        self, old_rows: Mapping[str, FactRow], rows: Mapping[str, FactRow], changed: Iterable[str]
    ) -> bool:
        words, pairs = parse_filter(self.filter_text)
        for key in changed:
            old, new = old_rows.get(key), rows.get(key)
            if old is None or new is None:
                return False
            if self._sort_value(old) != self._sort_value(new) or old.title.lower() != new.title.lower():
                return False
            if self.filter_text and row_matches(old, words, pairs) != row_matches(new, words, pairs):
                return False
        return True

    def _rebuild(self, keep: str | None) -> None:
        rows = self.rows
        if self._presorted is not None and not self.filter_text.strip():
            if self.sort_column == "title" and not self.sort_reverse:
                self._set_order(list(self._presorted), keep)
                return
        if self.filter_text.strip():
            words, pairs = parse_filter(self.filter_text)
            keys = [k for k, r in rows.items() if row_matches(r, words, pairs)]
        else:
            keys = list(rows)
        attr = _SORT_ATTR.get(self.sort_column, self.sort_column)
        reverse = self.sort_reverse
        # One sort per key: errors first, then the column, ties broken by title and key.
        if attr == "title":
            keys.sort()
            keys.sort(key=lambda k: rows[k].title.lower(), reverse=reverse)
        else:
            keys.sort(key=lambda k: (rows[k].title.lower(), k))

            def value(k: str) -> Any:
                v = getattr(rows[k], attr)
                return v.lower() if isinstance(v, str) else v

            keys.sort(key=value, reverse=reverse)
        errors = [k for k in keys if rows[k].error]
        if errors:
            error_set = set(errors)
            keys = errors + [k for k in keys if k not in error_set]
        self._set_order(keys, keep)

    def _set_order(self, keys: list[str], keep: str | None) -> None:
        self.order = keys
        self._position = None
        self._line_cache.clear()
        self.virtual_size = Size(0, len(keys) + 1)
        index = self.index_of(keep) if keep is not None else None
        if index is None:
            index = min(self.cursor_row, max(len(keys) - 1, 0))
        self.cursor_row = index
        self.refresh()

    # ----------------------------------------------------------------- cursor

    def validate_cursor_row(self, value: int) -> int:
        """Clamp to the visible rows."""
        return max(0, min(value, len(self.order) - 1)) if self.order else 0

    def watch_cursor_row(self, old: int, new: int) -> None:
        """Scroll the cursor into view, redraw the two lines and tell the screen."""
        top = int(self.scroll_y)
        self._scroll_cursor_into_view()
        if int(self.scroll_y) == top:
            self.refresh_line(old + 1)
            self.refresh_line(new + 1)
        else:
            self.refresh()
        key = self.cursor_key
        if key != self._last_highlight:
            self._last_highlight = key
            self.post_message(self.Highlighted(self, key))

    def _scroll_cursor_into_view(self) -> None:
        visible = max(self.scrollable_content_region.height - 1, 1)
        row = self.cursor_row
        top = int(self.scroll_y)
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + visible:
            self.scroll_to(y=row - visible + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        """Keep the cursor visible after a resize."""
        self._line_cache.clear()
        self._scroll_cursor_into_view()

    def on_focus(self) -> None:
        """Redraw the cursor in its focused style."""
        self._line_cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        """Redraw the cursor in its blurred style."""
        self._line_cache.clear()
        self.refresh()

    def action_cursor_up(self) -> None:
        """Move up one row."""
        self.cursor_row -= 1

    def action_cursor_down(self) -> None:
        """Move down one row."""
        self.cursor_row += 1

    def action_page_up(self) -> None:
        """Move up one screen."""
        self.cursor_row -= max(self.scrollable_content_region.height - 2, 1)

    def action_page_down(self) -> None:
        """Move down one screen."""
        self.cursor_row += max(self.scrollable_content_region.height - 2, 1)

    def action_first(self) -> None:
        """Go to the first row."""
        self.cursor_row = 0

    def action_last(self) -> None:
        """Go to the last row."""
        self.cursor_row = len(self.order) - 1

    def action_select(self) -> None:
        """Open the row under the cursor."""
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key))

    async def on_click(self, event: events.Click) -> None:
        """Click a header to sort, a row to move the cursor, a row twice to open it."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            x = 0
            for column, width in column_layout(self.scrollable_content_region.width):
                if x <= offset.x < x + width + 1:
                    self.sort_by(column.key)
                    return
                x += width + 1
            return
        index = int(self.scroll_y) + offset.y - 1
        if 0 <= index < len(self.order):
            self.cursor_row = index
            if event.chain >= 2:
                self.action_select()

    # ----------------------------------------------------------------- drawing

    def render_line(self, y: int) -> Strip:
        """Draw line ``y`` of the visible region (line 0 is the header)."""
        width = self.scrollable_content_region.width
        layout = column_layout(width)
        if y == 0:
            return self._header(layout, width)
        index = int(self.scroll_y) + y - 1
        if not self.order:
            if y == 2:
                style = self.get_component_rich_style("facts-table--empty")
                if self.filter_text:
                    text = f"No fact matches “{self.filter_text}”."
                elif not getattr(self.app, "loaded", True):
                    text = "Reading the store…"  # not "no facts" before the first rows arrive
                else:
                    text = self.empty_text
                return Strip([Segment(set_cell_size("  " + text, width), style)], width)
            return Strip.blank(width, self.rich_style)
        if index >= len(self.order):
            return Strip.blank(width, self.rich_style)
        key = self.order[index]
        row = self.rows[key]
        is_cursor = index == self.cursor_row
        cache_key = (key, id(row), width, is_cursor, self.has_focus, key in self.marked)
        cached = self._line_cache.get(cache_key)
        if cached is not None:
            return cached
        strip = self._row_strip(row, layout, width, is_cursor, key in self.marked)
        self._line_cache[cache_key] = strip
        return strip

    def _header(self, layout: list[tuple[Column, int]], width: int) -> Strip:
        base = self.get_component_rich_style("facts-table--header")
        sorted_style = self.get_component_rich_style("facts-table--header-sorted")
        segments: list[Segment] = []
        for column, col_width in layout:
            label = column.label
            style = base
            if column.key == self.sort_column:
                label += " ▼" if self.sort_reverse else " ▲"
                style = sorted_style
            segments.append(Segment(fit_cell(label, col_width, column.right), style))
            segments.append(Segment(" ", base))
        strip = Strip(segments)
        return strip.adjust_cell_length(width, base)

    def _row_strip(
        self, row: FactRow, layout: list[tuple[Column, int]], width: int, is_cursor: bool, marked: bool = False
    ) -> Strip:
        base: Style = self.rich_style
        if row.is_error:
            base = base + self.get_component_rich_style("facts-table--error")
        if marked:
            base = base + self.get_component_rich_style("facts-table--marked")
        if is_cursor:
            name = "facts-table--cursor" if self.has_focus else "facts-table--cursor-blurred"
            base = base + self.get_component_rich_style(name)
        segments: list[Segment] = []
        for column, col_width in layout:
            value = getattr(row, column.key)
            text = str(value) if value != 0 or column.key != "revision" else ""
            if column.key == "updated" and self._now_ns and row.updated_ns:
                text = relative_ns(row.updated_ns, self._now_ns)
            if marked and column.key == "title":
                text = "✓ " + text
            style = base
            if not is_cursor and not row.is_error:
                if column.key == "activation" and value == "pinned":
                    style = base + self.get_component_rich_style("facts-table--pinned")
                elif column.key == "freshness" and value in ("stale", "expired", "fresh"):
                    style = base + self.get_component_rich_style(f"facts-table--{value}")
            segments.append(Segment(fit_cell(text, col_width, column.right), style))
            segments.append(Segment(" ", base))
        return Strip(segments).adjust_cell_length(width, base)

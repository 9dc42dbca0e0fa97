"""Facts pane: the virtualised table, a filter box and the detail view, with the fact actions."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Input, Static

from ..messages import (
    BulkRequested,
    CopyRefRequested,
    EditRequested,
    FactHighlighted,
    ForgetRequested,
    NewFactRequested,
    PinRequested,
    QuickAddRequested,
    StoreUpdate,
    VerifyRequested,
)
from ..widgets.fact_detail import FactDetail
from ..widgets.facts_columns import COLUMNS
from ..widgets.facts_table import FactsTable
from .base import Pane

__all__ = ["FactsPane"]


class FactsPane(Pane):
    """Every active fact of both scopes; filter, sort, detail and actions."""

    FOCUS_SELECTOR = "#facts-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", id="facts-filter", key_display="/"),
        Binding("p", "pin", "Pin/unpin", id="facts-pin"),
        Binding("v", "verify", "Verify", id="facts-verify"),
        Binding("n", "new", "New", id="facts-new"),
        Binding("e", "edit", "Edit", id="facts-edit"),
        Binding("E", "edit_external", "$EDITOR", id="facts-edit-external", key_display="E", show=False),
        Binding("x,delete", "forget", "Forget", id="facts-forget"),
        Binding("number_sign", "quick_add", "Note", id="facts-note", key_display="#", show=False),
        Binding("c", "copy_ref", "Copy ref", id="facts-copy", show=False),
        Binding("s", "sort", "Sort", id="facts-sort"),
        Binding("d", "toggle_detail", "Detail", id="facts-detail", tooltip="Hide the detail to see every column"),
        Binding("S", "reverse_sort", "Reverse", show=False, id="facts-sort-reverse"),
        Binding(
            "space", "toggle_mark", "Mark", id="facts-mark", show=False, tooltip="Mark for a bulk verify or forget"
        ),
        Binding("asterisk", "mark_all", "Mark all shown", show=False, id="facts-mark-all", key_display="*"),
        Binding("u", "clear_marks", "Unmark all", show=False, id="facts-unmark"),
        Binding("escape", "escape", "Leave the filter / clear it", show=False, id="facts-escape"),
    ]

    def compose(self) -> ComposeResult:
        """Filter bar, table and detail."""
        with Horizontal(id="facts-bar"):
            yield Input(
                placeholder="filter: words · type:reference scope:global pinned stale subject:…",
                id="facts-filter",
            )
            yield Static("", id="facts-count")
        with Horizontal(id="facts-main"):
            yield FactsTable(id="facts-table")
            yield FactDetail(id="fact-detail")

    # ----------------------------------------------------------------- data

    @property
    def table(self) -> FactsTable:
        """The facts table."""
        return self.query_one("#facts-table", FactsTable)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._filter_timer: Timer | None = None
        self._detail_timer: Timer | None = None
        self._had_fact = False

    def on_store_update(self, update: StoreUpdate) -> None:
        """Apply the new rows by diff and refresh the detail; put the cursor on the fact a
        write just wrote (``update.select``)."""
        table = self.table
        table.set_now(self.center.clock())
        table.set_rows(update.snapshot.rows, update.changes, update.snapshot.order)
        if update.select:
            table.move_to_key(update.select)
        self._update_count()
        key = table.cursor_key
        if key is None or key in update.changes.touched or update.changes.full:
            self._schedule_detail(key)
        has_fact = self._current() is not None
        if has_fact != self._had_fact:
            self._had_fact = has_fact
            self.refresh_bindings()  # fact actions depend on a fact under the cursor

    def _update_count(self) -> None:
        table = self.table
        snap = self.center.snapshot
        total = len(snap.rows)
        sort = next((c.label for c in COLUMNS if c.key == table.sort_column), table.sort_column)
        arrow = "▼" if table.sort_reverse else "▲"
        shown = (
            f"{table.row_count:,} of {total:,}" if table.filter_text else f"{total:,} fact{'s' if total != 1 else ''}"
        )
        unreadable = snap.counts.get("unreadable", 0)
        errors = f" · [red]{unreadable} unreadable[/]" if unreadable else ""
        marked = len(table.marked)
        marks = f" · [b]{marked} marked[/b] (v, x, u)" if marked else ""
        self.query_one("#facts-count", Static).update(f"{shown}{errors}{marks} · sort {sort} {arrow}")

    def show_detail(self, key: str | None) -> None:
        """Draw the detail of row ``key``."""
        detail = self.query_one("#fact-detail", FactDetail)
        snap = self.center.snapshot
        now = self.center.clock()
        if key is None:
            detail.show(None, snap, now)
            return
        fact = snap.facts.get(key)
        row = snap.rows.get(key)
        if fact is None:
            detail.show(None, snap, now, error=row.error if row else "")
            return
        detail.show(fact, snap, now)

    def on_clock_tick(self) -> None:
        """Ages in the Updated column and the detail move on."""
        self.table.set_now(self.center.clock())
        self.show_detail(self.table.cursor_key)

    @on(FactsTable.Highlighted, "#facts-table")
    def _highlighted(self, message: FactsTable.Highlighted) -> None:
        self._schedule_detail(message.key)

    def _schedule_detail(self, key: str | None) -> None:
        # The detail follows after a short pause, so holding a key (or a burst of outside
        # changes) only moves the cursor and redraws the table.
        if self._detail_timer is not None:
            self._detail_timer.stop()
        self._detail_timer = self.set_timer(0.06, lambda: self._follow(key))

    def _follow(self, key: str | None) -> None:
        self._detail_timer = None
        has_fact = key in self.center.snapshot.facts
        if has_fact != self._had_fact:
            self._had_fact = has_fact
            self.refresh_bindings()
        self.post_message(FactHighlighted(key if has_fact else None))
        self.show_detail(key)

    @on(FactsTable.Selected, "#facts-table")
    def _selected(self, message: FactsTable.Selected) -> None:
        self.query_one("#fact-detail", FactDetail).focus()

    @on(FactsTable.SortChanged)
    def _sort_changed(self) -> None:
        self._update_count()

    @on(Input.Changed, "#facts-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        value = event.value
        self._filter_timer = self.set_timer(0.12, lambda: self._apply_filter(value))

    def _apply_filter(self, value: str) -> None:
        self.table.set_filter(value)
        self._update_count()
        self.show_detail(self.table.cursor_key)

    @on(Input.Submitted, "#facts-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._apply_filter(event.value)
        self.table.focus()

    def select(self, ref: str) -> bool:
        """Put the cursor on a fact by id or ref."""
        fact = self.center.snapshot.find(ref)
        if fact is None:
            return False
        moved = self.table.move_to_key(str(fact.id))
        if moved:
            self._update_count()
            self.table.focus()
        return moved

    # ----------------------------------------------------------------- actions

    def _current(self) -> str | None:
        key = self.table.cursor_key
        return key if key in self.center.snapshot.facts else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Fact actions are greyed out when no fact is under the cursor."""
        if action in ("verify", "forget") and self.is_mounted and self.table.marked:
            return True
        if action in ("mark_all", "clear_marks", "toggle_mark") and self.is_mounted:
            if action == "clear_marks":
                return True if self.table.marked else None
            return True
        if action in ("pin", "verify", "edit", "edit_external", "forget", "copy_ref"):
            if not self.is_mounted:
                return True
            return True if self._current() is not None else None
        return True

    def action_focus_table(self) -> None:
        """Leave the filter box (the filter stays applied)."""
        self.table.focus()

    def action_escape(self) -> None:
        """Esc: leave the filter box (the filter stays); on the table, clear the filter."""
        box = self.query_one("#facts-filter", Input)
        if box.has_focus:
            self.table.focus()
        elif box.value:
            box.value = ""
            self._apply_filter("")

    def action_focus_filter(self) -> None:
        """Focus the filter box."""
        self.query_one("#facts-filter", Input).focus()

    def action_pin(self) -> None:
        """Pin the fact, or unpin it when pinned."""
        key = self._current()
        if key is not None:
            fact = self.center.snapshot.facts[key]
            self.post_message(PinRequested(key, not fact.pinned))

    def action_verify(self) -> None:
        """Mark verified now (every marked fact when some are marked)."""
        if self.table.marked:
            self.post_message(BulkRequested("verify", self._marked()))
            self.action_clear_marks()  # done with them (a forget keeps them until confirmed)
            return
        key = self._current()
        if key is not None:
            self.post_message(VerifyRequested(key))

    def _marked(self) -> tuple[str, ...]:
        table = self.table
        return tuple(k for k in table.order if k in table.marked) or tuple(sorted(table.marked))

    def action_toggle_mark(self) -> None:
        """Mark or unmark the fact under the cursor, then move down."""
        self.table.toggle_mark()
        self.table.action_cursor_down()
        self._marks_changed()

    def action_mark_all(self) -> None:
        """Mark every fact the filter shows."""
        self.table.mark_visible()
        self._marks_changed()

    def action_clear_marks(self) -> None:
        """Unmark everything."""
        self.table.clear_marks()
        self._marks_changed()

    def _marks_changed(self) -> None:
        self._update_count()
        self.refresh_bindings()

    def action_new(self) -> None:
        """Open the form for a new fact."""
        self.post_message(NewFactRequested())

    def action_edit(self) -> None:
        """Edit in the form."""
        key = self._current()
        if key is not None:
            self.post_message(EditRequested(key))

    def action_edit_external(self) -> None:
        """Edit in $EDITOR."""
        key = self._current()
        if key is not None:
            self.post_message(EditRequested(key, external=True))

    def action_forget(self) -> None:
        """Forget (asks first; every marked fact when some are marked)."""
        if self.table.marked:
            self.post_message(BulkRequested("forget", self._marked()))
            return
        key = self._current()
        if key is not None:
            self.post_message(ForgetRequested(key))

    def action_quick_add(self) -> None:
        """Append a note to the instructions."""
        self.post_message(QuickAddRequested())

    def action_copy_ref(self) -> None:
        """Copy the reference."""
        key = self._current()
        if key is not None:
            self.post_message(CopyRefRequested(key))

    def action_toggle_detail(self) -> None:
        """Show or hide the detail (hidden, the table has room for every column)."""
        self.toggle_class("-no-detail")

    def action_sort(self) -> None:
        """Sort on the next column."""
        self.table.cycle_sort()

    def action_reverse_sort(self) -> None:
        """Flip the sort direction."""
        self.table.sort_by(self.table.sort_column, not self.table.sort_reverse)

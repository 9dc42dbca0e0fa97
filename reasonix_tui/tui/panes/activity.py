"""Activity pane: the audit log, newest first (who changed what, and what was refused)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Input, Label

from ...core.compat.gotime import parse_rfc3339
from ...core.store.audit import AuditEntry
from ..messages import ShowFactRequested, SidecarsReloaded, StoreUpdate
from ..model.rows import ago, human_time, zone_name
from .base import Pane

__all__ = ["ActivityPane", "ACTIVITY_LIMIT", "newest_first", "entry_matches", "entry_ref", "entry_outcome"]

ACTIVITY_LIMIT = 500
"""Most entries shown (the newest)."""


def newest_first(entries: list[AuditEntry]) -> list[AuditEntry]:
    """``entries`` ordered by their time (``at``), newest first.

    The log is append-only but not always chronological (a writer with another clock, a
    backdated import), so the file order is only the tie-break: entries with equal times
    keep the order they came in (newest line first). An entry whose time does not parse
    goes last.
    """

    def key(entry: AuditEntry) -> tuple[int, int]:
        ts = parse_rfc3339(entry.at)
        return (1, ts.ns) if ts is not None else (0, 0)

    return sorted(entries, key=key, reverse=True)


def entry_matches(entry: AuditEntry, text: str) -> bool:
    """The Activity filter: every word must match. ``actor:``, ``op:`` and ``ref:`` look in
    that field (``actor:agent`` finds both agent actors); ``refused`` / ``ok`` the outcome;
    any other word anywhere in the line (time, actor, op, ref, id, reason)."""
    line = " ".join(
        (
            entry.at,
            entry.actor,
            entry.op,
            entry.ref,
            entry.id,
            entry.path,
            entry.reason,
            "ok" if entry.ok else "refused",
        )
    ).lower()
    for word in text.lower().split():
        key, sep, value = word.partition(":")
        if sep and key in ("actor", "op", "ref"):
            if value not in str(getattr(entry, key) or "").lower():
                return False
        elif word == "refused":
            if entry.ok:
                return False
        elif word == "ok":
            if not entry.ok:
                return False
        elif word not in line:
            return False
    return True


def entry_ref(entry: AuditEntry) -> str:
    """What an entry is about: the fact's ref, else its id or path, else (a decision on a
    proposal that wrote nothing) the proposal."""
    if entry.ref or entry.id or entry.path:
        return entry.ref or entry.id or entry.path
    proposal = entry.detail.get("proposal") if isinstance(entry.detail, dict) else None
    if proposal:
        tool = entry.detail.get("tool") or "agent"
        return f"{tool} proposal {proposal}"
    return "-"


_STATE_STYLE = {"approved": "green", "denied": "yellow", "conflict": "bold red", "error": "bold red"}


def entry_outcome(entry: AuditEntry) -> Text:
    """``ok`` / ``refused``; a decision on a proposal says what was decided."""
    state = entry.detail.get("state") if entry.op == "approval" and isinstance(entry.detail, dict) else None
    if isinstance(state, str) and state in _STATE_STYLE:
        return Text(state, style=_STATE_STYLE[state])
    return Text("ok", style="green") if entry.ok else Text("refused", style="bold red")


_ACTOR_STYLE = {"context-center": "cyan", "cli": "default", "agent-auto": "magenta", "agent-approved": "green"}


class ActivityPane(Pane):
    """Every store mutation and refusal, newest first."""

    FOCUS_SELECTOR = "#activity-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", id="activity-filter-key", key_display="/"),
        Binding("enter", "open_fact", "Show fact", id="activity-open"),
        Binding("escape", "escape", "Leave the filter / clear it", show=False, id="activity-escape"),
    ]

    def compose(self) -> ComposeResult:
        """Filter, heading and table."""
        yield Input(placeholder="filter: words · actor:agent op:forget ref:deploy refused", id="activity-filter")
        yield Label("", id="activity-heading")
        yield DataTable(id="activity-table", cursor_type="row", zebra_stripes=True)

    @dataclass
    class Loaded(Message, bubble=False):
        """The log was read (posted by the worker to the pane itself)."""

        entries: list[AuditEntry]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.entries: list[AuditEntry] = []
        """Audit entries shown (filtered), newest first."""
        self.all_entries: list[AuditEntry] = []
        """Every entry read, newest first."""
        self.loaded_once = False
        """The log was read at least once."""
        self._filter_timer: Timer | None = None

    def on_mount(self) -> None:
        """Columns; the log is read when the pane is shown and whenever it grows."""
        table = self.query_one("#activity-table", DataTable)
        for key, label in (
            ("when", "When"),
            ("actor", "Actor"),
            ("op", "Op"),
            ("ok", "OK"),
            ("ref", "Ref"),
            ("rev", "Rev"),
            ("reason", "Reason"),
        ):
            table.add_column(label, key=key)

    def activate(self) -> None:
        """Read on show."""
        self.load()
        super().activate()

    def on_sidecars(self, message: SidecarsReloaded) -> None:
        """The audit log grew."""
        if message.audit and self.loaded_once:
            self.load()

    def on_store_update(self, update: StoreUpdate) -> None:
        """A write landed: its audit line is there too."""
        if self.loaded_once and getattr(self.screen, "active_pane", "") == "activity":
            self.load()

    def load(self) -> None:
        """Read the log in a thread worker."""
        self.loaded_once = True
        self._load_worker()

    @work(thread=True, exclusive=True, group="activity-load", exit_on_error=False, description="read the audit log")
    def _load_worker(self) -> None:
        from ..reads import read_audit

        entries = newest_first(read_audit(self.center.layout, self.center.settings, ACTIVITY_LIMIT))
        self.post_message(self.Loaded(entries))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.all_entries = message.entries
        self._refilter()

    def on_clock_tick(self) -> None:
        """Ages in the When column move on."""
        if self.entries:
            self._refilter(force=True)

    def _refilter(self, force: bool = False) -> None:
        table = self.query_one("#activity-table", DataTable)
        text = self.query_one("#activity-filter", Input).value.strip()
        entries = [e for e in self.all_entries if entry_matches(e, text)] if text else list(self.all_entries)
        if not force and [self._key(e, i) for i, e in enumerate(entries)] == [
            self._key(e, i) for i, e in enumerate(self.entries)
        ]:
            self._heading(text)
            return
        self.entries = entries
        now = self.center.clock()
        zone = self.center.settings.time_zone
        keep = table.cursor_row
        with self.app.batch_update():
            table.clear()
            for i, entry in enumerate(entries):
                ts = parse_rfc3339(entry.at)
                when = f"{human_time(ts, zone, label=False)} ({ago(ts, now)})" if ts else entry.at
                rev = ""
                if entry.rev_before is not None or entry.rev_after is not None:
                    rev = f"{entry.rev_before or '-'}→{entry.rev_after or '-'}"
                table.add_row(
                    when,
                    Text(entry.actor, style=_ACTOR_STYLE.get(entry.actor, "")),
                    entry.op,
                    entry_outcome(entry),
                    entry_ref(entry),
                    rev,
                    entry.reason,
                    key=self._key(entry, i),
                )
            if entries:
                table.move_cursor(row=min(keep, len(entries) - 1))
        self._heading(text)

    def _heading(self, text: str) -> None:
        count, total = len(self.entries), len(self.all_entries)
        if text:
            heading = f"{count} of {total} entries match “{text}”, newest first"
        elif total:
            heading = (
                f"{total} most recent store changes, newest first, times in {zone_name(self.center.settings.time_zone)}"
                f" · {self.center.layout.audit_log}"
            )
        else:
            heading = (
                "No activity recorded yet: every change to the store (from here, the CLI or the agent) appears here."
            )
        self.query_one("#activity-heading", Label).update(heading)

    @on(Input.Changed, "#activity-filter")
    def _filter_changed(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(0.1, self._refilter)

    @on(Input.Submitted, "#activity-filter")
    def _filter_submitted(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._refilter()
        self.query_one("#activity-table", DataTable).focus()

    def action_focus_filter(self) -> None:
        """Focus the filter box."""
        self.query_one("#activity-filter", Input).focus()

    def action_focus_table(self) -> None:
        """Back to the table (the filter stays applied)."""
        self.query_one("#activity-table", DataTable).focus()

    def action_escape(self) -> None:
        """Esc: leave the filter box (the filter stays); on the table, clear the filter."""
        box = self.query_one("#activity-filter", Input)
        if box.has_focus:
            self.action_focus_table()
        elif box.value:
            box.value = ""
            self._refilter()

    @staticmethod
    def _key(entry: AuditEntry, index: int) -> str:
        return f"{entry.at}|{entry.op}|{entry.id}|{entry.pid}|{index}"

    def action_open_fact(self) -> None:
        """Jump to the fact of the highlighted entry."""
        table = self.query_one("#activity-table", DataTable)
        if not self.entries or table.cursor_row >= len(self.entries):
            return
        entry = self.entries[table.cursor_row]
        ref = entry.id or entry.ref
        if ref:
            self.post_message(ShowFactRequested(ref))

    @on(DataTable.RowSelected, "#activity-table")
    def _row_selected(self) -> None:
        self.action_open_fact()

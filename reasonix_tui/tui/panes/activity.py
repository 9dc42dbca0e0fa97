"""Activity pane: the audit log, newest first (who changed what, and what was refused)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Label

from ...core.gotime import parse_rfc3339
from ...core.store.audit import AuditEntry
from ..messages import ShowFactRequested, SidecarsReloaded
from ..state import relative_time
from .base import Pane

__all__ = ["ActivityPane", "ACTIVITY_LIMIT", "newest_first"]

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


_ACTOR_STYLE = {"context-center": "cyan", "cli": "default", "agent-auto": "magenta", "agent-approved": "green"}


class ActivityPane(Pane):
    """Every store mutation and refusal, newest first."""

    FOCUS_SELECTOR = "#activity-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_fact", "Show fact", id="activity-open"),
    ]

    def compose(self) -> ComposeResult:
        """Heading and table."""
        yield Label("", id="activity-heading")
        yield DataTable(id="activity-table", cursor_type="row", zebra_stripes=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.entries: list[AuditEntry] = []
        """Audit entries shown, newest first."""
        self.loaded_once = False
        """The log was read at least once."""

    def on_mount(self) -> None:
        """Columns; the log is read when the pane is shown and whenever it grows."""
        table = self.query_one("#activity-table", DataTable)
        for key, label in (("when", "When"), ("actor", "Actor"), ("op", "Op"), ("ok", "OK"), ("ref", "Ref"), ("rev", "Rev"), ("reason", "Reason")):
            table.add_column(label, key=key)

    def activate(self) -> None:
        """Read on show."""
        self.load()
        super().activate()

    def on_sidecars(self, message: SidecarsReloaded) -> None:
        """The audit log grew."""
        if message.audit and self.loaded_once:
            self.load()

    def on_store_update(self, update: object) -> None:
        """A write landed: its audit line is there too."""
        if self.loaded_once and getattr(self.screen, "active_pane", "") == "activity":
            self.load()

    def load(self) -> None:
        """Read the log in a thread worker."""
        self.loaded_once = True
        self._load_worker()

    @work(thread=True, exclusive=True, group="activity-load", exit_on_error=False, description="read the audit log")
    def _load_worker(self) -> None:
        from ..backend import read_audit

        entries = newest_first(read_audit(self.app.layout, self.app.settings, ACTIVITY_LIMIT))
        self.app.call_from_thread(self._show, entries)

    def _show(self, entries: list[AuditEntry]) -> None:
        table = self.query_one("#activity-table", DataTable)
        if [self._key(e, i) for i, e in enumerate(entries)] == [self._key(e, i) for i, e in enumerate(self.entries)]:
            return
        self.entries = entries
        now = self.app.clock()
        keep = table.cursor_row
        with self.app.batch_update():
            table.clear()
            for i, entry in enumerate(entries):
                ts = parse_rfc3339(entry.at)
                when = f"{entry.at[:19].replace('T', ' ')} ({relative_time(ts, now)})" if ts else entry.at
                rev = ""
                if entry.rev_before is not None or entry.rev_after is not None:
                    rev = f"{entry.rev_before or '-'}→{entry.rev_after or '-'}"
                table.add_row(
                    when,
                    Text(entry.actor, style=_ACTOR_STYLE.get(entry.actor, "")),
                    entry.op,
                    Text("ok", style="green") if entry.ok else Text("refused", style="bold red"),
                    entry.ref or entry.id or entry.path,
                    rev,
                    entry.reason,
                    key=self._key(entry, i),
                )
            if entries:
                table.move_cursor(row=min(keep, len(entries) - 1))
        count = len(entries)
        self.query_one("#activity-heading", Label).update(
            f"{count} most recent store changes, newest first · {self.app.layout.audit_log}"
            if count
            else "No activity recorded yet: every change to the store (from here, the CLI or the agent) appears here."
        )

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

"""Recall pane: the last trace (live), the trace history, and "try a query" (not recorded)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rich import box
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.compat.gotime import parse_rfc3339
from ...core.recall import RecallTrace
from ..messages import ShowFactRequested, SidecarsReloaded, StoreUpdate
from ..model.rows import FactRow, human_time, relative_time
from .base import Pane

__all__ = ["RecallPane", "render_trace"]

_FRESH_STYLE = {"fresh": "green", "current": "", "stale": "yellow", "expired": "red"}


def _score(score: float | None) -> str:
    return f"{score:.3f}" if score is not None else "-"


def _table(title: str, *columns: tuple[str, dict[str, Any]]) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        expand=True,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
    )
    for name, kw in columns:
        table.add_column(name, **kw)
    return table


def render_trace(
    trace: RecallTrace, *, dry_run: bool = False, rows: Mapping[str, FactRow] | None = None, zone: str = "local"
) -> Table:
    """A trace as a grid: query, hits, budget, omitted, suppression, the candidates that lost.

    With ``rows`` (the store now, by fact id), a hit whose fact changed or was forgotten
    since the recall says so: what the agent was given no longer holds as shown.
    """
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(ratio=1)
    grid.add_row(_trace_head(trace, dry_run, zone))
    grid.add_row(_hits_table(trace, None if dry_run else rows))
    if trace.considered:
        grid.add_row(_losers_table(trace))
    if trace.block:
        grid.add_row(Text("\nBlock given to the agent", style="bold"))
        grid.add_row(Text(trace.block, style="dim"))
    return grid


def _trace_head(trace: RecallTrace, dry_run: bool, zone: str) -> Text:
    """The query, when and where it ran, the budget used, what was omitted or suppressed."""
    head = Text()
    head.append("Try a query (not recorded)\n" if dry_run else "", style="bold magenta")
    head.append("query  ", style="bold")
    head.append(trace.query + "\n")
    if not dry_run and (trace.at or trace.source):
        at = parse_rfc3339(trace.at)
        head.append(
            f"at {human_time(at, zone) if at is not None else trace.at or '?'}  source {trace.source}\n", style="dim"
        )
    head.append(f"budget used {trace.used_chars} / {trace.char_budget} chars", style="bold")
    head.append(f"   omitted by limit {trace.omitted_by_limit}, by budget {trace.omitted_by_budget}\n")
    if trace.suppressed:
        head.append(f"suppressed: {trace.suppressed}\n", style="bold yellow")
    return head


def _hits_table(trace: RecallTrace, rows: Mapping[str, FactRow] | None) -> Table:
    """The hits injected, each with why; with ``rows``, whether its fact changed since."""
    hits = trace.hits
    # The reason goes under the ref, so the table fits an 80-column terminal.
    table = _table(
        f"{len(hits)} hit{'s' if len(hits) != 1 else ''} injected",
        ("#", {"justify": "right"}),
        ("ref · why", {"ratio": 1, "overflow": "fold"}),
        ("rev", {"justify": "right"}),
        ("score", {"justify": "right"}),
        ("fresh", {}),
    )
    for i, hit in enumerate(hits, 1):
        rev: Text | str = str(hit.revision)
        reason = Text(hit.reason, style="dim")
        if hit.markers:
            reason = Text("".join(f"[{m}] " for m in hit.markers), style="bold yellow") + reason
        if hit.channels:
            reason.append("\n" + _channels(hit.channels), style="cyan")
        if rows is not None and hit.id:
            now_row = rows.get(hit.id)
            if now_row is None:
                rev = Text(f"{hit.revision}→✗", style="bold red")
                reason = Text("forgotten since this recall; ", style="bold red") + reason
            elif now_row.revision != hit.revision:
                rev = Text(f"{hit.revision}→{now_row.revision}", style="bold yellow")
                reason = Text(f"changed since (now revision {now_row.revision}); ", style="bold yellow") + reason
        table.add_row(
            str(i),
            Text(hit.ref or hit.name or hit.id) + Text("\n") + reason,
            rev,
            _score(hit.score),
            Text(hit.freshness, style=_FRESH_STYLE.get(hit.freshness, "")),
        )
    return table


def _losers_table(trace: RecallTrace) -> Table:
    """The candidates considered and not injected (the first 50), each with why not."""
    hit_ids = {h.id for h in trace.hits}
    losers = [c for c in trace.considered if c.id not in hit_ids or not c.selected]
    table = _table(
        f"{len(losers)} candidate{'s' if len(losers) != 1 else ''} considered and not injected",
        ("ref", {}),
        ("score", {"justify": "right"}),
        ("why not", {"ratio": 1}),
    )
    for cand in losers[:50]:
        why = Text(cand.why, style="yellow")
        if cand.channels:
            why.append("\n" + _channels(cand.channels), style="cyan")
        table.add_row(cand.ref or cand.name or cand.id, _score(cand.score), why)
    if len(losers) > 50:
        table.add_row("…", "", f"{len(losers) - 50} more")
    return table


def _channels(channels: tuple[str, ...]) -> str:
    """One line naming what each evidence channel contributed (enhanced mode)."""
    return "channels: " + " · ".join(channels)


class RecallPane(Pane):
    """What the agent got recalled, and why."""

    FOCUS_SELECTOR = "#recall-history"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_query", "Try a query", id="recall-query", key_display="/"),
        Binding("l", "show_last", "Last trace", id="recall-last"),
        Binding("f", "open_hit", "Show first hit", id="recall-open"),
        Binding("escape", "leave_query", "Leave the query box", show=False, id="recall-escape"),
    ]

    @dataclass
    class HistoryLoaded(Message, bubble=False):
        """Traces were read (posted by the worker to the pane itself)."""

        history: list[RecallTrace]

    @dataclass
    class Tried(Message, bubble=False):
        """A tried query's trace (not recorded)."""

        trace: RecallTrace

    def compose(self) -> ComposeResult:
        """Query box, history and trace view."""
        with Horizontal(id="recall-bar"):
            yield Input(
                placeholder="try a query: see what recall would inject, without recording it", id="recall-query-input"
            )
        yield Label("", id="recall-heading")
        with Horizontal(id="recall-main"):
            yield OptionList(id="recall-history")
            with VerticalScroll(id="recall-view-scroll"):
                yield Static("", id="recall-view")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.history: list[RecallTrace] = []
        """Traces, newest first."""
        self.current: RecallTrace | None = None
        self._dry_run = False
        """The trace on screen."""
        self.loaded_once = False
        """Traces were read at least once."""

    def activate(self) -> None:
        """Read on first show."""
        if not self.loaded_once:
            self.load()
        super().activate()

    def on_sidecars(self, message: SidecarsReloaded) -> None:
        """A trace was written: update live."""
        if message.recall:
            self.load()

    def load(self) -> None:
        """Read the last trace and the history in a thread worker."""
        self.loaded_once = True
        self._load_worker()

    @work(thread=True, exclusive=True, group="recall-load", exit_on_error=False, description="read recall traces")
    def _load_worker(self) -> None:
        from ..reads import last_trace, trace_history

        last = last_trace(self.center.layout)
        history = trace_history(self.center.layout, 200)
        if last is not None and (not history or history[0] != last):
            history = [last, *history]
        self.post_message(self.HistoryLoaded(history))

    @on(HistoryLoaded)
    def _history_loaded(self, message: HistoryLoaded) -> None:
        self._show(message.history)

    def on_clock_tick(self) -> None:
        """Ages in the history move on."""
        if self.history:
            self._show(self.history, keep=True)

    def _show(self, history: list[RecallTrace], keep: bool = False) -> None:
        option_list = self.query_one("#recall-history", OptionList)
        highlighted = option_list.highlighted if keep else None
        self.history = history
        option_list.clear_options()
        now = self.center.clock()
        for i, trace in enumerate(history):
            ts = parse_rfc3339(trace.at)
            when = relative_time(ts, now) if ts else "?"
            hits = len(trace.hits)
            query = trace.query
            mark = "●" if i == 0 else " "
            short = query if len(query) <= 24 else query[:23] + "…"
            option_list.add_option(Option(f"{mark}{when:>4} {hits} hit{'s' if hits != 1 else ' '} {short}"))
        heading = self.query_one("#recall-heading", Label)
        if history:
            heading.update(
                f"{len(history)} recorded recall{'s' if len(history) != 1 else ''} · ● is the last one (updates live)"
            )
            if highlighted is not None and highlighted < len(history):
                option_list.highlighted = highlighted  # a clock tick: the view stays as it is
                return
            option_list.highlighted = 0
            self._view(history[0])
        else:
            heading.update(
                "No recall recorded yet. Traces appear here as the agent works; try a query above meanwhile."
            )
            self.query_one("#recall-view", Static).update("")

    def _view(self, trace: RecallTrace | None, dry_run: bool = False) -> None:
        self.current = trace
        self._dry_run = dry_run
        view = self.query_one("#recall-view", Static)
        if trace is None:
            view.update("")
            return
        rows = self.center.snapshot.rows if self.center.complete else None
        view.update(render_trace(trace, dry_run=dry_run, rows=rows, zone=self.center.settings.time_zone))

    def on_store_update(self, update: StoreUpdate) -> None:
        """A fact the shown trace injected changed or was forgotten: say so in place."""
        trace = self.current
        if trace is None or self._dry_run:
            return
        ids = {h.id for h in trace.hits}
        if update.changes.full or ids & update.changes.touched:
            self._view(trace)

    @on(OptionList.OptionHighlighted, "#recall-history")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index < len(self.history):
            self._view(self.history[event.option_index])

    @on(Input.Submitted, "#recall-query-input")
    def _query_submitted(self, event: Input.Submitted) -> None:
        query = event.value.strip()
        if query:
            self._try_worker(query)

    @work(thread=True, exclusive=True, group="recall-try", exit_on_error=False, description="try a query")
    def _try_worker(self, query: str) -> None:
        from ..reads import try_query

        trace = try_query(self.center.layout, self.center.settings, query, now=self.center.clock())
        self.post_message(self.Tried(trace))

    @on(Tried)
    def _tried(self, message: Tried) -> None:
        self._view(message.trace, True)

    def action_focus_query(self) -> None:
        """Focus the query box."""
        self.query_one("#recall-query-input", Input).focus()

    def action_leave_query(self) -> None:
        """Esc: leave the query box for the history list."""
        self.query_one("#recall-history", OptionList).focus()

    def action_show_last(self) -> None:
        """Show the last recorded trace."""
        if self.history:
            self.query_one("#recall-history", OptionList).highlighted = 0
            self._view(self.history[0])

    def action_open_hit(self) -> None:
        """Jump to the first hit of the trace shown."""
        hits = self.current.hits if self.current is not None else ()
        if hits:
            ref = hits[0].id or hits[0].ref
            if ref:
                self.post_message(ShowFactRequested(ref))

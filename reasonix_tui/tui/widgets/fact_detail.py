"""The fact detail: every field, why its freshness is what it is, overrides, the body."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from ...core.compat.gostr import trim_space
from ...core.compat.gotime import Timestamp
from ...core.store.freshness import explain_freshness
from ...core.store.model import Fact
from ..model.rows import relative_time
from ..model.snapshot import CenterSnapshot

__all__ = ["FactDetail", "fact_metadata", "budget_line"]

_FRESH_STYLE = {"fresh": "green", "current": "default", "stale": "yellow", "expired": "red strike"}


def _when(ts: Timestamp | None, now: Timestamp) -> str:
    if ts is None:
        return "-"
    rel = relative_time(ts, now)
    if rel == "now":
        return f"{ts.rfc3339()}  (just now)"
    return f"{ts.rfc3339()}  ({rel} ago)" if ts <= now else f"{ts.rfc3339()}  ({rel})"


def budget_line(snapshot: CenterSnapshot, fact: Fact | None = None) -> str:
    """``pinned guidance 1,234 / 1,500 chars`` and what pinning ``fact`` would make it."""
    used, budget = snapshot.pinned_chars, snapshot.pinned_budget
    limit = f"{budget:,}" if budget > 0 else "no ceiling"
    text = f"pinned guidance {used:,} / {limit} chars"
    body = trim_space(fact.body) if fact is not None else ""
    if fact is not None and not fact.pinned and body:
        after = used + len(body)  # the rune count the store's budget check uses
        over = budget > 0 and after > budget
        refused = over and snapshot.pinned_refused
        text += f"; pinning this makes {after:,}" + (
            " (over budget: it would be refused)" if refused else " (over budget)" if over else ""
        )
    return text


def fact_metadata(fact: Fact, snapshot: CenterSnapshot, now: Timestamp) -> Table:
    """The metadata grid of the detail view."""
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(no_wrap=True, justify="right")
    grid.add_column(ratio=1, overflow="fold")

    def row(label: str, value: str | Text) -> None:
        grid.add_row(Text(label, style="bold"), value if isinstance(value, Text) else Text(value))

    row("ref", Text(fact.ref, style="bold"))
    row("id", str(fact.id))
    act = fact.resolved_activation
    if fact.activation:
        act_note = "explicit"
    elif act == "pinned":
        act_note = "legacy rule: global user/feedback facts load as guidance"
    else:
        act_note = "default"
    row("type", f"{fact.type}    scope {fact.scope}")
    row("activation", Text.assemble((act, "bold yellow" if act == "pinned" else ""), f"  ({act_note})"))
    row("pinned", budget_line(snapshot, fact) if act != "pinned" else budget_line(snapshot))
    report = explain_freshness(fact, now)
    row("freshness", Text.assemble((report.label, _FRESH_STYLE.get(report.label, "")), f"  {report.reason}"))
    row("volatility", fact.volatility or "(unset: type default)")
    row("revision", str(fact.revision))
    row("created", _when(fact.created_at, now))
    row("updated", _when(fact.updated_at, now))
    if fact.last_verified_at:
        row("verified", _when(fact.last_verified_at, now))
    if fact.expires_at:
        row("expires", _when(fact.expires_at, now))
    if fact.description:
        row("description", fact.description)
    if fact.keywords:
        row("keywords", fact.keywords)
    if fact.subject_key:
        same, other = snapshot.subject_holder(fact)
        text = Text(fact.subject_key, style="bold")
        if same is not None:
            text.append(f"\n⚠ also held by {same.ref} ({same.id}) in the same scope", style="yellow")
        else:
            text.append(f"\nheld by this fact in {fact.scope} scope", style="dim")
        if other is not None:
            text.append(f"\n{other.scope} scope: {other.ref} rev {other.revision}", style="dim")
        row("subject", text)
    overrides = snapshot.overrides(fact)
    for other, key in overrides:
        if fact.scope == "global":
            note = Text(
                f"suppressed by project fact {other.ref} (same {key}): recall and pinned guidance use the project fact",
                style="yellow",
            )
        else:
            note = Text(
                f"overrides global fact {other.ref} (same {key}): the global one is not recalled or pinned here",
                style="cyan",
            )
        row("override", note)
    resolution = snapshot.resolution
    sup = resolution.of(fact) if resolution is not None else None
    shadowed = fact.scope == "global" and bool(overrides)  # the override row already says it
    if sup is not None and not shadowed:
        row(
            "superseded",
            Text(
                f"{sup.label}: recall and the pinned block use {sup.current.ref}" if sup.certain else sup.label,
                style="yellow",
            ),
        )
    if fact.supersedes:
        row("supersedes", ", ".join(fact.supersedes))
    if fact.extra:
        row("other keys", ", ".join(f"{k}={v}" for k, v in fact.extra))
    if fact.parse_error:
        row("parse error", Text(fact.parse_error, style="bold red"))
    if fact.encoding and fact.encoding != "utf-8":
        row("encoding", fact.encoding)
    row("file", Text(fact.path or "-", style="dim"))
    return grid


class FactDetail(VerticalScroll):
    """Metadata and the Markdown body of one fact (or an empty state)."""

    DEFAULT_CSS = """
    FactDetail {
        & > #fact-title { text-style: bold; color: $accent; padding: 0 1; }
        & > #fact-meta { padding: 0 1 1 1; }
        & > #fact-body { padding: 0 1; margin: 0; }
        & > #fact-empty { color: $text-muted; padding: 1 2; }
    }
    """

    def compose(self) -> ComposeResult:
        """Title, metadata, body."""
        yield Static("", id="fact-empty")
        yield Static("", id="fact-title")
        yield Static("", id="fact-meta")
        yield Markdown("", id="fact-body")

    def show(self, fact: Fact | None, snapshot: CenterSnapshot, now: Timestamp, error: str = "") -> None:
        """Draw ``fact`` (``None`` shows the empty state or an error row's message)."""
        empty = self.query_one("#fact-empty", Static)
        title = self.query_one("#fact-title", Static)
        meta = self.query_one("#fact-meta", Static)
        body = self.query_one("#fact-body", Markdown)
        if fact is None:
            empty.update(
                f"[b red]This file could not be read[/]\n\n{escape(error)}"
                if error
                else "Select a fact to see it here."
            )
            empty.display = True
            title.display = meta.display = body.display = False
            return
        empty.display = False
        title.display = meta.display = body.display = True
        title.update(Text(fact.display_title))
        meta.update(fact_metadata(fact, snapshot, now))
        # A worker, so tests and screenshots can wait for the Markdown to be laid out.
        self.run_worker(
            body.update(fact.body or "_(empty body)_"), group="fact-body", exclusive=True, exit_on_error=False
        )

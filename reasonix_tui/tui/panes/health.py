"""Health pane: what is wrong in memory, most serious first, each with its evidence and
its fixes in one key.

The findings come from :mod:`reasonix_tui.core.health`, computed by the app in a worker
after every reload (only the facts that changed are scanned again) and published with
``health_changed``; this pane only draws them. A finding about two facts shows both side
by side, field by field, the words that differ highlighted. Every fix is an intent
(:class:`~reasonix_tui.tui.messages.HealthFixRequested`) that the app carries out through
its one write worker: archive the superseded or duplicate fact, merge (the fact form
opens with the merged text; saving archives the others), verify, unpin, open in
``$EDITOR``, dismiss for good; ``U`` takes the last one back where the store allows.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.health.compare import compare_facts
from ...core.health.model import PROBLEM, WARNING, Finding, HealthReport
from ..messages import HealthFixRequested, HealthUndoRequested, ShowFactRequested
from .base import Pane

__all__ = ["HealthPane", "finding_label", "side_by_side"]

_MARK = {PROBLEM: ("●", "bold red"), WARNING: ("▲", "yellow"), "info": ("·", "dim")}
"""A glyph and a style per severity."""

_FIX_KEYS = (
    ("archive", "a"),
    ("merge", "m"),
    ("verify", "v"),
    ("unpin", "p"),
    ("pin", "p"),
    ("edit", "E"),
    ("dismiss", "d"),
)
"""The key of each fix action (``p`` pins or unpins, whichever the finding offers)."""


def finding_label(finding: Finding) -> Text:
    """One list row: severity glyph and title (each title names what is wrong; the kind
    heads the detail)."""
    glyph, style = _MARK.get(finding.severity, ("·", ""))
    return Text.assemble((f"{glyph} ", style), finding.title)


def _marked(value: str, spans: tuple[tuple[int, int], ...], limit: int = 400) -> Text:
    text = Text(value[:limit] + ("…" if len(value) > limit else ""))
    for a, b in spans:
        if a < limit:
            text.stylize("bold reverse yellow", a, min(b, limit))
    return text


def side_by_side(left: Any, right: Any, left_role: str, right_role: str) -> Table:
    """Two facts as two columns, one row per field; differing words highlighted, fields
    with the same value dim."""
    table = Table(expand=True, show_lines=False, box=None, padding=(0, 1))
    table.add_column("", style="dim", no_wrap=True, width=11)
    table.add_column(left_role, ratio=1, overflow="fold")
    table.add_column(right_role, ratio=1, overflow="fold")
    table.add_row("file", Text(left.ref, style="bold"), Text(right.ref, style="bold"))
    for d in compare_facts(left, right):
        if not d.left and not d.right:
            continue
        if d.same:
            table.add_row(d.field, Text(d.left[:200], style="dim"), Text("same" if d.left else "", style="dim italic"))
        else:
            table.add_row(d.field, _marked(d.left, d.left_spans), _marked(d.right, d.right_spans))
    return table


class HealthPane(Pane):
    """Findings by severity; the detail with evidence; fixes in one key."""

    FOCUS_SELECTOR = "#health-list"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "a",
            "fix('archive')",
            "Archive",
            id="health-archive",
            tooltip="Archive the superseded or duplicate fact (the current one stays)",
        ),
        Binding(
            "m",
            "fix('merge')",
            "Merge",
            id="health-merge",
            tooltip="Open the form with the merged text; saving archives the others",
        ),
        Binding("v", "fix('verify')", "Verify", id="health-verify", tooltip="Still true: renew its freshness clock"),
        Binding("p", "fix_pin", "Unpin", id="health-unpin", tooltip="Unpin (or pin) the fact the finding names"),
        Binding("E", "fix('edit')", "$EDITOR", id="health-edit", tooltip="Open the fact or file in $EDITOR"),
        Binding(
            "d", "fix('dismiss')", "Dismiss", id="health-dismiss", tooltip="Hide it until one of its facts changes"
        ),
        Binding("U", "undo", "Undo fix", id="health-undo", tooltip="Take back the last health fix"),
        Binding("enter", "open_fact", "Show fact", id="health-open", show=False),
    ]

    def compose(self) -> ComposeResult:
        """Heading, list, detail."""
        yield Label("Checking memory…", id="health-heading")
        with Horizontal(id="health-main"):
            yield OptionList(id="health-list")
            with VerticalScroll(id="health-detail-scroll"):
                yield Static("", id="health-detail")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.findings: list[Finding] = []
        """Findings on screen, in list order."""

    def on_mount(self) -> None:
        """Subscribe to health reports too."""
        super().on_mount()
        self.center.health_changed.subscribe(self, self._show)
        if self.center.health is not None or self.center.health_deferred:
            self._show(self.center.health)

    def _show(self, report: HealthReport | None) -> None:
        if report is None:  # put off (a big store): say why and how to ask for it
            if self.center.health is None and self.center.health_deferred:
                self.query_one("#health-heading", Label).update(self.center.health_deferred)
            return
        option_list = self.query_one("#health-list", OptionList)
        current = self._current()
        keep_key = current.key if current is not None else None
        keep_index = option_list.highlighted or 0
        self.findings = list(report.findings)
        option_list.clear_options()
        option_list.add_options([Option(finding_label(f), id=f"{i}") for i, f in enumerate(self.findings)])
        counts = report.counts()
        heading = self.query_one("#health-heading", Label)
        span = report.span.describe()
        extra = f" · {len(report.dismissed)} dismissed" if report.dismissed else ""
        extra += "".join(f" · {p}" for p in report.partial)
        if self.findings:
            heading.update(
                Text.assemble(
                    (
                        f"{counts[PROBLEM]} problem{'s' if counts[PROBLEM] != 1 else ''}",
                        "bold red" if counts[PROBLEM] else "",
                    ),
                    f" · {counts[WARNING]} warning{'s' if counts[WARNING] != 1 else ''} · {counts['info']} info",
                    (f" — {report.facts:,} facts, {span}{extra}", "dim"),
                )
            )
        else:
            heading.update(f"No findings: memory looks healthy ({report.facts:,} facts, {span}{extra}).")
        if self.findings:
            index = next((i for i, f in enumerate(self.findings) if f.key == keep_key), None)
            if index is None:
                index = min(keep_index, len(self.findings) - 1)
            option_list.highlighted = index
            self._view(index)
        else:
            self._view(None)
        self.refresh_bindings()

    def _current(self) -> Finding | None:
        if not self.is_mounted:
            return None
        index = self.query_one("#health-list", OptionList).highlighted
        if index is None or index >= len(self.findings):
            return None
        return self.findings[index]

    @on(OptionList.OptionHighlighted, "#health-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._view(event.option_index)
        self.refresh_bindings()

    @on(OptionList.OptionSelected, "#health-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open_fact()

    def _view(self, index: int | None) -> None:
        detail = self.query_one("#health-detail", Static)
        if index is None or index >= len(self.findings):
            detail.update("")
            return
        f = self.findings[index]
        glyph, style = _MARK.get(f.severity, ("·", ""))
        head = Text()
        head.append(f"{glyph} {f.severity.upper()} · {f.label}\n", style=style)
        head.append(f.title + "\n", style="bold")
        for line in f.evidence:
            head.append(f"  {line}\n")
        for line in f.overlap:
            head.append(f"  shared {line}\n", style="italic")
        parts: list[Any] = [head]
        facts = [self.center.snapshot.facts.get(r.id) for r in f.facts]
        if len(f.facts) >= 2 and facts[0] is not None and facts[1] is not None:
            parts.append(side_by_side(facts[0], facts[1], f.facts[0].role or "first", f.facts[1].role or "second"))
            if len(f.facts) > 2:
                parts.append(
                    Text(f"  … and {len(f.facts) - 2} more: " + ", ".join(r.ref for r in f.facts[2:]), style="dim")
                )
        fixes = Text("\nFixes\n", style="bold")
        for fix in f.fixes:
            key = next((k for a, k in _FIX_KEYS if a == fix.action), "")
            fixes.append(f"  {key:>1} ", style="bold")
            fixes.append(f"{fix.label}\n")
        parts.append(fixes)
        detail.update(Group(*parts))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A fix key works only when the highlighted finding offers that fix."""
        if not self.is_mounted:
            return True
        finding = self._current()
        if action == "fix":
            return True if finding is not None and finding.fix(str(parameters[0])) is not None else None
        if action == "fix_pin":
            return True if finding is not None and (finding.fix("unpin") or finding.fix("pin")) else None
        if action == "open_fact":
            return True if finding is not None and finding.facts else None
        if action == "undo":
            return True if self.center.health_undo else None
        return True

    def action_fix(self, action: str) -> None:
        """Apply one fix of the highlighted finding (the app does the write)."""
        finding = self._current()
        if finding is not None and finding.fix(action) is not None:
            self.post_message(HealthFixRequested(finding, action))

    def action_fix_pin(self) -> None:
        """Unpin (or pin, for a fact recalled often) the fact the finding names."""
        finding = self._current()
        if finding is not None:
            self.action_fix("unpin" if finding.fix("unpin") else "pin")

    def action_undo(self) -> None:
        """Take back the last health fix."""
        self.post_message(HealthUndoRequested())

    def action_open_fact(self) -> None:
        """Show the finding's first fact in the Facts pane."""
        finding = self._current()
        if finding is not None and finding.facts:
            self.post_message(ShowFactRequested(finding.facts[0].id))

"""The main screen: a status line, the eight panes in tabs, and the footer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import cast

from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from ..center import Center
from ..messages import FactHighlighted, ReviewApprovalsRequested, ShowFactRequested, SidecarsReloaded
from ..panes.activity import ActivityPane
from ..panes.archive import ArchivePane
from ..panes.base import Pane
from ..panes.facts import FactsPane
from ..panes.health import HealthPane
from ..panes.instructions import InstructionsPane
from ..panes.recall import RecallPane
from ..panes.revisions import RevisionsPane
from ..panes.suggestions import SuggestionsPane

__all__ = ["MainScreen", "PANES"]

PANES: tuple[tuple[str, str], ...] = (
    ("facts", "Facts"),
    ("revisions", "Revisions"),
    ("archive", "Archive"),
    ("instructions", "Instructions"),
    ("recall", "Recall"),
    ("suggestions", "Suggestions"),
    ("activity", "Activity"),
    ("health", "Health"),
)
"""Pane ids and titles, in key order (1-8)."""


_PANE_CLASSES: dict[str, type[Pane]] = {
    "facts": FactsPane,
    "revisions": RevisionsPane,
    "archive": ArchivePane,
    "instructions": InstructionsPane,
    "recall": RecallPane,
    "suggestions": SuggestionsPane,
    "activity": ActivityPane,
    "health": HealthPane,
}
"""Pane classes by id."""


_PANE_COMMANDS: tuple[tuple[str, str, str, str], ...] = (
    ("facts", "toggle_detail", "facts: show / hide the detail", "Hide the detail to see every column (d)"),
    ("facts", "mark_all", "facts: mark every fact shown", "Then v verifies or x forgets all of them (*)"),
    ("facts", "clear_marks", "facts: unmark all", "Clear the marks (u)"),
    (
        "revisions",
        "restore",
        "revisions: restore the highlighted revision",
        "Bring an old revision back as a new one (r)",
    ),
    ("archive", "recover", "archive: recover the highlighted fact", "Recover an archived fact (r)"),
    (
        "instructions",
        "focus_target",
        "instructions: choose the target path",
        "Resolve instructions for another directory (t)",
    ),
    ("instructions", "show_block", "instructions: show the provider-visible block", "What the agent receives (b)"),
    (
        "instructions",
        "edit_document",
        "instructions: open the document in $EDITOR",
        "Edit the highlighted instruction file; it is resolved again after (E)",
    ),
    ("recall", "focus_query", "recall: try a query", "See what recall would inject, without recording it (/)"),
    ("recall", "show_last", "recall: show the last trace", "The last recorded recall (l)"),
    (
        "suggestions",
        "accept",
        "suggestions: accept (edit first)",
        "Accept the highlighted suggestion after editing it (a)",
    ),
    ("suggestions", "dismiss_suggestion", "suggestions: dismiss", "Dismiss the highlighted suggestion for good (d)"),
    ("suggestions", "rescan", "suggestions: scan again", "Scan recent sessions again (g)"),
    ("activity", "focus_filter", "activity: filter the audit log", "By words, actor:, op:, ref:, refused (/)"),
    ("activity", "open_fact", "activity: show the fact of the highlighted entry", "Jump to the fact (enter)"),
    (
        "health",
        "fix('archive')",
        "health: archive the superseded or duplicate fact",
        "The current one stays; U undoes it (a)",
    ),
    (
        "health",
        "fix('merge')",
        "health: merge duplicates",
        "The form opens with the merged text; saving archives the others (m)",
    ),
    ("health", "fix('verify')", "health: verify", "Renew the fact's freshness clock (v)"),
    ("health", "fix('unpin')", "health: unpin", "Unpin the fact the finding names (p)"),
    ("health", "fix('edit')", "health: open in $EDITOR", "Open the fact or file the finding names (E)"),
    ("health", "fix('dismiss')", "health: dismiss for good", "Hidden until one of its facts changes (d)"),
    ("health", "undo", "health: undo the last fix", "Recover, restore or show again what the last fix changed (U)"),
)
"""Palette commands of the panes other than Facts: (pane, action, title, help)."""


class StatusBar(Static):
    """Workspace, counts, pinned budget, pending approvals, watch state."""


def fit_status(parts: Sequence[tuple[int, str, str]], width: int) -> str:
    """The status line for ``width`` cells from ``(priority, full, short)`` parts (an empty
    form: left out). The full forms when they fit, else without the least important parts
    (priority 3 and up); else the short forms, leaving out parts of priority 1 and up, least
    important first, until they fit. Priority 0 is always shown."""
    items: list[tuple[int, str]] = []
    for short, floor in ((False, 3), (True, 1)):
        items = [(prio, s if short else f) for prio, f, s in parts if (s if short else f)]
        while Content.from_markup(" · ".join(text for _, text in items)).cell_length > width:
            optional = [i for i, (prio, _) in enumerate(items) if prio >= floor]
            if not optional:
                break
            del items[max(optional, key=lambda i: (items[i][0], i))]
        else:
            break
    return " · ".join(text for _, text in items)


class MainScreen(Screen[None]):
    """Facts, Revisions, Archive, Instructions, Recall, Suggestions, Activity, Health."""

    AUTO_FOCUS = "#facts-table"
    """The table has the keys from the first frame, before its rows arrive (the default
    would focus the tab strip, and the first arrow key would switch panes)."""

    selected_fact: reactive[str | None] = reactive(None, init=False)
    """The fact highlighted in the facts table (the Revisions pane follows it)."""

    active_pane: reactive[str] = reactive("facts", bindings=True, init=False)
    """Id of the visible pane."""

    @property
    def center(self) -> Center:
        """The app's state (see :class:`~reasonix_tui.tui.center.Center`)."""
        return cast(Center, self.app)

    def compose(self) -> ComposeResult:
        """Status bar, tabs, footer."""
        yield StatusBar("", id="status-bar")
        with TabbedContent(initial="facts", id="tabs"):
            for i, (pane_id, title) in enumerate(PANES):
                with TabPane(f"{i + 1} {title}", id=pane_id):
                    # Only the Facts pane is built at start; the others are mounted the first
                    # time they are shown (cheaper than Lazy, which still mounts them all
                    # right after the first refresh and so delays the first key press).
                    if pane_id == "facts":
                        yield FactsPane(id="facts-pane")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        """Subscribe to the app's signals and draw the status line."""
        self.center.store_changed.subscribe(self, lambda _update: self.refresh_status())
        self.center.sidecars_changed.subscribe(self, self._sidecars)
        self.center.health_changed.subscribe(self, lambda _report: self.refresh_status())
        self.refresh_status()
        self.call_after_refresh(self._activate, "facts")

    def _sidecars(self, message: SidecarsReloaded) -> None:
        self.refresh_status()

    def on_resize(self) -> None:
        """Fit the status line to the new width."""
        self.refresh_status()

    def refresh_status(self) -> None:
        """Redraw the status line, fitted to its width (:func:`fit_status`)."""
        app = self.center
        snap = app.snapshot
        counts = snap.counts
        project, global_, pinned = counts.get("project", 0), counts.get("global", 0), counts.get("pinned", 0)
        budget = f"{snap.pinned_chars:,}/{snap.pinned_budget:,}" if snap.pinned_budget else f"{snap.pinned_chars:,}/∞"
        over = snap.pinned_budget and snap.pinned_chars > snap.pinned_budget
        budget = f"{'[red]' if over else ''}{budget}{'[/]' if over else ''}"
        pending = app.approvals.count
        reading = f" [$warning]· reading {snap.reading[0]:,}/{snap.reading[1]:,} files…[/]" if snap.reading[1] else ""
        counted = f"{project:,} project · {global_:,} global" if app.loaded else "loading…"
        # (priority, full form, short form): 0 is always shown; the approval count comes
        # first after the workspace, so it stays visible at 80 columns
        where = f"[b]{app.layout.workspace.name or app.layout.workspace}[/b]"
        parts: list[tuple[int, str, str]] = [(0, where, where)]
        if pending:
            flag = f"⚑ {pending} pending approval{'s' if pending != 1 else ''}"
            parts.append((0, f"[reverse b $warning] {flag} (press A) [/]", f"[reverse b $warning] {flag} (A) [/]"))
        else:
            parts.append((3, "no pending approvals", ""))
        problems = app.health.problems if app.health is not None else 0
        if problems:
            key = app.effective_keys("app-pane-health", "8").split(",")[0]
            many = "s" if problems != 1 else ""
            parts.append(
                (
                    0,
                    f"[b $error]{problems} memory problem{many} — press {key}[/]",
                    f"[b $error]{problems} problem{many} ({key})[/]",
                )
            )
        parts.append((2, counted + reading, counted + reading))
        parts.append((1, f"{pinned} pinned {budget} chars", f"pinned {budget}"))
        if app.demo:
            parts.append((3, "[b $accent]demo home[/]", "[b $accent]demo[/]"))
        if app.stale:
            parts.append((0, "[$error]stale: reload failed[/]", "[$error]stale: reload failed[/]"))
        else:
            parts.append(
                (3, "watching" if app.watch_enabled else "not watching", "" if app.watch_enabled else "not watching")
            )
        bars = self.query("#status-bar").results(StatusBar)
        bar = next(iter(bars), None)
        if bar is None:  # a store or health update that lands while the screen is torn down
            return
        bar.update(fit_status(parts, bar.content_region.width or self.app.size.width - 2))

    # ----------------------------------------------------------------- panes

    def show_pane(self, pane_id: str) -> None:
        """Switch to a pane."""
        # Drop focus first: TabbedContent switches back to whichever pane holds the focus.
        self.set_focus(None)
        self.query_one("#tabs", TabbedContent).active = pane_id
        self._activate(pane_id)

    def _activate(self, pane_id: str) -> None:
        self.active_pane = pane_id
        pane = self.pane(pane_id)
        if pane is None:
            pane = _PANE_CLASSES[pane_id](id=f"{pane_id}-pane")
            if isinstance(pane, RevisionsPane):
                pane.set_reactive(RevisionsPane.fact_id, self.selected_fact)
            tab = self.query_one(f"#{pane_id}", TabPane)
            self.app.call_later(self._mount_and_activate, tab, pane)
            return
        pane.activate()

    async def _mount_and_activate(self, tab: TabPane, pane: Pane) -> None:
        await tab.mount(pane)
        # After the pane's own Mount handlers have run.
        self.call_after_refresh(self._activate_if_current, pane)

    def _activate_if_current(self, pane: Pane) -> None:
        if self.active_pane == (pane.id or "").removesuffix("-pane"):
            pane.activate()

    def pane(self, pane_id: str) -> Pane | None:
        """The pane widget of ``pane_id`` (``None`` until first shown)."""
        for pane in self.query(Pane):
            if pane.id == f"{pane_id}-pane":
                return pane
        return None

    @on(TabbedContent.TabActivated, "#tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane_id = event.pane.id or "facts"
        if pane_id != self.active_pane:
            self._activate(pane_id)

    @on(FactHighlighted)
    def _fact_highlighted(self, message: FactHighlighted) -> None:
        message.stop()
        self.selected_fact = message.fact_id

    def watch_selected_fact(self, fact_id: str | None) -> None:
        """The Revisions pane follows the selection."""
        for pane in self.query("#revisions-pane").results(RevisionsPane):
            pane.fact_id = fact_id

    @on(ShowFactRequested)
    def _show_fact(self, message: ShowFactRequested) -> None:
        message.stop()
        self.show_pane("facts")
        if not self.query_one("#facts-pane", FactsPane).select(message.ref):
            self.notify(f"{message.ref} is not an active fact.", severity="warning")

    # ----------------------------------------------------------------- palette

    def palette_commands(self) -> Iterable[SystemCommand]:
        """Fact actions for the command palette (they act on the highlighted fact)."""
        facts = self.query_one("#facts-pane", FactsPane)
        for name, title, help_text in (
            ("pin", "facts: pin / unpin", "Pin the highlighted fact, or unpin it (p)"),
            ("verify", "facts: verify", "Mark the highlighted fact verified now (v)"),
            ("new", "facts: new fact", "Create a fact (n)"),
            ("edit", "facts: edit", "Edit the highlighted fact in a form (e)"),
            ("edit_external", "facts: edit in $EDITOR", "Edit the highlighted fact's file text (E)"),
            ("forget", "facts: forget", "Archive the highlighted fact, after asking (x)"),
            ("quick_add", "instructions: quick-add note", "Append a note to the standing instructions (#)"),
            ("copy_ref", "facts: copy ref", "Copy the highlighted fact's reference (c)"),
            ("sort", "facts: sort by next column", "Cycle the sort column (s)"),
        ):
            yield SystemCommand(title, help_text, partial(self._run_facts_action, facts, name))
        yield SystemCommand(
            "approvals: review pending", "Open the approval dialog for queued proposals", self._review_approvals
        )
        for pane_id, action, title, help_text in _PANE_COMMANDS:
            yield SystemCommand(title, help_text, partial(self.run_pane_action, pane_id, action))

    def run_pane_action(self, pane_id: str, action: str, attempts: int = 100) -> None:
        """Show a pane (mounting it if needed) and run one of its actions."""
        if self.active_pane != pane_id:
            self.show_pane(pane_id)
        pane = self.pane(pane_id)
        if pane is None or not pane.is_mounted:
            if attempts > 0:
                self.set_timer(0.05, partial(self.run_pane_action, pane_id, action, attempts - 1))
            return
        name, _, arg = action.partition("(")
        if arg:
            getattr(pane, f"action_{name}")(arg.rstrip(")").strip("'\""))
        else:
            getattr(pane, f"action_{action}")()

    def _run_facts_action(self, facts: FactsPane, name: str) -> None:
        self.show_pane("facts")
        getattr(facts, f"action_{name}")()

    def _review_approvals(self) -> None:
        self.post_message(ReviewApprovalsRequested())

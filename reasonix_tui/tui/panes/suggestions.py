"""Suggestions pane: memory and skill candidates from the history window, best first, each
with its score, the reasons it looks durable and the merged evidence (every message it was
said in, and the step it corrected); accept (edit first) or dismiss — dismissing brings
the next candidate in. Scanned every time the pane opens; nothing is written by itself
(accept and dismiss are intents the app's write worker carries out; the list is scanned
again when it says a suggestion changed)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Label, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from ...core.sessions.suggestions import MemorySuggestion, Suggestion, SuggestionsView
from ...core.sessions.suggestions.model import suggested_fields
from ..messages import SidecarsReloaded, SuggestionAcceptRequested, SuggestionDismissRequested
from ..writes import FactFormValues
from .base import Pane

__all__ = ["SuggestionsPane", "suggestion_fields"]

_SOURCE_LABEL = {
    "session": "Reasonix session",
    "claude-session": "Claude Code session",
    "claude-memory": "Claude Code auto-memory",
    "agent-notes": "agent notes",
    "history-miss": "history search",
}


def suggestion_fields(item: Suggestion) -> FactFormValues:
    """The fact form pre-filled from a suggestion: each field a suggestion carries
    (:func:`~reasonix_tui.core.sessions.suggestions.model.suggested_fields`; a skill fills
    name, description and body, its title is its name)."""
    values: dict[str, Any] = {f.name: getattr(item, f.name, "") for f in suggested_fields()}
    values["type"] = item.type if isinstance(item, MemorySuggestion) else "project"
    values["scope"] = item.scope or "project"
    return FactFormValues(**values)


class SuggestionsPane(Pane):
    """Candidates for memory, found in what the person said."""

    FOCUS_SELECTOR = "#suggestions-list"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "accept", "Accept (edit first)", id="suggestions-accept"),
        Binding("d", "dismiss_suggestion", "Dismiss", id="suggestions-dismiss"),
        Binding("g", "rescan", "Scan again", id="suggestions-rescan"),
    ]

    def compose(self) -> ComposeResult:
        """List and evidence."""
        yield Label("Scanning recent sessions…", id="suggestions-heading")
        with Horizontal(id="suggestions-main"):
            yield OptionList(id="suggestions-list")
            with VerticalScroll(id="suggestions-view-scroll"):
                yield Static("", id="suggestions-view")
                yield Markdown("", id="suggestions-body")
                yield Static("", id="suggestions-evidence")

    @dataclass
    class Scanned(Message, bubble=False):
        """A scan finished (posted by the worker to the pane itself)."""

        view: SuggestionsView
        error: str

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.items: list[Suggestion] = []
        """Suggestions on screen."""

    def activate(self) -> None:
        """Scan every time the pane opens (no setting needed)."""
        self.load()
        super().activate()

    def load(self) -> None:
        """Scan in a thread worker."""
        self._scan_worker()

    @work(
        thread=True, exclusive=True, group="suggestions-scan", exit_on_error=False, description="scan for suggestions"
    )
    def _scan_worker(self) -> None:
        from ..reads import scan_suggestions

        center = self.center
        try:
            view, error = scan_suggestions(center.layout, center.settings, center.clock()), ""
        except Exception as exc:  # a broken session file never breaks the pane
            view, error = SuggestionsView(), f"Scan failed: {type(exc).__name__}: {exc}"
        self.post_message(self.Scanned(view, error))

    @on(Scanned)
    def _scanned(self, message: Scanned) -> None:
        self._show(message.view, message.error)

    def on_sidecars(self, message: SidecarsReloaded) -> None:
        """A suggestion was accepted or dismissed: scan again."""
        if message.suggestions:
            self.load()

    def _show(self, view: SuggestionsView, error: str) -> None:
        option_list = self.query_one("#suggestions-list", OptionList)
        keep = option_list.highlighted
        items = list(view.all())
        self.items = items
        option_list.clear_options()
        for item in items:
            title = item.title or item.description or "(untitled)"
            mark = "⚙" if item.kind == "skill" else ("↻" if getattr(item, "updates", "") else "✦")
            label = Text.assemble((f"{mark} {item.score:>4.1f} ", "dim"), title)
            option_list.add_option(Option(label))
        heading = self.query_one("#suggestions-heading", Label)
        window = f"the last {view.window_days} days" if view.window_days else "all history"
        waiting = f" · {view.more} more waiting" if view.more else ""
        if error:
            heading.update(Text(error, style="yellow"))
        elif items:
            heading.update(
                f"{len(items)} suggestion{'s' if len(items) != 1 else ''} from {view.sessions} sessions "
                f"({window}){waiting} · a accepts (you edit first) · d dismisses for good"
            )
        elif not view.available:
            heading.update("Suggestions are off: memory is disabled (REASONIX_EXPERIMENT_NO_MEMORY).")
        else:
            heading.update(
                f"No suggestions from {view.sessions} sessions ({window}): nothing looks like a lasting "
                "rule, preference, fact or repeated procedure"
                + (f" · {view.hidden} dismissed or accepted" if view.hidden else "")
                + "."
            )
        if items:
            index = min(keep or 0, len(items) - 1)
            option_list.highlighted = index
            self._view(index)
        else:
            self._view(None)
        self.refresh_bindings()  # accept / dismiss depend on the list

    def _view(self, index: int | None) -> None:
        view = self.query_one("#suggestions-view", Static)
        body = self.query_one("#suggestions-body", Markdown)
        evidence_view = self.query_one("#suggestions-evidence", Static)
        if index is None or index >= len(self.items):
            view.update("")
            body.update("")
            evidence_view.update("")
            return
        item = self.items[index]
        values = suggestion_fields(item)
        text = Text()
        text.append((values.title or values.description) + "\n", style="bold")
        text.append(
            f"{item.kind} candidate · score {item.score:g} · type {values.type} · scope {values.scope}\n", style="dim"
        )
        updates = getattr(item, "updates", "")
        if updates:
            text.append(f"updates {updates}: accepting writes its next revision\n", style="yellow")
        if values.description and values.description != values.title:
            text.append(values.description + "\n")
        steps = getattr(item, "steps", ())
        for i, step in enumerate(steps, 1):
            text.append(f"  {i}. {step}\n")
        reasons = item.reasons or ((item.reason,) if item.reason else ())
        if reasons:
            text.append("why:\n", style="italic")
            for reason in reasons:
                text.append(f"  · {reason}\n", style="italic")
        view.update(text)
        self.run_worker(body.update(values.body), group="suggestions-body", exclusive=True, exit_on_error=False)
        text = Text()
        count = len(item.sources) or len(item.evidence)
        if count:
            sessions = len({ev.label for ev in item.sources if ev.source in ("session", "claude-session")})
            said = f", said in {sessions} sessions" if sessions > 1 else ""
            text.append(f"Evidence ({count}{said})\n", style="bold")
        for ev in item.sources:
            where = ev.label + (
                f" #{ev.line}" if ev.source in ("session", "claude-session") else (f":{ev.line}" if ev.line else "")
            )
            head = " · ".join(
                v for v in (_SOURCE_LABEL.get(ev.source, ev.source), where, ev.at.rfc3339() if ev.at else "") if v
            )
            text.append(f"• {head}\n", style="dim")
            text.append(f"  “{ev.text}”\n")
            if ev.context:
                text.append(f"  after {ev.context}\n", style="dim italic")
        if not item.sources:
            for line in item.evidence:  # Reasonix's plain evidence strings
                text.append(f"• {line}\n")
        evidence_view.update(text)

    @on(OptionList.OptionHighlighted, "#suggestions-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._view(event.option_index)

    def _current(self) -> Suggestion | None:
        index = self.query_one("#suggestions-list", OptionList).highlighted
        if index is None or index >= len(self.items):
            return None
        return self.items[index]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Accept and dismiss need a highlighted suggestion."""
        if action in ("accept", "dismiss_suggestion") and self.is_mounted:
            return True if self._current() is not None else None
        return True

    def action_accept(self) -> None:
        """Open the form pre-filled; saving accepts the (edited) suggestion."""
        from ..screens.fact_form import FactFormScreen

        item = self._current()
        if item is None:
            return
        self.app.push_screen(
            FactFormScreen(suggestion_fields(item), title="Accept suggestion (edit first)"),
            partial(self._accepted, item.id),
        )

    def _accepted(self, suggestion_id: str, values: FactFormValues | None) -> None:
        if values is not None:
            self.post_message(SuggestionAcceptRequested(suggestion_id, values))

    def action_dismiss_suggestion(self) -> None:
        """Dismiss for good."""
        item = self._current()
        if item is not None:
            self.post_message(SuggestionDismissRequested(item.id))

    def action_rescan(self) -> None:
        """Scan again."""
        self.load()

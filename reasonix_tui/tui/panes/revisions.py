"""Revisions pane: the history of the selected fact, a diff of any revision against the
current one, and restore as a new revision (the store's superseded-value warning is shown
as a notification when the restore lands)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.compat.encoding import read_text
from ...core.compat.gostr import one_line
from ...core.store.fileformat import render_fact
from ...core.store.model import Fact
from ..messages import RestoreRequested, StoreUpdate
from ..model.rows import relative_time
from .base import Pane

__all__ = ["RevisionsPane", "diff_text", "RevisionList"]


@dataclass(frozen=True)
class RevisionList:
    """The history of one fact, as read by a worker."""

    fact_id: str
    """The fact."""
    current: Fact
    """The active revision."""
    current_text: str
    """Its file text."""
    revisions: tuple[Fact, ...]
    """Older revisions, newest first."""
    texts: tuple[str, ...]
    """Their file texts."""
    error: str = ""
    """Why the history could not be read."""


def _file_text(fact: Fact) -> str:
    """The revision's file as Reasonix decodes it (rendered from the fact when unreadable)."""
    try:
        return read_text(fact.path).text
    except OSError:
        return render_fact(fact)


def diff_text(old: str, new: str, old_label: str, new_label: str) -> Text:
    """A coloured unified diff (``old`` → ``new``)."""
    out = Text()
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), old_label, new_label, lineterm="", n=3))
    if not lines:
        out.append("No difference.", style="dim")
        return out
    for line in lines:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = ""
        out.append(line + "\n", style=style)
    return out


class RevisionsPane(Pane):
    """History of the fact selected in the Facts pane."""

    FOCUS_SELECTOR = "#revisions-list"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "restore", "Restore", id="revisions-restore"),
    ]

    fact_id: reactive[str | None] = reactive(None, init=False)
    """The fact whose history is shown (set by the main screen)."""

    @dataclass
    class Loaded(Message, bubble=False):
        """A history was read (posted by the worker to the pane itself)."""

        history: RevisionList

    def compose(self) -> ComposeResult:
        """Revision list and diff."""
        yield Label("Select a fact in the Facts pane (1) to see its history.", id="revisions-heading")
        with Horizontal(id="revisions-main"):
            with Vertical(id="revisions-side"):
                yield OptionList(id="revisions-list")
            with VerticalScroll(id="revisions-diff-scroll"):
                yield Static("", id="revisions-diff")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.history: RevisionList | None = None
        """The history on screen."""

    def watch_fact_id(self, fact_id: str | None) -> None:
        """Load the history of the new selection (only while the pane is visible)."""
        if self.is_on_screen_pane():
            self.load()

    def is_on_screen_pane(self) -> bool:
        """True when this pane is the active tab."""
        return getattr(self.screen, "active_pane", "") == "revisions"

    def activate(self) -> None:
        """Load on show."""
        self.load()
        super().activate()

    def on_store_update(self, update: StoreUpdate) -> None:
        """Reload when the selected fact changed."""
        if (
            self.fact_id
            and (self.fact_id in update.changes.touched or update.changes.full)
            and self.is_on_screen_pane()
        ):
            self.load()

    def load(self) -> None:
        """Read the history in a thread worker."""
        fact_id = self.fact_id
        if fact_id is None or fact_id not in self.center.snapshot.facts:
            self.history = None
            self.query_one("#revisions-heading", Label).update(
                "Select a fact in the Facts pane (1) to see its history."
            )
            self.query_one("#revisions-list", OptionList).clear_options()
            self.query_one("#revisions-diff", Static).update("")
            return
        self._load_worker(fact_id)

    @work(thread=True, exclusive=True, group="revisions-load", exit_on_error=False, description="read revisions")
    def _load_worker(self, fact_id: str) -> None:
        store = self.center.make_store()
        current = self.center.snapshot.facts[fact_id]
        try:
            revisions = tuple(store.revisions(str(current.id)))
            error = ""
        except Exception as exc:  # NotFound when it vanished meanwhile
            revisions, error = (), str(exc)
        history = RevisionList(
            fact_id, current, _file_text(current), revisions, tuple(_file_text(r) for r in revisions), error
        )
        self.post_message(self.Loaded(history))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self._show(message.history)

    def on_clock_tick(self) -> None:
        """Ages in the list move on."""
        if self.history is not None and self.is_on_screen_pane():
            self._show(self.history)

    def _show(self, history: RevisionList) -> None:
        if history.fact_id != self.fact_id:
            return
        self.history = history
        current = history.current
        now = self.center.clock()
        count = len(history.revisions)
        self.query_one("#revisions-heading", Label).update(
            f"[b]{current.display_title}[/b]  {current.ref}  ·  revision {current.revision}  ·  "
            f"{count} earlier revision{'s' if count != 1 else ''} stored"
            + (f"  ·  [red]{history.error}[/]" if history.error else "")
        )
        option_list = self.query_one("#revisions-list", OptionList)
        option_list.clear_options()
        option_list.add_option(
            Option(f"● rev {current.revision}  current  {relative_time(current.updated_at, now)}", id="rev-current")
        )
        for rev in history.revisions:
            summary = one_line(rev.title or rev.description or rev.body)
            summary = summary if len(summary) <= 26 else summary[:25] + "…"
            option_list.add_option(
                Option(
                    f"  rev {rev.revision}  {relative_time(rev.updated_at, now):>5}  {summary}",
                    id=f"rev-{rev.revision}",
                )
            )
        option_list.highlighted = 1 if history.revisions else 0
        self._show_diff(option_list.highlighted)
        self.refresh_bindings()  # "restore" is enabled only now

    def _show_diff(self, index: int | None) -> None:
        history = self.history
        target = self.query_one("#revisions-diff", Static)
        if history is None or index is None:
            target.update("")
            return
        if index == 0:
            if not history.revisions:
                target.update(Text("No earlier revisions: this fact has only ever had one version.", style="dim"))
            else:
                target.update(Text(history.current_text))
            return
        rev = history.revisions[index - 1]
        text = diff_text(
            history.texts[index - 1],
            history.current_text,
            f"revision {rev.revision}",
            f"revision {history.current.revision} (current)",
        )
        target.update(text)

    @on(OptionList.OptionHighlighted, "#revisions-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_diff(event.option_index)

    def selected_revision(self) -> int | None:
        """The highlighted older revision (``None`` on the current one)."""
        history = self.history
        index = self.query_one("#revisions-list", OptionList).highlighted
        if history is None or not index:
            return None
        return history.revisions[index - 1].revision

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Restore needs an older revision highlighted."""
        if action == "restore" and self.is_mounted:
            return True if self.selected_revision() is not None else None
        return True

    def action_restore(self) -> None:
        """Restore the highlighted revision (asks first)."""
        revision = self.selected_revision()
        if revision is not None and self.history is not None:
            self.post_message(RestoreRequested(str(self.history.current.id), revision))

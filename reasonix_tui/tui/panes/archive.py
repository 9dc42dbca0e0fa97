"""Archive pane: archived facts of both scopes with time and path, a preview, and recover."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Label, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from ...core.store.model import slug
from ...core.store.results import ArchivedFact
from ..messages import RecoverRequested, StoreUpdate
from ..model.rows import ago, human_time, relative_time
from ..model.snapshot import CenterSnapshot
from .base import Pane

__all__ = ["ArchivePane", "collision_note"]


def collision_note(entry: ArchivedFact, snapshot: CenterSnapshot) -> str:
    """Why recovering ``entry`` would be refused, or ``""`` (spec §8.3 collisions, checked
    on the snapshot before ``Store.recover`` is asked)."""
    fact = entry.fact
    active = snapshot.facts.get(str(fact.id))
    if active is not None:
        return f"id {fact.id} is already active as {active.ref}: recover would be refused."
    name = slug(fact.name)
    name_key = "name:" + name
    for src in snapshot.sources.values():
        if name_key in src.keys:
            return (
                f"the name {name!r} is already active as {src.ref} (id {src.key}): recover would be refused. "
                "Forget or rename that fact first."
            )
    if fact.subject_key:
        for src in snapshot.sources.values():
            if src.subject == fact.subject_key and src.scope == fact.scope:
                return f"subject {fact.subject_key!r} is held by {src.ref}: recover would be refused."
    return ""


class ArchivePane(Pane):
    """Forgotten facts, newest first."""

    FOCUS_SELECTOR = "#archive-list"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "recover", "Recover", id="archive-recover"),
    ]

    def compose(self) -> ComposeResult:
        """List and preview."""
        yield Label("", id="archive-heading")
        with Horizontal(id="archive-main"):
            yield OptionList(id="archive-list")
            with VerticalScroll(id="archive-preview"):
                yield Static("", id="archive-meta")
                yield Markdown("", id="archive-body")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.entries: tuple[ArchivedFact, ...] = ()
        """Archived facts shown, newest first."""

    def on_store_update(self, update: StoreUpdate) -> None:
        """Redraw when the archive changed."""
        if update.changes.archive_changed or update.changes.full or update.changes.removed or update.changes.added:
            self._draw(update.snapshot)

    def _draw(self, snapshot: CenterSnapshot) -> None:
        option_list = self.query_one("#archive-list", OptionList)
        keep = option_list.highlighted
        keep_path = self.entries[keep].path if keep is not None and keep < len(self.entries) else None
        self.entries = snapshot.archived
        now = self.center.clock()
        option_list.clear_options()
        for entry in self.entries:
            when = relative_time(entry.archived_at, now)
            option_list.add_option(Option(f"{when:>5}  {entry.fact.scope:<7} {entry.fact.display_title[:44]}", id=None))
        count = len(self.entries)
        self.query_one("#archive-heading", Label).update(
            f"{count} archived fact{'s' if count != 1 else ''} (both scopes, newest first) · r recovers the highlighted one"
            if count
            else "The archive is empty: forgotten facts land here and can be recovered."
        )
        if self.entries:
            index = next((i for i, e in enumerate(self.entries) if e.path == keep_path), 0)
            option_list.highlighted = index
            self._preview(index)
        else:
            self._preview(None)
        self.refresh_bindings()

    def on_clock_tick(self) -> None:
        """Ages move on."""
        if self.entries:
            self._draw(self.center.snapshot)

    def _preview(self, index: int | None) -> None:
        meta = self.query_one("#archive-meta", Static)
        body = self.query_one("#archive-body", Markdown)
        if index is None or index >= len(self.entries):
            meta.update("")
            body.update("")
            return
        entry = self.entries[index]
        fact = entry.fact
        text = Text()
        text.append(fact.display_title + "\n", style="bold")
        text.append(f"{fact.ref}  ·  type {fact.type}  ·  revision {fact.revision}\n")
        text.append(f"id {fact.id}\n", style="dim")
        if entry.archived_at:
            when = human_time(entry.archived_at, self.center.settings.time_zone)
            text.append(f"archived {when} ({ago(entry.archived_at, self.center.clock())})\n")
        text.append(f"{entry.path}\n", style="dim")
        if fact.description:
            text.append(fact.description + "\n", style="italic")
        note = collision_note(entry, self.center.snapshot)
        if note:
            text.append("⚠ " + note + "\n", style="bold yellow")
        else:
            text.append("Recover brings it back as a new revision.\n", style="green")
        meta.update(text)
        self.run_worker(
            body.update(fact.body or "_(empty body)_"), group="archive-body", exclusive=True, exit_on_error=False
        )

    @on(OptionList.OptionHighlighted, "#archive-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._preview(event.option_index)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Recover needs a highlighted entry."""
        if action == "recover" and self.is_mounted:
            return (
                True if self.query_one("#archive-list", OptionList).highlighted is not None and self.entries else None
            )
        return True

    def action_recover(self) -> None:
        """Recover the highlighted entry (the store explains a collision)."""
        index = self.query_one("#archive-list", OptionList).highlighted
        if index is not None and index < len(self.entries):
            self.post_message(RecoverRequested(self.entries[index].path))

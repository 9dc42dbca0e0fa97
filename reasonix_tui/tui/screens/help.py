"""F1 / ``?``: every key, pane by pane, as the ``[keymap]`` setting has made them.

The tables are built from the bindings themselves (their ids, descriptions and
tooltips), so a remapped key shows as remapped, and every id a ``[keymap]`` entry may
name is listed beside its key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.keys import format_key
from textual.screen import ModalScreen
from textual.widgets import Markdown

from ..panes.activity import ActivityPane
from ..panes.archive import ArchivePane
from ..panes.facts import FactsPane
from ..panes.instructions import InstructionsPane
from ..panes.recall import RecallPane
from ..panes.revisions import RevisionsPane
from ..panes.suggestions import SuggestionsPane
from .approval import ApprovalScreen
from .dialogs import ConfirmScreen, QuickAddScreen
from .fact_form import FactFormScreen

__all__ = ["HelpScreen", "help_text", "binding_ids", "key_label", "SECTIONS"]

SECTIONS: tuple[tuple[str, str, str], ...] = (
    (
        "1 Facts",
        "facts",
        "`↑↓` move · `enter` focus the detail · click a header to sort. Filter words: `type:` `scope:` "
        "`act:` `fresh:` `subject:`, `pinned`, `stale`. With marks, verify and forget act on every marked fact.",
    ),
    ("2 Revisions", "revisions", "`↑↓` choose a revision: its diff against the current one is shown."),
    ("3 Archive", "archive", "`↑↓` preview (collisions are explained before you recover)."),
    ("4 Instructions", "instructions", "`↑↓` documents and imports."),
    ("5 Recall", "recall", "`↑↓` trace history; a tried query is never recorded."),
    ("6 Suggestions", "suggestions", "Scanned every time the pane opens."),
    (
        "7 Activity",
        "activity",
        "The audit log, newest first. Filter: words, `actor:agent`, `op:forget`, `ref:…`, `refused`.",
    ),
    (
        "Approval dialog",
        "approval",
        "Opens by itself when the agent proposes a write. Keys are paused for a moment after it "
        "opens or its content changes (and until tab, an arrow or a click when it opened over a text box), so typing never "
        "decides it. The count of pending proposals is always in the status line.",
    ),
    ("Fact form", "form", ""),
    ("Dialogs", "dialogs", ""),
)
"""(title, group, notes) of each table, in order."""


def _groups(app_class: type) -> dict[str, tuple[type, ...]]:
    return {
        "app": (app_class,),
        "facts": (FactsPane,),
        "revisions": (RevisionsPane,),
        "archive": (ArchivePane,),
        "instructions": (InstructionsPane,),
        "recall": (RecallPane,),
        "suggestions": (SuggestionsPane,),
        "activity": (ActivityPane,),
        "approval": (ApprovalScreen,),
        "form": (FactFormScreen,),
        "dialogs": (ConfirmScreen, QuickAddScreen, HelpScreen),
    }


def _bindings(classes: Iterable[type]) -> list[Binding]:
    out: list[Binding] = []
    for cls in classes:
        for item in getattr(cls, "BINDINGS", ()):
            if isinstance(item, Binding) and item.id:
                out.append(item)
    return out


def binding_ids(app_class: type) -> list[str]:
    """Every binding id a ``[keymap]`` entry may name (``app_class``: the app's class)."""
    return [b.id for classes in _groups(app_class).values() for b in _bindings(classes) if b.id]


def key_label(keys: str) -> str:
    """``ctrl+r``, ``?``, ``#`` … for a comma-separated key string."""
    labels = []
    for key in keys.split(","):
        key = key.strip()
        if not key:
            continue
        *mods, last = key.split("+")
        labels.append("+".join([*mods, format_key(last)]))
    return " / ".join(labels)


def help_text(effective: Callable[[str, str], str], app_class: type) -> str:
    """The help page; ``effective(binding_id, default_keys)`` gives a binding's keys now."""
    groups = _groups(app_class)

    def table(group: str) -> list[str]:
        rows = ["| Key | Does | Binding id |", "| --- | --- | --- |"]
        for b in _bindings(groups[group]):
            if b.id is None:
                continue
            keys = effective(b.id, b.key)
            label = b.key_display if b.key_display and keys == b.key else key_label(keys)
            does = b.description or b.action
            if b.tooltip:
                does = b.tooltip if b.tooltip.startswith(does) else f"{does} — {b.tooltip}"
            rows.append(f"| `{label.replace('|', '∣')}` | {does} | `{b.id}` |")
        return rows

    lines = [
        "# Reasonix Context Center — keys",
        "",
        "Keys can be changed in `<root>/reasonix-tui/settings.toml` with a `[keymap]` table of "
        'binding id = keys (for example `approval-approve = "Y"`); this page shows them as they are now.',
        "",
        "## Everywhere",
        "",
        "`tab` next field · `esc` leaves a text box (again on a list: clears its filter) · `ctrl+p` command palette · "
        "`ctrl+q` quit (`q` too, outside a text box).",
        "",
        *table("app"),
    ]
    for title, group, notes in SECTIONS:
        lines += ["", f"## {title}", ""]
        if notes:
            lines += [notes, ""]
        lines += table(group)
    lines += ["", "Writes made here are recorded in the audit log as `context-center`.", ""]
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    """The keys of every pane."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll { width: 110; max-width: 96%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q,question_mark", "close", "Close", id="help-close"),
    ]

    def compose(self) -> ComposeResult:
        """The help text, with the keys in effect."""
        effective = getattr(self.app, "effective_keys", None)
        if not callable(effective):
            effective = lambda _id, default: default  # noqa: E731
        with VerticalScroll():
            yield Markdown(help_text(effective, type(self.app)), id="help-text")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)

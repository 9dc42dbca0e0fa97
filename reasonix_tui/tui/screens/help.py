"""F1: every key, pane by pane."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

__all__ = ["HelpScreen", "HELP_TEXT"]

HELP_TEXT = """\
# Reasonix Context Center — keys

**Everywhere**: `1`–`7` switch panes · `F1` this help · `ctrl+p` command palette ·
`ctrl+r` reload · `tab` next field · `ctrl+q` quit

| Pane | Keys |
| --- | --- |
| 1 Facts | `/` filter (words, `type:` `scope:` `act:` `fresh:` `subject:`, `pinned`, `stale`) · `s` sort by next column, `S` reverse, click a header to sort · `p` pin/unpin · `v` verify · `n` new · `e` edit (form) · `E` edit in `$EDITOR` · `x` forget · `#` quick-add note · `c` copy ref · `d` hide the detail (all columns) · `enter` open detail · `space` mark (then `v`/`x` verify or forget every marked fact) · `*` mark all shown · `u` unmark |
| 2 Revisions | `↑↓` choose a revision, its diff against the current one is shown · `r` restore it as a new revision |
| 3 Archive | `↑↓` preview · `r` recover (collisions are explained) |
| 4 Instructions | `↑↓` documents and imports · `t` target path · `b` provider-visible block · `E` open the document in `$EDITOR` · `#` quick-add note |
| 5 Recall | `↑↓` trace history · `/` try a query (nothing is recorded) · `l` last trace · `f` jumps to the first hit |
| 6 Suggestions | `a` accept (edit first) · `d` dismiss · `g` scan again |
| 7 Activity | the audit log, newest first · `/` filter (words, `actor:agent`, `op:forget`, `ref:…`, `refused`) · `enter` jumps to the fact |

**Approval dialog** (opens by itself when the agent proposes a write): `y` approve ·
`n` deny · `e` edit then approve · `l` later (keep it queued; `A` opens it again). The
count of pending proposals is always in the status line. `ctrl+z` undoes the agent's
newest unasked write (archives a new fact, or brings back the revision an update replaced).

Writes made here are recorded in the audit log as `context-center`.
"""


class HelpScreen(ModalScreen[None]):
    """The keys of every pane."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll { width: 100; max-width: 95%; height: 85%; border: thick $primary; background: $surface; padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "Close", id="help-close"),
    ]

    def compose(self) -> ComposeResult:
        """The help text."""
        with VerticalScroll():
            yield Markdown(HELP_TEXT, id="help-text")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)

"""Small modal dialogs: a yes/no confirmation and the quick-add note box.

Each returns a value through ``dismiss`` (called plainly, never awaited: Textual #6600)
and holds no decision logic (house style §3.5).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

__all__ = ["ConfirmScreen", "QuickAddScreen"]


class ConfirmScreen(ModalScreen[bool]):
    """Ask one question; ``True`` for yes."""

    DEFAULT_CSS = """
    ConfirmScreen {
        align: center middle;
        & > #confirm-dialog {
            width: 64; height: auto; max-height: 90%;
            border: thick $primary; background: $surface; padding: 1 2;
        }
        & #confirm-title { text-style: bold; color: $accent; margin-bottom: 1; }
        & #confirm-buttons { height: auto; align-horizontal: right; margin-top: 1; }
        & #confirm-buttons Button { margin-left: 1; }
        &.-danger > #confirm-dialog { border: thick $error; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm-yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm-no"),
    ]

    def __init__(
        self, title: str, question: str, *, yes: str = "Yes", no: str = "Cancel", danger: bool = False
    ) -> None:
        super().__init__(classes="-danger" if danger else None)
        self.title_text = title
        """Dialog title."""
        self.question = question
        """Markup text of the question."""
        self.yes = yes
        """Label of the confirming button."""
        self.no = no
        """Label of the cancelling button."""

    def compose(self) -> ComposeResult:
        """Title, question, buttons."""
        with Vertical(id="confirm-dialog"):
            yield Label(self.title_text, id="confirm-title")
            yield Static(self.question, id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.no} (n)", id="confirm-no-button")
                yield Button(
                    f"{self.yes} (y)",
                    id="confirm-yes-button",
                    variant="error" if self.has_class("-danger") else "primary",
                )

    def on_mount(self) -> None:
        """Focus the safe choice."""
        self.query_one("#confirm-no-button", Button).focus()

    def action_answer(self, value: bool) -> None:
        """Close with the answer."""
        self.dismiss(value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes-button")


class QuickAddScreen(ModalScreen[tuple[str, str] | None]):
    """One line to append to the standing instructions (``#`` quick-add, spec §10.1)."""

    DEFAULT_CSS = """
    QuickAddScreen {
        align: center middle;
        & > #quick-add-dialog {
            width: 72; height: auto; border: thick $primary; background: $surface; padding: 1 2;
        }
        & #quick-add-title { text-style: bold; color: $accent; }
        & #quick-add-help { color: $text-muted; margin-bottom: 1; }
        & RadioSet { layout: horizontal; width: auto; height: auto; margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="quick-add-cancel")]

    def __init__(self, scope: str = "project") -> None:
        super().__init__()
        self.scope = scope
        """Initial target: ``project``, ``local`` or ``user``."""

    def compose(self) -> ComposeResult:
        """Note input and target chooser."""
        with Vertical(id="quick-add-dialog"):
            yield Label("# Quick-add a note to the instructions", id="quick-add-title")
            yield Static(
                "Appended under “## Notes” of REASONIX.md / AGENTS.md / CLAUDE.md (AGENTS.md is created if none exists). "
                "Enter saves, Escape cancels.",
                id="quick-add-help",
            )
            yield Input(placeholder="e.g. Run ruff before committing", id="quick-add-note")
            with RadioSet(id="quick-add-scope"):
                yield RadioButton("workspace", value=self.scope == "project", id="scope-project")
                yield RadioButton("workspace (local)", value=self.scope == "local", id="scope-local")
                yield RadioButton("user (all workspaces)", value=self.scope == "user", id="scope-user")

    def on_mount(self) -> None:
        """Focus the note box."""
        self.query_one("#quick-add-note", Input).focus()

    @on(Input.Submitted, "#quick-add-note")
    def _submitted(self, event: Input.Submitted) -> None:
        note = event.value.strip()
        if not note:
            self.dismiss(None)
            return
        pressed = self.query_one("#quick-add-scope", RadioSet).pressed_button
        scope = (pressed.id or "scope-project").removeprefix("scope-") if pressed else "project"
        self.dismiss((scope, note))

    def action_cancel(self) -> None:
        """Close without writing."""
        self.dismiss(None)

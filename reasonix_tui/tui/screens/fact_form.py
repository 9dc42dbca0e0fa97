"""The new/edit fact form (a modal returning :class:`FactFormValues` or ``None``)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea

from ...core.store.model import ACTIVATIONS, SCOPES, TYPES, VOLATILITIES
from ..writes import FactFormValues

__all__ = ["FactFormScreen"]


class FactFormScreen(ModalScreen[FactFormValues | None]):
    """Every field of a fact; ctrl+s saves, Escape cancels."""

    DEFAULT_CSS = """
    FactFormScreen {
        align: center middle;
        & > #form-dialog {
            width: 96; max-width: 100%; height: 90%;
            border: thick $primary; background: $surface; padding: 0 1;
        }
        & #form-title { text-style: bold; color: $accent; padding: 0 1; }
        & #form-fields { height: 1fr; }
        & Grid { grid-size: 4; grid-columns: 12 1fr 12 1fr; grid-rows: 3; height: auto; grid-gutter: 0 1; }
        & Grid Label { padding: 1 0 0 0; text-align: right; width: 100%; }
        & #form-body { height: 12; min-height: 6; }
        & #form-error { color: $error; height: auto; padding: 0 1; }
        & #form-buttons { height: auto; align-horizontal: right; }
        & #form-buttons Button { margin-left: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="form-save", priority=True),
        Binding("escape", "cancel", "Cancel", id="form-cancel"),
    ]

    def __init__(self, values: FactFormValues, *, title: str = "Fact") -> None:
        super().__init__()
        self.values = values
        """Initial values."""
        self.form_title = title
        """Heading."""

    def compose(self) -> ComposeResult:
        """The fields."""
        v = self.values
        with Vertical(id="form-dialog"):
            yield Label(self.form_title, id="form-title")
            with VerticalScroll(id="form-fields"):
                with Grid():
                    yield Label("name")
                    yield Input(v.name, placeholder="derived from the title when empty", id="form-name")
                    yield Label("title")
                    yield Input(v.title, id="form-title-input")
                    yield Label("description")
                    yield Input(v.description, placeholder="one line (required)", id="form-description")
                    yield Label("keywords")
                    yield Input(v.keywords, placeholder="search aliases", id="form-keywords")
                    yield Label("type")
                    yield Select([(t, t) for t in TYPES], value=v.type if v.type in TYPES else "project", allow_blank=False, id="form-type")
                    yield Label("scope")
                    yield Select([(s, s) for s in SCOPES], value=v.scope if v.scope in SCOPES else "project", allow_blank=False, id="form-scope")
                    yield Label("activation")
                    yield Select(
                        [("(default)", "")] + [(a, a) for a in ACTIVATIONS],
                        value=v.activation if v.activation in ACTIVATIONS else "",
                        allow_blank=False,
                        id="form-activation",
                    )
                    yield Label("volatility")
                    yield Select(
                        [("(type default)", "")] + [(a, a) for a in VOLATILITIES],
                        value=v.volatility if v.volatility in VOLATILITIES else "",
                        allow_blank=False,
                        id="form-volatility",
                    )
                    yield Label("subject key")
                    yield Input(v.subject_key, placeholder="e.g. project.package_manager", id="form-subject")
                    yield Label("expires")
                    yield Input(v.expires_at, placeholder="YYYY-MM-DD, RFC3339 or never", id="form-expires")
                yield Checkbox("mark verified now", v.verified, id="form-verified")
                yield Label("body (Markdown, required)")
                yield TextArea(v.body, language="markdown", id="form-body", soft_wrap=True)
            yield Static("", id="form-error")
            with Horizontal(id="form-buttons"):
                yield Button("Cancel (esc)", id="form-cancel-button")
                yield Button("Save (ctrl+s)", id="form-save-button", variant="primary")

    def on_mount(self) -> None:
        """Focus the first empty required field."""
        target = "#form-description" if self.values.name or self.values.title else "#form-title-input"
        self.query_one(target, Input).focus()

    def collect(self) -> FactFormValues:
        """The values as typed."""

        def text(selector: str) -> str:
            return self.query_one(selector, Input).value

        def select(selector: str) -> str:
            value = self.query_one(selector, Select).value
            return value if isinstance(value, str) else ""

        return FactFormValues(
            name=text("#form-name"),
            title=text("#form-title-input"),
            description=text("#form-description"),
            type=select("#form-type"),
            scope=select("#form-scope"),
            activation=select("#form-activation"),
            volatility=select("#form-volatility"),
            subject_key=text("#form-subject"),
            keywords=text("#form-keywords"),
            expires_at=text("#form-expires"),
            body=self.query_one("#form-body", TextArea).text,
            verified=self.query_one("#form-verified", Checkbox).value,
        )

    def action_save(self) -> None:
        """Check the required fields and close with the values."""
        values = self.collect()
        missing = [n for n, v in (("description", values.description), ("body", values.body)) if not v.strip()]
        if missing:
            self.query_one("#form-error", Static).update(f"Required: {', '.join(missing)}.")
            return
        self.dismiss(values)

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)

    @on(Button.Pressed, "#form-save-button")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#form-cancel-button")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

"""The new/edit fact form (a modal returning :class:`FactFormValues` or ``None``)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea

from ...core.store.fields import EDITABLE_FIELDS, FactField, editable_field
from ..writes import FactFormValues

__all__ = ["FactFormScreen"]

_IDS = {"title": "form-title-input", "subject_key": "form-subject", "expires_at": "form-expires"}
"""Widget ids that are not ``form-<field name>``."""


def _widget_id(field: FactField) -> str:
    return _IDS.get(field.name, f"form-{field.name}")


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
                    for field in EDITABLE_FIELDS:
                        if field.kind != "body":
                            yield Label(field.label)
                            yield self._widget(field, getattr(v, field.name))
                yield Checkbox("mark verified now", v.verified, id="form-verified")
                body = editable_field("body")
                yield Label(body.label)
                yield TextArea(v.body, language="markdown", id=_widget_id(body), soft_wrap=True)
            yield Static("", id="form-error")
            with Horizontal(id="form-buttons"):
                yield Button("Cancel (esc)", id="form-cancel-button")
                yield Button("Save (ctrl+s)", id="form-save-button", variant="primary")

    @staticmethod
    def _widget(field: FactField, value: str) -> Input | Select[str]:
        """The input of one field: a list to choose from, or a line of text."""
        if field.kind == "choice":
            options = ([(field.blank, "")] if field.blank is not None else []) + [(c, c) for c in field.choices]
            fallback = "" if field.blank is not None else field.default
            return Select(
                options, value=value if value in field.choices else fallback, allow_blank=False, id=_widget_id(field)
            )
        return Input(value, placeholder=field.hint, id=_widget_id(field))

    def on_mount(self) -> None:
        """Focus the first empty required field."""
        target = "#form-description" if self.values.name or self.values.title else "#form-title-input"
        self.query_one(target, Input).focus()

    def collect(self) -> FactFormValues:
        """The values as typed."""
        values: dict[str, Any] = {}
        for field in EDITABLE_FIELDS:
            selector = "#" + _widget_id(field)
            if field.kind == "body":
                values[field.name] = self.query_one(selector, TextArea).text
            elif field.kind == "choice":
                chosen = self.query_one(selector, Select).value
                values[field.name] = chosen if isinstance(chosen, str) else ""
            else:
                values[field.name] = self.query_one(selector, Input).value
        return FactFormValues(**values, verified=self.query_one("#form-verified", Checkbox).value)

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

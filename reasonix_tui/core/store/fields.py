"""A fact's editable fields, declared once.

:data:`EDITABLE_FIELDS` drives what copies a fact into a save request
(:meth:`~.store.SaveRequest.from_fact`), the Context Center's new/edit form (its widgets,
labels, hints and choices, and the values it returns) and the form pre-filled from a fact;
tests check that the approval dialog's edits, suggestion edits and the MCP ``remember``
arguments name only these fields. A new field is added here (and to :class:`~.model.Fact`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import ACTIVATIONS, SCOPES, TYPES, VOLATILITIES

__all__ = ["FactField", "EDITABLE_FIELDS", "EDITABLE_NAMES", "editable_field"]


@dataclass(frozen=True, slots=True)
class FactField:
    """One editable field of a fact."""

    name: str
    """The attribute of :class:`~.model.Fact` and :class:`~.store.SaveRequest`, and the
    ``remember`` argument."""
    label: str
    """What a form calls it."""
    hint: str = ""
    """A one-line hint (a form's placeholder)."""
    choices: tuple[str, ...] = ()
    """The allowed values, for a field chosen from a list."""
    blank: str | None = None
    """The label of the empty choice (leave it to the default); ``None``: no empty choice."""
    default: str = ""
    """The value when none is given."""
    kind: str = "text"
    """``text`` (one line), ``choice``, ``time`` (a timestamp typed as text) or ``body``."""


EDITABLE_FIELDS: tuple[FactField, ...] = (
    FactField("name", "name", "derived from the title when empty"),
    FactField("title", "title"),
    FactField("description", "description", "one line (required)"),
    FactField("keywords", "keywords", "search aliases"),
    FactField("type", "type", choices=TYPES, default="project", kind="choice"),
    FactField("scope", "scope", choices=SCOPES, default="project", kind="choice"),
    FactField("activation", "activation", choices=ACTIVATIONS, blank="(default)", kind="choice"),
    FactField("volatility", "volatility", choices=VOLATILITIES, blank="(type default)", kind="choice"),
    FactField("subject_key", "subject key", "e.g. project.package_manager"),
    FactField("expires_at", "expires", "YYYY-MM-DD, RFC3339 or never", kind="time"),
    FactField("body", "body (Markdown, required)", kind="body"),
)
"""The editable fields, in form order."""

EDITABLE_NAMES: tuple[str, ...] = tuple(f.name for f in EDITABLE_FIELDS)
"""Their names."""


def editable_field(name: str) -> FactField:
    """The field called ``name`` (``KeyError`` for another)."""
    for field in EDITABLE_FIELDS:
        if field.name == name:
            return field
    raise KeyError(name)

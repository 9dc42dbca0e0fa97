"""A fact's editable fields, declared once.

:data:`EDITABLE_FIELDS` drives reading a fact file (:func:`~.fileformat.fact_from_flat`:
each field's ``from_text``) and writing one (:func:`~.fileformat.render_fact`: ``to_text``),
what a save writes (:func:`~.requests.inherit_fact`: each field's ``normalize`` and
``inherit``), which ``remember`` arguments are refused (``strict``; an agent's values
outside any field's ``choices``), what copies a fact into a save request
(:meth:`~.requests.SaveRequest.from_fact`), the Context Center's new/edit form (its
widgets, labels, hints and choices, and the values it returns), the form pre-filled from a
fact and the approval dialog's form, the ``remember`` tool's arguments and the MCP tool's
schema (``argument``, ``required``, ``argument_rank``:
:data:`~reasonix_tui.core.agent.remember_args.REMEMBER_ARGUMENTS`) and what a person may
edit when accepting a memory suggestion (``suggested``:
:class:`~reasonix_tui.core.sessions.suggestions.model.SuggestionEdits`). A new field is
added here, and to the typed attributes of :class:`~.model.Fact`,
:class:`~.requests.SaveRequest` and the form's ``FactFormValues`` and to the parse cache's
row (:mod:`.cache`, with a new ``CACHE_VERSION``); ``tests/test_fields.py`` checks each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..compat.gostr import one_line, trim_space
from ..compat.gotime import Timestamp, parse_rfc3339
from .model import (
    ACTIVATIONS,
    SCOPES,
    TYPES,
    VOLATILITIES,
    normalize_activation,
    normalize_subject_key,
    normalize_type,
    normalize_volatility,
    slug,
)

__all__ = ["FactField", "EDITABLE_FIELDS", "EDITABLE_NAMES", "editable_field", "is_empty"]


def _as_is(value: Any) -> Any:
    return value


def _file_name(name: str) -> str:
    return slug(name) or name


def _rfc3339(value: Timestamp | None) -> str:
    return value.rfc3339() if value is not None else ""


def is_empty(value: Any) -> bool:
    """An unset value: ``None`` or blank text (what an update inherits instead)."""
    return value is None or (isinstance(value, str) and not trim_space(value))


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
    from_text: Callable[[str], Any] | None = _as_is
    """Reading a fact file: the fact's value from the frontmatter key's text (``""`` when the
    key is absent); ``None`` when the reader derives it from more than its own key (the name
    falls back to the file's stem, the type to ``fact_type``, the scope to the directory, the
    body is the document's)."""
    to_text: Callable[[Any], str] | None = None
    """Writing a fact file: the frontmatter key's text for the fact's value, written (in
    declaration order) when not empty; ``None`` when it is not a key of its own (the type
    and scope go under ``metadata``, the body after the frontmatter)."""
    always: bool = False
    """Write the key even when its text is empty."""
    normalize: Callable[[Any], Any] = _as_is
    """Saving: the value written for the one a save request asks for (before inheritance)."""
    strict: bool = False
    """A ``remember`` argument outside ``choices`` is refused (Reasonix's ``<name> must be one
    of …``) instead of normalised."""
    inherit: bool = False
    """Saving over an existing fact: an empty value (:func:`is_empty`) keeps the existing
    fact's (spec §2.8 step 7)."""
    argument: str = ""
    """The ``remember`` argument's description (the MCP tool's schema); every field is a
    ``remember`` argument (a JSON string, empty when not given)."""
    required: bool = False
    """A save needs it (``description and body are required``): a required ``remember``
    argument, listed first."""
    argument_rank: int = 3
    """Where the ``remember`` tool lists the argument after the required ones: by rank, then
    in declaration order (1: what the fact is, 2: how it is found, 3: when it applies)."""
    suggested: bool = False
    """A memory suggestion's draft carries it (Reasonix's ``MemorySuggestion``; a text or
    choice field), and accepting one takes the person's edit of it
    (:class:`~reasonix_tui.core.sessions.suggestions.model.SuggestionEdits`)."""


EDITABLE_FIELDS: tuple[FactField, ...] = (
    FactField(
        "name",
        "name",
        "derived from the title when empty",
        from_text=None,
        to_text=_file_name,
        always=True,
        argument="kebab-case name, or project/<name>.md / global/<name>.md",
        argument_rank=1,
        suggested=True,
    ),
    FactField(
        "title", "title", to_text=one_line, argument="short human-readable label", argument_rank=1, suggested=True
    ),
    FactField(
        "description",
        "description",
        "one line (required)",
        to_text=one_line,
        always=True,
        argument="one-line summary shown in the index",
        required=True,
        suggested=True,
    ),
    FactField(
        "keywords",
        "keywords",
        "search aliases",
        to_text=one_line,
        inherit=True,
        argument="space-separated search aliases",
        argument_rank=2,
    ),
    FactField(
        "type",
        "type",
        choices=TYPES,
        default="project",
        kind="choice",
        from_text=None,
        normalize=normalize_type,
        argument="project | reference | user | feedback",
        argument_rank=1,
        suggested=True,
    ),
    FactField(
        "scope",
        "scope",
        choices=SCOPES,
        default="project",
        kind="choice",
        from_text=None,
        normalize=trim_space,
        strict=True,
        inherit=True,
        argument="project (default) | global",
        argument_rank=1,
        suggested=True,
    ),
    FactField(
        "activation",
        "activation",
        choices=ACTIVATIONS,
        blank="(default)",
        kind="choice",
        from_text=normalize_activation,
        to_text=normalize_activation,
        normalize=normalize_activation,
        strict=True,
        inherit=True,
        argument="relevant | pinned",
    ),
    FactField(
        "volatility",
        "volatility",
        choices=VOLATILITIES,
        blank="(type default)",
        kind="choice",
        from_text=normalize_volatility,
        to_text=normalize_volatility,
        normalize=normalize_volatility,
        strict=True,
        inherit=True,
        argument="evergreen | stable | volatile",
    ),
    FactField(
        "subject_key",
        "subject key",
        "e.g. project.package_manager",
        from_text=normalize_subject_key,
        to_text=normalize_subject_key,
        normalize=normalize_subject_key,
        inherit=True,
        argument="dotted key naming the question answered",
        argument_rank=2,
    ),
    FactField(
        "expires_at",
        "expires",
        "YYYY-MM-DD, RFC3339 or never",
        kind="time",
        from_text=parse_rfc3339,
        to_text=_rfc3339,
        inherit=True,
        argument='RFC3339, YYYY-MM-DD, or "never"',
    ),
    FactField(
        "body",
        "body (Markdown, required)",
        kind="body",
        from_text=None,
        normalize=trim_space,
        argument="the fact itself (Markdown, short)",
        required=True,
        suggested=True,
    ),
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

"""The ``remember`` tool's arguments: type-checked the way Go's ``json.Unmarshal`` into the
tool's struct does (case-insensitive keys, ``null`` as empty, a wrong type is an error),
and turned into the store's :class:`~reasonix_tui.core.store.requests.SaveRequest` through the
shared validator.

The arguments are the fact's editable fields (:data:`~reasonix_tui.core.store.fields.EDITABLE_FIELDS`:
their names, descriptions, which are required and the order the tool lists them) and the
few that say how the save is made (:data:`TOOL_ARGUMENTS`); the MCP tool's schema is built
from :data:`REMEMBER_ARGUMENTS` too (:mod:`reasonix_tui.integrations.mcp_tools`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..compat.gostr import trim_space
from ..compat.jsonargs import json_object
from ..store.fields import EDITABLE_FIELDS, FactField
from ..store.model import InvalidInput, slug

if TYPE_CHECKING:
    from ..store.requests import RememberArgs

__all__ = [
    "RememberArgument",
    "TOOL_ARGUMENTS",
    "REMEMBER_ARGUMENTS",
    "REMEMBER_FIELDS",
    "InvalidArguments",
    "remember_arguments",
    "parse_remember_arguments",
    "remember_request",
    "remember_request_name",
]

_EMPTY: dict[str, Any] = {"string": "", "int": 0, "bool": False, "refs": ()}


@dataclass(frozen=True, slots=True)
class RememberArgument:
    """One argument of the ``remember`` tool."""

    name: str
    """The argument (and, for a fact field, the field)."""
    kind: str
    """Its JSON type: ``string``, ``int``, ``bool`` or ``refs`` (references: a list of
    strings, or one string separated by commas or spaces)."""
    description: str
    """What the MCP tool's schema says of it."""
    required: bool = False
    """The MCP tool's schema requires it."""

    @property
    def empty(self) -> Any:
        """The value when it is not given (or ``null``)."""
        return _EMPTY[self.kind]


TOOL_ARGUMENTS: tuple[RememberArgument, ...] = (
    RememberArgument("verified", "bool", "you just re-confirmed the fact"),
    RememberArgument("id", "string", "id of the fact to update"),
    RememberArgument("expected_revision", "int", "revision you read (updates)"),
    RememberArgument("supersedes", "refs", "ids or refs this fact replaces"),
)
"""The arguments that are not fact fields: how the save is made (``supersedes`` is ours)."""


def remember_arguments(fields: Sequence[FactField] = EDITABLE_FIELDS) -> tuple[RememberArgument, ...]:
    """The ``remember`` tool's arguments, in the order it lists them: the declared fields
    (the required ones first, then by :attr:`~.FactField.argument_rank`, each a string),
    then :data:`TOOL_ARGUMENTS`."""
    ordered = sorted(fields, key=lambda f: (not f.required, 0 if f.required else f.argument_rank))
    return (*(RememberArgument(f.name, "string", f.argument, f.required) for f in ordered), *TOOL_ARGUMENTS)


REMEMBER_ARGUMENTS: tuple[RememberArgument, ...] = remember_arguments()
"""The ``remember`` tool's arguments (from :data:`~reasonix_tui.core.store.fields.EDITABLE_FIELDS`)."""

REMEMBER_FIELDS: dict[str, str] = {a.name: a.kind for a in REMEMBER_ARGUMENTS}
"""The ``remember`` tool's arguments and their JSON types."""

_INT64 = (-(2**63), 2**63 - 1)


class InvalidArguments(InvalidInput):
    """The arguments are not a valid ``remember`` request (check 0; CLI exit 2)."""


def parse_remember_arguments(raw: Mapping[str, Any] | str | bytes) -> dict[str, Any]:
    """Type-check ``remember`` arguments like Go's ``json.Unmarshal`` into the tool struct.

    Keys match case-insensitively (exact spelling wins), unknown keys are ignored,
    ``null`` means empty, and a value of the wrong JSON type is an error. Returns a
    dict keyed by the canonical names, with every known field present.
    """
    data = json_object(raw, InvalidArguments)
    out: dict[str, Any] = {a.name: a.empty for a in REMEMBER_ARGUMENTS}
    exact_seen: set[str] = set()
    for key, value in data.items():
        if not isinstance(key, str):
            continue
        canonical = key if key in REMEMBER_FIELDS else None
        if canonical is None:
            folded = key.lower()
            canonical = next((f for f in REMEMBER_FIELDS if f == folded), None)
            if canonical is None or canonical in exact_seen:
                continue
        else:
            exact_seen.add(canonical)
        kind = REMEMBER_FIELDS[canonical]
        if value is None:
            continue
        if kind == "string":
            if not isinstance(value, str):
                raise InvalidArguments(f'invalid arguments: "{canonical}" must be a string')
            out[canonical] = value
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArguments(f'invalid arguments: "{canonical}" must be an integer')
            if not _INT64[0] <= value <= _INT64[1]:
                raise InvalidArguments(f'invalid arguments: "{canonical}" is out of range')
            out[canonical] = value
        elif kind == "bool":
            if not isinstance(value, bool):
                raise InvalidArguments(f'invalid arguments: "{canonical}" must be true or false')
            out[canonical] = value
        else:  # refs
            if isinstance(value, str):
                items = value.replace(",", " ").split()
            elif isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
                items = [trim_space(v) for v in value]
            else:
                raise InvalidArguments(f'invalid arguments: "{canonical}" must be a list of references')
            out[canonical] = tuple(v for v in items if v)
    return out


def remember_request_name(args: Mapping[str, Any]) -> str:
    """``rememberRequestName``: the trimmed name, else (no id) slug(title) or slug(description)."""
    name = trim_space(str(args.get("name") or ""))
    if name:
        return name
    if str(args.get("id") or ""):
        return ""
    return slug(str(args.get("title") or "")) or slug(str(args.get("description") or ""))


def remember_request(raw: Mapping[str, Any] | str | bytes) -> RememberArgs:
    """Validate arguments into the store's request (Reasonix's remember-tool errors, exit 2)."""
    from ..store.requests import build_save_request

    args = parse_remember_arguments(raw)
    payload = dict(args)
    payload["supersedes"] = list(args["supersedes"]) or None
    if args["expected_revision"] <= 0:
        payload["expected_revision"] = None
    return build_save_request(payload)

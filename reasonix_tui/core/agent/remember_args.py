"""The ``remember`` tool's arguments: type-checked the way Go's ``json.Unmarshal`` into the
tool's struct does (case-insensitive keys, ``null`` as empty, a wrong type is an error),
and turned into the store's :class:`~reasonix_tui.core.store.requests.SaveRequest` through the
shared validator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..compat.gostr import trim_space
from ..compat.jsonargs import json_object
from ..store.model import InvalidInput, slug

if TYPE_CHECKING:
    from ..store.requests import RememberArgs

__all__ = [
    "REMEMBER_FIELDS",
    "InvalidArguments",
    "parse_remember_arguments",
    "remember_request",
    "remember_request_name",
]


REMEMBER_FIELDS: dict[str, str] = {
    "id": "string",
    "expected_revision": "int",
    "name": "string",
    "title": "string",
    "description": "string",
    "type": "string",
    "scope": "string",
    "activation": "string",
    "volatility": "string",
    "subject_key": "string",
    "expires_at": "string",
    "verified": "bool",
    "keywords": "string",
    "body": "string",
    "supersedes": "refs",
}
"""The ``remember`` tool's arguments and their JSON types (``supersedes`` is ours)."""

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
    out: dict[str, Any] = {
        "id": "",
        "expected_revision": 0,
        "name": "",
        "title": "",
        "description": "",
        "type": "",
        "scope": "",
        "activation": "",
        "volatility": "",
        "subject_key": "",
        "expires_at": "",
        "verified": False,
        "keywords": "",
        "body": "",
        "supersedes": (),
    }
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

"""What a caller asks the store to save: :class:`SaveRequest`, the fact a save writes from it
(:func:`inherit_fact`, spec §2.8 steps 6-8), and turning ``remember``-style arguments into one
(spec §10.4, §3, §5).

One validator for every surface that writes a fact from loose arguments: the person's
``memory save`` CLI, the agent's ``remember`` verb, the MCP ``remember`` tool and the
approval queue. Error texts are Reasonix's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from ..compat.gostr import to_lower, trim_space
from ..compat.gotime import Timestamp, parse_rfc3339
from .fields import EDITABLE_FIELDS, EDITABLE_NAMES, is_empty
from .model import (
    Fact,
    FactId,
    InvalidInput,
    Reference,
    normalize_fact_scope,
    normalize_subject_key,
    slug,
)

__all__ = [
    "SaveRequest",
    "save_name",
    "inherit_fact",
    "RememberArgs",
    "parse_expires_at",
    "remember_request_name",
    "build_save_request",
]


@dataclass(frozen=True, slots=True)
class SaveRequest:
    """What a caller wants saved (mirrors the ``remember`` tool's arguments)."""

    description: str = ""
    body: str = ""
    name: str = ""
    title: str = ""
    type: str = ""
    scope: str = ""
    keywords: str = ""
    subject_key: str = ""
    activation: str = ""
    volatility: str = ""
    expires_at: Timestamp | None = None
    last_verified_at: Timestamp | None = None
    verified: bool = False
    """Stamp ``last_verified_at`` with now."""
    id: str = ""
    supersedes: tuple[str, ...] | None = None
    """reasonix-tui extension; ``None`` inherits on update."""
    extra: tuple[tuple[str, str], ...] | None = None
    """Unknown frontmatter keys to keep; ``None`` inherits on update."""

    @classmethod
    def from_fact(cls, fact: Fact, **changes: Any) -> SaveRequest:
        """A request that rewrites ``fact`` as it is (by id), with ``changes`` applied."""
        base = cls(
            **{name: getattr(fact, name) for name in EDITABLE_NAMES},
            last_verified_at=fact.last_verified_at,
            id=fact.id,
            supersedes=fact.supersedes,
            extra=fact.extra,
        )
        return replace(base, **changes)


def save_name(req: SaveRequest, parsed: Reference | None, existing: Fact | None) -> str:
    """Spec §2.8 step 5: the name a save writes under, before it is slugged.

    The existing fact's name when the request names none or found it by name, else the
    name of the request's reference; ``""`` when there is neither. ``parsed`` is the parsed
    ``req.name`` (``None`` when it is empty). Used by the store's save and the agent's plan of it.
    """
    if not trim_space(req.name) or (existing is not None and not req.id):
        return existing.name if existing is not None else ""
    return parsed.name if parsed is not None else trim_space(req.name)


def inherit_fact(
    req: SaveRequest,
    existing: Fact | None,
    *,
    now: Timestamp,
    name: str,
    parsed: Reference | None,
    clear_expiry: bool,
    new_id: FactId,
) -> Fact:
    """Spec §2.8 steps 6-8: the fact a save writes, given its slugged ``name``.

    Each editable field's value is the request's, normalised as its declaration says
    (:data:`~.fields.EDITABLE_FIELDS`); on an update (``existing``) a field declared
    ``inherit`` that is empty keeps the existing fact's (scope, keywords, activation,
    volatility, subject key, expiry), as do an unset verification time, ``supersedes`` and
    extra keys, and the revision moves on; a new fact gets ``new_id`` and revision 1.
    ``clear_expiry`` drops the expiry; a scope still empty comes from a qualified
    reference, else "project". Used by the store's save and by the agent's plan of it.
    """
    values = {f.name: f.normalize(getattr(req, f.name)) for f in EDITABLE_FIELDS if f.name != "name"}
    verified_at = now if req.verified else req.last_verified_at
    supersedes = req.supersedes
    extra = req.extra
    if existing is not None:
        fact_id, revision, created_at = existing.id, existing.revision + 1, existing.created_at or now
        for f in EDITABLE_FIELDS:
            if f.inherit and is_empty(values[f.name]):
                values[f.name] = getattr(existing, f.name)
        if verified_at is None:
            verified_at = existing.last_verified_at
        if supersedes is None:
            supersedes = existing.supersedes
        if extra is None:
            extra = existing.extra
    else:
        fact_id, revision, created_at = new_id, 1, now
    if clear_expiry:
        values["expires_at"] = None
    if not values["scope"]:
        values["scope"] = parsed.scope if parsed is not None and parsed.qualified else "project"
    scope = values["scope"] = normalize_fact_scope(values["scope"])
    return Fact(
        id=fact_id,
        revision=revision,
        created_at=created_at,
        updated_at=now,
        name=name,
        last_verified_at=verified_at,
        file_scope=scope,
        supersedes=tuple(supersedes or ()),
        extra=tuple(extra or ()),
        **values,
    )


@dataclass(frozen=True, slots=True)
class RememberArgs:
    """A validated write: the request plus how to save it."""

    request: SaveRequest
    expected_revision: int | None
    """Set when the caller gave ``expected_revision > 0``."""
    clear_expiry: bool
    """``expires_at`` was ``never``/``none``."""


def parse_expires_at(value: str | None) -> tuple[Timestamp | None, bool]:
    """``(expiry, clear)``: ``""`` keeps, ``never``/``none`` clears, else RFC3339 or ``YYYY-MM-DD``."""
    v = trim_space(value or "")
    if not v:
        return None, False
    if to_lower(v) in ("never", "none"):
        return None, True
    ts = parse_rfc3339(v)
    if ts is not None:
        return ts, False
    try:
        day = datetime.strptime(v, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidInput('expires_at must be RFC3339, YYYY-MM-DD, or "never"') from None
    return Timestamp.from_datetime(day), False


def remember_request_name(args: Mapping[str, Any]) -> str:
    """``rememberRequestName``: name, else (no id) slug(title) or slug(description)."""
    name = trim_space(str(args.get("name") or ""))
    if name:
        return name
    if trim_space(str(args.get("id") or "")):
        return ""
    return slug(str(args.get("title") or "")) or slug(str(args.get("description") or ""))


def _text(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key)
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def build_save_request(args: Mapping[str, Any], *, require_body: bool = True) -> RememberArgs:
    """Validate remember arguments like Reasonix's ``remember`` tool.

    Every declared field (:data:`~.fields.EDITABLE_FIELDS`) is taken as text; the required
    ones must not be blank, a ``strict`` one is trimmed and must be one of its choices, the
    name is :func:`remember_request_name`, the subject key is normalised and the expiry
    parsed (:func:`parse_expires_at`).
    """
    values: dict[str, Any] = {f.name: _text(args, f.name) for f in EDITABLE_FIELDS}
    required = [f.name for f in EDITABLE_FIELDS if f.required]
    if require_body and any(not values[name].strip() for name in required):
        raise InvalidInput(f"{' and '.join(required)} are required")  # description and body
    for f in EDITABLE_FIELDS:
        if f.strict:  # scope, activation, volatility: one of the choices, or empty
            value = values[f.name] = trim_space(values[f.name])
            if value and to_lower(value) not in f.choices:
                raise InvalidInput(f"{f.name} must be one of {', '.join(f.choices)}")
    expires, clear = parse_expires_at(values["expires_at"])
    raw_rev = args.get("expected_revision")
    expected: int | None = None
    if raw_rev not in (None, ""):
        try:
            expected = int(str(raw_rev))
        except (TypeError, ValueError):
            raise InvalidInput("expected_revision must be an integer") from None
        if expected < 0:
            raise InvalidInput("expected_revision must not be negative")
        if expected == 0:
            expected = None
    supersedes_raw = args.get("supersedes")
    supersedes: tuple[str, ...] | None = None
    if supersedes_raw:
        items = (
            supersedes_raw
            if isinstance(supersedes_raw, (list, tuple))
            else str(supersedes_raw).replace(",", " ").split()
        )
        supersedes = tuple(trim_space(str(s)) for s in items if trim_space(str(s)))
    verified = args.get("verified")
    values |= {
        "name": remember_request_name(args),
        "subject_key": normalize_subject_key(values["subject_key"]),
        "expires_at": expires,
    }
    request = SaveRequest(
        **values,
        verified=bool(verified) and str(verified).lower() not in ("false", "0", "no"),
        id=trim_space(_text(args, "id")),
        supersedes=supersedes,
    )
    return RememberArgs(request=request, expected_revision=expected, clear_expiry=clear)

"""The Context Center's writes, as plain functions over the store API (no textual import).

Every function takes a ``Store`` built with actor ``context-center`` and returns an
:class:`Outcome` the app shows. Expected refusals (pinned budget, subject holder,
revision conflict, recover collisions) are raised by the store as ``StoreError`` with
the spec's text; the app's write worker turns them into a notification.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..core.gotime import Timestamp, parse_rfc3339
from ..core.store.model import Fact, InvalidInput, slug

__all__ = [
    "Outcome",
    "FactFormValues",
    "parse_expiry",
    "form_from_fact",
    "pin",
    "verify",
    "forget",
    "save_form",
    "restore",
    "recover",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a write did."""

    text: str
    """One line for the person."""
    fact_id: str | None = None
    """The fact written (kept selected)."""
    warnings: tuple[str, ...] = ()
    """Warnings from the store (superseded value...)."""
    paths: tuple[str, ...] = ()
    """Files the write touched (the app re-reads only these; empty: re-read everything)."""


@dataclass(frozen=True, slots=True)
class FactFormValues:
    """The fields of the new/edit form (strings as typed)."""

    name: str = ""
    """Name or reference (slugged by the store)."""
    title: str = ""
    """Title."""
    description: str = ""
    """One-line description (required)."""
    type: str = "project"
    """``user``, ``feedback``, ``project``, ``reference``."""
    scope: str = "project"
    """``project`` or ``global``."""
    activation: str = ""
    """``""`` (inherit / default), ``relevant`` or ``pinned``."""
    volatility: str = ""
    """``""``, ``evergreen``, ``stable``, ``volatile``."""
    subject_key: str = ""
    """Subject key."""
    keywords: str = ""
    """Search aliases."""
    expires_at: str = ""
    """``""`` (keep), ``never``, RFC3339 or ``YYYY-MM-DD``."""
    body: str = ""
    """Markdown body (required)."""
    verified: bool = False
    """Mark verified now."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Unused; room for future fields."""


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_expiry(value: str) -> tuple[Timestamp | None, bool]:
    """``(expires_at, clear_expiry)`` from the form text (spec §5 "Setting the fields")."""
    text = value.strip()
    if not text:
        return None, False
    if text.lower() in ("never", "none"):
        return None, True
    ts = parse_rfc3339(text)
    if ts is None and _DATE.match(text):
        try:
            ts = Timestamp.from_datetime(datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc))
        except ValueError:
            ts = None
    if ts is None:
        raise InvalidInput('expires_at must be RFC3339, YYYY-MM-DD, or "never"')
    return ts, False


def form_from_fact(fact: Fact) -> FactFormValues:
    """The form pre-filled from an existing fact."""
    return FactFormValues(
        name=fact.name,
        title=fact.title,
        description=fact.description,
        type=fact.type,
        scope=fact.scope,
        activation=fact.activation,
        volatility=fact.volatility,
        subject_key=fact.subject_key,
        keywords=fact.keywords,
        expires_at=fact.expires_at.rfc3339() if fact.expires_at else "",
        body=fact.body,
    )


def _save_paths(result: Any) -> tuple[str, ...]:
    """Files a ``SaveResult`` touched: the fact, where it was before, anything archived."""
    if result is None:
        return ()
    paths = [getattr(result.fact, "path", "")]
    previous = getattr(result, "previous", None)
    if previous is not None:
        paths.append(previous.path)
    for archived in getattr(result, "archived", ()) or ():
        paths.append(str(archived))
    return tuple(p for p in dict.fromkeys(paths) if p)


def _warnings(result: Any) -> tuple[str, ...]:
    return tuple(str(w) for w in (getattr(result, "warnings", ()) or ()))


def pin(store: Any, ref: str, pinned: bool) -> Outcome:
    """Pin or unpin (the store checks the pinned budget)."""
    result = store.set_activation(ref, "pinned" if pinned else "relevant")
    fact = result.fact
    if not getattr(result, "changed", True):
        return Outcome(f"{fact.ref} is already {'pinned' if pinned else 'relevant'}.", str(fact.id))
    verb = "Pinned" if pinned else "Unpinned"
    inner = getattr(result, "result", None)
    return Outcome(f"{verb} {fact.ref} (revision {fact.revision}).", str(fact.id), _warnings(inner), _save_paths(inner))


def verify(store: Any, ref: str) -> Outcome:
    """Mark verified now (renews the freshness clock)."""
    result = store.verify(ref)
    fact = getattr(result, "fact", result)
    return Outcome(f"Verified {fact.ref}: its freshness clock starts now.", str(fact.id), _warnings(result), _save_paths(result))


def forget(store: Any, ref: str) -> Outcome:
    """Archive a fact (the user's own action: no approval)."""
    result = store.archive(ref)
    fact = getattr(result, "fact", None)
    path = getattr(result, "path", "")
    what = fact.ref if fact is not None else ref
    paths = [fact.path] if fact is not None and fact.path else []
    paths.extend(str(p) for p in (getattr(result, "paths", ()) or (path,)) if p)
    return Outcome(f"Forgot {what}; archived to {path}. Recover it from the Archive pane.", None, (), tuple(paths))


def save_form(
    store: Any,
    values: FactFormValues,
    *,
    fact_id: str | None = None,
    expected_revision: int | None = None,
) -> Outcome:
    """Create (no ``fact_id``) or update a fact, guarded by ``expected_revision``."""
    from ..core.store.store import SaveRequest

    if not values.description.strip() or not values.body.strip():
        raise InvalidInput("description and body are required")
    expires_at, clear = parse_expiry(values.expires_at)
    name = values.name.strip()
    if not name and fact_id is None:
        # As the remember tool derives it (store-format §7): the title, else the description.
        name = slug(values.title) or slug(values.description)
    request = SaveRequest(
        name=name,
        title=values.title.strip(),
        description=values.description.strip(),
        type=values.type,
        scope=values.scope,
        keywords=values.keywords.strip(),
        subject_key=values.subject_key.strip(),
        activation=values.activation,
        volatility=values.volatility,
        expires_at=expires_at,
        verified=values.verified,
        body=values.body,
        id=fact_id or "",
    )
    result = store.save(
        request,
        expected_revision=expected_revision,
        require_create=fact_id is None,
        clear_expiry=clear,
    )
    fact = result.fact
    verb = "Created" if getattr(result, "created", fact_id is None) else "Saved"
    return Outcome(f"{verb} {fact.ref} (revision {fact.revision}).", str(fact.id), _warnings(result), _save_paths(result))


def restore(store: Any, ref: str, revision: int) -> Outcome:
    """Bring an old revision back as a new one."""
    result = store.restore(ref, revision)
    fact = result.fact
    return Outcome(
        f"Restored revision {revision} of {fact.ref} as revision {fact.revision}.",
        str(fact.id),
        _warnings(result),
        _save_paths(result),
    )


def recover(store: Any, path: str) -> Outcome:
    """Recover an archived fact (the store explains collisions)."""
    result = store.recover(path)
    fact = getattr(result, "fact", result)
    return Outcome(
        f"Recovered {fact.ref} (revision {fact.revision}).", str(fact.id), _warnings(result), (*_save_paths(result), path)
    )

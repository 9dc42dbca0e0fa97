"""A fact as the table shows it: its row (cheap to build, frozen), the clock-independent data a
row is built from, error rows, and the relative and absolute times the panes print.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ...core.compat.gostr import trim_space
from ...core.compat.gotime import DAY_NS, Timestamp
from ...core.store.freshness import windows_for_kind
from ...core.store.model import Fact
from ...core.store.precedence import identity_keys
from ...core.store.scan import fact_file_problem

__all__ = [
    "Clock",
    "RowSource",
    "freshness_label",
    "FactRow",
    "ErrorRow",
    "fact_row",
    "relative_time",
    "ago",
    "human_time",
]


Clock = Callable[[], Timestamp]
"""A source of "now" (injected so tests and snapshots are deterministic)."""

ERROR_KEY_PREFIX = "error:"
"""Row keys of files that failed to read start with this (fact rows use the fact id)."""


def relative_time(ts: Timestamp | None, now: Timestamp) -> str:
    """A short age such as ``3m``, ``5h``, ``12d``, ``2y`` (``-`` when unknown)."""
    if ts is None:
        return "-"
    return relative_ns(ts.ns, now.ns)


def relative_ns(ts_ns: int, now_ns: int) -> str:
    """:func:`relative_time` on nanoseconds."""
    secs = (now_ns - ts_ns) / 1e9
    future = secs < 0
    secs = abs(secs)
    if secs < 60:
        text = "now"
    elif secs < 3600:
        text = f"{int(secs // 60)}m"
    elif secs < 86400:
        text = f"{int(secs // 3600)}h"
    elif secs < 86400 * 365:
        text = f"{int(secs // 86400)}d"
    else:
        text = f"{secs / (86400 * 365):.1f}y"
    return f"in {text}" if future and text != "now" else text


def ago(ts: Timestamp | None, now: Timestamp) -> str:
    """An age for a sentence: ``just now``, ``3m ago``, ``in 2d`` (``at an unknown time``)."""
    if ts is None:
        return "at an unknown time"
    rel = relative_ns(ts.ns, now.ns)
    if rel == "now":
        return "just now"
    return rel if rel.startswith("in ") else f"{rel} ago"


def human_time(ts: Timestamp | None, zone: str = "local", *, label: bool = True) -> str:
    """A time for people, to the second: ``2026-07-25 16:40:00 UTC`` (``zone="utc"``) or
    the local time with its zone name (``zone="local"``); ``label=False`` leaves the zone
    name out (a column says it once). The detail view keeps the stored nanosecond form."""
    if ts is None:
        return "-"
    dt = ts.to_datetime()
    if zone != "utc":
        dt = dt.astimezone()
    text = dt.strftime("%Y-%m-%d %H:%M:%S")
    return f"{text} {zone_name(zone)}" if label else text


def zone_name(zone: str = "local") -> str:
    """``UTC``, or the local zone's abbreviation."""
    if zone == "utc":
        return "UTC"
    from datetime import datetime

    return datetime.now().astimezone().strftime("%Z") or "local"


class FactRow(NamedTuple):
    """One line of the facts table (a named tuple: 100k of them are built at start)."""

    key: str
    """Row key: the fact id, or ``error:<path>`` for a file that failed to read."""
    title: str
    """Display title."""
    ref: str
    """``<scope>/<name>.md``."""
    type: str
    """Fact type."""
    scope: str
    """``project`` or ``global``."""
    activation: str
    """Resolved activation: ``pinned`` or ``relevant``."""
    freshness: str
    """``fresh``, ``current``, ``stale``, ``expired`` (``error`` for error rows)."""
    subject: str
    """Subject key (may be empty)."""
    revision: int
    """Revision number (0 for error rows)."""
    updated_ns: int
    """Update time in ns (0 when unknown), for sorting."""
    updated: str
    """Relative update time."""
    search: str
    """Lowercased text the filter matches against."""
    error: str = ""
    """Parse problem (the row is drawn as an error row when set)."""

    @property
    def is_error(self) -> bool:
        """True for files that failed to read or parse."""
        return bool(self.error)


def freshness_label(type_: str, volatility: str, expires_ns: int | None, start_ns: int | None, now_ns: int) -> str:
    """:func:`~reasonix_tui.core.store.freshness.freshness_for` on plain numbers (spec §5).

    ``start_ns`` is the clock start (updated, else created, renewed by verification); the
    windows are the core's (``windows_for_kind``). A row keeps only these numbers, so 100k
    rows can be re-labelled without their facts. A test checks it against
    ``freshness_for`` on every combination it can build.
    """
    if expires_ns is not None and now_ns > expires_ns:
        return "expired"
    if start_ns is None or start_ns > now_ns:
        return "current"
    windows = windows_for_kind(type_, volatility)
    if windows is None:
        return "fresh"
    age = now_ns - start_ns
    if age <= windows[0] * DAY_NS:
        return "fresh"
    if age <= windows[1] * DAY_NS:
        return "current"
    return "stale"


class RowSource(NamedTuple):
    """The clock-independent part of a row, as cached between starts (one per fact file)."""

    key: str
    """Fact id."""
    title: str
    """Display title (with a warning sign when the file has a problem)."""
    ref: str
    """Reference."""
    type: str
    """Type."""
    scope: str
    """Scope."""
    activation: str
    """Resolved activation."""
    volatility: str
    """Volatility."""
    subject: str
    """Subject key."""
    revision: int
    """Revision."""
    start_ns: int | None
    """Freshness clock start."""
    updated_ns: int | None
    """Updated (else created) time."""
    expires_ns: int | None
    """Expiry."""
    search: str
    """Filter text."""
    error: str
    """What is wrong with the file (``fact_file_problem``), or ``""``."""
    keys: tuple[str, ...]
    """Identity keys (``precedence.identity_keys``: ``id:…``, ``name:…``, ``title:…``, ``subject:…``)."""
    pinned_len: int
    """Runes this fact adds to pinned guidance."""

    def row(self, now: Timestamp, key: str | None = None) -> FactRow:
        """The table row at ``now``."""
        updated = self.updated_ns
        now_ns = now.ns
        return FactRow(
            key or self.key,
            self.title,
            self.ref,
            self.type,
            self.scope,
            self.activation,
            freshness_label(self.type, self.volatility, self.expires_ns, self.start_ns, now_ns),
            self.subject,
            self.revision,
            updated or 0,
            relative_ns(updated, now_ns) if updated is not None else "-",
            self.search,
            self.error,
        )


def row_source(fact: Fact) -> RowSource:
    """The cacheable row data of a fact."""
    updated = fact.updated_at or fact.created_at
    title = fact.display_title
    ref = fact.ref
    search = " ".join(
        (title, ref, fact.id, fact.description, fact.keywords, fact.subject_key, fact.type, fact.scope)
    ).lower()
    start = fact.clock_start
    body = trim_space(fact.body)  # the store's pinned-budget count (Store.pinned_total)
    activation = fact.resolved_activation
    problem = fact_file_problem(fact)
    return RowSource(
        key=str(fact.id),
        title=("⚠ " + title) if problem else title,
        ref=ref,
        type=fact.type,
        scope=fact.scope,
        activation=activation,
        volatility=fact.volatility,
        subject=fact.subject_key,
        revision=fact.revision,
        start_ns=start.ns if start is not None else None,
        updated_ns=updated.ns if updated is not None else None,
        expires_ns=fact.expires_at.ns if fact.expires_at is not None else None,
        search=search,
        error=problem,
        keys=tuple(identity_keys(fact)),
        pinned_len=len(body) if body and activation == "pinned" else 0,
    )


def fact_row(fact: Fact, now: Timestamp) -> FactRow:
    """The table row of a fact."""
    return row_source(fact).row(now)


@dataclass(frozen=True, slots=True)
class ErrorRow:
    """A file that could not be read at all."""

    path: str
    """The file."""
    message: str
    """Why."""
    scope: str = "project"
    """The directory it is in."""

    def row(self) -> FactRow:
        """The table row for this error."""
        name = os.path.basename(self.path)
        return FactRow(
            key=ERROR_KEY_PREFIX + self.path,
            title=f"⚠ {name}",
            ref=f"{self.scope}/{name}",
            type="-",
            scope=self.scope,
            activation="-",
            freshness="error",
            subject="",
            revision=0,
            updated_ns=0,
            updated="-",
            search=f"{name} {self.message} error".lower(),
            error=self.message,
        )

"""Freshness labels (store-format §5): ``fresh``, ``current``, ``stale``, ``expired``.

Freshness is an age signal, not a truth claim. :func:`explain_freshness` also says
*why* a fact has its label, for the detail view.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..compat.gotime import DAY_NS, Timestamp
from .model import Fact

__all__ = [
    "FRESHNESS_LABELS",
    "windows_for",
    "windows_for_kind",
    "freshness_for",
    "explain_freshness",
    "FreshnessReport",
]

FRESHNESS_LABELS = ("fresh", "current", "stale", "expired")

_VOLATILITY_WINDOWS: dict[str, tuple[int, int] | None] = {
    "evergreen": None,
    "stable": (90, 365),
    "volatile": (7, 30),
}
_TYPE_WINDOWS: dict[str, tuple[int, int]] = {
    "reference": (14, 45),
    "user": (90, 365),
    "feedback": (90, 365),
}


def windows_for_kind(type_: str, volatility: str) -> tuple[int, int] | None:
    """:func:`windows_for` from the two fields it reads (for callers that keep only those)."""
    if volatility in _VOLATILITY_WINDOWS:
        return _VOLATILITY_WINDOWS[volatility]
    return _TYPE_WINDOWS.get(type_, (30, 180))


def windows_for(fact: Fact) -> tuple[int, int] | None:
    """``(fresh_days, current_days)``, or ``None`` when the fact never ages (evergreen)."""
    return windows_for_kind(fact.type, fact.volatility)


@dataclass(frozen=True, slots=True)
class FreshnessReport:
    """A label and the reasoning behind it."""

    label: str
    """``fresh``, ``current``, ``stale`` or ``expired``."""
    reason: str
    """One sentence a person can read."""
    age_days: float | None
    """Days since the clock start (``None`` when unknown)."""
    windows: tuple[int, int] | None
    """The windows that applied."""


def freshness_for(fact: Fact, now: Timestamp) -> str:
    """``FreshnessFor(m, now)``."""
    return explain_freshness(fact, now).label


def explain_freshness(fact: Fact, now: Timestamp) -> FreshnessReport:
    """The label with its reason (source of the windows, clock start, age)."""
    windows = windows_for(fact)
    if fact.expires_at is not None and now > fact.expires_at:
        return FreshnessReport("expired", f"expired at {fact.expires_at.rfc3339()}", None, windows)
    start = fact.clock_start
    if start is None or start > now:
        return FreshnessReport("current", "no usable clock start (missing or in the future)", None, windows)
    renewed = fact.last_verified_at is not None and start == fact.last_verified_at
    since = "verified" if renewed else "updated"
    age = (now.ns - start.ns) / DAY_NS
    if windows is None:
        return FreshnessReport("fresh", "volatility evergreen: never ages", age, None)
    source = f"volatility {fact.volatility}" if fact.volatility else f"type {fact.type} default"
    fresh_days, current_days = windows
    age_ns = now.ns - start.ns
    if age_ns <= fresh_days * DAY_NS:
        label = "fresh"
    elif age_ns <= current_days * DAY_NS:
        label = "current"
    else:
        label = "stale"
    reason = f"{since} {age:.0f} d ago; {source} windows: fresh ≤ {fresh_days} d, current ≤ {current_days} d"
    return FreshnessReport(label, reason, age, windows)

"""Freshness findings: expired and stale facts, and facts whose expiry or freshness window
ends within :data:`SOON_DAYS` days."""

from __future__ import annotations

from collections.abc import Sequence

from ..compat.gotime import DAY_NS, Timestamp
from ..store.freshness import FreshnessReport, explain_freshness
from ..store.model import Fact
from .base import (
    FindingMemo,
    archive_fix,
    day,
    edit_fix,
    fact_line,
    make_finding,
    memo_get,
)
from .model import INFO, WARNING, FactRef, Finding, Fix

__all__ = ["SOON_DAYS", "check_freshness", "valid_until"]

SOON_DAYS = 7
"""A freshness window or an expiry ending within this many days is reported."""

# --------------------------------------------------------------------------- freshness


def check_freshness(facts: Sequence[Fact], now: Timestamp, memo: FindingMemo | None = None) -> list[Finding]:
    """Expired facts (warning), stale facts (info), and facts whose expiry or freshness
    window ends within :data:`SOON_DAYS` days (info)."""
    out: list[Finding] = []
    soon = now.ns + SOON_DAYS * DAY_NS
    for f in facts:
        exp = f.expires_at
        if exp is not None and now > exp:
            ago = (now.ns - exp.ns) // DAY_NS
            found = memo_get(memo, "freshness", f, ("expired", ago), lambda f=f, ago=ago: _expired(f, ago))  # type: ignore[misc]  # a default-argument lambda binds the loop values
        else:
            report = explain_freshness(f, now)
            if report.label == "stale":
                found = memo_get(
                    memo,
                    "freshness",
                    f,
                    ("stale", report.reason),
                    lambda f=f, report=report: _stale(f, report),  # type: ignore[misc]  # a default-argument lambda binds the loop values
                )
            elif exp is not None and exp.ns <= soon:
                days = max(0, (exp.ns - now.ns) // DAY_NS)
                found = memo_get(memo, "freshness", f, ("expires", days), lambda f=f, days=days: _expires(f, days))  # type: ignore[misc]  # a default-argument lambda binds the loop values
            else:
                start = f.clock_start
                if report.windows is None or start is None or start > now:
                    continue
                ends = start.ns + report.windows[1] * DAY_NS
                if not now.ns < ends <= soon:
                    continue
                days = max(0, (ends - now.ns) // DAY_NS)
                found = memo_get(
                    memo,
                    "freshness",
                    f,
                    ("window", days, ends, report.reason),
                    lambda f=f, days=days, ends=ends, report=report: _window(f, days, ends, report),  # type: ignore[misc]  # a default-argument lambda binds the loop values
                )
        if found is not None:
            out.append(found)
    return out


_HALF_DAY = DAY_NS // 2
_MARGIN = 1_000_000
"""A millisecond either side of a boundary: ages are compared as float days."""


def valid_until(facts: Sequence[Fact], now: Timestamp) -> int:
    """The first moment (ns) after ``now`` at which a finding that moves with the clock
    (freshness: ages, expiries, windows; recall usage: expiry) could read differently for
    one of ``facts``; ``now`` itself when one is at a boundary.

    Every such finding changes only when the clock crosses a whole or half day after a
    fact's clock start or expiry (a window or an expiry is whole days; an age is printed
    rounded to whole days), so the answer is the nearest such boundary, less a margin."""
    out = now.ns + 366 * DAY_NS
    for f in facts:
        for base in (f.clock_start, f.expires_at):
            if base is None:
                continue
            rest = (now.ns - base.ns) % _HALF_DAY
            if rest < _MARGIN or _HALF_DAY - rest <= _MARGIN:
                return now.ns
            out = min(out, now.ns + _HALF_DAY - rest - _MARGIN)
    return out


def _verify(f: Fact) -> Fix:
    return Fix("verify", f"verify {f.ref} (still true: renew its clock)", fact_id=str(f.id))


def _expired(f: Fact, ago: int) -> Finding:
    assert f.expires_at is not None
    evidence = [
        f"expired at {f.expires_at.rfc3339()} ({ago} d ago): recall skips it, it only takes room",
        fact_line("fact", f),
    ]
    return make_finding(
        "expired",
        WARNING,
        f"{f.display_title}: expired {day(f.expires_at)}",
        [FactRef.of(f)],
        evidence,
        [archive_fix(f, "expired"), edit_fix(f)],
    )


def _stale(f: Fact, report: FreshnessReport) -> Finding:
    evidence = [f"stale: {report.reason}", "recall ranks it lower; verify it if it still holds", fact_line("fact", f)]
    return make_finding(
        "stale",
        INFO,
        f"{f.display_title}: stale ({report.age_days or 0:.0f} d)",
        [FactRef.of(f)],
        evidence,
        [_verify(f), archive_fix(f, "stale"), edit_fix(f)],
        extra="stale",
    )


def _expires(f: Fact, days: int) -> Finding:
    assert f.expires_at is not None
    evidence = [f"expires at {f.expires_at.rfc3339()} (in {days} d); after that recall skips it", fact_line("fact", f)]
    return make_finding(
        "ending-soon",
        INFO,
        f"{f.display_title}: expires in {days} d",
        [FactRef.of(f)],
        evidence,
        [edit_fix(f, why="change the expiry")],
        extra="expiry",
    )


def _window(f: Fact, days: int, ends: int, report: FreshnessReport) -> Finding:
    evidence = [
        f"turns stale in {days} d ({day(Timestamp(ends))}): {report.reason}",
        "verify it if it still holds",
        fact_line("fact", f),
    ]
    return make_finding(
        "ending-soon",
        INFO,
        f"{f.display_title}: stale in {days} d",
        [FactRef.of(f)],
        evidence,
        [_verify(f), edit_fix(f)],
        extra="window",
    )

"""Timestamps with Go's nanosecond precision and its RFC3339Nano text form (spec §2.3).

A Python ``datetime`` holds microseconds only, so a rewrite of an inherited
``created_at`` written by Go would lose digits. :class:`Timestamp` keeps integer
nanoseconds since the Unix epoch (UTC) and formats exactly like Go's
``time.RFC3339Nano`` in UTC: trailing zeros of the fraction trimmed, the dot
dropped when the fraction is zero, zone always ``Z``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["Timestamp", "parse_rfc3339", "format_archive_stamp", "parse_archive_stamp", "DAY_NS"]

DAY_NS = 24 * 3600 * 1_000_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

_RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$")


@dataclass(frozen=True, slots=True, order=True)
class Timestamp:
    """A UTC instant as integer nanoseconds since the Unix epoch."""

    ns: int

    @classmethod
    def now(cls) -> Timestamp:
        """The current time (``time.time_ns``)."""
        return cls(time.time_ns())

    @classmethod
    def from_datetime(cls, dt: datetime) -> Timestamp:
        """From an aware (or naive-as-UTC) datetime."""
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        delta = dt - _EPOCH
        return cls((delta.days * 86400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000)

    @classmethod
    def from_seconds(cls, seconds: float) -> Timestamp:
        """From a POSIX timestamp in seconds (e.g. ``st_mtime``)."""
        return cls(int(round(seconds * 1_000_000_000)))

    def to_datetime(self) -> datetime:
        """Aware UTC datetime (microsecond precision)."""
        return _EPOCH + timedelta(microseconds=self.ns // 1000)

    def rfc3339(self) -> str:
        """Go ``time.RFC3339Nano`` formatting in UTC."""
        secs, frac = divmod(self.ns, 1_000_000_000)
        dt = _EPOCH + timedelta(seconds=secs)
        base = dt.strftime("%Y-%m-%dT%H:%M:%S")
        if frac:
            digits = f"{frac:09d}".rstrip("0")
            return f"{base}.{digits}Z"
        return f"{base}Z"

    def __str__(self) -> str:
        return self.rfc3339()

    def add_days(self, days: float) -> Timestamp:
        """This instant plus ``days`` (24 h each)."""
        return Timestamp(self.ns + int(days * DAY_NS))


def parse_rfc3339(value: str | None) -> Timestamp | None:
    """Go ``time.Parse(RFC3339Nano, TrimSpace(v))``; ``None`` for empty or unparseable text."""
    if not value:
        return None
    m = _RFC3339.match(value.strip())
    if not m:
        return None
    year, month, day, hour, minute, second, frac, zone = m.groups()
    try:
        dt = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), tzinfo=UTC)
    except ValueError:
        return None
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        hh, mm = int(zone[1:3]), int(zone[4:6])
        if hh > 23 or mm > 59:
            return None
        dt -= sign * timedelta(hours=hh, minutes=mm)
    nanos = 0
    if frac:
        nanos = int((frac + "000000000")[:9])
    base = Timestamp.from_datetime(dt).ns
    return Timestamp(base + nanos)


def format_archive_stamp(ts: Timestamp) -> str:
    """Go layout ``20060102-150405.000`` in UTC, milliseconds truncated (spec §1.5)."""
    secs, frac = divmod(ts.ns, 1_000_000_000)
    dt = _EPOCH + timedelta(seconds=secs)
    return f"{dt.strftime('%Y%m%d-%H%M%S')}.{frac // 1_000_000:03d}"


_STAMP = re.compile(r"^(\d{8})-(\d{6})\.(\d{3})$")


def parse_archive_stamp(name: str) -> Timestamp | None:
    """Read the stamp of an archive file name: longer than 19 chars with ``-`` at index 19."""
    if len(name) <= 19 or name[19] != "-":
        return None
    m = _STAMP.match(name[:19])
    if not m:
        return None
    try:
        dt = datetime.strptime(m.group(1) + m.group(2), "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None
    return Timestamp(Timestamp.from_datetime(dt).ns + int(m.group(3)) * 1_000_000)

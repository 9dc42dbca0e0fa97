"""The parse cache: loading an unchanged store does not re-parse YAML.

Each store directory has one JSON file under ``<root>/reasonix-tui/cache/``, mapping a
file name to its stat key ``(size, mtime_ns, ino, ctime_ns)`` and the parsed fact.
A file whose key changed is parsed again. The cache is an optimisation only: any
file that fails to load or validate is ignored (never trusted), and it is rewritten
atomically when it changed.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..gotime import Timestamp
from .atomic import atomic_write
from .model import Fact, FactId

__all__ = ["StatKey", "ParseCache", "fact_to_row", "fact_from_row", "stat_key"]

CACHE_VERSION = 4
StatKey = tuple[int, int, int, int]


def stat_key(st: os.stat_result) -> StatKey:
    """The cache key of a file."""
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


_FIELDS = (
    "id", "revision", "created_at", "updated_at", "name", "title", "description", "keywords",
    "activation", "volatility", "subject_key", "expires_at", "last_verified_at", "type", "scope",
    "body", "file_scope", "supersedes", "extra", "path", "raw_times", "parse_error", "encoding",
)
_TIME_SLOTS = (2, 3, 11, 12)
_STR_SLOTS = (0, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 19, 21, 22)


def fact_to_row(f: Fact) -> list[Any]:
    """Serialise a fact as a positional row (compact and fast to decode)."""
    return [
        f.id, f.revision,
        None if f.created_at is None else f.created_at.ns,
        None if f.updated_at is None else f.updated_at.ns,
        f.name, f.title, f.description, f.keywords, f.activation, f.volatility, f.subject_key,
        None if f.expires_at is None else f.expires_at.ns,
        None if f.last_verified_at is None else f.last_verified_at.ns,
        f.type, f.scope, f.body, f.file_scope, list(f.supersedes),
        [list(p) for p in f.extra], f.path, [list(p) for p in f.raw_times], f.parse_error, f.encoding,
    ]


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if type(value) is not list:
        raise ValueError("bad pairs")
    out = []
    for item in value:
        if type(item) is not list or len(item) != 2 or type(item[0]) is not str or type(item[1]) is not str:
            raise ValueError("bad pair")
        out.append((item[0], item[1]))
    return tuple(out)


def fact_from_row(row: Any) -> Fact:
    """Rebuild a fact from a row; raises ``ValueError`` on anything unexpected (never trusted)."""
    if type(row) is not list or len(row) != len(_FIELDS):
        raise ValueError("bad row")
    for i in _STR_SLOTS:
        if type(row[i]) is not str:
            raise ValueError("bad string")
    revision = row[1]
    if type(revision) is not int or revision < 1:
        raise ValueError("bad revision")
    times: list[Timestamp | None] = []
    for i in _TIME_SLOTS:
        v = row[i]
        if v is None:
            times.append(None)
        elif type(v) is int:
            times.append(Timestamp(v))
        else:
            raise ValueError("bad timestamp")
    supersedes = row[17]
    if type(supersedes) is not list or any(type(x) is not str for x in supersedes):
        raise ValueError("bad supersedes")
    return Fact(
        id=FactId(row[0]), revision=revision, created_at=times[0], updated_at=times[1], name=row[4],
        title=row[5], description=row[6], keywords=row[7], activation=row[8], volatility=row[9],
        subject_key=row[10], expires_at=times[2], last_verified_at=times[3], type=row[13], scope=row[14],
        body=row[15], file_scope=row[16], supersedes=tuple(supersedes), extra=_pairs(row[18]), path=row[19],
        raw_times=_pairs(row[20]), parse_error=row[21], encoding=row[22],
    )


class ParseCache:
    """Per-directory cache of parsed facts, persisted as JSON."""

    def __init__(self, cache_dir: Path, directory: Path) -> None:
        digest = hashlib.sha256(os.fsencode(str(directory))).hexdigest()[:24]
        self.file = cache_dir / f"facts-{digest}.json"
        self.directory = str(directory)
        self._entries: dict[str, tuple[StatKey, Fact]] = {}
        self._raw: dict[str, Any] = {}
        self._loaded = False
        self._dirty = False

    def _load(self) -> None:
        self._loaded = True
        try:
            with open(self.file, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or data.get("dir") != self.directory:
            return
        entries = data.get("entries")
        if isinstance(entries, dict):
            self._raw = entries

    def get(self, name: str, key: StatKey) -> Fact | None:
        """The cached fact for ``name`` if its stat key matches."""
        hit = self._entries.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        if not self._loaded:
            self._load()
        raw = self._raw.get(name)
        if raw is None:
            return None
        try:
            if type(raw) is not list or len(raw) != 2 or tuple(raw[0]) != key:
                return None
            fact = fact_from_row(raw[1])
        except (TypeError, ValueError):
            return None
        self._entries[name] = (key, fact)
        return fact

    def put(self, name: str, key: StatKey, fact: Fact) -> None:
        """Remember a freshly parsed fact."""
        self._entries[name] = (key, fact)
        self._dirty = True

    def retain(self, names: set[str]) -> None:
        """Forget entries for files no longer present."""
        for name in list(self._entries):
            if name not in names:
                del self._entries[name]
                self._dirty = True
        if self._raw and set(self._raw) - names:
            self._dirty = True

    def save(self) -> None:
        """Persist when something changed (best effort)."""
        if not self._dirty:
            return
        entries = {name: [list(key), fact_to_row(fact)] for name, (key, fact) in self._entries.items()}
        payload = json.dumps(
            {"version": CACHE_VERSION, "dir": self.directory, "entries": entries},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        try:
            atomic_write(self.file, payload, 0o600, durable=False)
            self._raw = {}
            self._dirty = False
        except OSError:
            pass

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

__all__ = ["StatKey", "ParseCache", "fact_to_dict", "fact_from_dict"]

CACHE_VERSION = 3
StatKey = tuple[int, int, int, int]


def stat_key(st: os.stat_result) -> StatKey:
    """The cache key of a file."""
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def _ts(value: Timestamp | None) -> int | None:
    return None if value is None else value.ns


def fact_to_dict(f: Fact) -> dict[str, Any]:
    """Serialise a fact for the cache."""
    return {
        "id": f.id,
        "revision": f.revision,
        "created_at": _ts(f.created_at),
        "updated_at": _ts(f.updated_at),
        "name": f.name,
        "title": f.title,
        "description": f.description,
        "keywords": f.keywords,
        "activation": f.activation,
        "volatility": f.volatility,
        "subject_key": f.subject_key,
        "expires_at": _ts(f.expires_at),
        "last_verified_at": _ts(f.last_verified_at),
        "type": f.type,
        "scope": f.scope,
        "body": f.body,
        "file_scope": f.file_scope,
        "supersedes": list(f.supersedes),
        "extra": [list(p) for p in f.extra],
        "path": f.path,
        "raw_times": [list(p) for p in f.raw_times],
        "parse_error": f.parse_error,
        "encoding": f.encoding,
    }


def _opt_ts(value: Any) -> Timestamp | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("bad timestamp")
    return Timestamp(value)


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("bad string")
    return value


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        raise ValueError("bad pairs")
    out = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 2):
            raise ValueError("bad pair")
        out.append((_str(item[0]), _str(item[1])))
    return tuple(out)


def fact_from_dict(d: Any) -> Fact:
    """Rebuild a fact; raises ``ValueError`` on anything unexpected."""
    if not isinstance(d, dict):
        raise ValueError("bad entry")
    revision = d["revision"]
    if not isinstance(revision, int) or isinstance(revision, bool) or revision < 1:
        raise ValueError("bad revision")
    supersedes = d.get("supersedes", [])
    if not isinstance(supersedes, list):
        raise ValueError("bad supersedes")
    return Fact(
        id=FactId(_str(d["id"])),
        revision=revision,
        created_at=_opt_ts(d["created_at"]),
        updated_at=_opt_ts(d["updated_at"]),
        name=_str(d["name"]),
        title=_str(d["title"]),
        description=_str(d["description"]),
        keywords=_str(d["keywords"]),
        activation=_str(d["activation"]),
        volatility=_str(d["volatility"]),
        subject_key=_str(d["subject_key"]),
        expires_at=_opt_ts(d["expires_at"]),
        last_verified_at=_opt_ts(d["last_verified_at"]),
        type=_str(d["type"]),
        scope=_str(d["scope"]),
        body=_str(d["body"]),
        file_scope=_str(d["file_scope"]),
        supersedes=tuple(_str(s) for s in supersedes),
        extra=_pairs(d.get("extra", [])),
        path=_str(d["path"]),
        raw_times=_pairs(d.get("raw_times", [])),
        parse_error=_str(d.get("parse_error", "")),
        encoding=_str(d.get("encoding", "utf-8")),
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
            cached_key = tuple(raw["key"])
            if cached_key != key:
                return None
            fact = fact_from_dict(raw["fact"])
        except (KeyError, TypeError, ValueError):
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
        entries = {
            name: {"key": list(key), "fact": fact_to_dict(fact)} for name, (key, fact) in self._entries.items()
        }
        payload = json.dumps(
            {"version": CACHE_VERSION, "dir": self.directory, "entries": entries},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        try:
            atomic_write(self.file, payload, 0o600)
            self._raw = {}
            self._dirty = False
        except OSError:
            pass

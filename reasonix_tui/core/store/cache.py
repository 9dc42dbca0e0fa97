"""The parse cache: loading an unchanged store does not re-parse YAML.

Each store directory has one file under ``<root>/reasonix-tui/cache/``, mapping a file
name to its stat key ``(size, mtime_ns, ino, ctime_ns)`` and the parsed fact as a
positional row. A file whose key changed is parsed again.

Format: ``MAGIC`` + SHA-256 of the payload + the payload, a ``marshal`` dump of
``(version, directory, {name: (key, row)})`` (marshal decodes 100k rows several times
faster than JSON). The cache is an optimisation only and never trusted: a wrong magic,
digest, version or directory discards the whole file *before* it is decoded, and every
row is type-checked before use; a bad row is simply parsed again from its file. It is
rewritten atomically (without fsync) when it changed.
"""

from __future__ import annotations

import gc
import hashlib
import os
from pathlib import Path
from typing import Any

from ..compat.gotime import Timestamp
from . import safeio
from .atomic import atomic_write
from .model import Fact, FactId
from .sealed import seal, unseal

__all__ = ["StatKey", "ParseCache", "fact_to_row", "fact_from_row", "stat_key"]

CACHE_VERSION = 6
MAGIC = b"RXTUI-PARSE-CACHE\n"
StatKey = tuple[int, int, int, int]


def stat_key(st: os.stat_result) -> StatKey:
    """The cache key of a file."""
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


_FIELDS = (
    "id",
    "revision",
    "created_at",
    "updated_at",
    "name",
    "title",
    "description",
    "keywords",
    "activation",
    "volatility",
    "subject_key",
    "expires_at",
    "last_verified_at",
    "type",
    "scope",
    "body",
    "file_scope",
    "supersedes",
    "extra",
    "path",
    "raw_times",
    "parse_error",
    "encoding",
)


def fact_to_row(f: Fact) -> list[Any]:
    """Serialise a fact as a positional row (compact and fast to decode)."""
    return [
        f.id,
        f.revision,
        None if f.created_at is None else f.created_at.ns,
        None if f.updated_at is None else f.updated_at.ns,
        f.name,
        f.title,
        f.description,
        f.keywords,
        f.activation,
        f.volatility,
        f.subject_key,
        None if f.expires_at is None else f.expires_at.ns,
        None if f.last_verified_at is None else f.last_verified_at.ns,
        f.type,
        f.scope,
        f.body,
        f.file_scope,
        list(f.supersedes),
        [list(p) for p in f.extra],
        f.path,
        [list(p) for p in f.raw_times],
        f.parse_error,
        f.encoding,
    ]


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if type(value) is not list:
        raise ValueError("bad pairs")
    if not value:
        return ()
    out = []
    for item in value:
        if type(item) is not list or len(item) != 2 or type(item[0]) is not str or type(item[1]) is not str:
            raise ValueError("bad pair")
        out.append((item[0], item[1]))
    return tuple(out)


def _ts_or_none(v: Any) -> Timestamp | None:
    if v is None:
        return None
    if type(v) is not int:
        raise ValueError("bad timestamp")
    return Timestamp(v)


def fact_from_row(row: Any) -> Fact:
    """Rebuild a fact from a row; raises ``ValueError`` on anything unexpected (never trusted)."""
    if type(row) is not list or len(row) != len(_FIELDS):
        raise ValueError("bad row")
    (
        fid,
        revision,
        created,
        updated,
        name,
        title,
        description,
        keywords,
        activation,
        volatility,
        subject,
        expires,
        verified,
        type_,
        scope,
        body,
        file_scope,
        supersedes,
        extra,
        path,
        raw_times,
        parse_error,
        encoding,
    ) = row
    if not (
        type(fid) is str
        and type(name) is str
        and type(title) is str
        and type(description) is str
        and type(keywords) is str
        and type(activation) is str
        and type(volatility) is str
        and type(subject) is str
        and type(type_) is str
        and type(scope) is str
        and type(body) is str
        and type(file_scope) is str
        and type(path) is str
        and type(parse_error) is str
        and type(encoding) is str
    ):
        raise ValueError("bad string")
    if type(revision) is not int or revision < 1:
        raise ValueError("bad revision")
    if type(supersedes) is not list or any(type(x) is not str for x in supersedes):
        raise ValueError("bad supersedes")
    created_ts = _ts_or_none(created)
    updated_ts = created_ts if updated == created else _ts_or_none(updated)
    return Fact(
        id=FactId(fid),
        revision=revision,
        created_at=created_ts,
        updated_at=updated_ts,
        name=name,
        title=title,
        description=description,
        keywords=keywords,
        activation=activation,
        volatility=volatility,
        subject_key=subject,
        expires_at=_ts_or_none(expires),
        last_verified_at=_ts_or_none(verified),
        type=type_,
        scope=scope,
        body=body,
        file_scope=file_scope,
        supersedes=tuple(supersedes),
        extra=_pairs(extra),
        path=path,
        raw_times=_pairs(raw_times),
        parse_error=parse_error,
        encoding=encoding,
    )


class ParseCache:
    """Per-directory cache of parsed facts, persisted as JSON."""

    def __init__(self, cache_dir: Path, directory: Path) -> None:
        digest = hashlib.sha256(os.fsencode(str(directory))).hexdigest()[:24]
        self.file = cache_dir / f"facts-{digest}.cache"
        self.directory = str(directory)
        self._entries: dict[str, tuple[StatKey, Fact]] = {}
        self._stale: set[str] = set()
        """Names in the file whose rows could not be used (written again without them)."""
        self._loaded = False
        self._dirty = False

    def _load(self) -> None:
        """Read the file and rebuild every fact at once (with the cycle collector paused:
        thousands of new objects would otherwise trigger passes over everything alive)."""
        self._loaded = True
        try:
            blob = safeio.read_regular(self.file)
        except OSError:
            return
        raw = decode_cache(blob, self.directory)
        enabled = gc.isenabled()
        gc.disable()
        try:
            for name, item in raw.items():
                try:
                    if type(item) is not tuple or len(item) != 2 or name in self._entries:
                        continue
                    key = item[0]
                    if type(key) is not tuple:
                        continue
                    self._entries[name] = (key, fact_from_row(item[1]))
                except (TypeError, ValueError):
                    continue
        finally:
            if enabled:
                gc.enable()
        self._stale = set(raw) - set(self._entries)

    def get(self, name: str, key: StatKey) -> Fact | None:
        """The cached fact for ``name`` if its stat key matches."""
        if not self._loaded:
            self._load()
        hit = self._entries.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        return None

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
        if self._stale:
            self._dirty = True

    def save(self) -> None:
        """Persist when something changed (best effort)."""
        if not self._dirty:
            return
        entries = {name: (key, fact_to_row(fact)) for name, (key, fact) in self._entries.items()}
        try:
            atomic_write(self.file, encode_cache(self.directory, entries), 0o600, durable=False)
            self._stale = set()
            self._dirty = False
        except (OSError, ValueError):
            pass


def encode_cache(directory: str, entries: dict[str, Any]) -> bytes:
    """``MAGIC`` + SHA-256 + marshal payload (:func:`~.sealed.seal`)."""
    return seal(MAGIC, (CACHE_VERSION, directory, entries))


def decode_cache(blob: bytes, directory: str) -> dict[str, Any]:
    """The entries of a cache blob, or ``{}`` when anything about it is off."""
    data = unseal(MAGIC, blob)
    if type(data) is not tuple or len(data) != 3 or data[0] != CACHE_VERSION or data[1] != directory:
        return {}
    entries = data[2]
    return entries if type(entries) is dict else {}

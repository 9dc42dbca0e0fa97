"""The parse cache: loading an unchanged store does not re-parse YAML.

Each store directory has one file under ``<root>/reasonix-tui/cache/``, mapping a file
name to its stat key ``(size, mtime_ns, ino, ctime_ns)`` and the parsed fact as a
positional row. A file whose key changed is parsed again.

Format: ``MAGIC`` + SHA-256 of the payload + the payload, a ``marshal`` dump of
``(version, directory, {name: (key, row)})`` (marshal decodes 100k rows several times
faster than JSON). The cache is an optimisation only and never trusted: a wrong magic,
digest, version or directory discards the whole file *before* it is decoded, and every
row's length and value types are checked before use; a bad row is simply parsed again
from its file. It is rewritten atomically (without fsync) when it changed.

Loading is most of what a one-shot command's store load costs, so a row is a tuple in
field order (nested values already tuples, as the fact holds them) and a fact is
assembled from it slot by slot, with the cycle collector paused while thousands are made.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from ..compat.gotime import Timestamp
from . import safeio
from .atomic import atomic_write
from .model import Fact
from .sealed import collector_paused, seal, unseal

__all__ = ["StatKey", "ParseCache", "fact_to_row", "fact_from_row", "stat_key"]

CACHE_VERSION = 7
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


def fact_to_row(f: Fact) -> tuple[Any, ...]:
    """Serialise a fact as a positional row (compact and fast to decode)."""
    return (
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
        tuple(f.supersedes),
        tuple((k, v) for k, v in f.extra),
        f.path,
        tuple((k, v) for k, v in f.raw_times),
        f.parse_error,
        f.encoding,
    )


_STR = (0, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 19, 21, 22)
"""Row positions that hold a string."""
_TIMES = (2, 3, 11, 12)
"""Row positions that hold a timestamp (nanoseconds) or ``None``."""
_TUPLES = (17, 18, 20)
"""Row positions that hold a tuple (supersedes, extra, raw times)."""


def _shape_ok(shape: tuple[type, ...]) -> bool:
    """Whether a row's value types are the ones :func:`fact_to_row` writes."""
    return (
        len(shape) == len(_FIELDS)
        and all(shape[i] is str for i in _STR)
        and all(shape[i] is int or shape[i] is type(None) for i in _TIMES)
        and all(shape[i] is tuple for i in _TUPLES)
        and shape[1] is int
    )


_GOOD_SHAPES: set[tuple[type, ...]] = set()
"""Row type shapes already checked by :func:`_shape_ok` (a store has only a few)."""

_NEW = object.__new__
_SETTERS = tuple(getattr(Fact, n).__set__ for n in _FIELDS)
"""Each field's slot, in row order (``tests/test_parse_cache_rows.py`` checks it names every field)."""
(
    _ID,
    _REVISION,
    _CREATED,
    _UPDATED,
    _NAME,
    _TITLE,
    _DESCRIPTION,
    _KEYWORDS,
    _ACTIVATION,
    _VOLATILITY,
    _SUBJECT,
    _EXPIRES,
    _VERIFIED,
    _TYPE,
    _SCOPE,
    _BODY,
    _FILE_SCOPE,
    _SUPERSEDES,
    _EXTRA,
    _PATH,
    _RAW_TIMES,
    _PARSE_ERROR,
    _ENCODING,
) = _SETTERS
_SET_NS = getattr(Timestamp, "ns").__set__  # noqa: B009 - the slot's descriptor, not a value


def _ts(v: int | None) -> Timestamp | None:
    if v is None:
        return None
    ts = _NEW(Timestamp)
    _SET_NS(ts, v)
    return ts


def fact_from_row(row: Any) -> Fact:
    """Rebuild a fact from a row; ``ValueError`` when the row is not one :func:`fact_to_row`
    writes (its length and the type of each value; a store has only a few such shapes, each
    checked once). The nested tuples are taken as written: the file they come from is
    sealed (SHA-256) and versioned. The fact is assembled slot by slot — the same object
    :class:`Fact`'s constructor makes, without its keyword handling (a load makes thousands),
    one statement per slot (no loop, no tuple of values in between)."""
    if type(row) is not tuple:
        raise ValueError("bad row")
    shape = tuple(map(type, row))
    if shape not in _GOOD_SHAPES:
        if not _shape_ok(shape):
            raise ValueError("bad row")
        _GOOD_SHAPES.add(shape)
    if row[1] < 1:
        raise ValueError("bad revision")
    fact = _NEW(Fact)
    _ID(fact, row[0])
    _REVISION(fact, row[1])
    created = row[2]
    if created is None:
        _CREATED(fact, None)
        _UPDATED(fact, _ts(row[3]))
    else:
        ts = _NEW(Timestamp)
        _SET_NS(ts, created)
        _CREATED(fact, ts)
        _UPDATED(fact, ts if row[3] == created else _ts(row[3]))
    _NAME(fact, row[4])
    _TITLE(fact, row[5])
    _DESCRIPTION(fact, row[6])
    _KEYWORDS(fact, row[7])
    _ACTIVATION(fact, row[8])
    _VOLATILITY(fact, row[9])
    _SUBJECT(fact, row[10])
    _EXPIRES(fact, None if row[11] is None else _ts(row[11]))
    _VERIFIED(fact, None if row[12] is None else _ts(row[12]))
    _TYPE(fact, row[13])
    _SCOPE(fact, row[14])
    _BODY(fact, row[15])
    _FILE_SCOPE(fact, row[16])
    _SUPERSEDES(fact, row[17])
    _EXTRA(fact, row[18])
    _PATH(fact, row[19])
    _RAW_TIMES(fact, row[20])
    _PARSE_ERROR(fact, row[21])
    _ENCODING(fact, row[22])
    return fact


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
        entries = self._entries
        from_row = fact_from_row
        with collector_paused():
            for name, item in raw.items():
                try:
                    if type(item) is not tuple or len(item) != 2 or name in entries:
                        continue
                    key, row = item
                    if type(key) is not tuple:
                        continue
                    entries[name] = (key, from_row(row))
                except (TypeError, ValueError):
                    continue
        if not raw.keys() <= entries.keys():
            self._stale = set(raw) - set(entries)

    def loaded(self) -> dict[str, tuple[StatKey, Fact]]:
        """Every cached ``name: (stat key, fact)`` (read on first use; the caller only
        looks: a hit is a fact whose key is the file's :func:`stat_key`, see
        :func:`~.scan.read_through`)."""
        if not self._loaded:
            self._load()
        return self._entries

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
        """Forget entries for files no longer present (one set test when none is gone)."""
        if not names.issuperset(self._entries):
            self._forget_missing(names)
        if self._stale:
            self._dirty = True

    def _forget_missing(self, names: set[str]) -> None:
        for name in list(self._entries):
            if name not in names:
                del self._entries[name]
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

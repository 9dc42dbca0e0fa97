"""Large lookup tables derived from the shipped language resources, read a bucket at a time.

A one-shot process that segments one Chinese query used to load jieba's whole prefix
dictionary (about 580k entries, a second) and parse the whole CC-CEDICT file (about
0.7 s) to look up a few dozen words. :func:`cached_table` keeps such a table, once derived,
in the language cache folder (:func:`.chinese.cache_dir`), sealed and versioned like the
other caches (:mod:`~reasonix_tui.core.store.sealed`), with its entries in
:data:`BUCKETS` buckets by a CRC-32 of the key, each marshalled apart: a lookup unpacks
only its key's bucket (:class:`KeyedTable`). Lookups give exactly what the whole table
gives; iterating one (only done when another table is derived) derives the whole table
again, in its own order.
"""

from __future__ import annotations

import marshal
import os
import zlib
from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence
from typing import Any

__all__ = ["KeyedTable", "cached_table", "BUCKETS"]

BUCKETS = 4096
"""Buckets a table's entries are kept in (by CRC-32 of the key)."""

_MAGIC = b"RXTUI-LANG-TABLE\n"


def _bucket(key: str, n: int) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) % n


def _buckets(table: Mapping[str, Any]) -> list[bytes]:
    parts: list[dict[str, Any]] = [{} for _ in range(BUCKETS)]
    for key, value in table.items():
        parts[_bucket(key, BUCKETS)][key] = value
    return [marshal.dumps(p, 4) for p in parts]


class KeyedTable(Mapping[str, Any]):
    """A read-only table whose entries are unpacked one bucket at a time, on lookup.

    ``whole`` derives the whole table (in its own order) for iteration."""

    __slots__ = ("_buckets", "_open", "_len", "_whole", "_derived")

    def __init__(self, buckets: Sequence[bytes], length: int, whole: Callable[[], Mapping[str, Any]]) -> None:
        self._buckets = buckets
        self._open: dict[int, dict[str, Any]] = {}
        self._len = length
        self._whole = whole
        self._derived: Mapping[str, Any] | None = None

    def _part(self, key: str) -> Mapping[str, Any]:
        if self._derived is not None:  # derived whole already (iterated): no more unpacking
            return self._derived
        b = _bucket(key, len(self._buckets))
        got = self._open.get(b)
        if got is None:
            got = self._open[b] = marshal.loads(self._buckets[b])
        return got

    def __getitem__(self, key: str) -> Any:
        if not isinstance(key, str):
            raise KeyError(key)
        return self._part(key)[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, else ``default``."""
        return self._part(key).get(key, default) if isinstance(key, str) else default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._part(key)

    def __len__(self) -> int:
        return self._len

    def _whole_table(self) -> Mapping[str, Any]:
        if self._derived is None:
            self._derived = self._whole()
        return self._derived

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole_table())

    def items(self) -> ItemsView[str, Any]:
        """Every entry, in the whole table's order (derives it)."""
        return self._whole_table().items()


def cached_table(
    folder: str, name: str, stamp: str, derive: Callable[[], tuple[Mapping[str, Any], Any]]
) -> tuple[Mapping[str, Any], Any]:
    """``derive()``'s (table, extra value) — from ``<folder>/lang-<name>-<stamp>.marshal``
    when it is there and sound (the table then a :class:`KeyedTable`), else derived and
    written there for the next process. ``stamp`` names what the table is derived from
    (sources and resource files); ``folder`` ``""``: derived, nothing kept."""
    if not folder:
        return derive()
    from ..store.sealed import read_sealed, write_sealed

    path = os.path.join(folder, f"lang-{name}-{stamp}.marshal")
    got = read_sealed(path, _MAGIC)
    if isinstance(got, tuple) and len(got) == 3 and isinstance(got[2], list) and got[2]:
        length, extra, buckets = got

        def whole() -> Mapping[str, Any]:
            return derive()[0]

        return KeyedTable(buckets, length, whole), extra
    table, extra = derive()
    try:
        write_sealed(path, _MAGIC, (len(table), extra, _buckets(table)))
    except (OSError, ValueError):
        pass  # a read-only or full cache folder: derived again next time
    return table, extra

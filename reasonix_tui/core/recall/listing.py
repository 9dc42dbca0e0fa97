"""The fact files of a store's two folders as one ``stat`` each: what the on-disk indexes
are validated against (no file is opened, nothing is parsed)."""

from __future__ import annotations

import hashlib
import os
import stat as stat_mod
from functools import cached_property
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..store.cache import stat_key
from ..store.scan import stat_folder

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["Listing", "list_fact_files", "stat_keys"]

_KEY_FIELDS = ("st_size", "st_mtime_ns", "st_ino", "st_ctime_ns")


class Listing:
    """The fact files of both folders now: paths in the store's scan order, their scopes
    and stat keys (``(size, mtime_ns, inode, ctime_ns)``).

    Kept as it was read — per folder its path prefix, scope and names, and the keys as one
    ``int64`` array of four columns — so a check that only compares it with an index (its
    :meth:`digest`) and reads a few files (:meth:`path`, :meth:`key`) makes no object per
    file; ``paths``, ``scopes`` and ``keys`` as lists are made on first use."""

    def __init__(self, folders: list[tuple[str, str, list[str]]], keys: Any) -> None:
        self._folders = [(prefix, scope, names) for prefix, scope, names in folders if names]
        self._key_array: np.ndarray = np.asarray(keys, dtype=np.int64).reshape(-1, 4)
        self._starts: list[int] = []
        at = 0
        for _prefix, _scope, names in self._folders:
            self._starts.append(at)
            at += len(names)

    @classmethod
    def of(cls, paths: list[str], scopes: list[str], keys: list[tuple[int, int, int, int]]) -> Listing:
        """A listing of these files (one folder per path: for tests and callers that made
        their own list)."""
        folders = [(os.path.join(os.path.dirname(p), ""), s, [os.path.basename(p)]) for p, s in zip(paths, scopes)]
        return cls(folders, keys)

    def __len__(self) -> int:
        return len(self._key_array)

    def _where(self, f: int) -> tuple[str, str, str]:
        if not 0 <= f < len(self._key_array):
            raise IndexError(f)
        i = len(self._starts) - 1
        while self._starts[i] > f:
            i -= 1
        prefix, scope, names = self._folders[i]
        return prefix, scope, names[f - self._starts[i]]

    def path(self, f: int) -> str:
        """File ``f``'s path."""
        prefix, _scope, name = self._where(f)
        return prefix + name

    def scope(self, f: int) -> str:
        return self._where(f)[1]

    def key(self, f: int) -> tuple[int, int, int, int]:
        a, b, c, d = self._key_array[f].tolist()
        return a, b, c, d

    @cached_property
    def paths(self) -> list[str]:
        return [prefix + n for prefix, _scope, names in self._folders for n in names]

    @cached_property
    def scopes(self) -> list[str]:
        return [scope for _prefix, scope, names in self._folders for _n in names]

    @cached_property
    def keys(self) -> list[tuple[int, int, int, int]]:
        rows: list[list[int]] = self._key_array.tolist()
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def digest(self) -> bytes:
        """SHA-256 of the paths, scopes and stat keys (in order), made without a string per
        file: the bytes of ``"\\0".join(paths)``, ``b"\\1"``, ``"\\0".join(scopes)`` and the
        keys as little-endian ``int64`` rows."""
        paths = "\0".join(prefix + ("\0" + prefix).join(names) for prefix, _scope, names in self._folders)
        scopes = "\0".join("\0".join(repeat(scope, len(names))) for _prefix, scope, names in self._folders)
        digest = hashlib.sha256(paths.encode("utf-8", "surrogateescape"))
        digest.update(b"\1" + scopes.encode("utf-8", "surrogateescape"))
        digest.update(self._key_array.astype("<i8", copy=False).tobytes())
        return digest.digest()


_FMT, _REG, _DIR = 0o170000, stat_mod.S_IFREG, stat_mod.S_IFDIR
_MODE = attrgetter("st_mode")
_FIELDS = [attrgetter(name) for name in _KEY_FIELDS]


def list_fact_files(store: Store) -> Listing | None:
    """One ``stat`` per fact file, no open, no parse (``None``: ask the store instead).

    Files come folder by folder (the store's order), each folder's names in code-point
    order — ``ReadDir``'s byte order, except for names that are not valid UTF-8, which get
    the store's own byte-order sort (:func:`~reasonix_tui.core.store.scan.stat_folder`)."""
    folders: list[tuple[str, str, list[str]]] = []
    columns: list[list[np.ndarray]] = []
    for scope, directory in store._dirs():  # noqa: SLF001
        folder = os.fspath(directory)
        try:
            names, got, failed = stat_folder(folder)
        except FileNotFoundError:
            continue
        except OSError:
            return None
        if failed:
            return None  # a file gone before its stat: not an empty listing, the store decides
        stats = cast("list[os.stat_result]", got)  # no error in it
        if any(m & _FMT != _REG for m in set(map(_MODE, stats))):
            kept = []
            for name, st in zip(names, stats):
                if st.st_mode & _FMT == _REG:
                    kept.append((name, st))
                elif st.st_mode & _FMT != _DIR:
                    return None  # a symlink or a special file: the store's own rules decide
            names, stats = [n for n, _s in kept], [s for _n, s in kept]
        folders.append((os.path.join(folder, ""), scope, names))
        n = len(stats)
        columns.append([np.fromiter(map(get, stats), dtype=np.int64, count=n) for get in _FIELDS])
    if not columns:
        return Listing([], np.zeros((0, 4), dtype=np.int64))
    return Listing(folders, np.concatenate([np.column_stack(c) for c in columns]))


def stat_keys(paths: list[str]) -> list[tuple[int, int, int, int]] | None:
    """The stat key of each path now (``None`` when one cannot be read)."""
    out = []
    for p in paths:
        try:
            out.append(stat_key(os.stat(p, follow_symlinks=False)))
        except OSError:
            return None
    return out

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

    Kept as it was read — per folder its path prefix, scope, names and ``stat`` results —
    so a check that only compares it with an index (its :meth:`digest`, over the keys as one
    ``int64`` array) and reads a few files (:meth:`path`, :meth:`key`) makes no string or
    tuple per file; ``paths``, ``scopes`` and ``keys`` as lists are made on first use."""

    def __init__(self, folders: list[tuple[str, str, list[str], list[Any]]]) -> None:
        self._folders = [folder for folder in folders if folder[2]]
        self._starts: list[int] = []
        at = 0
        for folder in self._folders:
            self._starts.append(at)
            at += len(folder[2])
        self._n = at

    def __len__(self) -> int:
        return self._n

    def _where(self, f: int) -> tuple[str, str, str, Any]:
        if not 0 <= f < self._n:
            raise IndexError(f)
        i = len(self._starts) - 1
        while self._starts[i] > f:
            i -= 1
        prefix, scope, names, stats = self._folders[i]
        return prefix, scope, names[f - self._starts[i]], stats[f - self._starts[i]]

    def path(self, f: int) -> str:
        """File ``f``'s path."""
        prefix, _scope, name, _st = self._where(f)
        return prefix + name

    def scope(self, f: int) -> str:
        return self._where(f)[1]

    def key(self, f: int) -> tuple[int, int, int, int]:
        got: tuple[int, int, int, int] = _KEY(self._where(f)[3])
        return got

    @cached_property
    def paths(self) -> list[str]:
        return [prefix + n for prefix, _scope, names, _stats in self._folders for n in names]

    @cached_property
    def scopes(self) -> list[str]:
        return [scope for _prefix, scope, names, _stats in self._folders for _n in names]

    @cached_property
    def keys(self) -> list[tuple[int, int, int, int]]:
        return [key for _p, _s, _n, stats in self._folders for key in map(_KEY, stats)]

    def key_array(self) -> np.ndarray:
        """The stat keys as an ``(n, 4)`` ``int64`` array (four C-level passes per folder)."""
        if not self._folders:
            return np.zeros((0, 4), dtype=np.int64)
        return np.concatenate(
            [
                np.column_stack([np.fromiter(map(get, stats), dtype=np.int64, count=len(stats)) for get in _FIELDS])
                for _p, _s, _n, stats in self._folders
            ]
        )

    def digest(self) -> bytes:
        """SHA-256 of the paths, scopes and stat keys (in order), made without a string or a
        tuple per file: the bytes of ``"\\0".join(paths)``, ``b"\\1"``, ``"\\0".join(scopes)``
        and the keys as little-endian ``int64`` rows."""
        paths = "\0".join(prefix + ("\0" + prefix).join(names) for prefix, _scope, names, _st in self._folders)
        scopes = "\0".join("\0".join(repeat(scope, len(names))) for _prefix, scope, names, _st in self._folders)
        digest = hashlib.sha256(paths.encode("utf-8", "surrogateescape"))
        digest.update(b"\1" + scopes.encode("utf-8", "surrogateescape"))
        digest.update(self.key_array().astype("<i8", copy=False).tobytes())
        return digest.digest()


_KEY = attrgetter(*_KEY_FIELDS)
_FIELDS = [attrgetter(name) for name in _KEY_FIELDS]
_FMT, _REG, _DIR = 0o170000, stat_mod.S_IFREG, stat_mod.S_IFDIR
_MODE = attrgetter("st_mode")


def list_fact_files(store: Store) -> Listing | None:
    """One ``stat`` per fact file, no open, no parse (``None``: ask the store instead).

    Files come folder by folder (the store's order), each folder's names in code-point
    order — ``ReadDir``'s byte order, except for names that are not valid UTF-8, which get
    the store's own byte-order sort (:func:`~reasonix_tui.core.store.scan.stat_folder`)."""
    folders: list[tuple[str, str, list[str], list[Any]]] = []
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
        folders.append((os.path.join(folder, ""), scope, names, stats))
    return Listing(folders)


def stat_keys(paths: list[str]) -> list[tuple[int, int, int, int]] | None:
    """The stat key of each path now (``None`` when one cannot be read)."""
    out = []
    for p in paths:
        try:
            out.append(stat_key(os.stat(p, follow_symlinks=False)))
        except OSError:
            return None
    return out

"""The fact files of a store's two folders as one ``stat`` each: what the on-disk indexes
are validated against (no file is opened, nothing is parsed)."""

from __future__ import annotations

import os
import stat as stat_mod
from dataclasses import dataclass
from functools import partial
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from ..store.cache import stat_key
from ..store.index_md import INDEX_NAME

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["Listing", "list_fact_files", "stat_keys"]


@dataclass
class Listing:
    """The fact files of both folders now: paths in the store's scan order, their scopes
    and stat keys (``None`` when a file needs the store's full rules: a symlink, an
    unreadable entry, a folder that is not a directory)."""

    paths: list[str]
    scopes: list[str]
    keys: list[tuple[int, int, int, int]]


_REG = stat_mod.S_IFREG
_DIR = stat_mod.S_IFDIR
_FMT = 0o170000
_KEY = attrgetter("st_size", "st_mtime_ns", "st_ino", "st_ctime_ns")
_MODE = attrgetter("st_mode")
_OPEN_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _sorted_names(names: list[str]) -> list[str]:
    try:
        "".join(names).encode("utf-8")
        names.sort()
    except UnicodeEncodeError:
        names.sort(key=lambda n: n.encode("utf-8", "surrogateescape"))
    return names


def _folder(directory: str) -> tuple[list[str], list[Any]] | None:
    """The fact files' names of one folder (sorted) and their ``lstat``: the names read
    from the open folder and each ``stat`` relative to it (no ``DirEntry`` per name, no
    path walk per file, no Python frame per file). ``None``: no such folder; any other
    failure (a file gone between the listing and its ``stat`` included) raises."""
    if not (os.stat in os.supports_dir_fd and os.listdir in os.supports_fd):
        try:
            listed = os.listdir(directory)
        except FileNotFoundError:
            return None
        names = _sorted_names([n for n in listed if n.endswith(".md") and n != INDEX_NAME])
        return names, [os.stat(os.path.join(directory, n), follow_symlinks=False) for n in names]
    try:
        fd = os.open(directory, _OPEN_DIR)
    except FileNotFoundError:
        return None
    try:
        names = _sorted_names([n for n in os.listdir(fd) if n.endswith(".md") and n != INDEX_NAME])
        return names, list(map(partial(os.stat, dir_fd=fd, follow_symlinks=False), names))
    finally:
        os.close(fd)


def list_fact_files(store: Store) -> Listing | None:
    """One ``stat`` per fact file, no open, no parse (``None``: ask the store instead).

    Files come folder by folder (the store's order), each folder's names in code-point
    order — ``ReadDir``'s byte order, except for names that are not valid UTF-8, which get
    the store's own byte-order sort."""
    paths: list[str] = []
    scopes: list[str] = []
    keys: list[tuple[int, int, int, int]] = []
    for scope, directory in store._dirs():  # noqa: SLF001
        folder = os.fspath(directory)
        try:
            got = _folder(folder)
        except OSError:
            return None
        if got is None:
            continue
        names, stats = got
        if any(m & _FMT != _REG for m in map(_MODE, stats)):
            kept = []
            for name, st in zip(names, stats):
                if st.st_mode & _FMT == _REG:
                    kept.append((name, st))
                elif st.st_mode & _FMT != _DIR:
                    return None  # a symlink or a special file: the store's own rules decide
            names, stats = [n for n, _s in kept], [s for _n, s in kept]
        prefix = os.path.join(folder, "")
        paths.extend([prefix + n for n in names])
        keys.extend(map(_KEY, stats))
        scopes.extend([scope] * len(names))
    return Listing(paths, scopes, keys)


def stat_keys(paths: list[str]) -> list[tuple[int, int, int, int]] | None:
    """The stat key of each path now (``None`` when one cannot be read)."""
    out = []
    for p in paths:
        try:
            out.append(stat_key(os.stat(p, follow_symlinks=False)))
        except OSError:
            return None
    return out

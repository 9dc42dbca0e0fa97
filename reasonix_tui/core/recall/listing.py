"""The fact files of a store's two folders as one ``stat`` each: what the on-disk indexes
are validated against (no file is opened, nothing is parsed)."""

from __future__ import annotations

import os
import stat as stat_mod
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

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
_NAME = attrgetter("name")


def list_fact_files(store: Store) -> Listing | None:
    """One ``stat`` per fact file, no open, no parse (``None``: ask the store instead).

    Files come folder by folder (the store's order), each folder's names in code-point
    order — ``ReadDir``'s byte order, except for names that are not valid UTF-8, which get
    the store's own byte-order sort."""
    paths: list[str] = []
    scopes: list[str] = []
    keys: list[tuple[int, int, int, int]] = []
    add_path, add_key = paths.append, keys.append
    for scope, directory in store._dirs():  # noqa: SLF001
        try:
            with os.scandir(directory) as it:
                found = [e for e in it if e.name.endswith(".md") and e.name != INDEX_NAME]
        except FileNotFoundError:
            continue
        except OSError:
            return None
        try:
            "".join([e.name for e in found]).encode("utf-8")
            found.sort(key=_NAME)
        except UnicodeEncodeError:
            found.sort(key=lambda e: e.name.encode("utf-8", "surrogateescape"))
        before = len(paths)
        for entry in found:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return None
            if st.st_mode & _FMT != _REG:
                if st.st_mode & _FMT == _DIR:
                    continue
                return None  # a symlink or a special file: the store's own rules decide
            add_path(entry.path)
            add_key((st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns))
        scopes.extend([scope] * (len(paths) - before))
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

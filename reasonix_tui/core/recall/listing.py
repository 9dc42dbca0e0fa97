"""The fact files of a store's two folders as one ``stat`` each: what the on-disk indexes
are validated against (no file is opened, nothing is parsed)."""

from __future__ import annotations

import os
import stat as stat_mod
from dataclasses import dataclass
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


def list_fact_files(store: Store) -> Listing | None:
    """One ``stat`` per fact file, no open, no parse (``None``: ask the store instead).

    Files come folder by folder (the store's order), each folder's names in code-point
    order — ``ReadDir``'s byte order, except for names that are not valid UTF-8, which get
    the store's own byte-order sort."""
    paths: list[str] = []
    scopes: list[str] = []
    keys: list[tuple[int, int, int, int]] = []
    for scope, directory in store._dirs():  # noqa: SLF001
        try:
            with os.scandir(directory) as it:
                found = [(e.name, e) for e in it if e.name.endswith(".md") and e.name != INDEX_NAME]
        except FileNotFoundError:
            continue
        except OSError:
            return None
        try:
            "".join(n for n, _e in found).encode("utf-8")
            found.sort(key=lambda ne: ne[0])
        except UnicodeEncodeError:
            found.sort(key=lambda ne: ne[0].encode("utf-8", "surrogateescape"))
        for _name, entry in found:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return None
            kind = st.st_mode & _FMT
            if kind != _REG:
                if kind == _DIR:
                    continue
                return None  # a symlink or a special file: the store's own rules decide
            paths.append(entry.path)
            scopes.append(scope)
            keys.append((st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns))
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

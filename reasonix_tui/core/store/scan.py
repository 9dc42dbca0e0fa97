"""The active-fact scan of a store directory (spec §1.4) and reading one fact file, through the parse cache."""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Iterator
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from ..compat.gotime import Timestamp
from . import index_md, safeio
from .cache import ParseCache, stat_key
from .fileformat import parse_fact_bytes
from .model import Fact

__all__ = ["FactEntry", "scan_fact_entries", "fact_entries", "read_fact_file", "read_through", "fact_file_problem"]


@dataclass(frozen=True, slots=True)
class FactEntry:
    """One candidate fact file of a store directory (or why it cannot be one)."""

    path: str
    """The file (``<dir>/<name>.md``)."""
    stat: os.stat_result | None
    """Its stat (following an in-store symlink); ``None`` with an error."""
    error: str = ""
    """Why it is listed but not readable as a fact (shown as an error row)."""


def scan_fact_entries(scope: str, directory: Path | str) -> Iterator[FactEntry]:
    """The active-fact scan of spec §1.4 in ``ReadDir`` (byte) order.

    ``*.md`` entries other than ``MEMORY.md`` that are not directories; subdirectories
    are never entered. Beyond Reasonix, a symlink whose target leaves the store is
    reported instead of read. The one definition of which files are facts, used by the
    store and the Context Center alike.
    """
    for path, _name, st, error in fact_entries(directory):
        yield FactEntry(path, st, error)


def fact_entries(directory: Path | str) -> Iterator[tuple[str, str, os.stat_result | None, str]]:
    """:func:`scan_fact_entries` as plain ``(path, file name, stat, error)`` rows (the
    store's load makes one per fact file)."""
    directory = str(directory)
    try:
        entries = _byte_order(list(os.scandir(directory)))
    except FileNotFoundError:
        return
    except NotADirectoryError:
        yield directory, "", None, "store path is not a directory"
        return
    except OSError as exc:
        yield directory, "", None, f"cannot list directory: {exc.strerror or exc}"
        return
    real_dir: str | None = None
    for entry in entries:
        name = entry.name
        if not name.endswith(".md") or name == index_md.INDEX_NAME:
            continue
        path = entry.path
        try:
            if entry.is_dir(follow_symlinks=False):
                continue
            if entry.is_symlink():
                real_dir = real_dir or os.path.realpath(directory)
                target = os.path.realpath(path)
                if os.path.dirname(target) != real_dir and not target.startswith(real_dir + os.sep):
                    yield path, name, None, f"symlink points outside the store ({target}); not loaded"
                    continue
                st = os.stat(path)
            else:
                st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            yield path, name, None, f"cannot read: {exc.strerror or exc}"
            continue
        if not stat_mod.S_ISREG(st.st_mode):
            yield path, name, None, "not a regular file"
            continue
        yield path, name, st, ""


def _byte_order(entries: list[os.DirEntry[str]]) -> list[os.DirEntry[str]]:
    """Entries sorted by the bytes of their names. Code-point order is UTF-8 byte order, so
    names that are all valid UTF-8 sort as strings; a name with undecodable bytes (kept as
    lone surrogates) needs its bytes."""
    try:
        "".join(e.name for e in entries).encode("utf-8")
    except UnicodeEncodeError:
        entries.sort(key=lambda e: e.name.encode("utf-8", "surrogateescape"))
    else:
        entries.sort(key=_NAME)
    return entries


_NAME = attrgetter("name")


def read_fact_file(path: str, scope: str, st: os.stat_result | None = None) -> Fact:
    """Read and parse one fact file of a ``scope`` directory (``OSError`` when unreadable)."""
    fd = safeio.open_regular(path)  # never blocks: a FIFO named like a fact is refused
    try:
        if st is None:
            st = os.fstat(fd)
        data = safeio.read_fd(fd)
    finally:
        os.close(fd)
    return parse_fact_bytes(data, path=path, dir_scope=scope, mtime=Timestamp(st.st_mtime_ns))


def read_through(cache: ParseCache | None, path: str, scope: str, st: os.stat_result, name: str = "") -> Fact:
    """One fact file of a ``scope`` directory through that directory's parse cache: the
    cached fact when the cache holds this version of the file (stat key) for this scope,
    else read, parsed and remembered. ``OSError`` when the file cannot be read. ``name``:
    the file's name when the caller has it (else taken from ``path``)."""
    name = name or os.path.basename(path)
    key = stat_key(st)
    fact = cache.get(name, key) if cache is not None else None
    if fact is None or fact.scope != (fact.file_scope or scope):
        fact = read_fact_file(path, scope, st)
        if cache is not None:
            cache.put(name, key, fact)
    return fact


def fact_file_problem(fact: Fact) -> str:
    """What a person should know about a fact file that was read, or ``""``."""
    if fact.parse_error:
        return f"frontmatter could not be parsed: {fact.parse_error}"
    if fact.encoding == "lossy-utf-8":
        return "file is not valid UTF-8/UTF-16/GB18030; shown with replacement characters"
    return ""

"""The active-fact scan of a store directory (spec §1.4) and reading one fact file, through the parse cache."""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from ..compat.gotime import Timestamp
from . import index_md, safeio
from .cache import ParseCache, stat_key
from .fileformat import parse_fact_bytes
from .fsflags import O_CLOEXEC, O_DIRECTORY
from .model import Fact

__all__ = [
    "FactEntry",
    "scan_fact_entries",
    "fact_entries",
    "listings_kept",
    "read_fact_file",
    "read_through",
    "read_dir_through",
    "fact_file_problem",
]


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


_LISTED: ContextVar[dict[str, list[tuple[str, str, os.stat_result | None, str]]] | None] = ContextVar(
    "reasonix_listed", default=None
)


@contextmanager
def listings_kept() -> Iterator[None]:
    """Within the block, each directory is listed (and its files stat'ed) once by
    :func:`fact_entries`: a one-shot command that digests the store's file stats and then
    loads the store (``memory health``: the last report's validation key, then the
    snapshot) reads the 10k stats of a big store once, and loads exactly the listing its
    key was made from. Nested blocks share the outer one's listings."""
    if _LISTED.get() is not None:
        yield
        return
    token = _LISTED.set({})
    try:
        yield
    finally:
        _LISTED.reset(token)


def fact_entries(directory: Path | str) -> Iterator[tuple[str, str, os.stat_result | None, str]]:
    """:func:`scan_fact_entries` as plain ``(path, file name, stat, error)`` rows (the
    store's load makes one per fact file); inside :func:`listings_kept` a directory
    listed before gives the same rows again."""
    listed = _LISTED.get()
    if listed is None:
        return _fact_entries(directory)
    rows = listed.get(str(directory))
    if rows is None:
        rows = listed[str(directory)] = list(_fact_entries(directory))
    return iter(rows)


def _fact_entries(directory: Path | str) -> Iterator[tuple[str, str, os.stat_result | None, str]]:
    """:func:`fact_entries` itself.

    Where the platform allows, the folder is listed through a descriptor, so each file's
    ``stat`` is taken relative to it (``fstatat``: the kernel does not walk the whole path
    again for every file; the stats are a fifth of a cached load); the answers are the same."""
    directory = str(directory)
    dir_fd = -1
    try:
        if _LIST_BY_FD:
            dir_fd = os.open(directory, _DIR_FLAGS)
            entries = _byte_order(list(os.scandir(dir_fd)))
        else:
            entries = _byte_order(list(os.scandir(directory)))
    except FileNotFoundError:
        _close(dir_fd)
        return
    except NotADirectoryError:
        _close(dir_fd)
        yield directory, "", None, "store path is not a directory"
        return
    except OSError as exc:
        _close(dir_fd)
        yield directory, "", None, f"cannot list directory: {exc.strerror or exc}"
        return
    prefix = directory if directory.endswith(os.sep) else directory + os.sep
    try:
        real_dir: str | None = None
        for entry in entries:
            name = entry.name
            if not name.endswith(".md") or name == index_md.INDEX_NAME:
                continue
            path = prefix + name
            try:
                if entry.is_file(follow_symlinks=False):  # the common case: no symlink, no folder
                    st = entry.stat(follow_symlinks=False)
                elif entry.is_dir(follow_symlinks=False):
                    continue
                elif entry.is_symlink():
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
            if st.st_mode & _S_IFMT != _S_IFREG:
                yield path, name, None, "not a regular file"
                continue
            yield path, name, st, ""
    finally:
        _close(dir_fd)


_LIST_BY_FD = os.name == "posix" and os.scandir in os.supports_fd and os.stat in os.supports_dir_fd
"""Folders are listed through a descriptor and their files' ``stat`` taken relative to it."""
_DIR_FLAGS = os.O_RDONLY | O_DIRECTORY | O_CLOEXEC
_S_IFMT, _S_IFREG = stat_mod.S_IFMT(0o777777), stat_mod.S_IFREG


def _close(fd: int) -> None:
    if fd >= 0:
        os.close(fd)


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


def read_dir_through(
    cache: ParseCache | None, scope: str, directory: Path | str
) -> tuple[list[Fact], list[tuple[str, str]], set[str]]:
    """Every fact file of a ``scope`` directory (:func:`fact_entries`) through its parse
    cache (:func:`read_through`), in ``ReadDir`` order: the facts, ``(path, problem)`` for
    each file listed but not loaded or loaded with a problem (:func:`fact_file_problem`),
    in the same order, and the names of the files found. A store load makes one call per
    directory, so a cache hit is checked here, in line, not through a call per file."""
    facts: list[Fact] = []
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    cached = cache.loaded() if cache is not None else {}
    found, add = seen.add, facts.append
    for path, name, st, error in fact_entries(directory):
        if st is None:
            problems.append((path, error))
            continue
        found(name)
        hit = cached.get(name)
        if (
            hit is None
            or hit[0] != (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)  # stat_key(st)
            or (fact := hit[1]).scope != (fact.file_scope or scope)
        ):
            try:
                fact = read_through(cache, path, scope, st, name)
            except OSError as exc:
                problems.append((path, f"cannot read: {exc.strerror or exc}"))
                continue
        add(fact)
        problem = fact_file_problem(fact)
        if problem:
            problems.append((path, problem))
    return facts, problems, seen


def fact_file_problem(fact: Fact) -> str:
    """What a person should know about a fact file that was read, or ``""``."""
    if fact.parse_error:
        return f"frontmatter could not be parsed: {fact.parse_error}"
    if fact.encoding == "lossy-utf-8":
        return "file is not valid UTF-8/UTF-16/GB18030; shown with replacement characters"
    return ""

"""The active-fact scan of a store directory (spec §1.4) and reading one fact file, through the parse cache."""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
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
    "stat_folder",
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
    """:func:`fact_entries` itself. The folder is listed and each name's ``lstat`` taken by
    :func:`stat_folder`; a symlink is followed only when it stays in the store."""
    directory = str(directory)
    try:
        names, stats, _failed = stat_folder(directory)
    except FileNotFoundError:
        return
    except NotADirectoryError:
        yield directory, "", None, "store path is not a directory"
        return
    except OSError as exc:
        yield directory, "", None, f"cannot list directory: {exc.strerror or exc}"
        return
    prefix = directory if directory.endswith(os.sep) else directory + os.sep
    real_dir: str | None = None
    for name, st in zip(names, stats):
        path = prefix + name
        if isinstance(st, OSError):
            yield path, name, None, f"cannot read: {st.strerror or st}"
            continue
        kind = st.st_mode & _S_IFMT
        if kind == _S_IFDIR:
            continue
        if kind == _S_IFLNK:
            real_dir = real_dir or os.path.realpath(directory)
            target = os.path.realpath(path)
            if os.path.dirname(target) != real_dir and not target.startswith(real_dir + os.sep):
                yield path, name, None, f"symlink points outside the store ({target}); not loaded"
                continue
            try:
                st = os.stat(path)
            except OSError as exc:
                yield path, name, None, f"cannot read: {exc.strerror or exc}"
                continue
            kind = st.st_mode & _S_IFMT
        if kind != _S_IFREG:
            yield path, name, None, "not a regular file"
            continue
        yield path, name, st, ""


def stat_folder(directory: str) -> tuple[list[str], list[os.stat_result | OSError], bool]:
    """The fact-file names of one folder (``*.md`` but ``MEMORY.md``), in ``ReadDir`` byte
    order, and each one's ``lstat`` — or the ``OSError`` it raised (a file gone between the
    listing and its ``stat``); the last value says whether any did. Raises the ``OSError``
    of a folder that cannot be listed (``FileNotFoundError`` when there is none).

    The one listing of a fact folder, shared by the store's scan and the on-disk indexes'
    check (:mod:`~reasonix_tui.core.recall.listing`). Where the platform allows, the names
    are read from the open folder and each ``stat`` is taken relative to it (``fstatat``:
    no path walk per file), all in one C-level ``map`` (no ``DirEntry`` and no Python frame
    per name); a failure sends that folder through a loop that keeps each file's error."""
    if _LIST_BY_FD and os.stat in os.supports_dir_fd:
        fd = os.open(directory, _DIR_FLAGS)
        try:
            names = _byte_order([n for n in os.listdir(fd) if n.endswith(".md") and n != index_md.INDEX_NAME])
            look = partial(os.stat, dir_fd=fd, follow_symlinks=False)
            try:
                return names, list(map(look, names)), False
            except OSError:
                return names, *_one_by_one(look, names)
        finally:
            os.close(fd)
    names = _byte_order([n for n in os.listdir(directory) if n.endswith(".md") and n != index_md.INDEX_NAME])
    prefix = os.path.join(directory, "")
    return names, *_one_by_one(lambda n: os.stat(prefix + n, follow_symlinks=False), names)


def _one_by_one(look: Callable[[str], os.stat_result], names: list[str]) -> tuple[list[os.stat_result | OSError], bool]:
    stats: list[os.stat_result | OSError] = []
    failed = False
    for name in names:
        try:
            stats.append(look(name))
        except OSError as exc:
            stats.append(exc)
            failed = True
    return stats, failed


_LIST_BY_FD = os.name == "posix" and os.listdir in os.supports_fd
"""Folders are listed through a descriptor and their files' ``stat`` taken relative to it."""
_DIR_FLAGS = os.O_RDONLY | O_DIRECTORY | O_CLOEXEC
_S_IFMT = stat_mod.S_IFMT(0o777777)
_S_IFREG, _S_IFDIR, _S_IFLNK = stat_mod.S_IFREG, stat_mod.S_IFDIR, stat_mod.S_IFLNK


def _byte_order(names: list[str]) -> list[str]:
    """Names sorted by their bytes. Code-point order is UTF-8 byte order, so names that are
    all valid UTF-8 sort as strings; a name with undecodable bytes (kept as lone
    surrogates) needs its bytes."""
    try:
        "".join(names).encode("utf-8")
    except UnicodeEncodeError:
        names.sort(key=lambda n: n.encode("utf-8", "surrogateescape"))
    else:
        names.sort()
    return names


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

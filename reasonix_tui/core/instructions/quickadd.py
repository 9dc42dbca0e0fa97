"""Quick-add notes: append a one-line note to a standing instruction document.

Spec: store-format §10.1 (Reasonix ``quickadd.go`` ``AppendDoc`` and ``Set.DocPath``). This is
what Reasonix's ``# <note>`` and ``/remember <note>`` do: it edits the instruction file, not
the fact store.

* :func:`doc_path` picks the file: the state root for ``user``, the workspace for ``project``
  (and anything else), the workspace with the ``.local.md`` names for ``local``; the first of
  the three names that exists, else ``AGENTS.md`` / ``AGENTS.local.md``.
* :func:`append_doc` one-lines the note, refuses to write through a final-component symlink,
  creates the parent directory, reads the file (a read failure is an error, never "empty"),
  inserts ``- <note>`` (new file, existing ``## Notes`` section, or a new section at the end)
  and publishes the result atomically with mode 0644.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..compat.encoding import decode_bytes
from ..compat.gostr import go_quote, one_line, trim_space
from ..store.atomic import atomic_write
from ..store.model import InvalidInput, StoreError
from .documents import DOCUMENT_NAMES, LOCAL_DOCUMENT_NAMES

if TYPE_CHECKING:
    from ..paths import Layout

__all__ = [
    "QUICK_ADD_HEADING",
    "NOTE_SCOPES",
    "AppendResult",
    "QuickAddError",
    "doc_path",
    "append_doc",
    "insert_note",
    "check_scope",
]

QUICK_ADD_HEADING = "## Notes"
"""The section quick-added notes accumulate under."""
NOTE_SCOPES = ("project", "local", "user")
"""Scopes a note can target."""
DEFAULT_DOC_NAME = "AGENTS.md"
DEFAULT_LOCAL_DOC_NAME = "AGENTS.local.md"

_LOCK = threading.Lock()


class QuickAddError(StoreError):
    """The note could not be written (symlink destination, unreadable file, write failure)."""


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What :func:`append_doc` did."""

    path: str
    """The document written (or that would have been written)."""
    note: str
    """The one-lined note ("" when the note was empty and nothing happened)."""
    created: bool
    """The file did not exist before."""
    appended: bool
    """False only for an empty note (nothing written)."""
    placement: str
    """``new-document`` (file was empty or missing), ``notes-section`` (added to the existing
    ``## Notes`` section), ``new-section`` (a ``## Notes`` section was added at the end),
    ``end`` (the text mentions ``## Notes`` but no line is exactly that heading: appended at
    the end, as Reasonix does) or ``none``."""


def doc_path(scope: str, layout: Layout) -> str:
    """Reasonix ``Set.DocPath``: the instruction file a note of ``scope`` goes to."""
    names: tuple[str, ...] = DOCUMENT_NAMES
    default = DEFAULT_DOC_NAME
    directory = str(layout.workspace)
    if scope == "user":
        directory = str(layout.root)
    elif scope == "local":
        names, default = LOCAL_DOCUMENT_NAMES, DEFAULT_LOCAL_DOC_NAME
    for name in names:
        path = os.path.join(directory, name)
        if os.path.exists(path):  # os.Stat: follows symlinks
            return path
    return os.path.join(directory, default)


def insert_note(body: str, bullet: str) -> tuple[str, str]:
    """The new document text and the placement (see :attr:`AppendResult.placement`)."""
    if trim_space(body) == "":
        return f"# Project memory\n\n{QUICK_ADD_HEADING}\n\n{bullet}\n", "new-document"
    if QUICK_ADD_HEADING in body:
        lines = body.split("\n")
        start = next((i for i, line in enumerate(lines) if trim_space(line) == QUICK_ADD_HEADING), -1)
        if start < 0:
            return body.rstrip("\n") + "\n\n" + bullet + "\n", "end"
        end = len(lines)
        for i in range(start + 1, len(lines)):
            if trim_space(lines[i]).startswith("#"):
                end = i
                break
        insert = end
        while insert > start + 1 and trim_space(lines[insert - 1]) == "":
            insert -= 1
        return "\n".join(lines[:insert] + [bullet] + lines[insert:]), "notes-section"
    return body.rstrip("\n") + f"\n\n{QUICK_ADD_HEADING}\n\n{bullet}\n", "new-section"


def _go_error(op: str, path: str, exc: OSError) -> str:
    reason = exc.strerror.lower() if exc.strerror else str(exc)
    return f"{op} {path}: {reason}"


def _lstat(path: str) -> os.stat_result | None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise QuickAddError(_go_error("lstat", path, exc)) from exc
    if stat.S_ISLNK(info.st_mode):
        raise QuickAddError(f"refusing to write {go_quote(path)} through a symlink")
    return info


def _read_existing(path: str, expected: os.stat_result) -> str:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise QuickAddError(f"refusing to write {go_quote(path)} through a symlink") from exc
        raise QuickAddError(f"read {go_quote(path)} before appending: {_go_error('open', path, exc)}") from exc
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (expected.st_dev, expected.st_ino):
            raise QuickAddError(f"memory destination changed while opening {go_quote(path)}")
        chunks = []
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError as exc:
                raise QuickAddError(f"read {go_quote(path)} before appending: {_go_error('read', path, exc)}") from exc
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
    return decode_bytes(b"".join(chunks)).text


def append_doc(
    path: str | os.PathLike[str], note: str, lock_path: str | os.PathLike[str] | None = None
) -> AppendResult:
    """Reasonix ``AppendDoc``: add ``- <note>`` to the instruction document at ``path``.

    Raises :class:`QuickAddError` for a symlink destination (``refusing to write "<path>"
    through a symlink``), an unreadable existing file (``read "<path>" before appending: …``)
    and write failures; the file is then left untouched. ``lock_path`` optionally names a
    lock file held around the read-modify-write so concurrent processes don't lose notes
    (writes inside one process are always serialised).
    """
    target = os.fspath(path)
    text = one_line(note)
    if text == "":
        return AppendResult(target, "", False, False, "none")
    if lock_path is not None:
        from filelock import FileLock

        os.makedirs(os.path.dirname(os.fspath(lock_path)) or ".", exist_ok=True)
        outer: AbstractContextManager[object] = FileLock(os.fspath(lock_path))
    else:
        outer = nullcontext()
    with _LOCK, outer:
        _lstat(target)
        parent = os.path.dirname(target)
        if parent:
            try:
                os.makedirs(parent, mode=0o755, exist_ok=True)
            except OSError as exc:
                raise QuickAddError(_go_error("mkdir", parent, exc)) from exc
        info = _lstat(target)
        body = "" if info is None else _read_existing(target, info)
        out, placement = insert_note(body, "- " + text)
        try:
            atomic_write(target, out.encode("utf-8"), 0o644)
        except OSError as exc:
            raise QuickAddError(f"write {go_quote(target)}: {_go_error('write', target, exc)}") from exc
    return AppendResult(target, text, info is None, True, placement)


def check_scope(scope: str) -> str:
    """Validate a note scope (``project``, ``local`` or ``user``)."""
    if scope not in NOTE_SCOPES:
        raise InvalidInput(f"unknown note scope {scope!r} (want project, local or user)")
    return scope

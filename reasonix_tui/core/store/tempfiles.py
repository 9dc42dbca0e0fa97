"""Temporary files of atomic writes: ``.atomic-<pid>-<hex>.tmp`` in the target's folder.

A name carries the writer's process id, so a file left by a process that died is known
stale (:func:`is_stale_temp`; :func:`~.safeio.sweep_temps` removes them). A temporary file
is created 0600, exclusively and never through a symlink, filled, optionally synced, then
given its mode (:func:`prepare_temp`; :func:`plain_temp` where folder-relative calls are
missing).
"""

from __future__ import annotations

import errno
import os
import secrets
import time

from .fsflags import O_BINARY, O_CLOEXEC, O_NOFOLLOW

__all__ = [
    "TEMP_PREFIX",
    "TEMP_SUFFIX",
    "pid_alive",
    "temp_name",
    "is_stale_temp",
    "prepare_temp",
    "plain_temp",
]


TEMP_PREFIX = ".atomic-"
TEMP_SUFFIX = ".tmp"
STALE_FOREIGN_TEMP_SECONDS = 15 * 60
"""A temporary file without our pid tag (Reasonix's own) is stale after this long."""
STALE_TEMP_SECONDS = 24 * 3600
"""Even with a live pid (a reused one) a temporary file this old is stale."""


def pid_alive(pid: int) -> bool:
    """True when a process with this id exists on this host (one of another user counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def temp_name() -> str:
    """A fresh temporary file name tagged with this process's id."""
    return f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(6)}{TEMP_SUFFIX}"


def _temp_owner(name: str) -> int | None:
    """The pid tagged in one of our temp names; ``None`` for a foreign one."""
    core = name[len(TEMP_PREFIX) : -len(TEMP_SUFFIX)]
    head, sep, _ = core.partition("-")
    return int(head) if sep and head.isdigit() else None


def is_stale_temp(name: str, st: os.stat_result, now: float | None = None) -> bool:
    """True for a temporary file nobody is writing any more."""
    if not (name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)):
        return False
    age = (time.time() if now is None else now) - st.st_mtime
    owner = _temp_owner(name)
    if owner is None:
        return age > STALE_FOREIGN_TEMP_SECONDS
    if owner == os.getpid():
        return False
    return not pid_alive(owner) or age > STALE_TEMP_SECONDS


def _new_temp(dfd: int, wanted: str = "") -> tuple[int, str]:
    if wanted:
        return os.open(wanted, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600, dir_fd=dfd), wanted
    for _ in range(100):
        name = temp_name()
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600, dir_fd=dfd)
        except FileExistsError:
            continue
        return fd, name
    raise OSError(errno.EEXIST, "could not create a temporary file")


def _fill(fd: int, data: bytes, mode: int, durable: bool) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
    if durable:
        os.fsync(fd)
    os.fchmod(fd, mode)


def prepare_temp(dfd: int, data: bytes, mode: int, durable: bool = True, name: str = "") -> str:
    """Write ``data`` to a new temporary file in the folder ``dfd`` (named ``name`` when
    given, which must not exist); its name."""
    fd, name = _new_temp(dfd, name)
    try:
        _fill(fd, data, mode, durable)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(name, dir_fd=dfd)
        except OSError:
            pass
        raise
    os.close(fd)
    return name


def plain_temp(directory: str, payload: bytes, mode: int, durable: bool) -> str:
    """:func:`prepare_temp` by path, where folder-relative calls are missing; its path."""
    for _ in range(100):
        name = os.path.join(directory, temp_name())
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY | O_CLOEXEC, 0o600)
        except FileExistsError:
            continue
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(name)
            raise
        os.close(fd)
        os.chmod(name, mode)
        return name
    raise OSError(errno.EEXIST, "could not create a temporary file", directory)

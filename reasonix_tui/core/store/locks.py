"""Cross-process locks: a file lock never taken through a symlink (:func:`hold_lock`) and
the store's lock, one per state root per process (a thread lock plus the file lock)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import safeio
from .fsflags import DIRFD, O_CLOEXEC, O_NOFOLLOW, O_NONBLOCK
from .model import StoreError

__all__ = ["RootLock", "root_lock", "hold_lock", "open_lock_fd", "acquire_fd_lock"]


class RootLock:
    """One per state root per process: a thread RLock plus the cross-process file lock
    (``flock`` on a descriptor opened without following a symlink; a FIFO or symlink
    planted at ``store.lock`` is refused, never opened or truncated)."""

    def __init__(self, path: str) -> None:
        self.rlock = threading.RLock()
        self.path = path
        self.depth = 0
        self._fd: int | None = None

    @contextmanager
    def hold(self) -> Iterator[None]:
        with self.rlock:
            if self.depth == 0:
                try:
                    fd = open_lock_fd(self.path)
                except OSError as exc:
                    raise StoreError(f"cannot lock the store ({self.path}): {exc.strerror or exc}") from None
                try:
                    acquire_fd_lock(fd, self.path)
                except BaseException:
                    os.close(fd)
                    raise
                self._fd = fd
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
                if self.depth == 0 and self._fd is not None:
                    fd, self._fd = self._fd, None
                    os.close(fd)  # releases the flock


_ROOT_LOCKS: dict[str, RootLock] = {}


_ROOT_LOCKS_GUARD = threading.Lock()


def root_lock(path: Path) -> RootLock:
    """The lock of the state root whose lock file is ``path`` (one per root per process)."""
    key = os.path.abspath(path)
    with _ROOT_LOCKS_GUARD:
        lock = _ROOT_LOCKS.get(key)
        if lock is None:
            lock = _ROOT_LOCKS[key] = RootLock(key)
        return lock


@contextmanager
def hold_lock(path: str | os.PathLike[str], timeout: float | None = None) -> Iterator[None]:
    """An exclusive cross-process lock on ``path`` (created 0600, never through a symlink).

    POSIX: ``flock`` on a descriptor opened with ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO or a
    symlink planted at the lock's name is refused, never truncated). ``timeout`` seconds
    (``None``: wait) then :class:`TimeoutError`.
    """
    fd = open_lock_fd(path)
    try:
        acquire_fd_lock(fd, path, timeout)
        yield
    finally:
        os.close(fd)  # closing releases the flock


def open_lock_fd(path: str | os.PathLike[str]) -> int:
    """The descriptor :func:`hold_lock` locks (a regular file, created 0600)."""
    p = os.fspath(path)
    flags = os.O_RDWR | os.O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
    if DIRFD and safeio.root_of(p) is not None:
        with safeio.open_parent(p) as (dfd, name):
            fd = safeio.open_append(name, flags, 0o600, p, dfd)
    else:
        os.makedirs(os.path.dirname(os.path.abspath(p)), mode=0o700, exist_ok=True)
        fd = safeio.open_append(p, flags, 0o600, p, None)
    safeio.regular_stat(fd, p)
    return fd


def acquire_fd_lock(fd: int, path: str | os.PathLike[str], timeout: float | None = None) -> None:
    """``flock(LOCK_EX)`` on ``fd``, polling when ``timeout`` is given."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: msvcrt byte-range lock
        import msvcrt

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]  # Windows only
                return
            except OSError:
                if deadline is not None and time.monotonic() >= deadline:
                    raise TimeoutError(f"could not lock {os.fspath(path)}") from None
                time.sleep(0.02)
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"could not lock {os.fspath(path)} within {timeout:g}s") from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

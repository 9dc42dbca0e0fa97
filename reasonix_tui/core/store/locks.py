"""The store's lock: one per state root per process, a thread lock plus the cross-process file lock."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import safeio
from .model import StoreError

__all__ = ["RootLock", "root_lock"]


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
                    fd = safeio.open_lock_fd(self.path)
                except OSError as exc:
                    raise StoreError(f"cannot lock the store ({self.path}): {exc.strerror or exc}") from None
                try:
                    safeio.acquire_fd_lock(fd, self.path)
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

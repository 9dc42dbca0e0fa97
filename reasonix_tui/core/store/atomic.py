"""Atomic file writes as Reasonix does them (spec §10.2), confined to the state root.

* :func:`atomic_write`: temp file ``.atomic-*.tmp`` in the target's directory, write,
  fsync, chmod, then ``os.replace``. The ``.tmp`` suffix keeps directory scans from ever
  seeing a half-written fact.
* :func:`atomic_create`: the same temp file, then a hard link: fails with
  :class:`FileExistsError` when the target exists (create-only writes).

Both go through :mod:`.safeio`: under a registered state root the folder is opened one
component at a time without following symlinks (a planted symlinked folder raises
:class:`~.safeio.EscapesRoot`), folders are created 0700, and stale temporary files of
dead processes are removed by the next writer.
"""

from __future__ import annotations

import os

from . import safeio

__all__ = ["atomic_write", "atomic_create", "ensure_dir", "read_bytes"]


def ensure_dir(path: str | os.PathLike[str], mode: int = 0o700) -> None:
    """``mkdir -p`` (0700, never through a symlinked folder inside a state root)."""
    safeio.make_dirs(path, mode)


def atomic_write(target: str | os.PathLike[str], data: bytes | str, mode: int = 0o644, durable: bool = True) -> None:
    """Replace ``target`` atomically with ``data`` (``durable=False`` skips the fsync: caches)."""
    safeio.write_atomic(target, data, mode, durable)


def atomic_create(target: str | os.PathLike[str], data: bytes | str, mode: int = 0o644) -> None:
    """Create ``target`` with ``data``; :class:`FileExistsError` if it already exists."""
    safeio.create_exclusive(target, data, mode)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a whole regular file (never blocks on a FIFO)."""
    return safeio.read_regular(path)

"""Sealed cache files: ``MAGIC`` + SHA-256 of the payload + a ``marshal`` payload.

Every on-disk cache of the project (the store's parse cache, the recall memo of one-shot
processes, the history cache of ``history search``) uses this envelope: a file that is
torn, tampered with, from another format or unreadable is reported as ``None`` and never
trusted, and writes are atomic with mode 0600 (caches hold the same text as the store).
"""

from __future__ import annotations

import gc
import hashlib
import marshal
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from . import safeio
from .atomic import atomic_write

__all__ = ["seal", "unseal", "read_sealed", "write_sealed", "source_stamp", "resource_stamp", "collector_paused"]

_DIGEST = 32


def seal(magic: bytes, value: Any) -> bytes:
    """``magic`` + SHA-256 + ``marshal.dumps(value)``."""
    payload = marshal.dumps(value, 4)
    return magic + hashlib.sha256(payload).digest() + payload


def unseal(magic: bytes, blob: bytes) -> Any | None:
    """The value sealed in ``blob``, or ``None`` when anything about it is off."""
    head = len(magic) + _DIGEST
    if len(blob) < head or not blob.startswith(magic):
        return None
    payload = memoryview(blob)[head:]  # no copy of a large payload
    if hashlib.sha256(payload).digest() != blob[len(magic) : head]:
        return None
    with collector_paused():
        try:
            return marshal.loads(payload)
        except (EOFError, ValueError, TypeError):
            return None


@contextmanager
def collector_paused(long_lived: bool = False) -> Iterator[None]:
    """The cycle collector off for a block that allocates many small containers at once
    (loading a cache, building thousands of facts): a collection pass in between would walk
    every object already made, and everything else alive, for nothing. Restored after.

    ``long_lived``: the block makes objects that outlive it (a store load's facts). When
    this pause is the outermost one, everything the collector tracks is then moved to its
    oldest generation unexamined (``gc.freeze`` + ``gc.unfreeze``, two list splices): the
    next young collection would otherwise walk every new object once more only to find it
    alive (a tenth of a cached 10k load). A reference cycle dropped just before is then
    freed by the next full collection instead of a young one. Skipped when the process
    keeps objects frozen itself (``gc.get_freeze_count()``): they stay frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if long_lived and not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def read_sealed(path: str | os.PathLike[str], magic: bytes) -> Any | None:
    """:func:`unseal` of a file; ``None`` when it cannot be read either."""
    try:
        blob = safeio.read_regular(path)
    except OSError:
        return None
    return unseal(magic, blob)


def write_sealed(path: str | os.PathLike[str], magic: bytes, value: Any) -> None:
    """Write ``value`` sealed, atomically, mode 0600 (the folder is made 0700 if missing)."""
    atomic_write(path, seal(magic, value), 0o600, durable=False)


@cache
def source_stamp(*paths: str) -> str:
    """A short digest of source files: a cache of derived data names the code that made it
    (a changed tokenizer makes every cached token wrong). Read once per process."""
    digest = hashlib.sha256()
    for path in paths:
        try:
            with open(path, "rb") as fh:
                digest.update(fh.read())
        except OSError:
            digest.update(b"?")
    return digest.hexdigest()[:16]


def resource_stamp(*paths: str) -> str:
    """A short digest of installed data files by path, size and modification time (not
    content: a one-shot process does not read a 4 MB dictionary to name its cache)."""
    digest = hashlib.sha256()
    for path in paths:
        try:
            st = os.stat(path)
            digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
        except OSError:
            digest.update(b"?")
    return digest.hexdigest()[:16]

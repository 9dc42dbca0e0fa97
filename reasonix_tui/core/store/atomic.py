"""Atomic file writes as Reasonix does them (spec §10.2).

* :func:`atomic_write`: temp file ``.atomic-*.tmp`` in the target's directory, write,
  fsync, chmod, then ``os.replace`` (retried when the target is transiently locked).
  The ``.tmp`` suffix keeps directory scans from ever seeing a half-written fact.
* :func:`atomic_create`: the same temp file, then a hard link: fails with
  :class:`FileExistsError` when the target exists (create-only writes).
"""

from __future__ import annotations

import errno
import os
import secrets
import time
from pathlib import Path

__all__ = ["atomic_write", "atomic_create", "ensure_dir"]


def ensure_dir(path: str | os.PathLike[str], mode: int = 0o755) -> None:
    """``mkdir -p`` with Reasonix's modes."""
    os.makedirs(path, mode=mode, exist_ok=True)


def _temp_in(directory: str) -> tuple[int, str]:
    for _ in range(100):
        name = os.path.join(directory, f".atomic-{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        return fd, name
    raise OSError(errno.EEXIST, "could not create a temporary file", directory)


def _write_temp(target: str, data: bytes, mode: int, durable: bool = True) -> str:
    directory = os.path.dirname(os.path.abspath(target)) or "."
    ensure_dir(directory, 0o755 if mode & 0o077 else 0o700)
    fd, tmp = _temp_in(directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), mode)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp


def atomic_write(target: str | os.PathLike[str], data: bytes | str, mode: int = 0o644, durable: bool = True) -> None:
    """Replace ``target`` atomically with ``data`` (``durable=False`` skips the fsync: caches)."""
    target = os.fspath(target)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = _write_temp(target, payload, mode, durable)
    try:
        for attempt in range(13):
            try:
                os.replace(tmp, target)
                return
            except PermissionError:
                if attempt == 12:
                    raise
                time.sleep(0.02 * (attempt + 1))
            except OSError as exc:
                if exc.errno == errno.EXDEV:  # cross-device: fall back to a plain copy
                    with open(target, "wb") as fh:
                        fh.write(payload)
                    os.chmod(target, mode)
                    return
                raise
    finally:
        if os.path.exists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass


def atomic_create(target: str | os.PathLike[str], data: bytes | str, mode: int = 0o644) -> None:
    """Create ``target`` with ``data``; :class:`FileExistsError` if it already exists."""
    target = os.fspath(target)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = _write_temp(target, payload, mode)
    try:
        os.link(tmp, target)
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a whole file."""
    return Path(path).read_bytes()

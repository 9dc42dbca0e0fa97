"""Sectioned sealed files: a small sealed header and raw sections read by offset.

A :mod:`.sealed` file is checked and unpacked whole: at 100k facts the recall index is
176 MB, and a one-shot query paid for all of it (checksum and unpacking) to read a few
posting lists. A sectioned file keeps the same guarantees — magic, SHA-256, versioned by
its writer, written atomically with mode 0600 — but lets a reader take only what it uses:

* ``MAGIC`` + the header's length (8 bytes, little-endian) + SHA-256 of the header + the
  header (``marshal``): the writer's small values, and per section its offset, length and
  the SHA-256 of each :data:`CHUNK` bytes of it;
* the sections follow, each starting on a 64-byte boundary, as raw bytes (numpy arrays'
  buffers, UTF-8 text).

A reader (:func:`open_sectioned`) checks the header and that the file holds every byte the
header names (a torn or truncated file is refused at open); a section, or a byte range of
one, is read with ``pread`` and its chunks' digests are checked before it is handed out.
A chunk that does not match raises :class:`Damaged`: the caller answers without the file
(and it is removed, so the next run writes it again). Nothing is mapped, so a file
replaced or cut short by someone else while it is read gives a :class:`Damaged`, never a
crash.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from .atomic import atomic_write
from .sealed import collector_paused

__all__ = ["CHUNK", "Damaged", "Sectioned", "open_sectioned", "from_blob", "write_sectioned", "sectioned_blob"]

CHUNK = 1 << 16
"""Bytes per checksummed chunk: a posting list read costs at most two chunks' digests more."""
_ALIGN = 64
_DIGEST = 32


class Damaged(Exception):
    """A section's bytes do not match their digest (or could not be read whole)."""


def sectioned_blob(magic: bytes, header: Any, sections: dict[str, bytes]) -> bytes:
    """The whole file: ``magic``, the sealed header (``header`` plus the section table),
    then the sections, each on a 64-byte boundary."""
    table: dict[str, tuple[int, int, bytes]] = {}
    pos = 0
    layout: list[tuple[int, bytes]] = []
    for name, data in sections.items():
        pos = -(-pos // _ALIGN) * _ALIGN
        view = memoryview(data).cast("B")
        digests = b"".join(hashlib.sha256(view[i : i + CHUNK]).digest() for i in range(0, len(view), CHUNK))
        table[name] = (pos, len(view), digests)
        layout.append((pos, data))
        pos += len(view)
    head = marshal.dumps((header, table, pos), 4)
    start = len(magic) + 8 + _DIGEST + len(head)
    base = -(-start // _ALIGN) * _ALIGN
    out = bytearray(base + pos)
    out[: len(magic)] = magic
    out[len(magic) : len(magic) + 8] = len(head).to_bytes(8, "little")
    out[len(magic) + 8 : len(magic) + 8 + _DIGEST] = hashlib.sha256(head).digest()
    out[len(magic) + 8 + _DIGEST : start] = head
    for off, data in layout:
        view = memoryview(data).cast("B")
        out[base + off : base + off + len(view)] = view
    return bytes(out)


def write_sectioned(path: str | os.PathLike[str], magic: bytes, header: Any, sections: dict[str, bytes]) -> None:
    """Write a sectioned file atomically, mode 0600 (the folder is made 0700 if missing)."""
    atomic_write(path, sectioned_blob(magic, header, sections), 0o600, durable=False)


class Sectioned:
    """An open sectioned file (or the same bytes in memory): its header, and its sections
    read on use — whole (:meth:`array`, :meth:`text`) or by element range (:meth:`part`)."""

    def __init__(
        self,
        header: Any,
        table: dict[str, tuple[int, int, bytes]],
        base: int,
        source: Any,
        error: type[Exception] = Damaged,
        on_damage: Callable[[], None] | None = None,
    ) -> None:
        self.header = header
        self._error = error
        self._on_damage = on_damage
        self._table = table
        self._base = base
        self._source = source  # a file descriptor (int) or the file's bytes
        self._whole: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the file (a file in memory has nothing to close)."""
        if isinstance(self._source, int):
            try:
                os.close(self._source)
            except OSError:
                pass
            self._source = b""

    def __del__(self) -> None:
        self.close()

    def has(self, name: str) -> bool:
        return name in self._table

    def size(self, name: str) -> int:
        """A section's length in bytes (nothing is read)."""
        try:
            return int(self._table[name][1])
        except KeyError as exc:
            raise self._fail(f"no section {name}") from exc

    def _fail(self, why: str) -> Exception:
        """The error to raise for damaged bytes (the owner's callback runs first: it removes
        the file, so the next run writes it again)."""
        if self._on_damage is not None:
            try:
                self._on_damage()
            finally:
                self._on_damage = None
        return self._error(why)

    def _read(self, off: int, n: int) -> bytes:
        src = self._source
        if isinstance(src, int):
            try:
                got = os.pread(src, n, self._base + off)
            except OSError as exc:
                raise self._fail(str(exc)) from exc
        else:
            got = bytes(src[self._base + off : self._base + off + n])
        if len(got) != n:
            raise self._fail("short read")
        return got

    def _chunks(self, name: str, first: int, last: int) -> bytes:
        """Chunks ``first..last`` (inclusive) of a section, checked."""
        try:
            off, length, digests = self._table[name]
        except KeyError as exc:
            raise self._fail(f"no section {name}") from exc
        a = first * CHUNK
        b = min(length, (last + 1) * CHUNK)
        if b <= a:
            return b""
        data = self._read(off + a, b - a)
        view = memoryview(data)
        for k in range(first, last + 1):
            piece = view[(k - first) * CHUNK : (k - first + 1) * CHUNK]
            if hashlib.sha256(piece).digest() != digests[k * _DIGEST : (k + 1) * _DIGEST]:
                raise self._fail(f"section {name}, chunk {k}")
        return data

    def raw(self, name: str) -> bytes:
        """A whole section's bytes, checked (kept for the next call)."""
        got = self._whole.get(name)
        if got is None:
            try:
                length = self._table[name][1]
            except KeyError as exc:
                raise self._fail(f"no section {name}") from exc
            got = self._chunks(name, 0, max(0, (length - 1) // CHUNK)) if length else b""
            with self._lock:
                self._whole[name] = got
        return got

    def array(self, name: str, dtype: Any) -> np.ndarray:
        """A whole section as a read-only array of ``dtype``."""
        return np.frombuffer(self.raw(name), dtype=dtype)

    def text(self, name: str, start: int = 0, end: int = -1) -> str:
        """UTF-8 text: a whole section, or bytes ``start:end`` of it."""
        if end < 0:
            return self.raw(name).decode("utf-8", "surrogateescape")
        return self.part(name, np.uint8, start, end).tobytes().decode("utf-8", "surrogateescape")

    def part(self, name: str, dtype: Any, start: int, end: int) -> np.ndarray:
        """Elements ``start:end`` of a section of ``dtype`` (only the chunks holding them
        are read and checked)."""
        size = np.dtype(dtype).itemsize
        if end <= start:
            return np.zeros(0, dtype=dtype)
        whole = self._whole.get(name)
        if whole is not None:
            return np.frombuffer(whole, dtype=dtype)[start:end]
        a, b = start * size, end * size
        try:
            length = self._table[name][1]
        except KeyError as exc:
            raise self._fail(f"no section {name}") from exc
        if b > length:
            raise self._fail(f"section {name}: range past its end")
        first, last = a // CHUNK, (b - 1) // CHUNK
        data = self._chunks(name, first, last)
        lo = a - first * CHUNK
        return np.frombuffer(data, dtype=dtype, count=end - start, offset=lo)


def _parse(magic: bytes, head_bytes: bytes) -> tuple[Any, dict[str, Any], int, int] | None:
    """``(header, table, sections' length, where they start)`` from the file's first bytes."""
    fixed = len(magic) + 8 + _DIGEST
    if len(head_bytes) < fixed or not head_bytes.startswith(magic):
        return None
    n = int.from_bytes(head_bytes[len(magic) : len(magic) + 8], "little")
    if len(head_bytes) < fixed + n:
        return None
    head = memoryview(head_bytes)[fixed : fixed + n]
    if hashlib.sha256(head).digest() != head_bytes[len(magic) + 8 : fixed]:
        return None
    with collector_paused():
        try:
            header, table, total = marshal.loads(head)
        except (EOFError, ValueError, TypeError):
            return None
    if type(table) is not dict or type(total) is not int:
        return None
    return header, table, total, -(-(fixed + n) // _ALIGN) * _ALIGN


def discarder(path: str | os.PathLike[str]) -> Callable[[], None]:
    """An ``on_damage`` for :func:`open_sectioned` that removes the file (best effort): a
    cache whose bytes no longer match their digests is written again by the next run."""

    def discard() -> None:
        try:
            os.unlink(path)
        except OSError:
            pass

    return discard


def open_sectioned(
    path: str | os.PathLike[str],
    magic: bytes,
    error: type[Exception] = Damaged,
    on_damage: Callable[[], None] | None = None,
) -> Sectioned | None:
    """The file's header checked and its sections ready to read; ``None`` when the file is
    missing, not a regular file, from another format, torn, tampered with or too short."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    ok = False
    try:
        st = os.fstat(fd)
        if not (st.st_mode & 0o170000 == 0o100000):
            return None
        fixed = len(magic) + 8 + _DIGEST
        first = os.pread(fd, fixed, 0)
        if len(first) < fixed or not first.startswith(magic):
            return None
        n = int.from_bytes(first[len(magic) :][:8], "little")
        if n <= 0 or fixed + n > st.st_size:
            return None
        parsed = _parse(magic, first + os.pread(fd, n, fixed))
        if parsed is None:
            return None
        header, table, total, base = parsed
        if base + total != st.st_size:
            return None  # torn or cut short: refused before any section is read
        ok = True
        return Sectioned(header, table, base, fd, error, on_damage)
    except OSError:
        return None
    finally:
        if not ok:
            os.close(fd)


def from_blob(magic: bytes, blob: bytes, error: type[Exception] = Damaged) -> Sectioned | None:
    """:func:`open_sectioned` over the file's bytes in memory."""
    parsed = _parse(magic, blob)
    if parsed is None:
        return None
    header, table, total, base = parsed
    if base + total != len(blob):
        return None
    return Sectioned(header, table, base, blob, error)

"""Bytes to text exactly as Reasonix's ``fileencoding.ReadFileUTF8`` does (spec §2.4 step 1).

Order: UTF-8 BOM, UTF-16 with a BOM, BOM-less UTF-16 sniffed from the NUL pattern,
valid UTF-8, GB18030 when it round-trips, GBK when it round-trips, else lossy UTF-8.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Decoded", "decode_bytes", "read_text"]


@dataclass(frozen=True, slots=True)
class Decoded:
    """Decoded text plus the encoding it was read as."""

    text: str
    """The text, without any BOM."""
    encoding: str
    """One of ``utf-8``, ``utf-8-sig``, ``utf-16-le``, ``utf-16-be``, ``gb18030``, ``gbk``, ``lossy-utf-8``."""

    @property
    def lossy(self) -> bool:
        """True when bytes could not be decoded faithfully (replacement characters)."""
        return self.encoding == "lossy-utf-8"


def _sniff_utf16(data: bytes) -> str | None:
    """BOM-less UTF-16: at least 16 bytes, NULs on one parity >= 30%, on the other <= 5%."""
    if len(data) < 16:
        return None
    even = data[0::2]
    odd = data[1::2]
    even_nul = even.count(0) / max(len(even), 1)
    odd_nul = odd.count(0) / max(len(odd), 1)
    if odd_nul >= 0.30 and even_nul <= 0.05:
        return "utf-16-le"  # ASCII in LE has the NUL in the high (odd) byte
    if even_nul >= 0.30 and odd_nul <= 0.05:
        return "utf-16-be"
    return None


def decode_bytes(data: bytes) -> Decoded:
    """Decode file bytes the way Reasonix does."""
    if data.startswith(b"\xef\xbb\xbf"):
        return Decoded(data[3:].decode("utf-8", errors="replace"), "utf-8-sig")
    if data.startswith(b"\xff\xfe"):
        return Decoded(data[2:].decode("utf-16-le", errors="replace"), "utf-16-le")
    if data.startswith(b"\xfe\xff"):
        return Decoded(data[2:].decode("utf-16-be", errors="replace"), "utf-16-be")
    sniffed = _sniff_utf16(data)
    if sniffed is not None:
        body = data[: len(data) - (len(data) % 2)]
        return Decoded(body.decode(sniffed, errors="replace"), sniffed)
    try:
        return Decoded(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    for codec in ("gb18030", "gbk"):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        try:
            if text.encode(codec) == data:
                return Decoded(text, codec)
        except UnicodeEncodeError:
            continue
    return Decoded(data.decode("utf-8", errors="replace"), "lossy-utf-8")


def read_text(path: str | Path) -> Decoded:
    """Read a regular file and decode it (raises ``OSError`` like ``open``; a FIFO or a
    device raises at once instead of blocking)."""
    from ..store.safeio import read_regular

    return decode_bytes(read_regular(path))

"""Helpers of the tests of sectioned cache files (the recall and search indexes) and of the
one-shot commands that read them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reasonix_tui.core.store import sectioned
from reasonix_tui.core.store.sectioned import open_sectioned


def whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the sections read whole (``Sectioned.raw``) from now on, in order."""
    whole: list[str] = []
    real = sectioned.Sectioned.raw

    def counting(self: sectioned.Sectioned, name: str) -> bytes:
        whole.append(name)
        return real(self, name)

    monkeypatch.setattr(sectioned.Sectioned, "raw", counting)
    return whole


def flip(path: Path, magic: bytes, section: str) -> None:
    """One byte in the middle of ``section`` of the sectioned file at ``path`` inverted."""
    sec = open_sectioned(path, magic)
    assert sec is not None
    off, length, _digests = sec._table[section]
    where = sec._base + off + length // 2
    sec.close()
    blob = bytearray(path.read_bytes())
    blob[where] ^= 0xFF
    path.write_bytes(bytes(blob))


_FREEZE_PROBE = (
    "import gc, sys\n"
    "from reasonix_tui.integrations.cli import main\n"
    "sys.argv = ['reasonix-tui'] + sys.argv[1:]\n"
    "code = main()\n"
    "print('frozen', gc.get_freeze_count() > 0, code, file=sys.stderr)\n"
)


def run_reporting_freeze(args: list[str]) -> subprocess.CompletedProcess[str]:
    """``reasonix-tui ARGS`` as its own process (``main()`` with the process's own arguments);
    its stderr ends with ``frozen <whether gc.freeze() ran> <exit code>``."""
    return subprocess.run([sys.executable, "-c", _FREEZE_PROBE, *args], capture_output=True, text=True, timeout=120)

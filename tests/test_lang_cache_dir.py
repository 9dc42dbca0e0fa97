"""The language cache folder: made 0700 at every level, and an open folder of ours closed."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from reasonix_tui.core.lang import chinese


@pytest.fixture
def fresh_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    chinese._default_cache_dir.cache_clear()
    yield tmp_path
    chinese._default_cache_dir.cache_clear()


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.lstat(p).st_mode)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_made_private_at_every_level(fresh_tmp: Path) -> None:
    old = os.umask(0o022)
    try:
        got = chinese._default_cache_dir()
    finally:
        os.umask(old)
    base = fresh_tmp / f"reasonix-tui-{os.getuid()}"
    assert got == str(base / "lang")
    assert _mode(base) == 0o700 and _mode(base / "lang") == 0o700


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_an_open_folder_of_ours_is_closed_not_given_up(fresh_tmp: Path) -> None:
    base = fresh_tmp / f"reasonix-tui-{os.getuid()}"
    base.mkdir(mode=0o755)
    os.chmod(base, 0o755)  # what ``makedirs`` used to leave: the cache was then never used
    assert chinese._default_cache_dir() == str(base / "lang")
    assert _mode(base) == 0o700


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_symlink_is_refused(fresh_tmp: Path) -> None:
    target = fresh_tmp / "elsewhere"
    target.mkdir(mode=0o700)
    (fresh_tmp / f"reasonix-tui-{os.getuid()}").symlink_to(target)
    assert chinese._default_cache_dir() == ""

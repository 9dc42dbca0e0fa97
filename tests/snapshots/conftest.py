"""Fixtures of the snapshot tests: a demo home at a fixed path (paths are on screen), a
frozen clock everywhere, deterministic ids, no watcher, no blinking cursors."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pytest
from filelock import FileLock

from reasonix_tui.core.gotime import Timestamp
from reasonix_tui.core.paths import Layout

from ui.helpers import NOW, build_demo

SNAPSHOT_ROOT = Path("/tmp/reasonix-tui-snapshots")
"""Fixed parent of the snapshot homes: file paths and workspace slugs appear on screen."""


@pytest.fixture(autouse=True)
def _frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """No blinking cursors; audit lines stamped with the frozen clock."""
    from textual.widgets import Input, TextArea

    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None, raising=False)

    class FrozenTimestamp(Timestamp):
        @classmethod
        def now(cls) -> Timestamp:
            return NOW

    monkeypatch.setattr("reasonix_tui.core.store.audit.Timestamp", FrozenTimestamp)


def _home(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, with_approval: bool, demo: bool = True) -> Iterator[Layout]:
    name = request.node.name.replace("[", "-").replace("]", "")
    root = SNAPSHOT_ROOT / name
    SNAPSHOT_ROOT.mkdir(parents=True, exist_ok=True)
    with FileLock(str(SNAPSHOT_ROOT / f"{name}.lock")):
        if root.exists():
            shutil.rmtree(root)
        if demo:
            yield build_demo(root, monkeypatch, with_approval=with_approval, freeze_time=True)
        else:
            (root / "work" / "empty-project").mkdir(parents=True)
            yield Layout.resolve(home=root / "home", workspace=root / "work" / "empty-project")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def snap_demo(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
    """The demo home without pending approvals."""
    yield from _home(request, monkeypatch, with_approval=False)


@pytest.fixture
def snap_demo_approval(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
    """The demo home with its pending approval."""
    yield from _home(request, monkeypatch, with_approval=True)


@pytest.fixture
def snap_empty(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
    """A state root with nothing in it."""
    yield from _home(request, monkeypatch, with_approval=False, demo=False)

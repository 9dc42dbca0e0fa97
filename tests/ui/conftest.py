"""Fixtures of the Pilot tests: a demo home per test, frozen clock, no blinking cursors."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout

from .helpers import build_demo


@pytest.fixture(autouse=True)
def _no_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """Input and TextArea cursors never blink (Harlequin's trick), so screens are stable."""
    from textual.widgets import Input, TextArea

    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None, raising=False)


@pytest.fixture(autouse=True)
def _no_key_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot presses keys faster than a person: the approval dialog's key pause is off
    (the tests of the pause set it again and drive its clock themselves)."""
    from reasonix_tui.tui.screens.approval import ApprovalScreen

    monkeypatch.setattr(ApprovalScreen, "GUARD_SECONDS", 0.0)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A demo home without pending approvals."""
    return build_demo(tmp_path / "demo", monkeypatch)


@pytest.fixture
def demo_with_approval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    """A demo home with the demo's pending approval (left from "before start")."""
    return build_demo(tmp_path / "demo", monkeypatch, with_approval=True)

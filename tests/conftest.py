"""Shared fixtures. Every test gets an isolated home: the real ~/.reasonix and ~/.claude
are never touched (HOME, REASONIX_HOME and REASONIX_STATE_HOME all point into tmp_path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME and the Reasonix roots at a fresh directory under tmp_path."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("REASONIX_HOME", str(home / ".reasonix"))
    # No test leaves a warm hook server behind; the one test of the server turns it on.
    monkeypatch.setenv("REASONIX_TUI_HOOK_DAEMON", "0")
    for var in (
        "REASONIX_STATE_HOME",
        "REASONIX_EXPERIMENT_NO_MEMORY",
        "REASONIX_TUI_HEADLESS",
        "REASONIX_TUI_SUBAGENT",
        "REASONIX_TUI_PINNED_BUDGET",
        "REASONIX_TUI_RECALL_MODE",
        "REASONIX_TUI_RECORD_PROMPTS",
        "CLAUDE_PROJECT_DIR",
    ):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def state_root(isolated_home: Path) -> Path:
    """The isolated Reasonix state root (``$REASONIX_HOME``)."""
    root = isolated_home / ".reasonix"
    root.mkdir()
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An isolated workspace directory (with a .git marker)."""
    ws = tmp_path / "work" / "proj"
    ws.mkdir(parents=True)
    (ws / ".git").mkdir()
    return ws


@pytest.fixture
def layout(state_root: Path, workspace: Path) -> Layout:
    """Layout for the isolated root and workspace."""
    return Layout.resolve(home=state_root, workspace=workspace)

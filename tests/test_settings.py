"""Settings: ``settings.toml``, Reasonix's ``config.toml`` ``[memory]`` table and the
environment, in that precedence; whatever is wrong in a file is ignored *and said*."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import Settings, load_settings
from reasonix_tui.integrations.cli import main


def own(root: Path, text: str) -> Path:
    path = root / "reasonix-tui" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults(state_root: Path) -> None:
    s = load_settings(state_root, env={})
    assert (s.pinned_budget_chars, s.recall_limit, s.recall_max_chars, s.recall_mode) == (1500, 4, 2400, "enhanced")
    assert s.approval_wait_seconds == 60.0 and s.source == "defaults" and s.problems == ()


def test_files_and_environment_in_precedence_order(state_root: Path) -> None:
    (state_root / "config.toml").write_text("[memory]\npinned_budget_chars = 900\nrecall_limit = 2\n")
    own(state_root, '[memory]\nrecall_limit = 3\n[recall]\nmode = "reasonix-exact"\n[approvals]\nwait_seconds = 5\n')
    s = load_settings(state_root, env={})
    assert (s.pinned_budget_chars, s.pinned_budget_configured, s.recall_limit) == (900, True, 3)
    assert s.recall_mode == "reasonix-exact" and s.approval_wait_seconds == 5.0
    assert s.source == "config.toml, settings.toml" and s.problems == ()
    s = load_settings(state_root, env={"REASONIX_TUI_PINNED_BUDGET": "0", "REASONIX_TUI_RECALL_MODE": "enhanced"})
    assert s.pinned_budget_chars == 0 and s.recall_mode == "enhanced"


def test_a_broken_file_is_ignored_and_said(state_root: Path) -> None:
    path = own(state_root, "[memory\nbroken")
    s = load_settings(state_root, env={})
    assert s.pinned_budget_chars == Settings().pinned_budget_chars
    [problem] = s.problems
    assert problem.startswith(f"{path}: ") and problem.endswith("the whole file is ignored (defaults apply)")


def test_bad_values_are_ignored_one_by_one(state_root: Path) -> None:
    own(
        state_root,
        '[memory]\npinned_budget_chars = "lots"\nrecall_limit = 0\nrecall_max_chars = -5\n'
        '[recall]\nmode = "fast"\n[approvals]\nwait_seconds = "x"\n',
    )
    s = load_settings(state_root, env={})
    assert (s.pinned_budget_chars, s.recall_limit, s.recall_max_chars, s.recall_mode, s.approval_wait_seconds) == (
        1500,
        4,
        2400,
        "enhanced",
        60.0,
    )
    assert [p.split(": ", 1)[1] for p in s.problems] == [
        "memory.pinned_budget_chars = 'lots' is not a whole number ≥ 0; ignored",
        "memory.recall_max_chars = -5 is not a whole number ≥ 0; ignored",
        'recall.mode = \'fast\' is not "enhanced" or "reasonix-exact"; ignored',
        "approvals.wait_seconds = 'x' is not a number of seconds; ignored",
    ]  # recall_limit = 0 means "the default", as in Reasonix


def test_the_cli_warns_and_carries_on(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    own(layout.root, '[recall]\nmode = "fast"\n')
    assert main(["--home", str(layout.root), "--workspace", str(layout.workspace), "memory", "list", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "[]"
    assert captured.err == (
        f"reasonix-tui: warning: {layout.root / 'reasonix-tui' / 'settings.toml'}: "
        'recall.mode = \'fast\' is not "enhanced" or "reasonix-exact"; ignored\n'
    )


def test_auto_confirm_project_remember_follows_reasonix_config(state_root: Path) -> None:
    assert load_settings(state_root, env={}).auto_confirm_project_remember is False
    (state_root / "config.toml").write_text("[memory]\nauto_confirm_project_remember = true\n")
    assert load_settings(state_root, env={}).auto_confirm_project_remember is True
    own(state_root, "[memory]\nauto_confirm_project_remember = false\n")  # ours wins
    assert load_settings(state_root, env={}).auto_confirm_project_remember is False
    own(state_root, '[memory]\nauto_confirm_project_remember = "yes"\n')
    s = load_settings(state_root, env={})
    assert s.auto_confirm_project_remember is True  # the bad value is ignored, config.toml stands
    assert [p.split(": ", 1)[1] for p in s.problems] == [
        "memory.auto_confirm_project_remember = 'yes' is not true or false; ignored"
    ]

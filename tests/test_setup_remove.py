"""``setup … --remove`` and tidy setup: exactly our entries go (also those from an earlier
``--command`` or install path), everything else stays byte for byte, it is idempotent, it
shows a diff first, and backups go to the state root. HOME is tmp_path (conftest)."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from reasonix_tui.integrations.cli import main
from reasonix_tui.integrations.setup_claude import is_our_rule

EXE = "/opt/rt/bin/reasonix-tui"

# A person's settings, in their own formatting (tabs, one-line arrays, a trailing space-free style).
THEIRS = """{
\t"model": "opus",
\t"hooks": {
\t\t"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/bin/other-hook.sh", "timeout": 5}]}],
\t\t"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]
\t},
\t"permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(.env)"], "defaultMode": "default"},
\t"env": {"FOO": "1"}
}
"""


def setup(workspace: Path, root: Path, *argv: str, command: str = EXE) -> int:
    return main(["--home", str(root), "--workspace", str(workspace), "setup", *argv, "--command", command])


def backups(root: Path) -> list[Path]:
    return sorted(p for p in (root / "reasonix-tui" / "backups").rglob("*") if p.is_file())


def test_claude_code_remove_restores_the_file_exactly(
    workspace: Path, state_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    mcp = workspace / ".mcp.json"
    mcp.write_text('{"mcpServers": {"github": {"command": "gh-mcp"}}}\n')
    assert setup(workspace, state_root, "claude-code", "--yes") == 0
    added = settings.read_text()
    assert "hook user-prompt-submit" in added and "\t\t" in added
    # edited in place: the lines we do not touch keep their exact text, one-line arrays stay one line
    lines = added.splitlines()
    assert lines[:3] == THEIRS.splitlines()[:3] and lines[-2:] == THEIRS.splitlines()[-2:]
    assert lines[3].startswith(
        '\t\t"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/bin/other-hook.sh"'
    )
    capsys.readouterr()

    assert setup(workspace, state_root, "claude-code", "--remove", "--print") == 0
    out = capsys.readouterr().out
    assert "setup claude-code --remove" in out and '-\t\t\t\t\t"command"' not in out
    assert f"--- {settings}" in out and "hook user-prompt-submit" in out and "(--print: nothing was written)" in out
    assert settings.read_text() == added  # --print wrote nothing

    assert setup(workspace, state_root, "claude-code", "--remove", "--yes") == 0
    assert settings.read_text() == THEIRS  # byte for byte
    assert mcp.read_text() == '{"mcpServers": {"github": {"command": "gh-mcp"}}}\n'
    # idempotent
    capsys.readouterr()
    assert setup(workspace, state_root, "claude-code", "--remove", "--yes") == 0
    assert "nothing of reasonix-tui is left to remove" in capsys.readouterr().out
    assert settings.read_text() == THEIRS
    # backups are in the state root, private, and none beside the files
    assert backups(state_root) and all(p.stat().st_mode & 0o777 == 0o600 for p in backups(state_root))
    assert not list(workspace.rglob("*.bak*"))


def test_files_setup_created_are_removed_with_a_backup(
    workspace: Path, state_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert setup(workspace, state_root, "claude-code", "--yes") == 0
    settings = workspace / ".claude" / "settings.json"
    written = settings.read_text()
    capsys.readouterr()
    assert setup(workspace, state_root, "claude-code", "--remove", "--yes") == 0
    out = capsys.readouterr().out
    assert f"removed {settings}" in out and "remove file (nothing else in it)" in out
    assert not settings.exists() and not (workspace / ".mcp.json").exists()
    assert written in [p.read_text() for p in backups(state_root)]


def test_remove_also_takes_entries_of_an_earlier_command_and_old_rules(workspace: Path, state_root: Path) -> None:
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    assert setup(workspace, state_root, "claude-code", "--yes", command="/old/venv/bin/reasonix-tui") == 0
    # an older version's wildcard rules, as they were written before the shell guard
    data = json.loads(settings.read_text())
    data["permissions"]["deny"] += ["Bash(reasonix-tui -* memory save *)", "Bash(reasonix-tui -* setup *)"]
    settings.write_text(json.dumps(data, indent="\t") + "\n")
    assert setup(workspace, state_root, "claude-code", "--yes", command="reasonix-tui") == 0
    deny = json.loads(settings.read_text())["permissions"]["deny"]
    assert not [r for r in deny if "/old/venv" in r or "-*" in r]  # switching --command leaves nothing behind
    assert setup(workspace, state_root, "claude-code", "--remove", "--yes") == 0
    assert json.loads(settings.read_text()) == json.loads(THEIRS)


def test_user_scope_remove_keeps_claude_json(workspace: Path, state_root: Path, isolated_home: Path) -> None:
    claude_json = isolated_home / ".claude.json"
    original = json.dumps({"numStartups": 3, "projects": {"/x": {"mcpServers": {}}}}, indent=2) + "\n"
    claude_json.write_text(original)
    os.chmod(claude_json, 0o600)
    assert setup(workspace, state_root, "claude-code", "--user", "--yes") == 0
    assert "reasonix-tui" in json.loads(claude_json.read_text())["mcpServers"]
    assert setup(workspace, state_root, "claude-code", "--user", "--remove", "--yes") == 0
    assert claude_json.read_text() == original and claude_json.stat().st_mode & 0o777 == 0o600
    assert not (isolated_home / ".claude" / "settings.json").exists()


def test_codex_remove(workspace: Path, state_root: Path, isolated_home: Path) -> None:
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = '# my settings\nmodel = "o3"  # fast\n\n[mcp_servers.other]\ncommand = "x"\n'
    config.write_text(original)
    hooks = isolated_home / ".codex" / "hooks.json"
    theirs = '{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]\n  }\n}\n'
    hooks.write_text(theirs)
    assert setup(workspace, state_root, "codex", "--yes") == 0
    assert "reasonix-tui" in tomllib.loads(config.read_text())["mcp_servers"]
    assert "PreToolUse" in json.loads(hooks.read_text())["hooks"]
    assert setup(workspace, state_root, "codex", "--remove", "--yes") == 0
    assert config.read_text() == original and hooks.read_text() == theirs
    assert setup(workspace, state_root, "codex", "--remove", "--yes") == 0
    assert config.read_text() == original


def test_codex_remove_of_a_fresh_setup(workspace: Path, state_root: Path, isolated_home: Path) -> None:
    assert setup(workspace, state_root, "codex", "--yes") == 0
    assert setup(workspace, state_root, "codex", "--remove", "--yes") == 0
    assert not (isolated_home / ".codex" / "hooks.json").exists()
    config = isolated_home / ".codex" / "config.toml"
    assert not config.exists() or tomllib.loads(config.read_text()) == {}


def test_cursor_remove(workspace: Path, state_root: Path) -> None:
    hooks = workspace / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    theirs = '{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./guard.sh"}]}}'
    hooks.write_text(theirs)
    # an earlier setup's beforeSubmitPrompt entry, from another install path
    data = json.loads(theirs)
    data["hooks"]["beforeSubmitPrompt"] = [{"command": "/old/bin/reasonix-tui hook user-prompt-submit --format cursor"}]
    hooks.write_text(json.dumps(data))
    assert setup(workspace, state_root, "cursor", "--yes") == 0
    assert "beforeSubmitPrompt" not in json.loads(hooks.read_text())["hooks"]
    assert setup(workspace, state_root, "cursor", "--remove", "--yes") == 0
    assert json.loads(hooks.read_text()) == json.loads(theirs)
    assert not (workspace / ".cursor" / "mcp.json").exists()


def test_json_plan_for_remove(workspace: Path, state_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert setup(workspace, state_root, "cursor", "--yes") == 0
    capsys.readouterr()
    assert setup(workspace, state_root, "cursor", "--remove", "--json") == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["remove"] is True and [c["state"] for c in plan["changes"]] == ["remove", "remove"]
    assert plan["written"] == [] and (workspace / ".cursor" / "mcp.json").exists()


@pytest.mark.parametrize("agent", ["codex", "cursor"])
def test_help_names_the_hooks_file(agent: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["setup", agent, "--help"])
    out = capsys.readouterr().out
    assert "hooks.json" in out and "--remove" in out


def test_our_rules_are_recognised_and_no_others() -> None:
    root = Path("/home/u/.reasonix")
    ours = [
        "Bash(reasonix-tui memory save:*)",
        "Bash(/x/y/reasonix-tui setup:*)",
        "Bash('/a b/reasonix-tui' memory pin:*)",
        "Bash(python3 -m reasonix_tui suggest accept:*)",
        "Bash(reasonix-tui -* memory note *)",
        "Edit(//home/u/.reasonix/**)",
        "mcp__reasonix-tui__memory",
        "Bash(uvx reasonix-tui memory forget:*)",
    ]
    theirs = [
        "Bash(npm run test:*)",
        "Read(.env)",
        "Bash(reasonix memory save:*)",
        "Edit(//home/u/src/**)",
        "mcp__github__create_issue",
        "Bash(reasonix-tui remember:*)",
        "Bash(grep reasonix-tui setup:*)x",
    ]
    assert all(is_our_rule(r, root) for r in ours)
    assert not any(is_our_rule(r, root) for r in theirs)

"""``reasonix-tui setup claude-code | codex | cursor``: merge without clobbering, backups,
idempotence, permission rules. HOME is tmp_path (conftest): the real ~/.claude is never touched."""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from pathlib import Path

import pytest

from reasonix_tui.integrations.cli import main
from reasonix_tui.integrations.setup import SetupError, resolve_command
from reasonix_tui.integrations.setup_claude import merge_claude_settings, permission_rules, plan_claude_code
from reasonix_tui.integrations.shell_guard import PERSON_ONLY

EXE = "/opt/rt/bin/reasonix-tui"


def backups(state_root: Path, name: str) -> list[Path]:
    """Backups setup kept of files called ``name`` (under the state root)."""
    return sorted((state_root / "reasonix-tui" / "backups").rglob(name))


def run(workspace: Path, root: Path, *argv: str) -> int:
    return main(["--home", str(root), "--workspace", str(workspace), "setup", *argv, "--command", EXE])


EXISTING = {
    "model": "opus",
    "env": {"FOO": "1"},
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/bin/other-hook.sh", "timeout": 5}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    },
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(.env)"], "defaultMode": "default"},
}


def test_project_merge_keeps_everything_and_backs_up(
    workspace: Path, state_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = json.dumps(EXISTING, indent=4) + "\n"
    settings.write_text(original)
    mcp = workspace / ".mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}}))

    assert run(workspace, state_root, "claude-code", "--project", "--yes") == 0
    out = capsys.readouterr().out
    assert "+++ " + str(settings) in out and f"wrote {settings}" in out

    data = json.loads(settings.read_text())
    # nothing of the person's own settings is lost
    assert data["model"] == "opus" and data["env"] == {"FOO": "1"}
    assert data["hooks"]["PreToolUse"][0] == EXISTING["hooks"]["PreToolUse"][0]
    assert data["hooks"]["PreToolUse"][1] == {
        "matcher": "Bash",
        "hooks": [{"type": "command", "timeout": 10, "command": f"{EXE} --home {state_root} hook pre-tool-use"}],
    }
    ups = data["hooks"]["UserPromptSubmit"]
    assert ups[0] == EXISTING["hooks"]["UserPromptSubmit"][0]
    assert ups[1] == {
        "hooks": [{"type": "command", "timeout": 10, "command": f"{EXE} --home {state_root} hook user-prompt-submit"}]
    }
    assert data["hooks"]["SessionStart"] == [
        {"hooks": [{"type": "command", "timeout": 10, "command": f"{EXE} --home {state_root} hook session-start"}]}
    ]
    assert data["permissions"]["allow"][0] == "Bash(npm run test:*)"
    assert "mcp__reasonix-tui__memory" in data["permissions"]["allow"]
    assert data["permissions"]["deny"][0] == "Read(.env)" and data["permissions"]["defaultMode"] == "default"
    # the file is edited, not rewritten: its own lines and 4-space indentation stay
    text = settings.read_text()
    assert text.startswith('{\n    "model": "opus",\n    "env": {\n        "FOO": "1"\n    },\n')
    # backup holds the exact previous bytes, in the state root (not beside the file)
    assert not list(settings.parent.glob("*.bak*"))
    [backup] = backups(state_root, "settings.json")
    assert backup.read_text() == original and backup.stat().st_mode & 0o777 == 0o600

    servers = json.loads(mcp.read_text())["mcpServers"]
    assert servers["github"] == {"command": "gh-mcp"}
    assert servers["reasonix-tui"] == {"type": "stdio", "command": EXE, "args": ["--home", str(state_root), "mcp"]}


def test_permission_rules_cover_every_person_only_subcommand(workspace: Path, state_root: Path) -> None:
    assert run(workspace, state_root, "claude-code", "--yes") == 0
    deny = json.loads((workspace / ".claude" / "settings.json").read_text())["permissions"]["deny"]
    for sub in PERSON_ONLY:
        assert f"Bash(reasonix-tui {sub}:*)" in deny
        assert f"Bash({EXE} {sub}:*)" in deny
        assert f"Bash(python -m reasonix_tui {sub}:*)" in deny
    assert f"Edit(/{state_root.as_posix()}/**)" in deny
    assert not any("*" in r.removesuffix(":*)") for r in deny if r.startswith("Bash("))  # prefix rules only
    # the agent's own verbs stay available to its shell
    for verb in ("remember", "forget", "approval-status", "memory list", "memory show", "memory search", "recall"):
        assert not any(rule.startswith(f"Bash(reasonix-tui {verb}") for rule in deny), verb
    for required in (
        "memory save",
        "memory forget",
        "memory restore",
        "memory recover",
        "memory pin",
        "memory unpin",
        "memory verify",
        "memory migrate",
        "memory note",
        "suggest accept",
        "suggest dismiss",
        "setup",
    ):
        assert required in PERSON_ONLY


def test_rerun_is_idempotent(workspace: Path, state_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(workspace, state_root, "claude-code", "--yes") == 0
    settings = workspace / ".claude" / "settings.json"
    first = settings.read_text()
    mcp_first = (workspace / ".mcp.json").read_text()
    capsys.readouterr()
    assert run(workspace, state_root, "claude-code", "--yes") == 0
    assert "Nothing to do" in capsys.readouterr().out
    assert settings.read_text() == first and (workspace / ".mcp.json").read_text() == mcp_first
    assert not backups(state_root, "settings.json")  # nothing was rewritten


def test_rerun_with_a_new_path_updates_our_hook_in_place(workspace: Path, state_root: Path) -> None:
    assert run(workspace, state_root, "claude-code", "--yes") == 0
    assert (
        main(
            [
                "--home",
                str(state_root),
                "--workspace",
                str(workspace),
                "setup",
                "claude-code",
                "--yes",
                "--command",
                "/new/place/reasonix-tui",
            ]
        )
        == 0
    )
    hooks = json.loads((workspace / ".claude" / "settings.json").read_text())["hooks"]
    assert len(hooks["UserPromptSubmit"]) == 1
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"].startswith("/new/place/reasonix-tui ")
    assert len(hooks["PreToolUse"]) == 1
    assert backups(state_root, "settings.json")
    # the rules of the earlier path are replaced, not left behind
    deny = json.loads((workspace / ".claude" / "settings.json").read_text())["permissions"]["deny"]
    assert not any(EXE in rule for rule in deny)
    assert "Bash(/new/place/reasonix-tui memory save:*)" in deny


def test_print_writes_nothing(workspace: Path, state_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(workspace, state_root, "claude-code", "--print") == 0
    out = capsys.readouterr().out
    assert "hook user-prompt-submit" in out and "(--print: nothing was written)" in out
    assert not (workspace / ".claude").exists() and not (workspace / ".mcp.json").exists()


def test_json_plan_then_json_write(workspace: Path, state_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(workspace, state_root, "cursor", "--json") == 0  # never asks; without --yes writes nothing
    plan = json.loads(capsys.readouterr().out)
    assert plan["agent"] == "cursor" and plan["written"] == []
    mcp, hooks = plan["changes"]
    assert mcp["state"] == "new" and mcp["path"] == str(workspace / ".cursor" / "mcp.json")
    assert hooks["state"] == "new" and hooks["path"] == str(workspace / ".cursor" / "hooks.json")
    assert EXE in mcp["diff"] and not (workspace / ".cursor").exists()
    assert run(workspace, state_root, "cursor", "--json", "--yes") == 0
    done = json.loads(capsys.readouterr().out)
    assert done["written"] == [
        {"path": str(workspace / ".cursor" / name), "backup": None} for name in ("mcp.json", "hooks.json")
    ]
    assert run(workspace, state_root, "cursor", "--json") == 0
    again = json.loads(capsys.readouterr().out)
    assert [c["state"] for c in again["changes"]] == ["unchanged", "unchanged"] and again["written"] == []


def test_no_terminal_and_no_yes_writes_nothing(
    workspace: Path, state_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", open(os.devnull))  # noqa: SIM115
    assert run(workspace, state_root, "cursor") == 0
    assert "--yes" in capsys.readouterr().out
    assert not (workspace / ".cursor").exists()


def test_invalid_json_is_never_clobbered(workspace: Path, state_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus",, }')
    assert run(workspace, state_root, "claude-code", "--yes") == 1
    assert "not valid JSON" in capsys.readouterr().err
    assert settings.read_text() == '{"model": "opus",, }'
    assert not (workspace / ".mcp.json").exists()


def test_wrong_shapes_are_refused() -> None:
    with pytest.raises(SetupError):
        merge_claude_settings({"hooks": []}, {"UserPromptSubmit": "x hook user-prompt-submit"}, [], [])
    with pytest.raises(SetupError):
        merge_claude_settings({"permissions": {"deny": "Bash"}}, {}, ["Bash(x:*)"], [])


def test_user_scope_writes_home_files(workspace: Path, state_root: Path, isolated_home: Path) -> None:
    claude_json = isolated_home / ".claude.json"
    claude_json.write_text(json.dumps({"numStartups": 3, "projects": {"/x": {"mcpServers": {}}}}))
    os.chmod(claude_json, 0o600)
    assert run(workspace, state_root, "claude-code", "--user", "--yes") == 0
    data = json.loads(claude_json.read_text())
    assert data["numStartups"] == 3 and data["projects"] == {"/x": {"mcpServers": {}}}
    assert data["mcpServers"]["reasonix-tui"]["command"] == EXE
    assert claude_json.stat().st_mode & 0o777 == 0o600
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert "UserPromptSubmit" in settings["hooks"]
    assert not (workspace / ".claude").exists()


def test_symlinked_settings_stay_a_symlink(workspace: Path, state_root: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "sonnet"}\n')
    link = workspace / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    assert run(workspace, state_root, "claude-code", "--yes") == 0
    assert link.is_symlink() and json.loads(dotfiles.read_text())["model"] == "sonnet"
    assert "hooks" in json.loads(dotfiles.read_text())


def test_codex_merge_keeps_comments_and_other_servers(state_root: Path, workspace: Path, isolated_home: Path) -> None:
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = '# my settings\nmodel = "o3"  # fast\n\n[mcp_servers.other]\ncommand = "x"\n'
    config.write_text(original)
    assert run(workspace, state_root, "codex", "--yes") == 0
    text = config.read_text()
    assert text.startswith(original)
    data = tomllib.loads(text)
    assert data["mcp_servers"]["other"] == {"command": "x"}
    assert data["mcp_servers"]["reasonix-tui"] == {"command": EXE, "args": ["--home", str(state_root), "mcp"]}
    [backup] = backups(state_root, "config.toml")
    assert backup.read_text() == original and not (config.parent / "config.toml.bak").exists()
    assert run(workspace, state_root, "codex", "--yes") == 0
    assert config.read_text() == text


def _assert_codex_hooks_schema(doc: dict) -> None:
    """The shape of SchemaStore's codex-hooks.json: root ``hooks`` (and ``description``)
    only; event → non-empty matcher groups → non-empty command handlers."""
    assert set(doc) <= {"description", "hooks"} and doc["hooks"]
    for event, groups in doc["hooks"].items():
        assert isinstance(groups, list) and groups, event
        for group in groups:
            assert isinstance(group["hooks"], list) and group["hooks"]
            for handler in group["hooks"]:
                assert handler["type"] in ("command", "prompt", "agent")
                if handler["type"] == "command":
                    assert isinstance(handler["command"], str) and handler["command"]
                    assert isinstance(handler.get("timeout", 0), int)


def test_codex_hooks_are_merged_into_hooks_json(state_root: Path, workspace: Path, isolated_home: Path) -> None:
    hooks = isolated_home / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    theirs = {
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "scan-keys.sh", "timeout": 3}]}],
        }
    }
    hooks.write_text(json.dumps(theirs))
    assert run(workspace, state_root, "codex", "--yes") == 0
    doc = json.loads(hooks.read_text())
    _assert_codex_hooks_schema(doc)
    assert doc["hooks"]["Stop"] == theirs["hooks"]["Stop"]
    ups = [h["command"] for g in doc["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert ups == ["scan-keys.sh", f"{EXE} --home {state_root} hook user-prompt-submit --format codex"]
    [start] = [h for g in doc["hooks"]["SessionStart"] for h in g["hooks"]]
    assert start == {
        "type": "command",
        "command": f"{EXE} --home {state_root} hook session-start --format codex",
        "timeout": 10,
    }
    assert doc["hooks"]["PreToolUse"] == [
        {
            "matcher": "Bash",
            "hooks": [
                {
                    "type": "command",
                    "command": f"{EXE} --home {state_root} hook pre-tool-use --format codex",
                    "timeout": 10,
                }
            ],
        }
    ]
    before = hooks.read_text()
    assert run(workspace, state_root, "codex", "--yes") == 0  # idempotent
    assert hooks.read_text() == before
    assert backups(state_root, "hooks.json")


def test_codex_hooks_file_with_foreign_root_keys_is_left_alone(
    state_root: Path, workspace: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hooks = isolated_home / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"$schema": "x", "hooks": {}}')
    assert run(workspace, state_root, "codex", "--yes") != 0
    assert "Codex does not accept ($schema)" in capsys.readouterr().err
    assert hooks.read_text() == '{"$schema": "x", "hooks": {}}'
    assert not (isolated_home / ".codex" / "config.toml").exists()  # nothing written at all


def test_cursor_project_file(workspace: Path, state_root: Path) -> None:
    assert run(workspace, state_root, "cursor", "--yes") == 0
    entry = json.loads((workspace / ".cursor" / "mcp.json").read_text())["mcpServers"]["reasonix-tui"]
    assert entry == {"command": EXE, "args": ["--home", str(state_root), "mcp", "--workspace", "${workspaceFolder}"]}
    hooks = json.loads((workspace / ".cursor" / "hooks.json").read_text())
    assert hooks == {
        "version": 1,
        "hooks": {
            "sessionStart": [{"command": f"{EXE} --home {state_root} hook session-start --format cursor"}],
            "beforeShellExecution": [{"command": f"{EXE} --home {state_root} hook pre-tool-use --format cursor"}],
        },
    }
    # per-prompt recall through beforeSubmitPrompt only when asked for (not a documented route)
    assert run(workspace, state_root, "cursor", "--yes", "--prompt-hook") == 0
    hooks = json.loads((workspace / ".cursor" / "hooks.json").read_text())["hooks"]
    assert hooks["beforeSubmitPrompt"] == [
        {"command": f"{EXE} --home {state_root} hook user-prompt-submit --format cursor"}
    ]
    assert run(workspace, state_root, "cursor", "--yes") == 0  # and gone again without it
    assert "beforeSubmitPrompt" not in json.loads((workspace / ".cursor" / "hooks.json").read_text())["hooks"]


def test_cursor_hooks_merge_keeps_other_hooks_and_is_idempotent(workspace: Path, state_root: Path) -> None:
    path = workspace / ".cursor" / "hooks.json"
    path.parent.mkdir(parents=True)
    theirs = {
        "version": 1,
        "hooks": {
            "beforeShellExecution": [{"command": "./guard.sh"}],
            "beforeSubmitPrompt": [{"command": "./scan-secrets.sh"}],
        },
    }
    path.write_text(json.dumps(theirs))
    assert run(workspace, state_root, "cursor", "--yes") == 0
    merged = json.loads(path.read_text())
    assert merged["hooks"]["beforeShellExecution"] == [
        {"command": "./guard.sh"},
        {"command": f"{EXE} --home {state_root} hook pre-tool-use --format cursor"},
    ]
    assert merged["hooks"]["beforeSubmitPrompt"] == [{"command": "./scan-secrets.sh"}]
    text = path.read_text()
    assert run(workspace, state_root, "cursor", "--yes") == 0
    assert path.read_text() == text


def test_default_command_is_an_absolute_path() -> None:
    base = resolve_command(None, argv0="reasonix-tui")
    assert os.path.isabs(base[0])
    assert resolve_command("uvx reasonix-tui") == ["uvx", "reasonix-tui"]


def test_hook_commands_are_shell_quoted(tmp_path: Path) -> None:
    weird = "/opt/my tools/reasonix-tui"
    plan = plan_claude_code("project", tmp_path, base=[weird])
    data = json.loads(plan.changes[0].after)
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert shlex.split(command) == [weird, "hook", "user-prompt-submit"]
    deny, allow = permission_rules([weird])
    assert f"Bash({shlex.quote(weird)} memory save:*)" in deny and allow

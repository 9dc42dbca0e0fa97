"""The permission rules and the shell guard ``setup claude-code`` installs, table-driven
against Claude Code's documented rule matching (code.claude.com/docs/en/permissions):

* ``Bash(cmd)`` matches exactly that command; ``Bash(prefix:*)`` is the same as
  ``Bash(prefix *)``;
* ``*`` matches any sequence of characters, spaces included, at any position; a rule
  that ends in `` *`` with no other wildcard also matches the bare prefix (word boundary);
* compound commands (``;``, ``&&``, ``||``, ``|``, ``|&``, ``&``, newlines) are checked
  part by part, and a deny rule that matches any part denies the command;
* process wrappers (``timeout``, ``time``, ``nice``, ``nohup``, ``stdbuf``) are stripped
  before matching;
* deny rules are checked first and no allow rule overrides them; a ``PreToolUse`` hook
  that answers ``deny`` blocks the call too.

The agent's own verbs must get through whatever global options come first and whatever
words their arguments carry; every person-only form the previous rules denied must stay
denied (by a rule, or by the guard).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from reasonix_tui.integrations.hooks import guard
from reasonix_tui.integrations.setup_claude import permission_rules
from reasonix_tui.integrations.shell_guard import PERSON_ONLY

EXE = "/home/u/.local/bin/reasonix-tui"
ROOT = Path("/home/u/.reasonix")
_SEPARATORS = re.compile(r"\s*(?:\|&|&&|\|\||[;|&\n])\s*")
_WRAPPERS = {"timeout": 1, "time": 0, "nice": 0, "nohup": 0, "stdbuf": 0}


def _subcommands(command: str) -> list[str]:
    """Claude Code checks each part of a compound command (quotes respected)."""
    parts, current, quote = [], "", ""
    i = 0
    while i < len(command):
        c = command[i]
        if quote:
            current += c
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
            current += c
        else:
            m = _SEPARATORS.match(command, i)
            if m and m.group().strip():
                parts.append(current.strip())
                current = ""
                i = m.end()
                continue
            current += c
        i += 1
    parts.append(current.strip())
    return [_strip_wrappers(p) for p in parts if p]


def _strip_wrappers(part: str) -> str:
    words = part.split()
    while words and words[0] in _WRAPPERS:
        skip = 1 + _WRAPPERS[words[0]]
        words = words[skip:]
        while words and words[0].startswith("-"):
            words = words[1:]
    return " ".join(words)


def rule_matches(rule: str, command: str) -> bool:
    """Claude Code's documented matching of one ``Bash(...)`` rule against one command."""
    m = re.fullmatch(r"Bash\((.*)\)", rule, flags=re.S)
    if not m:
        return False
    pattern = m.group(1)
    if pattern.endswith(":*"):
        pattern = pattern[:-2] + " *"
    if "*" not in pattern:
        return command == pattern
    if pattern.endswith(" *") and pattern.count("*") == 1:
        regex = re.escape(pattern[:-2]) + "( .*)?"
    else:
        regex = ".*".join(re.escape(piece) for piece in pattern.split("*"))
    return re.fullmatch(regex, command, flags=re.S) is not None


def denied_by_rules(rules: list[str], command: str) -> bool:
    return any(rule_matches(rule, part) for part in _subcommands(command) for rule in rules)


def denied_by_guard(command: str) -> bool:
    out = guard(json.dumps({"tool_name": "Bash", "tool_input": {"command": command}}), "claude")
    return bool(out) and json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


def previous_rules() -> list[str]:
    """The deny rules earlier versions wrote (four prefixes + ``reasonix-tui -* <sub> *``)."""
    rules = []
    for sub in PERSON_ONLY:
        for prefix in ("reasonix-tui", EXE, "python -m reasonix_tui", "python3 -m reasonix_tui"):
            rules.append(f"Bash({prefix} {sub}:*)")
        rules.append(f"Bash(reasonix-tui -* {sub} *)")
    return rules


DENY, _ALLOW = permission_rules([EXE], ROOT)

AGENT = [
    "reasonix-tui remember --description 'CI runner' --body 'buildkite linux-large'",
    "reasonix-tui --workspace /repo remember --body 'run make setup before deploy' --description 'deploy steps'",
    "reasonix-tui --workspace /repo remember --description setup --body 'memory save is for people'",
    "reasonix-tui --home /home/u/.reasonix --workspace /repo remember --body 'suggest accept flow' --description x",
    "reasonix-tui --home=/h remember --description 'pin the version' --body 'memory pin is person-only'",
    "reasonix-tui --workspace /repo forget project/setup-notes.md",
    "reasonix-tui --workspace /repo forget 'memory save helper'",
    "reasonix-tui --workspace /repo approval-status p-123 --wait 60",
    "reasonix-tui --workspace /repo recall 'how do we run setup?'",
    "reasonix-tui recall 'memory forget vs archive'",
    "reasonix-tui --workspace /repo memory list",
    "reasonix-tui --workspace /repo memory show setup-notes",
    "reasonix-tui --workspace /repo memory search 'setup memory save'",
    "reasonix-tui memory --json list",
    "reasonix-tui --workspace /repo history search 'setup failed'",
    "reasonix-tui suggest",
    f"{EXE} --workspace /repo remember --description d --body 'setup memory forget suggest dismiss'",
    "python -m reasonix_tui --workspace /repo remember --description d --body 'memory save'",
    "cd /repo && reasonix-tui --workspace . remember --description d --body 'setup'",
    "timeout 60 reasonix-tui --workspace /repo approval-status p-1 --wait 45",
    "grep -n 'reasonix-tui memory save' README.md",
]

PERSON = [
    "reasonix-tui memory save --name x --description d --body b",
    "reasonix-tui memory forget deploy-target",
    "reasonix-tui memory restore deploy-target 1",
    "reasonix-tui memory recover .archive/x.md",
    "reasonix-tui memory pin x",
    "reasonix-tui memory unpin x",
    "reasonix-tui memory verify x",
    "reasonix-tui memory migrate",
    "reasonix-tui memory note 'always use pnpm'",
    "reasonix-tui suggest accept s-1",
    "reasonix-tui suggest dismiss s-1",
    "reasonix-tui setup claude-code --yes",
    f"{EXE} memory save --name x --description d --body b",
    "python -m reasonix_tui memory forget x",
    "python3 -m reasonix_tui setup codex --yes",
    "reasonix-tui --workspace /repo memory save --name x --description d --body b",
    "reasonix-tui --home /h --workspace /repo memory forget x",
    "reasonix-tui --workspace=/repo memory pin x",
    "reasonix-tui --workspace /repo setup claude-code --remove --yes",
    "reasonix-tui --workspace /repo suggest accept s-1",
    "reasonix-tui --demo memory note hi",
    "cd /repo && reasonix-tui --workspace . memory save --name x --description d --body b",
    "echo ok; reasonix-tui --home /h memory unpin x",
    "timeout 5 reasonix-tui --workspace /repo memory verify x",
    "nohup reasonix-tui memory forget x",
    # forms the previous rules did not catch; the guard does
    f"{EXE} --workspace /repo memory save --name x --description d --body b",
    "reasonix-tui memory --json forget x",
    "reasonix-tui suggest --all accept s-1",
    "bash -c 'reasonix-tui --workspace /repo memory forget x'",
    "env REASONIX_HOME=/h reasonix-tui memory save --name x --description d --body b",
]


@pytest.mark.parametrize("command", AGENT)
def test_the_agents_own_verbs_are_not_denied(command: str) -> None:
    assert not denied_by_rules(DENY, command), [
        r for r in DENY if any(rule_matches(r, p) for p in _subcommands(command))
    ]
    assert not denied_by_guard(command)


@pytest.mark.parametrize("command", PERSON)
def test_person_only_subcommands_are_denied(command: str) -> None:
    assert denied_by_rules(DENY, command) or denied_by_guard(command)


@pytest.mark.parametrize("command", PERSON)
def test_what_the_previous_rules_denied_stays_denied(command: str) -> None:
    if denied_by_rules(previous_rules(), command):
        assert denied_by_rules(DENY, command) or denied_by_guard(command)


def test_the_reported_false_denial_is_gone() -> None:
    command = 'reasonix-tui --workspace /repo remember --body "run make setup before deploy" --description d'
    assert denied_by_rules(previous_rules(), command)  # what the report saw
    assert not denied_by_rules(DENY, command) and not denied_by_guard(command)


def test_the_plain_forms_are_denied_by_rules_alone() -> None:
    """Without the guard (hooks off), the plain forms are still denied by rules."""
    for sub in PERSON_ONLY:
        for prefix in ("reasonix-tui", shlex.quote(EXE), "python -m reasonix_tui", "python3 -m reasonix_tui"):
            assert denied_by_rules(DENY, f"{prefix} {sub} x"), (prefix, sub)
            assert denied_by_rules(DENY, f"{prefix} {sub}"), (prefix, sub)


def test_the_matcher_model_follows_the_documented_examples() -> None:
    assert rule_matches("Bash(npm run build)", "npm run build") and not rule_matches("Bash(npm run build)", "npm run")
    assert rule_matches("Bash(npm run test:*)", "npm run test --watch")
    assert rule_matches("Bash(ls *)", "ls -la") and rule_matches("Bash(ls *)", "ls")
    assert not rule_matches("Bash(ls *)", "lsof") and rule_matches("Bash(ls*)", "lsof")
    assert rule_matches("Bash(git * main)", "git checkout main") and rule_matches(
        "Bash(git * main)", "git push origin main"
    )
    assert _subcommands("a && b || c; d | e") == ["a", "b", "c", "d", "e"]
    assert _subcommands("echo 'a && b'") == ["echo 'a && b'"]
    assert _subcommands("timeout 5 ls -la") == ["ls -la"] and _subcommands("nohup ls") == ["ls"]


def test_cursor_and_codex_get_the_same_guard() -> None:
    command = "reasonix-tui --workspace /repo memory save --name x --description d --body b"
    codex = json.loads(
        guard(json.dumps({"tool_name": "Bash", "tool_input": {"command": command}, "turn_id": "t"}), "codex")
    )
    assert codex == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": codex["hookSpecificOutput"]["permissionDecisionReason"],
        }
    }
    cursor = json.loads(guard(json.dumps({"command": command, "cwd": "/repo", "conversation_id": "c"}), "cursor"))
    assert cursor["permission"] == "deny" and "remember" in cursor["agent_message"]
    assert guard(json.dumps({"command": "reasonix-tui memory list", "cwd": "/repo"}), "cursor") == ""
    assert guard(json.dumps({"tool_name": "Edit", "tool_input": {"command": command}}), "claude") == ""

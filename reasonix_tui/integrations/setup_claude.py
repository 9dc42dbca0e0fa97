"""``reasonix-tui setup claude-code``: hooks, the shell guard and permission rules in Claude Code's ``settings.json``, the MCP server in ``.mcp.json`` or ``~/.claude.json``."""

from __future__ import annotations

import copy
import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .setup import (
    GUARD_ARG,
    GUARD_EVENT,
    GUARD_MATCHER,
    HOOK_EVENTS,
    HOOK_TIMEOUT_SECONDS,
    READ_ONLY_TOOLS,
    SERVER_NAME,
    SetupPlan,
    checked_child,
    child_list,
    child_object,
    claude_hook_entries,
    drop_if_emptied,
    hook_command,
    json_change,
    mcp_args,
    merge_hook_events,
    merge_mcp_servers,
    remove_mcp_servers,
    stale_backup_notes,
    user_home,
)
from .shell_guard import PERSON_ONLY

__all__ = ["permission_rules", "is_our_rule", "merge_claude_settings", "remove_claude_settings", "plan_claude_code"]


def permission_rules(base: Sequence[str], state_root: Path | None = None) -> tuple[list[str], list[str]]:
    """``(deny, allow)`` rules for Claude Code's ``permissions``.

    Deny: each person-only subcommand as a prefix rule (``Bash(<program> <sub>:*)``) for
    the bare name, the path written into the hooks and ``python -m reasonix_tui`` —
    exact, so they never catch ``reasonix-tui remember …`` whatever its arguments say.
    The forms with global options first (``reasonix-tui --workspace DIR memory save``)
    are the shell guard's: a rule cannot tell an option's value from a subcommand.
    Plus an ``Edit`` rule for the state root. Allow: the two read-only MCP tools.
    """
    prefixes = ["reasonix-tui"]
    exe = shlex.join(base)
    if exe not in prefixes:
        prefixes.append(exe)
    prefixes += ["python -m reasonix_tui", "python3 -m reasonix_tui"]
    deny = [f"Bash({prefix} {sub}:*)" for sub in PERSON_ONLY for prefix in prefixes]
    if state_root is not None:
        deny.append(f"Edit(/{state_root.as_posix()}/**)")
    allow = [f"mcp__{SERVER_NAME}__{tool}" for tool in READ_ONLY_TOOLS]
    return deny, allow


_SUBS = "|".join(re.escape(s) for s in PERSON_ONLY)


_PREFIX_RULE = re.compile(rf"^Bash\((?P<prefix>.+?) (?:{_SUBS}):\*\)$")


_WILDCARD_RULE = re.compile(rf"^Bash\(reasonix-tui -\* (?:{_SUBS}) \*\)$")


_EDIT_RULE = re.compile(r"^Edit\(/(?P<path>/.+)/\*\*\)$")


def _runs_us(words: Sequence[str]) -> bool:
    """True when ``words`` (a command prefix) ends with reasonix-tui's program."""
    if not words:
        return False
    if os.path.basename(words[-1]).removesuffix(".exe") == "reasonix-tui":
        return True
    return len(words) >= 2 and words[-2] == "-m" and words[-1] == "reasonix_tui"


def is_our_rule(rule: Any, state_root: Path | None = None) -> bool:
    """True for a rule this module generates, for any program path or earlier version
    (``Bash(<reasonix-tui> <sub>:*)``, ``Bash(reasonix-tui -* <sub> *)``, the state root's
    ``Edit`` rule, the ``mcp__reasonix-tui__*`` allow rules)."""
    if not isinstance(rule, str):
        return False
    if rule in {f"mcp__{SERVER_NAME}__{tool}" for tool in READ_ONLY_TOOLS}:
        return True
    if _WILDCARD_RULE.match(rule):
        return True
    m = _PREFIX_RULE.match(rule)
    if m:
        try:
            return _runs_us(shlex.split(m.group("prefix")))
        except ValueError:
            return False
    m = _EDIT_RULE.match(rule)
    if m:
        path = m.group("path")
        return (state_root is not None and path == state_root.as_posix()) or Path(path).name == ".reasonix"
    return False


def _merge_rules(
    doc: dict[str, Any], deny: Sequence[str], allow: Sequence[str], state_root: Path | None, where: str
) -> None:
    """Our rules become exactly ``deny``/``allow`` (stale ones of ours removed, missing ones appended)."""
    before = copy.deepcopy(doc.get("permissions"))
    if before is None and not deny and not allow:
        return
    perms = child_object(doc, "permissions", where)
    for key, rules in (("deny", deny), ("allow", allow)):
        old = checked_child(perms, key, list, where)
        if old is None and not rules:
            continue
        existing = child_list(perms, key, where)
        kept = [r for r in existing if not is_our_rule(r, state_root) or r in rules]
        deduped: list[Any] = []
        for r in kept:
            if r in rules and r in deduped:
                continue
            deduped.append(r)
        deduped += [r for r in rules if r not in deduped]
        perms[key] = deduped
        drop_if_emptied(perms, key, old)
    drop_if_emptied(doc, "permissions", before)


def merge_claude_settings(
    settings: dict[str, Any],
    commands: dict[str, str],
    deny: Sequence[str],
    allow: Sequence[str],
    timeout: int = HOOK_TIMEOUT_SECONDS,
    where: str = "settings.json",
    guard: str | None = None,
    state_root: Path | None = None,
) -> dict[str, Any]:
    """A copy of Claude Code ``settings`` with our hooks and rules set.

    ``commands`` maps the event name (``UserPromptSubmit``, ``SessionStart``) to the
    command line; ``guard`` is the ``PreToolUse`` (``Bash``) guard's. An existing
    reasonix-tui hook for the event is updated in place; otherwise a new matcher group is
    appended. Our rules become exactly ``deny``/``allow``: missing ones are appended,
    ones from an earlier ``--command`` or install path are removed. Every other key is
    kept as it was.
    """
    out = copy.deepcopy(settings)
    merge_hook_events(out, claude_hook_entries(commands, guard, timeout), where, {GUARD_EVENT: GUARD_MATCHER})
    _merge_rules(out, deny, allow, state_root, where)
    return out


def remove_claude_settings(
    settings: dict[str, Any], where: str = "settings.json", state_root: Path | None = None
) -> dict[str, Any]:
    """A copy of Claude Code ``settings`` without any of our hooks and rules."""
    out = copy.deepcopy(settings)
    merge_hook_events(out, claude_hook_entries(None, None, 0), where)
    _merge_rules(out, [], [], state_root, where)
    return out


def plan_claude_code(
    scope: str,
    workspace: Path,
    *,
    base: Sequence[str],
    state_root: Path | None = None,
    home: str | None = None,
    timeout: int = HOOK_TIMEOUT_SECONDS,
    remove: bool = False,
) -> SetupPlan:
    """Hooks + shell guard + MCP server + permission rules for Claude Code (or, with
    ``remove``, none of them).

    ``scope`` ``project``: ``<workspace>/.claude/settings.json`` and ``<workspace>/.mcp.json``;
    ``user``: ``~/.claude/settings.json`` and ``~/.claude.json``.
    """
    if scope not in ("project", "user"):
        raise ValueError("scope must be project or user")
    if scope == "project":
        settings_path = workspace / ".claude" / "settings.json"
        mcp_path = workspace / ".mcp.json"
        mcp_mode = 0o644
    else:
        settings_path = user_home() / ".claude" / "settings.json"
        mcp_path = user_home() / ".claude.json"
        mcp_mode = 0o600
    command, args = mcp_args(base, home)
    if remove:
        settings_change = json_change(
            settings_path,
            lambda d: remove_claude_settings(d, str(settings_path), state_root),
            "remove reasonix-tui's hooks and permission rules",
            removable=True,
        )
        mcp_change = json_change(
            mcp_path,
            lambda d: remove_mcp_servers(d, str(mcp_path)),
            f"remove the MCP server {SERVER_NAME!r}",
            mcp_mode,
            removable=scope == "project",
        )
        notes = ["Restart Claude Code (or run /hooks and /mcp) so it reads the new settings."]
        return SetupPlan("claude-code", scope, (settings_change, mcp_change), tuple(notes), state_root, remove=True)
    commands = {event: hook_command(base, arg, home) for event, arg in HOOK_EVENTS.items()}
    guard = hook_command(base, GUARD_ARG, home)
    deny, allow = permission_rules(base, state_root)
    entry = {"type": "stdio", "command": command, "args": args}
    settings_change = json_change(
        settings_path,
        lambda d: merge_claude_settings(d, commands, deny, allow, timeout, str(settings_path), guard, state_root),
        f"UserPromptSubmit + SessionStart hooks and the PreToolUse (Bash) guard (timeout {timeout}s), "
        f"{len(deny)} deny rules for the person-only subcommands, allow the read-only MCP tools",
    )
    mcp_change = json_change(
        mcp_path,
        lambda d: merge_mcp_servers(d, entry, str(mcp_path)),
        f"MCP server {SERVER_NAME!r} (stdio)",
        mcp_mode,
    )
    notes = [
        "Claude Code asks once before it uses a project-scoped MCP server from .mcp.json; answer yes.",
        "Restart Claude Code (or run /hooks and /mcp) so it reads the new settings.",
    ]
    if scope == "project":
        notes.append(
            "These files name this machine's reasonix-tui path; to share them in git, run setup with "
            "--command reasonix-tui (then it must be on everyone's PATH)."
        )
    else:
        notes.append(
            f"Equivalent for the MCP part: claude mcp add --scope user {SERVER_NAME} -- "
            f"{shlex.join([command, *args])}"
        )
    notes += stale_backup_notes(settings_path, mcp_path)
    return SetupPlan("claude-code", scope, (settings_change, mcp_change), tuple(notes), state_root)

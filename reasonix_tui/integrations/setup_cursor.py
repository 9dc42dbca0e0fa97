"""``reasonix-tui setup cursor``: the MCP server in Cursor's ``mcp.json`` and the hooks in the ``hooks.json`` beside it."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .setup import (
    CURSOR_EVENTS,
    CURSOR_PROMPT_EVENT,
    SERVER_NAME,
    SetupPlan,
    checked_child,
    child_object,
    drop_if_emptied,
    hook_command,
    json_change,
    mcp_args,
    merge_mcp_servers,
    our_hook_arg,
    remove_mcp_servers,
    stale_backup_notes,
    user_home,
)

__all__ = ["merge_cursor_hooks", "plan_cursor"]


def merge_cursor_hooks(config: dict[str, Any], commands: dict[str, str], where: str = "hooks.json") -> dict[str, Any]:
    """A copy of a Cursor ``hooks.json`` (``{"version": 1, "hooks": {event: [{command}]}}``)
    where our entries are exactly ``commands`` (Cursor event → command line): an existing
    reasonix-tui entry is updated in place, a missing one appended, ours for other events
    removed; other hooks are kept."""
    out = copy.deepcopy(config)
    before = copy.deepcopy(out.get("hooks"))
    if before is None and not commands:
        return out
    if commands:
        out.setdefault("version", 1)
    hooks = child_object(out, "hooks", where)
    events = dict.fromkeys([*CURSOR_EVENTS, CURSOR_PROMPT_EVENT[0], *commands])
    for event in events:
        entries = checked_child(hooks, event, list, where)
        command = commands.get(event)
        if entries is None and command is None:
            continue
        entries = entries or []
        kept: list[Any] = []
        found = False
        for entry in entries:
            if isinstance(entry, dict) and our_hook_arg(entry.get("command")):
                if command is not None and not found:
                    kept.append({**entry, "command": command})
                    found = True
                continue
            kept.append(entry)
        if command is not None and not found:
            kept.append({"command": command})
        if kept:
            hooks[event] = kept
        elif event in hooks:
            del hooks[event]
    drop_if_emptied(out, "hooks", before)
    if not commands and set(out) == {"version"} and before:
        out = {}
    return out


def plan_cursor(
    scope: str,
    workspace: Path,
    *,
    base: Sequence[str],
    home: str | None = None,
    state_root: Path | None = None,
    remove: bool = False,
    prompt_hook: bool = False,
) -> SetupPlan:
    """The MCP server in ``<workspace>/.cursor/mcp.json`` (project) or ``~/.cursor/mcp.json``
    (user), and in ``hooks.json`` beside it the ``sessionStart`` hook and the
    ``beforeShellExecution`` guard (``prompt_hook``: also ``beforeSubmitPrompt``);
    ``remove`` takes them out."""
    if scope not in ("project", "user"):
        raise ValueError("scope must be project or user")
    path = (workspace if scope == "project" else user_home()) / ".cursor" / "mcp.json"
    hooks_path = path.parent / "hooks.json"
    if remove:
        change = json_change(
            path, lambda d: remove_mcp_servers(d, str(path)), f"remove the MCP server {SERVER_NAME!r}", removable=True
        )
        hooks_change = json_change(
            hooks_path,
            lambda d: merge_cursor_hooks(d, {}, str(hooks_path)),
            "remove reasonix-tui's hooks",
            removable=True,
        )
        return SetupPlan("cursor", scope, (change, hooks_change), (), state_root, remove=True)
    command, args = mcp_args(base, home, workspace_arg="${workspaceFolder}")
    entry = {"command": command, "args": args}
    change = json_change(path, lambda d: merge_mcp_servers(d, entry, str(path)), f"MCP server {SERVER_NAME!r} (stdio)")
    events = dict(CURSOR_EVENTS)
    if prompt_hook:
        events[CURSOR_PROMPT_EVENT[0]] = CURSOR_PROMPT_EVENT[1]
    commands = {event: hook_command(base, arg, home, "cursor") for event, arg in events.items()}
    what = "sessionStart (pinned guidance) and beforeShellExecution (the shell guard)"
    if prompt_hook:
        what += " and beforeSubmitPrompt (recall; not a documented Cursor route)"
    hooks_change = json_change(hooks_path, lambda d: merge_cursor_hooks(d, commands, str(hooks_path)), f"{what} hooks")
    notes = [
        "Enable the server in Cursor's Settings → MCP if it is not switched on by itself.",
        "Cursor reloads hooks.json on save; open a new chat. Its Hooks output channel shows each run.",
        "For Cursor, the MCP tools are the supported path to recall on each prompt (the `memory` tool); "
        "Cursor documents sessionStart context (used here) but not beforeSubmitPrompt context"
        + (" (added anyway: --prompt-hook)." if prompt_hook else " (add it with --prompt-hook to try it)."),
        *stale_backup_notes(path, hooks_path),
    ]
    return SetupPlan("cursor", scope, (change, hooks_change), tuple(notes), state_root)

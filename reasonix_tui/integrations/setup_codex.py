"""``reasonix-tui setup codex``: the MCP server in Codex's ``config.toml`` (tomlkit, comments and layout kept) and the hooks in ``hooks.json``."""

from __future__ import annotations

import copy
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
    SERVER_NAME,
    FileChange,
    SetupError,
    SetupPlan,
    claude_hook_entries,
    hook_command,
    json_change,
    mcp_args,
    merge_hook_events,
    read_config_text,
    stale_backup_notes,
    user_home,
)

__all__ = ["plan_codex", "merge_codex_hooks"]


def merge_codex_hooks(
    config: dict[str, Any],
    commands: dict[str, str],
    timeout: int = HOOK_TIMEOUT_SECONDS,
    where: str = "hooks.json",
    guard: str | None = None,
) -> dict[str, Any]:
    """A copy of a Codex ``hooks.json`` with our UserPromptSubmit and SessionStart hooks
    (and the ``PreToolUse`` guard on ``Bash``); ``commands`` empty and no ``guard``
    removes ours.

    Codex refuses a ``hooks.json`` whose root has keys other than ``description`` and
    ``hooks``; such a file is left alone (:class:`SetupError`), never "fixed"."""
    extra = sorted(k for k in config if k not in ("description", "hooks"))
    if extra:
        raise SetupError(f"{where} has keys Codex does not accept ({', '.join(extra)}); nothing was written")
    out = copy.deepcopy(config)
    merge_hook_events(out, claude_hook_entries(commands, guard, timeout), where, {GUARD_EVENT: GUARD_MATCHER})
    return out


def _codex_toml(path: Path, command: str | None, args: list[str] | None) -> FileChange:
    """``[mcp_servers.reasonix-tui]`` in Codex's ``config.toml`` set (or, ``command``
    ``None``, removed), comments and layout kept."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    before = read_config_text(path)
    try:
        doc = tomlkit.parse(before or "")
    except TOMLKitError as exc:
        raise SetupError(f"{path} is not valid TOML ({exc}); nothing was written") from None
    servers = doc.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise SetupError(f"{path}: mcp_servers is not a table; nothing was written")
    current = servers.get(SERVER_NAME) if servers is not None else None
    if command is None:
        if servers is None or SERVER_NAME not in servers:
            return FileChange(path, before, before, f"remove the MCP server {SERVER_NAME!r}")
        del servers[SERVER_NAME]
        if not servers:
            del doc["mcp_servers"]
        after = tomlkit.dumps(doc)
        if after.endswith("\n\n"):  # the blank line that set our table off, now at the end
            after = after.rstrip("\n") + "\n"
        return FileChange(path, before, after, f"remove the MCP server {SERVER_NAME!r}")
    if isinstance(current, dict) and current.get("command") == command and list(current.get("args", [])) == args:
        return FileChange(path, before, before or "", f"MCP server {SERVER_NAME!r} (stdio)")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = servers
    if isinstance(current, dict):
        current["command"] = command
        current["args"] = args
    else:
        table = tomlkit.table()
        table["command"] = command
        table["args"] = args
        servers[SERVER_NAME] = table
    return FileChange(path, before, tomlkit.dumps(doc), f"MCP server {SERVER_NAME!r} (stdio)")


def plan_codex(
    *,
    base: Sequence[str],
    home: str | None = None,
    timeout: int = HOOK_TIMEOUT_SECONDS,
    state_root: Path | None = None,
    remove: bool = False,
) -> SetupPlan:
    """``[mcp_servers.reasonix-tui]`` in ``~/.codex/config.toml`` (comments and layout kept)
    and, in ``~/.codex/hooks.json``, the UserPromptSubmit / SessionStart hooks and the
    PreToolUse (Bash) guard; ``remove`` takes them out."""
    path = user_home() / ".codex" / "config.toml"
    hooks_path = user_home() / ".codex" / "hooks.json"
    if remove:
        change = _codex_toml(path, None, None)
        hooks_change = json_change(
            hooks_path,
            lambda d: merge_codex_hooks(d, {}, timeout, str(hooks_path)),
            "remove reasonix-tui's hooks",
            removable=True,
        )
        return SetupPlan("codex", "user", (change, hooks_change), (), state_root, remove=True)
    command, args = mcp_args(base, home)
    change = _codex_toml(path, command, args)
    commands = {event: hook_command(base, arg, home, "codex") for event, arg in HOOK_EVENTS.items()}
    guard = hook_command(base, GUARD_ARG, home, "codex")
    hooks_change = json_change(
        hooks_path,
        lambda d: merge_codex_hooks(d, commands, timeout, str(hooks_path), guard),
        f"UserPromptSubmit + SessionStart hooks and the PreToolUse (Bash) guard (timeout {timeout}s)",
    )
    notes = (
        f"Equivalent for the MCP part: codex mcp add {SERVER_NAME} -- {shlex.join([command, *args])}",
        "Codex runs the server in its working directory: start Codex in the project.",
        "Codex asks you to review and trust new command hooks once (/hooks) before they run; "
        "Codex versions before hooks were on by default need [features] hooks = true in config.toml.",
        "Codex has no permission rules for shell commands; the PreToolUse guard denies the person-only "
        "subcommands to its shell, and the approval gate governs the memory tools.",
        *stale_backup_notes(path, hooks_path),
    )
    return SetupPlan("codex", "user", (change, hooks_change), notes, state_root)

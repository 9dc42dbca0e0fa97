"""``reasonix-tui setup claude-code | codex | cursor``: register hooks, the MCP server and
permission rules in an agent's own configuration files.

Every change is planned first (:func:`plan_claude_code`, :func:`plan_codex`,
:func:`plan_cursor` return a :class:`SetupPlan`), shown as a diff, and written only when
the person confirms. Writing never clobbers: the existing file is parsed (a file that
does not parse is left alone and reported), our entries are merged in, the previous
bytes are kept as ``<file>.bak``, and the new text replaces the file atomically (through
a symlink to its target). Running setup twice changes nothing the second time.

Claude Code gets:

* ``UserPromptSubmit`` and ``SessionStart`` command hooks running
  ``<reasonix-tui> hook user-prompt-submit`` / ``hook session-start`` with a timeout;
* the stdio MCP server ``reasonix-tui`` (``.mcp.json`` for the project scope,
  ``~/.claude.json`` ``mcpServers`` for the user scope);
* ``permissions.deny`` rules that keep the agent's own Bash tool from running the
  person-only subcommands (:data:`PERSON_ONLY`), an ``Edit`` deny rule for the state
  root, and ``permissions.allow`` for the two read-only MCP tools.

The rules narrow what the agent's shell can do; they are not a sandbox (see
``docs/agents.md``, "Threat model").
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.store.atomic import atomic_write

__all__ = [
    "SERVER_NAME",
    "PERSON_ONLY",
    "HOOK_TIMEOUT_SECONDS",
    "SetupError",
    "FileChange",
    "SetupPlan",
    "resolve_command",
    "hook_command",
    "mcp_args",
    "permission_rules",
    "merge_claude_settings",
    "merge_mcp_servers",
    "plan_claude_code",
    "plan_codex",
    "merge_codex_hooks",
    "merge_cursor_hooks",
    "plan_cursor",
]

SERVER_NAME = "reasonix-tui"
"""The MCP server name; Claude Code shows its tools as ``mcp__reasonix-tui__<tool>``."""

PERSON_ONLY = (
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
)
"""Subcommands that act as the person (no approval), or reconfigure the agent itself: the
agent's shell must not run them."""

READ_ONLY_TOOLS = ("memory", "history")
"""MCP tools that never write: allowed without a prompt."""

HOOK_TIMEOUT_SECONDS = 10
"""Timeout written for both hooks (the hook itself answers in well under a second)."""

HOOK_EVENTS = {"UserPromptSubmit": "user-prompt-submit", "SessionStart": "session-start"}
"""Claude Code hook event → our ``hook`` subcommand."""


class SetupError(Exception):
    """A configuration file cannot be merged safely (it is left untouched)."""


# --------------------------------------------------------------------------- commands


def resolve_command(override: str | None = None, argv0: str | None = None) -> list[str]:
    """The argv prefix that runs this reasonix-tui.

    ``override`` (``--command``) wins, split like a shell would. Otherwise the absolute
    path of the running ``reasonix-tui`` script, else the one on ``PATH``, else
    ``<python> -m reasonix_tui`` with this interpreter.
    """
    if override:
        parts = shlex.split(override)
        if parts:
            return parts
    arg0 = sys.argv[0] if argv0 is None else argv0
    if arg0 and Path(arg0).name.removesuffix(".exe").startswith("reasonix-tui"):
        p = Path(arg0)
        if not p.is_absolute():
            found = shutil.which(arg0) if os.sep not in arg0 else None
            p = Path(found) if found else p.absolute()
        if p.exists():
            return [os.path.normpath(str(p))]
    found = shutil.which("reasonix-tui")
    if found:
        return [os.path.abspath(found)]
    return [sys.executable, "-m", "reasonix_tui"]


def _global_options(home: str | None) -> list[str]:
    return ["--home", os.path.abspath(os.path.expanduser(home))] if home else []


def hook_command(base: Sequence[str], event: str, home: str | None = None) -> str:
    """The shell command line for one hook (``event`` is ``user-prompt-submit`` or ``session-start``)."""
    return shlex.join([*base, *_global_options(home), "hook", event])


def mcp_args(base: Sequence[str], home: str | None = None, workspace_arg: str | None = None) -> tuple[str, list[str]]:
    """``(command, args)`` for an MCP server entry."""
    args = [*base[1:], *_global_options(home), "mcp"]
    if workspace_arg:
        args += ["--workspace", workspace_arg]
    return base[0], args


def permission_rules(base: Sequence[str], state_root: Path | None = None) -> tuple[list[str], list[str]]:
    """``(deny, allow)`` rules for Claude Code's ``permissions``.

    Deny covers each person-only subcommand as the bare name, the absolute path written
    into the hooks, ``python -m reasonix_tui`` and global options before the subcommand.
    """
    prefixes = ["reasonix-tui"]
    exe = shlex.join(base)
    if exe not in prefixes:
        prefixes.append(exe)
    prefixes += ["python -m reasonix_tui", "python3 -m reasonix_tui"]
    deny: list[str] = []
    for sub in PERSON_ONLY:
        for prefix in prefixes:
            deny.append(f"Bash({prefix} {sub}:*)")
        # global options first (--home …): anchored on the dash, so an agent's own
        # `reasonix-tui remember --body "… memory save …"` is not caught
        deny.append(f"Bash(reasonix-tui -* {sub} *)")
    if state_root is not None:
        deny.append(f"Edit(/{state_root.as_posix()}/**)")
    allow = [f"mcp__{SERVER_NAME}__{tool}" for tool in READ_ONLY_TOOLS]
    return deny, allow


# --------------------------------------------------------------------------- merging


def _is_ours(command: str, event_arg: str) -> bool:
    try:
        parts = shlex.split(command)
    except ValueError:
        return False
    if not any(Path(p).name.startswith(("reasonix-tui", "reasonix_tui")) for p in parts):
        return False
    return any(parts[i] == "hook" and parts[i + 1] == event_arg for i in range(len(parts) - 1))


def _obj(parent: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = parent.get(key)
    if value is None:
        value = {}
        parent[key] = value
    if not isinstance(value, dict):
        raise SetupError(f"{where}: {key!r} is not an object; not touching it")
    return value


def _list(parent: dict[str, Any], key: str, where: str) -> list[Any]:
    value = parent.get(key)
    if value is None:
        value = []
        parent[key] = value
    if not isinstance(value, list):
        raise SetupError(f"{where}: {key!r} is not a list; not touching it")
    return value


def merge_claude_settings(
    settings: dict[str, Any],
    commands: dict[str, str],
    deny: Sequence[str],
    allow: Sequence[str],
    timeout: int = HOOK_TIMEOUT_SECONDS,
    where: str = "settings.json",
) -> dict[str, Any]:
    """A copy of Claude Code ``settings`` with our hooks and rules merged in.

    ``commands`` maps the event name (``UserPromptSubmit``, ``SessionStart``) to the
    command line. An existing reasonix-tui hook for the event is updated in place;
    otherwise a new matcher group is appended. Rules are appended when missing. Every
    other key is kept as it was.
    """
    out = copy.deepcopy(settings)
    _merge_hook_groups(_obj(out, "hooks", where), commands, timeout, where)
    perms = _obj(out, "permissions", where)
    for key, rules in (("deny", deny), ("allow", allow)):
        if not rules:
            continue
        existing = _list(perms, key, where)
        for rule in rules:
            if rule not in existing:
                existing.append(rule)
    return out


def _merge_hook_groups(hooks: dict[str, Any], commands: dict[str, str], timeout: int, where: str) -> None:
    """Set our command hook for each event in a ``hooks`` object (Claude Code and Codex share
    the shape: event → matcher groups → handlers). An existing reasonix-tui handler is
    updated in place; otherwise a matcher group is appended."""
    for event, command in commands.items():
        groups = _list(hooks, event, where)
        event_arg = HOOK_EVENTS[event]
        entry = {"type": "command", "command": command, "timeout": timeout}
        found = False
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            for i, hook in enumerate(group["hooks"]):
                if isinstance(hook, dict) and _is_ours(str(hook.get("command", "")), event_arg):
                    if not found:
                        group["hooks"][i] = {**hook, **entry}
                        found = True
        if not found:
            groups.append({"hooks": [entry]})


def merge_codex_hooks(
    config: dict[str, Any], commands: dict[str, str], timeout: int = HOOK_TIMEOUT_SECONDS, where: str = "hooks.json"
) -> dict[str, Any]:
    """A copy of a Codex ``hooks.json`` with our UserPromptSubmit and SessionStart hooks.

    Codex refuses a ``hooks.json`` whose root has keys other than ``description`` and
    ``hooks``; such a file is left alone (:class:`SetupError`), never "fixed"."""
    extra = sorted(k for k in config if k not in ("description", "hooks"))
    if extra:
        raise SetupError(f"{where} has keys Codex does not accept ({', '.join(extra)}); nothing was written")
    out = copy.deepcopy(config)
    _merge_hook_groups(_obj(out, "hooks", where), commands, timeout, where)
    return out


CURSOR_EVENTS = {"beforeSubmitPrompt": "user-prompt-submit", "sessionStart": "session-start"}
"""Cursor hook event → our ``hook`` subcommand (printed in Cursor's shape with ``--format cursor``)."""


def merge_cursor_hooks(config: dict[str, Any], commands: dict[str, str], where: str = "hooks.json") -> dict[str, Any]:
    """A copy of a Cursor ``hooks.json`` (``{"version": 1, "hooks": {event: [{command}]}}``)
    with our ``beforeSubmitPrompt`` and ``sessionStart`` commands; other hooks are kept and
    an existing reasonix-tui entry is updated in place."""
    out = copy.deepcopy(config)
    out.setdefault("version", 1)
    hooks = _obj(out, "hooks", where)
    for event, command in commands.items():
        entries = _list(hooks, event, where)
        event_arg = CURSOR_EVENTS[event]
        found = False
        for i, entry in enumerate(entries):
            if isinstance(entry, dict) and _is_ours(str(entry.get("command", "")), event_arg):
                if not found:
                    entries[i] = {**entry, "command": command}
                    found = True
        if not found:
            entries.append({"command": command})
    return out


def merge_mcp_servers(config: dict[str, Any], entry: dict[str, Any], where: str = "mcp.json") -> dict[str, Any]:
    """A copy of ``config`` with ``mcpServers[SERVER_NAME]`` set to ``entry`` (other servers kept)."""
    out = copy.deepcopy(config)
    servers = _obj(out, "mcpServers", where)
    current = servers.get(SERVER_NAME)
    servers[SERVER_NAME] = {**current, **entry} if isinstance(current, dict) else dict(entry)
    return out


# --------------------------------------------------------------------------- plans


@dataclass(frozen=True, slots=True)
class FileChange:
    """One configuration file: its text now and after the merge."""

    path: Path
    """The file (as the person knows it; symlinks are followed when writing)."""
    before: str | None
    """Current text, or ``None`` when the file does not exist."""
    after: str
    """Text after the merge."""
    summary: str
    """What the change adds, in one line."""
    mode: int = 0o644
    """Permission bits for a new file (an existing file keeps its own)."""

    @property
    def changed(self) -> bool:
        """True when writing would change the file."""
        return self.before != self.after

    def diff(self) -> str:
        """Unified diff (the whole new file when it does not exist yet)."""
        if not self.changed:
            return ""
        before = [] if self.before is None else self.before.splitlines(keepends=True)
        after = self.after.splitlines(keepends=True)
        label = str(self.path)
        return "".join(
            difflib.unified_diff(before, after, fromfile=label if self.before is not None else "/dev/null",
                                 tofile=label, n=3)
        )


@dataclass(frozen=True, slots=True)
class SetupPlan:
    """Everything ``setup`` would write for one agent."""

    agent: str
    """``claude-code``, ``codex`` or ``cursor``."""
    scope: str
    """``project`` or ``user``."""
    changes: tuple[FileChange, ...]
    """Files to merge into."""
    notes: tuple[str, ...] = field(default=())
    """Things the person should know (printed after the diff)."""

    @property
    def pending(self) -> tuple[FileChange, ...]:
        """Changes that would actually modify a file."""
        return tuple(c for c in self.changes if c.changed)

    def render(self) -> str:
        """What would be written, for a person to read before confirming."""
        lines: list[str] = [f"reasonix-tui setup {self.agent} ({self.scope} scope)", ""]
        for change in self.changes:
            if change.changed:
                state = "new file" if change.before is None else "merge"
                lines.append(f"{change.path} ({state}): {change.summary}")
                lines.append(change.diff().rstrip("\n"))
            else:
                lines.append(f"{change.path}: already set up, nothing to change")
            lines.append("")
        for note in self.notes:
            lines.append(f"note: {note}")
        return "\n".join(lines).rstrip("\n") + "\n"

    def apply(self) -> list[tuple[Path, Path | None]]:
        """Write every pending change: backup, then an atomic replace.

        Returns ``(file, backup or None)`` pairs. A file that changed on disk since the
        plan was made is not overwritten (:class:`SetupError`).
        """
        written: list[tuple[Path, Path | None]] = []
        for change in self.pending:
            target = Path(os.path.realpath(change.path))
            current = _read_text(target)
            if current != change.before:
                raise SetupError(f"{change.path} changed while setup was running; run setup again")
            backup: Path | None = None
            mode = change.mode
            if current is not None:
                backup = _backup_path(target)
                atomic_write(backup, current.encode("utf-8"), mode=0o600)
                mode = target.stat().st_mode & 0o777
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, change.after.encode("utf-8"), mode=mode)
            written.append((change.path, backup))
        return written


def _backup_path(target: Path) -> Path:
    backup = target.with_name(target.name + ".bak")
    if backup.exists():
        backup = target.with_name(f"{target.name}.bak.{time.strftime('%Y%m%dT%H%M%S')}")
    return backup


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise SetupError(f"{path} is not UTF-8 text; not touching it") from None


def _load_json(path: Path) -> tuple[str | None, dict[str, Any]]:
    text = _read_text(path)
    if text is None or not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SetupError(f"{path} is not valid JSON ({exc}); fix it or move it aside, nothing was written") from None
    if not isinstance(data, dict):
        raise SetupError(f"{path} does not hold a JSON object; nothing was written")
    return text, data


def _json_change(path: Path, merge: Callable[[dict[str, Any]], dict[str, Any]], summary: str,
                 mode: int = 0o644) -> FileChange:
    before, data = _load_json(path)
    merged = merge(data)
    if before is not None and merged == data:
        return FileChange(path, before, before, summary, mode)
    return FileChange(path, before, json.dumps(merged, indent=2, ensure_ascii=False) + "\n", summary, mode)


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def plan_claude_code(
    scope: str,
    workspace: Path,
    *,
    base: Sequence[str],
    state_root: Path | None = None,
    home: str | None = None,
    timeout: int = HOOK_TIMEOUT_SECONDS,
) -> SetupPlan:
    """Hooks + MCP server + permission rules for Claude Code.

    ``scope`` ``project``: ``<workspace>/.claude/settings.json`` and ``<workspace>/.mcp.json``;
    ``user``: ``~/.claude/settings.json`` and ``~/.claude.json``.
    """
    if scope not in ("project", "user"):
        raise ValueError("scope must be project or user")
    commands = {event: hook_command(base, arg, home) for event, arg in HOOK_EVENTS.items()}
    deny, allow = permission_rules(base, state_root)
    if scope == "project":
        settings_path = workspace / ".claude" / "settings.json"
        mcp_path = workspace / ".mcp.json"
        mcp_mode = 0o644
    else:
        settings_path = _home() / ".claude" / "settings.json"
        mcp_path = _home() / ".claude.json"
        mcp_mode = 0o600
    command, args = mcp_args(base, home)
    entry = {"type": "stdio", "command": command, "args": args}
    settings_change = _json_change(
        settings_path,
        lambda d: merge_claude_settings(d, commands, deny, allow, timeout, str(settings_path)),
        f"UserPromptSubmit + SessionStart hooks (timeout {timeout}s), {len(deny)} deny rules for the "
        f"person-only subcommands, allow the read-only MCP tools",
    )
    mcp_change = _json_change(
        mcp_path, lambda d: merge_mcp_servers(d, entry, str(mcp_path)),
        f"MCP server {SERVER_NAME!r} (stdio)", mcp_mode,
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
        notes.append(f"Equivalent for the MCP part: claude mcp add --scope user {SERVER_NAME} -- "
                     f"{shlex.join([command, *args])}")
    return SetupPlan("claude-code", scope, (settings_change, mcp_change), tuple(notes))


def plan_codex(*, base: Sequence[str], home: str | None = None, timeout: int = HOOK_TIMEOUT_SECONDS) -> SetupPlan:
    """``[mcp_servers.reasonix-tui]`` in ``~/.codex/config.toml`` (comments and layout kept)
    and the UserPromptSubmit / SessionStart hooks in ``~/.codex/hooks.json``."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    path = _home() / ".codex" / "config.toml"
    before = _read_text(path)
    try:
        doc = tomlkit.parse(before or "")
    except TOMLKitError as exc:
        raise SetupError(f"{path} is not valid TOML ({exc}); nothing was written") from None
    command, args = mcp_args(base, home)
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = servers
    elif not isinstance(servers, dict):
        raise SetupError(f"{path}: mcp_servers is not a table; nothing was written")
    current = servers.get(SERVER_NAME)
    if isinstance(current, dict) and current.get("command") == command and list(current.get("args", [])) == args:
        after = before or ""
    else:
        if isinstance(current, dict):
            current["command"] = command
            current["args"] = args
        else:
            table = tomlkit.table()
            table["command"] = command
            table["args"] = args
            servers[SERVER_NAME] = table
        after = tomlkit.dumps(doc)
    change = FileChange(path, before, after if after else "", f"MCP server {SERVER_NAME!r} (stdio)")
    commands = {event: hook_command(base, arg, home) for event, arg in HOOK_EVENTS.items()}
    hooks_path = _home() / ".codex" / "hooks.json"
    hooks_change = _json_change(
        hooks_path, lambda d: merge_codex_hooks(d, commands, timeout, str(hooks_path)),
        f"UserPromptSubmit + SessionStart hooks (timeout {timeout}s): recall and pinned guidance",
    )
    notes = (
        f"Equivalent for the MCP part: codex mcp add {SERVER_NAME} -- {shlex.join([command, *args])}",
        "Codex runs the server in its working directory: start Codex in the project.",
        "Codex asks you to review and trust new command hooks once (/hooks) before they run; "
        "Codex versions before hooks were on by default need [features] hooks = true in config.toml.",
        "Codex has no permission rules for shell commands: the approval gate governs the memory "
        "tools; keep the Context Center open to answer proposals.",
    )
    return SetupPlan("codex", "user", (change, hooks_change), notes)


def plan_cursor(scope: str, workspace: Path, *, base: Sequence[str], home: str | None = None) -> SetupPlan:
    """The MCP server in ``<workspace>/.cursor/mcp.json`` (project) or ``~/.cursor/mcp.json``
    (user), and the ``beforeSubmitPrompt`` / ``sessionStart`` hooks in ``hooks.json`` beside it."""
    if scope not in ("project", "user"):
        raise ValueError("scope must be project or user")
    path = (workspace if scope == "project" else _home()) / ".cursor" / "mcp.json"
    command, args = mcp_args(base, home, workspace_arg="${workspaceFolder}")
    entry = {"command": command, "args": args}
    change = _json_change(path, lambda d: merge_mcp_servers(d, entry, str(path)), f"MCP server {SERVER_NAME!r} (stdio)")
    hooks_path = path.parent / "hooks.json"
    commands = {
        event: shlex.join([*base, *_global_options(home), "hook", arg, "--format", "cursor"])
        for event, arg in CURSOR_EVENTS.items()
    }
    hooks_change = _json_change(
        hooks_path, lambda d: merge_cursor_hooks(d, commands, str(hooks_path)),
        "beforeSubmitPrompt + sessionStart hooks: recall for each prompt, pinned guidance at the start",
    )
    notes = (
        "Enable the server in Cursor's Settings → MCP if it is not switched on by itself.",
        "Cursor reloads hooks.json on save; open a new chat. Its Hooks output channel shows each run.",
        "Cursor attaches beforeSubmitPrompt context with a field its docs do not list yet "
        "(additional_context, accepted by the client); sessionStart context is documented.",
    )
    return SetupPlan("cursor", scope, (change, hooks_change), notes)

"""``reasonix-tui setup claude-code | codex | cursor [--remove]``: register (or remove)
hooks, the MCP server and permission rules in an agent's own configuration files.

Every change is planned first (one module per agent: :func:`.setup_claude.plan_claude_code`,
:func:`.setup_codex.plan_codex`, :func:`.setup_cursor.plan_cursor` return a :class:`SetupPlan`),
shown as a diff, and written only when the person confirms. This module holds what they
share: the commands written, the edits of hook lists and MCP server entries, the plan. Writing never clobbers:

* the existing file is parsed (a file that does not parse, or has an unexpected shape,
  is left alone and reported);
* only the entries we own change: JSON files are edited in place (:mod:`.jsonedit`: key
  order, indentation and every other byte kept), TOML through :mod:`tomlkit`;
* the previous bytes are kept under ``<state root>/reasonix-tui/backups/<time>/`` (never
  inside the project), and the new text replaces the file atomically (through a symlink
  to its target);
* running setup twice changes nothing the second time; running it with another
  ``--command`` or from another install path replaces our earlier entries instead of
  adding more.

"Ours" is recognised by shape, not remembered: a hook handler that runs a program named
``reasonix-tui`` (or ``python -m reasonix_tui``) with ``hook <event>``, the deny rules
this module generates for any such program, the ``Edit`` rule for a Reasonix state root,
the ``mcp__reasonix-tui__*`` allow rules and the ``reasonix-tui`` MCP server entry.
``--remove`` takes exactly those out (also those from an earlier ``--command`` or install
path) and keeps everything else; containers that held nothing but ours go with them,
and a file left holding nothing is removed (its backup kept).

Claude Code gets:

* ``UserPromptSubmit`` and ``SessionStart`` command hooks running
  ``<reasonix-tui> hook user-prompt-submit`` / ``hook session-start`` with a timeout;
* a ``PreToolUse`` hook on ``Bash`` running ``hook pre-tool-use``: the shell guard
  (:mod:`.shell_guard`) that denies the person-only subcommands whatever global options
  come first, which prefix rules cannot do without also denying the agent's own verbs;
* the stdio MCP server ``reasonix-tui`` (``.mcp.json`` for the project scope,
  ``~/.claude.json`` ``mcpServers`` for the user scope);
* ``permissions.deny`` prefix rules for the person-only subcommands (:data:`.shell_guard.PERSON_ONLY`)
  in their plain forms, an ``Edit`` deny rule for the state root, and
  ``permissions.allow`` for the two read-only MCP tools.

Codex gets the MCP server in ``~/.codex/config.toml`` and the two context hooks plus the
shell guard in ``~/.codex/hooks.json``; Cursor the MCP server and the ``sessionStart``
hook plus the guard (``beforeShellExecution``) in ``.cursor/`` — its documented routes
(``beforeSubmitPrompt`` context only with ``--prompt-hook``: Cursor does not document it).

The rules and the guard narrow what the agent's shell can do; they are not a sandbox
(see ``docs/agents.md``, "Threat model").
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
from . import jsonedit

__all__ = [
    "SERVER_NAME",
    "HOOK_TIMEOUT_SECONDS",
    "SetupError",
    "FileChange",
    "SetupPlan",
    "resolve_command",
    "hook_command",
    "mcp_args",
    "merge_mcp_servers",
    "remove_mcp_servers",
    "backup_dir",
]

SERVER_NAME = "reasonix-tui"
"""The MCP server name; Claude Code shows its tools as ``mcp__reasonix-tui__<tool>``."""

READ_ONLY_TOOLS = ("memory", "history")
"""MCP tools that never write: allowed without a prompt."""

HOOK_TIMEOUT_SECONDS = 10
"""Timeout written for the hooks (the hook itself answers in well under a second)."""

HOOK_EVENTS = {"UserPromptSubmit": "user-prompt-submit", "SessionStart": "session-start"}
"""Claude Code / Codex hook event → our ``hook`` subcommand."""

GUARD_EVENT = "PreToolUse"
GUARD_MATCHER = "Bash"
GUARD_ARG = "pre-tool-use"

CURSOR_EVENTS = {"sessionStart": "session-start", "beforeShellExecution": GUARD_ARG}
"""Cursor hook event → our ``hook`` subcommand (``--format cursor``): its documented routes."""

CURSOR_PROMPT_EVENT = ("beforeSubmitPrompt", "user-prompt-submit")
"""Per-prompt recall for Cursor: context injection there is not on Cursor's docs page, so
only with ``setup cursor --prompt-hook``."""

_OUR_HOOK_ARGS = ("user-prompt-submit", "session-start", GUARD_ARG)


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


def hook_command(base: Sequence[str], event: str, home: str | None = None, fmt: str = "") -> str:
    """The shell command line for one hook (``event``: ``user-prompt-submit``,
    ``session-start`` or ``pre-tool-use``; ``fmt``: ``codex`` or ``cursor`` for those clients)."""
    return shlex.join([*base, *_global_options(home), "hook", event, *(["--format", fmt] if fmt else [])])


def mcp_args(base: Sequence[str], home: str | None = None, workspace_arg: str | None = None) -> tuple[str, list[str]]:
    """``(command, args)`` for an MCP server entry."""
    args = [*base[1:], *_global_options(home), "mcp"]
    if workspace_arg:
        args += ["--workspace", workspace_arg]
    return base[0], args


# --------------------------------------------------------------------------- hooks: ours


def our_hook_arg(command: Any) -> str:
    """Our ``hook`` subcommand in a handler's command line, or ``""`` when it is not ours."""
    if not isinstance(command, str):
        return ""
    try:
        parts = shlex.split(command)
    except ValueError:
        return ""
    rest = parts[len(_program(parts)) :] if _program(parts) else []
    for i in range(len(rest) - 1):
        if rest[i] == "hook" and rest[i + 1] in _OUR_HOOK_ARGS:
            return rest[i + 1]
    return ""


def _program(words: Sequence[str]) -> list[str]:
    """The words up to and including the program (``reasonix-tui`` or ``-m reasonix_tui``),
    global options after it left out."""
    for j, word in enumerate(words):
        if os.path.basename(word).removesuffix(".exe") == "reasonix-tui":
            return list(words[: j + 1])
        if word == "reasonix_tui" and j > 0 and words[j - 1] == "-m":
            return list(words[: j + 1])
    return []


def child_object(parent: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    """``parent[key]``, made an empty object when absent; :class:`SetupError` when it is not an object."""
    value = parent.get(key)
    if value is None:
        value = {}
        parent[key] = value
    if not isinstance(value, dict):
        raise SetupError(f"{where}: {key!r} is not an object; not touching it")
    return value


def child_list(parent: dict[str, Any], key: str, where: str) -> list[Any]:
    """``parent[key]``, made an empty list when absent; :class:`SetupError` when it is not a list."""
    value = parent.get(key)
    if value is None:
        value = []
        parent[key] = value
    if not isinstance(value, list):
        raise SetupError(f"{where}: {key!r} is not a list; not touching it")
    return value


def checked_child(parent: dict[str, Any], key: str, kind: type, where: str) -> Any:
    """``parent[key]`` (``None`` when absent); :class:`SetupError` when it is not of ``kind``."""
    value = parent.get(key)
    if value is not None and not isinstance(value, kind):
        raise SetupError(f"{where}: {key!r} is not {'an object' if kind is dict else 'a list'}; not touching it")
    return value


def _set_groups(
    hooks: dict[str, Any], event: str, arg: str, entry: dict[str, Any] | None, where: str, matcher: str | None = None
) -> None:
    """Make ``event`` hold exactly one handler of ours for ``arg`` (``entry``), or none
    (``entry`` ``None``). The first of ours is updated in place; other copies go; a new
    matcher group is appended when there was none. Groups and the event's list that held
    only our handlers go with them."""
    groups = checked_child(hooks, event, list, where)
    if groups is None:
        groups = []
    found = False
    kept_groups: list[Any] = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept_groups.append(group)
            continue
        handlers = []
        had = len(group["hooks"])
        for hook in group["hooks"]:
            if isinstance(hook, dict) and our_hook_arg(hook.get("command")) == arg:
                if entry is not None and not found:
                    handlers.append({**hook, **entry})
                    found = True
                continue
            handlers.append(hook)
        if handlers or not had:
            kept_groups.append(
                {**group, "hooks": handlers} if len(handlers) != had or handlers != group["hooks"] else group
            )
    if entry is not None and not found:
        group_new: dict[str, Any] = {"matcher": matcher, "hooks": [entry]} if matcher else {"hooks": [entry]}
        kept_groups.append(group_new)
    if kept_groups:
        hooks[event] = kept_groups
    elif event in hooks and groups:
        del hooks[event]


def drop_if_emptied(parent: dict[str, Any], key: str, before: Any) -> None:
    """Remove ``parent[key]`` when our removal emptied it (it held something before)."""
    value = parent.get(key)
    if isinstance(value, (dict, list)) and not value and before:
        del parent[key]


def merge_hook_events(
    doc: dict[str, Any],
    wanted: dict[tuple[str, str], dict[str, Any] | None],
    where: str,
    matchers: dict[str, str] | None = None,
) -> None:
    """Apply ``wanted`` ((event, our arg) → handler, or ``None`` to remove) to ``doc["hooks"]``."""
    before = copy.deepcopy(doc.get("hooks"))
    if before is None and all(v is None for v in wanted.values()):
        return
    hooks = child_object(doc, "hooks", where)
    for (event, arg), entry in wanted.items():
        _set_groups(hooks, event, arg, entry, where, (matchers or {}).get(event))
    drop_if_emptied(doc, "hooks", before)


def claude_hook_entries(
    commands: dict[str, str] | None, guard: str | None, timeout: int
) -> dict[tuple[str, str], dict[str, Any] | None]:
    """Our Claude Code / Codex hook handlers, (event, our arg) → handler (``None``: remove ours)."""
    wanted: dict[tuple[str, str], dict[str, Any] | None] = {}
    for event, arg in HOOK_EVENTS.items():
        command = (commands or {}).get(event)
        wanted[(event, arg)] = {"type": "command", "command": command, "timeout": timeout} if command else None
    wanted[(GUARD_EVENT, GUARD_ARG)] = {"type": "command", "command": guard, "timeout": timeout} if guard else None
    return wanted


def merge_mcp_servers(config: dict[str, Any], entry: dict[str, Any], where: str = "mcp.json") -> dict[str, Any]:
    """A copy of ``config`` with ``mcpServers[SERVER_NAME]`` set to ``entry`` (other servers kept)."""
    out = copy.deepcopy(config)
    servers = child_object(out, "mcpServers", where)
    current = servers.get(SERVER_NAME)
    servers[SERVER_NAME] = {**current, **entry} if isinstance(current, dict) else dict(entry)
    return out


def remove_mcp_servers(config: dict[str, Any], where: str = "mcp.json") -> dict[str, Any]:
    """A copy of ``config`` without ``mcpServers[SERVER_NAME]`` (an ``mcpServers`` that
    held only ours goes too)."""
    out = copy.deepcopy(config)
    servers = checked_child(out, "mcpServers", dict, where)
    if servers and SERVER_NAME in servers:
        before = dict(servers)
        del servers[SERVER_NAME]
        drop_if_emptied(out, "mcpServers", before)
    return out


# --------------------------------------------------------------------------- plans


@dataclass(frozen=True, slots=True)
class FileChange:
    """One configuration file: its text now and after the merge."""

    path: Path
    """The file (as the person knows it; symlinks are followed when writing)."""
    before: str | None
    """Current text, or ``None`` when the file does not exist."""
    after: str | None
    """Text after the merge; ``None``: the file is removed (it held only our entries)."""
    summary: str
    """What the change does, in one line."""
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
        after = [] if self.after is None else self.after.splitlines(keepends=True)
        label = str(self.path)
        return "".join(
            difflib.unified_diff(
                before,
                after,
                fromfile=label if self.before is not None else "/dev/null",
                tofile=label if self.after is not None else "/dev/null",
                n=3,
            )
        )


def backup_dir(state_root: Path) -> Path:
    """``<state root>/reasonix-tui/backups``: where setup keeps the files it changed."""
    return Path(state_root) / "reasonix-tui" / "backups"


@dataclass(frozen=True, slots=True)
class SetupPlan:
    """Everything ``setup`` (or ``setup --remove``) would write for one agent."""

    agent: str
    """``claude-code``, ``codex`` or ``cursor``."""
    scope: str
    """``project`` or ``user``."""
    changes: tuple[FileChange, ...]
    """Files to merge into."""
    notes: tuple[str, ...] = field(default=())
    """Things the person should know (printed after the diff)."""
    state_root: Path | None = None
    """Where backups go (``backups/<time>/<the file's absolute path>``)."""
    remove: bool = False
    """This plan takes our entries out."""

    @property
    def pending(self) -> tuple[FileChange, ...]:
        """Changes that would actually modify a file."""
        return tuple(c for c in self.changes if c.changed)

    def render(self) -> str:
        """What would be written, for a person to read before confirming."""
        verb = " --remove" if self.remove else ""
        lines: list[str] = [f"reasonix-tui setup {self.agent}{verb} ({self.scope} scope)", ""]
        for change in self.changes:
            if change.changed:
                state = (
                    "new file"
                    if change.before is None
                    else "remove file (nothing else in it)"
                    if change.after is None
                    else "edit"
                )
                lines.append(f"{change.path} ({state}): {change.summary}")
                lines.append(change.diff().rstrip("\n"))
            elif self.remove:
                lines.append(f"{change.path}: nothing of reasonix-tui in it")
            else:
                lines.append(f"{change.path}: already set up, nothing to change")
            lines.append("")
        for note in self.notes:
            lines.append(f"note: {note}")
        return "\n".join(lines).rstrip("\n") + "\n"

    def apply(self) -> list[tuple[Path, Path | None]]:
        """Write every pending change: backup, then an atomic replace (or the removal).

        Returns ``(file, backup or None)`` pairs. A file that changed on disk since the
        plan was made is not overwritten (:class:`SetupError`).
        """
        written: list[tuple[Path, Path | None]] = []
        stamp = time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
        for change in self.pending:
            target = Path(os.path.realpath(change.path))
            current = read_config_text(target)
            if current != change.before:
                raise SetupError(f"{change.path} changed while setup was running; run setup again")
            backup: Path | None = None
            mode = change.mode
            if current is not None:
                backup = self._backup(target, current, stamp)
                mode = target.stat().st_mode & 0o777
            if change.after is None:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(target, change.after.encode("utf-8"), mode=mode)
            written.append((change.path, backup))
        return written

    def _backup(self, target: Path, text: str, stamp: str) -> Path:
        if self.state_root is None:
            raise SetupError("no state root to keep backups in")
        rel = Path(*[p for p in target.parts if p not in (target.anchor, "")])
        backup = backup_dir(self.state_root) / stamp / rel
        backup.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for parent in [backup.parent, *backup.parent.parents]:
            if parent == backup_dir(self.state_root).parent:
                break
            try:
                os.chmod(parent, 0o700)
            except OSError:
                pass
        atomic_write(backup, text.encode("utf-8"), mode=0o600)
        return backup


def read_config_text(path: Path) -> str | None:
    """A configuration file's text (``None`` when it does not exist); :class:`SetupError` when it is not UTF-8."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise SetupError(f"{path} is not UTF-8 text; not touching it") from None


def _load_json(path: Path) -> tuple[str | None, dict[str, Any]]:
    text = read_config_text(path)
    if text is None or not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SetupError(f"{path} is not valid JSON ({exc}); fix it or move it aside, nothing was written") from None
    if not isinstance(data, dict):
        raise SetupError(f"{path} does not hold a JSON object; nothing was written")
    return text, data


_EMPTY_DOCS: tuple[dict[str, Any], dict[str, Any]] = ({}, {"version": 1})


def json_change(
    path: Path,
    merge: Callable[[dict[str, Any]], dict[str, Any]],
    summary: str,
    mode: int = 0o644,
    removable: bool = False,
) -> FileChange:
    """The change ``merge`` makes to the JSON file at ``path``, written as a minimal edit.
    ``removable``: a file left holding nothing (``{}``) is removed instead."""
    before, data = _load_json(path)
    merged = merge(data)
    if before is not None and merged == data and list(merged) == list(data):
        return FileChange(path, before, before, summary, mode)
    if before is None and merged in _EMPTY_DOCS:
        return FileChange(path, None, None, summary, mode)  # nothing to add, nothing to remove
    if removable and before is not None and merged in _EMPTY_DOCS and data not in _EMPTY_DOCS:
        return FileChange(path, before, None, summary, mode)
    return FileChange(path, before, jsonedit.update(before, merged), summary, mode)


def user_home() -> Path:
    """The person's home directory (where user-scope configuration lives)."""
    return Path(os.path.expanduser("~"))


def stale_backup_notes(*paths: Path) -> list[str]:
    """A note about ``.bak`` files earlier versions of setup left beside these files."""
    found = [str(p) for path in paths for p in sorted(path.parent.glob(path.name + ".bak*")) if p.is_file()]
    if not found:
        return []
    return [
        f"earlier versions of setup left backups beside the files: {', '.join(found)} "
        "(backups now go to the state root; delete these when you no longer need them)"
    ]

"""``reasonix-tui setup claude-code | codex | cursor [--remove]``: register (or remove)
hooks, the MCP server and permission rules in an agent's own configuration files.

Every change is planned first (:func:`plan_claude_code`, :func:`plan_codex`,
:func:`plan_cursor` return a :class:`SetupPlan`), shown as a diff, and written only when
the person confirms. Writing never clobbers:

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
* ``permissions.deny`` prefix rules for the person-only subcommands (:data:`PERSON_ONLY`)
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
import re
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
from .shell_guard import PERSON_ONLY

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
    "is_our_rule",
    "merge_claude_settings",
    "remove_claude_settings",
    "merge_mcp_servers",
    "remove_mcp_servers",
    "plan_claude_code",
    "plan_codex",
    "merge_codex_hooks",
    "merge_cursor_hooks",
    "plan_cursor",
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


# --------------------------------------------------------------------------- hooks: ours


def _hook_arg(command: Any) -> str:
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


def _check(parent: dict[str, Any], key: str, kind: type, where: str) -> Any:
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
    groups = _check(hooks, event, list, where)
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
            if isinstance(hook, dict) and _hook_arg(hook.get("command")) == arg:
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


def _drop_if_emptied(parent: dict[str, Any], key: str, before: Any) -> None:
    """Remove ``parent[key]`` when our removal emptied it (it held something before)."""
    value = parent.get(key)
    if isinstance(value, (dict, list)) and not value and before:
        del parent[key]


def _merge_hook_events(
    doc: dict[str, Any],
    wanted: dict[tuple[str, str], dict[str, Any] | None],
    where: str,
    matchers: dict[str, str] | None = None,
) -> None:
    """Apply ``wanted`` ((event, our arg) → handler, or ``None`` to remove) to ``doc["hooks"]``."""
    before = copy.deepcopy(doc.get("hooks"))
    if before is None and all(v is None for v in wanted.values()):
        return
    hooks = _obj(doc, "hooks", where)
    for (event, arg), entry in wanted.items():
        _set_groups(hooks, event, arg, entry, where, (matchers or {}).get(event))
    _drop_if_emptied(doc, "hooks", before)


def _merge_rules(
    doc: dict[str, Any], deny: Sequence[str], allow: Sequence[str], state_root: Path | None, where: str
) -> None:
    """Our rules become exactly ``deny``/``allow`` (stale ones of ours removed, missing ones appended)."""
    before = copy.deepcopy(doc.get("permissions"))
    if before is None and not deny and not allow:
        return
    perms = _obj(doc, "permissions", where)
    for key, rules in (("deny", deny), ("allow", allow)):
        old = _check(perms, key, list, where)
        if old is None and not rules:
            continue
        existing = _list(perms, key, where)
        kept = [r for r in existing if not is_our_rule(r, state_root) or r in rules]
        deduped: list[Any] = []
        for r in kept:
            if r in rules and r in deduped:
                continue
            deduped.append(r)
        deduped += [r for r in rules if r not in deduped]
        perms[key] = deduped
        _drop_if_emptied(perms, key, old)
    _drop_if_emptied(doc, "permissions", before)


def _claude_wanted(
    commands: dict[str, str] | None, guard: str | None, timeout: int
) -> dict[tuple[str, str], dict[str, Any] | None]:
    wanted: dict[tuple[str, str], dict[str, Any] | None] = {}
    for event, arg in HOOK_EVENTS.items():
        command = (commands or {}).get(event)
        wanted[(event, arg)] = {"type": "command", "command": command, "timeout": timeout} if command else None
    wanted[(GUARD_EVENT, GUARD_ARG)] = {"type": "command", "command": guard, "timeout": timeout} if guard else None
    return wanted


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
    _merge_hook_events(out, _claude_wanted(commands, guard, timeout), where, {GUARD_EVENT: GUARD_MATCHER})
    _merge_rules(out, deny, allow, state_root, where)
    return out


def remove_claude_settings(
    settings: dict[str, Any], where: str = "settings.json", state_root: Path | None = None
) -> dict[str, Any]:
    """A copy of Claude Code ``settings`` without any of our hooks and rules."""
    out = copy.deepcopy(settings)
    _merge_hook_events(out, _claude_wanted(None, None, 0), where)
    _merge_rules(out, [], [], state_root, where)
    return out


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
    _merge_hook_events(out, _claude_wanted(commands, guard, timeout), where, {GUARD_EVENT: GUARD_MATCHER})
    return out


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
    hooks = _obj(out, "hooks", where)
    events = dict.fromkeys([*CURSOR_EVENTS, CURSOR_PROMPT_EVENT[0], *commands])
    for event in events:
        entries = _check(hooks, event, list, where)
        command = commands.get(event)
        if entries is None and command is None:
            continue
        entries = entries or []
        kept: list[Any] = []
        found = False
        for entry in entries:
            if isinstance(entry, dict) and _hook_arg(entry.get("command")):
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
    _drop_if_emptied(out, "hooks", before)
    if not commands and set(out) == {"version"} and before:
        out = {}
    return out


def merge_mcp_servers(config: dict[str, Any], entry: dict[str, Any], where: str = "mcp.json") -> dict[str, Any]:
    """A copy of ``config`` with ``mcpServers[SERVER_NAME]`` set to ``entry`` (other servers kept)."""
    out = copy.deepcopy(config)
    servers = _obj(out, "mcpServers", where)
    current = servers.get(SERVER_NAME)
    servers[SERVER_NAME] = {**current, **entry} if isinstance(current, dict) else dict(entry)
    return out


def remove_mcp_servers(config: dict[str, Any], where: str = "mcp.json") -> dict[str, Any]:
    """A copy of ``config`` without ``mcpServers[SERVER_NAME]`` (an ``mcpServers`` that
    held only ours goes too)."""
    out = copy.deepcopy(config)
    servers = _check(out, "mcpServers", dict, where)
    if servers and SERVER_NAME in servers:
        before = dict(servers)
        del servers[SERVER_NAME]
        _drop_if_emptied(out, "mcpServers", before)
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
            current = _read_text(target)
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


_EMPTY_DOCS: tuple[dict[str, Any], dict[str, Any]] = ({}, {"version": 1})


def _json_change(
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
        settings_path = _home() / ".claude" / "settings.json"
        mcp_path = _home() / ".claude.json"
        mcp_mode = 0o600
    command, args = mcp_args(base, home)
    if remove:
        settings_change = _json_change(
            settings_path,
            lambda d: remove_claude_settings(d, str(settings_path), state_root),
            "remove reasonix-tui's hooks and permission rules",
            removable=True,
        )
        mcp_change = _json_change(
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
    settings_change = _json_change(
        settings_path,
        lambda d: merge_claude_settings(d, commands, deny, allow, timeout, str(settings_path), guard, state_root),
        f"UserPromptSubmit + SessionStart hooks and the PreToolUse (Bash) guard (timeout {timeout}s), "
        f"{len(deny)} deny rules for the person-only subcommands, allow the read-only MCP tools",
    )
    mcp_change = _json_change(
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
    notes += _stale_backups(settings_path, mcp_path)
    return SetupPlan("claude-code", scope, (settings_change, mcp_change), tuple(notes), state_root)


def _stale_backups(*paths: Path) -> list[str]:
    """A note about ``.bak`` files earlier versions of setup left beside these files."""
    found = [str(p) for path in paths for p in sorted(path.parent.glob(path.name + ".bak*")) if p.is_file()]
    if not found:
        return []
    return [
        f"earlier versions of setup left backups beside the files: {', '.join(found)} "
        "(backups now go to the state root; delete these when you no longer need them)"
    ]


def _codex_toml(path: Path, command: str | None, args: list[str] | None) -> FileChange:
    """``[mcp_servers.reasonix-tui]`` in Codex's ``config.toml`` set (or, ``command``
    ``None``, removed), comments and layout kept."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    before = _read_text(path)
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
    path = _home() / ".codex" / "config.toml"
    hooks_path = _home() / ".codex" / "hooks.json"
    if remove:
        change = _codex_toml(path, None, None)
        hooks_change = _json_change(
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
    hooks_change = _json_change(
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
        *_stale_backups(path, hooks_path),
    )
    return SetupPlan("codex", "user", (change, hooks_change), notes, state_root)


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
    path = (workspace if scope == "project" else _home()) / ".cursor" / "mcp.json"
    hooks_path = path.parent / "hooks.json"
    if remove:
        change = _json_change(
            path, lambda d: remove_mcp_servers(d, str(path)), f"remove the MCP server {SERVER_NAME!r}", removable=True
        )
        hooks_change = _json_change(
            hooks_path,
            lambda d: merge_cursor_hooks(d, {}, str(hooks_path)),
            "remove reasonix-tui's hooks",
            removable=True,
        )
        return SetupPlan("cursor", scope, (change, hooks_change), (), state_root, remove=True)
    command, args = mcp_args(base, home, workspace_arg="${workspaceFolder}")
    entry = {"command": command, "args": args}
    change = _json_change(path, lambda d: merge_mcp_servers(d, entry, str(path)), f"MCP server {SERVER_NAME!r} (stdio)")
    events = dict(CURSOR_EVENTS)
    if prompt_hook:
        events[CURSOR_PROMPT_EVENT[0]] = CURSOR_PROMPT_EVENT[1]
    commands = {event: hook_command(base, arg, home, "cursor") for event, arg in events.items()}
    what = "sessionStart (pinned guidance) and beforeShellExecution (the shell guard)"
    if prompt_hook:
        what += " and beforeSubmitPrompt (recall; not a documented Cursor route)"
    hooks_change = _json_change(hooks_path, lambda d: merge_cursor_hooks(d, commands, str(hooks_path)), f"{what} hooks")
    notes = [
        "Enable the server in Cursor's Settings → MCP if it is not switched on by itself.",
        "Cursor reloads hooks.json on save; open a new chat. Its Hooks output channel shows each run.",
        "For Cursor, the MCP tools are the supported path to recall on each prompt (the `memory` tool); "
        "Cursor documents sessionStart context (used here) but not beforeSubmitPrompt context"
        + (" (added anyway: --prompt-hook)." if prompt_hook else " (add it with --prompt-hook to try it)."),
        *_stale_backups(path, hooks_path),
    ]
    return SetupPlan("cursor", scope, (change, hooks_change), tuple(notes), state_root)

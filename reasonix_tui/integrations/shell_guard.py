"""Which shell commands run a person-only reasonix-tui subcommand (the PreToolUse guard).

Claude Code's permission rules match command *strings* with ``*`` wildcards, so a deny
rule for "``reasonix-tui`` with global options, then ``memory save``"
(``Bash(reasonix-tui -* memory save *)``) also matches the agent's own
``reasonix-tui --workspace DIR remember --body "… memory save …"``. Rules cannot tell an
option value from a subcommand. This module can: it splits a command line the way a
POSIX shell does (:mod:`shlex`: quotes, ``;``, ``&&``, ``||``, pipes, subshells,
command substitution, redirections), unwraps the usual launchers (``VAR=…``, ``env``,
``command``, ``exec``, ``nohup``, ``nice``, ``timeout``, ``time``, ``stdbuf``,
``sudo``, ``xargs``, ``uv run``, ``uvx``, ``pipx run``, ``sh -c "…"``, ``eval``), and
reads reasonix-tui's own argument grammar (global options with or without ``=`` and in
argparse's abbreviated forms, ``memory --json``, ``suggest --all``) to find the
subcommand that would actually run.

:func:`person_only` answers for one command line; ``reasonix-tui hook pre-tool-use``
(:mod:`.hooks`) turns a hit into the client's "deny" decision. It imports only
:mod:`shlex`, :mod:`os` and :mod:`re`: it runs before every shell command the agent
issues.

This is a guard against the obvious walk-around, not a sandbox: a program that
reaches the store some other way (a copy of the code under another name, a script
file) is not recognised. See docs/agents.md, "Threat model".
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["PERSON_ONLY", "person_only", "denial_reason", "decide", "fast_main"]

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
"""Subcommands that act as the person (no approval), or reconfigure the agent itself."""

_FAMILIES: dict[str, set[str]] = {}
for _entry in PERSON_ONLY:
    _head, _, _sub = _entry.partition(" ")
    _FAMILIES.setdefault(_head, set())
    if _sub:
        _FAMILIES[_head].add(_sub)

_PUNCT = "();<>|&\n`"
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python[0-9.]*$")
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"}
_MAX_DEPTH = 4

# launcher → options that take a value (the first other word is the command)
_WRAPPERS: dict[str, set[str]] = {
    "command": set(),
    "exec": {"-a"},
    "nohup": set(),
    "time": {"-f", "-o", "--format", "--output"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "stdbuf": {"-i", "-o", "-e", "--input", "--output", "--error"},
    "sudo": {
        "-u",
        "-g",
        "-C",
        "-D",
        "-h",
        "-p",
        "-r",
        "-t",
        "-U",
        "-T",
        "--user",
        "--group",
        "--chdir",
        "--host",
        "--prompt",
        "--role",
        "--type",
        "--other-user",
        "--close-from",
        "--command-timeout",
    },
    "doas": {"-u", "-C"},
    "xargs": {
        "-I",
        "-L",
        "-n",
        "-P",
        "-d",
        "-E",
        "-s",
        "-a",
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-lines",
        "--replace",
        "--max-chars",
        "--eof",
    },
    "chrt": set(),
    "setsid": set(),
    "caffeinate": set(),
    "unbuffer": set(),
}
_POSITIONAL_FIRST = {"timeout": 1, "chrt": 1}
"""Launchers that take positional arguments before the command (``timeout 5 cmd``)."""


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=_PUNCT)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def _is_punct(token: str) -> bool:
    return bool(token) and all(c in _PUNCT for c in token)


def _simple_commands(tokens: list[str]) -> list[list[str]]:
    """Split at separators; drop redirections and their targets."""
    out: list[list[str]] = []
    current: list[str] = []
    skip_next = False
    for i, tok in enumerate(tokens):
        if skip_next:
            skip_next = False
            continue
        if _is_punct(tok):
            if "<" in tok or ">" in tok:
                if current and current[-1].isdigit() and i > 0 and tokens[i - 1] == current[-1]:
                    current.pop()  # the fd number of `2>file`
                skip_next = True
                continue
            if current:
                out.append(current)
            current = []
            continue
        if tok.endswith("$") and i + 1 < len(tokens) and tokens[i + 1] == "(":
            tok = tok[:-1]  # `$(` of a command substitution: what follows is a command
        if tok:
            current.append(tok)
    if current:
        out.append(current)
    return out


def _base(word: str) -> str:
    return os.path.basename(word.rstrip("/")).lower()


def _is_ours(word: str) -> bool:
    name = _base(word)
    return name == "reasonix-tui" or name.startswith("reasonix-tui.") or name == "reasonix_tui"


def _skip_options(words: list[str], i: int, valued: set[str]) -> int:
    """Index of the first word after the options of a launcher starting at ``i``."""
    while i < len(words):
        w = words[i]
        if w == "--":
            return i + 1
        if not w.startswith("-") or w == "-":
            return i
        name = w.split("=", 1)[0]
        if name in valued and "=" not in w:
            i += 2
        else:
            i += 1
    return i


def _unwrap(words: list[str]) -> tuple[list[str] | None, list[str]]:
    """``(argv, nested)``: the program's argv once launchers are removed, and command
    strings to check on their own (``sh -c "…"``, ``eval …``, ``env -S …``)."""
    nested: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        name = _base(w)
        if _ASSIGNMENT.match(w) or w in ("{", "}", "!"):
            i += 1
            continue
        if name == "env":
            i += 1
            while i < len(words):
                a = words[i]
                if a in ("-u", "--unset", "-C", "--chdir"):
                    i += 2
                elif a in ("-S", "--split-string") and i + 1 < len(words):
                    nested.append(words[i + 1])
                    i += 2
                elif a.startswith("-S") and len(a) > 2:
                    nested.append(a[2:])
                    i += 1
                elif a.startswith("-") or _ASSIGNMENT.match(a):
                    i += 1
                else:
                    break
            continue
        if name in _WRAPPERS:
            i = _skip_options(words, i + 1, _WRAPPERS[name]) + _POSITIONAL_FIRST.get(name, 0)
            continue
        if name in ("uv", "pipx") and i + 1 < len(words) and words[i + 1] in ("run", "tool"):
            i += 2
            if i < len(words) and words[i - 1] == "tool" and words[i] == "run":
                i += 1
            i = _find_program(words, i)
            continue
        if name in ("uvx", "npx", "pnpx", "bunx"):
            i = _find_program(words, i + 1)
            continue
        if name in _SHELLS:
            j = i + 1
            while j < len(words) and words[j].startswith("-"):
                if "c" in words[j].lstrip("-") and not words[j].startswith("--"):
                    if j + 1 < len(words):
                        nested.append(words[j + 1])
                    return None, nested
                j += 1
            return None, nested  # a script file or an interactive shell: not ours to read
        if name == "eval":
            nested.append(" ".join(words[i + 1 :]))
            return None, nested
        return words[i:], nested
    return None, nested


def _find_program(words: list[str], i: int) -> int:
    """For ``uv run``-style launchers: the first word that is our program or a Python
    interpreter (their options are too many to model; what they run is what matters)."""
    for j in range(i, len(words)):
        if _is_ours(words[j]) or _PYTHON.match(_base(words[j])):
            return j
    return len(words)


def _our_args(argv: list[str]) -> list[str] | None:
    """reasonix-tui's own arguments when ``argv`` runs it, else ``None``."""
    if not argv:
        return None
    if _is_ours(argv[0]):
        return argv[1:]
    if _PYTHON.match(_base(argv[0])):
        i = 1
        while i < len(argv):
            a = argv[i]
            if a == "-m" and i + 1 < len(argv):
                module = argv[i + 1]
                return argv[i + 2 :] if module in ("reasonix_tui", "reasonix_tui.__main__") else None
            if a.startswith("-m") and len(a) > 2:
                return argv[i + 1 :] if a[2:] in ("reasonix_tui", "reasonix_tui.__main__") else None
            if a in ("-X", "-W", "--check-hash-based-pycs"):
                i += 2
                continue
            if a.startswith("-") and a != "-":
                if "c" in a.lstrip("-") and not a.startswith("--"):
                    return None  # python -c CODE
                i += 1
                continue
            return None  # a script file
    return None


def _option(word: str, *names: str) -> bool:
    """``word`` (before any ``=``) is one of ``names`` or an argparse abbreviation of it."""
    head = word.split("=", 1)[0]
    return len(head) > 2 and any(name.startswith(head) for name in names)


def _subcommand(args: list[str]) -> str:
    """The person-only subcommand ``args`` would run (``""`` for anything else)."""
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help", "--version") or (_option(a, "--help") and not _option(a, "--home")):
            return ""  # argparse prints and exits before any subcommand runs
        if a == "--":
            i += 1
            break
        if a.startswith("--"):
            if _option(a, "--home", "--workspace") and "=" not in a and not _option(a, "--help"):
                i += 2
            else:
                i += 1
            continue
        if a.startswith("-") and a != "-":
            i += 1
            continue
        break
    if i >= len(args):
        return ""
    head = args[i]
    if head not in _FAMILIES:
        return ""
    subs = _FAMILIES[head]
    if not subs:
        return head
    j = i + 1
    while j < len(args) and args[j].startswith("-") and args[j] != "-":
        if args[j] in ("-h", "--help") or (_option(args[j], "--help") and head == "memory"):
            return ""
        j += 1
    if j < len(args) and args[j] in subs:
        return f"{head} {args[j]}"
    return ""


def person_only(command: str, _depth: int = 0) -> str:
    """The person-only subcommand a shell command line would run (``memory save``,
    ``setup``…), or ``""`` when it runs none. A line that does not parse gives ``""``
    (the shell would refuse it too)."""
    if not command or _depth > _MAX_DEPTH or ("reasonix" not in command.lower()):
        return ""
    try:
        tokens = _tokens(command)
    except ValueError:
        return ""
    for words in _simple_commands(tokens):
        argv, nested = _unwrap(words)
        for inner in nested:
            hit = person_only(inner, _depth + 1)
            if hit:
                return hit
        args = _our_args(argv) if argv else None
        if args is not None:
            hit = _subcommand(args)
            if hit:
                return hit
    return ""


def denial_reason(subcommand: str) -> str:
    """The message the agent gets when its command is refused."""
    return (
        f"`reasonix-tui {subcommand}` acts as the user, without approval, so the agent may not run it. "
        "To change memory, use `reasonix-tui remember` / `reasonix-tui forget` (or the MCP tools remember/forget): "
        "they go through the user's approval in the Context Center."
    )


SHELL_TOOLS = ("Bash", "Shell", "shell", "run_shell_command", "exec_command")
"""Tool names under which clients run shell commands (a payload without one is read as
Cursor's ``beforeShellExecution``)."""


def decide(stdin_text: str, fmt: str = "claude") -> str:
    """The guard's answer to one hook payload: a deny decision in the client's format
    (``claude``/``codex``: ``PreToolUse`` ``hookSpecificOutput``; ``cursor``:
    ``beforeShellExecution``'s ``permission``) when its shell command runs a person-only
    subcommand, else ``""`` (the client's own permission flow goes on)."""
    try:
        data: Any = json.loads(stdin_text.lstrip("\ufeff") or "null")
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    tool = data.get("tool_name")
    tool_input = data.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else data.get("command")
    if not isinstance(command, str) or (isinstance(tool, str) and tool and tool not in SHELL_TOOLS):
        return ""
    hit = person_only(command)
    if not hit:
        return ""
    reason = denial_reason(hit)
    if fmt == "cursor":
        out: dict[str, Any] = {
            "permission": "deny",
            "user_message": f"reasonix-tui: blocked `{hit}` (person-only)",
            "agent_message": reason,
        }
    else:
        out = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    return json.dumps(out, ensure_ascii=False) + "\n"


def fast_main(argv: Sequence[str]) -> int | None:
    """``[--home H] [--workspace W] hook pre-tool-use [--format F]``, with nothing else
    imported (it runs before every shell command); ``None`` for anything else. Always
    exits 0: a crash must not read as "block" (exit 2)."""
    args = list(argv)
    fmt = "claude"
    words: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--home", "--workspace", "--format") and i + 1 < len(args):
            if a == "--format":
                fmt = args[i + 1]
            i += 2
            continue
        if a.startswith(("--home=", "--workspace=")):
            i += 1
            continue
        if a.startswith("-"):
            return None
        words.append(a)
        i += 1
    if words != ["hook", "pre-tool-use"]:
        return None
    try:
        out = decide(sys.stdin.buffer.read().decode("utf-8", "replace"), fmt)
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except Exception:  # fail open, like every hook
        pass
    return 0

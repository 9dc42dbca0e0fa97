"""Procedures repeated across sessions: the steps of a skill.

**Steps of a session.** Every tool call that changes something becomes a step: a shell
command (Claude ``Bash``, Reasonix ``bash``, a ``!`` bash-mode command) split at ``&&``,
``;`` and pipes into commands, each keyed by its program and subcommand (``git tag``,
``yarn version``, ``alembic upgrade``, ``etl backfill``); a file edit or write keyed by the
file's name (``edit CHANGELOG.md``; a generated name such as a migration revision by its
folder and extension). Reading, searching and listing are not steps; neither are
read-only commands (``ls``, ``cat``, ``git status``…).

**Repetition.** A key used in more than half of the sessions (a test runner run
everywhere) is routine and does not anchor a procedure. Ordered pairs of the other keys
that follow each other closely in at least two sessions chain into procedures; sessions
whose chains mostly agree form one procedure, and its steps are the keys present in at
least two of them, in their usual order. A procedure needs three steps, two of them
distinctive (used almost only in these sessions, and not plain version-control
routine such as ``git commit``/``git push``).

Its name comes from what it does: a step word the person used when asking for it
(``release``), else its distinctive step words (``etl-backfill-verify``).
"""

from __future__ import annotations

import os
import re
import shlex
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...compat.gostr import one_line, truncate_runes
from ..messages import Message
from ..user_text import is_user_authored_turn_message
from .statements import tool_arguments

__all__ = ["Step", "Procedure", "extract_steps", "find_procedures", "command_keys"]

MAX_STEPS = 200
"""Steps kept per session."""

_SHELL_TOOLS = {
    "bash",
    "shell",
    "run_command",
    "execute_command",
    "terminal",
    "powershell",
    "exec",
    "run_shell",
    "shell_command",
    "local_shell",
}
_EDIT_TOOLS = {
    "edit",
    "edit_file",
    "multiedit",
    "multi_edit",
    "write",
    "write_file",
    "create_file",
    "str_replace_editor",
    "str_replace_based_edit_tool",
    "apply_patch",
    "notebookedit",
    "replace_in_file",
}
_READ_ONLY = {
    "cd",
    "ls",
    "ll",
    "la",
    "cat",
    "bat",
    "echo",
    "printf",
    "pwd",
    "head",
    "tail",
    "less",
    "more",
    "grep",
    "egrep",
    "rg",
    "ag",
    "ack",
    "find",
    "fd",
    "which",
    "whereis",
    "type",
    "wc",
    "tree",
    "file",
    "stat",
    "du",
    "df",
    "ps",
    "top",
    "env",
    "printenv",
    "true",
    "false",
    "sleep",
    "clear",
    "history",
    "man",
    "whoami",
    "date",
    "uname",
    "open",
    "code",
    "vim",
    "vi",
    "nano",
    "sort",
    "uniq",
    "cut",
    "awk",
    "jq",
    "xargs",
    "tee",
    "diff",
    "cmp",
    "test",
    "[",
    "exit",
    "source",
    ".",
    "export",
    "set",
    "unset",
    "alias",
    "time",
    "watch",
    "id",
    "hostname",
    "lsof",
}
_GIT_READ_ONLY = {
    "status",
    "diff",
    "log",
    "show",
    "branch",
    "remote",
    "rev-parse",
    "blame",
    "ls-files",
    "shortlog",
    "describe",
    "reflog",
    "grep",
    "config",
    "fetch",
    "ls-remote",
    "whatchanged",
    "help",
}
_ROUTINE_GIT = {
    "git add",
    "git commit",
    "git push",
    "git pull",
    "git checkout",
    "git switch",
    "git stash",
    "git merge",
    "git rebase",
    "git fetch",
    "git restore",
    "git reset",
}
_WRAPPERS = {"sudo", "nohup", "exec", "command", "builtin", "time", "env", "xvfb-run", "npx", "bunx", "pnpx"}
_INTERPRETERS = {"python", "python3", "node", "bash", "sh", "zsh", "ruby", "perl", "deno", "bun", "php"}
_SUBCOMMAND = re.compile(r"^[a-z][a-z0-9:_-]{0,30}$")
_GENERATED = re.compile(r"[0-9a-f]{6,}|\d{4,}")
_VALUE_FLAGS = {
    "-C",
    "-F",
    "-f",
    "-w",
    "--filter",
    "--cwd",
    "--prefix",
    "--dir",
    "--workspace",
    "--project",
    "-p",
    "--manifest-path",
    "--config",
    "-c",
    "--file",
    "--env",
    "-e",
    "--namespace",
    "-n",
    "--context",
}
_SEPARATORS = {"&&", "||", ";", "|", "&", ";;", "|&"}


@dataclass(frozen=True, slots=True)
class Step:
    """One step a session took."""

    key: str
    """Normalised: ``git tag``, ``edit CHANGELOG.md``."""
    display: str
    """As run: ``git tag v2.3.0``."""
    index: int
    """Message index of the tool call."""
    trigger: int
    """Message index of the person's request before it (-1 when none)."""

    def to_tuple(self) -> tuple[Any, ...]:
        """Marshal-friendly form."""
        return (self.key, self.display, self.index, self.trigger)


def _tokens(segment: str) -> list[str]:
    try:
        return shlex.split(segment, posix=True)
    except ValueError:
        return segment.split()


def _split_commands(command: str) -> list[str]:
    """Commands of a shell line: split at ``&&``, ``||``, ``;``, newlines; a pipeline keeps its
    first command only."""
    try:
        lex = shlex.shlex(command, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        lex.commenters = ""
        toks = list(lex)
    except ValueError:
        return [c.strip() for c in re.split(r"&&|\|\||;|\n", command) if c.strip()]
    out: list[list[str]] = [[]]
    skip_rest = False
    for t in toks:
        if t in _SEPARATORS:
            if t in ("|", "|&"):
                skip_rest = True
                continue
            skip_rest = False
            out.append([])
            continue
        if "\n" in t and not t.strip():
            out.append([])
            continue
        if not skip_rest:
            out[-1].append(t)
    return [" ".join(shlex.quote(x) if " " in x else x for x in seg) for seg in out if seg]


def command_keys(command: str) -> list[tuple[str, str]]:
    """``(key, display)`` for each command of a shell line that changes something."""
    out: list[tuple[str, str]] = []
    for seg in _split_commands(command):
        toks = _tokens(seg)
        while toks and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", toks[0]) or toks[0] in _WRAPPERS):
            toks = toks[1:]
            while toks and toks[0].startswith("-"):
                toks = toks[1:]
        if not toks:
            continue
        head = os.path.basename(toks[0].rstrip("/")) or toks[0]
        if not head or head in _READ_ONLY or not re.match(r"^[\w.+-]+$", head):
            continue
        rest = toks[1:]
        sub = ""
        if head in _INTERPRETERS:
            if rest[:1] == ["-m"] and len(rest) > 1:
                sub = "-m " + rest[1]
            elif rest and not rest[0].startswith("-"):
                sub = os.path.basename(rest[0])
            elif rest and rest[0] in ("-c", "-e"):
                continue
        else:
            skip = False
            for t in rest:
                if skip:
                    skip = False
                    continue
                if t.startswith("-"):
                    if "=" not in t and t in _VALUE_FLAGS:
                        skip = True
                    continue
                if _SUBCOMMAND.match(t):
                    sub = t
                break
        if head == "git" and sub in _GIT_READ_ONLY:
            continue
        key = f"{head} {sub}".strip()
        out.append((key, truncate_runes(one_line(seg), 100, 99, "…")))
    return out


def _file_key(path: str) -> str:
    base = os.path.basename(path.rstrip("/"))
    if not base:
        return ""
    stem, ext = os.path.splitext(base)
    if _GENERATED.search(stem):
        parent = os.path.basename(os.path.dirname(path.rstrip("/"))) or "."
        return f"edit {parent}/*{ext}"
    return f"edit {base}"


def _bash_input(text: str) -> str:
    m = re.match(r"^\s*<bash-input>(.*?)</bash-input>", text, re.S)
    return m.group(1).strip() if m else ""


def extract_steps(messages: Sequence[Message]) -> list[Step]:
    """The steps of one session, in order."""
    out: list[Step] = []
    trigger = -1
    for index, msg in enumerate(messages):
        if len(out) >= MAX_STEPS:
            break
        if msg.role == "user":
            if is_user_authored_turn_message(msg):
                trigger = index
                continue
            command: Any = _bash_input(msg.content)
            if command:
                out.extend(Step(k, d, index, trigger) for k, d in command_keys(command))
            continue
        if msg.role != "assistant":
            continue
        for call in msg.tool_calls:
            name = call.name.lower()
            args = tool_arguments(call.arguments)
            if name in _SHELL_TOOLS:
                command = args.get("command") or args.get("cmd") or ""
                if isinstance(command, list):
                    command = " ".join(str(c) for c in command)
                if isinstance(command, str) and command.strip():
                    out.extend(Step(k, d, index, trigger) for k, d in command_keys(command))
            elif name in _EDIT_TOOLS:
                path = next(
                    (
                        args[k]
                        for k in ("file_path", "path", "filePath", "file", "target_file")
                        if isinstance(args.get(k), str)
                    ),
                    "",
                )
                key = _file_key(path) if path else ""
                if key:
                    out.append(Step(key, "edit " + os.path.basename(path.rstrip("/")), index, trigger))
    return out


# --------------------------------------------------------------------------------------
# Across sessions


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One session's run of a procedure."""

    session: int
    """Position in the sessions given to :func:`find_procedures`."""
    steps: tuple[Step, ...]
    """Its steps that belong to the procedure, in order."""


@dataclass(frozen=True, slots=True)
class Procedure:
    """Steps repeated across sessions."""

    keys: tuple[str, ...]
    """Step keys in their usual order."""
    occurrences: tuple[Occurrence, ...]
    distinctive: tuple[str, ...]
    """Keys used almost only in these sessions."""

    def displays(self, key: str) -> list[str]:
        """How a step was run in each occurrence."""
        return [s.display for o in self.occurrences for s in o.steps if s.key == key]


_WINDOW = 5


def find_procedures(sessions: Sequence[Sequence[Step]], min_sessions: int = 2) -> list[Procedure]:
    """Procedures repeated in at least ``min_sessions`` sessions, most repeated first."""
    seqs = [_collapse_repeats(steps) for steps in sessions]
    active = [i for i, s in enumerate(seqs) if s]
    n = len(active)
    if n < min_sessions:
        return []
    df: Counter[str] = Counter()
    for i in active:
        df.update({s.key for s in seqs[i]})
    routine_df = max(3, n // 2)
    usable = {k for k, c in df.items() if 2 <= c <= routine_df}
    chains = _chains(seqs, active, usable, min_sessions)
    if chains is None:
        return []
    out: list[Procedure] = []
    for members in _cluster_chains(chains):
        proc = _procedure(members, chains, seqs, df, min_sessions)
        if proc is not None:
            out.append(proc)
    out.sort(key=lambda p: (-len(p.occurrences), -len(p.keys), p.keys))
    return out


def _collapse_repeats(steps: Sequence[Step]) -> list[Step]:
    """The steps with immediate repeats of the same key collapsed."""
    seq: list[Step] = []
    for s in steps:
        if seq and seq[-1].key == s.key:
            continue
        seq.append(s)
    return seq


def _chains(
    seqs: Sequence[Sequence[Step]], active: Sequence[int], usable: set[str], min_sessions: int
) -> dict[int, list[str]] | None:
    """Per session, its usable keys that take part in ordered pairs (keys that follow each
    other closely) frequent across sessions, when at least three; None when no pair is."""
    pair_sessions: dict[tuple[str, str], set[int]] = defaultdict(set)
    keyseq: dict[int, list[str]] = {}
    for i in active:
        ks: list[str] = []
        seen: set[str] = set()
        for s in seqs[i]:
            if s.key in usable and s.key not in seen:
                seen.add(s.key)
                ks.append(s.key)
        keyseq[i] = ks
        pairs = {(ks[a], ks[b]) for a in range(len(ks)) for b in range(a + 1, min(len(ks), a + 1 + _WINDOW))}
        for p in pairs:
            pair_sessions[p].add(i)
    frequent = {p for p, ss in pair_sessions.items() if len(ss) >= min_sessions}
    if not frequent:
        return None
    chains: dict[int, list[str]] = {}
    for i, ks in keyseq.items():
        keep = {k for p in frequent for k in p if i in pair_sessions[p]}
        chain = [k for k in ks if k in keep]
        if len(chain) >= 3:
            chains[i] = chain
    return chains


def _cluster_chains(chains: dict[int, list[str]]) -> list[list[int]]:
    """Greedy clusters of sessions whose chains mostly agree (members, longest chain first)."""
    clusters: list[tuple[set[str], list[int]]] = []
    for i in sorted(chains, key=lambda i: (-len(chains[i]), i)):
        keys = set(chains[i])
        best, best_sim = -1, 0.0
        for c, (ckeys, _members) in enumerate(clusters):
            inter = len(keys & ckeys)
            if inter < 3:
                continue
            sim = inter / min(len(keys), len(ckeys))
            if sim > best_sim:
                best, best_sim = c, sim
        if best >= 0 and best_sim >= 0.5:
            clusters[best][0].update(keys)
            clusters[best][1].append(i)
        else:
            clusters.append((keys, [i]))
    return [members for _ckeys, members in clusters]


def _procedure(
    members: list[int],
    chains: dict[int, list[str]],
    seqs: Sequence[Sequence[Step]],
    df: Counter[str],
    min_sessions: int,
) -> Procedure | None:
    """A cluster's procedure: the steps most members share, in their average position;
    None when too few sessions, steps or distinctive (not routine git) steps."""
    if len(members) < min_sessions:
        return None
    count: Counter[str] = Counter()
    for i in members:
        count.update(set(chains[i]))
    step_keys = [k for k, c in count.items() if c >= min_sessions]
    if len(step_keys) < 3:
        return None
    position: dict[str, float] = {}
    for k in step_keys:
        pos = [chains[i].index(k) / max(1, len(chains[i]) - 1) for i in members if k in chains[i]]
        position[k] = sum(pos) / len(pos)
    step_keys.sort(key=lambda k: (position[k], k))
    member_set = set(members)
    distinctive = tuple(k for k in step_keys if k not in _ROUTINE_GIT and df[k] <= len(member_set) + 1)
    if len(distinctive) < 2:
        return None
    occurrences = []
    keyset = set(step_keys)
    for i in sorted(members):
        steps = tuple(s for s in seqs[i] if s.key in keyset)
        occurrences.append(Occurrence(i, steps))
    return Procedure(tuple(step_keys), tuple(occurrences), distinctive)


def step_words(key: str) -> list[str]:
    """Readable words of a step key (``yarn test:unit`` → ``yarn``, ``test``, ``unit``)."""
    if key.startswith("edit "):
        name = key[5:].split("/")[-1]
        stem = re.sub(r"\*?\.[\w]+$", "", name)
        return [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]+", stem)] or ["edit"]
    return list(re.findall(r"[a-z][a-z0-9]+", key.lower()))


__all__ += ["Occurrence", "step_words"]

"""The ``reasonix-tui`` command line.

``reasonix-tui`` with no subcommand opens the Context Center. Subcommands live in
:mod:`.commands`, one module per area; each module's ``register(reg)`` adds its parsers
to the top level (``reg.top``) or to the ``memory`` family (``reg.memory``) and sets
``func`` to a handler ``(args, ctx) -> int``.

Conventions for every handler:

* ``--json`` prints machine-readable output on stdout;
* expected errors raise :class:`~reasonix_tui.core.store.model.StoreError` (or
  :class:`CliError`); :func:`main` prints them as one line on stderr, exit code 2 for
  bad input and 1 for other failures, never a traceback;
* exit codes 3 and 4 are reserved for "denied" and "still pending" (agent writes).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TextIO

from ..core.paths import Layout, StateRootUnavailable
from ..core.settings import Settings, load_settings
from ..core.store.journal import describe_os_error
from ..core.store.model import StoreError
from ..core.store.safeio import EscapesRoot, NotRegularFile

if TYPE_CHECKING:
    from ..core.store.store import Store

__all__ = [
    "main",
    "freeze_before_exit",
    "run",
    "build_parser",
    "command_of",
    "CliContext",
    "CliError",
    "Registry",
    "COMMAND_MODULES",
    "COMMANDS",
]

COMMAND_MODULES = [
    "reasonix_tui.integrations.commands.memory",
    "reasonix_tui.integrations.commands.health",
    "reasonix_tui.integrations.commands.instructions",
    "reasonix_tui.integrations.commands.agent",
    "reasonix_tui.integrations.commands.history",
    "reasonix_tui.integrations.commands.suggest",
    "reasonix_tui.integrations.commands.recall",
    "reasonix_tui.integrations.commands.setup",
    "reasonix_tui.integrations.commands.hooks",
    "reasonix_tui.integrations.commands.mcp",
]
"""Modules whose ``register(reg)`` is called, in this order."""

_C = "reasonix_tui.integrations.commands."
COMMANDS: dict[str, str] = {
    **{
        f"memory {name}": _C + "memory"
        for name in (
            "archived",
            "archives",
            "forget",
            "list",
            "migrate",
            "pin",
            "recover",
            "restore",
            "revisions",
            "save",
            "show",
            "subjects",
            "summary",
            "unpin",
            "verify",
        )
    },
    "memory health": _C + "health",
    "memory instructions": _C + "instructions",
    "memory note": _C + "instructions",
    "approval-status": _C + "agent",
    "forget": _C + "agent",
    "remember": _C + "agent",
    "history": _C + "history",
    "suggest": _C + "suggest",
    "memory pinned": _C + "recall",
    "memory recall": _C + "recall",
    "memory search": _C + "recall",
    "recall": _C + "recall",
    "setup": _C + "setup",
    "hook": _C + "hooks",
    "mcp": _C + "mcp",
}
"""Which module registers each command (``memory X`` for the family): a one-shot command
imports only its own module, not every area's (``tests/test_cli_fast_start.py`` keeps
this table equal to what the modules register)."""


class CliError(Exception):
    """An expected CLI failure with an exit code."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]  # exits instead of returning NoReturn
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


@dataclass
class CliContext:
    """What a command handler gets besides its arguments."""

    layout: Layout
    """Paths for the chosen state root and workspace."""
    settings: Settings
    """Effective settings."""
    actor: str = "cli"
    """Audit actor for writes made by this process."""
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)

    @cached_property
    def store(self) -> Store:
        """The store for this layout (created on first use)."""
        from ..core.store.store import Store

        return Store(self.layout, settings=self.settings, actor=self.actor)

    def print(self, text: str = "") -> None:
        """Write a line to stdout."""
        self.stdout.write(text + "\n")

    def print_json(self, value: Any) -> None:
        """Write JSON to stdout."""
        self.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


@dataclass
class Registry:
    """Where command modules add their parsers."""

    top: argparse._SubParsersAction[Any]
    """Top-level subcommands (``remember``, ``hook``, ``mcp``...)."""
    memory: argparse._SubParsersAction[Any]
    """The ``memory`` family (``memory list``, ``memory show``...)."""
    memory_parser: argparse.ArgumentParser
    """The ``memory`` parser itself (its default handler runs for a bare ``memory``)."""

    def add_top(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """Add a top-level subcommand parser."""
        return self.top.add_parser(name, **kwargs)

    def add_memory(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """Add a ``memory`` subcommand parser."""
        return self.memory.add_parser(name, **kwargs)


def command_of(argv: list[str]) -> str:
    """The command ``argv`` names (``memory search``, ``recall``…), or ``""`` when it names
    none (no subcommand, a bare ``memory``, ``--help``, ``--version``)."""
    words: list[str] = []
    it = iter(argv)
    for token in it:
        if token in ("--home", "--workspace"):
            next(it, None)
        elif token in ("-h", "--help", "--version", "--"):
            return ""
        elif not token.startswith("-"):
            words.append(token)
            if words[0] != "memory" or len(words) == 2:
                break
    return " ".join(words) if words and (words[0] != "memory" or len(words) == 2) else ""


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: for ``argv`` naming a known command, with only that command's
    module registered (a one-shot command does not import every area); else the full one."""
    parser = _Parser(
        prog="reasonix-tui",
        description="Context Center for a coding agent's durable memory (Reasonix-compatible).",
    )
    parser.add_argument("--home", help="state root (default: $REASONIX_STATE_HOME, $REASONIX_HOME, ~/.reasonix)")
    parser.add_argument("--workspace", help="workspace directory (default: the current directory)")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="use a generated demo home: the Context Center regenerates it; a subcommand uses the one there",
    )
    parser.add_argument("--no-watch", action="store_true", help="do not watch the store for outside changes")
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"reasonix-tui {__version__}")
    top = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    memory_parser = top.add_parser("memory", help="the /memory command family")
    memory_parser.add_argument("--json", dest="memory_json", action="store_true", help="machine-readable output")
    memory = memory_parser.add_subparsers(dest="memory_command", metavar="SUBCOMMAND", parser_class=_Parser)
    memory_parser.set_defaults(func=_memory_help(memory_parser))
    reg = Registry(top=top, memory=memory, memory_parser=memory_parser)
    only = COMMANDS.get(command_of(argv)) if argv is not None else None
    for module_name in [only] if only in COMMAND_MODULES else COMMAND_MODULES:
        importlib.import_module(module_name).register(reg)
    return parser


def _memory_help(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace, CliContext], int]:
    def show(args: argparse.Namespace, ctx: CliContext) -> int:
        parser.print_help(ctx.stdout)
        return 2

    return show


def _log_internal_error(layout: Layout | None) -> str:
    text = traceback.format_exc()
    if layout is not None:
        try:
            from ..core.store.safeio import append_bytes

            log = layout.tui_dir / "errors.log"
            append_bytes(log, (text + "\n").encode("utf-8", "backslashreplace"), 0o600)
            return str(log)
        except OSError:
            pass
    return ""


def make_context(args: argparse.Namespace) -> CliContext:
    """Resolve layout and settings from the global options (``--demo``: the demo home's)."""
    if getattr(args, "demo", False):
        if args.home or args.workspace:
            raise CliError("--demo cannot be combined with --home or --workspace", exit_code=2)
        from .open_app import demo_layout

        layout = demo_layout(reset=False)
        sys.stderr.write(f"reasonix-tui: using the demo home at {layout.root} (workspace {layout.workspace})\n")
    else:
        layout = Layout.resolve(home=args.home, workspace=args.workspace)
    if layout.root.exists() and not layout.root.is_dir():
        raise CliError(
            f"the state root {layout.root} is not a directory (check --home, " "REASONIX_STATE_HOME and REASONIX_HOME)",
            exit_code=2,
        )
    settings = load_settings(layout.root)
    for problem in settings.problems:
        sys.stderr.write(f"reasonix-tui: warning: {problem}\n")
    return CliContext(layout=layout, settings=settings)


_PROCESS_ENTRY = False
"""This process was started for one command (``main()`` with no arguments: the console
script, ``python -m reasonix_tui``), not driven in-process (tests, embedding)."""


def freeze_before_exit() -> None:
    """In a process started for one command, move everything the command made out of the
    cycle collector's reach (``gc.freeze``): it dies with the process, and collection
    passes over it (set off by what is allocated after, and at exit) would only cost time.
    Driven in-process, nothing is frozen: the caller's objects stay collectable."""
    if _PROCESS_ENTRY:
        import gc

        gc.freeze()


def main(argv: list[str] | None = None) -> int:
    """Parse, dispatch, and turn expected errors into one line and an exit code (``argv``
    ``None``: this process's own arguments — it was started for this command)."""
    global _PROCESS_ENTRY
    if argv is None:
        _PROCESS_ENTRY = True
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if getattr(args, "memory_json", False):  # `memory --json [SUBCOMMAND]`
        args.json = True
    return run(args, parser)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None) -> int:
    """Run parsed arguments (``args.func``), turning expected errors into one line and an
    exit code; a fast path that parsed its own arguments calls this too."""
    layout: Layout | None = None
    try:
        if args.command is None:
            from .open_app import open_context_center

            return open_context_center(args)
        check_arguments_utf8(args)
        ctx = make_context(args)
        layout = ctx.layout
        func = getattr(args, "func", None)
        if func is None:
            if parser is not None:
                parser.print_help()
            return 2
        return int(func(args, ctx) or 0)
    except StoreError as exc:
        sys.stderr.write(f"reasonix-tui: {one_line_error(str(exc))}\n")
        return exc.exit_code
    except CliError as exc:
        sys.stderr.write(f"reasonix-tui: {one_line_error(str(exc))}\n")
        return exc.exit_code
    except StateRootUnavailable as exc:
        sys.stderr.write(f"reasonix-tui: {one_line_error(str(exc))}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        if exc.errno not in _STORAGE_ERRNOS and not isinstance(exc, (NotRegularFile, EscapesRoot)):
            return _internal_error(exc, layout)
        # A full disk, a read-only root, a planted FIFO or symlink: one line, exit 1.
        sys.stderr.write(f"reasonix-tui: {one_line_error(describe_os_error(exc))}\n")
        return 1
    except Exception as exc:  # never show a traceback to a person or an agent
        return _internal_error(exc, layout)


_STORAGE_ERRNOS = {errno.ENOSPC, errno.EROFS, getattr(errno, "EDQUOT", errno.ENOSPC)}


def _internal_error(exc: BaseException, layout: Layout | None) -> int:
    if os.environ.get("REASONIX_TUI_DEBUG"):
        raise exc
    where = _log_internal_error(layout)
    hint = f" (details in {where})" if where else ""
    sys.stderr.write(f"reasonix-tui: internal error: {type(exc).__name__}: {one_line_error(str(exc))}{hint}\n")
    return 1


def one_line_error(text: str) -> str:
    """An error message on one line: line breaks (a ref with a newline) shown escaped."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def read_input_text(value: str, option: str = "--body-file") -> str:
    """The text of ``--body-file VALUE`` (``-`` is stdin), strictly UTF-8.

    Invalid UTF-8 or an unreadable file is an input error (exit 2) naming the source."""
    from ..core.store.model import InvalidInput

    source = "stdin" if value == "-" else f"{option} {value}"
    try:
        if value == "-":
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
        else:
            with open(value, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        raise InvalidInput(f"cannot read {source}: {exc.strerror or exc}") from None
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{source} is not valid UTF-8 (invalid byte at offset {exc.start})") from None


def check_arguments_utf8(args: argparse.Namespace) -> None:
    """Refuse (exit 2) a command-line argument that is not valid UTF-8 (Python keeps its
    bytes as lone surrogates), naming the option."""
    for key, value in vars(args).items():
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            for text in item if isinstance(item, (list, tuple)) else [item]:
                if isinstance(text, str):
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError as exc:
                        name = (
                            key
                            if key in ("ref", "path", "revision", "proposal_id", "id")
                            else "--" + key.replace("_", "-")
                        )
                        raise CliError(
                            f"argument {name} is not valid UTF-8 (invalid byte at offset {exc.start})", exit_code=2
                        ) from None

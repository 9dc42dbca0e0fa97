"""``reasonix-tui hook user-prompt-submit`` and ``reasonix-tui hook session-start``.

Normally the console script answers these through
:func:`reasonix_tui.integrations.hooks.fast_main` before this parser is built; this
module makes them visible in ``--help`` and handles spellings the fast path declines.
Both always exit 0 (see :mod:`reasonix_tui.integrations.hooks`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..cli import CliContext, Registry
from ..hooks import EVENTS, FORMATS, GUARD_EVENT

__all__ = ["register"]


def _run(event: str) -> Callable[[argparse.Namespace, CliContext], int]:
    def handler(args: argparse.Namespace, ctx: CliContext) -> int:
        from ..hooks import main

        fmt = getattr(args, "format", "claude")
        if getattr(args, "demo", False):  # the demo home's layout, as every ``--demo`` command uses
            return main(event, home=str(ctx.layout.root), workspace=str(ctx.layout.workspace), fmt=fmt)
        return main(event, home=args.home, workspace=args.workspace, fmt=fmt)

    return handler


def _usage_error(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace, CliContext], int]:
    """A bare ``hook``: the help goes to stderr (a client that runs it passes stdout to the
    model) and the exit code is 1 (not 2, which Claude Code and Cursor read as "block")."""

    def show(args: argparse.Namespace, ctx: CliContext) -> int:
        parser.print_help(ctx.stderr)
        return 1

    return show


def register(reg: Registry) -> None:
    """Add ``hook user-prompt-submit`` and ``hook session-start``."""
    parser = reg.add_top(
        "hook",
        help="(for Claude Code / Codex / Cursor hooks) recall, pinned guidance, the shell guard; exits 0",
        description="Read a hook payload (JSON) on stdin and print additional context for the agent (or, for "
        "pre-tool-use, a deny decision). Fails open: an event exits 0 always, errors go to "
        "<root>/reasonix-tui/hooks.log. A bare `hook` prints this help on stderr and exits 1.",
    )
    sub = parser.add_subparsers(dest="hook_event", metavar="EVENT", parser_class=type(parser))
    parser.set_defaults(func=_usage_error(parser))
    helps = {
        "user-prompt-submit": "UserPromptSubmit: automatic recall for the prompt (+ retraction notes)",
        "session-start": "SessionStart: the memory protocol and pinned guidance (+ retraction notes)",
        GUARD_EVENT: "PreToolUse (Bash) / Cursor beforeShellExecution: deny the person-only subcommands",
    }
    for event in (*EVENTS, GUARD_EVENT):
        ev = sub.add_parser(event, help=helps[event])
        ev.add_argument(
            "--format",
            choices=FORMATS,
            default="claude",
            help="client: claude (Claude Code, the default), codex (same output shape) or cursor",
        )
        ev.set_defaults(func=_run(event))
    p = sub.add_parser("serve")  # internal: no help= keeps it out of the EVENT list
    p.add_argument("--warm", default="", help=argparse.SUPPRESS)
    p.set_defaults(func=_serve)
    sub.add_parser(
        "stop", help="stop the warm hook server of this state root (it restarts on the next hook)"
    ).set_defaults(func=_stop)


def _serve(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..hooks import serve

    return serve(str(ctx.layout.root), warm_workspace=args.warm)


def _stop(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..hook_client import shutdown

    if shutdown(str(ctx.layout.root)):
        ctx.print("hook server stopped")
    else:
        ctx.print("no hook server was running")
    return 0

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
from ..hooks import EVENTS, FORMATS

__all__ = ["register"]


def _run(event: str) -> Callable[[argparse.Namespace, CliContext], int]:
    def handler(args: argparse.Namespace, ctx: CliContext) -> int:
        from ..hooks import main

        return main(event, home=args.home, workspace=args.workspace, fmt=getattr(args, "format", "claude"))

    return handler


def _help(parser: argparse.ArgumentParser, code: int) -> Callable[[argparse.Namespace, CliContext], int]:
    def show(args: argparse.Namespace, ctx: CliContext) -> int:
        parser.print_help(ctx.stdout)
        return code

    return show


def register(reg: Registry) -> None:
    """Add ``hook user-prompt-submit`` and ``hook session-start``."""
    parser = reg.add_top(
        "hook",
        help="(for Claude Code / Codex hooks) recall or pinned guidance as additional context; always exits 0",
        description="Read a hook payload (JSON) on stdin and print additional context for the agent. "
        "Fails open: exit 0 always, errors go to <root>/reasonix-tui/hooks.log.",
    )
    sub = parser.add_subparsers(dest="hook_event", metavar="EVENT", parser_class=type(parser))
    # Exit 0 even here: a hook command that exits 2 blocks the agent's prompt.
    parser.set_defaults(func=_help(parser, 0))
    helps = {
        "user-prompt-submit": "UserPromptSubmit: automatic recall for the prompt (+ retraction notes)",
        "session-start": "SessionStart: the memory protocol and pinned guidance (+ retraction notes)",
    }
    for event in EVENTS:
        ev = sub.add_parser(event, help=helps[event])
        ev.add_argument("--format", choices=FORMATS, default="claude",
                        help="output shape: claude (Claude Code and Codex, the default) or cursor")
        ev.set_defaults(func=_run(event))
    p = sub.add_parser("serve")  # internal: no help= keeps it out of the EVENT list
    p.add_argument("--warm", default="", help=argparse.SUPPRESS)
    p.set_defaults(func=_serve)
    sub.add_parser("stop", help="stop the warm hook server of this state root (it restarts on the next hook)"
                   ).set_defaults(func=_stop)


def _serve(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..hookd import serve

    return serve(str(ctx.layout.root), warm_workspace=args.warm)


def _stop(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..hookd import shutdown

    if shutdown(str(ctx.layout.root)):
        ctx.print("hook server stopped")
    else:
        ctx.print("no hook server was running")
    return 0

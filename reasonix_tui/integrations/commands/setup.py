"""``reasonix-tui setup claude-code | codex | cursor [--remove]``: show, then (when
confirmed) write an agent's hook, MCP and permission configuration, or take it out again
(see :mod:`reasonix_tui.integrations.setup`).

``--print`` only shows the diff; ``--yes`` writes without asking; otherwise the command
asks ``y/N`` on a terminal and writes nothing when stdin is not one. ``--json`` prints the
plan (and, with ``--yes``, what was written) as JSON and never asks. Backups of the files
it changes go to ``<state root>/reasonix-tui/backups/``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ..cli import CliContext, CliError, Registry
from ..setup import SetupError, SetupPlan, resolve_command
from ..setup_claude import plan_claude_code
from ..setup_codex import plan_codex
from ..setup_cursor import plan_cursor

__all__ = ["register"]


def _confirm(ctx: CliContext) -> bool:
    if not sys.stdin.isatty():
        ctx.print("Not a terminal, so nothing was written: run again with --yes to write these changes.")
        return False
    ctx.stdout.write("Write these changes? [y/N] ")
    ctx.stdout.flush()
    try:
        answer = sys.stdin.readline()
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def _plan_json(plan: SetupPlan) -> dict[str, Any]:
    return {
        "agent": plan.agent,
        "scope": plan.scope,
        "changes": [
            {
                "path": str(c.path),
                "state": ("new" if c.before is None else "remove" if c.after is None else "merge")
                if c.changed
                else "unchanged",
                "summary": c.summary,
                "diff": c.diff() if c.changed else "",
            }
            for c in plan.changes
        ],
        "notes": list(plan.notes),
        "remove": plan.remove,
    }


def _apply(plan: SetupPlan) -> list[tuple[Any, Any]]:
    """Write the plan; a file that cannot be merged or written is one clear CLI error."""
    try:
        return plan.apply()
    except SetupError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"could not write the configuration: {exc}") from None


def _run_json(plan: SetupPlan, args: argparse.Namespace, ctx: CliContext) -> int:
    out = _plan_json(plan)
    written: list[tuple[Any, Any]] = []
    if plan.pending and args.yes and not args.print_only:
        written = _apply(plan)
    out["written"] = [{"path": str(path), "backup": str(backup) if backup else None} for path, backup in written]
    ctx.print_json(out)
    return 0


def _run(plan: SetupPlan, args: argparse.Namespace, ctx: CliContext) -> int:
    if args.json:
        return _run_json(plan, args, ctx)
    ctx.stdout.write(plan.render())
    if not plan.pending:
        ctx.print(
            "Nothing to do: nothing of reasonix-tui is left to remove."
            if plan.remove
            else "Nothing to do: everything is already in place."
        )
        return 0
    if args.print_only:
        ctx.print("(--print: nothing was written)")
        return 0
    if not args.yes and not _confirm(ctx):
        ctx.print("Nothing was written.")
        return 0
    removed = {c.path for c in plan.pending if c.after is None}
    for path, backup in _apply(plan):
        verb = "removed" if path in removed else "wrote"
        ctx.print(f"{verb} {path}" + (f" (previous version kept as {backup})" if backup else ""))
    return 0


def _planned(make: Callable[[], SetupPlan]) -> SetupPlan:
    """The plan ``make`` returns; a file that cannot be merged safely is a clean CLI error."""
    try:
        return make()
    except SetupError as exc:
        raise CliError(str(exc)) from None


def _scope(args: argparse.Namespace) -> str:
    return "user" if args.user else "project"


def _claude(args: argparse.Namespace, ctx: CliContext) -> int:
    plan = _planned(
        lambda: plan_claude_code(
            _scope(args),
            ctx.layout.workspace,
            base=resolve_command(args.command_override),
            state_root=ctx.layout.root,
            home=args.home,
            timeout=args.timeout,
            remove=args.remove,
        )
    )
    return _run(plan, args, ctx)


def _codex(args: argparse.Namespace, ctx: CliContext) -> int:
    plan = _planned(
        lambda: plan_codex(
            base=resolve_command(args.command_override),
            home=args.home,
            timeout=args.timeout,
            state_root=ctx.layout.root,
            remove=args.remove,
        )
    )
    return _run(plan, args, ctx)


def _cursor(args: argparse.Namespace, ctx: CliContext) -> int:
    plan = _planned(
        lambda: plan_cursor(
            _scope(args),
            ctx.layout.workspace,
            base=resolve_command(args.command_override),
            home=args.home,
            state_root=ctx.layout.root,
            remove=args.remove,
            prompt_hook=args.prompt_hook,
        )
    )
    return _run(plan, args, ctx)


def _common(p: argparse.ArgumentParser, scoped: bool = True) -> None:
    if scoped:
        where = p.add_mutually_exclusive_group()
        where.add_argument("--project", action="store_true", help="this workspace's files (default)")
        where.add_argument("--user", action="store_true", help="your user-level files (every project)")
    p.add_argument(
        "--remove",
        action="store_true",
        help="take out what setup added (also entries from an earlier --command or install path); "
        "everything else stays",
    )
    p.add_argument("--yes", "-y", action="store_true", help="write without asking")
    p.add_argument("--print", dest="print_only", action="store_true", help="only show what would be written")
    p.add_argument(
        "--command",
        dest="command_override",
        metavar="CMD",
        help="how the agent should run reasonix-tui (default: this executable's absolute path)",
    )
    p.add_argument(
        "--json", action="store_true", help="print the plan (and, with --yes, what was written) as JSON; never asks"
    )


def _help(parser: argparse.ArgumentParser, code: int) -> Callable[[argparse.Namespace, CliContext], int]:
    def show(args: argparse.Namespace, ctx: CliContext) -> int:
        parser.print_help(ctx.stdout)
        return code

    return show


_BACKUPS = "Backups of changed files go to <state root>/reasonix-tui/backups/. Shows the diff first."


def register(reg: Registry) -> None:
    """Add ``setup claude-code``, ``setup codex`` and ``setup cursor``."""
    parser = reg.add_top("setup", help="connect an agent (Claude Code, Codex, Cursor): hooks, MCP, permission rules")
    sub = parser.add_subparsers(dest="setup_command", metavar="AGENT", parser_class=type(parser))
    parser.set_defaults(func=_help(parser, 2))

    p = sub.add_parser(
        "claude-code",
        help="hooks + MCP server + permission rules for Claude Code",
        description="Merge the UserPromptSubmit/SessionStart hooks, the PreToolUse (Bash) shell guard, the MCP "
        "server and permission rules that deny the agent's shell the person-only subcommands into Claude Code's "
        "settings (.claude/settings.json and .mcp.json; --user: ~/.claude/settings.json and ~/.claude.json). "
        + _BACKUPS,
    )
    _common(p)
    p.add_argument("--timeout", type=int, default=10, help="hook timeout in seconds (default 10)")
    p.set_defaults(func=_claude)

    p = sub.add_parser(
        "codex",
        help="hooks (~/.codex/hooks.json) + MCP server (~/.codex/config.toml) for Codex",
        description="Add the MCP server to ~/.codex/config.toml (comments and layout kept) and the "
        "UserPromptSubmit/SessionStart hooks and the PreToolUse (Bash) shell guard to ~/.codex/hooks.json. "
        "Codex asks you to trust new hooks once (/hooks). " + _BACKUPS,
    )
    _common(p, scoped=False)
    p.add_argument("--timeout", type=int, default=10, help="hook timeout in seconds (default 10)")
    p.set_defaults(func=_codex)

    p = sub.add_parser(
        "cursor",
        help="hooks (.cursor/hooks.json) + MCP server (.cursor/mcp.json) for Cursor; --user: ~/.cursor/",
        description="Add the MCP server to .cursor/mcp.json and the sessionStart hook and the "
        "beforeShellExecution shell guard to .cursor/hooks.json (--user: ~/.cursor/). For recall on each "
        "prompt Cursor's agent uses the MCP memory tool; --prompt-hook also adds a beforeSubmitPrompt hook, "
        "whose context output Cursor does not document. " + _BACKUPS,
    )
    _common(p)
    p.add_argument(
        "--prompt-hook",
        action="store_true",
        help="also add the beforeSubmitPrompt recall hook (not a documented Cursor route)",
    )
    p.set_defaults(func=_cursor)

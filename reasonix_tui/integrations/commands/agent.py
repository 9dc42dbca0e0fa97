"""Agent verbs: ``reasonix-tui remember``, ``forget`` and ``approval-status``.

These are what a coding agent calls from its shell. A low-risk ``remember`` lands at
once; everything else becomes a proposal a person approves in the Context Center, and
the command waits for the decision (see :mod:`reasonix_tui.core.agent.writes`).

Exit codes: 0 written (or approved and written), 2 invalid input, 3 denied by the
person or refused (headless / sub-agent run), 4 still pending (the proposal stays
queued), 1 conflict or another failure. Output is one line; ``--json`` gives an object.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ...core.agent.proposals import Requester
from ...core.agent.remember_args import REMEMBER_ARGUMENTS
from ...core.agent.writes import AgentWriteOutcome, agent_forget, agent_remember, await_proposal
from ..cli import CliContext, Registry

__all__ = ["register", "detect_agent"]


def detect_agent(env: dict[str, str] | None = None) -> str:
    """Best guess at which agent runs us (``REASONIX_TUI_AGENT`` wins)."""
    e = os.environ if env is None else env
    if e.get("REASONIX_TUI_AGENT", "").strip():
        return e["REASONIX_TUI_AGENT"].strip()
    if e.get("CLAUDECODE") or e.get("CLAUDE_CODE_ENTRYPOINT"):
        return "claude-code"
    if any(k.startswith("CODEX_") for k in e):
        return "codex"
    if e.get("CURSOR_AGENT") or e.get("CURSOR_TRACE_ID"):
        return "cursor"
    return ""


def _requester(args: argparse.Namespace) -> Requester:
    session = args.session or os.environ.get("REASONIX_TUI_SESSION", "") or os.environ.get("CLAUDE_SESSION_ID", "")
    return Requester.current(source="cli", agent=args.agent or detect_agent(), session=session)


def _emit(ctx: CliContext, args: argparse.Namespace, outcome: AgentWriteOutcome) -> int:
    if args.json:
        ctx.print_json(outcome.to_dict())
    else:
        line = outcome.message
        if outcome.note and outcome.status == "pending":
            line += f" (note: {outcome.note})"
        if outcome.exit_code in (0, 3, 4):
            ctx.print(line)
        else:
            ctx.stderr.write(f"reasonix-tui: {line}\n")
    return outcome.exit_code


def _remember(args: argparse.Namespace, ctx: CliContext) -> int:
    arguments: dict[str, Any] = {}
    for a in REMEMBER_ARGUMENTS:  # the required ones always; the others when given
        value = getattr(args, a.name)
        if a.kind == "refs":
            value = [s for group in value or () for s in group]
        if a.required or (value is not None and value is not False and value != []):
            arguments[a.name] = value
    outcome = agent_remember(arguments, ctx.store, requester=_requester(args), wait=args.wait)
    return _emit(ctx, args, outcome)


def _forget(args: argparse.Namespace, ctx: CliContext) -> int:
    outcome = agent_forget(args.ref, ctx.store, requester=_requester(args), wait=args.wait)
    return _emit(ctx, args, outcome)


def _status(args: argparse.Namespace, ctx: CliContext) -> int:
    outcome = await_proposal(args.proposal_id, ctx.store, wait=args.wait)
    return _emit(ctx, args, outcome)


def _common(p: argparse.ArgumentParser, waits: bool = True) -> argparse.ArgumentParser:
    if waits:
        p.add_argument(
            "--wait",
            type=float,
            metavar="SECONDS",
            help="how long to wait for the user's decision (default: settings [approvals] wait_seconds, 60)",
        )
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.add_argument("--agent", help=argparse.SUPPRESS)
    p.add_argument("--session", help=argparse.SUPPRESS)
    return p


_EPILOG = (
    "exit codes: 0 saved (or approved and saved), 2 invalid input, 3 denied or refused "
    "(headless/sub-agent), 4 still pending (stays queued), 1 conflict or other failure"
)


_HELP = {
    "description": "one-line hook shown in the index",
    "body": "the fact itself (Markdown)",
    "name": "project/<name>.md, global/<name>.md, or a new kebab-case slug",
    "type": "user | feedback | project | reference",
    "id": "stable id of the fact to update",
    "expected_revision": "fail instead of overwriting a newer revision",
    "supersedes": "ids or refs of facts this one replaces",
}
"""The command's own help where it words an argument differently from the tool."""


def _add_remember_arguments(p: argparse.ArgumentParser) -> None:
    """One option per ``remember`` argument (:data:`REMEMBER_ARGUMENTS`: the declared fields
    and how the save is made), in the tool's order."""
    for a in REMEMBER_ARGUMENTS:
        flag, text = "--" + a.name.replace("_", "-"), _HELP.get(a.name, a.description)
        if a.kind == "bool":
            p.add_argument(flag, action="store_true", help=text)
        elif a.kind == "int":
            p.add_argument(flag, type=int, help=text)
        elif a.kind == "refs":
            p.add_argument(flag, nargs="+", action="append", metavar="REF", help=text)
        else:
            p.add_argument(flag, required=a.required, help=text)


def register(reg: Registry) -> None:
    """Add ``remember``, ``forget`` and ``approval-status``."""
    p = reg.add_top(
        "remember",
        help="(for agents) save a durable fact; needs the user's approval unless low-risk",
        description="Save a background fact. A new, bounded project/reference fact without secrets or "
        "duplicates is saved at once; anything else waits for the user's approval in the Context Center.",
        epilog=_EPILOG,
    )
    _add_remember_arguments(p)
    _common(p).set_defaults(func=_remember)

    p = reg.add_top(
        "forget",
        help="(for agents) archive a fact; always needs the user's approval",
        description="Archive a fact (never a hard delete). Every forget by an agent waits for the user's approval.",
        epilog=_EPILOG,
    )
    p.add_argument("ref", help="id, name, or project/<name>.md / global/<name>.md")
    _common(p).set_defaults(func=_forget)

    p = reg.add_top(
        "approval-status",
        help="(for agents) check on, or wait for, an earlier proposal",
        epilog=_EPILOG,
    )
    p.add_argument("proposal_id")
    _common(p).set_defaults(func=_status)

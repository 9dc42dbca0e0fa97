"""``suggest``: memory and skill candidates from recent history, reviewed by a person.

* ``reasonix-tui suggest [--all] [--json]`` lists the candidates best first (id, title,
  score, the reasons, and the evidence: every message it was said in, with the step it
  corrected). ``--all`` lists everything found, each marked: dismissed, accepted, or
  below (under the score threshold or past the cap). Nothing is written but the miner's
  cache.
* ``reasonix-tui suggest accept ID [--name N] [--title T] [--description D] [--type T]
  [--scope S] [--body B | --body-file F] [--json]`` writes one, optionally edited, as the
  person's own action: a fact through the store, or a ``SKILL.md`` (never overwriting).
* ``reasonix-tui suggest dismiss ID`` hides a candidate for good; ``suggest restore ID``
  brings it back.

``suggest accept`` is a person-only command: ``setup claude-code`` denies it to the agent.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...core.sessions.suggestions import (
    MemorySuggestion,
    SuggestionEdits,
    accept_suggestion,
    dismiss_suggestion,
    list_suggestions,
    restore_suggestion,
)
from ...core.store.model import InvalidInput
from ..fast_args import leading_globals

if TYPE_CHECKING:
    from ..cli import CliContext, Registry

__all__ = ["register", "cmd_list", "cmd_accept", "cmd_dismiss", "cmd_restore", "fast_main"]


def register(reg: Registry) -> None:
    """Add ``suggest`` with ``accept``, ``dismiss`` and ``restore``."""
    top = reg.add_top(
        "suggest",
        help="memory and skill candidates from recent sessions (review, accept, dismiss)",
        description="List memory and skill candidates found in recent sessions, Claude Code auto-memory, "
        "other agents' notes and repeated history searches that found nothing.",
    )
    top.add_argument(
        "--all",
        action="store_true",
        help="everything found, with score and reasons: dismissed, accepted, under the threshold, past the cap",
    )
    top.add_argument("--json", action="store_true", help="machine-readable output")
    top.set_defaults(func=cmd_list)
    sub = top.add_subparsers(dest="suggest_command", metavar="SUBCOMMAND", parser_class=type(top))

    a = sub.add_parser("accept", help="write a candidate (optionally edited) as your own memory or skill")
    a.add_argument("id", metavar="ID", help="suggestion id (from `suggest`)")
    a.add_argument("--name", help="fact or skill name")
    a.add_argument("--title", help="title")
    a.add_argument("--description", help="one-line description")
    a.add_argument("--type", help="user | feedback | project | reference")
    a.add_argument("--scope", help="project | global")
    body = a.add_mutually_exclusive_group()
    body.add_argument("--body", help="body text")
    body.add_argument("--body-file", help="read the body from a file ('-' for stdin)")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.set_defaults(func=cmd_accept)

    d = sub.add_parser("dismiss", help="hide a candidate for good")
    d.add_argument("id", metavar="ID", help="suggestion id")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.set_defaults(func=cmd_dismiss)

    r = sub.add_parser("restore", help="undo a dismissal")
    r.add_argument("id", metavar="ID", help="suggestion id")
    r.set_defaults(func=cmd_restore)


def _when(src: object) -> str:
    at = getattr(src, "at", None)
    return at.rfc3339() if at else "unknown time"


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    """``suggest``."""
    # No store here: the facts are read only when the candidates must be computed again.
    view = list_suggestions(ctx.layout, None, include_hidden=args.all, settings=ctx.settings)
    if args.json:
        ctx.print_json(view.to_json())
        return 0
    if not view.available:
        ctx.print("suggestions: unavailable (memory is disabled)")
        return 0
    items = view.all()
    window = f"in the last {view.window_days} days of history" if view.window_days else "in all history"
    notes = []
    if view.hidden:
        notes.append(f"{view.hidden} dismissed or accepted hidden, `reasonix-tui suggest --all` shows them")
    if view.more and not args.all:
        notes.append(f"{view.more} more past the cap (dismissing one brings the next in)")
    if view.covered:
        notes.append(f"{view.covered} already said by a fact or an instruction")
    if not items:
        ctx.print(
            f"suggestions: none (scanned {view.sessions} sessions {window}"
            + ("; " + "; ".join(notes) if notes else "")
            + ")"
        )
    for s in items:
        kind = "memory" if isinstance(s, MemorySuggestion) else "skill"
        state = view.state_of(s.id)
        ctx.print(f"{s.id}  [{kind} · {s.origin} · score {s.score:g}" + (f" · {state}]" if state else "]"))
        ctx.print(f"  {s.title}")
        if isinstance(s, MemorySuggestion):
            ctx.print(
                f"  type={s.type} scope={s.scope} name={s.name}" + ("  (needs your answer)" if s.needs_edit else "")
            )
            if s.updates:
                ctx.print(f"  updates {s.updates}: accepting writes its next revision")
            if s.description != s.title:
                ctx.print(f"  {s.description}")
        else:
            ctx.print(f"  scope={s.scope} description={s.description}")
            for i, step in enumerate(s.steps, 1):
                ctx.print(f"    {i}. {step}")
        ctx.print("  why: " + ("; ".join(s.reasons) if s.reasons else s.reason))
        if s.sources:
            for src in s.sources:
                where = (
                    f"{src.label}:{src.line}"
                    if src.line and src.source in ("claude-memory", "agent-notes")
                    else (f"{src.label} #{src.line}" if src.source in ("session", "claude-session") else src.label)
                )
                ctx.print(f"  evidence: [{where} · {_when(src)}] {src.text}")
                if src.context:
                    ctx.print(f"            after: {src.context}")
        else:
            for ev in s.evidence:
                ctx.print(f"  evidence: {ev}")
        ctx.print()
    if items:
        ctx.print(
            f"{len(items)} suggestion(s) from {view.sessions} session(s) {window}"
            + ("; " + "; ".join(notes) if notes else "")
        )
        ctx.print("accept with `reasonix-tui suggest accept ID [--body ...]`, or `reasonix-tui suggest dismiss ID`")
        if view.dismissed:
            ctx.print("undo a dismissal with `reasonix-tui suggest restore ID`")
    return 0


def _body(args: argparse.Namespace) -> str | None:
    if args.body_file is None:
        return args.body
    from ..cli import read_input_text

    return read_input_text(args.body_file)


def cmd_accept(args: argparse.Namespace, ctx: CliContext) -> int:
    """``suggest accept``."""
    edits = SuggestionEdits.from_values(args, body=_body(args))
    result = accept_suggestion(ctx.layout, args.id, edits, store=ctx.store, actor=ctx.actor)
    if args.json:
        out: dict[str, object] = {"id": result.id, "kind": result.kind, "path": result.path, "created": result.created}
        if result.fact is not None:
            out.update(ref=result.fact.ref, fact_id=result.fact.id, revision=result.fact.revision)
        ctx.print_json(out)
    elif result.fact is not None:
        f = result.fact
        ctx.print(f"accepted {result.id} as {f.ref} revision={f.revision} id={f.id} scope={f.scope}")
    else:
        ctx.print(f"accepted {result.id} as skill {result.path}")
    return 0


def cmd_dismiss(args: argparse.Namespace, ctx: CliContext) -> int:
    """``suggest dismiss``."""
    sug = dismiss_suggestion(ctx.layout, args.id, ctx.store)
    if args.json:
        ctx.print_json({"id": args.id, "dismissed": True, "already": sug is None})
    else:
        ctx.print(f"dismissed {args.id}" + (" (already dismissed)" if sug is None else ""))
    return 0


def cmd_restore(args: argparse.Namespace, ctx: CliContext) -> int:
    """``suggest restore``."""
    if restore_suggestion(ctx.layout, args.id):
        ctx.print(f"restored {args.id}")
        return 0
    raise InvalidInput(f'suggestion "{args.id}" is not dismissed')


def fast_main(argv: Sequence[str]) -> int | None:
    """``[--home H] [--workspace W] suggest [--all] [--json]`` without building the full
    CLI (it imports every command module); ``None`` for anything else."""
    args = list(argv)
    home, workspace, i = leading_globals(args)
    flags = args[i + 1 :]
    if args[i : i + 1] != ["suggest"] or any(a not in ("--all", "--json") for a in flags):
        return None
    from ..cli import run

    return run(
        argparse.Namespace(
            command="suggest",
            home=home,
            workspace=workspace,
            demo=False,
            all="--all" in flags,
            json="--json" in flags,
            func=cmd_list,
        )
    )

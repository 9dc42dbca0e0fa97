"""``memory instructions`` and ``memory note``: standing instructions from the command line.

* ``reasonix-tui memory instructions [--target PATH] [--json]`` prints Reasonix's
  ``/memory instructions`` report (spec A.6) for the workspace, or with ``--json`` the
  documents (precedence, scope, label, path, directory, import tree), the diagnostics and the
  provider-visible block. ``--target`` (relative paths are taken from the workspace) resolves
  for a deeper directory; the workspace root is the nearest ``.git`` ancestor of the
  workspace, so a target outside it is reported as ``target_outside_workspace``.
* ``reasonix-tui memory note TEXT [--local | --user] [--json]`` appends ``- TEXT`` to the
  instruction document exactly as Reasonix's ``# <note>`` quick-add (store-format §10.1).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from ...core.instructions.documents import POLICIES
from ...core.instructions.locations import nearest_git_root
from ...core.instructions.quickadd import append_doc, doc_path
from ...core.instructions.render import render_report, report_json
from ...core.instructions.resolver import resolve
from ...core.store.model import InvalidInput

if TYPE_CHECKING:
    from ..cli import CliContext, Registry

__all__ = ["register", "cmd_instructions", "cmd_note"]


def register(reg: Registry) -> None:
    """Add ``memory instructions`` and ``memory note``."""
    p = reg.add_memory(
        "instructions",
        help="which REASONIX.md / AGENTS.md / CLAUDE.md apply here, imports and diagnostics",
        description="Resolve standing instructions for the workspace (or --target) and report "
        "precedence, scope, paths, imports and diagnostics.",
    )
    p.add_argument("--target", help="directory to resolve for (default: the workspace; relative to it)")
    p.add_argument(
        "--policy",
        choices=POLICIES,
        default="brief",
        help="import policy: brief (default, project imports confined to their directory) or v2 (upstream)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_instructions)

    n = reg.add_memory(
        "note",
        help="append a one-line note to the instruction document (Reasonix's # quick-add)",
        description="Append '- TEXT' under '## Notes' in the workspace AGENTS.md (or the first "
        "existing REASONIX.md/AGENTS.md/CLAUDE.md).",
    )
    n.add_argument("text", nargs="+", metavar="TEXT", help="the note (joined and collapsed to one line)")
    where = n.add_mutually_exclusive_group()
    where.add_argument("--local", action="store_true", help="write to the personal *.local.md in the workspace")
    where.add_argument("--user", action="store_true", help="write to the user-level document in the state root")
    n.add_argument("--json", action="store_true", help="machine-readable output")
    n.set_defaults(func=cmd_note)


def cmd_instructions(args: argparse.Namespace, ctx: CliContext) -> int:
    """``memory instructions``."""
    workspace = str(ctx.layout.workspace)
    target = workspace
    if args.target:
        target = os.path.join(workspace, os.path.expanduser(args.target))
        if not os.path.isdir(target):
            raise InvalidInput(f"instruction target {args.target!r} is not a directory")
    root = nearest_git_root(workspace) or workspace
    resolution = resolve(target, str(ctx.layout.root), workspace_root=root, policy=args.policy)
    # REASONIX_EXPERIMENT_NO_MEMORY hides facts, pinned guidance and recall but keeps
    # standing instructions (Reasonix memory.Load), so it is deliberately not consulted here.
    if args.json:
        ctx.print_json(report_json(resolution))
    else:
        ctx.print(render_report(resolution))
    return 0


def cmd_note(args: argparse.Namespace, ctx: CliContext) -> int:
    """``memory note``."""
    scope = "user" if args.user else "local" if args.local else "project"
    note = " ".join(args.text)
    path = doc_path(scope, ctx.layout)
    result = append_doc(path, note, lock_path=ctx.layout.tui_dir / "instructions.lock")
    if not result.appended:
        raise InvalidInput("note is empty: nothing to add")
    if args.json:
        ctx.print_json(
            {
                "path": result.path,
                "scope": scope,
                "note": result.note,
                "created": result.created,
                "placement": result.placement,
            }
        )
    else:
        verb = "created" if result.created else "updated"
        ctx.print(f"{verb} {result.path}: - {result.note}")
        ctx.print("applies from the next session (standing instruction, not a memory fact)")
    return 0

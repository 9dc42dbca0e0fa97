"""``reasonix-tui memory health``: what is wrong in memory, with evidence and fixes.

* ``memory health [--json] [--all] [--severity S] [--kind K]`` prints the findings (the
  same the Context Center's Health pane shows). Exit code 0 when no open finding is a
  ``problem``, 1 otherwise, so it can guard a pre-commit hook or CI of a repository that
  keeps memory in git. ``--json`` prints a list (``[]`` when there is nothing): indented
  on a terminal; compact, one finding a line, written as it goes, when piped or redirected
  (a CI log, ``jq``); ``--indent N`` chooses (0: compact).
* ``memory health fix FINGERPRINT ACTION [--fact ID]`` applies a store fix of one finding
  (``archive``, ``verify``, ``unpin``, ``pin``) as your own write (actor ``cli``).
* ``memory health dismiss FINGERPRINT`` hides a finding for good (until one of its facts
  changes); ``memory health restore FINGERPRINT`` brings it back.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...core.health import SEVERITIES, Dismissals, Finding, HealthReport
from ...core.health.fixes import STORE_ACTIONS, apply_fix
from ...core.health.model import KIND_LABELS, KINDS
from ...core.store.model import InvalidInput, NotFound
from ...core.store.sealed import collector_paused
from ..cli import freeze_before_exit

if TYPE_CHECKING:
    from typing import TextIO

    from ..cli import CliContext, Registry

__all__ = ["register", "cmd_health", "cmd_fix", "cmd_dismiss", "cmd_restore", "render_text", "write_json_list"]


def register(reg: Registry) -> None:
    """Add ``memory health`` with ``fix``, ``dismiss`` and ``restore``."""
    p = reg.add_memory(
        "health",
        help="what is wrong in memory, with evidence (exit 1 when a problem is found)",
        description="Findings about the store: same-subject conflicts, duplicates, secrets, unreadable files, "
        "instruction problems, the pinned budget, stale, expired and unused facts. Exit 0 when no open "
        "finding is a problem, 1 otherwise.",
    )
    p.add_argument("--json", action="store_true", help="a JSON list of findings")
    p.add_argument(
        "--indent",
        type=int,
        metavar="N",
        help="with --json: indent by N spaces (0: one finding a line; the default when not on a terminal, else 2)",
    )
    p.add_argument("--all", action="store_true", help="include dismissed findings (marked)")
    p.add_argument("--severity", choices=SEVERITIES, help="only findings at least this serious")
    p.add_argument("--kind", action="append", choices=KINDS, help="only findings of this kind (repeatable)")
    p.set_defaults(func=cmd_health)
    sub = p.add_subparsers(dest="health_command", metavar="SUBCOMMAND", parser_class=type(p))

    f = sub.add_parser("fix", help="apply a store fix of one finding (archive, verify, unpin, pin)")
    f.add_argument("fingerprint", help="the finding's fingerprint (or key), from `memory health`")
    f.add_argument("action", choices=STORE_ACTIONS)
    f.add_argument("--fact", help="the fact to act on, when the finding offers the action for several")
    f.add_argument("--json", action="store_true", help="machine-readable output")
    f.set_defaults(func=cmd_fix)

    d = sub.add_parser("dismiss", help="hide a finding for good (until one of its facts changes)")
    d.add_argument("fingerprint")
    d.set_defaults(func=cmd_dismiss)

    r = sub.add_parser("restore", help="undo a dismissal")
    r.add_argument("fingerprint")
    r.set_defaults(func=cmd_restore)


def _report(ctx: CliContext) -> HealthReport:
    from ...core.health.quick import quick_report, validation_key
    from ...core.store.scan import listings_kept

    # an unchanged store answers from the last report without loading the checks (numpy,
    # the resolver, the store's snapshot); a changed one is loaded from the listing the
    # key was made of (each file stat'ed once)
    with listings_kept():
        key = validation_key(ctx.layout, ctx.settings, ctx.store)
        report = quick_report(ctx.layout, ctx.settings, ctx.store, key=key)
        if report is None:
            from ...core.health.checker import health_report

            report = health_report(ctx.layout, ctx.settings, ctx.store, quick_key=key)
    return report


def _selected(report: HealthReport, args: argparse.Namespace) -> list[tuple[Finding, bool]]:
    items = [(f, False) for f in report.findings]
    if getattr(args, "all", False):
        items += [(f, True) for f in report.dismissed]
    if getattr(args, "severity", None):
        allowed = SEVERITIES[: SEVERITIES.index(args.severity) + 1]
        items = [(f, d) for f, d in items if f.severity in allowed]
    if getattr(args, "kind", None):
        items = [(f, d) for f, d in items if f.kind in args.kind]
    return items


def cmd_health(args: argparse.Namespace, ctx: CliContext) -> int:
    """``memory health``."""
    # the findings (tens of thousands at 10k facts) live until they are printed: collection
    # passes over them would only cost time
    with collector_paused():
        code = _print_report(args, ctx)
        # What this call made (millions of objects when a store of 10k facts changed) dies
        # with the process or by reference counting: in a process started for this command,
        # moving it out of the collector's reach spares the first collection after the
        # pause a walk over all of it.
        freeze_before_exit()
    return code


def _print_report(args: argparse.Namespace, ctx: CliContext) -> int:
    report = _report(ctx)
    items = _selected(report, args)
    if args.json:
        indent = args.indent if args.indent is not None else (2 if _is_terminal(ctx) else 0)
        write_json_list(ctx.stdout, (_json_of(f, dismissed, args.all) for f, dismissed in items), indent)
    else:
        ctx.print(render_text(report, items, per_kind=None if args.kind or args.all else PER_KIND))
    return 1 if report.problems else 0


def _json_of(f: Finding, dismissed: bool, all_: bool) -> dict[str, object]:
    data = f.to_json()
    if all_:
        data["dismissed"] = dismissed
    return data


def _is_terminal(ctx: CliContext) -> bool:
    try:
        return bool(ctx.stdout.isatty())
    except (AttributeError, ValueError):
        return False


def write_json_list(out: TextIO, values: Iterable[object], indent: int = 0) -> None:
    """Write ``values`` as one JSON list, each value as it comes: with ``indent`` > 0
    indented like ``json.dumps(..., indent=indent)``; with 0 compact, one value a line
    (the C encoder: 10k findings print in a fraction of a second)."""
    if indent > 0:
        out.write(json.dumps(list(values), ensure_ascii=False, indent=indent) + "\n")
        return
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    sep = "["
    for value in values:
        out.write(sep + encode(value))
        sep = ",\n"
    out.write("[]\n" if sep == "[" else "]\n")


PER_KIND = 10
"""Findings of one kind printed in full before the rest are counted (``--kind`` lists all)."""


def render_text(report: HealthReport, items: list[tuple[Finding, bool]], per_kind: int | None = PER_KIND) -> str:
    """The text report: a summary line, then each finding with its facts, evidence and
    fixes (at most ``per_kind`` of one kind; the rest counted on one line)."""
    counts = report.counts()
    head = ", ".join(f"{n} {sev}{'s' if n != 1 and sev != 'info' else ''}" for sev, n in counts.items() if n)
    lines = [f"memory health: {head or 'no findings'} ({report.facts:,} facts; {report.span.describe()})"]
    if report.dismissed:
        lines[0] += f"; {len(report.dismissed)} dismissed"
    for note in report.partial:
        lines.append(f"incomplete: {note}")
    shown: dict[str, int] = {}
    more: dict[str, int] = {}
    for f, dismissed in items:
        shown[f.kind] = shown.get(f.kind, 0) + 1
        if per_kind is not None and shown[f.kind] > per_kind:
            more[f.kind] = more.get(f.kind, 0) + 1
            continue
        lines.append("")
        mark = " (dismissed)" if dismissed else ""
        lines.append(f"{f.severity.upper():<8} {f.label}: {f.title}{mark}")
        for ref in f.facts:
            role = f", {ref.role}" if ref.role else ""
            lines.append(f"  fact: {ref.ref} {ref.id} revision {ref.revision}{role}")
        if f.path and not f.facts:
            lines.append(f"  file: {f.path}")
        for ev in f.evidence:
            lines.append(f"  {ev}")
        for ov in f.overlap:
            lines.append(f"  shared: {ov}")
        for fix in f.fixes:
            lines.append(f"  fix: {fix.action} — {fix.label}")
        lines.append(f"  fingerprint: {f.fingerprint}")
    if more:
        lines.append("")
        for kind, n in more.items():
            lines.append(f"… and {n:,} more {KIND_LABELS.get(kind, kind)} (memory health --kind {kind} lists them all)")
    return "\n".join(lines)


def _find(report: HealthReport, ident: str, include_dismissed: bool = True) -> Finding:
    ident = ident.strip()
    pool = list(report.findings) + (list(report.dismissed) if include_dismissed else [])
    for f in pool:
        if ident in (f.fingerprint, f.key):
            return f
    raise NotFound(f"no finding {ident} (it may be fixed already, or its facts changed: run `memory health`)")


def cmd_fix(args: argparse.Namespace, ctx: CliContext) -> int:
    """``memory health fix FINGERPRINT ACTION``."""
    finding = _find(_report(ctx), args.fingerprint)
    fixes = [x for x in finding.fixes if x.action == args.action and (not args.fact or x.fact_id == args.fact)]
    if not fixes:
        offered = ", ".join(sorted({x.action for x in finding.fixes if x.action in STORE_ACTIONS})) or "none"
        raise InvalidInput(
            f"this finding offers no {args.action} fix"
            + (f" for {args.fact}" if args.fact else "")
            + f" (store fixes offered: {offered})"
        )
    outcome = apply_fix(ctx.store, finding, fixes[0], actor=ctx.actor)
    if getattr(args, "json", False):
        ctx.print_json({"text": outcome.text, "fact_id": outcome.fact_id, "paths": list(outcome.paths)})
    else:
        ctx.print(outcome.text)
    return 0


def cmd_dismiss(args: argparse.Namespace, ctx: CliContext) -> int:
    """``memory health dismiss FINGERPRINT``."""
    finding = _find(_report(ctx), args.fingerprint)
    if Dismissals(ctx.layout).dismiss(finding):
        ctx.print(f"dismissed: {finding.title} (it comes back if one of its facts changes)")
    else:
        ctx.print(f"already dismissed: {finding.title}")
    return 0


def cmd_restore(args: argparse.Namespace, ctx: CliContext) -> int:
    """``memory health restore FINGERPRINT``."""
    fp = args.fingerprint.strip()
    dismissals = Dismissals(ctx.layout)
    if not dismissals.restore(fp):
        for key, entry in dismissals.entries().items():
            if entry.get("key") == fp:
                dismissals.restore(key)
                ctx.print(f"restored: {entry.get('title', key)}")
                return 0
        raise NotFound(f"{fp} is not dismissed")
    ctx.print(f"restored: {fp}")
    return 0

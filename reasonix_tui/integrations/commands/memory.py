"""``reasonix-tui memory …``: the ``/memory`` family over the store (spec §D.2).

Text output follows Reasonix's ``/memory`` renderings; ``--json`` gives structured data.
Everything here is the person's own action (actor ``cli``): no approval is asked.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ...core.compat.gostr import one_line
from ...core.compat.gotime import Timestamp
from ...core.store.freshness import explain_freshness, freshness_for
from ...core.store.model import Fact, InvalidInput, StoreError, name_was_normalised, normalisation_note
from ...core.store.requests import build_save_request
from ...core.store.results import ArchivedFact
from ..cli import CliContext, Registry, read_input_text

__all__ = ["register", "fact_json", "USAGE"]

USAGE = (
    "usage: /memory [recall|subjects|pin <id-or-name>|unpin <id-or-name>|verify <id-or-name>|"
    "revisions <id-or-name>|restore <id-or-name> <revision>|archived|recover <archive-path>|instructions]"
)


def _time(ts: Timestamp | None) -> str:
    return ts.rfc3339() if ts is not None else "unknown"


def _opt_time(ts: Timestamp | None) -> str | None:
    return ts.rfc3339() if ts is not None else None


def fact_json(fact: Fact, now: Timestamp, *, body: bool = False) -> dict[str, Any]:
    """The JSON shape of a fact shared by every ``--json`` output."""
    data: dict[str, Any] = {
        "id": fact.id,
        "ref": fact.ref,
        "name": fact.name,
        "title": fact.title,
        "display_title": fact.display_title,
        "description": fact.description,
        "type": fact.type,
        "scope": fact.scope,
        "activation": fact.resolved_activation,
        "explicit_activation": fact.activation or None,
        "volatility": fact.volatility or None,
        "subject_key": fact.subject_key or None,
        "keywords": fact.keywords or None,
        "revision": fact.revision,
        "freshness": freshness_for(fact, now),
        "created_at": _opt_time(fact.created_at),
        "updated_at": _opt_time(fact.updated_at),
        "expires_at": _opt_time(fact.expires_at),
        "last_verified_at": _opt_time(fact.last_verified_at),
        "supersedes": list(fact.supersedes),
        "path": fact.path,
    }
    if fact.parse_error:
        data["parse_error"] = fact.parse_error
    if body:
        data["body"] = fact.body
    return data


def _prefixed(prefix: str, func: Callable[[], Any]) -> Any:
    """Run ``func``; re-raise store errors with Reasonix's ``<prefix>: `` in front."""
    try:
        return func()
    except StoreError as exc:
        raise type(exc)(f"{prefix}: {exc}") from None


MEMORY_NONE = "memory: none — add with “/remember <note>” or run /init to generate AGENTS.md"
EDIT_HINT = "edit doc files or use “/remember <note>”; doc edits apply next session"

# ---------------------------------------------------------------- handlers


def _fact_lines(fact: Fact, now: Timestamp) -> list[str]:
    """One saved memory as ``/memory`` and ``memory list`` show it."""
    pinned = " activation=pinned" if fact.pinned else ""
    lines = [
        f"  [{fact.display_title}]({fact.name}.md)",
        f"    id={fact.id}",
        f"    revision={fact.revision} scope={fact.scope} type={fact.type} freshness={freshness_for(fact, now)}{pinned}",
    ]
    if one_line(fact.description):
        lines.append(f"    description={one_line(fact.description)}")
    return lines


def _summary(args: argparse.Namespace, ctx: CliContext) -> int:
    """Bare ``/memory``: instructions, saved memories and archives (``RenderMemorySummary``)."""
    from ...core.instructions.resolver import resolve

    resolution = resolve(str(ctx.layout.workspace), str(ctx.layout.root))
    facts = [] if ctx.settings.no_memory else ctx.store.list_all()
    archived = [] if ctx.settings.no_memory else ctx.store.list_archived()
    now = ctx.store.clock()
    if getattr(args, "json", False):
        from ...core.instructions.render import report_json

        ctx.print_json(
            {
                "instructions": report_json(resolution),
                "facts": [fact_json(f, now) for f in facts],
                "archived": [_archived_json(a, now) for a in archived],
            }
        )
        return 0
    if not resolution.docs and not facts and not archived:
        ctx.print(MEMORY_NONE)
        return 0
    lines = ["memory"]
    if resolution.docs:
        lines += ["", "instructions (low -> high precedence)"]
        for i, doc in enumerate(resolution.docs, start=1):
            lines.append(f"  precedence={i} scope={doc.scope} path={doc.path}")
            if doc.directory:
                lines.append(f"    directory={doc.directory}")
            for imp in doc.flat_imports:
                lines.append(f"    import={imp.path}")
    if facts:
        lines += ["", "saved memories"]
        for f in facts:
            lines += _fact_lines(f, now)
    if archived:
        lines.append("")
        lines += _archived_lines(archived)
    if facts or archived:
        for d in (ctx.layout.project_dir, ctx.layout.global_dir):
            lines.append(f"  stored under {d}")
    lines += ["", EDIT_HINT, USAGE]
    ctx.print("\n".join(lines).rstrip("\n"))
    return 0


def _list(args: argparse.Namespace, ctx: CliContext) -> int:
    snap = ctx.store.snapshot()
    now = ctx.store.clock()
    facts = list(snap.facts)
    if args.scope:
        facts = [f for f in facts if f.scope == args.scope]
    if args.type:
        facts = [f for f in facts if f.type == args.type]
    if args.json:
        ctx.print_json([fact_json(f, now) for f in facts])
        for err in snap.errors:
            ctx.stderr.write(f"reasonix-tui: warning: {err.path}: {err.message}\n")
        return 0
    if not facts:
        ctx.print("saved memories: none")
    else:
        ctx.print("saved memories")
        for f in facts:
            for line in _fact_lines(f, now):
                ctx.print(line)
        dirs = [ctx.layout.project_dir, ctx.layout.global_dir]
        for d in dirs:
            ctx.print(f"  stored under {d}")
    for err in snap.errors:
        ctx.stderr.write(f"reasonix-tui: warning: {err.path}: {err.message}\n")
    return 0


def _show(args: argparse.Namespace, ctx: CliContext) -> int:
    fact = ctx.store.get(args.ref)
    now = ctx.store.clock()
    report = explain_freshness(fact, now)
    overrides = [
        {"project": o.project.ref, "global": o.global_fact.ref, "key": o.key.split(":", 1)[0]}
        for o in ctx.store.overrides()
        if fact.id in (o.project.id, o.global_fact.id)
    ]
    if args.json:
        data = fact_json(fact, now, body=True)
        data["freshness_reason"] = report.reason
        data["overrides"] = overrides
        data["revisions"] = [r.revision for r in ctx.store.revisions(fact.id)]
        ctx.print_json(data)
        return 0
    ctx.print(f"[{fact.display_title}]({fact.ref})")
    ctx.print(f"  id={fact.id}")
    ctx.print(f"  revision={fact.revision} scope={fact.scope} type={fact.type} activation={fact.resolved_activation}")
    ctx.print(f"  freshness={report.label} ({report.reason})")
    if fact.volatility:
        ctx.print(f"  volatility={fact.volatility}")
    if fact.subject_key:
        ctx.print(f"  subject_key={fact.subject_key}")
    if fact.keywords:
        ctx.print(f"  keywords={one_line(fact.keywords)}")
    if fact.expires_at:
        ctx.print(f"  expires_at={fact.expires_at.rfc3339()}")
    if fact.last_verified_at:
        ctx.print(f"  last_verified_at={fact.last_verified_at.rfc3339()}")
    if fact.supersedes:
        ctx.print(f"  supersedes={' '.join(fact.supersedes)}")
    ctx.print(f"  created={_time(fact.created_at)} updated={_time(fact.updated_at)}")
    if one_line(fact.description):
        ctx.print(f"  description={one_line(fact.description)}")
    for o in overrides:
        ctx.print(f"  override: {o['project']} overrides {o['global']} (same {o['key']})")
    ctx.print(f"  path={fact.path}")
    ctx.print("")
    ctx.print(fact.body)
    return 0


def _revisions(args: argparse.Namespace, ctx: CliContext) -> int:
    def run() -> tuple[Fact, list[Fact]]:
        fact = ctx.store.get(args.ref)
        return fact, ctx.store.revisions(fact.id)

    fact, history = _prefixed("memory revisions", run)
    rows = [fact] + [r for r in history if r.revision != fact.revision]
    if args.json:
        now = ctx.store.clock()
        ctx.print_json(
            {
                "id": fact.id,
                "name": fact.name,
                "ref": fact.ref,
                "revisions": [
                    {**fact_json(r, now, body=True), "state": "active" if i == 0 else "history"}
                    for i, r in enumerate(rows)
                ],
            }
        )
        return 0
    ctx.print(f"memory revisions id={fact.id} name={fact.name}")
    for i, r in enumerate(rows):
        state = "active" if i == 0 else "history"
        ctx.print(
            f"  revision={r.revision} {state} updated={_time(r.updated_at)} scope={r.scope} "
            f"type={r.type} description={one_line(r.description)}"
        )
    return 0


def _restore(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.revision < 1:
        raise InvalidInput("usage: /memory restore <id-or-name> <revision> (revision must be a positive integer)")
    result = _prefixed("memory restore", lambda: ctx.store.restore(args.ref, args.revision))
    f = result.fact
    if args.json:
        ctx.print_json(
            {"fact": fact_json(f, ctx.store.clock()), "warnings": list(result.warnings), "changed": result.changed}
        )
        return 0
    if not result.changed:
        ctx.print(result.message)
        return 0
    ctx.print(f"restored {f.name} as revision={f.revision} id={f.id} scope={f.scope}")
    for w in result.warnings:
        ctx.stderr.write(f"reasonix-tui: warning: {w}\n")
    return 0


def _archived_json(a: ArchivedFact, now: Timestamp) -> dict[str, Any]:
    data = fact_json(a.fact, now)
    data["archive_path"] = a.path
    data["archived_at"] = _opt_time(a.archived_at)
    return data


def _archived(args: argparse.Namespace, ctx: CliContext) -> int:
    items = ctx.store.list_archived()
    if args.json:
        now = ctx.store.clock()
        ctx.print_json([_archived_json(a, now) for a in items])
        return 0
    if not items:
        ctx.print("archived memories: none")
        return 0
    ctx.print("\n".join(_archived_lines(items)))
    return 0


def _archived_lines(items: list[ArchivedFact]) -> list[str]:
    lines = ["archived memories"]
    for a in items:
        f = a.fact
        lines.append(f"  [{f.display_title}]({a.path})")
        lines.append(f"    id={f.id}")
        lines.append(f"    revision={f.revision} scope={a.scope} type={f.type} archived={_time(a.archived_at)}")
        if one_line(f.description):
            lines.append(f"    description={one_line(f.description)}")
    lines.append("recover with /memory recover <archive-path>")
    return lines


def _recover(args: argparse.Namespace, ctx: CliContext) -> int:
    result = _prefixed("memory recover", lambda: ctx.store.recover(args.path))
    f = result.fact
    if args.json:
        ctx.print_json({"fact": fact_json(f, ctx.store.clock()), "warnings": list(result.warnings)})
        return 0
    ctx.print(f"recovered {f.name} as revision={f.revision} id={f.id} scope={f.scope}")
    return 0


def _activation(target: str) -> Callable[[argparse.Namespace, CliContext], int]:
    def run(args: argparse.Namespace, ctx: CliContext) -> int:
        res = _prefixed("memory activation", lambda: ctx.store.set_activation(args.ref, target))
        if args.json:
            ctx.print_json(
                {"changed": res.changed, "message": res.message, "fact": fact_json(res.fact, ctx.store.clock())}
            )
        else:
            ctx.print(res.message)
        return 0

    return run


def _verify(args: argparse.Namespace, ctx: CliContext) -> int:
    result = _prefixed("memory verify", lambda: ctx.store.verify(args.ref))
    if args.json:
        ctx.print_json({"message": result.message, "fact": fact_json(result.fact, ctx.store.clock())})
    else:
        ctx.print(result.message)
    return 0


def _subjects(args: argparse.Namespace, ctx: CliContext) -> int:
    rows = ctx.store.subjects()
    if args.json:
        ctx.print_json(
            [
                {
                    "subject_key": k,
                    "id": f.id,
                    "ref": f.ref,
                    "scope": f.scope,
                    "name": f.name,
                    "description": one_line(f.description),
                    "revision": f.revision,
                }
                for k, f in rows
            ]
        )
        return 0
    if not rows:
        ctx.print("no subject keys in use")
        ctx.print("assign one with remember's subject_key to track single-valued facts (e.g. project.package_manager)")
        return 0
    ctx.print("subject keys (one active value per scope+subject)")
    for key, f in rows:
        ctx.print(f"  {key} -> id={f.id} scope={f.scope} name={f.name} {one_line(f.description)}")
    return 0


def _forget(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.store.archive(args.ref)
    if not result.paths and result.fact is None:
        raise StoreError(f'memory "{args.ref}" not found')
    read_as = ""
    if result.fact is not None and result.fact.id != args.ref.strip() and name_was_normalised(args.ref):
        read_as = f"`{args.ref.strip()}` was read as {result.fact.ref}"
    if args.json:
        ctx.print_json(
            {
                "message": result.message,
                "archived": list(result.paths),
                "fact": fact_json(result.fact, ctx.store.clock()) if result.fact else None,
                "normalised": read_as or None,
            }
        )
    else:
        ctx.print(result.message + (f" ({read_as})" if read_as else ""))
    return 0


def _migrate(args: argparse.Namespace, ctx: CliContext) -> int:
    result = ctx.store.migrate()
    if args.json:
        ctx.print_json({"migrated": result.migrated, "paths": list(result.paths), "backups": list(result.backups)})
        return 0
    ctx.print(f"migrated {result.migrated} fact file(s)")
    for p in result.paths:
        ctx.print(f"  {p}")
    if result.backups:
        ctx.print(f"originals kept under .migration-backup/ ({len(result.backups)} file(s))")
    return 0


def _read_body(args: argparse.Namespace) -> str | None:
    if args.body_file:
        return read_input_text(args.body_file)
    return args.body


def _save(args: argparse.Namespace, ctx: CliContext) -> int:
    body = _read_body(args)
    existing: Fact | None = None
    ref = args.id or args.name
    if ref:
        existing = ctx.store.find(ref)
    raw: dict[str, Any] = {
        "id": args.id or "",
        "name": args.name or "",
        "title": args.title if args.title is not None else (existing.title if existing else ""),
        "description": args.description if args.description is not None else (existing.description if existing else ""),
        "body": body if body is not None else (existing.body if existing else ""),
        "type": args.type or (existing.type if existing else ""),
        "scope": args.scope or "",
        "keywords": args.keywords or "",
        "subject_key": args.subject_key or "",
        "activation": args.activation or "",
        "volatility": args.volatility or "",
        "expires_at": args.expires_at or "",
        "verified": args.verified,
        "expected_revision": args.expected_revision,
        "supersedes": args.supersedes,
    }
    parsed = build_save_request(raw)
    result = ctx.store.save(
        parsed.request,
        expected_revision=parsed.expected_revision,
        clear_expiry=parsed.clear_expiry,
    )
    f = result.fact
    if args.json:
        ctx.print_json(
            {
                "created": result.created,
                "fact": fact_json(f, ctx.store.clock()),
                "warnings": list(result.warnings),
                "archived": list(result.archived),
            }
        )
    else:
        verb = "created" if result.created else "updated"
        renamed = normalisation_note(args.name or "", f.ref) if not args.id else ""
        ctx.print(f"{verb} {f.ref} id={f.id} revision={f.revision}" + (f"; {renamed}" if renamed else ""))
        for w in result.warnings:
            ctx.stderr.write(f"reasonix-tui: warning: {w}\n")
        for a in result.archived:
            ctx.print(f"archived the other scope's copy to {a}")
    return 0


# ---------------------------------------------------------------- registration


def _json(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def register(reg: Registry) -> None:
    """Add the store's ``memory`` subcommands."""
    reg.memory_parser.set_defaults(func=_summary, json=False)
    p = _json(reg.add_memory("summary", help="instructions, saved memories and archives (bare /memory)"))
    p.set_defaults(func=_summary)

    p = _json(reg.add_memory("list", help="every active fact of both scopes"))
    p.add_argument("--scope", choices=["project", "global"])
    p.add_argument("--type", choices=["user", "feedback", "project", "reference"])
    p.set_defaults(func=_list)

    p = _json(reg.add_memory("show", help="one fact with its metadata and body"))
    p.add_argument("ref", help="id, name, or project/<name>.md / global/<name>.md")
    p.set_defaults(func=_show)

    p = _json(reg.add_memory("revisions", help="the active fact and its immutable history"))
    p.add_argument("ref")
    p.set_defaults(func=_revisions)

    p = _json(reg.add_memory("restore", help="restore an old revision as a new one"))
    p.add_argument("ref")
    p.add_argument("revision", type=int)
    p.set_defaults(func=_restore)

    p = _json(reg.add_memory("archived", aliases=["archives"], help="archived (forgotten) facts"))
    p.set_defaults(func=_archived)

    p = _json(reg.add_memory("recover", help="recover an archived fact as a new revision"))
    p.add_argument("path", help="archive path as printed by `memory archived`")
    p.set_defaults(func=_recover)

    for verb, target in (("pin", "pinned"), ("unpin", "relevant")):
        p = _json(reg.add_memory(verb, help=f"make a fact {target}"))
        p.add_argument("ref")
        p.set_defaults(func=_activation(target))

    p = _json(reg.add_memory("verify", help="renew a fact's freshness clock"))
    p.add_argument("ref")
    p.set_defaults(func=_verify)

    p = _json(reg.add_memory("subjects", help="subject keys in use"))
    p.set_defaults(func=_subjects)

    p = _json(reg.add_memory("forget", help="archive a fact (your own action: no approval)"))
    p.add_argument("ref")
    p.set_defaults(func=_forget)

    p = _json(reg.add_memory("migrate", help="upgrade legacy fact files in place (originals backed up)"))
    p.set_defaults(func=_migrate)

    p = _json(reg.add_memory("save", help="create or update a fact as yourself (remember's arguments)"))
    p.add_argument("--name")
    p.add_argument("--title")
    p.add_argument("--description")
    p.add_argument("--type", choices=["user", "feedback", "project", "reference"])
    p.add_argument("--scope", choices=["project", "global"])
    p.add_argument("--keywords")
    p.add_argument("--subject-key")
    p.add_argument("--activation", choices=["relevant", "pinned"])
    p.add_argument("--volatility", choices=["evergreen", "stable", "volatile"])
    p.add_argument("--expires-at", help='RFC3339, YYYY-MM-DD, or "never"')
    p.add_argument("--verified", action="store_true", help="stamp last_verified_at now")
    body = p.add_mutually_exclusive_group()
    body.add_argument("--body")
    body.add_argument("--body-file", help="read the body from a file ('-' for stdin)")
    p.add_argument("--id", help="update this fact (allows a rename)")
    p.add_argument("--expected-revision", type=int, help="refuse unless the fact is at this revision")
    p.add_argument("--supersedes", nargs="*", default=None, help="ids/refs this fact replaces")
    p.set_defaults(func=_save)

"""What candidates are computed from, besides the transcripts.

Active facts, the instruction documents (resolved as the agent sees them), existing skill
names, and the mined statements as merge items with the commands the history ran.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...compat.encoding import read_text
from ...compat.gotime import Timestamp
from ...paths import Layout
from ...store.model import StoreError
from .model import (
    Evidence,
)


def instruction_docs(layout: Layout) -> list[tuple[str, str]]:
    try:
        from ...instructions.locations import nearest_git_root
        from ...instructions.resolver import resolve
    except ImportError:  # pragma: no cover - the module ships with the package
        return []
    ws = str(layout.workspace)
    try:
        res = resolve(ws, str(layout.root), workspace_root=nearest_git_root(ws) or ws)
    except Exception:  # noqa: BLE001 - suggestions must survive a broken instruction tree
        out = []
        for d in (layout.root, layout.workspace):
            for name in ("REASONIX.md", "AGENTS.md", "CLAUDE.md"):
                try:
                    out.append((name, read_text(Path(d) / name).text))
                except OSError:
                    continue
        return out
    return [(os.path.basename(d.path), d.body) for d in res.docs]


def active_facts(layout: Layout, store: Any) -> list[Any]:
    if store is None:
        from ...store.store import Store

        store = Store(layout)
    try:
        return list(store.list_all())
    except StoreError:
        return []


def existing_skill_names(layout: Layout) -> set[str]:
    home = Path(os.environ.get("HOME") or os.path.expanduser("~"))
    roots = [layout.workspace / d / "skills" for d in (".reasonix", ".agents", ".agent", ".claude")]
    roots += [layout.root / "skills"] + [home / d / "skills" for d in (".agents", ".agent", ".claude")]
    names: set[str] = set()
    for root in roots:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for e in entries:
            if e.is_dir() and os.path.isfile(os.path.join(e.path, "SKILL.md")):
                names.add(e.name)
            elif e.name.endswith(".md") and e.is_file():
                names.add(e.name[:-3])
    return names


def mined_items(mined: Any) -> list[Any]:
    from .items import Item

    out: list[Item] = []
    for rec in mined.sessions:
        for k, (
            sid,
            path,
            source,
            index,
            at_ns,
            message,
            text,
            core,
            score,
            reasons,
            context,
            policy,
            _ents,
            terms,
            core_terms,
            values,
            words,
            name,
        ) in enumerate(rec.statements):
            at = at_ns or rec.last_ns
            out.append(
                Item(
                    ref=(rec.path, str(k)),
                    origin="history",
                    score=score,
                    reasons=list(reasons),
                    text=text,
                    core=core,
                    at_ns=at,
                    sources=[Evidence(source, sid, message, Timestamp(at) if at else None, path, index, context)],
                    group=sid,
                    policy=policy,
                    context=context,
                    name=name,
                    terms=dict(terms),
                    values=set(values),
                    core_terms=dict(core_terms),
                    words=words,
                )
            )
    return out


def history_tools(mined: Any) -> frozenset[str]:
    heads: set[str] = set()
    for rec in mined.sessions:
        heads |= rec.tools
    return frozenset(h for h in heads if len(h) >= 2)

"""Findings the subject and topic resolver sees (:mod:`reasonix_tui.core.resolve`):
same-subject conflicts, topic supersessions without links, project facts overriding a
global default."""

from __future__ import annotations

from collections.abc import Sequence

from ..resolve import Resolution, Supersession
from ..store.model import Fact, normalize_subject_key
from ..store.precedence import find_overrides
from .base import (
    archive_fix,
    edit_fix,
    fact_line,
    make_finding,
    newness,
)
from .model import INFO, PROBLEM, WARNING, FactRef, Finding, Fix

__all__ = ["check_subject_conflicts", "check_topic_supersessions", "check_overrides"]

# --------------------------------------------------------------------------- same subject


def check_subject_conflicts(facts: Sequence[Fact], resolution: Resolution) -> list[Finding]:
    """Two or more active facts of one scope holding one subject key, as the subject
    resolver sees them (:func:`~reasonix_tui.core.resolve.resolve_subjects`: the newest is
    current, the others superseded). The store refuses a second holder, so this comes from
    hand edits or a sync. A project fact over a global one on a subject is an override
    (:func:`check_overrides`), not a conflict."""
    groups: dict[int, tuple[Fact, list[Supersession]]] = {}
    for sup in resolution.items:
        if sup.kind != "subject" or sup.old.scope != sup.current.scope:
            continue
        groups.setdefault(id(sup.current), (sup.current, []))[1].append(sup)
    out: list[Finding] = []
    for current, sups in groups.values():
        older = sorted((s.old for s in sups), key=newness, reverse=True)
        key = normalize_subject_key(current.subject_key)
        n = len(older) + 1
        refs = [FactRef.of(current, "current"), *(FactRef.of(f, "superseded") for f in older)]
        evidence = [
            f"subject {key} has {n} active {current.scope} facts; a subject has one current value, the newest "
            "(the store refuses a second holder, so a hand edit or a sync made this)",
            fact_line("current (newest)", current),
            *(fact_line("superseded", f) for f in older),
        ]
        fixes = [*(archive_fix(f, "the superseded") for f in older), edit_fix(current, "the current")]
        title = f"{n} {current.scope} facts hold subject {key}"
        out.append(make_finding("subject-conflict", PROBLEM, title, refs, evidence, fixes))
    return out


def check_topic_supersessions(
    facts: Sequence[Fact], resolution: Resolution, skip: set[frozenset[str]] | None = None
) -> list[Finding]:
    """Pairs of facts on one topic where the newer replaces the older without a link (the
    topic resolver, :func:`~reasonix_tui.core.resolve.topic_pairs`): ``warning`` when the
    newer one says so in words, ``info`` when only the overlap and the dates say it. Pairs
    of ids in ``skip`` (already reported as duplicates) are left out."""
    out: list[Finding] = []
    for sup in resolution.items:
        if sup.kind != "topic" or frozenset((str(sup.old.id), str(sup.current.id))) in (skip or ()):
            continue
        old, cur = sup.old, sup.current
        if str(old.id) in cur.supersedes or old.ref in cur.supersedes:
            continue  # linked: the newer fact already says it replaces this one
        severity = WARNING if sup.certain else INFO
        lead = "replaced" if sup.certain else "possibly replaced"
        evidence = [
            f"{lead} by a newer fact on the same topic: {sup.evidence}",
            fact_line("current (newer)", cur),
            fact_line("older", old),
            "both are active: recall ranks the older one after the newer, but still shows it",
        ]
        fixes = [archive_fix(old, "the replaced"), edit_fix(cur, "the current"), edit_fix(old, "the older")]
        title = f"{old.display_title}: {lead} by {cur.display_title}"
        out.append(
            make_finding(
                "topic-supersession",
                severity,
                title,
                [FactRef.of(cur, "current"), FactRef.of(old, "superseded")],
                evidence,
                fixes,
                extra=sup.evidence,
            )
        )
    return out


# --------------------------------------------------------------------------- overrides


def _override(p: Fact, g: Fact, why: str, extra: str) -> Finding:
    refs = [FactRef.of(p, "project"), FactRef.of(g, "global")]
    evidence = [why, fact_line("project", p), fact_line("global default", g)]
    if g.pinned:
        evidence.append("the global fact is pinned: it still rides in every other workspace's sessions")
    fixes = [
        edit_fix(g, "the global default"),
        edit_fix(p, "the project fact"),
        Fix("archive", f"archive the global default {g.ref} (every workspace)", fact_id=str(g.id)),
    ]
    title = f"{p.display_title} overrides the global {g.display_title}"
    return make_finding("project-override", INFO, title, refs, evidence, fixes, extra=extra)


def check_overrides(facts: Sequence[Fact], resolution: Resolution | None = None) -> list[Finding]:
    """Project facts that shadow a global default: by identity (id, name, title or subject
    key; ``FindOverrides``, the rule recall and the pinned block apply), or on the same
    topic under other words (the topic resolver's overrides)."""
    out: list[Finding] = []
    seen: set[frozenset[str]] = set()
    for o in find_overrides(facts):
        p, g = o.project, o.global_fact
        kind_, _, value = o.key.partition(":")
        seen.add(frozenset((str(p.id), str(g.id))))
        why = (
            f"in this workspace the project fact overrides the global one (shared {kind_} {value}): recall "
            "and the session-start block use the project fact only"
        )
        out.append(_override(p, g, why, o.key))
    for sup in resolution.items if resolution is not None else ():
        if sup.kind != "override":
            continue
        p, g = sup.current, sup.old
        pair = frozenset((str(p.id), str(g.id)))
        if pair in seen:
            continue
        seen.add(pair)
        said = sup.evidence.split("overrides this global default: ", 1)[-1]
        why = (
            f"by topic, under other words ({said}): recall and the session-start block (enhanced mode) "
            "use the project fact only"
        )
        out.append(_override(p, g, why, "topic"))
    return out

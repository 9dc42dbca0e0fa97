"""Duplicates: the same text (case, spacing and punctuation ignored) and the same meaning
in other words (:mod:`.similar`), one finding per group; the newest stays."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from ..compat.gostr import one_line, truncate_runes
from ..store.model import Fact, normalized_phrase
from .base import (
    FactScan,
    FindingMemo,
    archive_fix,
    fact_line,
    make_finding,
    newness,
    scan_key,
)
from .model import WARNING, FactRef, Finding, Fix
from .similar import MAX_GROUP, NearDuplicate

__all__ = ["dup_keys", "check_duplicates", "check_near_duplicates"]

# --------------------------------------------------------------------------- duplicates


def dup_keys(f: Fact) -> tuple[tuple[str, bytes], ...]:
    """``(field, digest)`` of the title, description and body after
    :func:`~reasonix_tui.core.store.model.normalized_phrase` (the write policy's duplicate
    rule); texts shorter than 8 letters are left out (a coincidence, not a duplicate)."""
    out = []
    for field_name, value in (("title", f.title), ("description", f.description), ("body", f.body)):
        norm = normalized_phrase(value)
        if len(norm) >= 8:
            out.append((field_name, hashlib.blake2b(norm.encode("utf-8", "surrogatepass"), digest_size=12).digest()))
    return tuple(out)


def _find_root(parent: dict[Any, Any], x: Any) -> Any:
    """The root of ``x`` in a union-find forest kept in ``parent`` (paths halved)."""
    parent.setdefault(x, x)
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def check_duplicates(
    facts: Sequence[Fact],
    scans: Mapping[str, FactScan] | None = None,
    skip_pairs: set[frozenset[str]] | None = None,
    memo: FindingMemo | None = None,
) -> list[Finding]:
    """Facts that say the same thing: the same title, description or body once case,
    spacing and punctuation are ignored (the write policy's duplicate rule, applied to the
    store). Pairs in ``skip_pairs`` (already a conflict or an override) are left out;
    ``memo`` keeps a group's finding while its facts and shared texts are the same."""
    skip = skip_pairs or set()
    scans = scans or {}
    by_text: dict[tuple[str, bytes], list[Fact]] = {}
    for f in facts:
        scan = scans.get(scan_key(f))
        for key in scan.dup_keys if scan is not None else dup_keys(f):
            by_text.setdefault(key, []).append(f)
    parent: dict[str, str] = {}
    find = partial(_find_root, parent)
    linked: list[tuple[str, str, str, str]] = []
    by_id = {str(f.id): f for f in facts}
    for (field_name, _), group in by_text.items():
        if len(group) < 2:
            continue
        ids = [str(f.id) for f in group]
        for other in ids[1:]:
            if frozenset((ids[0], other)) in skip:
                continue
            parent[find(other)] = find(ids[0])
            linked.append((ids[0], other, field_name, one_line(getattr(group[0], field_name))))
    groups: dict[str, dict[str, None]] = {}
    fields_of: dict[str, dict[str, str]] = {}
    for a, b, field_name, text in linked:
        root = find(a)
        members = groups.setdefault(root, {})  # a dict: ordered, and membership in O(1) for big groups
        members.setdefault(a)
        members.setdefault(b)
        fields_of.setdefault(root, {}).setdefault(field_name, text)
    out: list[Finding] = []
    for root, members in groups.items():
        fs = sorted((by_id[i] for i in members), key=newness, reverse=True)
        if len(fs) < 2:
            continue
        shared = fields_of[root]
        sig = tuple(sorted(shared.items()))
        found = (
            memo.get_group("duplicate", fs, sig, lambda fs=fs, shared=shared: _duplicate(fs, shared))  # type: ignore[misc]  # a default-argument lambda binds the loop values
            if memo is not None
            else _duplicate(fs, shared)
        )
        if found is not None:
            out.append(found)
    return out


def _group_parts(keep: Fact, others: Sequence[Fact]) -> tuple[list[FactRef], list[str], list[Fix]]:
    """What every duplicate group's finding shows: its references, the evidence lines that
    name its members, and the fixes (archive each duplicate, or merge into the newest)."""
    refs = [FactRef.of(keep, "current"), *(FactRef.of(f, "duplicate") for f in others)]
    lines = [fact_line("newest", keep), *(fact_line("duplicate", f) for f in others)]
    fixes = [
        *(archive_fix(f, "the duplicate") for f in others),
        Fix(
            "merge",
            f"merge into {keep.ref} (the form opens with the merged text)",
            fact_id=str(keep.id),
            keep_id=str(keep.id),
        ),
    ]
    return refs, lines, fixes


def _duplicate(fs: list[Fact], shared: dict[str, str]) -> Finding:
    """The finding of one group of exact duplicates (newest first)."""
    keep, others = fs[0], fs[1:]
    refs, lines, fixes = _group_parts(keep, others)
    fields_shared = [fld for fld in ("title", "description", "body") if fld in shared]
    overlap = []
    for fld in fields_shared:
        overlap.append(f"{fld}: {truncate_runes(shared[fld], 160)}")
    evidence = [
        f"{len(fs)} facts share the same {', '.join(fields_shared)} (case, spacing and punctuation ignored); "
        "recall may spend its budget on both",
        *lines,
    ]
    title = f"{keep.display_title}: {len(fs)} facts say the same"
    return make_finding("near-duplicate", WARNING, title, refs, evidence, fixes, overlap=overlap)


def check_near_duplicates(
    facts: Sequence[Fact], dups: Sequence[NearDuplicate], memo: FindingMemo | None = None
) -> list[Finding]:
    """Facts that say the same thing in other words (:mod:`.similar`: alike by meaning,
    sharing their words, no different values), one finding per group of them; the newest
    stays."""
    parent: dict[int, int] = {}
    find = partial(_find_root, parent)
    size: dict[int, int] = {}
    kept: list[NearDuplicate] = []
    for d in sorted(dups, key=lambda d: -d.meaning):
        ri, rj = find(d.i), find(d.j)
        if ri != rj:
            if size.get(ri, 1) + size.get(rj, 1) > MAX_GROUP:
                continue  # a family of look-alike facts (a template), not duplicates to merge
            parent[rj] = ri
            size[ri] = size.get(ri, 1) + size.get(rj, 1)
        kept.append(d)
    groups: dict[int, list[NearDuplicate]] = {}
    for d in kept:
        groups.setdefault(find(d.i), []).append(d)
    out: list[Finding] = []
    for pairs in groups.values():
        members = sorted({facts[x] for d in pairs for x in (d.i, d.j)}, key=newness, reverse=True)
        sig = tuple(sorted((str(facts[d.i].id), str(facts[d.j].id), round(d.meaning, 4)) for d in pairs))
        found = (
            memo.get_group("near-duplicate", members, sig, lambda m=members, p=pairs: _near(facts, m, p))  # type: ignore[misc]  # a default-argument lambda binds the loop values
            if memo is not None
            else _near(facts, members, pairs)
        )
        if found is not None:
            out.append(found)
    return out


def _near(facts: Sequence[Fact], members: list[Fact], pairs: list[NearDuplicate]) -> Finding:
    keep, others = members[0], members[1:]
    refs, lines, fixes = _group_parts(keep, others)
    best = max(pairs, key=lambda d: d.meaning)
    overlap = []
    if best.shared:
        overlap.append("words: " + ", ".join(best.shared[:12]))
    overlap += [f"passage: {truncate_runes(p, 160)}" for p in best.passages[:3]]
    evidence = [
        f"{len(members)} facts say the same thing in other words; recall may spend its budget on all of them",
        *(
            f"{facts[d.i].ref} ≈ {facts[d.j].ref}: meaning similarity {d.meaning:.2f}, "
            f"{d.cover[0]:.0%} and {d.cover[1]:.0%} of their words (weighted by what each word says) shared"
            for d in sorted(pairs, key=lambda d: -d.meaning)[:6]
        ),
        *lines,
    ]
    title = f"{keep.display_title} ≈ " + ", ".join(f.display_title for f in others)
    return make_finding(
        "near-duplicate",
        WARNING,
        truncate_runes(title, 120),
        refs,
        evidence,
        fixes,
        overlap=overlap,
        extra="meaning",
    )

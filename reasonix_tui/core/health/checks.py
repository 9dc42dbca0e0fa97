"""The checks: pure functions from facts (and their memoised per-fact scans), files that
did not read, recorded recall traces and the instruction resolution to findings.

Each ``check_*`` function returns a list of :class:`~.model.Finding`; :mod:`.checker`
runs them all, keeps the per-fact work memoised between runs, and applies dismissals.
No check reads a file: the inputs come in as data.
"""

from __future__ import annotations

import bisect
import hashlib
import os
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from ..compat.gostr import one_line, trim_space, truncate_runes
from ..compat.gotime import DAY_NS, Timestamp
from ..instructions.documents import Diagnostic
from ..recall.results import SUPPRESSED_EMPTY, SUPPRESSED_GENERIC, SUPPRESSED_NO_TERMS
from ..recall.trace import RecallTrace
from ..resolve import Resolution, Supersession
from ..store.freshness import FreshnessReport, explain_freshness
from ..store.model import Fact, normalize_subject_key, normalized_phrase
from ..store.precedence import find_overrides
from .model import INFO, PROBLEM, WARNING, FactRef, Finding, Fix, TraceSpan, fingerprint_of, key_of
from .similar import MAX_GROUP, NearDuplicate

__all__ = [
    "FactScan",
    "SecretHit",
    "Usage",
    "HealthContext",
    "newness",
    "scan_key",
    "make_finding",
    "FindingMemo",
    "dup_keys",
    "check_subject_conflicts",
    "check_topic_supersessions",
    "check_near_duplicates",
    "check_overrides",
    "check_duplicates",
    "check_secrets",
    "check_unreadable",
    "check_instructions",
    "check_pinned_budget",
    "check_pinned_unused",
    "check_freshness",
    "check_oversized",
    "check_recall_usage",
    "usage_from_traces",
    "OVERSIZED_RUNES",
    "SOON_DAYS",
    "MIN_TURNS",
    "OFTEN_SHARE",
    "OFTEN_MIN",
    "BUDGET_WARN_SHARE",
    "DF_SAMPLE",
]

OVERSIZED_RUNES = 6000
"""A body longer than this is oversized: the write policy's automatic-write budget
(``MAX_AUTO_BODY_RUNES``); recall only ever shows a snippet of it."""
SOON_DAYS = 7
"""A freshness window or an expiry ending within this many days is reported."""
MIN_TURNS = 10
"""Usage findings need at least this many recorded turns since the fact was created."""
OFTEN_SHARE = 0.25
"""A fact recalled in at least this share of the turns since it was created is "often"."""
OFTEN_MIN = 5
"""...and in at least this many turns."""
BUDGET_WARN_SHARE = 0.8
"""Pinned guidance at or above this share of the budget is a warning (above it: a problem)."""
DISTINCTIVE_SHARE = 0.2
"""A word found in more than this share of the store's facts says nothing about a topic
(used to decide whether a turn was about a pinned fact)."""

_SKIPPED_TURNS = frozenset({SUPPRESSED_GENERIC, SUPPRESSED_EMPTY, SUPPRESSED_NO_TERMS})
_NO_TIME = -(1 << 62)


def newness(f: Fact) -> tuple[int, int, str]:
    """Newest first ordering: ``updated_at``, then revision, then id (the resolver's rule)."""
    return (f.updated_at.ns if f.updated_at is not None else _NO_TIME, f.revision, str(f.id))


def scan_key(f: Fact) -> str:
    """How per-fact scans are keyed: the file (two files may carry one id), else the id."""
    return f.path or str(f.id)


def _day(ts: Timestamp | None) -> str:
    return _day_of(ts.ns // DAY_NS) if ts is not None else "unknown"


@lru_cache(maxsize=4096)
def _day_of(day: int) -> str:
    return Timestamp(day * DAY_NS).rfc3339()[:10]


def _n(value: int) -> str:
    return f"{value:,}"


def _gist(fact: Fact, limit: int = 100) -> str:
    text = one_line(fact.description) or one_line(fact.body)
    return truncate_runes(text, limit) if len(text) > limit else text


def _name(fact: Fact) -> str:
    return f"{fact.display_title} ({fact.ref})"


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class SecretHit:
    """One sensitive span in a fact (masked: the secret itself is never kept)."""

    field: str
    """``body``, ``description``, ``title``, ``keywords``..."""
    kind: str
    """The detector's kind (``aws-access-key``, ``email``, ``detect-secrets:…``)."""
    label: str
    """A person's words for it."""
    line: int
    """1-based line in the field."""
    preview: str
    """Masked preview."""


@dataclass(frozen=True, slots=True)
class FactScan:
    """What the checks need from one fact's text, computed once per fact revision."""

    secrets: tuple[SecretHit, ...]
    """What the write policy's detector flags."""
    body_runes: int
    """Runes of the trimmed body."""
    dup_keys: tuple[tuple[str, bytes], ...] = ()
    """``(field, digest)`` of the title, description and body once case, spacing and
    punctuation are removed (:func:`dup_keys`): equal digests, same text."""


@dataclass(frozen=True)
class HealthContext:
    """Everything the checks look at, as data."""

    facts: Sequence[Fact]
    """Active facts of both scopes."""
    scans: Mapping[str, FactScan]
    """Per-fact scans by :func:`scan_key` (facts without one are skipped by text checks)."""
    now: Timestamp
    """The moment freshness is judged at."""
    pinned_budget: int = 1500
    """The pinned budget (0: no ceiling)."""
    pinned_refused: bool = True
    """A pin over the budget is refused (the budget was configured, as in Reasonix)."""
    errors: Sequence[tuple[str, str, str, str]] = ()
    """Unreadable files: ``(path, scope, message, signature)``; the signature (size and
    time) changes when the file does."""
    traces: Sequence[RecallTrace] = ()
    """Recorded recall traces, any order."""
    diagnostics: Sequence[Diagnostic] = ()
    """Instruction diagnostics."""
    workspace: str = ""
    """The workspace folder (file names in titles are shown relative to it)."""
    function_words: frozenset[str] = frozenset()
    """Words that never count as evidence of a topic."""
    words: Callable[[Fact], frozenset[str]] | None = None
    """A fact's recall tokens (memoised by the caller)."""


def make_finding(
    kind: str,
    severity: str,
    title: str,
    facts: Sequence[FactRef] = (),
    evidence: Iterable[str] = (),
    fixes: Iterable[Fix] = (),
    *,
    extra: str = "",
    path: str = "",
    overlap: Iterable[str] = (),
    data: Mapping[str, object] | None = None,
) -> Finding:
    """A finding with its key and fingerprint computed and ``dismiss`` appended."""
    facts = tuple(facts)
    fx = [f for f in fixes if f.action != "dismiss"]
    fx.append(
        Fix(
            "dismiss",
            "dismiss for good (until "
            + ("these facts change)" if len(facts) > 1 else "the fact changes)" if facts else "it changes)"),
        )
    )
    return Finding(
        kind=kind,
        severity=severity,
        title=title,
        facts=facts,
        evidence=tuple(evidence),
        fixes=tuple(fx),
        key=key_of(kind, facts, path),
        fingerprint=fingerprint_of(kind, facts, path + "\0" + extra),
        path=path,
        overlap=tuple(overlap),
        data=tuple((data or {}).items()),
    )


class FindingMemo:
    """Findings about one fact kept between runs: reused while the fact is the same object
    and the values that shape the finding (its *signature*: counts, days, labels) are
    equal, so a run after one write builds findings for the facts that changed only."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, int], tuple[Fact, Hashable, Finding | None]] = {}
        self._groups: dict[tuple[str, tuple[int, ...]], tuple[tuple[Fact, ...], Hashable, Finding | None]] = {}

    def get(self, kind: str, fact: Fact, signature: Hashable, build: Callable[[], Finding | None]) -> Finding | None:
        """``build()``, or what it gave for this fact and signature last time."""
        key = (kind, id(fact))
        hit = self._items.get(key)
        if hit is not None and hit[0] is fact and hit[1] == signature:
            return hit[2]
        value = build()
        self._items[key] = (fact, signature, value)
        return value

    def get_group(
        self, kind: str, group: Sequence[Fact], signature: Hashable, build: Callable[[], Finding | None]
    ) -> Finding | None:
        """:meth:`get` for a finding about several facts (all must be the same objects)."""
        key = (kind, tuple(id(f) for f in group))
        hit = self._groups.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], group)) and hit[1] == signature:
            return hit[2]
        value = build()
        self._groups[key] = (tuple(group), signature, value)
        return value

    def retain(self, facts: Sequence[Fact]) -> None:
        """Forget the findings of facts not in ``facts``."""
        alive = {id(f): f for f in facts}
        for key, (fact, _, _) in list(self._items.items()):
            if alive.get(key[1]) is not fact:
                del self._items[key]
        for gkey, (group, _, _) in list(self._groups.items()):
            if any(alive.get(id(f)) is not f for f in group):
                del self._groups[gkey]

    def __len__(self) -> int:
        return len(self._items)


def _memo_get(
    memo: FindingMemo | None, kind: str, fact: Fact, signature: Hashable, build: Callable[[], Finding | None]
) -> Finding | None:
    return build() if memo is None else memo.get(kind, fact, signature, build)


def _archive(fact: Fact, what: str) -> Fix:
    return Fix("archive", f"archive {what} {fact.ref}", fact_id=str(fact.id))


def _edit(fact: Fact, what: str = "", why: str = "") -> Fix:
    label = f"open {what + ' ' if what else ''}{fact.ref} in the editor" + (f" ({why})" if why else "")
    return Fix("edit", label, fact_id=str(fact.id), path=fact.path)


# --------------------------------------------------------------------------- same subject


def _fact_line(role: str, fact: Fact) -> str:
    return f"{role}: {_name(fact)}, revision {fact.revision}, updated {_day(fact.updated_at)}: {_gist(fact)}"


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
            _fact_line("current (newest)", current),
            *(_fact_line("superseded", f) for f in older),
        ]
        fixes = [*(_archive(f, "the superseded") for f in older), _edit(current, "the current")]
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
            _fact_line("current (newer)", cur),
            _fact_line("older", old),
            "both are active: recall ranks the older one after the newer, but still shows it",
        ]
        fixes = [_archive(old, "the replaced"), _edit(cur, "the current"), _edit(old, "the older")]
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
    evidence = [why, _fact_line("project", p), _fact_line("global default", g)]
    if g.pinned:
        evidence.append("the global fact is pinned: it still rides in every other workspace's sessions")
    fixes = [
        _edit(g, "the global default"),
        _edit(p, "the project fact"),
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


def _duplicate(fs: list[Fact], shared: dict[str, str]) -> Finding:
    """The finding of one group of exact duplicates (newest first)."""
    keep, others = fs[0], fs[1:]
    fields_shared = [fld for fld in ("title", "description", "body") if fld in shared]
    refs = [FactRef.of(keep, "current"), *(FactRef.of(f, "duplicate") for f in others)]
    overlap = []
    for fld in fields_shared:
        overlap.append(f"{fld}: {truncate_runes(shared[fld], 160)}")
    evidence = [
        f"{len(fs)} facts share the same {', '.join(fields_shared)} (case, spacing and punctuation ignored); "
        "recall may spend its budget on both",
        _fact_line("newest", keep),
        *(_fact_line("duplicate", f) for f in others),
    ]
    fixes = [
        *(_archive(f, "the duplicate") for f in others),
        Fix(
            "merge",
            f"merge into {keep.ref} (the form opens with the merged text)",
            fact_id=str(keep.id),
            keep_id=str(keep.id),
        ),
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
        _fact_line("newest", keep),
        *(_fact_line("duplicate", f) for f in others),
    ]
    fixes = [
        *(_archive(f, "the duplicate") for f in others),
        Fix(
            "merge",
            f"merge into {keep.ref} (the form opens with the merged text)",
            fact_id=str(keep.id),
            keep_id=str(keep.id),
        ),
    ]
    title = f"{keep.display_title} ≈ " + ", ".join(f.display_title for f in others)
    return make_finding(
        "near-duplicate",
        WARNING,
        truncate_runes(title, 120),
        [FactRef.of(keep, "current"), *(FactRef.of(f, "duplicate") for f in others)],
        evidence,
        fixes,
        overlap=overlap,
        extra="meaning",
    )


# --------------------------------------------------------------------------- secrets


def check_secrets(facts: Sequence[Fact], scans: Mapping[str, FactScan]) -> list[Finding]:
    """Facts whose text holds something the write policy's secret detector flags
    (an e-mail address alone is a warning; anything else a problem)."""
    out: list[Finding] = []
    for f in facts:
        scan = scans.get(scan_key(f))
        if scan is None or not scan.secrets:
            continue
        only_email = all(s.kind == "email" for s in scan.secrets)
        labels = sorted({s.label for s in scan.secrets})
        evidence = [f"{s.field} line {s.line}: {s.preview} ({s.label})" for s in scan.secrets[:8]]
        if len(scan.secrets) > 8:
            evidence.append(f"… and {len(scan.secrets) - 8} more")
        evidence.append(
            "it reaches the agent whenever the fact is recalled; editing it out leaves the old text in the "
            "fact's revisions (.revisions/) and archiving keeps it in .archive/"
        )
        title = f"{f.display_title} holds {labels[0]}" + (f" and {len(labels) - 1} more" if len(labels) > 1 else "")
        fixes = [_edit(f), _archive(f, "")]
        extra = "\0".join(f"{s.field}:{s.kind}:{s.line}" for s in scan.secrets)
        out.append(
            make_finding(
                "secret", WARNING if only_email else PROBLEM, title, [FactRef.of(f)], evidence, fixes, extra=extra
            )
        )
    return out


# --------------------------------------------------------------------------- files


def check_unreadable(errors: Sequence[tuple[str, str, str, str]]) -> list[Finding]:
    """Files in a fact folder that could not be read or parsed."""
    out: list[Finding] = []
    for path, scope, message, signature in errors:
        name = os.path.basename(path)
        if message.startswith("frontmatter could not be parsed"):
            why = (
                "its frontmatter is treated as empty: the agent reads only the body, without its title, "
                "description, type, scope or activation, and a migration would drop them"
            )
        elif "UTF-8" in message:
            why = "it is read with replacement characters; a rewrite would lose the original bytes"
        else:
            why = "it is not loaded at all: the agent never sees it"
        evidence = [f"a file in the {scope} fact folder: {message}", why]
        fixes = [Fix("edit", f"open {name} in the editor", path=path)]
        out.append(
            make_finding(
                "unreadable",
                PROBLEM,
                f"{name}: {truncate_runes(message, 80)}",
                (),
                evidence,
                fixes,
                extra=signature + "\0" + message,
                path=path,
            )
        )
    return out


_DIAGNOSTIC_SEVERITY = {
    "import_unreadable": PROBLEM,
    "import_outside_source": PROBLEM,
    "import_symlink_escape": PROBLEM,
    "document_symlink_escape": PROBLEM,
    "import_cycle": WARNING,
    "target_outside_workspace": INFO,
}
_DIAGNOSTIC_WORDS = {
    "import_unreadable": "an import is missing or unreadable: its text never reaches the agent",
    "import_outside_source": "an import was rejected (outside the document's folder): its text never reaches the agent",
    "import_symlink_escape": "an import was rejected (a symlink leading outside): its text never reaches the agent",
    "document_symlink_escape": "a document was dropped (a symlink leading outside the workspace)",
    "import_cycle": "documents import each other (a cycle); the repeated import is skipped",
    "target_outside_workspace": "the target is outside the workspace; the workspace root was used",
}


def check_instructions(diagnostics: Sequence[Diagnostic], workspace: str = "") -> list[Finding]:
    """Instruction diagnostics: import cycles, missing or rejected imports, escapes (titles
    name files relative to ``workspace``)."""

    def shown(path: str) -> str:
        if workspace and path.startswith(workspace.rstrip(os.sep) + os.sep):
            return os.path.relpath(path, workspace)
        return os.path.basename(path)

    out: list[Finding] = []
    for d in diagnostics:
        severity = _DIAGNOSTIC_SEVERITY.get(d.code, WARNING)
        where = d.location
        evidence = [_DIAGNOSTIC_WORDS.get(d.code, d.code), f"{d.code} at {where}"]
        if d.message:
            evidence.append(d.message)
        if d.path and d.path != d.source_path:
            evidence.append(f"target: {d.path}")
        editable = d.source_path or d.path
        fixes = [Fix("edit", f"open {shown(editable)} in the editor", path=editable)] if editable else []
        title = f"{d.code.replace('_', ' ')}: {shown(d.source_path or d.path)}" + (f":{d.line}" if d.line else "")
        out.append(
            make_finding(
                "instruction",
                severity,
                title,
                (),
                evidence,
                fixes,
                extra=f"{d.code}\0{d.path}\0{d.line}",
                path=d.source_path or d.path,
            )
        )
    return out


# --------------------------------------------------------------------------- pinned


def check_pinned_budget(facts: Sequence[Fact], budget: int, refused: bool = True) -> list[Finding]:
    """Pinned guidance at or over :data:`BUDGET_WARN_SHARE` of the pinned budget (the
    store's count: every pinned body, trimmed)."""
    if budget <= 0:
        return []
    pinned = [(len(trim_space(f.body)), f) for f in facts if f.pinned and trim_space(f.body)]
    used = sum(n for n, _ in pinned)
    if used < BUDGET_WARN_SHARE * budget:
        return []
    pinned.sort(key=lambda x: (-x[0], x[1].name))
    severity = PROBLEM if used > budget else WARNING
    share = used / budget
    head = f"pinned guidance uses {_n(used)} of {_n(budget)} chars ({share:.0%}): " + (
        (
            "over the budget, new pins are refused"
            if refused
            else "over the budget (pins are refused only with memory.pinned_budget_chars set)"
        )
        if used > budget
        else "close to the budget"
    )
    evidence = [head, *(f"{_n(n):>7} chars  {_name(f)}" for n, f in pinned[:12])]
    if len(pinned) > 12:
        evidence.append(f"… and {len(pinned) - 12} more pinned facts")
    refs = [FactRef.of(f, "pinned") for _, f in pinned]
    biggest = pinned[0][1]
    fixes = [
        Fix("unpin", f"unpin the largest, {biggest.ref} ({_n(pinned[0][0])} chars)", fact_id=str(biggest.id)),
        _edit(biggest),
    ]
    title = f"pinned guidance {_n(used)}/{_n(budget)} chars"
    return [
        make_finding(
            "pinned-budget",
            severity,
            title,
            refs,
            evidence,
            fixes,
            extra=str(budget),
            data={"used": used, "budget": budget},
        )
    ]


# --------------------------------------------------------------------------- recall usage


@dataclass(frozen=True)
class Usage:
    """What the recorded recall traces say about each fact."""

    span: TraceSpan
    """The turns that count (recall ran)."""
    turn_times: tuple[int, ...]
    """Their times (ns), sorted."""
    recalled: Mapping[str, tuple[int, ...]]
    """Fact id → times (ns) of the turns that recalled it."""
    lost: Mapping[str, Counter[str]]
    """Fact id → decisions of the turns where it was a candidate and lost (budget, floor…)."""
    terms: tuple[tuple[int, frozenset[str]], ...]
    """Per turn: time and query terms (empty when prompts are not recorded)."""

    def turns_since(self, ns: int) -> int:
        """Counted turns at or after ``ns``."""
        return len(self.turn_times) - bisect.bisect_left(self.turn_times, ns)


def usage_from_traces(traces: Iterable[RecallTrace]) -> Usage:
    """Fold recorded traces into per-fact usage (generic and empty turns left out)."""
    from ..compat.gotime import parse_rfc3339

    times: list[int] = []
    recalled: dict[str, list[int]] = {}
    lost: dict[str, Counter[str]] = {}
    terms: list[tuple[int, frozenset[str]]] = []
    for t in traces:
        if t.suppressed in _SKIPPED_TURNS:
            continue
        at = parse_rfc3339(t.at)
        if at is None:
            continue
        times.append(at.ns)
        terms.append((at.ns, frozenset(str(x) for x in t.terms)))
        for h in t.hits:
            recalled.setdefault(h.id, []).append(at.ns)
        for c in t.considered:
            if c.decision not in ("selected", "pinned", "suppressed", "zero-score", "superseded"):
                lost.setdefault(c.id, Counter())[c.decision] += 1
    times.sort()
    span = TraceSpan(len(times), Timestamp(times[0]) if times else None, Timestamp(times[-1]) if times else None)
    return Usage(
        span,
        tuple(times),
        {k: tuple(sorted(v)) for k, v in recalled.items()},
        lost,
        tuple(sorted(terms, key=lambda x: x[0])),
    )


def _since(fact: Fact) -> int:
    start = fact.created_at or fact.updated_at
    return start.ns if start is not None else _NO_TIME


def check_recall_usage(
    facts: Sequence[Fact], usage: Usage, now: Timestamp, memo: FindingMemo | None = None
) -> list[Finding]:
    """Facts never recalled in the recorded turns since they were created (at least
    :data:`MIN_TURNS` of them), and facts recalled often."""
    out: list[Finding] = []
    if usage.span.turns < MIN_TURNS:
        return out
    first_turn, last_day = usage.turn_times[0], _day(usage.span.last)
    for f in facts:
        if f.pinned:
            continue
        if f.expires_at is not None and now > f.expires_at:
            continue  # expired: its own finding
        since = _since(f)
        turns = usage.turns_since(since)
        if turns < MIN_TURNS:
            continue
        fid = str(f.id)
        recalled = usage.recalled.get(fid, ())
        hits = len(recalled) - bisect.bisect_left(recalled, since) if recalled else 0
        if hits and not (hits >= OFTEN_MIN and hits >= OFTEN_SHARE * turns):
            continue
        lost = usage.lost.get(fid)
        sig = (turns, hits, max(since, first_turn) // DAY_NS, last_day, tuple(lost.most_common()) if lost else ())
        found = _memo_get(
            memo,
            "usage",
            f,
            sig,
            lambda f=f,  # type: ignore[misc]  # a default-argument lambda binds the loop values
            turns=turns,
            hits=hits,
            since=since,
            lost=lost: _usage_finding(f, turns, hits, Timestamp(max(since, first_turn)), last_day, lost),
        )
        if found is not None:
            out.append(found)
    return out


def _usage_finding(
    f: Fact, turns: int, hits: int, first: Timestamp, last_day: str, lost: Counter[str] | None
) -> Finding:
    window = f"{_day(first)} → {last_day}"
    if not hits:
        evidence = [f"not recalled in any of the {turns} recorded turns since it was created ({window})"]
        if lost:
            evidence.append("it was a candidate and lost: " + ", ".join(f"{k} ×{v}" for k, v in lost.most_common()))
        else:
            evidence.append("no recorded turn came close to it")
        evidence.append("a fact nobody asks about costs nothing per turn, but it may be obsolete")
        fixes = [_archive(f, ""), _edit(f)]
        return make_finding(
            "never-recalled",
            INFO,
            f"{f.display_title}: never recalled in {turns} turns",
            [FactRef.of(f)],
            evidence,
            fixes,
            data={"turns": turns},
        )
    evidence = [
        f"recalled in {hits} of the {turns} recorded turns since it was created ({hits / turns:.0%}, {window})",
        f"pinning it would cost {_n(len(trim_space(f.body)))} chars of the pinned budget in every session",
    ]
    fixes = [Fix("pin", f"pin {f.ref}", fact_id=str(f.id))]
    return make_finding(
        "often-recalled",
        INFO,
        f"{f.display_title}: recalled in {hits}/{turns} turns",
        [FactRef.of(f)],
        evidence,
        fixes,
        data={"turns": turns, "recalled": hits},
    )


DF_SAMPLE = 2000
"""Document frequencies are counted over at most this many facts (an even sample of a
bigger store), so the cost does not grow with the store."""


def _sample(facts: Sequence[Fact], limit: int = DF_SAMPLE) -> Sequence[Fact]:
    if len(facts) <= limit:
        return facts
    ordered = sorted(facts, key=lambda f: str(f.id))
    step = len(ordered) / limit
    return [ordered[int(i * step)] for i in range(limit)]


def check_pinned_unused(
    facts: Sequence[Fact],
    usage: Usage,
    words: Callable[[Fact], frozenset[str]],
    function_words: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Pinned facts no recorded turn (at least :data:`MIN_TURNS` since the fact was
    created) was about: no query named any of the fact's distinctive words (words found
    in at most :data:`DISTINCTIVE_SHARE` of the facts, function words never)."""
    pinned = [f for f in facts if f.pinned and trim_space(f.body)]
    if not pinned or usage.span.turns < MIN_TURNS:
        return []
    asked = frozenset().union(*(t for _, t in usage.terms)) if usage.terms else frozenset()
    if not asked:
        return []  # prompts are not recorded: nothing to judge by
    candidates = frozenset().union(*(words(f) & asked for f in pinned))
    sample = _sample(facts)
    df: Counter[str] = Counter()
    if candidates:
        for f in sample:
            df.update(words(f) & candidates)
    limit = max(2, int(DISTINCTIVE_SHARE * len(sample)))
    out: list[Finding] = []
    for f in pinned:
        since = _since(f)
        turns = [(t, terms) for t, terms in usage.terms if t >= since]
        if len(turns) < MIN_TURNS:
            continue
        mine = frozenset(
            w
            for w in words(f) & candidates
            if w not in function_words and (len(w) >= 3 or not w.isascii()) and not w.isdigit() and df[w] <= limit
        )
        if any(mine & terms for _, terms in turns):
            continue
        first = Timestamp(turns[0][0])
        size = len(trim_space(f.body))
        evidence = [
            f"none of the {len(turns)} recorded turns since it was created ({_day(first)} → {_day(usage.span.last)}) "
            "asked about any of its distinctive words",
            f"it rides in every session anyway: {_n(size)} chars of the pinned budget",
        ]
        fixes = [
            Fix("unpin", f"unpin {f.ref} (recall still finds it when a turn asks)", fact_id=str(f.id)),
            _archive(f, ""),
        ]
        out.append(
            make_finding(
                "pinned-unused",
                WARNING,
                f"{f.display_title}: pinned, never relevant in {len(turns)} turns",
                [FactRef.of(f, "pinned")],
                evidence,
                fixes,
                data={"turns": len(turns), "chars": size},
            )
        )
    return out


# --------------------------------------------------------------------------- freshness


def check_freshness(facts: Sequence[Fact], now: Timestamp, memo: FindingMemo | None = None) -> list[Finding]:
    """Expired facts (warning), stale facts (info), and facts whose expiry or freshness
    window ends within :data:`SOON_DAYS` days (info)."""
    out: list[Finding] = []
    soon = now.ns + SOON_DAYS * DAY_NS
    for f in facts:
        exp = f.expires_at
        if exp is not None and now > exp:
            ago = (now.ns - exp.ns) // DAY_NS
            found = _memo_get(memo, "freshness", f, ("expired", ago), lambda f=f, ago=ago: _expired(f, ago))  # type: ignore[misc]  # a default-argument lambda binds the loop values
        else:
            report = explain_freshness(f, now)
            if report.label == "stale":
                found = _memo_get(
                    memo,
                    "freshness",
                    f,
                    ("stale", report.reason),
                    lambda f=f, report=report: _stale(f, report),  # type: ignore[misc]  # a default-argument lambda binds the loop values
                )
            elif exp is not None and exp.ns <= soon:
                days = max(0, (exp.ns - now.ns) // DAY_NS)
                found = _memo_get(memo, "freshness", f, ("expires", days), lambda f=f, days=days: _expires(f, days))  # type: ignore[misc]  # a default-argument lambda binds the loop values
            else:
                start = f.clock_start
                if report.windows is None or start is None or start > now:
                    continue
                ends = start.ns + report.windows[1] * DAY_NS
                if not now.ns < ends <= soon:
                    continue
                days = max(0, (ends - now.ns) // DAY_NS)
                found = _memo_get(
                    memo,
                    "freshness",
                    f,
                    ("window", days, ends, report.reason),
                    lambda f=f, days=days, ends=ends, report=report: _window(f, days, ends, report),  # type: ignore[misc]  # a default-argument lambda binds the loop values
                )
        if found is not None:
            out.append(found)
    return out


def _verify(f: Fact) -> Fix:
    return Fix("verify", f"verify {f.ref} (still true: renew its clock)", fact_id=str(f.id))


def _expired(f: Fact, ago: int) -> Finding:
    assert f.expires_at is not None
    evidence = [
        f"expired at {f.expires_at.rfc3339()} ({ago} d ago): recall skips it, it only takes room",
        _fact_line("fact", f),
    ]
    return make_finding(
        "expired",
        WARNING,
        f"{f.display_title}: expired {_day(f.expires_at)}",
        [FactRef.of(f)],
        evidence,
        [_archive(f, "expired"), _edit(f)],
    )


def _stale(f: Fact, report: FreshnessReport) -> Finding:
    evidence = [f"stale: {report.reason}", "recall ranks it lower; verify it if it still holds", _fact_line("fact", f)]
    return make_finding(
        "stale",
        INFO,
        f"{f.display_title}: stale ({report.age_days or 0:.0f} d)",
        [FactRef.of(f)],
        evidence,
        [_verify(f), _archive(f, "stale"), _edit(f)],
        extra="stale",
    )


def _expires(f: Fact, days: int) -> Finding:
    assert f.expires_at is not None
    evidence = [f"expires at {f.expires_at.rfc3339()} (in {days} d); after that recall skips it", _fact_line("fact", f)]
    return make_finding(
        "ending-soon",
        INFO,
        f"{f.display_title}: expires in {days} d",
        [FactRef.of(f)],
        evidence,
        [_edit(f, why="change the expiry")],
        extra="expiry",
    )


def _window(f: Fact, days: int, ends: int, report: FreshnessReport) -> Finding:
    evidence = [
        f"turns stale in {days} d ({_day(Timestamp(ends))}): {report.reason}",
        "verify it if it still holds",
        _fact_line("fact", f),
    ]
    return make_finding(
        "ending-soon",
        INFO,
        f"{f.display_title}: stale in {days} d",
        [FactRef.of(f)],
        evidence,
        [_verify(f), _edit(f)],
        extra="window",
    )


# --------------------------------------------------------------------------- size


def check_oversized(facts: Sequence[Fact], scans: Mapping[str, FactScan]) -> list[Finding]:
    """Facts whose body is longer than :data:`OVERSIZED_RUNES`."""
    out: list[Finding] = []
    for f in facts:
        scan = scans.get(scan_key(f))
        runes = scan.body_runes if scan is not None else len(trim_space(f.body))
        if runes <= OVERSIZED_RUNES:
            continue
        evidence = [
            f"body is {_n(runes)} chars; an agent may write at most {_n(OVERSIZED_RUNES)} unasked, and recall "
            "only ever shows a snippet of it",
            "split it into facts of one subject each, or move standing rules into AGENTS.md",
        ]
        out.append(
            make_finding(
                "oversized",
                WARNING,
                f"{f.display_title}: {_n(runes)} chars",
                [FactRef.of(f)],
                evidence,
                [_edit(f)],
                data={"chars": runes},
            )
        )
    return out

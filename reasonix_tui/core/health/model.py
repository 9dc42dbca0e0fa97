"""The data of memory health: findings, the facts they involve, the fixes they offer.

Everything here is frozen and JSON-ready (``to_json``), shared by the ``memory health``
command and the Context Center's Health pane.

A :class:`Finding` has two identities:

* :attr:`Finding.key` — *what* is wrong with *which* facts or files (the kind and the
  involved ids or paths): stable across edits, used as the pane's row key;
* :attr:`Finding.fingerprint` — the same plus the involved **revisions** (or a file's
  size and time): a dismissal is kept by fingerprint, so a dismissed finding does not
  come back for the same revisions, and comes back when one of the facts changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..compat.gotime import Timestamp
from ..store.model import Fact

__all__ = [
    "SEVERITIES",
    "PROBLEM",
    "WARNING",
    "INFO",
    "KINDS",
    "KIND_LABELS",
    "FIX_ACTIONS",
    "FactRef",
    "Fix",
    "Finding",
    "TraceSpan",
    "HealthReport",
    "fingerprint_of",
    "key_of",
    "sort_key",
]

PROBLEM = "problem"
"""Something is wrong and will mislead the agent or lose data (counted in the status line;
``memory health`` exits 1)."""
WARNING = "warning"
"""Probably wrong or wasteful; worth a look."""
INFO = "info"
"""Worth knowing; often fine as it is."""
SEVERITIES = (PROBLEM, WARNING, INFO)
"""Most serious first."""

KINDS = (
    "subject-conflict",
    "topic-supersession",
    "project-override",
    "near-duplicate",
    "secret",
    "unreadable",
    "instruction",
    "pinned-budget",
    "pinned-unused",
    "expired",
    "stale",
    "ending-soon",
    "oversized",
    "never-recalled",
    "often-recalled",
)
"""Every finding kind, in the order the pane lists them within one severity."""

KIND_LABELS: dict[str, str] = {
    "subject-conflict": "same subject, two facts",
    "topic-supersession": "replaced, still active",
    "project-override": "project overrides global",
    "near-duplicate": "near-duplicates",
    "secret": "secret in a fact",
    "unreadable": "unreadable file",
    "instruction": "instruction problem",
    "pinned-budget": "pinned budget",
    "pinned-unused": "pinned, never relevant",
    "expired": "expired",
    "stale": "stale",
    "ending-soon": "ends within a week",
    "oversized": "oversized fact",
    "never-recalled": "never recalled",
    "often-recalled": "recalled often",
}
"""A short label per kind (the pane's "kind" column)."""

FIX_ACTIONS = ("archive", "merge", "verify", "unpin", "pin", "edit", "dismiss")
"""What a :class:`Fix` can do: archive a fact (forget, recoverable), open the fact form
pre-filled with merged text, renew the freshness clock, unpin or pin, open the file in an
editor, dismiss the finding for good."""


@dataclass(frozen=True, slots=True)
class FactRef:
    """A fact as a finding names it: enough to find it again and to tell a person."""

    id: str
    ref: str
    revision: int
    scope: str
    title: str
    path: str
    role: str = ""
    """What the fact is in this finding: ``current``, ``superseded``, ``duplicate``,
    ``global``, ``project``, ``pinned``... (``""`` when it is the only one)."""

    @classmethod
    def of(cls, fact: Fact, role: str = "") -> FactRef:
        """From a fact."""
        return cls(str(fact.id), fact.ref, fact.revision, fact.scope, fact.display_title, fact.path, role)

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "id": self.id,
            "ref": self.ref,
            "revision": self.revision,
            "scope": self.scope,
            "title": self.title,
            "path": self.path,
            "role": self.role,
        }


@dataclass(frozen=True, slots=True)
class Fix:
    """One thing a person can do about a finding, in one key."""

    action: str
    """One of :data:`FIX_ACTIONS`."""
    label: str
    """What the key does, in a few words (``archive the superseded fact``)."""
    fact_id: str = ""
    """The fact it acts on (archive, verify, unpin, pin, edit of a fact)."""
    path: str = ""
    """The file it opens (edit of an unreadable file or an instruction document)."""
    keep_id: str = ""
    """For ``merge``: the fact that stays (the others are archived when the merge is saved)."""

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        data: dict[str, Any] = {"action": self.action, "label": self.label}
        if self.fact_id:
            data["fact_id"] = self.fact_id
        if self.path:
            data["path"] = self.path
        if self.keep_id:
            data["keep_id"] = self.keep_id
        return data


def _digest(parts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:20]


def key_of(kind: str, facts: Iterable[FactRef], extra: str = "") -> str:
    """The stable identity of a finding: kind, involved ids (and ``extra``: a path...)."""
    return kind + ":" + _digest([kind, *sorted(f.id for f in facts), extra])


def fingerprint_of(kind: str, facts: Iterable[FactRef], extra: str = "") -> str:
    """What a dismissal remembers: kind, involved ids *with revisions*, and ``extra`` (a
    file's size and time, a diagnostic's place)."""
    return _digest([kind, *sorted(f"{f.id}@{f.revision}" for f in facts), extra])


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong (or worth knowing) about memory, with its evidence."""

    kind: str
    """One of :data:`KINDS`."""
    severity: str
    """One of :data:`SEVERITIES`."""
    title: str
    """One line for the list (``2 active facts hold subject project.deploy_target``)."""
    facts: tuple[FactRef, ...] = ()
    """The facts involved, the one that stays first when there is one."""
    evidence: tuple[str, ...] = ()
    """Lines a person reads to judge it (why, since when, what overlaps...)."""
    fixes: tuple[Fix, ...] = ()
    """What can be done, most likely first; ``dismiss`` is always last."""
    key: str = ""
    """Stable identity (:func:`key_of`)."""
    fingerprint: str = ""
    """Identity with revisions (:func:`fingerprint_of`): what a dismissal keeps."""
    path: str = ""
    """The file concerned, for findings about a file rather than a fact."""
    overlap: tuple[str, ...] = ()
    """For duplicates and topic pairs: the words or text the facts share."""
    data: tuple[tuple[str, Any], ...] = ()
    """Numbers behind the finding (``("used", 1720), ("budget", 1500)``), for JSON."""

    @property
    def label(self) -> str:
        """The kind in a few words."""
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def serious(self) -> bool:
        """True for a ``problem``."""
        return self.severity == PROBLEM

    def fix(self, action: str) -> Fix | None:
        """The first fix of ``action``, if the finding offers one."""
        return next((f for f in self.fixes if f.action == action), None)

    @property
    def fact_ids(self) -> tuple[str, ...]:
        """Ids of the facts involved."""
        return tuple(f.id for f in self.facts)

    def to_json(self) -> dict[str, Any]:
        """JSON form (what ``memory health --json`` prints per finding)."""
        data: dict[str, Any] = {
            "kind": self.kind,
            "severity": self.severity,
            "title": self.title,
            "facts": [f.to_json() for f in self.facts],
            "evidence": list(self.evidence),
            "fixes": [f.to_json() for f in self.fixes],
            "key": self.key,
            "fingerprint": self.fingerprint,
        }
        if self.path:
            data["path"] = self.path
        if self.overlap:
            data["overlap"] = list(self.overlap)
        if self.data:
            data["data"] = dict(self.data)
        return data


@dataclass(frozen=True, slots=True)
class TraceSpan:
    """The recorded recall history the usage findings are based on."""

    turns: int
    """Recorded turns where recall ran (generic and empty turns left out)."""
    first: Timestamp | None
    """Oldest of them."""
    last: Timestamp | None
    """Newest of them."""

    def describe(self) -> str:
        """``37 recorded turns, 2026-06-01 → 2026-07-25``."""
        if not self.turns or self.first is None or self.last is None:
            return "no recorded turns"
        return f"{self.turns} recorded turn{'s' if self.turns != 1 else ''}, {_day(self.first)} → {_day(self.last)}"


def _day(ts: Timestamp) -> str:
    return ts.rfc3339()[:10]


_SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}
_KIND_RANK = {k: i for i, k in enumerate(KINDS)}


def sort_key(f: Finding) -> tuple[int, int, str, str]:
    """Most serious first, then by kind, then by the first fact's title."""
    first = f.facts[0].title.lower() if f.facts else f.path
    return (_SEVERITY_RANK.get(f.severity, 9), _KIND_RANK.get(f.kind, 99), first, f.key)


@dataclass(frozen=True)
class HealthReport:
    """Every finding of one store at one moment."""

    findings: tuple[Finding, ...] = ()
    """Open findings, most serious first."""
    dismissed: tuple[Finding, ...] = ()
    """Findings a person dismissed for these very revisions."""
    generated_at: Timestamp | None = None
    """The "now" the findings were computed for."""
    facts: int = 0
    """Active facts examined."""
    span: TraceSpan = field(default_factory=lambda: TraceSpan(0, None, None))
    """The recall history the usage findings looked at."""
    partial: tuple[str, ...] = ()
    """Checks not (yet) complete, e.g. ``secrets 3000/10000`` while a big store is scanned."""

    @property
    def problems(self) -> int:
        """Open findings of severity ``problem``."""
        return sum(1 for f in self.findings if f.severity == PROBLEM)

    def counts(self) -> dict[str, int]:
        """Open findings per severity."""
        out = {s: 0 for s in SEVERITIES}
        for f in self.findings:
            out[f.severity] = out.get(f.severity, 0) + 1
        return out

    def by_key(self, key: str) -> Finding | None:
        """An open finding by :attr:`Finding.key`."""
        return next((f for f in self.findings if f.key == key), None)

    def of_kind(self, kind: str) -> list[Finding]:
        """Open findings of one kind."""
        return [f for f in self.findings if f.kind == kind]

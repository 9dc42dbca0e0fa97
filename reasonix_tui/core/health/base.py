"""What every check shares: the inputs (:class:`HealthContext`, per-fact :class:`FactScan`),
:func:`make_finding`, the per-fact :class:`FindingMemo`, and the words findings are made of."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..compat.gostr import one_line, truncate_runes
from ..compat.gotime import DAY_NS, Timestamp
from ..instructions.documents import Diagnostic
from ..recall.trace import RecallTrace
from ..store.model import Fact
from .model import FactRef, Finding, Fix, fingerprint_of, key_of
from .state import Decoder, encode_finding

__all__ = [
    "NO_TIME",
    "newness",
    "scan_key",
    "day",
    "num",
    "gist",
    "name_of",
    "SecretHit",
    "FactScan",
    "HealthContext",
    "make_finding",
    "FindingMemo",
    "memo_get",
    "archive_fix",
    "edit_fix",
    "fact_line",
]

NO_TIME = -(1 << 62)


def newness(f: Fact) -> tuple[int, int, str]:
    """Newest first ordering: ``updated_at``, then revision, then id (the resolver's rule)."""
    return (f.updated_at.ns if f.updated_at is not None else NO_TIME, f.revision, str(f.id))


def scan_key(f: Fact) -> str:
    """How per-fact scans are keyed: the file (two files may carry one id), else the id."""
    return f.path or str(f.id)


def day(ts: Timestamp | None) -> str:
    return _day_of(ts.ns // DAY_NS) if ts is not None else "unknown"


@lru_cache(maxsize=4096)
def _day_of(n: int) -> str:
    return Timestamp(n * DAY_NS).rfc3339()[:10]


def num(value: int) -> str:
    return f"{value:,}"


def gist(fact: Fact, limit: int = 100) -> str:
    text = one_line(fact.description) or one_line(fact.body)
    return truncate_runes(text, limit) if len(text) > limit else text


def name_of(fact: Fact) -> str:
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
    equal, so a run after one write builds findings for the facts that changed only.

    With ``key`` (a fact's :func:`~.state.fact_key`) the per-fact findings are also kept
    in :attr:`disk` by fact key, so a new process decodes what an earlier one built."""

    def __init__(
        self, key: Callable[[Fact], bytes] | None = None, encoded: dict[int, tuple[Finding, Any]] | None = None
    ) -> None:
        self._items: dict[tuple[str, int], tuple[Fact, Hashable, Finding | None]] = {}
        self._groups: dict[tuple[str, tuple[int, ...]], tuple[tuple[Fact, ...], Hashable, Finding | None]] = {}
        self._key = key
        self.disk: dict[tuple[str, Any], tuple[Any, Any]] = {}
        """``(kind, fact key)`` (a group's: a tuple of its members' keys) → ``(signature,
        encoded finding or None)`` (marshal-able)."""
        self.dirty = False
        """:attr:`disk` has entries a saved copy lacks."""
        self.encoded = encoded
        """Findings this memo decoded or encoded, by object, with their encoded values
        (:func:`~.state.encode_with`; kept by the caller, which also bounds it)."""
        self._decoder = Decoder(encoded)

    def get(self, kind: str, fact: Fact, signature: Hashable, build: Callable[[], Finding | None]) -> Finding | None:
        """``build()``, or what it gave for this fact and signature last time."""
        key = (kind, id(fact))
        hit = self._items.get(key)
        if hit is not None and hit[0] is fact and hit[1] == signature:
            return hit[2]
        if self._key is None:
            value = build()
        else:
            value = self._through_disk((kind, self._key(fact)), signature, build)
        self._items[key] = (fact, signature, value)
        return value

    def _through_disk(
        self, key: tuple[str, Any], signature: Hashable, build: Callable[[], Finding | None]
    ) -> Finding | None:
        stored = self.disk.get(key)
        if stored is not None and stored[0] == signature:
            try:
                return None if stored[1] is None else self._decoder.finding(stored[1])
            except (TypeError, ValueError):
                pass  # not a finding (a foreign or damaged entry): build it again
        value = build()
        raw = None
        if value is not None:
            raw = encode_finding(value)
            if self.encoded is not None:
                self.encoded[id(value)] = (value, raw)
        self.disk[key] = (signature, raw)
        self.dirty = True
        return value

    def get_group(
        self, kind: str, group: Sequence[Fact], signature: Hashable, build: Callable[[], Finding | None]
    ) -> Finding | None:
        """:meth:`get` for a finding about several facts (all must be the same objects)."""
        key = (kind, tuple(id(f) for f in group))
        hit = self._groups.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], group)) and hit[1] == signature:
            return hit[2]
        if self._key is None:
            value = build()
        else:  # by the members' fact keys on disk, so a new process decodes the group's finding
            value = self._through_disk((kind, tuple(map(self._key, group))), signature, build)
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
        if self._key is not None and self.disk:
            keys = {self._key(f) for f in facts}
            for dkey in [k for k in self.disk if not _alive(k[1], keys)]:
                del self.disk[dkey]

    def __len__(self) -> int:
        return len(self._items)


def _alive(key: Any, keys: set[bytes]) -> bool:
    """Whether a disk entry's fact key (or every key of a group's) is among ``keys``."""
    return key in keys if isinstance(key, bytes) else all(k in keys for k in key)


def memo_get(
    memo: FindingMemo | None, kind: str, fact: Fact, signature: Hashable, build: Callable[[], Finding | None]
) -> Finding | None:
    return build() if memo is None else memo.get(kind, fact, signature, build)


def archive_fix(fact: Fact, what: str) -> Fix:
    return Fix("archive", f"archive {what} {fact.ref}", fact_id=str(fact.id))


def edit_fix(fact: Fact, what: str = "", why: str = "") -> Fix:
    label = f"open {what + ' ' if what else ''}{fact.ref} in the editor" + (f" ({why})" if why else "")
    return Fix("edit", label, fact_id=str(fact.id), path=fact.path)


def fact_line(role: str, fact: Fact) -> str:
    return f"{role}: {name_of(fact)}, revision {fact.revision}, updated {day(fact.updated_at)}: {gist(fact)}"

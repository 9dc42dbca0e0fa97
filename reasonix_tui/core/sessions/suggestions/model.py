"""What the Suggestions pane and ``reasonix-tui suggest`` show: candidates with evidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ...compat.gotime import Timestamp
from ...store import fields
from ...store.fields import FactField

__all__ = [
    "Evidence",
    "MemorySuggestion",
    "SkillSuggestion",
    "Suggestion",
    "SuggestionsView",
    "SuggestionEdits",
    "suggested_fields",
    "AcceptResult",
]


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a candidate came from: a person can open it and check."""

    source: str
    """``session`` | ``claude-session`` | ``history-miss`` | ``claude-memory`` | ``agent-notes``."""
    label: str
    """Session id, or a file label (``~/.claude/CLAUDE.md``)."""
    text: str
    """The whole statement as said (one line), or the file line."""
    at: Timestamp | None = None
    """When it was said / searched / last modified."""
    path: str = ""
    """The transcript or file."""
    line: int = 0
    """Message index (sessions) or 1-based line (files); 0 when not applicable."""
    context: str = ""
    """What the statement answered: the assistant's step it corrected (``bash: npm install x``)."""

    def to_tuple(self) -> tuple[Any, ...]:
        """Marshal-friendly form."""
        return (self.source, self.label, self.text, self.at.ns if self.at else None, self.path, self.line, self.context)

    @classmethod
    def from_tuple(cls, t: tuple[Any, ...]) -> Evidence:
        """Inverse of :meth:`to_tuple`."""
        source, label, text, at, path, line, context = t
        return cls(source, label, text, Timestamp(at) if at is not None else None, path, line, context)

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        out: dict[str, Any] = {
            "source": self.source,
            "label": self.label,
            "text": self.text,
            "at": self.at.rfc3339() if self.at else None,
            "path": self.path,
            "line": self.line,
        }
        if self.context:
            out["context"] = self.context
        return out


@dataclass(frozen=True, slots=True)
class MemorySuggestion:
    """A draft fact (Reasonix ``MemorySuggestion`` plus score, reasons and provenance)."""

    id: str
    name: str
    title: str
    description: str
    type: str
    scope: str
    body: str
    reason: str
    """One line: why this looks durable (Reasonix's field)."""
    evidence: tuple[str, ...]
    """Reasonix's evidence strings (``<session>: <statement>``)."""
    origin: str = "history"
    """``history`` | ``memory-wanted`` | ``claude-memory`` | ``agent-notes``."""
    sources: tuple[Evidence, ...] = ()
    """Structured evidence, one per occurrence (merged candidates have several)."""
    needs_edit: bool = False
    """True for memory-wanted: accepting requires a body written by the person."""
    score: float = 0.0
    """Durability score (signals plus repetition); the list is ranked by it."""
    reasons: tuple[str, ...] = ()
    """Each signal that contributed, readable (``correction of the previous step``…)."""
    updates: str = ""
    """The ref of an existing fact this candidate contradicts (accepting updates it)."""
    keys: tuple[str, ...] = ()
    """Normalised statements of every occurrence: a dismissal matches any of them."""

    kind = "memory"

    def to_tuple(self) -> tuple[Any, ...]:
        """Marshal-friendly form (the result cache)."""
        return (
            self.id,
            self.name,
            self.title,
            self.description,
            self.type,
            self.scope,
            self.body,
            self.reason,
            self.evidence,
            self.origin,
            tuple(e.to_tuple() for e in self.sources),
            self.needs_edit,
            self.score,
            self.reasons,
            self.updates,
            self.keys,
        )

    @classmethod
    def from_tuple(cls, t: tuple[Any, ...]) -> MemorySuggestion:
        """Inverse of :meth:`to_tuple`."""
        (
            id_,
            name,
            title,
            description,
            type_,
            scope,
            body,
            reason,
            evidence,
            origin,
            sources,
            needs_edit,
            score,
            reasons,
            updates,
            keys,
        ) = t
        return cls(
            id_,
            name,
            title,
            description,
            type_,
            scope,
            body,
            reason,
            tuple(evidence),
            origin,
            tuple(Evidence.from_tuple(e) for e in sources),
            needs_edit,
            score,
            tuple(reasons),
            updates,
            tuple(keys),
        )

    def to_json(self) -> dict[str, Any]:
        """Reasonix's JSON fields, then ours."""
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "type": self.type,
            "scope": self.scope,
            "body": self.body,
            "reason": self.reason,
            "evidence": list(self.evidence),
            "origin": self.origin,
            "needsEdit": self.needs_edit,
            "score": round(self.score, 2),
            "reasons": list(self.reasons),
            "sources": [e.to_json() for e in self.sources],
        }
        if self.updates:
            out["updates"] = self.updates
        return out


@dataclass(frozen=True, slots=True)
class SkillSuggestion:
    """A draft skill from a procedure repeated across sessions."""

    id: str
    name: str
    description: str
    scope: str
    body: str
    reason: str
    evidence: tuple[str, ...]
    sources: tuple[Evidence, ...] = ()
    score: float = 0.0
    reasons: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    """The procedure's steps, in order (commands as run, or ``edit <file>``)."""
    keys: tuple[str, ...] = ()
    """The steps' normalised keys: a dismissal matches the same procedure again."""

    kind = "skill"
    origin = "skills"
    updates = ""

    def to_tuple(self) -> tuple[Any, ...]:
        """Marshal-friendly form (the result cache)."""
        return (
            self.id,
            self.name,
            self.description,
            self.scope,
            self.body,
            self.reason,
            self.evidence,
            tuple(e.to_tuple() for e in self.sources),
            self.score,
            self.reasons,
            self.steps,
            self.keys,
        )

    @classmethod
    def from_tuple(cls, t: tuple[Any, ...]) -> SkillSuggestion:
        """Inverse of :meth:`to_tuple`."""
        id_, name, description, scope, body, reason, evidence, sources, score, reasons, steps, keys = t
        return cls(
            id_,
            name,
            description,
            scope,
            body,
            reason,
            tuple(evidence),
            tuple(Evidence.from_tuple(e) for e in sources),
            score,
            tuple(reasons),
            tuple(steps),
            tuple(keys),
        )

    @property
    def title(self) -> str:
        """Display title (the name)."""
        return self.name

    def to_json(self) -> dict[str, Any]:
        """Reasonix's JSON fields, then ours."""
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "scope": self.scope,
            "body": self.body,
            "reason": self.reason,
            "evidence": list(self.evidence),
            "origin": self.origin,
            "score": round(self.score, 2),
            "reasons": list(self.reasons),
            "steps": list(self.steps),
            "sources": [e.to_json() for e in self.sources],
        }


Suggestion = MemorySuggestion | SkillSuggestion


def _rfc3339_seconds(ts: Timestamp) -> str:
    """Go ``time.RFC3339`` in UTC (whole seconds)."""
    return Timestamp(ts.ns - ts.ns % 1_000_000_000).rfc3339()


@dataclass(frozen=True, slots=True)
class SuggestionsView:
    """The Suggestions pane's payload (Reasonix ``MemorySuggestionsView`` plus counts)."""

    memories: tuple[MemorySuggestion, ...] = ()
    skills: tuple[SkillSuggestion, ...] = ()
    generated_at: Timestamp | None = None
    available: bool = False
    """False when memory is disabled (``REASONIX_EXPERIMENT_NO_MEMORY``)."""
    source: str = "local-history"
    sessions: int = 0
    """Sessions scanned (those inside the window)."""
    hidden: int = 0
    """Candidates not shown because they were dismissed or accepted."""
    dismissed: frozenset[str] = frozenset()
    """Ids of listed candidates that were dismissed (only with ``include_hidden``)."""
    accepted: frozenset[str] = frozenset()
    """Ids of listed candidates that were accepted (only with ``include_hidden``)."""
    below: frozenset[str] = frozenset()
    """Ids listed only because everything was asked for: under the score threshold or past the cap."""
    covered: int = 0
    """Candidates left out because an existing fact or instruction already says it."""
    more: int = 0
    """Candidates above the threshold left out by the cap (dismissing one brings the next in)."""
    window_days: int = 0
    """The history window in days (0: everything indexed)."""

    def all(self) -> tuple[Suggestion, ...]:
        """Memories then skills."""
        return (*self.memories, *self.skills)

    def state_of(self, suggestion_id: str) -> str:
        """``dismissed``, ``accepted``, ``below`` or ``""`` (open)."""
        if suggestion_id in self.dismissed:
            return "dismissed"
        if suggestion_id in self.accepted:
            return "accepted"
        if suggestion_id in self.below:
            return "below"
        return ""

    def to_json(self) -> dict[str, Any]:
        """Reasonix's payload shape (arrays never null), then ours."""
        return {
            "memories": [m.to_json() for m in self.memories],
            "skills": [s.to_json() for s in self.skills],
            "generatedAt": _rfc3339_seconds(self.generated_at or Timestamp.now()),
            "available": self.available,
            "source": self.source,
            "sessions": self.sessions,
            "windowDays": self.window_days,
            "hidden": self.hidden,
            "covered": self.covered,
            "more": self.more,
            "dismissed": sorted(self.dismissed),
            "accepted": sorted(self.accepted),
            "below": sorted(self.below),
        }


def suggested_fields() -> tuple[FactField, ...]:
    """The fields a memory suggestion carries and a person may edit before accepting it
    (:attr:`~reasonix_tui.core.store.fields.FactField.suggested`, in declaration order)."""
    return tuple(f for f in fields.EDITABLE_FIELDS if f.suggested)


class SuggestionEdits:
    """What the person changed before accepting: a value for any of the
    :func:`suggested_fields` (``None``, or leaving it out, keeps the draft's value).
    Immutable; another name is a :class:`TypeError`, as for a dataclass."""

    __slots__ = ("_values",)

    def __init__(self, **values: str | None) -> None:
        names = {f.name for f in suggested_fields()}
        unknown = [k for k in values if k not in names]
        if unknown:
            raise TypeError(f"SuggestionEdits() got an unexpected keyword argument {unknown[0]!r}")
        self._values: Mapping[str, str] = MappingProxyType({k: v for k, v in values.items() if v is not None})

    @classmethod
    def from_values(cls, source: object, **overrides: str | None) -> SuggestionEdits:
        """The edits read off ``source``'s attributes named like the suggested fields (a
        form's values, parsed command-line options; a missing one is left out), then
        ``overrides``."""
        values = {f.name: getattr(source, f.name, None) for f in suggested_fields()}
        return cls(**(values | overrides))

    @property
    def values(self) -> Mapping[str, str]:
        """The fields the person gave a value for."""
        return self._values

    def pick(self, name: str, draft: str) -> str:
        """The person's value of field ``name``, else the draft's."""
        return self._values.get(name, draft)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SuggestionEdits) and dict(self._values) == dict(other._values)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._values.items())))

    def __repr__(self) -> str:
        return f"SuggestionEdits({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"


@dataclass(frozen=True, slots=True)
class AcceptResult:
    """What accepting wrote."""

    id: str
    """The suggestion id."""
    kind: str
    """``memory`` or ``skill``."""
    path: str
    """The written file."""
    fact: Any = None
    """The saved :class:`~reasonix_tui.core.store.model.Fact` (memories)."""
    created: bool = True
    """False when an existing fact of that name got a new revision."""

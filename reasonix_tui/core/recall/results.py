"""What one recall returns: the block's hits, every candidate's decision, and why nothing
was recalled when nothing was."""

from __future__ import annotations

from dataclasses import dataclass

from ..store.model import Fact

__all__ = [
    "RecallHit",
    "Considered",
    "RecallResult",
    "DEFAULT_LIMIT",
    "DEFAULT_CHARS",
    "SUPPRESSED_GENERIC",
    "SUPPRESSED_EMPTY",
    "SUPPRESSED_NO_TERMS",
    "SUPPRESSED_WEAK",
    "SUPPRESSED_BUDGET",
    "SUPPRESSED_REPLACED",
]

DEFAULT_LIMIT = 4
DEFAULT_CHARS = 2400

SUPPRESSED_GENERIC = "generic user turn"
SUPPRESSED_EMPTY = "memory store is empty"
SUPPRESSED_NO_TERMS = "no searchable terms"
SUPPRESSED_WEAK = "no sufficiently distinctive match"
SUPPRESSED_BUDGET = "matched facts exceeded recall budget"
SUPPRESSED_REPLACED = "matched facts are superseded or shadowed"
"""Enhanced mode only: every match was superseded or shadowed by a project fact."""


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One fact in the block."""

    fact: Fact
    """The fact."""
    score: float
    """Score after multipliers (and, in enhanced mode, adjustments)."""
    freshness: str
    """``fresh``, ``current`` or ``stale``."""
    reason: str
    """``matched a, b; project scope`` (enhanced mode may append notes)."""
    snippet: str
    """The excerpt before clipping, redaction and escaping."""
    matched: tuple[str, ...] = ()
    """Query terms (or concepts) the fact matched."""
    markers: tuple[str, ...] = ()
    """Enhanced mode: visible flags put in front of the ``fact:`` line."""
    notes: tuple[str, ...] = ()
    """Enhanced mode: what changed relative to Reasonix for this hit."""
    base_score: float | None = None
    """Enhanced mode: the score before supersession/demotion adjustments."""
    channels: tuple[str, ...] = ()
    """Enhanced mode: what each channel contributed (``lexical: deploy``,
    ``translated: 部署→deploy``, ``meaning: 0.41``, ``supersession: …``, ``subject: …``)."""


@dataclass(frozen=True, slots=True)
class Considered:
    """One candidate and what became of it."""

    fact: Fact
    """The candidate."""
    decision: str
    """``selected``, ``gate``, ``expired``, ``floor``, ``limit``, ``budget``, ``pinned``,
    ``suppressed``, ``superseded`` or ``zero-score``."""
    detail: str
    """Why, in one line."""
    score: float | None = None
    """Score after multipliers, when one was computed."""
    matched: tuple[str, ...] = ()
    """Matched query terms."""
    freshness: str = ""
    """Freshness label, when computed."""
    rank: int | None = None
    """Position in the block (1-based) for selected facts."""
    channels: tuple[str, ...] = ()
    """Enhanced mode: what each channel contributed (see :attr:`RecallHit.channels`)."""


@dataclass(frozen=True, slots=True)
class RecallResult:
    """``RecallResult`` plus the explanation the Context Center shows."""

    query: str
    """The trimmed query."""
    mode: str
    """``enhanced`` or ``reasonix-exact``."""
    hits: tuple[RecallHit, ...] = ()
    """Facts in the block, in order."""
    block: str = ""
    """The provider-visible text (empty when nothing was recalled)."""
    suppressed: str = ""
    """Why nothing was recalled, or ``""``."""
    omitted_by_limit: int = 0
    """Hits cut by the per-turn limit."""
    omitted_by_budget: int = 0
    """Hits cut by the character budget."""
    char_budget: int = DEFAULT_CHARS
    """The budget in runes."""
    used_chars: int = 0
    """Runes in the block."""
    limit: int = DEFAULT_LIMIT
    """The per-turn hit limit."""
    terms: tuple[str, ...] = ()
    """Query terms."""
    considered: tuple[Considered, ...] = ()
    """Candidates and decisions (capped; selected facts first)."""
    considered_total: int = 0
    """How many candidates there were before the cap."""
    pool_size: int = 0
    """Facts in the recall pool."""
    notes: tuple[str, ...] = ()
    """Enhanced mode: improvements that changed this result."""

    @property
    def omitted(self) -> int:
        """Hits omitted for either reason."""
        return self.omitted_by_limit + self.omitted_by_budget

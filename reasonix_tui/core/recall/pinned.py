"""The session-start memory block (store-format §10.4; Reasonix ``BackgroundBlock``).

The block holds a fixed protocol paragraph (identical for every project, so the
provider's prefix cache holds) and the bodies of pinned facts, after global pinned
facts shadowed by an equivalent project fact are removed (§6.6). The saved-fact index
is deliberately absent: the tools reach it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..compat.gostr import trim_space
from ..settings import Settings
from ..store.model import Fact, display_title, normalize_fact_scope, normalize_type
from .pool import PinnedGuidance, pinned_guidance

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["MEMORY_PROTOCOL", "PINNED_HEADING", "background_block", "pinned_block", "pinned_report", "PinnedReport"]

MEMORY_PROTOCOL = (
    "## Background memory\n\n"
    "Durable facts you saved in earlier sessions are stored for this project. They are not listed here: "
    "relevant ones are retrieved onto the turn automatically, and the `memory` tool reaches the rest "
    "(`search` ranks them, `list` returns the whole index, `read` returns one body). "
    "They reflect what was true when written and may now be stale — treat them as background, not standing "
    "instructions, and before acting on one that names a file, function, or flag, verify it still exists. "
    "Save new durable facts with the `remember` tool; archive ones that turn out wrong with `forget`."
)
"""``memoryProtocol``."""

PINNED_HEADING = (
    "## Pinned preferences and feedback\n\n"
    "Facts the user pinned to be always available. Apply them when relevant. "
    "The current user request and more specific standing instructions take precedence, and factual details may be stale.\n"
)


def background_block(pinned: Sequence[Fact], has_store: bool = True) -> str:
    """``BackgroundBlock`` for the given (already suppressed and ordered) pinned facts."""
    if not has_store and not pinned:
        return ""
    parts = ["# Memory\n\n"]
    if has_store:
        parts.append(MEMORY_PROTOCOL)
    if pinned:
        if has_store:
            parts.append("\n\n")
        parts.append(PINNED_HEADING)
        for m in pinned:
            parts.append(
                f"\n### {display_title(m.title, m.name)} ({normalize_fact_scope(m.scope)}/{normalize_type(m.type)})"
                f"\n\n{trim_space(m.body)}\n"
            )
    return trim_space("".join(parts))


@dataclass(frozen=True, slots=True)
class PinnedReport:
    """The session-start block and what went into it."""

    block: str
    """The text (empty when memory is hidden)."""
    guidance: PinnedGuidance
    """Pinned facts kept and global ones suppressed."""
    budget: int
    """The configured pinned budget (0: no ceiling)."""

    @property
    def chars(self) -> int:
        """Runes of the pinned bodies (``PrefixCost.PinnedChars``)."""
        return self.guidance.chars


def pinned_report(
    store: Store | None = None, *, facts: Sequence[Fact] | None = None, settings: Settings | None = None
) -> PinnedReport:
    """The block for ``store`` (or for ``facts``), with the kept and suppressed pinned facts."""
    settings = settings or (store.settings if store is not None else Settings())
    if settings.no_memory:
        return PinnedReport("", PinnedGuidance((), ()), settings.pinned_budget_chars)
    all_facts = facts if facts is not None else (store.list_all() if store is not None else ())
    guidance = pinned_guidance(all_facts, resolved=settings.recall_mode != "reasonix-exact")
    return PinnedReport(background_block(guidance.facts), guidance, settings.pinned_budget_chars)


def pinned_block(
    store: Store | None = None, *, facts: Sequence[Fact] | None = None, settings: Settings | None = None
) -> str:
    """The session-start block (``# Memory`` + protocol + pinned bodies)."""
    return pinned_report(store, facts=facts, settings=settings).block

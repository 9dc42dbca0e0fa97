"""Command palette provider: jump to a fact by title, ref, id or subject."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .messages import ShowFactRequested

if TYPE_CHECKING:
    from ..core.store.model import Fact

__all__ = ["FactsProvider"]

_MAX_HITS = 40


class FactsProvider(Provider):
    """``facts: <title>`` hits; with an empty query, the most recently updated facts."""

    def _facts(self) -> list[Fact]:
        snapshot = getattr(self.app, "snapshot", None)
        return list(snapshot.facts.values()) if snapshot is not None else []

    def _jump(self, fact_id: str) -> None:
        screen: Any = self.app.screen
        screen.post_message(ShowFactRequested(fact_id))

    async def discover(self) -> Hits:
        """Recently updated facts."""
        facts = sorted(self._facts(), key=lambda f: -(f.updated_at.ns if f.updated_at else 0))[:10]
        for fact in facts:
            yield DiscoveryHit(
                f"facts: {fact.display_title}",
                partial(self._jump, str(fact.id)),
                help=f"{fact.ref} · {fact.type} · {fact.resolved_activation}",
            )

    async def search(self, query: str) -> Hits:
        """Facts whose title, ref, id or subject match."""
        matcher = self.matcher(query)
        found = 0
        for fact in self._facts():
            text = f"facts: {fact.display_title} {fact.ref} {fact.subject_key} {fact.id}"
            score = matcher.match(text)
            if score > 0:
                found += 1
                yield Hit(
                    score,
                    matcher.highlight(f"facts: {fact.display_title}"),
                    partial(self._jump, str(fact.id)),
                    help=f"{fact.ref} · {fact.id}",
                )
                if found >= _MAX_HITS:
                    return

"""Command palette provider: jump to a fact by title, ref, id or subject."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .messages import ShowFactRequested

if TYPE_CHECKING:
    from .model.rows import FactRow

__all__ = ["FactsProvider"]

_MAX_HITS = 40


class FactsProvider(Provider):
    """``facts: <title>`` hits; with an empty query, the most recently updated facts."""

    def _rows(self) -> list[FactRow]:
        snapshot = getattr(self.app, "snapshot", None)
        if snapshot is None:
            return []
        return [row for key, row in snapshot.rows.items() if key in snapshot.facts]

    def _jump(self, fact_id: str) -> None:
        screen: Any = self.app.screen
        screen.post_message(ShowFactRequested(fact_id))

    async def discover(self) -> Hits:
        """Recently updated facts."""
        rows = sorted(self._rows(), key=lambda r: -r.updated_ns)[:10]
        for row in rows:
            yield DiscoveryHit(
                f"facts: {row.title}",
                partial(self._jump, row.key),
                help=f"{row.ref} · {row.type} · {row.activation}",
            )

    async def search(self, query: str) -> Hits:
        """Facts whose title, ref, id or subject match."""
        matcher = self.matcher(query)
        found = 0
        for row in self._rows():
            text = f"facts: {row.title} {row.ref} {row.subject} {row.key}"
            score = matcher.match(text)
            if score > 0:
                found += 1
                yield Hit(
                    score,
                    matcher.highlight(f"facts: {row.title}"),
                    partial(self._jump, row.key),
                    help=f"{row.ref} · {row.key}",
                )
                if found >= _MAX_HITS:
                    return

"""The explicit search keeps only the best few before sorting: same hits as sorting every match."""

from __future__ import annotations

import random

import pytest

from reasonix_tui.core.compat.tokenize import query_terms
from reasonix_tui.core.recall import clear_index_cache, search_memories
from reasonix_tui.core.recall.index import get_index
from reasonix_tui.core.recall.memory_tool import _SearchIndex, filter_facts
from reasonix_tui.core.recall.term_matrix import SEARCH_FLOOR
from reasonix_tui.core.store.model import Fact, FactId

WORDS = "deploy cache redis helm chart canary retry queue worker lint build the we use for".split()


def facts(n: int, seed: int) -> tuple[Fact, ...]:
    r = random.Random(seed)
    out = []
    for i in range(n):
        # few distinct bodies: many documents tie on score, so the name/scope/id order decides
        body = " ".join(r.choice(WORDS) for _ in range(r.choice((3, 6, 9))))
        out.append(
            Fact(
                id=FactId(f"mem-{r.randrange(10**6):06d}-{i}"),
                revision=1,
                created_at=None,
                updated_at=None,
                name=r.choice(("alpha", "beta", "gamma", "Beta", "ämber")) + f"-{i % 7}",
                title="",
                description="",
                keywords="",
                type=r.choice(("project", "reference")),
                scope=r.choice(("project", "global")),
                body=body,
            )
        )
    return tuple(out)


def reference(index: _SearchIndex, query: str, limit: int) -> list[tuple[str, float]]:
    """Every match sorted, then the floor, then the limit (the order before the change)."""
    assert index.bm25 is not None
    score, count, _ = index.bm25.accumulate(query_terms(query))
    scored = [(float(score[i]), int(i)) for i in (count > 0).nonzero()[0] if score[i] > 0]
    scored.sort(key=lambda p: (-p[0], index.docs[p[1]].name, index.docs[p[1]].scope, index.docs[p[1]].id))
    if scored:
        cutoff = scored[0][0] * SEARCH_FLOOR
        scored = [p for j, p in enumerate(scored) if j == 0 or p[0] >= cutoff]
    return [(index.docs[i].id, s) for s, i in scored[:limit]]


@pytest.mark.parametrize("seed", range(3))
def test_same_hits_as_sorting_every_match(seed: int) -> None:
    clear_index_cache()
    fs = facts(400, seed)
    r = random.Random(seed)
    indexes = {t: _SearchIndex(filter_facts(get_index(fs).all_facts, t, "")) for t in ("", "project")}
    for _ in range(20):
        query = " ".join(r.sample(WORDS, r.randint(1, 4)))
        for limit in (1, 8):
            type_ = r.choice(("", "project"))
            got = [(h.fact.id, h.score) for h in search_memories(fs, query, limit=limit, type_=type_)]
            assert got == reference(indexes[type_], query, limit), (query, limit, type_)

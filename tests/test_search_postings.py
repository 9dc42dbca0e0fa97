"""The warm memory search's postings (a long-lived process): the same answers as the term
matrix, and a query that no longer scans every posting of the store for its terms."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from test_search_index import QUERIES, WORDS, seeded

from reasonix_tui.core.compat.tokenize import required_query_terms
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import search_postings
from reasonix_tui.core.recall.memory_tool import memory_tool_call, search_memories
from reasonix_tui.core.recall.search_postings import Postings, warm_postings
from reasonix_tui.core.recall.term_matrix import TermMatrix, clear_warm_search, rank, warm_search
from reasonix_tui.core.store.live import LiveStore
from reasonix_tui.core.store.store import Store


@pytest.fixture(autouse=True)
def _fresh() -> object:
    clear_warm_search()
    search_postings.build_postings_in_background(False)
    yield
    clear_warm_search()
    search_postings.build_postings_in_background(False)


def test_postings_score_and_rank_exactly_as_the_matrix() -> None:
    r = random.Random(5)
    docs = []
    for i in range(300):
        words = [r.choice(WORDS) for _ in range(r.randint(1, 25))]
        if i % 3 == 0:
            words.append("common")  # in a third of the rows: a dense contribution vector
        freqs: dict[str, int] = {}
        for w in words:
            freqs[w] = freqs.get(w, 0) + 1
        docs.append(((f"f{i % 37}", "project" if i % 4 else "global", f"id{i}"), freqs))
    matrix = TermMatrix.build(docs)
    postings = Postings(matrix)
    for q in [*QUERIES, "common", "common deploy common", "helm common the", "absent words only"]:
        _q, terms = required_query_terms(q, ValueError)
        want_rows, want_scores = matrix.score(terms)
        got_rows, got_scores = postings.score(terms)
        assert np.array_equal(got_rows, want_rows) and np.array_equal(got_scores, want_scores), q  # bit for bit
        for limit in (1, 3, 8, 20):
            assert rank(postings, terms, limit) == rank(matrix, terms, limit), q


def test_a_warm_search_reads_its_terms_postings_instead_of_scanning(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded(layout)
    facts = Store(layout).snapshot().facts
    want = {(q, r): search_memories(facts, q, resolved=r) for q in QUERIES for r in (False, True)}
    clear_warm_search()
    matrix, _rows, _all = warm_search(facts)
    assert warm_postings(matrix) is None  # a one-shot process never turns the matrix around
    assert warm_postings(matrix, wait=True) is not None

    def scan(self: TermMatrix, term: str) -> None:
        raise AssertionError(f"scanned every posting for {term!r}")

    monkeypatch.setattr(TermMatrix, "_contributions", scan)
    for (q, r), hits in want.items():
        assert search_memories(facts, q, resolved=r) == hits, (q, r)


def test_the_memory_tool_on_a_live_store_builds_the_postings_in_the_background(layout: Layout) -> None:
    seeded(layout)
    store = LiveStore(layout, watch=False)
    try:
        first = memory_tool_call(store, {"operation": "search", "query": "redis cache"})
        matrix, _rows, _all = warm_search(store.snapshot().facts)
        for thread in threading.enumerate():
            if thread.name == "reasonix-tui-search-postings":
                thread.join(30)
        assert warm_postings(matrix) is not None
        assert memory_tool_call(store, {"operation": "search", "query": "redis cache"}) == first
    finally:
        store.close()

"""A long-lived process's warm recall index starts from the on-disk rows: only the facts
whose files changed are analysed, and the answers are a fresh in-memory index's."""

from __future__ import annotations

import os
from typing import Any

import pytest
from test_recall_disk_index import MODES, NOW, QUERIES, fresh, seeded
from test_recall_disk_patch import CHANGES

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import disk_rows, fields
from reasonix_tui.core.recall.disk_index import index_for, index_path
from reasonix_tui.core.recall.engine import recall
from reasonix_tui.core.recall.index import clear_index_cache, get_index
from reasonix_tui.core.recall.memo import FACT_MEMO
from reasonix_tui.core.recall.warm_rows import seed_from_rows
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.live import LiveStore
from reasonix_tui.core.store.store import Store


def _analysed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the facts language analysis runs on from now on."""
    names: list[str] = []
    real = fields._compute

    def spy(fact: Any) -> Any:
        names.append(fact.name)
        return real(fact)

    monkeypatch.setattr(fields, "_compute", spy)
    return names


def _warm_answers(store: Store) -> dict[tuple[str, str], object]:
    facts = store.snapshot().facts
    index = get_index(facts)
    return {(m, q): recall(facts, q, NOW, Settings(), mode=m, index=index) for m in MODES for q in QUERIES}


def _fresh_answers(layout: Layout) -> dict[tuple[str, str], object]:
    FACT_MEMO.clear()
    clear_index_cache()
    return {(m, q): fresh(layout, q, m) for m in MODES for q in QUERIES}


def test_unchanged_rows_mean_no_analysis_and_the_same_answers(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout)
    index_for(Store(layout))  # what a one-shot recall leaves on disk
    FACT_MEMO.clear()
    clear_index_cache()
    analysed = _analysed(monkeypatch)
    store = Store(layout)
    assert seed_from_rows(store) == len(store.snapshot().facts)
    got = _warm_answers(store)
    assert analysed == []  # not one fact analysed: every value came from the rows
    assert got == _fresh_answers(layout)


@pytest.mark.parametrize("change", ["edit", "delete", "new file", "rename", "unshadow"])
def test_changed_files_are_analysed_and_answers_equal_a_fresh_index(
    layout: Layout, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    seeded(layout)
    if change == "unshadow":
        CHANGES_SHADOW(layout)
    index_for(Store(layout))
    CHANGES[change](layout)  # after the rows were written: they are stale for that file
    FACT_MEMO.clear()
    clear_index_cache()
    analysed = _analysed(monkeypatch)
    store = Store(layout)
    facts = store.snapshot().facts
    seeded_count = seed_from_rows(store)
    assert 0 < seeded_count <= len(facts)
    got = _warm_answers(store)
    if change in ("edit", "new file"):
        assert seeded_count == len(facts) - 1
        assert 1 <= len(set(analysed)) <= 2  # the changed fact (and the fact its answer reads)
    assert got == _fresh_answers(layout)


def CHANGES_SHADOW(layout: Layout) -> None:  # noqa: N802 - read as a change name
    from test_recall_disk_patch import _shadow

    _shadow(layout)


def test_no_rows_foreign_rows_or_a_file_changing_mean_no_seeding(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded(layout)
    store = Store(layout)
    assert seed_from_rows(store) == 0  # no on-disk index yet
    index_for(store)
    rows = disk_rows.rows_path(index_path(store))
    with open(rows, "r+b") as fh:  # damaged
        fh.seek(40)
        fh.write(b"\x00\x01\x02")
    assert seed_from_rows(Store(layout)) == 0
    os.unlink(rows)
    os.unlink(index_path(store))
    index_for(Store(layout))
    from reasonix_tui.core.recall import listing

    real = listing.stat_keys

    def moved(paths: list[str]) -> Any:
        keys = real(paths)
        return None if keys is None else [*keys[:-1], (0, 0, 0, 0)]

    monkeypatch.setattr(listing, "stat_keys", moved)  # a file changed while the snapshot was read
    assert seed_from_rows(Store(layout)) == 0


def test_a_live_store_seeds_then_follows_an_outside_edit(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout)
    index_for(Store(layout))
    FACT_MEMO.clear()
    clear_index_cache()
    store = LiveStore(layout, watch=False)  # every read re-validates (no timing in the test)
    try:
        assert seed_from_rows(store) == len(store.snapshot().facts)
        _warm_answers(store)
        CHANGES["edit"](layout)
        got = _warm_answers(store)
    finally:
        store.close()
    assert got == _fresh_answers(layout)


def test_a_search_only_process_seeds_what_the_resolver_reads(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP server (``recall=False``): the resolver's inputs from the rows, nothing
    analysed, the same supersessions as a fresh resolve; recall's own values untouched."""
    from reasonix_tui.core.resolve import resolve

    seeded(layout)
    index_for(Store(layout))
    CHANGES["edit"](layout)
    FACT_MEMO.clear()
    analysed = _analysed(monkeypatch)
    store = Store(layout)
    facts = store.snapshot().facts
    assert seed_from_rows(store, recall=False) == len(facts) - 1
    assert not any(FACT_MEMO.peek(f, "tokens") for f in facts)
    got = resolve(facts)
    assert len(set(analysed)) == 1  # the edited fact only
    mine = [(s.old.path, s.current.path, s.kind, s.evidence, s.certain) for s in got.items]
    FACT_MEMO.clear()
    facts = Store(layout).snapshot().facts
    want = [(s.old.path, s.current.path, s.kind, s.evidence, s.certain) for s in resolve(facts).items]
    assert mine == want and want


def test_a_long_lived_process_seeds_its_store_once_before_the_first_recall(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Context Center's Recall pane and the warm hook server read through
    ``service.load_facts``: a live store is seeded once, one-shot stores never."""
    from reasonix_tui.core.recall import service

    seeded(layout)
    index_for(Store(layout))
    FACT_MEMO.clear()
    clear_index_cache()
    assert service.seed_once(Store(layout)) == 0  # a one-shot store: never
    analysed = _analysed(monkeypatch)
    service._STORES.clear()
    service.serve_live()
    try:
        got = {(m, q): service.try_recall(layout, Settings(), q, now=NOW, mode=m) for m in MODES for q in QUERIES}
        assert analysed == []
        store = service.store_for(layout)
        assert service.seed_once(store) == 0  # once per store
        store.close()  # type: ignore[attr-defined]
    finally:
        service.serve_live(False)
        service._STORES.clear()
    assert got == _fresh_answers(layout)

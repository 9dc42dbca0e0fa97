"""The one-shot search index read by offset (the recall index's sealed-chunk reader): a
query's postings equal the whole file's, a query reads no posting list whole, a damaged
chunk or a torn file is never trusted (the store answers, the file is dropped and written
again), and an outside edit reaches the next answer."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import numpy as np
import pytest
from sectioned_probe import flip, run_reporting_freeze, whole_reads
from test_search_index import QUERIES, no_full_load, same_answers, seeded

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import search_index
from reasonix_tui.core.recall.listing import list_fact_files
from reasonix_tui.core.recall.memory_tool import search_memories
from reasonix_tui.core.recall.search_index import SearchIndexFile, StoredSearchIndex, index_path, search_from_disk
from reasonix_tui.core.recall.term_matrix import rank
from reasonix_tui.core.store.store import Store


def _folders(store: Store) -> str:
    return "\0".join(str(d) for _s, d in store._dirs())


def _built(layout: Layout) -> tuple[SearchIndexFile, StoredSearchIndex]:
    """The index read whole, and the same file opened for a query."""
    store = seeded(layout)
    same_answers(store)  # builds the index, with the resolver's labels
    store = Store(layout)
    whole = SearchIndexFile.load(index_path(store), _folders(store))
    assert whole is not None
    listing = list_fact_files(store)
    assert listing is not None and whole.files == listing.paths and whole.keys == listing.keys
    stored = StoredSearchIndex.open(index_path(store), _folders(store), listing, resolved=True)
    assert stored is not None
    return whole, stored


def test_offset_read_postings_equal_the_whole_file(layout: Layout) -> None:
    whole, stored = _built(layout)
    m = whole.matrix
    n = len(m.names)
    assert stored.size == n
    for term in [*m.terms, "absent-term"]:
        want_rows, want_scores = m.score([term])
        score, _count, _rows = stored._postings.accumulate([term])
        rows = np.flatnonzero(score > 0)
        assert np.array_equal(rows, want_rows), term
        assert score[rows].tobytes() == want_scores.tobytes(), term  # bit for bit
    for q in [*QUERIES, "redis cache deploy helm canary retry"]:
        terms = search_index.query_terms(q)
        for limit in (1, 3, 20):
            assert stored.ranked(terms, limit) == rank(m, terms, limit), (q, limit)
    assert [stored.row_file(r) for r in range(n)] == whole.row_files
    assert stored.labels() == whole.labels
    stored.close()


def test_a_query_reads_no_posting_list_whole(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout)
    search_from_disk(Store(layout), "deploy", resolved=True)  # builds it
    no_full_load(monkeypatch)
    whole = whole_reads(monkeypatch)
    for resolved in (False, True):
        assert search_from_disk(Store(layout), "redis cache timeout", resolved=resolved)
    assert not {"bt_docs", "bt_counts", "row_files", "files_text", "names_text", "keys"} & set(whole)


def _flip(path: Path, section: str) -> None:
    flip(path, search_index.MAGIC, section)


def _answers(layout: Layout, resolved: bool) -> dict[str, list[tuple[object, float, str, str]]]:
    out = {}
    for q in QUERIES:
        hits = search_from_disk(Store(layout), q, resolved=resolved)
        out[q] = [(h.fact, h.score, h.snippet, h.superseded) for h in hits]
    return out


def _fresh(layout: Layout, resolved: bool) -> dict[str, list[tuple[object, float, str, str]]]:
    facts = Store(layout).snapshot().facts
    return {
        q: [(h.fact, h.score, h.snippet, h.superseded) for h in search_memories(facts, q, resolved=resolved)]
        for q in QUERIES
    }


@pytest.mark.parametrize("section", ["bt_docs", "bt_counts", "bt_norm", "terms_text", "row_files", "labels"])
def test_a_flipped_byte_means_the_store_answers_and_the_file_is_dropped(layout: Layout, section: str) -> None:
    store = seeded(layout)
    search_from_disk(store, "deploy", resolved=True)
    path = Path(index_path(store))
    _flip(path, section)
    q = "pnpm" if section == "labels" else "deploy"  # a query that reads the damaged section
    want = [
        (h.fact, h.score, h.snippet, h.superseded) for h in search_memories(store.snapshot().facts, q, resolved=True)
    ]
    got = search_from_disk(Store(layout), q, resolved=True)
    assert [(h.fact, h.score, h.snippet, h.superseded) for h in got] == want
    assert not path.exists()  # dropped where the damage was read
    for resolved in (False, True):
        assert _answers(layout, resolved) == _fresh(layout, resolved), (section, resolved)
    assert path.exists()  # written again
    same_answers(store)


@pytest.mark.parametrize("cut", [1, 100, -1])
def test_a_torn_or_extended_file_is_refused_and_written_again(layout: Layout, cut: int) -> None:
    store = seeded(layout)
    search_from_disk(store, "deploy", resolved=True)
    path = Path(index_path(store))
    data = path.read_bytes()
    path.write_bytes(data + b"\0" if cut < 0 else data[:-cut])
    listing = list_fact_files(Store(layout))
    assert listing is not None
    assert StoredSearchIndex.open(str(path), _folders(store), listing, resolved=False) is None
    for resolved in (False, True):
        assert _answers(layout, resolved) == _fresh(layout, resolved), (cut, resolved)
    listing = list_fact_files(Store(layout))
    assert listing is not None
    again = StoredSearchIndex.open(str(path), _folders(store), listing, resolved=True)
    assert again is not None  # the rebuilt file is whole again
    again.close()


def test_an_outside_edit_reaches_the_next_answer(layout: Layout) -> None:
    store = seeded(layout)
    same_answers(store)
    target = sorted(p for p in layout.project_dir.glob("*.md") if p.name != "MEMORY.md")[3]
    assert not search_from_disk(Store(layout), "zyxoutside")
    with open(target, "a", encoding="utf-8") as fh:  # an editor writing into the same file
        fh.write("zyxoutside\n")
    os.utime(target, ns=(1, 1))  # even with its mtime set back: size and ctime moved
    hits = search_from_disk(Store(layout), "zyxoutside")
    assert [h.fact.path for h in hits] == [str(target)]
    same_answers(store)


def _cli(layout: Layout, *args: str) -> list[str]:
    return ["--home", str(layout.root), "--workspace", str(layout.workspace), *args]


def test_cli_search_freezes_only_in_a_process_started_for_it(
    layout: Layout, capsys: pytest.CaptureFixture[str]
) -> None:
    # as recall: driven in-process the collector is only paused (back on after, nothing
    # frozen); `reasonix-tui memory search` in its own process freezes what it made
    from reasonix_tui.integrations.cli import main

    seeded(layout)
    try:
        frozen = gc.get_freeze_count()
        assert main(_cli(layout, "memory", "search", "deploy")) == 0
        assert gc.isenabled() and gc.get_freeze_count() == frozen
        assert "deploy" in capsys.readouterr().out
    finally:
        gc.enable()
    done = run_reporting_freeze(_cli(layout, "memory", "search", "deploy"))
    assert "frozen True 0" in done.stderr and "deploy" in done.stdout

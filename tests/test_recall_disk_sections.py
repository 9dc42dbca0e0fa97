"""The recall index read by offset: a query's posting lists equal the whole index's, a
damaged section is found where it is read and the answer comes from the store, a torn file
is refused at open — never a wrong answer."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from sectioned_probe import flip, whole_reads
from test_recall_disk_index import QUERIES, fresh, from_disk, refuse_full_load, same_answers, seeded

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import disk_index, disk_rows
from reasonix_tui.core.recall.disk_index import StoredRecallIndex, index_for, index_path
from reasonix_tui.core.recall.engine import MODES
from reasonix_tui.core.recall.term_matrix import TermMatrix
from reasonix_tui.core.store import sectioned
from reasonix_tui.core.store.sectioned import CHUNK, Damaged, from_blob, open_sectioned, sectioned_blob
from reasonix_tui.core.store.store import Store


@pytest.fixture(autouse=True)
def disk(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonix_tui.core.recall import service

    monkeypatch.setattr(service, "_DISK", True)


def _built(layout: Layout) -> tuple[dict, StoredRecallIndex]:
    """The payload a full build writes, and the index read back from its file."""
    seeded(layout)
    store = Store(layout)
    index = index_for(store)
    assert not isinstance(index, StoredRecallIndex)
    payload = disk_rows.payload(
        index, disk_index.list_fact_files(store), disk_rows.fresh_table(index, disk_index.list_fact_files(store))
    )
    stored = index_for(Store(layout))
    assert isinstance(stored, StoredRecallIndex)
    return payload, stored


def test_offset_read_postings_equal_the_whole_matrix(layout: Layout) -> None:
    payload, stored = _built(layout)
    n = len(payload["doc_files"])
    whole = TermMatrix(
        [""] * n,
        [],
        [],
        payload["terms"],
        np.frombuffer(payload["offsets"], dtype=np.int64),
        np.frombuffer(payload["term_ids"], dtype=np.int32),
        np.frombuffer(payload["counts"], dtype=np.int32),
    )
    bm = stored.bm25
    for term in [*payload["terms"], "absent-term"]:
        want = whole._contributions(term)
        got = bm._contributions(term)  # type: ignore[union-attr]
        if want is None:
            assert got is None, term
            continue
        assert got is not None, term
        assert got[0].dtype == want[0].dtype and np.array_equal(got[0], want[0]), term
        assert got[1].tobytes() == want[1].tobytes(), term  # bit for bit
    for doc in range(n):  # which of a query's terms a document holds
        a, b = int(whole.offsets[doc]), int(whole.offsets[doc + 1])
        held = {whole.terms[int(t)] for t in whole.term_ids[a:b]}
        sample = sorted(held)[:5] + ["absent-term"]
        assert bm.matched_terms(doc, sample) == [t for t in sample if t in held]  # type: ignore[union-attr]
    ch = payload["channels"]
    docs = np.frombuffer(ch["docs"], dtype=np.int32).astype(np.int64)
    tfs = np.frombuffer(ch["tfs"], dtype=np.float32 if ch["tfs32"] else np.float64).astype(np.float64)
    start, end = np.frombuffer(ch["start"], dtype=np.int64), np.frombuffer(ch["end"], dtype=np.int64)
    cidx = stored.extra("channels", lambda _i: None)
    for i, key in enumerate(ch["keys"]):
        got = cidx.posting(key)
        assert got is not None
        assert np.array_equal(got[0], docs[start[i] : end[i]]) and got[1].tobytes() == tfs[start[i] : end[i]].tobytes()


def test_a_query_reads_only_its_own_postings(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout)
    index_for(Store(layout))
    refuse_full_load(monkeypatch)
    whole = whole_reads(monkeypatch)
    for mode in MODES:
        from_disk(layout, "redis cache timeout", mode)
    assert not {"bt_docs", "bt_counts", "ch_docs", "ch_tfs", "src_text"} & set(whole)


def _flip(path: Path, section: str) -> None:
    flip(path, disk_index.MAGIC, section)


@pytest.mark.parametrize(
    "section", ["bt_docs", "ch_vectors", "ch_tfs", "is_project", "terms_text", "ch_keys_off", "doc_files", "ids_text"]
)
def test_a_damaged_section_means_the_store_answers_and_the_index_is_written_again(layout: Layout, section: str) -> None:
    seeded(layout)
    index_for(Store(layout))
    path = Path(index_path(Store(layout)))
    _flip(path, section)
    for mode in MODES:
        for q in QUERIES:
            assert from_disk(layout, q, mode) == fresh(layout, q, mode), (section, mode, q)
    # found where it was read: the file was removed (or, found at open, refused) and is written again
    index_for(Store(layout))
    assert isinstance(index_for(Store(layout)), StoredRecallIndex)
    same_answers(layout)


def test_the_vocabularies_file_lists_and_left_out_postings_read_by_offset(layout: Layout) -> None:
    """What used to be unpacked whole from the header at every query — the term and key
    vocabularies, the id map, the file lists, the left-out facts' postings — is read from
    sections, by lookup, with the same answers as the payload's values."""
    from reasonix_tui.core.recall.disk_index import by_id

    payload, stored = _built(layout)  # the seeded store has pinned and suppressed facts
    bm = stored.bm25
    assert list(bm._terms) == sorted(payload["terms"])  # type: ignore[union-attr]
    cidx = stored.extra("channels", lambda _i: None)
    assert list(cidx._key_list) == payload["channels"]["keys"]
    for key in [*payload["channels"]["keys"], "", "zzz-absent", "\udcff"]:
        i = cidx._key_list.find(key)
        assert (i is not None) == (key in payload["channels"]["keys"]), key
    assert list(stored.docs._files) == payload["doc_files"]
    assert list(stored.pool.facts._files) == payload["pool_files"]
    assert list(stored._all._files) == payload["all_files"]
    ids = by_id(stored)
    for fact_id, f in payload["ids"].items():
        assert fact_id in ids and ids[fact_id].path == stored.loader.listing.path(f)
    assert "mem-absent" not in ids and ids.get("mem-absent") is None
    memory = fresh_index(layout)
    assert stored.pool.excluded and len(stored.pool.excluded) == len(memory.pool.excluded)
    terms = sorted(payload["ex_postings"]) + ["absent-term"]
    for probe in (terms, terms[:3], ["redis", "pinned"]):
        assert stored.excluded_hits(probe) == memory.excluded_hits(probe)
        for i in stored.excluded_hits(probe):
            ex, matched = stored.excluded_match(i, probe)
            want_ex, want = memory.excluded_match(i, probe)
            assert matched == want and ex.fact.path == want_ex.fact.path


def fresh_index(layout: Layout) -> object:
    from reasonix_tui.core.recall.index import RecallIndex

    return RecallIndex(Store(layout).snapshot().facts)


def test_a_truncated_or_extended_file_is_refused_at_open(layout: Layout) -> None:
    seeded(layout)
    index_for(Store(layout))
    path = Path(index_path(Store(layout)))
    blob = path.read_bytes()
    path.write_bytes(blob[: len(blob) - 1])
    assert open_sectioned(path, disk_index.MAGIC) is None
    index_for(Store(layout))  # written again (from the rows beside it)
    again = open_sectioned(path, disk_index.MAGIC)
    assert again is not None
    again.close()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    path.write_bytes(path.read_bytes() + b"\0")
    assert open_sectioned(path, disk_index.MAGIC) is None
    same_answers(layout)


def test_sectioned_round_trip_and_damage(tmp_path: Path) -> None:
    big = np.arange(3 * CHUNK, dtype=np.int32)
    blob = sectioned_blob(b"T\n", {"a": [1, "x"]}, {"big": big.tobytes(), "empty": b"", "text": "héllo".encode()})
    sec = from_blob(b"T\n", blob)
    assert sec is not None and sec.header == {"a": [1, "x"]}
    assert np.array_equal(sec.part("big", np.int32, 5, CHUNK + 7), big[5 : CHUNK + 7])
    assert np.array_equal(sec.array("big", np.int32), big) and sec.raw("empty") == b""
    assert sec.text("text") == "héllo" and sec.text("text", 0, 1) == "h"
    assert from_blob(b"T\n", blob[:-1]) is None and from_blob(b"U\n", blob) is None
    head_damaged = bytearray(blob)
    head_damaged[len(b"T\n") + 8 + 32 + 2] ^= 1
    assert from_blob(b"T\n", bytes(head_damaged)) is None
    damaged = bytearray(blob)
    damaged[-2] ^= 1  # inside the last section
    sec2 = from_blob(b"T\n", bytes(damaged))
    assert sec2 is not None
    assert np.array_equal(sec2.part("big", np.int32, 0, 10), big[:10])  # an untouched chunk reads
    with pytest.raises(Damaged):
        sec2.raw("text")
    path = tmp_path / "f"
    sectioned.write_sectioned(path, b"T\n", None, {"s": b"abc"})
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    opened = open_sectioned(path, b"T\n")
    assert opened is not None and opened.raw("s") == b"abc"
    opened.close()


def test_pinned_global_defaults_read_without_every_left_out_fact(layout: Layout) -> None:
    from reasonix_tui.core.recall.stored_views import pinned_global
    from reasonix_tui.core.store.requests import SaveRequest

    store = seeded(layout)
    store.save(
        SaveRequest(
            name="pkg-default",
            scope="global",
            type="feedback",
            activation="pinned",
            description="always use npm for installs",
            body="use npm install in every repo",
        )
    )
    store.save(
        SaveRequest(name="pkg-here", type="project", description="this repo uses pnpm", body="pnpm install here")
    )
    index_for(Store(layout))
    stored = index_for(Store(layout))
    assert isinstance(stored, StoredRecallIndex)
    got = pinned_global(stored.pool.excluded)
    pinned_files = {f for f, kind, _by, _key in stored.pool.excluded._rows if kind == "pinned"}
    assert set(stored.loader._facts) <= pinned_files  # only the pinned facts' files read
    want = [ex.fact for ex in list(stored.pool.excluded) if ex.kind == "pinned" and ex.fact.scope == "global"]
    assert [f.path for f in got] == [f.path for f in want] and got
    same_answers(layout)

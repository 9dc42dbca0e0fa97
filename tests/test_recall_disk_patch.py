"""The on-disk recall index patched by file: after a few changed files only those are read
and analysed, and the index written is the one a full build writes (and answers the same)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_recall_disk_index import refuse_full_load, same_answers, seeded

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import disk_index, disk_rows, fields, service
from reasonix_tui.core.recall.disk_index import MAGIC, StoredRecallIndex, index_for, index_path
from reasonix_tui.core.recall.memo import FACT_MEMO, memo_path
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.sectioned import open_sectioned
from reasonix_tui.core.store.store import Store


def _project_files(layout: Layout) -> list[Path]:
    return sorted(p for p in layout.project_dir.glob("*.md") if p.name != "MEMORY.md")


def _edit(layout: Layout) -> None:
    with open(_project_files(layout)[0], "a", encoding="utf-8") as fh:  # in place
        fh.write("zyxappended redis sentinel\n")


def _delete(layout: Layout) -> None:
    _project_files(layout)[1].unlink()


def _new_file(layout: Layout) -> None:
    Store(layout).save(
        SaveRequest(
            name="fresh-fact",
            type="project",
            description="redis cache timeout raised",
            body="redis cache timeout is 900 now, replaced the 300 setting; zyxfresh",
        )
    )


def _rename(layout: Layout) -> None:
    os.rename(_project_files(layout)[2], layout.project_dir / "renamed-by-hand.md")


def _archive(layout: Layout) -> None:
    Store(layout).archive("pkg-manager")  # the subject resolver changes its mind


def _shadow(layout: Layout) -> None:
    """A project fact named as a global one: the global one is left out of the pool."""
    text = (layout.global_dir / "token-10.md").read_text(encoding="utf-8")
    assert "scope: global" in text
    text = text.replace("scope: global", "scope: project") + "\nthe project's own token\n"
    (layout.project_dir / "token-10.md").write_text(text, encoding="utf-8")


def _unshadow(layout: Layout) -> None:
    (layout.project_dir / "token-10.md").unlink()  # the global fact enters the pool, never indexed before


CHANGES: dict[str, Callable[[Layout], None]] = {
    "edit": _edit,
    "delete": _delete,
    "new file": _new_file,
    "rename": _rename,
    "archive": _archive,
    "unshadow": _unshadow,
}


def _payload(layout: Layout) -> Any:
    """The index file's header and every section's bytes (checked)."""
    sec = open_sectioned(index_path(Store(layout)), MAGIC)
    assert sec is not None
    try:
        return sec.header, {name: sec.raw(name) for name in sorted(sec._table)}
    finally:
        sec.close()


def _full_build(layout: Layout) -> Any:
    """What a build from scratch writes (no index, no rows, nothing memoised)."""
    path = index_path(Store(layout))
    os.unlink(path)
    os.unlink(disk_rows.rows_path(path))
    FACT_MEMO.clear()
    assert not isinstance(index_for(Store(layout)), StoredRecallIndex)
    return _payload(layout)


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_patched_index_is_the_full_build(layout: Layout, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    seeded(layout)
    _shadow(layout)
    index_for(Store(layout))
    assert os.path.exists(disk_rows.rows_path(index_path(Store(layout))))
    CHANGES[change](layout)
    FACT_MEMO.clear()  # as a new process, the memo's disk layer attached but not read
    FACT_MEMO.attach(memo_path(layout.cache_dir))
    analysed: list[str] = []
    real = fields._compute

    def counting(fact: Any) -> Any:
        analysed.append(fact.path)
        return real(fact)

    monkeypatch.setattr(fields, "_compute", counting)
    patched = index_for(Store(layout))
    assert isinstance(patched, StoredRecallIndex)  # patched, not built again
    assert not FACT_MEMO._disk_loaded  # the per-fact memo on disk was not read
    monkeypatch.undo()
    expected = {
        "edit": {"zyxappended"},
        "new file": {"zyxfresh"},
        "rename": {"renamed-by-hand"},
        "unshadow": {"token-10"},  # the global one: no pool document before, no channel terms
    }.get(change, set())
    assert len(analysed) == len(expected)  # only the changed (or newly indexed) fact
    for path, marker in zip(analysed, sorted(expected)):
        assert marker in path or marker in Path(path).read_text(encoding="utf-8")
    got = _payload(layout)
    FACT_MEMO.clear()
    want = _full_build(layout)
    assert got == want  # the very index a full build writes
    monkeypatch.setattr(service, "_DISK", True)
    with monkeypatch.context() as m:
        refuse_full_load(m)  # an unchanged store after a patch: no fact loaded
        assert isinstance(index_for(Store(layout)), StoredRecallIndex)
    same_answers(layout)


def test_several_changes_at_once_then_too_many(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout)
    index_for(Store(layout))
    for change in ("edit", "new file", "rename", "archive"):
        CHANGES[change](layout)
    calls: list[object] = []
    real = disk_rows.patch

    def spy(*a: Any) -> Any:
        out = real(*a)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(disk_rows, "patch", spy)
    assert isinstance(index_for(Store(layout)), StoredRecallIndex)
    assert calls == [True]
    monkeypatch.setattr(service, "_DISK", True)
    same_answers(layout)
    for p in _project_files(layout):  # every file: built in full, not patched
        p.write_text(p.read_text(encoding="utf-8") + "\nrewritten\n", encoding="utf-8")
    assert not isinstance(index_for(Store(layout)), StoredRecallIndex)
    assert calls == [True, False]
    same_answers(layout)


def test_damaged_or_foreign_rows_mean_a_full_build(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout)
    index_for(Store(layout))
    rows = Path(disk_rows.rows_path(index_path(Store(layout))))
    blob = bytearray(rows.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    rows.write_bytes(bytes(blob))
    _edit(layout)
    assert not isinstance(index_for(Store(layout)), StoredRecallIndex)  # no usable rows
    assert oct(rows.stat().st_mode & 0o777) == "0o600"  # written again
    _delete(layout)
    monkeypatch.setattr(disk_index, "VERSION", "other-code")
    assert not isinstance(index_for(Store(layout)), StoredRecallIndex)
    monkeypatch.setattr(service, "_DISK", True)
    same_answers(layout)


def test_a_file_changed_during_the_patch_means_a_full_build(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout)
    index_for(Store(layout))
    _edit(layout)
    late = _project_files(layout)[5]
    real = Store.snapshot

    def edited_meanwhile(self: Store) -> Any:
        with open(late, "a", encoding="utf-8") as fh:  # after the listing, before the load
            fh.write("\nzyxlate redis\n")
        monkeypatch.setattr(Store, "snapshot", real)
        return real(self)

    monkeypatch.setattr(Store, "snapshot", edited_meanwhile)
    got = index_for(Store(layout))
    assert not isinstance(got, StoredRecallIndex)  # the store's own snapshot, built in full
    assert any("zyxlate" in f.body for f in got.all_facts)
    monkeypatch.setattr(service, "_DISK", True)
    same_answers(layout)


def test_a_translated_hit_is_explained_without_the_per_fact_memo(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Chinese word a translated match came from is kept in the index: explaining the
    hit reads neither the per-fact memo on disk nor analyses the fact."""
    from test_recall_disk_index import NOW, fresh

    seeded(layout)
    FACT_MEMO.clear()
    FACT_MEMO.attach(memo_path(layout.cache_dir))
    index_for(Store(layout))
    assert FACT_MEMO.save()
    FACT_MEMO.clear()  # as a new process
    FACT_MEMO.attach(memo_path(layout.cache_dir))
    monkeypatch.setattr(service, "_DISK", True)
    query = "deploy cache then release to staging"
    got = service.try_recall(layout, Settings(), query, now=NOW, mode="enhanced", store=Store(layout))
    assert "translated: " in repr(got)
    assert not FACT_MEMO._disk_loaded
    FACT_MEMO.clear()
    assert got == fresh(layout, query, "enhanced")


def test_from_an_empty_store_to_one_fact(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    layout.project_dir.mkdir(parents=True, exist_ok=True)
    assert not index_for(Store(layout)).docs  # written for an empty store
    assert isinstance(index_for(Store(layout)), StoredRecallIndex)
    _new_file(layout)
    patched = index_for(Store(layout))
    assert isinstance(patched, StoredRecallIndex) and len(patched.docs) == 1
    got = _payload(layout)
    assert got == _full_build(layout)
    monkeypatch.setattr(service, "_DISK", True)
    same_answers(layout)


def test_the_translated_keys_words_are_read_per_document_and_equal_the_in_memory_index(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Chinese words of translated keys (a large part of the index) stay one text with
    offsets: explaining a hit decodes only that document's words, a query without a
    translated hit decodes none, and every document's words are the in-memory index's."""
    import json

    from test_recall_disk_index import NOW, fresh

    from reasonix_tui.core.recall.channels import ChannelIndex
    from reasonix_tui.core.recall.engine import recall
    from reasonix_tui.core.recall.fields import fact_fields
    from reasonix_tui.core.recall.index import RecallIndex

    seeded(layout)
    index_for(Store(layout))
    decoded: list[str] = []
    real = json.loads

    def counted(text: Any, *a: Any, **k: Any) -> Any:
        if isinstance(text, str) and text.startswith("[["):  # a document's words (not a fact's timestamps)
            decoded.append(text)
        return real(text, *a, **k)

    monkeypatch.setattr(json, "loads", counted)
    for query, translated in (("pnpm install", False), ("deploy cache then release to staging", True)):
        decoded.clear()
        stored = index_for(Store(layout))
        assert isinstance(stored, StoredRecallIndex)
        got = recall((), query, NOW, Settings(), mode="enhanced", workspace=layout.workspace.name, index=stored)
        assert ("translated: " in repr(got)) is translated
        assert bool(decoded) is translated and all(len(t) < 2000 for t in decoded)  # a document's words only
        assert got == fresh(layout, query, "enhanced")
    monkeypatch.setattr(json, "loads", real)
    facts = Store(layout).snapshot().facts
    memory = RecallIndex(facts).extra("channels", ChannelIndex.build)
    channels = stored.extra("channels", ChannelIndex.build)
    assert [f.path for f in memory.docs] == [f.path for f in channels.docs]
    seen = 0
    for d, fact in enumerate(memory.docs):
        for key, _word in fact_fields(fact).sources:
            assert channels.source(d, key) == memory.source(d, key) != ""
            seen += 1
        assert channels.source(d, "no-such-key") == ""
    assert seen

"""The per-fact memo on disk: a save writes only what was computed since the memo was read
(a sealed segment beside the base file), and the next process reads base and segments."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reasonix_tui.core.recall import memo as M
from reasonix_tui.core.store.model import Fact, FactId


def _facts(n: int, tag: str = "") -> list[Fact]:
    return [_fact(i, f"body {i} {tag}") for i in range(n)]


def _fact(i: int, body: str) -> Fact:
    return Fact(id=FactId(f"mem-{i:04d}"), revision=1, created_at=None, updated_at=None, name=f"fact-{i}", body=body)


def _calls(memo: M.FactMemo, facts: list[Fact]) -> int:
    """How many facts ``memo`` had to compute (the others came from disk)."""
    done: list[str] = []
    for f in facts:
        memo.get(f, "words", lambda fact: (done.append(fact.id), fact.body.split())[1])
    return len(done)


def _segments(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".seg-*"))


def test_a_save_after_one_change_writes_a_segment_not_the_base(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "memo.marshal"
    first = M.FactMemo()
    first.attach(path)
    assert _calls(first, _facts(300)) == 300 and first.save()
    base = path.read_bytes()
    assert not _segments(path)

    second = M.FactMemo()  # a new process: one fact was edited
    second.attach(path)
    facts = _facts(300)
    facts[7] = _fact(7, "edited body")
    assert _calls(second, facts) == 1 and second.save()
    assert path.read_bytes() == base, "the base file was rewritten"
    (seg,) = _segments(path)
    assert seg.stat().st_size < len(base) / 20
    assert stat.S_IMODE(seg.stat().st_mode) == 0o600

    third = M.FactMemo()
    third.attach(path)
    assert _calls(third, facts) == 0 and not third.save()
    assert third.get(facts[7], "words", lambda f: None) == ["edited", "body"]


def test_segments_are_folded_into_the_base_when_many(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(M.FactMemo, "SEGMENT_FILES", 2)
    path = tmp_path / "memo.marshal"
    memo = M.FactMemo()
    memo.attach(path)
    _calls(memo, _facts(50))
    memo.save()
    for round_ in range(3):
        memo = M.FactMemo()
        memo.attach(path)
        assert _calls(memo, _facts(50) + _facts(5, tag=f"r{round_}")) == 5
        memo.save()
    assert not _segments(path), "three segments should have been folded (at most two kept)"
    last = M.FactMemo()
    last.attach(path)
    assert _calls(last, _facts(50) + _facts(5, "r0") + _facts(5, "r1") + _facts(5, "r2")) == 0


def test_a_damaged_or_foreign_segment_is_ignored_and_removed_at_the_next_fold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "memo.marshal"
    memo = M.FactMemo()
    memo.attach(path)
    _calls(memo, _facts(20))
    memo.save()
    memo = M.FactMemo()
    memo.attach(path)
    _calls(memo, _facts(3, "x"))
    memo.save()
    (seg,) = _segments(path)
    seg.write_bytes(seg.read_bytes()[:-3] + b"zzz")  # torn: the checksum no longer matches
    M._save_memo(str(path) + ".seg-0-1", memo._MAGIC, {("words", b"k" * 16): ["x"]})
    monkeypatch.setattr(M, "_MEMO_VERSION", "other code")
    M._save_memo(str(path) + ".seg-1-1", memo._MAGIC, {("words", b"q" * 16): ["y"]})
    monkeypatch.undo()
    reader = M.FactMemo()
    reader.attach(path)
    assert _calls(reader, _facts(3, "x")) == 3, "entries of a damaged segment were used"
    assert _calls(reader, _facts(20)) == 0
    monkeypatch.setattr(M.FactMemo, "SEGMENT_FILES", 1)
    assert reader.save()
    assert not _segments(path) and os.path.exists(path)

"""The topic resolver's array candidate search finds what the pair-set search before it found.

The reference below is the search as it was (a Python set of every pair within each
label term's postings, decided one by one); the new one generates pairs as int64 codes in
blocks and drops, before deciding, the pairs ``decide`` cannot accept.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from script_modules import bench

from reasonix_tui.core import resolve as R
from reasonix_tui.core import topic_search as T
from reasonix_tui.core.demo import build_demo_home
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import memo as M
from reasonix_tui.core.recall.memo import FACT_MEMO
from reasonix_tui.core.store.model import Fact
from reasonix_tui.core.store.store import Store

_bench = bench


def _reference_candidates(stats: T.TopicStats, max_df: float = 0.2, max_postings: int = 50) -> set[tuple[int, int]]:
    """The search before: every pair of every chosen term's postings, as tuples."""
    limit = max(3, min(int(max_df * stats.n), max_postings))
    pair_keys = set(stats.lab_all[(stats.lab_df >= 2) & (stats.lab_df <= limit)].tolist())
    for x in stats.sets:
        ids = x[6]
        if not len(ids):
            continue
        pos = np.minimum(stats.uniq.searchsorted(ids), len(stats.uniq) - 1)
        two = (stats.uniq[pos] == ids) & (stats.counts[pos] == 2)
        pair_keys.update(ids[two].tolist())
    chosen = np.fromiter(pair_keys, dtype=np.int64, count=len(pair_keys))
    sel = np.isin(stats.all_ids, chosen)
    k_sel, f_sel = stats.all_ids[sel], stats.owner[sel]
    order = np.argsort(k_sel, kind="stable")
    k_sel, f_sel = k_sel[order], f_sel[order]
    cand: set[tuple[int, int]] = set()
    for group in np.split(f_sel, np.flatnonzero(np.diff(k_sel)) + 1):
        cand.update(itertools.combinations(group.tolist(), 2))
    return cand


def _reference_change_pairs(stats: T.TopicStats, changed: np.ndarray, vecs: np.ndarray) -> set[tuple[int, int]]:
    out = set()
    mine = np.unique(stats.all_ids[changed[stats.owner]])
    dfs = stats.df_of(mine)
    for key in mine[(dfs >= 2) & (dfs <= R.CHANGE_MAX_DF)].tolist():
        holders = stats.owner[stats.all_ids == key].tolist()
        for a, b in itertools.combinations(sorted(holders), 2):
            if (changed[a] or changed[b]) and float(vecs[a] @ vecs[b]) >= R.CHANGE_MEANING:
                out.add((a, b))
    return out


def _reference_pairs(facts: list[Fact], meaning: bool) -> list[R.Supersession]:
    sets = [FACT_MEMO.get(f, "topic-sets", R._topic_sets) for f in facts]
    stats = T.TopicStats(sets)
    cand = _reference_candidates(stats)
    changed = np.asarray([bool(x[3]) for x in sets])
    vecs = R._meaning_vectors(facts, meaning)
    if vecs is not None and changed.any():
        cand |= _reference_change_pairs(stats, changed, vecs)
    out = []
    for i, j in sorted(cand):
        sup = R._topic_pair(facts, i, j, stats, vecs, changed.tolist())
        if sup is not None:
            out.append(sup)
    return out


def _key(items: list[R.Supersession]) -> list[tuple[Any, ...]]:
    return [(s.old.id, s.current.id, s.kind, s.evidence, s.certain) for s in items]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[Fact]:
    """The recall benchmark's generated store plus the demo home's facts, which hold topic
    pairs of every kind (changes stated, terms rejected, global defaults overridden)."""
    root = tmp_path_factory.mktemp("demo")
    report = build_demo_home(root / "home", root / "ws")
    demo = Store(Layout.resolve(home=report.root, workspace=report.workspace)).snapshot().facts
    return list(_bench("recall_bench").make_facts(1500, seed=11)) + list(demo)


def test_the_array_search_generates_exactly_the_pairs_of_the_set_search(generated: list[Fact]) -> None:
    sets = [FACT_MEMO.get(f, "topic-sets", R._topic_sets) for f in generated]
    ref = _reference_candidates(T.TopicStats(sets))
    codes = T.TopicStats(sets).candidates(0.2, 50, keep_all=True)
    n = len(generated)
    assert {(c // n, c % n) for c in codes.tolist()} == ref and len(codes) == len(ref) > 200


def test_blocks_give_the_same_pairs_as_one_block(generated: list[Fact], monkeypatch: pytest.MonkeyPatch) -> None:
    sets = [FACT_MEMO.get(f, "topic-sets", R._topic_sets) for f in generated]
    whole = T.TopicStats(sets).candidates(0.2, 50, keep_all=True)
    monkeypatch.setattr(T, "BLOCK_PAIRS", 7)
    assert np.array_equal(T.TopicStats(sets).candidates(0.2, 50, keep_all=True), whole)


def test_vectorised_covers_are_the_pair_measure(generated: list[Fact]) -> None:
    sets = [FACT_MEMO.get(f, "topic-sets", R._topic_sets) for f in generated]
    stats = T.TopicStats(sets)
    pairs = sorted(_reference_candidates(stats))[:3000]
    a = np.asarray([p[0] for p in pairs])
    b = np.asarray([p[1] for p in pairs])
    got = stats.covers(a, b)
    want = np.asarray([stats.cover(i, j) for i, j in pairs])
    assert np.allclose(got, want, rtol=0, atol=1e-12) and (want > 0).any()


@pytest.mark.parametrize("meaning", [False, True])
def test_topic_pairs_equal_the_search_before(generated: list[Fact], meaning: bool) -> None:
    facts = generated if not meaning else generated[-400:]
    want = _reference_pairs(facts, meaning)
    got = R.topic_pairs(facts, meaning=meaning)
    assert _key(got) == _key(want) and want


def test_a_store_where_label_terms_are_shared_widely_gives_the_answer_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Made-up topic terms shared by ~24 facts each (tens of thousands of candidate pairs,
    nearly all ruled out by the bound), in many small blocks."""
    facts = _bench("resolve_bench").synthetic_facts(800, R, M)
    want = _reference_pairs(facts, meaning=False)
    monkeypatch.setattr(T, "BLOCK_PAIRS", 500)
    sets = [FACT_MEMO.get(f, "topic-sets", R._topic_sets) for f in facts]
    assert len(_reference_candidates(T.TopicStats(sets))) > 10 * len(T.TopicStats(sets).candidates(0.2, 50))
    assert _key(R.topic_pairs(facts, meaning=False)) == _key(want) and len(want) >= 10


def test_decide_accepts_nothing_the_bound_drops() -> None:
    """Pairs the bound drops have no replacement clause between them, covers under
    ``MIN_COVER`` one way, and no change statement alike in meaning: ``decide`` must
    refuse every such evidence (this fails if ``decide`` learns to accept less)."""
    grid = np.linspace(0.0, 1.0, 21)
    for cover_old, cover_new, meaning in itertools.product(grid, grid, grid):
        lo = min(cover_old, cover_new)
        for changed, override, has_meaning in itertools.product((False, True), repeat=3):
            if lo >= T.MIN_COVER or (changed and meaning >= R.CHANGE_MEANING):
                continue
            ev = R.TopicEvidence(
                cover_old=float(cover_old),
                cover_new=float(cover_new),
                meaning=float(meaning),
                stated="",
                strong=False,
                changed=changed,
                has_meaning=has_meaning,
            )
            assert R.decide(ev, override=override) is None, ev


def _scratch(facts: list[Fact], monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The topic pairs of ``facts`` decided from scratch (a new decision memo)."""
    with monkeypatch.context() as m:
        m.setattr(R, "DECISIONS", T.DecisionMemo())
        return _key(R.topic_pairs(facts))


def test_after_a_write_a_delete_a_new_file_and_an_outside_edit_the_reused_answer_is_the_scratch_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonix_tui.core.store.requests import SaveRequest

    monkeypatch.setattr(R, "DECISIONS", T.DecisionMemo())
    report = build_demo_home(tmp_path / "home", tmp_path / "ws")
    layout = Layout.resolve(home=report.root, workspace=report.workspace)
    store = Store(layout)
    facts = list(store.snapshot().facts)
    first = _key(R.topic_pairs(facts))
    assert first == _scratch(facts, monkeypatch) and len(first) >= 2
    old_ids = {row[0] for row in first}
    target = next(f for f in facts if f.id not in old_ids and f.scope == "project" and f.path)

    def step() -> int:
        now = list(store.snapshot().facts)
        got = _key(R.topic_pairs(now))
        assert got == _scratch(now, monkeypatch)
        return R.DECISIONS.reused

    # a write through the store: the same number of facts, most decisions reused
    store.save(SaveRequest(name=target.name, description=target.description, body=target.body + "\nAlso: nightly."))
    assert step() > 0
    # an outside edit that makes a fact say another is replaced
    victim = next(f for f in facts if f.id in old_ids and f.path)
    Path(victim.path).write_text(Path(victim.path).read_text(encoding="utf-8") + "\nUpdated.\n", encoding="utf-8")
    assert step() > 0
    # a new file (one more fact: every idf moves, every pair decided again)
    text = Path(target.path).read_text(encoding="utf-8")
    Path(target.path).with_name("copy-of-" + Path(target.path).name).write_text(
        text.replace(f"name: {target.name}", f"name: copy-of-{target.name}").replace(target.id, "mem-copy0001"),
        encoding="utf-8",
    )
    assert step() == 0 and len(store.snapshot().facts) == len(facts) + 1
    # a delete
    store.archive(victim.id)
    step()
    assert len(store.snapshot().facts) == len(facts)


def test_a_fact_whose_label_term_changed_frequency_is_decided_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing one fact moves the idf of its old and new terms: every fact holding one of
    them as a label is dirty, the others are not."""
    from dataclasses import replace

    facts = _bench("resolve_bench").synthetic_facts(400, R, M)
    memo = T.DecisionMemo()
    monkeypatch.setattr(R, "DECISIONS", memo)
    R.topic_pairs(facts, meaning=False)
    edited = replace(facts[0], name="edited")
    sets0 = FACT_MEMO.get(facts[0], "topic-sets", R._topic_sets)
    sets5 = FACT_MEMO.get(facts[5], "topic-sets", R._topic_sets)
    FACT_MEMO.put(
        edited,
        "topic-sets",
        (sets0[0] | sets5[1], sets5[1], (), False, np.union1d(sets0[4], sets5[5]), sets5[5], sets0[6]),
    )
    now = [edited, *facts[1:]]
    stats = T.TopicStats([FACT_MEMO.get(f, "topic-sets", R._topic_sets) for f in now])
    dirty = memo._dirty(next(iter(memo._last.values())), now, stats)
    assert dirty is not None and dirty[0] and dirty[5]
    moved = sets5[1] - sets0[0]  # terms fact 0 now holds and did not
    holders = {i for i, f in enumerate(now) if FACT_MEMO.get(f, "topic-sets", R._topic_sets)[1] & moved}
    assert set(np.flatnonzero(dirty).tolist()) == holders | {0}
    assert _key(R.topic_pairs(now, meaning=False)) == _scratch_lexical(now, monkeypatch) and memo.reused > 0


def _scratch_lexical(facts: list[Fact], monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    with monkeypatch.context() as m:
        m.setattr(R, "DECISIONS", T.DecisionMemo())
        return _key(R.topic_pairs(facts, meaning=False))

"""Memory health's incremental paths answer exactly what a run from scratch does.

On the demo home (every kind of finding) four changes are made one after another — a write
through the store, a delete (archive), a new file written by hand, an edit of a file from
outside — and after each, both the Context Center's long-lived worker (same checker, same
store) and a new process starting from the state the worker saved *before* the change
return the findings of a run from scratch, field by field.
"""

from __future__ import annotations

import os

from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.health import HealthChecker, gather, memo_path
from reasonix_tui.core.health.similar import MeaningPairs, Verdicts
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall.memo import FACT_MEMO
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.fileformat import render_fact
from reasonix_tui.core.store.model import new_memory_id
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

NOW = Timestamp(1_785_000_000 * 1_000_000_000)  # 2026-07-25T17:20:00Z
SETTINGS = Settings(pinned_budget_chars=1500)


def _scratch(layout: Layout):
    FACT_MEMO.clear()
    return HealthChecker().report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS), now=NOW))


def _new_process(layout: Layout) -> tuple[HealthChecker, object]:
    FACT_MEMO.clear()  # new fact objects, nothing in memory: only the saved state
    checker = HealthChecker(memo_path(layout))
    return checker, checker.report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS), now=NOW))


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def test_a_write_a_delete_a_new_file_and_an_outside_edit_each_answer_like_a_run_from_scratch(tmp_path) -> None:
    from reasonix_tui.core.demo import build_demo_home

    demo = build_demo_home(tmp_path / "demo", now=NOW, with_approval=False)
    layout = Layout.resolve(home=demo.root, workspace=demo.workspace)
    store = Store(layout, settings=SETTINGS)
    worker = HealthChecker(memo_path(layout))
    ctx = gather(layout, SETTINGS, store, now=NOW)
    start = worker.report(ctx)
    worker.save()
    kinds = {f.kind for f in start.findings}
    assert {"near-duplicate", "topic-supersession", "never-recalled", "stale"} <= kinds

    def by_kind(report, kind):
        return next(f for f in report.findings if f.kind == kind)

    dup = by_kind(start, "near-duplicate")
    topic = by_kind(start, "topic-supersession")
    quiet = by_kind(start, "never-recalled").facts[0]
    changes = {
        "write": lambda: store.save(SaveRequest(name=_stem(quiet.path), description="Rewritten", body="Now new.")),
        "delete": lambda: store.archive(dup.facts[-1].id),
        "new file": lambda: _copy_as_new_file(layout, store, topic.facts[0].id),
        "outside edit": lambda: _edit_on_disk(topic.facts[1].path),
    }
    seen = {}
    for what, change in changes.items():
        change()
        scratch = _scratch(layout)
        fresh, cold = _new_process(layout)  # a process started after the change, from the state before it
        assert "pairs" not in fresh.reused, what
        assert cold.findings == scratch.findings, what
        warm = worker.report(gather(layout, SETTINGS, store, now=NOW))
        assert warm.findings == scratch.findings, what
        assert warm.facts == scratch.facts
        worker.save()
        seen[what] = scratch
    # each change did change the findings (the checks had something to patch)
    assert seen["delete"].findings != start.findings
    assert len(seen["new file"].findings) > len(seen["delete"].findings)
    assert any(f.kind == "secret" and f.facts[0].id == topic.facts[1].id for f in seen["outside edit"].findings)


def _copy_as_new_file(layout: Layout, store: Store, fact_id: str) -> None:
    """A fact file written by hand: another fact's text under a new id (a duplicate)."""
    from dataclasses import replace

    fact = store.get(fact_id)
    copy = replace(fact, id=new_memory_id(), name=fact.name + "-copy", path="", revision=1, supersedes=())
    (layout.dir_for(fact.scope) / f"{copy.name}.md").write_text(render_fact(copy), encoding="utf-8")


def _edit_on_disk(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.rstrip("\n") + "\n\nEdited by hand: the deploy key is AKIA" + "QWERTYUIOPASDFGH\n")


def test_meaning_pairs_after_a_change_equal_a_new_search_and_skip_pairs_judged_not_alike() -> None:
    """The near-duplicate pair search patched after a text changed holds the pairs a new
    search finds, and only the pairs not turned down yet are handed to the judge."""
    import numpy as np

    from reasonix_tui.core.health import similar

    rng = np.random.default_rng(3)
    base = rng.normal(size=(1, 8))
    vecs = base + 0.3 * rng.normal(size=(6, 8))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    keys = [bytes([i]) * 16 for i in range(6)]
    table = dict(zip(keys, vecs))

    class Patched(MeaningPairs):
        def _vectors(self, facts, keys):  # the vectors of the texts, not of a model
            return np.stack([table[k] for k in keys]).astype(np.float32)

    facts = [object()] * 6
    m = Patched(threshold=0.0)
    first = m.update(facts, keys)
    assert first and all(i < j for i, j, _ in first)
    # one text changes: the pairs of its old key go, its new row is computed
    table[b"z" * 16] = vecs[2]
    keys2 = [*keys[:2], b"z" * 16, *keys[3:]]
    patched = m.update(facts, keys2)
    assert m.computed == 1
    assert {(i, j) for i, j, _ in patched} == {(i, j) for i, j, _ in first}
    assert not any(keys[2] in p for p in m.pairs)
    # a pair judge turned down is not handed out again; forgetting it reopens it
    m.verdicts[(keys2[1], keys2[0])] = None
    assert (0, 1) not in {(i, j) for i, j, _ in m.update(facts, keys2, open_only=True)}
    assert (0, 1) in {(i, j) for i, j, _ in m.update(facts, keys2)}
    restored = Patched(threshold=0.0)
    assert restored.restore(m.state()) and isinstance(restored.verdicts, Verdicts)
    assert restored.verdicts.closed == {similar._pair(keys2[0], keys2[1])}
    m.verdicts.forget(similar._pair(keys2[0], keys2[1]))
    assert (0, 1) in {(i, j) for i, j, _ in m.update(facts, keys2, open_only=True)}


def test_the_saved_pair_search_keeps_its_vectors_so_a_new_process_embeds_only_what_changed(monkeypatch) -> None:
    """A restored search looks up the vector of a changed text only (not every fact's)."""
    import numpy as np

    from reasonix_tui.core.recall import fields

    rng = np.random.default_rng(5)
    vecs = rng.normal(size=(5, 8)).astype(np.float16).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs.astype(np.float16).astype(np.float32)
    asked: list[int] = []

    def fake_vectors(facts):
        asked.append(len(facts))
        return np.stack([vecs[f] for f in facts])

    monkeypatch.setattr(fields, "fact_vectors", fake_vectors)
    keys = [bytes([i]) * 16 for i in range(5)]
    first = MeaningPairs(threshold=0.0)
    before = first.update(list(range(5)), keys)
    assert asked == [5]
    again = MeaningPairs(threshold=0.0)
    assert again.restore(first.state())
    keys2 = [*keys[:4], b"n" * 16]
    vecs[4] = vecs[0]  # the changed text means what the first one does
    after = again.update(list(range(5)), keys2)
    assert asked == [5, 1]  # only the changed fact's vector
    assert {(i, j) for i, j, _ in after if 4 not in (i, j)} == {(i, j) for i, j, _ in before if 4 not in (i, j)}
    assert (0, 4) in {(i, j) for i, j, _ in after}


def _neighbour_pairs(m: MeaningPairs, keys: list[bytes], table: dict[bytes, object]) -> dict[tuple[int, int], float]:
    return {(i, j): c for i, j, c in m.update([None] * len(keys), keys)}


def test_the_nearest_neighbours_after_any_writes_equal_a_search_from_scratch() -> None:
    """Look-alike texts (a few tight clusters, every row full): new texts that are nearer to
    an old text than its last neighbour — written at any position, some replacing a text,
    some removing one — leave the incremental pairs equal to a search from scratch of the
    same texts (same pairs, same cosines). Before, an old row was never computed again, so
    a new near-duplicate of an old fact that was not among the new fact's own nearest
    neighbours was missed."""
    import numpy as np

    rng = np.random.default_rng(11)
    centres = rng.normal(size=(4, 16))
    table: dict[bytes, np.ndarray] = {}

    def text(c: int, spread: float) -> bytes:
        v = centres[c] + spread * rng.normal(size=16)
        key = rng.bytes(16)
        table[key] = (v / np.linalg.norm(v)).astype(np.float16).astype(np.float32)
        return key

    class Patched(MeaningPairs):
        def _vectors(self, facts, keys):
            return np.stack([table[k] for k in keys])

    keys = [text(i % 4, 0.35) for i in range(48)]
    live = Patched()
    live.update([None] * len(keys), keys)
    for step in range(30):
        op = step % 3
        if op == 0:  # a near-duplicate of an old text, written where its name sorts
            old = table[keys[int(rng.integers(len(keys)))]]
            key = rng.bytes(16)
            v = old + 0.05 * rng.normal(size=16)
            table[key] = (v / np.linalg.norm(v)).astype(np.float16).astype(np.float32)
            keys.insert(int(rng.integers(len(keys) + 1)), key)
        elif op == 1:  # a text rewritten
            keys[int(rng.integers(len(keys)))] = text(int(rng.integers(4)), 0.2)
        else:  # a text removed
            keys.pop(int(rng.integers(len(keys))))
        got = _neighbour_pairs(live, keys, table)
        want = _neighbour_pairs(Patched(), keys, table)
        assert got == want, step
    restored = Patched()
    assert restored.restore(live.state()) and restored.computed == 0
    assert _neighbour_pairs(restored, keys, table) == want and restored.computed == 0

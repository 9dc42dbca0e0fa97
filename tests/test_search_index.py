"""The on-disk search index of one-shot ``memory search``: the same answers as a full load."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from cli_exe import exe

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import search_index
from reasonix_tui.core.recall.memory_tool import search_memories
from reasonix_tui.core.recall.search_index import index_path, search_from_disk
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

WORDS = "deploy cache redis helm chart canary retry queue worker lint build pnpm staging token the we use".split()
QUERIES = [
    "deploy",
    "redis cache",
    "how do we use helm for the canary",
    "pnpm",
    "staging token retry",
    "queue worker lint build",
    "nothing-matches-this",
    "the",
    "npm install",
    "package manager",
]


def seeded(layout: Layout, n: int = 40, seed: int = 3) -> Store:
    r = random.Random(seed)
    store = Store(layout)
    for i in range(n):
        store.save(
            SaveRequest(
                name=f"{r.choice(WORDS)}-{i}",
                type=r.choice(("project", "reference")),
                scope="global" if i % 6 == 0 else "project",
                description=" ".join(r.sample(WORDS, 3)),
                body=" ".join(r.choice(WORDS) for _ in range(r.randint(4, 30))),
            )
        )
    # a global fact that a project fact on the same subject supersedes (enhanced search labels it)
    store.save(
        SaveRequest(
            name="pkg-manager-global",
            scope="global",
            type="user",
            subject_key="tooling.pkg_manager",
            description="package manager is npm",
            body="use npm install for the pnpm-free repos",
        )
    )
    store.save(
        SaveRequest(
            name="pkg-manager",
            type="project",
            subject_key="tooling.pkg_manager",
            description="package manager is pnpm",
            body="use pnpm install, never npm",
        )
    )
    return store


def same_answers(store: Store) -> None:
    """Exact and enhanced (labels of superseded facts) answers equal a full load's."""
    labelled = 0
    for resolved in (False, True):
        for q in QUERIES:
            for limit in (0, 3):
                want = search_memories(Store(store.layout).snapshot().facts, q, limit=limit, resolved=resolved)
                got = search_from_disk(Store(store.layout), q, limit=limit, resolved=resolved)
                assert [(h.fact, h.score, h.snippet, h.superseded) for h in got] == [
                    (h.fact, h.score, h.snippet, h.superseded) for h in want
                ], (q, resolved)
                labelled += sum(1 for h in got if h.superseded)
    assert labelled  # the superseded global fact was labelled somewhere


def no_full_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on a search that loads every fact fails the test."""

    def refuse(self: Store) -> None:
        raise AssertionError("loaded every fact")

    monkeypatch.setattr(Store, "snapshot", refuse)


def test_same_answers_and_no_full_load_when_nothing_changed(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    store = seeded(layout)
    same_answers(store)  # builds the index
    path = Path(index_path(store))
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    want = {q: [(h.fact, h.score) for h in search_memories(store.snapshot().facts, q)] for q in QUERIES}
    no_full_load(monkeypatch)
    for q in QUERIES:
        assert [(h.fact, h.score) for h in search_from_disk(Store(layout), q)] == want[q]


def test_outside_changes_patch_the_index_without_a_full_load(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    store = seeded(layout)
    same_answers(store)
    files = sorted(p for p in layout.project_dir.glob("*.md") if p.name != "MEMORY.md")
    with open(files[0], "a", encoding="utf-8") as fh:  # in place
        fh.write("zyxappended redis\n")
    files[1].unlink()
    os.rename(files[2], layout.project_dir / "renamed-by-hand.md")
    (layout.project_dir / "new-by-hand.md").write_text(
        "---\nname: new-by-hand\ndescription: helm canary staging\n---\n\nzyxcreated deploy\n", encoding="utf-8"
    )
    Store(layout).save(SaveRequest(name="written-by-the-cli", type="project", description="redis", body="cache"))
    with monkeypatch.context() as m:
        no_full_load(m)
        assert search_from_disk(Store(layout), "zyxappended")[0].fact.path == str(files[0])
        assert search_from_disk(Store(layout), "zyxcreated")[0].fact.name == "new-by-hand"
    same_answers(store)


def test_many_changes_rebuild_and_a_damaged_index_is_ignored(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    store = seeded(layout)
    same_answers(store)
    for f in sorted(p for p in layout.project_dir.glob("*.md") if p.name not in ("MEMORY.md", "pkg-manager.md"))[:25]:
        f.unlink()
    same_answers(store)
    path = Path(index_path(store))
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))  # torn or tampered: never trusted
    same_answers(store)
    monkeypatch.setattr(search_index, "VERSION", "other-code")
    same_answers(store)  # another version of the code: rebuilt


def test_filters_symlinks_and_bad_queries_take_the_full_path(layout: Layout, tmp_path: Path) -> None:
    store = seeded(layout)
    for kwargs in ({"type_": "project"}, {"scope": "global"}):
        want = search_memories(store.snapshot().facts, "deploy", **kwargs)  # type: ignore[arg-type]
        assert [h.fact for h in search_from_disk(Store(layout), "deploy", **kwargs)] == [h.fact for h in want]  # type: ignore[arg-type]
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: outside\ndescription: deploy\n---\nbody\n", encoding="utf-8")
    os.symlink(outside, layout.project_dir / "outside.md")
    assert [h.fact for h in search_from_disk(Store(layout), "deploy")] == [
        h.fact for h in search_memories(Store(layout).snapshot().facts, "deploy")
    ]
    for bad in ("", "   ", "!!!"):
        with pytest.raises(Exception) as want_exc:
            search_memories(store.snapshot().facts, bad)
        with pytest.raises(type(want_exc.value), match=str(want_exc.value)):
            search_from_disk(Store(layout), bad)


def test_cli_memory_search_uses_and_writes_the_index(layout: Layout) -> None:
    seeded(layout)
    cmd = [*exe(), "--home", str(layout.root), "--workspace", str(layout.workspace), "memory", "search", "redis"]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout
    assert Path(index_path(Store(layout))).exists()
    second = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout
    assert first == second and "Memory search results" in first


def test_a_warm_index_derived_after_changes_answers_like_one_built_from_scratch(layout: Layout) -> None:
    from dataclasses import replace

    from reasonix_tui.core.recall.term_matrix import _WARM, clear_warm_search, warm_search

    store = seeded(layout, 100)
    before = store.snapshot().facts
    clear_warm_search()
    warm_search(before)
    r = random.Random(5)
    facts = list(before)
    for i in r.sample(range(len(facts)), 4):  # edited (new objects), one emptied of every token
        facts[i] = replace(facts[i], body=facts[i].body + " zyxchanged redis", revision=facts[i].revision + 1)
    facts[7] = replace(facts[7], name="!!!", title="", description="", keywords="", body="")
    del facts[10:13]  # deleted
    facts.append(replace(before[0], id="mem-new", name="brand-new", body="helm canary zyxchanged"))  # new
    after = tuple(facts)
    patches = _WARM.patches

    def answers() -> dict[tuple[str, bool], list[tuple[object, ...]]]:
        return {
            (q, r): [(h.fact, h.score, h.snippet, h.superseded) for h in search_memories(after, q, resolved=r)]
            for q in [*QUERIES, "zyxchanged"]
            for r in (False, True)
        }

    derived = answers()
    assert _WARM.patches == patches + 1  # derived from the previous snapshot's matrix, not rebuilt
    clear_warm_search()
    fresh = answers()
    assert derived == fresh
    derived = {q: v for (q, r), v in derived.items() if not r}
    assert any(h[0].name == "brand-new" for h in derived["zyxchanged"])


def test_a_long_lived_process_starts_its_warm_search_from_the_disk_index(layout: Layout) -> None:
    from reasonix_tui.core.recall.search_index import seed_from_disk
    from reasonix_tui.core.recall.term_matrix import _WARM, clear_warm_search
    from reasonix_tui.core.store.live import LiveStore

    seeded(layout, 30)
    search_from_disk(Store(layout), "redis")  # a one-shot search wrote the index
    live = LiveStore(layout, watch=False)
    clear_warm_search()
    assert seed_from_disk(live)
    seeded_matrix = _WARM.matrix
    answers = {q: [(h.fact, h.score, h.snippet) for h in search_memories(live.snapshot().facts, q)] for q in QUERIES}
    assert _WARM.matrix is seeded_matrix  # answered from the disk index's matrix
    clear_warm_search()
    assert answers == {
        q: [(h.fact, h.score, h.snippet) for h in search_memories(live.snapshot().facts, q)] for q in QUERIES
    }
    with open(
        sorted(p for p in layout.global_dir.glob("*.md") if p.name != "MEMORY.md")[0], "a", encoding="utf-8"
    ) as fh:
        fh.write("changed since the index was written\n")
    clear_warm_search()
    assert not seed_from_disk(live)  # the index no longer matches the files: not used

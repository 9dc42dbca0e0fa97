"""The retrieval suite's blind part: present in the runner, valid, big enough (no recall is run)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from script_modules import retrieval_runner


def _runner() -> ModuleType:
    return retrieval_runner()


@pytest.mark.parametrize("part", ["blind", "blind2"])
def test_blind_is_a_part_between_realistic_and_regression(part: str) -> None:
    run = _runner()
    assert run.PARTS[:4] == ("realistic", "blind", "blind2", "regression")  # then memorybench
    blind = run.load_all(part)
    assert blind and {t.part for t in blind} == {part}
    everything = run.load_all("")
    parts = [t.part for t in everything]
    assert parts == sorted(parts, key=run.PARTS.index)
    assert sum(p == part for p in parts) == len(blind)


@pytest.mark.parametrize("part", ["blind", "blind2"])
def test_blind_part_is_valid_and_covers_every_class(part: str) -> None:
    """At least 66 tasks over three or more stores of 20-40 facts, every class about equally,
    generic and irrelevant turns silent, every task valid."""
    run = _runner()
    tasks = run.load_store_tasks(run.BLIND_DIR if part == "blind" else run.BLIND2_DIR, part)
    assert len(tasks) >= 66
    assert all(not run.validate(t) for t in tasks), {t.id: run.validate(t) for t in tasks if run.validate(t)}
    assert len({t.id for t in tasks}) == len(tasks)
    stores = {t.store: len(t.facts) for t in tasks}
    assert len(stores) >= 3 and all(20 <= n <= 40 for n in stores.values()), stores
    per_class = {c: sum(t.cls == c for t in tasks) for c in run.REALISTIC_CLASSES}
    assert min(per_class.values()) >= 5 and max(per_class.values()) <= 2 * min(per_class.values()), per_class
    assert all(t.expect.get("silent") for t in tasks if t.cls in ("generic", "irrelevant"))


def test_parts_with_a_store_of_the_same_name_do_not_share_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stores are built per part: a blind store never reuses a realistic store's facts."""
    run = _runner()
    fact = {"id": "mem-a", "name": "a", "description": "alpha", "body": "alpha"}
    other = {"id": "mem-b", "name": "b", "description": "beta", "body": "beta"}
    now = run.parse_rfc3339(run.DEFAULT_NOW)
    tasks = [
        run.Task(
            id="r",
            cls="literal",
            query="alpha",
            facts=[fact],
            expect={"select": ["mem-a"]},
            now=now,
            part="realistic",
            store="same",
        ),
        run.Task(
            id="b",
            cls="literal",
            query="beta",
            facts=[other],
            expect={"select": ["mem-b"]},
            now=now,
            part="blind",
            store="same",
        ),
    ]
    built: list[list[str]] = []
    real_build = run.build_facts

    def recording_build(task: Any, root: Path) -> Any:
        layout, facts = real_build(task, root)
        built.append(sorted(str(f.id) for f in facts))
        return layout, facts

    monkeypatch.setattr(run, "build_facts", recording_build)
    run.run_suite(tasks)
    assert built == [["mem-a"], ["mem-b"]]


def _valid_store_part(part: str, position: int, min_tasks: int) -> list[Any]:
    """The tasks of a realistic part after the first ``position`` of the runner's parts: at least
    ``min_tasks``, each valid, over stores of 20–40 facts, every generic and irrelevant turn
    expected silent."""
    run = _runner()
    assert part in run.PARTS[position:] and part in run.STORE_PARTS
    tasks = run.load_all(part)
    assert len(tasks) >= min_tasks and {t.part for t in tasks} == {part}
    assert all(not run.validate(t) for t in tasks), {t.id: run.validate(t) for t in tasks if run.validate(t)}
    assert all(20 <= len(t.facts) <= 40 for t in tasks)
    assert all(t.expect.get("silent") for t in tasks if t.cls in ("generic", "irrelevant"))
    return list(tasks)


def test_realistic3_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("realistic3", 5, 40)
    assert len({t.store for t in tasks}) >= 2


def test_realistic4_is_a_valid_store_part_after_the_others() -> None:
    _valid_store_part("realistic4", 5, 30)


def test_zh5_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("zh5", 5, 20)
    assert sum(t.cls in ("generic", "irrelevant") for t in tasks) >= 6


def test_override5_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("override5", 5, 20)
    assert len({t.store for t in tasks}) >= 2
    # every kind the part is for: overrides, defaults that must stay, supersession, session start
    assert {"override", "supersession", "session-start"} <= {t.cls for t in tasks}
    assert any(t.cls == "override" and t.expect.get("pinned") for t in tasks)


def test_paraphrase5_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("paraphrase5", 5, 20)
    by_class = {c: sum(t.cls == c for t in tasks) for c in ("paraphrase", "generic", "irrelevant")}
    assert by_class["paraphrase"] >= 12 and by_class["generic"] >= 8 and by_class["irrelevant"] >= 6


def test_zh6_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("zh6", 5, 30)
    assert sum(t.cls in ("generic", "irrelevant") for t in tasks) >= 8
    assert sum(t.cls == "xlang-zh-en" for t in tasks) >= 12


def test_precision6_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("precision6", 5, 30)
    assert len({t.store for t in tasks}) >= 2
    # generic turns that must stay silent, and short real questions that must still recall
    assert sum(t.cls == "generic" for t in tasks) >= 12
    assert {"override", "supersession", "literal"} <= {t.cls for t in tasks}


def test_resolve7_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("resolve7", 5, 30)
    # overrides (and a default that stays), changes without a replace verb, silent turns
    assert sum(t.cls == "override" for t in tasks) >= 8
    assert sum(t.cls == "supersession" for t in tasks) >= 5
    assert sum(t.cls in ("generic", "irrelevant") for t in tasks) >= 10


def test_morph6_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("morph6", 5, 30)
    by_class = {c: sum(t.cls == c for t in tasks) for c in ("morphology", "paraphrase", "generic", "irrelevant")}
    assert by_class["morphology"] >= 8 and by_class["paraphrase"] >= 8
    assert by_class["generic"] + by_class["irrelevant"] >= 10


def test_override8_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("override8", 5, 40)
    assert len({t.store for t in tasks}) >= 3
    # overrides, defaults that must stay (another role), session start in every store
    assert sum(t.cls == "override" for t in tasks) >= 20
    assert sum(t.cls == "override" and bool(t.expect.get("pinned")) for t in tasks) >= 6
    assert sum(t.cls == "session-start" for t in tasks) >= 3
    assert sum(t.cls in ("generic", "irrelevant") for t in tasks) >= 6


def test_zh7_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("zh7", 5, 40)
    assert len({t.store for t in tasks}) >= 3
    assert sum(t.cls == "xlang-zh-en" for t in tasks) >= 40
    assert sum(t.cls in ("generic", "irrelevant") for t in tasks) >= 12
    # no writer of these stores added keywords
    assert not any(f.get("keywords") for t in tasks for f in t.facts)


def test_rank8_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("rank8", 5, 30)
    assert len({t.store for t in tasks}) >= 2
    # title-rank (incl. head-noun questions) and literal turns all name the fact that must be first
    assert sum(t.cls == "title-rank" for t in tasks) >= 12 and sum(t.cls == "literal" for t in tasks) >= 12
    assert all(t.expect.get("first") for t in tasks if t.cls in ("title-rank", "literal"))
    assert sum(t.cls in ("generic", "irrelevant") for t in tasks) >= 6


def test_paraphrase8_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("paraphrase8", 5, 40)
    assert len({t.store for t in tasks}) >= 2
    by_class = {c: sum(t.cls == c for t in tasks) for c in ("paraphrase", "literal", "generic", "irrelevant")}
    assert by_class["paraphrase"] >= 30 and by_class["literal"] >= 4
    assert by_class["generic"] >= 8 and by_class["irrelevant"] >= 8


def test_synonym8_is_a_valid_store_part_after_the_others() -> None:
    tasks = _valid_store_part("synonym8", 5, 40)
    assert len({t.store for t in tasks}) >= 2
    by_class = {c: sum(t.cls == c for t in tasks) for c in ("paraphrase", "generic", "irrelevant")}
    assert by_class["paraphrase"] >= 40 and by_class["generic"] + by_class["irrelevant"] >= 12


def test_summary_output_names_no_task(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--summary`` prints per-class totals only: a held-out part's task ids never show."""
    run = _runner()
    now = run.parse_rfc3339(run.DEFAULT_NOW)
    fact = {"id": "mem-a", "name": "a", "description": "alpha", "body": "alpha"}
    tasks = [
        run.Task(
            id="secret-task-id",
            cls="literal",
            query="gamma",
            facts=[fact],
            expect={"select": ["mem-a"]},
            now=now,
            part="blind",
            store="s",
        )
    ]
    monkeypatch.setattr(run, "load_all", lambda part="": tasks)
    assert run.main(["--part", "blind", "--summary"]) == 0
    out = capsys.readouterr().out
    assert "TOTAL" in out and "literal" in out and "secret-task-id" not in out
    assert run.main(["--part", "blind"]) == 0
    assert "secret-task-id" in capsys.readouterr().out

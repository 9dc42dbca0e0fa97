"""The parse cache's rows and the store's load order: a fact rebuilt from its row (slot by
slot, without the constructor) is the fact that was written, field for field; a row that
is not what ``fact_to_row`` writes is refused; and the cheaper orderings (names compared
as strings, not as bytes) give the byte order the store promises."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import pytest

from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.cache import _FIELDS, fact_from_row, fact_to_row
from reasonix_tui.core.store.model import Fact, FactId
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.scan import fact_entries, scan_fact_entries
from reasonix_tui.core.store.store import Store

T1, T2 = Timestamp(1_700_000_000_000_000_001), Timestamp(1_800_000_000_000_000_002)

FACTS = [
    Fact(id=FactId("mem-1"), revision=1, created_at=None, updated_at=None, name="a"),
    Fact(
        id=FactId("mem-2"),
        revision=7,
        created_at=T1,
        updated_at=T2,
        name="deploy-target",
        title="Deploy",
        description="how we deploy",
        keywords="helm argo",
        activation="always",
        volatility="volatile",
        subject_key="deploy.target",
        expires_at=T2,
        last_verified_at=T1,
        type="reference",
        scope="global",
        body="Helm 3 only. 缓存",
        file_scope="global",
        supersedes=("mem-0", "old-deploy"),
        extra=(("owner", "ops"), ("team", "infra")),
        path="/x/deploy-target.md",
        raw_times=(("created_at", "2023-11-14T22:13:20Z"), ("updated_at", "bad")),
        parse_error="yaml: line 2",
        encoding="lossy-utf-8",
    ),
    Fact(id=FactId("mem-3"), revision=2, created_at=T1, updated_at=T1, name="same-times"),
]


def test_the_row_names_every_field_of_a_fact_in_order() -> None:
    assert _FIELDS == tuple(f.name for f in dataclasses.fields(Fact))


@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f.name)
def test_a_fact_rebuilt_from_its_row_is_the_fact_field_for_field(fact: Fact) -> None:
    got = fact_from_row(fact_to_row(fact))
    assert type(got) is Fact and got == fact and hash(got) == hash(fact)
    for f in dataclasses.fields(Fact):
        mine, want = getattr(got, f.name), getattr(fact, f.name)
        assert mine == want and type(mine) is type(want), f.name
    assert got.created_at is None or type(got.created_at) is Timestamp
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.name = "x"  # type: ignore[misc]  # still frozen


def _changed(row: tuple[object, ...], i: int, value: object) -> tuple[object, ...]:
    return row[:i] + (value,) + row[i + 1 :]


@pytest.mark.parametrize(
    "bad",
    [
        list(fact_to_row(FACTS[1])),  # a list: not what this version writes
        fact_to_row(FACTS[1])[:-1],  # too short
        fact_to_row(FACTS[1]) + ("",),  # too long
        _changed(fact_to_row(FACTS[1]), 0, 7),  # id not a string
        _changed(fact_to_row(FACTS[1]), 15, None),  # body not a string
        _changed(fact_to_row(FACTS[1]), 1, True),  # revision a bool
        _changed(fact_to_row(FACTS[1]), 1, 0),  # revision below 1
        _changed(fact_to_row(FACTS[1]), 2, "2023"),  # timestamp a string
        _changed(fact_to_row(FACTS[1]), 17, ["mem-0"]),  # supersedes a list
        "not a row",
    ],
)
def test_a_row_this_version_does_not_write_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        fact_from_row(bad)


def test_names_compared_as_strings_keep_the_byte_order_of_list_all(layout: Layout) -> None:
    """ListAll sorts by the name's UTF-8 bytes; comparing the strings gives the same order
    (also for lone surrogates, which encode in code-point order too)."""
    names = ["b", "B", "é", "e", "😀", "\uffff", "\ud800x", "\udcff", "a-b", "a_b", "a", "z"]
    facts = [
        Fact(id=FactId(f"mem-{i}"), revision=1, created_at=None, updated_at=None, name=n) for i, n in enumerate(names)
    ]
    by_bytes = sorted(facts, key=lambda f: (f.name.encode("utf-8", "surrogatepass"), f.scope, f.id))
    from reasonix_tui.core.store.reading import _LIST_ALL_ORDER

    assert sorted(facts, key=_LIST_ALL_ORDER) == by_bytes


@pytest.mark.skipif(sys.platform != "linux", reason="file names with undecodable bytes")
def test_folder_entries_come_in_byte_order_also_with_undecodable_names(tmp_path: Path) -> None:
    folder = tmp_path / "facts"
    folder.mkdir()
    raw = [b"b.md", b"B.md", "é.md".encode(), b"e.md", "😀.md".encode(), b"a-b.md", b"a_b.md", b"z.md"]
    for name in raw:
        (folder / os.fsdecode(name)).write_text("x", encoding="utf-8")
    want = [os.path.join(str(folder), os.fsdecode(n)) for n in sorted(raw)]
    assert [p for p, _n, _st, _e in fact_entries(folder)] == want
    (folder / os.fsdecode(b"\xff\xfe.md")).write_text("x", encoding="utf-8")  # not UTF-8
    raw.append(b"\xff\xfe.md")
    want = [os.path.join(str(folder), os.fsdecode(n)) for n in sorted(raw)]
    assert [e.path for e in scan_fact_entries("project", folder)] == want


def test_a_store_loaded_through_the_cache_is_the_store_parsed_afresh(layout: Layout) -> None:
    store = Store(layout)
    for i in range(6):
        store.save(SaveRequest(name=f"fact-{i}", type="project", description=f"about {i}", body=f"body {i} 缓存"))
    store.save(SaveRequest(name="who", type="user", description="a global one", body="me"))
    fresh = Store(layout, use_cache=False).list_all()
    first = Store(layout).list_all()  # writes the cache
    cached = Store(layout).list_all()  # reads it
    assert cached == first and [f.path for f in cached] == [f.path for f in first]
    assert all(a.raw_times == b.raw_times for a, b in zip(cached, first))
    assert cached == fresh


def test_list_all_orders_a_name_held_twice_by_scope_then_id(layout: Layout) -> None:
    """The load sorts by name alone and sorts again by (name, scope, id) only when a name
    is held by more than one fact: the same order in both cases, cached or parsed afresh."""
    from reasonix_tui.core.store.fileformat import render_fact

    layout.project_dir.mkdir(parents=True, exist_ok=True)
    layout.global_dir.mkdir(parents=True, exist_ok=True)
    files = [  # (folder, file stem, name, id): "dup" twice in the project folder, once in global
        (layout.project_dir, "a", "dup", "mem-9"),
        (layout.project_dir, "b", "dup", "mem-1"),
        (layout.project_dir, "c", "zeta", "mem-5"),
        (layout.global_dir, "dup", "dup", "mem-7"),
        (layout.global_dir, "alpha", "alpha", "mem-3"),
    ]
    for folder, stem, name, fid in files:
        scope = "global" if folder == layout.global_dir else "project"
        fact = Fact(id=FactId(fid), revision=1, created_at=T1, updated_at=T1, name=name, scope=scope)
        (folder / f"{stem}.md").write_text(render_fact(fact), encoding="utf-8")
    want = [("alpha", "global", "mem-3"), ("dup", "global", "mem-7"), ("dup", "project", "mem-1")]
    want += [("dup", "project", "mem-9"), ("zeta", "project", "mem-5")]
    for use_cache in (False, True, True):  # parsed, then written to the cache, then read from it
        got = Store(layout, use_cache=use_cache).list_all()
        assert [(f.name, f.scope, f.id) for f in got] == want


_LONG_LIVED_PAUSE = """
import gc
from reasonix_tui.core.store.sealed import collector_paused

assert gc.isenabled() and gc.get_freeze_count() == 0
with collector_paused(long_lived=True):
    made = [[i] for i in range(1000)]
assert gc.isenabled() and gc.get_freeze_count() == 0
oldest = {id(o) for o in gc.get_objects(generation=2)}
assert all(id(o) in oldest for o in made) and made[999] == [999]

with collector_paused():
    with collector_paused(long_lived=True):
        inner = [[1]]
    assert not gc.isenabled() and gc.get_freeze_count() == 0
assert gc.isenabled()

gc.freeze()
frozen = gc.get_freeze_count()
with collector_paused(long_lived=True):
    more = [[i] for i in range(10)]
assert gc.get_freeze_count() == frozen and gc.isenabled()
print("ok")
"""


def test_a_long_lived_pause_moves_what_it_made_to_the_oldest_generation() -> None:
    """``collector_paused(long_lived=True)``: the collector is back on after the outermost
    pause, the objects made are alive and in the oldest generation (no young collection
    walks them again); an inner pause changes nothing; objects the process froze stay
    frozen. In a fresh interpreter: the collector's generations are process-wide."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", _LONG_LIVED_PAUSE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr

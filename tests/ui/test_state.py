"""The Context Center's data layer (no terminal): rows, freshness, the row cache, diffs."""

from __future__ import annotations

import itertools
from pathlib import Path

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.freshness import freshness_for
from reasonix_tui.core.store.model import Fact, FactId
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.tui.model.loader import load_snapshot, row_cache_path, save_row_cache
from reasonix_tui.tui.model.rows import fact_row, freshness_label
from reasonix_tui.tui.model.snapshot import LazyFacts, diff_snapshots

from .helpers import NOW, facts_table_app, settings, store


def test_freshness_label_matches_the_core_rule() -> None:
    day = DAY_NS
    times = [
        None,
        NOW.ns - 400 * day,
        NOW.ns - 100 * day,
        NOW.ns - 40 * day,
        NOW.ns - 10 * day,
        NOW.ns - 3 * day,
        NOW.ns + day,
    ]
    for type_, vol, updated, verified, expires in itertools.product(
        ("project", "reference", "user", "feedback"),
        ("", "evergreen", "stable", "volatile"),
        times,
        times[:3],
        (None, NOW.ns - day, NOW.ns, NOW.ns + day),
    ):
        fact = Fact(
            id=FactId("mem-x"),
            revision=1,
            created_at=None,
            updated_at=Timestamp(updated) if updated else None,
            name="x",
            type=type_,
            volatility=vol,
            last_verified_at=Timestamp(verified) if verified else None,
            expires_at=Timestamp(expires) if expires is not None else None,
        )
        start = fact.clock_start
        got = freshness_label(type_, vol, expires, start.ns if start else None, NOW.ns)
        assert got == freshness_for(fact, NOW), (type_, vol, updated, verified, expires)


def test_row_cache_gives_the_same_rows_without_parsing(demo: Layout, monkeypatch) -> None:
    first = load_snapshot(demo, settings(), NOW)
    assert first.cache_dirty
    save_row_cache(demo, first)
    assert row_cache_path(demo).exists()
    parsed: list[str] = []
    import reasonix_tui.tui.model.loader as loader
    import reasonix_tui.tui.model.snapshot as snapshot_mod

    real = loader.read_fact_file
    for module in (loader, snapshot_mod):  # the loader reads changed files; the snapshot parses lazily
        monkeypatch.setattr(module, "read_fact_file", lambda path, *args: parsed.append(path) or real(path, *args))
    second = load_snapshot(demo, settings(), NOW)
    assert parsed == []  # everything came from the cache
    assert dict(second.rows) == dict(first.rows)
    assert not second.cache_dirty
    # Facts are parsed on demand, and equal what the store reads.
    key = next(k for k, r in second.rows.items() if r.ref == "project/deploy-target.md")
    assert second.facts[key] == store(demo).get("project/deploy-target.md")
    assert parsed and isinstance(second.facts, LazyFacts)
    # A file changed on disk is parsed again (its stat signature moved).
    fact = store(demo).get("project/oncall-rota.md")
    store(demo).save(SaveRequest.from_fact(fact, title="Rota v2"))
    third = load_snapshot(demo, settings(), NOW)
    changes = diff_snapshots(second, third)
    assert changes.changed == {str(fact.id)}
    assert third.rows[str(fact.id)].title == "Rota v2"


def test_rows_match_the_store(demo: Layout) -> None:
    snap = load_snapshot(demo, settings(), NOW, use_cache=False)
    facts = store(demo).list_all()
    assert {str(f.id) for f in facts} == set(snap.facts)
    for fact in facts:
        assert snap.rows[str(fact.id)] == fact_row(fact, NOW)
    assert snap.pinned_chars == sum(len(f.body.strip()) for f in facts if f.pinned and f.body.strip())


def test_corrupt_row_cache_is_ignored(demo: Layout) -> None:
    path = row_cache_path(demo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00garbage")
    snap = load_snapshot(demo, settings(), NOW)
    assert len(snap.facts) == 22


def test_symlink_out_of_the_store_is_an_error_row(demo: Layout, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: outside\n---\nsecret\n", encoding="utf-8")
    (demo.project_dir / "outside.md").symlink_to(outside)
    snap = load_snapshot(demo, settings(), NOW)
    assert any(r.error and "outside the store" in r.error for r in snap.rows.values())
    assert not any(r.ref == "project/outside.md" for r in snap.rows.values() if not r.error)


def test_identity_index_gives_the_same_overrides_and_holders(demo: Layout) -> None:
    from reasonix_tui.tui.model.loader import update_snapshot
    from reasonix_tui.tui.model.snapshot import with_identity_index

    snap = load_snapshot(demo, settings(), NOW)
    keys = list(snap.facts)
    before = {
        k: ([(o.id, why) for o, why in snap.overrides(snap.facts[k])], snap.subject_holder(snap.facts[k])) for k in keys
    }
    indexed = with_identity_index(snap)
    assert snap.identity is None and indexed.identity is not None  # a copy: the snapshot itself is untouched
    assert indexed.generation == snap.generation
    after = {
        k: ([(o.id, why) for o, why in indexed.overrides(indexed.facts[k])], indexed.subject_holder(indexed.facts[k]))
        for k in keys
    }
    assert before == after
    assert any(o for o, _ in before.values())  # the demo has a project-over-global override
    # Patched after an incremental update: a new project fact takes over a global subject.
    saved = store(demo).save(
        SaveRequest(
            name="project/deploy-target-global", description="Here: Fly", body="Fly.", type="project", scope="project"
        )
    )
    nxt = update_snapshot(indexed, demo, settings(), NOW, [saved.fact.path])
    assert nxt is not None
    nxt = with_identity_index(nxt, indexed, diff_snapshots(indexed, nxt))
    patched = nxt.overrides(nxt.facts[str(saved.fact.id)])
    fresh = load_snapshot(demo, settings(), NOW)
    assert [(o.id, w) for o, w in patched] == [(o.id, w) for o, w in fresh.overrides(fresh.facts[str(saved.fact.id)])]
    assert patched


def test_a_diff_names_its_base_by_generation(demo: Layout) -> None:
    """An incremental update records its base's generation; a copy of the base (the same
    generation, e.g. carrying its identity index) still gets the touched-keys diff, and a
    snapshot of another generation gets the full comparison."""
    from dataclasses import replace

    from reasonix_tui.tui.model.loader import update_snapshot
    from reasonix_tui.tui.model.snapshot import with_identity_index

    base = load_snapshot(demo, settings(), NOW)
    other = load_snapshot(demo, settings(), NOW)
    assert 0 < base.generation < other.generation
    saved = store(demo).save(SaveRequest(name="gen-test", description="d", body="b", scope="project"))
    nxt = update_snapshot(base, demo, settings(), NOW, [saved.fact.path])
    assert nxt is not None and nxt.derived_from == base.generation and nxt.generation > other.generation
    copy = with_identity_index(base)
    fast = diff_snapshots(copy, nxt)
    assert fast.added == frozenset({str(saved.fact.id)}) and not fast.full
    # The fast path trusts ``touched``: a forged one shows it is the path taken for the base's copy only.
    forged = replace(nxt, touched=frozenset())
    assert diff_snapshots(copy, forged).empty
    assert diff_snapshots(other, forged).added == frozenset({str(saved.fact.id)})


async def test_table_reinsert_equals_full_sort(demo: Layout) -> None:
    """Incremental re-insertion gives exactly the order of a full sort, for every column and direction."""

    from reasonix_tui.tui.model.snapshot import Changes
    from reasonix_tui.tui.widgets.facts_columns import COLUMNS
    from reasonix_tui.tui.widgets.facts_table import FactsTable

    base = load_snapshot(demo, settings(), NOW)

    app = facts_table_app()
    async with app.run_test(size=(120, 30)):
        table = app.query_one(FactsTable)
        rows = dict(base.rows)
        keys = [k for k in rows if not rows[k].error]
        for column in COLUMNS:
            for reverse in (False, True):
                table.set_rows(rows, None)
                table.sort_by(column.key, reverse)
                changed = dict(rows)
                a, b = keys[0], keys[3]
                changed[a] = changed[a]._replace(title="Zzz moved", revision=99, updated_ns=1)
                changed[b] = changed[b]._replace(title="Aaa moved", revision=0, updated_ns=10**20)
                del changed[keys[5]]
                table.set_rows(changed, Changes(changed=frozenset({a, b}), removed=frozenset({keys[5]})))
                incremental = list(table.order)
                table.set_rows(changed, None)
                assert incremental == table.order, (column.key, reverse)


def _many_facts(layout: Layout, n: int) -> None:
    from reasonix_tui.core.store.fileformat import render_fact

    for i in range(n):
        ts = Timestamp(NOW.ns - i * DAY_NS // 10)
        fact = Fact(
            id=FactId(f"mem-b{i:031x}"),
            revision=1,
            created_at=ts,
            updated_at=ts,
            name=f"bulk-{i:04d}",
            title=f"Bulk fact {i}",
            description=f"bulk {i}",
            type="project",
            scope="project",
            body="b",
        )
        (layout.project_dir / f"bulk-{i:04d}.md").write_text(render_fact(fact), encoding="utf-8")


def test_big_first_load_hands_out_partial_snapshots_and_fills_the_parse_cache(demo: Layout, monkeypatch) -> None:
    import reasonix_tui.tui.model.loader as state
    from reasonix_tui.core.store.cache import ParseCache

    _many_facts(demo, 400)
    monkeypatch.setattr(state, "PROGRESS_FIRST_S", 0.0)
    monkeypatch.setattr(state, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(state, "PROGRESS_GROWTH", 0.0)
    partials: list = []
    final = load_snapshot(demo, settings(), NOW, progress=partials.append)
    assert final.reading == (0, 0) and len(final.rows) >= 400
    assert len(partials) > 10
    sizes = [len(p.rows) for p in partials]
    assert sizes == sorted(sizes) and sizes[-1] < len(final.rows)
    for p in partials:  # each a consistent snapshot of the rows so far, never touched again
        assert p.reading[0] < p.reading[1] and not p.cache_dirty
        assert set(p.rows) <= set(final.rows) and all(p.rows[k] == final.rows[k] for k in p.rows)
        assert p.counts["project"] + p.counts["global"] == len(p.sources)
    # Partials arrive as diffs the table can apply one after the other.
    changes = diff_snapshots(partials[0], partials[1])
    assert changes.added and not changes.removed
    # Every file went through the store's parse cache, which the CLI now finds warm.
    pc = ParseCache(demo.cache_dir, demo.project_dir)
    entry = next(demo.project_dir.glob("bulk-0007.md"))
    from reasonix_tui.core.store.cache import stat_key

    cached = pc.get(entry.name, stat_key(entry.stat()))
    assert cached is not None and cached.title == "Bulk fact 7"
    # The same rows as the small-load path that parses file by file.
    monkeypatch.setattr(state, "_STORE_READ_THRESHOLD", 10**9)
    assert dict(load_snapshot(demo, settings(), NOW, use_cache=False).rows) == dict(final.rows)


async def test_big_first_start_shows_rows_while_reading(demo: Layout, monkeypatch) -> None:
    import reasonix_tui.tui.model.loader as state
    from reasonix_tui.tui.screens.main import MainScreen, StatusBar
    from reasonix_tui.tui.widgets.facts_table import FactsTable

    from .helpers import SIZE, make, plain, settle

    _many_facts(demo, 400)
    monkeypatch.setattr(state, "PROGRESS_FIRST_S", 0.0)
    monkeypatch.setattr(state, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(state, "PROGRESS_GROWTH", 0.0)
    seen: list[tuple[int, int, str]] = []
    real = state._read_through

    def slow_read(b, *args):  # a slow disk: the app must keep up with the partials
        import time as _t

        _t.sleep(0.002)  # sleeping lets the screen run between files
        real(b, *args)

    monkeypatch.setattr(state, "_read_through", slow_read)
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one("#facts-table", FactsTable)
        for _ in range(2000):
            await pilot.pause(0.005)
            reading = app.snapshot.reading
            seen.append((table.row_count, reading[1], plain(screen.query_one("#status-bar", StatusBar))))
            if app.complete:
                break
        await settle(pilot)
        partial = [s for s in seen if s[1] and s[0]]
        assert partial, seen[:5]
        rows, _, status = partial[0]
        assert 0 < rows < 400 and "reading" in status and "files…" in status
        assert app.complete and app.snapshot.reading == (0, 0)
        assert table.row_count == len(app.snapshot.rows) >= 400
        assert "reading" not in plain(screen.query_one("#status-bar", StatusBar))


def test_partials_thin_out_as_a_long_load_goes_on(demo: Layout, monkeypatch) -> None:
    """Each partial costs the screen a sort of every row so far: a long load posts few."""
    import reasonix_tui.tui.model.loader as state

    _many_facts(demo, 300)
    ticks = iter(range(10**6))
    monkeypatch.setattr(state, "_progress_clock", lambda: float(next(ticks)))  # one "second" a call
    monkeypatch.setattr(state, "PROGRESS_FIRST_S", 0.0)
    partials: list = []
    load_snapshot(demo, settings(), NOW, progress=partials.append)
    done = [p.reading[0] for p in partials]
    assert 3 <= len(done) <= 12  # doubling intervals, not one per file (300)
    gaps = [b - a for a, b in zip(done, done[1:])]
    assert gaps == sorted(gaps)


def test_big_first_load_keeps_error_rows(demo: Layout, tmp_path: Path, monkeypatch) -> None:
    """The read-through path of a big first load shows bad files as error rows, as the
    file-by-file path does."""
    import reasonix_tui.tui.model.loader as state

    _many_facts(demo, 250)
    (demo.project_dir / "bad-yaml.md").write_text("---\nname: [unclosed\n---\nbody\n", encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: outside\n---\nsecret\n", encoding="utf-8")
    (demo.project_dir / "outside.md").symlink_to(outside)
    big = load_snapshot(demo, settings(), NOW, use_cache=False, progress=lambda _p: None)
    monkeypatch.setattr(state, "_STORE_READ_THRESHOLD", 10**9)
    small = load_snapshot(demo, settings(), NOW, use_cache=False)
    assert dict(big.rows) == dict(small.rows)
    errors = [r.error for r in big.rows.values() if r.error]
    assert any("outside the store" in e for e in errors)
    assert any("frontmatter could not be parsed" in e for e in errors)
    assert big.counts == small.counts


async def test_outside_change_during_a_big_first_load_is_not_lost(demo: Layout, monkeypatch) -> None:
    import reasonix_tui.tui.model.loader as state
    from reasonix_tui.core.store.requests import SaveRequest

    from .helpers import SIZE, make, settle

    _many_facts(demo, 300)
    monkeypatch.setattr(state, "PROGRESS_FIRST_S", 0.0)
    monkeypatch.setattr(state, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(state, "PROGRESS_GROWTH", 0.0)
    real = state._read_through

    def slow_read(b, *args):
        import time as _t

        _t.sleep(0.002)
        real(b, *args)

    monkeypatch.setattr(state, "_read_through", slow_read)
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(2000):
            await pilot.pause(0.005)
            if app.loaded:
                break
        assert app.loaded and not app.complete  # rows on screen, still reading
        # Someone edits a fact (what the watcher reports) while the first load goes on.
        st = store(demo)
        fact = st.get("project/deploy-target.md")
        saved = st.save(SaveRequest.from_fact(fact, title="Deploy target moved to Hetzner"))
        app.reload_store([str(saved.fact.path)])
        await settle(pilot)
        for _ in range(400):
            if app.complete and app.snapshot.rows[str(fact.id)].title == "Deploy target moved to Hetzner":
                break
            await pilot.pause(0.01)
        assert app.complete
        assert app.snapshot.rows[str(fact.id)].title == "Deploy target moved to Hetzner"
        assert app.snapshot.rows[str(fact.id)].revision == saved.fact.revision

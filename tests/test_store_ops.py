"""Store operations: save/revision rules (§2.8), subjects (§4), budget (§3.6), archive,
restore and recover (§8), MEMORY.md upkeep (§1.7), migration (§9), lock, audit, cache."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp, parse_rfc3339
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store import cache as cache_mod
from reasonix_tui.core.store import scan as scan_mod
from reasonix_tui.core.store.fileformat import render_fact
from reasonix_tui.core.store.freshness import freshness_for
from reasonix_tui.core.store.model import Conflict, Fact, FactId, InvalidInput, NotFound, StoreError
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

NOW = parse_rfc3339("2026-07-01T10:20:30.123456789Z")


class Clock:
    """A controllable clock."""

    def __init__(self, start: Timestamp = NOW) -> None:
        self.now = start

    def __call__(self) -> Timestamp:
        return self.now

    def tick(self, ms: int = 1) -> None:
        self.now = Timestamp(self.now.ns + ms * 1_000_000)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(layout: Layout, clock: Clock) -> Store:
    return Store(layout, settings=Settings(), clock=clock)


def req(name: str = "fact", **kw) -> SaveRequest:
    kw.setdefault("description", f"{name} description")
    kw.setdefault("body", f"{name} body")
    return SaveRequest(name=name, **kw)


# ---------------------------------------------------------------- save and revisions


def test_create_writes_reasonix_bytes_and_index(store: Store) -> None:
    res = store.save(req("likes-go", title="Likes Go", type="user"))
    f = res.fact
    assert res.created and f.revision == 1 and f.id.startswith("mem-") and len(f.id) == 36
    text = Path(f.path).read_text()
    assert text.startswith(f'---\nid: {f.id}\nrevision: 1\ncreated_at: "2026-07-01T10:20:30.123456789Z"\n')
    assert "metadata:\n  type: project\n  fact_type: user\n  scope: project\n---\n\nlikes-go body\n" in text
    index = (store.project_dir / "MEMORY.md").read_text()
    assert index == "# Memory\n\n- [Likes Go](likes-go.md) — [project/user] likes-go description\n"


def test_update_snapshots_raw_bytes_and_inherits(store: Store, clock: Clock) -> None:
    first = store.save(
        req(
            "pm",
            scope="global",
            activation="pinned",
            volatility="volatile",
            subject_key="project.pm",
            keywords="npm",
            expires_at=parse_rfc3339("2027-01-01T00:00:00Z"),
            verified=True,
            title="T",
            type="reference",
        )
    ).fact
    raw_v1 = Path(first.path).read_bytes()
    clock.tick(5000)
    second = store.save(SaveRequest(name="pm", description="new", body="new body")).fact
    assert second.id == first.id and second.revision == 2
    assert second.created_at == first.created_at and second.updated_at == clock.now
    assert (second.scope, second.activation, second.volatility, second.subject_key) == (
        "global",
        "pinned",
        "volatile",
        "project.pm",
    )
    assert second.keywords == "npm" and second.expires_at == first.expires_at
    assert second.last_verified_at == first.last_verified_at
    # not inherited: title clears, type re-normalises to project
    assert second.title == "" and second.type == "project"
    snap = store.global_dir / ".revisions" / first.id / "000000001.md"
    assert snap.read_bytes() == raw_v1
    assert [r.revision for r in store.revisions("pm")] == [1]


def test_clear_expiry(store: Store) -> None:
    store.save(req("e", expires_at=parse_rfc3339("2027-01-01T00:00:00Z")))
    f = store.save(req("e"), clear_expiry=True).fact
    assert f.expires_at is None


def test_omitted_scope_keeps_global_fact_global(store: Store) -> None:
    store.save(req("shared-pref", scope="global"))
    f = store.save(req("shared-pref", description="changed")).fact
    assert f.scope == "global"
    assert not (store.project_dir / "shared-pref.md").exists()


def test_scope_change_moves_and_keeps_id(store: Store) -> None:
    g = store.save(req("movable", scope="global")).fact
    moved = store.save(req("movable", scope="project", id=g.id)).fact
    assert moved.id == g.id and moved.scope == "project" and moved.revision == 2
    assert not Path(g.path).exists()
    assert "movable" not in (store.global_dir / "MEMORY.md").read_text()
    assert (store.global_dir / ".revisions" / g.id / "000000001.md").exists()


def test_rename_by_id(store: Store) -> None:
    a = store.save(req("alpha")).fact
    b = store.save(req("beta", id=a.id)).fact
    assert b.id == a.id and b.revision == 2 and b.name == "beta"
    assert not (store.project_dir / "alpha.md").exists() and (store.project_dir / "beta.md").exists()
    index = (store.project_dir / "MEMORY.md").read_text()
    assert "(beta.md)" in index and "(alpha.md)" not in index


def test_update_without_id_keeps_existing_name(store: Store) -> None:
    store.save(req("Keep Me"))
    f = store.save(SaveRequest(name="keep-me", title="x", description="d", body="b")).fact
    assert f.name == "keep-me" and f.revision == 2


def test_qualified_references_coexist(store: Store) -> None:
    p = store.save(req("project/shared.md", body="project body")).fact
    g = store.save(req("global/shared.md", body="global body")).fact
    assert p.scope == "project" and g.scope == "global" and p.id != g.id
    store.save(req("project/shared.md", body="project body 2"))
    assert store.get("global/shared.md").body == "global body"
    assert store.get("project/shared.md").revision == 2


def test_single_active_copy_archives_other_scope(store: Store) -> None:
    g = store.save(req("global/dup.md", body="old global")).fact
    res = store.save(req("dup-fresh-name"))  # unrelated: no archive
    assert not res.archived
    # an unqualified save whose slug exists in the other dir (found first in project? no: create in project)
    p = store.save(SaveRequest(name="dup", scope="project", id="", description="d", body="b"))
    # "dup" resolved to the global fact by name lookup, so it was an update moving it to project
    assert p.fact.id == g.id and p.fact.scope == "project"


def test_single_active_copy_rule_on_create(store: Store, layout: Layout) -> None:
    # a hand-placed global copy with a different id, plus a project copy: the unqualified
    # save updates the project one and archives the global duplicate
    store.save(req("project/twin.md"))
    other = Fact(
        id=FactId("mem-" + "1" * 32),
        revision=1,
        created_at=NOW,
        updated_at=NOW,
        name="twin",
        description="global twin",
        type="project",
        scope="global",
        body="g",
    )
    layout.global_dir.mkdir(parents=True, exist_ok=True)
    (layout.global_dir / "twin.md").write_text(render_fact(other))
    res = store.save(req("twin", description="again"))
    assert res.fact.scope == "project" and len(res.archived) == 1
    assert not (layout.global_dir / "twin.md").exists()


def test_expected_revision_and_create_only(store: Store) -> None:
    store.save(req("x"))
    with pytest.raises(Conflict, match=r"^memory revision conflict: expected 3, found 1$"):
        store.save(req("x"), expected_revision=3)
    with pytest.raises(Conflict, match=r'^memory "x" already exists; automatic writes are create-only$'):
        store.save(req("x"), require_create=True)
    with pytest.raises(Conflict, match="expected 1, found 0"):
        store.save(req("missing"), expected_revision=1)


def test_name_errors(store: Store) -> None:
    with pytest.raises(InvalidInput, match="^memory needs a name$"):
        store.save(SaveRequest(description="d", body="b"))
    with pytest.raises(InvalidInput, match="^memory name needs at least one letter or digit$"):
        store.save(req("---"))
    with pytest.raises(InvalidInput, match='memory reference scope "project" conflicts with explicit scope "global"'):
        store.save(req("project/x.md", scope="global"))
    with pytest.raises(NotFound, match='^memory id "mem-nope" not found$'):
        store.save(req("y", id="mem-nope"))


def test_name_collision_with_other_id(store: Store) -> None:
    a = store.save(req("alpha")).fact
    store.save(req("beta"))
    with pytest.raises(Conflict, match='^memory name "beta" is already used by id "mem-'):
        store.save(req("beta", id=a.id))


def test_never_overwrites_a_file_holding_another_id(store: Store, layout: Layout) -> None:
    layout.project_dir.mkdir(parents=True)
    other = Fact(
        id=FactId("mem-" + "2" * 32),
        revision=1,
        created_at=NOW,
        updated_at=NOW,
        name="something-else",
        description="d",
        type="project",
        scope="project",
        body="precious",
    )
    (layout.project_dir / "target.md").write_text(render_fact(other))
    with pytest.raises(Conflict, match="already holds id"):
        store.save(req("target"))
    assert "precious" in (layout.project_dir / "target.md").read_text()


# ---------------------------------------------------------------- subjects and budget


def test_subject_refusal_names_the_holder(store: Store) -> None:
    holder = store.save(req("package-manager", subject_key="Project.Package Manager", description="uses pnpm")).fact
    with pytest.raises(Conflict) as err:
        store.save(req("pm-two", subject_key="project.package_manager"))
    assert str(err.value) == (
        f'subject "project.package_manager" is already tracked by memory id={holder.id} revision=1 '
        "name=package-manager (current: uses pnpm); if this is the new value of the same fact, "
        "update that id instead of creating a second one"
    )
    # same subject in the other scope is an override, not a conflict
    store.save(req("pm-global", scope="global", subject_key="project.package_manager"))
    # the holder itself may be updated
    assert store.save(req("package-manager", description="uses bun")).fact.revision == 2


def test_subject_current_falls_back_to_body(store: Store) -> None:
    store.save(SaveRequest(name="a", description="", body="the\nbody", subject_key="k"))
    with pytest.raises(Conflict, match=r"\(current: the body\)"):
        store.save(req("b", subject_key="k"))


def test_pin_refused_only_when_the_budget_is_configured(layout: Layout, clock: Clock) -> None:
    """Spec §3.6: the default is 0, meaning off: no ceiling; the check runs only at write time
    when a budget is configured (``memory.pinned_budget_chars``), with the configured text."""
    unset = Store(layout, settings=Settings(pinned_budget_chars=20), clock=clock)
    unset.save(req("p1", activation="pinned", body="x" * 15))
    unset.save(req("p2", activation="pinned", body="y" * 6))  # 21 > 20, but nothing was configured
    assert unset.pinned_total() == 21
    s = Store(layout, settings=Settings(pinned_budget_chars=25, pinned_budget_configured=True), clock=clock)
    with pytest.raises(Conflict) as err:
        s.save(req("p3", activation="pinned", body="abcde"))
    assert str(err.value) == (
        "pinning this fact would put pinned guidance at 26 chars, over the 25 budget you configured "
        "(memory.pinned_budget_chars): unpin or consolidate existing pinned facts, raise the budget, "
        "or move rules that must always hold into REASONIX.md/AGENTS.md instructions"
    )
    # updating a pinned fact itself excludes its own old body
    s.save(req("p1", body="z" * 19))
    off = Store(layout, settings=Settings(pinned_budget_chars=0, pinned_budget_configured=True), clock=clock)
    off.save(req("p4", activation="pinned", body="w" * 100))


def test_settings_pin_ceiling_follows_configuration(state_root: Path) -> None:
    from reasonix_tui.core.settings import load_settings

    assert load_settings(state_root, env={}).pinned_ceiling == 0
    (state_root / "config.toml").write_text("[memory]\npinned_budget_chars = 900\n")
    assert load_settings(state_root, env={}).pinned_ceiling == 900


# ---------------------------------------------------------------- restore


def test_restore_sequence_creates_new_revision(store: Store, clock: Clock) -> None:
    store.save(req("r", body="v1"))
    clock.tick()
    store.save(req("r", body="v2"))
    clock.tick()
    res = store.restore("r", 1)
    assert res.fact.revision == 3 and res.fact.body == "v1"
    assert [f.revision for f in store.revisions("r")] == [2, 1]
    same = store.restore("r", 3)
    assert same.fact.revision == 3
    with pytest.raises(NotFound, match=r'^memory "mem-[0-9a-f]+" revision 9 not found$'):
        store.restore("r", 9)
    with pytest.raises(NotFound, match='^memory "nope" not found$'):
        store.restore("nope", 1)


def test_superseded_value_guard_warns_on_restore_and_update(store: Store) -> None:
    store.save(req("pm", subject_key="project.package_manager", body="Use npm."))
    store.save(req("pm", body="Use pnpm."))
    res = store.restore("pm", 1)
    assert res.warnings and "replaced in revision 2" in res.warnings[0]
    # an update that gives back the replaced value warns too
    store.save(req("pm", body="Use pnpm."))
    again = store.save(req("pm", body="use   NPM"))
    assert again.warnings
    # facts without a subject key never warn
    store.save(req("plain", body="a"))
    store.save(req("plain", body="b"))
    assert not store.save(req("plain", body="a")).warnings


# ---------------------------------------------------------------- archive / forget


def test_archive_names_and_collision_suffix(store: Store, clock: Clock) -> None:
    store.save(req("gone"))
    a1 = store.archive("gone")
    assert a1.path.endswith(".archive/20260701-102030.123-gone.md")
    assert "archived from project/gone.md" in a1.message
    store.save(req("gone"))
    a2 = store.archive("gone")
    assert a2.path.endswith(".archive/20260701-102030.123-gone-1.md")
    assert "gone" not in (store.project_dir / "MEMORY.md").read_text()
    assert store.find("gone") is None


def test_forget_by_id_only_touches_its_dir(store: Store) -> None:
    p = store.save(req("project/both.md")).fact
    store.save(req("global/both.md"))
    store.archive(p.id)
    assert store.find("global/both.md") is not None and store.find("project/both.md") is None


def test_forget_unqualified_archives_both_dirs(store: Store) -> None:
    store.save(req("project/both.md"))
    store.save(req("global/both.md"))
    res = store.archive("both")
    assert len(res.paths) == 2
    assert store.find("both") is None


def test_forget_cleans_stale_index_line_and_never_escapes(store: Store, layout: Layout) -> None:
    layout.project_dir.mkdir(parents=True)
    (layout.project_dir / "MEMORY.md").write_text("# Memory\n\n- [Ghost](ghost.md) — [project/project] gone\n")
    res = store.archive("project/ghost.md")
    assert res.paths == () and (layout.project_dir / "MEMORY.md").read_text() == "# Memory\n"
    outside = layout.root / "outside.md"
    outside.write_text("keep")
    store.archive("../outside")
    assert outside.read_text() == "keep"


def test_list_archived_newest_first(store: Store, clock: Clock) -> None:
    store.save(req("a"))
    store.archive("a")
    clock.tick(1000)
    store.save(req("b", scope="global"))
    store.archive("b")
    items = store.list_archived()
    assert [i.fact.name for i in items] == ["b", "a"]
    assert items[0].scope == "global" and items[0].archived_at is not None


# ---------------------------------------------------------------- recover


def test_recover_sequence_and_revision(store: Store, clock: Clock) -> None:
    f = store.save(req("rec", body="archived body")).fact
    path = store.archive("rec").path
    clock.tick()
    res = store.recover(path)
    assert res.fact.revision == 2 and res.fact.id == f.id
    assert not os.path.exists(path)
    assert [r.body for r in store.revisions("rec")] == ["archived body"]
    assert res.message == f"recovered rec as revision=2 id={f.id} scope=project"


def test_recover_collisions(store: Store, clock: Clock) -> None:
    f = store.save(req("c1")).fact
    path = store.archive("c1").path
    store.save(req("c1"))  # a new fact took the name
    with pytest.raises(Conflict, match='^memory name "c1" is already active as id "mem-'):
        store.recover(path)
    # same id already active: copy the archive back and try again
    store.save(req("c2"))
    path2 = store.archive("c2").path
    data = Path(path2).read_bytes()
    store.recover(path2)
    Path(path2).write_bytes(data)
    with pytest.raises(Conflict, match='^memory id "mem-[0-9a-f]+" is already active as "c2"$'):
        store.recover(path2)
    assert f.id


def test_recover_confinement(store: Store, tmp_path: Path, layout: Layout) -> None:
    store.save(req("z"))
    path = Path(store.archive("z").path)
    for bad in (tmp_path / "elsewhere.md", path.parent.parent / "z.md", Path(str(path) + ".txt")):
        bad.write_text("---\nname: z\n---\nb")
        with pytest.raises(NotFound, match="^archived memory not found$"):
            store.recover(str(bad))
    link = path.parent / "20990101-000000.000-link.md"
    link.symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(NotFound):
        store.recover(str(link))
    with pytest.raises(NotFound):
        store.recover(str(path.parent / ".." / ".archive" / ".." / ".." / "x.md"))


def test_recover_checks_subject_and_unreadable_index(store: Store, layout: Layout) -> None:
    store.save(req("s1", subject_key="k.v"))
    path = store.archive("s1").path
    store.save(req("s2", subject_key="k.v"))
    with pytest.raises(Conflict, match='subject "k.v"'):
        store.recover(path)
    store.archive("s2")
    index = layout.project_dir / "MEMORY.md"
    index.unlink()
    index.mkdir()
    with pytest.raises(StoreError, match="unreadable"):
        store.recover(path)
    assert os.path.exists(path) and not (layout.project_dir / "s1.md").exists()


# ---------------------------------------------------------------- MEMORY.md


def test_index_preserves_hand_written_text(store: Store, layout: Layout) -> None:
    layout.project_dir.mkdir(parents=True)
    (layout.project_dir / "MEMORY.md").write_text(
        "# My notes\n\nSee [design](design.md) for context.\n\n- [Old](old.md) — stale line\n\nTrailer text.\n"
    )
    store.save(req("new-fact"))
    text = (layout.project_dir / "MEMORY.md").read_text()
    # every other managed line is kept as it is (Reasonix's reindexIn); new entries append
    assert text == (
        "# My notes\n\nSee [design](design.md) for context.\n\n- [Old](old.md) — stale line\n\nTrailer text.\n\n"
        "- [new fact](new-fact.md) — [project/project] new-fact description\n"
    )


def test_index_rewrite_examples(store: Store, layout: Layout) -> None:
    store.save(req("a"))
    store.save(req("b"))
    assert (layout.project_dir / "MEMORY.md").read_text() == (
        "# Memory\n\n- [a](a.md) — [project/project] a description\n\n- [b](b.md) — [project/project] b description\n"
    )
    store.archive("a")
    store.archive("b")
    assert (layout.project_dir / "MEMORY.md").read_text() == "# Memory\n"


def test_unreadable_index_aborts_save_before_writing(store: Store, layout: Layout) -> None:
    (layout.project_dir / "MEMORY.md").mkdir(parents=True)
    with pytest.raises(StoreError, match="unreadable"):
        store.save(req("blocked"))
    assert not (layout.project_dir / "blocked.md").exists()


# ---------------------------------------------------------------- reading


def test_reads_never_rewrite_files(store: Store, layout: Layout) -> None:
    layout.project_dir.mkdir(parents=True)
    legacy = layout.project_dir / "legacy-fact.md"
    legacy.write_text("---\nname: legacy-fact\ndescription: old style\ntype: project\n---\nbody\n")
    os.utime(legacy, (1_700_000_000, 1_700_000_000))
    before = legacy.read_bytes(), legacy.stat().st_mtime_ns
    facts = store.list_all()
    store.find("legacy-fact")
    store.snapshot()
    assert facts[0].id == "legacy-0c0ec20229014fe8e310b2e1" and facts[0].revision == 1
    assert (legacy.read_bytes(), legacy.stat().st_mtime_ns) == before
    assert facts[0].created_at == Timestamp(1_700_000_000 * 1_000_000_000)


def test_scan_order_and_lookup_rules(store: Store, layout: Layout) -> None:
    store.save(req("global/same.md", body="g"))
    store.save(req("project/same.md", body="p"))
    assert store.get("same").body == "p"  # project first
    assert [f.scope for f in store.list_all()] == ["global", "project"]  # name, then scope
    f = store.get("same")
    assert store.get(f.id).id == f.id
    # a dot-file fact is not excluded (Reasonix only skips directories)
    (layout.project_dir / ".hidden.md").write_text("---\nname: hidden\n---\nx")
    assert store.find("hidden") is not None


def test_malformed_inputs_give_errors_not_crashes(store: Store, layout: Layout, tmp_path: Path) -> None:
    store.save(req("ok"))
    (layout.project_dir / "dir.md").mkdir()
    secret = tmp_path / "secret.md"
    secret.write_text("---\nname: secret\n---\nsecret body")
    (layout.project_dir / "escape.md").symlink_to(secret)
    (layout.project_dir / "bad.md").write_text("---\ntitle: Plan: one\n---\nbody kept")
    (layout.project_dir / "notes.txt").write_text("ignored")
    snap = store.snapshot()
    names = sorted(f.name for f in snap.facts)
    assert names == ["bad", "ok"]
    messages = {Path(e.path).name: e.message for e in snap.errors}
    assert "outside the store" in messages["escape.md"]
    assert "could not be parsed" in messages["bad.md"]
    assert store.get("bad").body == "body kept"


def test_symlinked_fact_is_never_written_through(store: Store, layout: Layout) -> None:
    store.save(req("real"))
    (layout.project_dir / "alias.md").symlink_to(layout.project_dir / "real.md")
    # alias resolves inside the store, so it is listed; writing through it is refused
    with pytest.raises(StoreError):
        store.save(SaveRequest(name="alias", description="d", body="b", id=""))


def test_five_megabyte_body_round_trips(store: Store) -> None:
    body = ("line of text " * 40 + "\n") * 10_000
    assert len(body) > 5_000_000
    f = store.save(req("huge", body=body)).fact
    assert store.get("huge").body == body.strip() and f.revision == 1


# ---------------------------------------------------------------- cache


def test_parse_cache_skips_unchanged_files_and_ignores_corruption(layout: Layout, clock: Clock, monkeypatch) -> None:
    s1 = Store(layout, settings=Settings(), clock=clock)
    for i in range(5):
        s1.save(req(f"c{i}"))
    s1.list_all()
    calls: list[str] = []
    real = scan_mod.parse_fact_bytes

    def counting(data, **kw):
        calls.append(kw.get("path", ""))
        return real(data, **kw)

    monkeypatch.setattr(scan_mod, "parse_fact_bytes", counting)
    s2 = Store(layout, settings=Settings(), clock=clock)
    assert len(s2.list_all()) == 5 and calls == []
    path = layout.project_dir / "c1.md"
    path.write_text(path.read_text().replace("c1 body", "c1 body changed!"))
    s3 = Store(layout, settings=Settings(), clock=clock)
    assert s3.get("c1").body == "c1 body changed!" and len(calls) == 1
    for cache_file in layout.cache_dir.iterdir():
        blob = cache_file.read_bytes()
        head = len(cache_mod.MAGIC) + 32
        version, directory, entries = marshal.loads(blob[head:])
        bad = {name: (key, ["not", "a", "row"]) for name, (key, _row) in entries.items()}
        cache_file.write_bytes(cache_mod.encode_cache(directory, bad))  # right digest, corrupt rows
    calls.clear()
    s4 = Store(layout, settings=Settings(), clock=clock)
    assert len(s4.list_all()) == 5 and len(calls) == 5
    for cache_file in layout.cache_dir.iterdir():
        blob = bytearray(cache_file.read_bytes())
        blob[-10] ^= 0xFF  # one flipped bit: the digest no longer matches, nothing is decoded
        cache_file.write_bytes(bytes(blob))
    calls.clear()
    assert len(Store(layout, settings=Settings(), clock=clock).list_all()) == 5 and len(calls) == 5
    for cache_file in layout.cache_dir.iterdir():
        cache_file.write_bytes(b"\x00garbage")
    assert len(Store(layout, settings=Settings(), clock=clock).list_all()) == 5


# ---------------------------------------------------------------- migration


def test_migration_is_idempotent_and_backs_up(store: Store, layout: Layout) -> None:
    layout.project_dir.mkdir(parents=True)
    layout.global_dir.mkdir(parents=True)
    legacy = layout.project_dir / "legacy-fact.md"
    legacy.write_text(
        "---\nname: Legacy Fact\ndescription: from an old build\nmetadata:\n  type: project\n---\nold body\n"
    )
    os.utime(legacy, (1_700_000_000, 1_700_000_000))
    bom = layout.global_dir / "prefers-tabs.md"
    bom.write_bytes(b"\xef\xbb\xbf---\nname: prefers-tabs\ntype: user\n---\ntabs\n")
    res = store.migrate()
    assert res.migrated == 2
    text = legacy.read_text()
    assert "id: legacy-0c0ec20229014fe8e310b2e1\nrevision: 1\n" in text
    assert 'created_at: "2023-11-14T22:13:20Z"' in text and "name: legacy-fact\n" in text
    assert not bom.read_bytes().startswith(b"\xef\xbb\xbf")
    assert (
        (layout.project_dir / ".migration-backup" / "legacy-fact.md").read_text().startswith("---\nname: Legacy Fact")
    )
    manifest = json.loads((layout.project_dir / ".migration-backup" / "manifest.json").read_text())
    assert set(manifest) == {"migrated_at", "app_version"}
    assert store.migrate().migrated == 0
    assert store.get("prefers-tabs").pinned  # legacy global user fact resolves pinned


def test_migration_indexes_the_slug_of_the_name(store: Store, layout: Layout) -> None:
    """Spec §9.1: set the name to slug(name), rewrite the same path (not renamed, even if
    slug(name) differs from the file stem), then reindex that name in the directory."""
    layout.project_dir.mkdir(parents=True)
    legacy = layout.project_dir / "old_notes.md"
    legacy.write_text("---\nname: Deploy Target\ndescription: where we deploy\ntype: project\n---\nfly.io\n")
    assert store.migrate().migrated == 1
    assert legacy.exists() and "name: deploy-target\n" in legacy.read_text()
    index = (layout.project_dir / "MEMORY.md").read_text()
    assert "(deploy-target.md) — [project/project] where we deploy" in index
    assert "old_notes.md" not in index


# ---------------------------------------------------------------- activation, verify, freshness


def test_pin_unpin_verify_messages(store: Store, clock: Clock) -> None:
    store.save(req("likes-go", scope="global", type="user"))
    assert store.set_activation("likes-go", "pinned").message == "likes-go is already pinned"
    res = store.set_activation("likes-go", "relevant")
    assert (
        res.changed
        and res.message == "likes-go is now relevant (takes effect in session-context on the next real user turn)"
    )
    assert store.get("likes-go").activation == "relevant"
    v = store.verify("likes-go")
    assert v.message == "likes-go verified; freshness clock renewed (revision 2 -> 3)"
    assert store.get("likes-go").last_verified_at == clock.now


def test_freshness_examples() -> None:
    now = NOW

    def fact(type_: str, age_days: float, **kw) -> Fact:
        ts = Timestamp(now.ns - int(age_days * DAY_NS))
        return Fact(id=FactId("m"), revision=1, created_at=ts, updated_at=ts, name="x", type=type_, **kw)

    assert freshness_for(fact("reference", 60), now) == "stale"
    assert freshness_for(fact("user", 60), now) == "fresh"
    assert freshness_for(fact("project", 200), now) == "stale"
    verified = Timestamp(now.ns - DAY_NS)
    assert freshness_for(fact("project", 200, last_verified_at=verified), now) == "fresh"
    assert freshness_for(fact("project", 60, volatility="volatile"), now) == "stale"
    assert freshness_for(fact("project", 6000, volatility="evergreen"), now) == "fresh"
    assert freshness_for(fact("project", 1, expires_at=now), now) == "fresh"  # exactly at expiry
    assert freshness_for(fact("project", 1, expires_at=Timestamp(now.ns - 1)), now) == "expired"
    assert freshness_for(fact("project", -5), now) == "current"  # future clock start


# ---------------------------------------------------------------- audit


def test_audit_records_mutations_and_refusals(store: Store) -> None:
    f = store.save(req("aud")).fact
    store.save(req("aud", body="2"))
    with pytest.raises(Conflict):
        store.save(req("aud"), expected_revision=7)
    store.archive("aud")
    entries = store.audit.read()
    ops = [(e.op, e.ok) for e in entries]
    assert ops == [("forget", True), ("save", False), ("update", True), ("create", True)]
    assert entries[1].reason == "memory revision conflict: expected 7, found 2"
    assert entries[2].rev_before == 1 and entries[2].rev_after == 2 and entries[2].id == f.id
    assert all(e.actor == "cli" for e in entries)
    store.save(req("by-agent"), actor="agent-approved")
    assert store.audit.read(1)[0].actor == "agent-approved"


# ---------------------------------------------------------------- concurrency

WORKER = """
import sys
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
layout = Layout.resolve(home=sys.argv[1], workspace=sys.argv[2])
store = Store(layout, settings=Settings())
for i in range(int(sys.argv[4])):
    store.save(SaveRequest(name="contended", description="d", body=f"worker {sys.argv[3]} write {i}"))
"""


def test_concurrent_processes_each_land_their_own_revision(layout: Layout) -> None:
    Store(layout, settings=Settings()).save(req("contended"))
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(layout.root), str(layout.workspace), str(w), "5"])
        for w in range(4)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    s = Store(layout, settings=Settings())
    fact = s.get("contended")
    assert fact.revision == 21
    revisions = [r.revision for r in s.revisions("contended")]
    assert revisions == list(range(20, 0, -1))
    bodies = {r.body for r in s.revisions("contended")} | {fact.body}
    assert len(bodies) == 21  # every write kept: nothing overwritten without a snapshot

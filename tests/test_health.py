"""Memory health (``core/health``): each kind of finding on a store that has it and on one
that does not, fingerprints and dismissals, incremental scans, fixes, and the CLI."""

from __future__ import annotations

import io
import json
import os
import stat

import pytest

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp
from reasonix_tui.core.health import Dismissals, HealthChecker, gather, health_report, memo_path
from reasonix_tui.core.health.fixes import apply_fix, merged_draft, save_merge, undo_fix
from reasonix_tui.core.health.usage import MIN_TURNS
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall.trace import RecallTrace, TraceHit, TraceStore
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.fileformat import render_fact
from reasonix_tui.core.store.model import Conflict, Fact, new_memory_id
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations.cli import main

NOW = Timestamp(1_785_000_000 * 1_000_000_000)  # 2026-07-25T17:20:00Z
SETTINGS = Settings(pinned_budget_chars=1500)
AWS_KEY = "AKIA" + "QWERTYUIOPASDFGH"


def store_at(layout: Layout, days_ago: float = 0, settings: Settings = SETTINGS) -> Store:
    ts = Timestamp(NOW.ns - int(days_ago * DAY_NS))
    return Store(layout, settings=settings, clock=lambda: ts, use_cache=False)


def save(layout: Layout, name: str, days_ago: float = 1, **fields: object) -> Fact:
    fields.setdefault("description", f"About {name.replace('-', ' ')}")
    fields.setdefault("body", f"The body of {name.replace('-', ' ')} says something specific.")
    fields.setdefault("type", "project")
    fields.setdefault("scope", "project")
    return store_at(layout, days_ago).save(SaveRequest(name=name, **fields)).fact  # type: ignore[arg-type]


def write_file(layout: Layout, name: str, scope: str = "project", days_ago: float = 1, **fields: object) -> Fact:
    """A fact file as a hand edit or a sync leaves it (bypassing the store's checks)."""
    ts = Timestamp(NOW.ns - int(days_ago * DAY_NS))
    fact = Fact(
        id=new_memory_id(), revision=1, created_at=ts, updated_at=ts, name=name, scope=scope, file_scope=scope, **fields
    )  # type: ignore[arg-type]
    folder = layout.dir_for(scope)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(render_fact(fact), encoding="utf-8")
    return fact


def report(layout: Layout, settings: Settings = SETTINGS, checker: HealthChecker | None = None):
    return health_report(layout, settings, store_at(layout, 0, settings), checker=checker)


def kinds(layout: Layout, settings: Settings = SETTINGS) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in report(layout, settings).findings:
        out.setdefault(f.kind, []).append(f)
    return out


def record_turns(
    layout: Layout, queries: list[str], hits: dict[int, list[Fact]] | None = None, start_days_ago: float = 0.9
) -> None:
    traces = TraceStore(layout)
    for i, q in enumerate(queries):
        at = Timestamp(NOW.ns - int((start_days_ago - i * 0.01) * DAY_NS))
        th = tuple(
            TraceHit(
                id=str(f.id),
                ref=f.ref,
                name=f.name,
                title=f.title,
                revision=f.revision,
                scope=f.scope,
                type=f.type,
                freshness="fresh",
                score=1.0,
                reason="matched",
                snippet="",
            )
            for f in (hits or {}).get(i, [])
        )
        traces.record(RecallTrace(query=q, at=at.rfc3339(), source="hook", hits=th, terms=tuple(q.lower().split())))


# --------------------------------------------------------------------------- an empty, healthy store


def test_a_healthy_store_has_no_findings(layout: Layout) -> None:
    save(layout, "package-manager", description="Use pnpm", body="Use pnpm for every install.")
    save(layout, "deploy-target", description="Deploy to Fly.io", body="Production runs on Fly.io.")
    r = report(layout)
    assert r.findings == () and r.problems == 0 and r.facts == 2


# --------------------------------------------------------------------------- same subject


def test_two_facts_of_one_scope_on_one_subject_conflict(layout: Layout) -> None:
    old = write_file(
        layout,
        "deploy-on-render",
        days_ago=30,
        description="Deploy to Render",
        subject_key="project.deploy_target",
        body="Production deploys go to Render.",
    )
    new = write_file(
        layout,
        "deploy-target",
        days_ago=2,
        description="Deploy to Fly.io",
        subject_key="project.deploy_target",
        body="Production deploys go to Fly.io.",
    )
    [f] = kinds(layout)["subject-conflict"]
    assert f.severity == "problem"
    assert [(r.id, r.role) for r in f.facts] == [(new.id, "current"), (old.id, "superseded")]
    assert any("Deploy to Render" in e for e in f.evidence)
    assert f.fix("archive").fact_id == old.id


def test_one_holder_per_scope_is_not_a_conflict(layout: Layout) -> None:
    save(layout, "deploy-target", subject_key="project.deploy_target")
    save(layout, "other", subject_key="project.other_thing")
    assert "subject-conflict" not in kinds(layout)


# --------------------------------------------------------------------------- overrides


def test_a_project_fact_overriding_a_global_default_is_reported(layout: Layout) -> None:
    g = save(layout, "deploy-default", scope="global", subject_key="project.deploy_target", description="Heroku")
    p = save(layout, "deploy-target", subject_key="project.deploy_target", description="Fly.io")
    [f] = kinds(layout)["project-override"]
    assert f.severity == "info"
    assert [r.id for r in f.facts] == [p.id, g.id]
    assert "shared subject project.deploy_target" in f.evidence[0]
    assert f.fix("archive").fact_id == g.id


def test_unrelated_project_and_global_facts_do_not_override(layout: Layout) -> None:
    save(layout, "deploy-default", scope="global", subject_key="global.deploy")
    save(layout, "deploy-target", subject_key="project.deploy_target")
    assert "project-override" not in kinds(layout)


# --------------------------------------------------------------------------- duplicates


def test_facts_saying_the_same_thing_are_duplicates_with_the_shared_text(layout: Layout) -> None:
    a = save(layout, "tests-howto", days_ago=10, description="Run the tests with make check", body="make check")
    b = save(layout, "running-tests", days_ago=2, description="Run the tests with `make check`.", body="Use make.")
    [f] = kinds(layout)["near-duplicate"]
    assert [r.id for r in f.facts] == [b.id, a.id]  # newest stays
    assert f.overlap == ("description: Run the tests with `make check`.",)
    assert f.fix("archive").fact_id == a.id and f.fix("merge").keep_id == b.id


def test_different_facts_are_not_duplicates(layout: Layout) -> None:
    save(layout, "tests-howto", description="Run the tests with make check")
    save(layout, "lint-howto", description="Run the linter with make lint")
    assert "near-duplicate" not in kinds(layout)


# --------------------------------------------------------------------------- secrets


def test_a_secret_in_a_body_is_a_problem_and_never_printed(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    fact = save(layout, "aws-access", body=f"Use the deploy user.\nkey: {AWS_KEY}\n")
    [f] = kinds(layout)["secret"]
    assert f.severity == "problem" and f.facts[0].id == fact.id
    assert any("body line 2" in e for e in f.evidence)
    assert main(["--home", str(layout.root), "--workspace", str(layout.workspace), "memory", "health", "--json"]) == 1
    out = capsys.readouterr().out
    assert AWS_KEY not in out and AWS_KEY[-6:] not in out
    assert json.loads(out)[0]["kind"] == "secret"


def test_an_email_address_alone_is_a_warning(layout: Layout) -> None:
    save(layout, "owner", body="The owner is dana@example.com.")
    [f] = kinds(layout)["secret"]
    assert f.severity == "warning"


def test_text_without_secrets_is_clean(layout: Layout) -> None:
    save(layout, "tokens", body="Rotate the API token monthly; the key lives in the vault.")
    assert "secret" not in kinds(layout)


# --------------------------------------------------------------------------- files


def test_an_unreadable_fact_file_is_a_problem(layout: Layout) -> None:
    save(layout, "fine")
    broken = layout.project_dir / "broken.md"
    broken.write_text("---\ntitle: [unclosed\n---\nBody.\n", encoding="utf-8")
    [f] = kinds(layout)["unreadable"]
    assert f.severity == "problem" and f.path == str(broken)
    assert "frontmatter is treated as empty" in " ".join(f.evidence)
    assert f.fix("edit").path == str(broken)
    before = f.fingerprint
    broken.write_text("---\ntitle: [still unclosed\n---\nOther body.\n", encoding="utf-8")
    os.utime(broken, ns=(NOW.ns, NOW.ns))
    assert kinds(layout)["unreadable"][0].fingerprint != before  # the file changed: a new finding


def test_readable_files_give_no_unreadable_finding(layout: Layout) -> None:
    save(layout, "fine")
    assert "unreadable" not in kinds(layout)


def test_instruction_import_problems_are_found_in_sub_folders(layout: Layout) -> None:
    ws = layout.workspace
    (ws / "AGENTS.md").write_text("# Root\n\n@docs/missing.md\n", encoding="utf-8")
    (ws / "services" / "api").mkdir(parents=True)
    (ws / "services" / "api" / "AGENTS.md").write_text("# API\n\n@../../../outside.md\n", encoding="utf-8")
    found = {f.title: f for f in kinds(layout)["instruction"]}
    assert {"import unreadable: AGENTS.md:3", "import outside source: services/api/AGENTS.md:3"} <= set(found)
    assert all(f.severity == "problem" for f in found.values())
    assert found["import outside source: services/api/AGENTS.md:3"].fix("edit").path.endswith("services/api/AGENTS.md")


def test_clean_instructions_give_no_instruction_finding(layout: Layout) -> None:
    (layout.workspace / "AGENTS.md").write_text("# Root\n\nKeep handlers thin.\n", encoding="utf-8")
    assert "instruction" not in kinds(layout)


# --------------------------------------------------------------------------- pinned


def test_pinned_guidance_near_or_over_the_budget(layout: Layout) -> None:
    big = save(layout, "big", activation="pinned", body="x" * 700)
    save(layout, "small", activation="pinned", body="y" * 300)
    [f] = kinds(layout, Settings(pinned_budget_chars=1200))["pinned-budget"]
    assert f.severity == "warning" and dict(f.data) == {"used": 1000, "budget": 1200}
    assert f.fix("unpin").fact_id == big.id  # the largest first
    [over] = kinds(layout, Settings(pinned_budget_chars=900, pinned_budget_configured=True))["pinned-budget"]
    assert over.severity == "problem" and "new pins are refused" in over.evidence[0]
    [unset] = kinds(layout, Settings(pinned_budget_chars=900))["pinned-budget"]  # as Reasonix: no refusal unset
    assert "refused only with memory.pinned_budget_chars set" in unset.evidence[0]


def test_pinned_guidance_well_under_the_budget_is_fine(layout: Layout) -> None:
    save(layout, "small", activation="pinned", body="y" * 300)
    assert "pinned-budget" not in kinds(layout)


def test_a_pinned_fact_no_recorded_turn_was_about(layout: Layout) -> None:
    pinned = save(
        layout,
        "package-manager",
        days_ago=5,
        activation="pinned",
        description="Package manager is pnpm",
        body="Use pnpm; the lockfile is pnpm-lock.yaml.",
    )
    save(layout, "deploy-target", days_ago=5, description="Deploy target", body="Production runs on Fly.io.")
    record_turns(layout, ["how do we deploy to production"] * MIN_TURNS)
    [f] = kinds(layout)["pinned-unused"]
    assert f.facts[0].id == pinned.id and f.fix("unpin").fact_id == pinned.id
    assert f"none of the {MIN_TURNS} recorded turns" in f.evidence[0]


def test_a_pinned_fact_a_turn_asked_about_is_relevant(layout: Layout) -> None:
    save(
        layout,
        "package-manager",
        days_ago=5,
        activation="pinned",
        description="Package manager is pnpm",
        body="Use pnpm; the lockfile is pnpm-lock.yaml.",
    )
    save(layout, "deploy-target", days_ago=5, description="Deploy target", body="Production runs on Fly.io.")
    record_turns(layout, ["how do we deploy to production"] * (MIN_TURNS - 1) + ["which lockfile do we commit"])
    assert "pinned-unused" not in kinds(layout)


def test_too_few_turns_say_nothing_about_use(layout: Layout) -> None:
    save(layout, "package-manager", days_ago=5, activation="pinned", body="Use pnpm.")
    save(layout, "deploy-target", days_ago=5, body="Production runs on Fly.io.")
    record_turns(layout, ["how do we deploy to production"] * (MIN_TURNS - 1))
    k = kinds(layout)
    assert "pinned-unused" not in k and "never-recalled" not in k


# --------------------------------------------------------------------------- freshness


def test_expired_stale_and_ending_soon(layout: Layout) -> None:
    store_at(layout, 10).save(
        SaveRequest(
            name="expired", description="d", body="b", type="project", expires_at=Timestamp(NOW.ns - 2 * DAY_NS)
        )
    )
    save(layout, "stale", days_ago=200, description="An old decision", body="Old text.")
    store_at(layout, 1).save(
        SaveRequest(
            name="rota", description="On call", body="Dana", type="project", expires_at=Timestamp(NOW.ns + 3 * DAY_NS)
        )
    )
    save(layout, "window", days_ago=176, description="Turning stale soon", body="Soon stale.")
    k = kinds(layout)
    assert [f.facts[0].ref for f in k["expired"]] == ["project/expired.md"]
    assert k["expired"][0].severity == "warning"
    assert [f.facts[0].ref for f in k["stale"]] == ["project/stale.md"]
    assert k["stale"][0].fix("verify") is not None
    soon = {f.facts[0].ref: f for f in k["ending-soon"]}
    assert set(soon) == {"project/rota.md", "project/window.md"}
    assert "expires at" in soon["project/rota.md"].evidence[0]
    assert soon["project/window.md"].evidence[0].startswith("turns stale in 4 d")
    assert soon["project/window.md"].fix("verify") is not None


def test_fresh_facts_have_no_freshness_finding(layout: Layout) -> None:
    save(layout, "fresh", days_ago=3)
    save(layout, "evergreen", days_ago=900, volatility="evergreen")
    k = kinds(layout)
    assert not {"expired", "stale", "ending-soon"} & set(k)


# --------------------------------------------------------------------------- size


def test_an_oversized_fact(layout: Layout) -> None:
    save(layout, "handbook", body="word " * 1500)
    [f] = kinds(layout)["oversized"]
    assert dict(f.data)["chars"] == len(("word " * 1500).strip())


def test_a_normal_fact_is_not_oversized(layout: Layout) -> None:
    save(layout, "note", body="word " * 100)
    assert "oversized" not in kinds(layout)


# --------------------------------------------------------------------------- recall usage


def test_never_and_often_recalled(layout: Layout) -> None:
    never = save(layout, "release-branch", days_ago=5, description="Release branch", body="release/2026.07")
    often = save(layout, "deploy-target", days_ago=5, description="Deploy target", body="Fly.io")
    hits = {i: [often] for i in range(0, 12, 2)}
    record_turns(layout, ["how do we deploy"] * 12, hits)
    k = kinds(layout)
    [n] = k["never-recalled"]
    assert n.facts[0].id == never.id
    assert "not recalled in any of the 12 recorded turns" in n.evidence[0]
    [o] = k["often-recalled"]
    assert o.facts[0].id == often.id and dict(o.data) == {"turns": 12, "recalled": 6}
    assert o.fix("pin").fact_id == often.id


def test_facts_recalled_now_and_then_are_neither(layout: Layout) -> None:
    a = save(layout, "release-branch", days_ago=5, description="Release branch", body="release/2026.07")
    b = save(layout, "deploy-target", days_ago=5, description="Deploy target", body="Fly.io")
    record_turns(layout, ["release or deploy"] * 20, {3: [a], 7: [b]})
    k = kinds(layout)
    assert "never-recalled" not in k and "often-recalled" not in k


def test_turns_before_a_fact_existed_do_not_count(layout: Layout) -> None:
    save(layout, "new-fact", days_ago=0.5, body="Brand new.")
    record_turns(layout, ["anything at all"] * 20, start_days_ago=0.9)  # all before it was created
    assert "never-recalled" not in kinds(layout)


# --------------------------------------------------------------------------- dismissals


def test_a_dismissal_lasts_until_a_fact_changes(layout: Layout) -> None:
    save(layout, "handbook", body="word " * 1500)
    [f] = report(layout).findings
    assert Dismissals(layout).dismiss(f, NOW)
    assert not Dismissals(layout).dismiss(f, NOW)
    r = report(layout)
    assert r.findings == () and [d.key for d in r.dismissed] == [f.key]
    mode = stat.S_IMODE(os.stat(layout.tui_dir / "health.json").st_mode)
    assert mode == 0o600
    store_at(layout, 0).save(
        SaveRequest(name="handbook", description="About handbook", body="page " * 1600, type="project")
    )
    [again] = report(layout).findings
    assert again.key == f.key and again.fingerprint != f.fingerprint


def test_a_broken_dismissals_file_hides_nothing(layout: Layout) -> None:
    save(layout, "handbook", body="word " * 1500)
    layout.tui_dir.mkdir(parents=True, exist_ok=True)
    (layout.tui_dir / "health.json").write_text("{not json", encoding="utf-8")
    assert len(report(layout).findings) == 1


# --------------------------------------------------------------------------- incremental


def test_a_run_after_one_write_scans_one_fact(layout: Layout) -> None:
    for i in range(20):
        save(layout, f"fact-{i}")
    checker = HealthChecker()
    store = Store(layout, settings=SETTINGS, clock=lambda: NOW)
    checker.report(gather(layout, SETTINGS, store))
    assert checker.scanned == 20
    checker.report(gather(layout, SETTINGS, store))
    assert checker.scanned == 0
    store.save(SaveRequest(name="fact-3", description="changed", body=f"now with {AWS_KEY}", type="project"))
    r = checker.report(gather(layout, SETTINGS, store))
    assert checker.scanned == 1
    assert [f.kind for f in r.findings] == ["secret"]


def test_the_disk_memo_spares_the_next_process_the_scan(layout: Layout) -> None:
    for i in range(5):
        save(layout, f"fact-{i}")
    first = HealthChecker(memo_path(layout))
    report(layout, checker=first)
    assert first.scanned == 5
    second = HealthChecker(memo_path(layout))
    report(layout, checker=second)
    assert second.scanned == 0


# --------------------------------------------------------------------------- fixes


def _conflict(layout: Layout) -> tuple[Fact, Fact]:
    old = write_file(
        layout,
        "deploy-on-render",
        days_ago=30,
        description="Deploy to Render",
        subject_key="project.deploy_target",
        body="Render.",
    )
    new = write_file(
        layout,
        "deploy-target",
        days_ago=2,
        description="Deploy to Fly.io",
        subject_key="project.deploy_target",
        body="Fly.io.",
    )
    return old, new


def test_archive_fix_goes_through_the_store_and_can_be_undone(layout: Layout) -> None:
    old, new = _conflict(layout)
    [f] = report(layout).of_kind("subject-conflict")
    store = Store(layout, settings=SETTINGS, actor="context-center")
    outcome = apply_fix(store, f, f.fix("archive"))
    assert store.find_by_id(old.id) is None and store.find_by_id(new.id) is not None
    [entry] = [e for e in store.audit.read(10) if e.op == "forget"]
    assert entry.actor == "context-center" and entry.ok
    assert "subject-conflict" not in kinds(layout)
    # a recover is refused while the subject has a holder (spec §4), so no undo is offered
    # (the pane would otherwise say "U undoes it" and then fail); the message says when it can be
    assert outcome.undo == () and f"no longer holds subject {old.subject_key}" in outcome.text
    assert undo_fix(store, outcome) == "nothing to undo"
    [archived] = [p for p in outcome.paths if "/.archive/" in p.replace(os.sep, "/")]
    with pytest.raises(Conflict, match="already tracked"):
        store.recover(archived)
    assert store.find_by_id(old.id) is None
    save(layout, "stale", days_ago=200)
    [s] = report(layout).of_kind("stale")
    outcome = apply_fix(store, s, s.fix("archive"))
    assert store.find("stale") is None
    undo_fix(store, outcome)
    assert store.get("stale").body == "The body of stale says something specific."


def test_a_fix_is_refused_when_the_fact_changed_since(layout: Layout) -> None:
    save(layout, "stale", days_ago=200, body="Old text.")
    [f] = report(layout).of_kind("stale")
    store = Store(layout, settings=SETTINGS)
    store.save(SaveRequest(name="stale", description="About stale", body="Rewritten.", type="project"))
    with pytest.raises(Conflict, match="changed since this finding"):
        apply_fix(store, f, f.fix("verify"))


def test_verify_and_unpin_fixes(layout: Layout) -> None:
    save(layout, "stale", days_ago=200, body="Old text.")
    [f] = report(layout).of_kind("stale")
    store = Store(layout, settings=SETTINGS)
    out = apply_fix(store, f, f.fix("verify"))
    assert store.get("stale").last_verified_at is not None and "stale" not in kinds(layout)
    assert out.undo == ()  # a new revision would renew the clock anyway
    save(layout, "big", activation="pinned", body="x" * 1300)
    [b] = report(layout).of_kind("pinned-budget")
    out = apply_fix(store, b, b.fix("unpin"))
    assert not store.get("big").pinned
    undo_fix(store, out)
    assert store.get("big").pinned


def test_merge_keeps_the_newest_with_what_the_others_add_and_archives_them(layout: Layout) -> None:
    a = save(
        layout,
        "tests-howto",
        days_ago=10,
        description="Run the tests with make check",
        body="Run make check.\n\nIt also runs mypy.",
        keywords="pytest",
    )
    b = save(
        layout,
        "running-tests",
        days_ago=2,
        description="Run the tests with make check",
        body="Run make check.",
        keywords="tests ci",
    )
    [f] = report(layout).of_kind("near-duplicate")
    store = Store(layout, settings=SETTINGS, actor="context-center")
    draft = merged_draft([store.get(a.id), store.get(b.id)], f.fix("merge").keep_id)
    assert draft.id == b.id and draft.body == "Run make check.\n\nIt also runs mypy."
    assert draft.keywords == "tests ci pytest" and draft.supersedes == (a.id,)
    outcome = save_merge(store, f, draft)
    assert store.find_by_id(a.id) is None
    assert store.get(b.id).body.endswith("It also runs mypy.") and store.get(b.id).supersedes == (a.id,)
    assert "near-duplicate" not in kinds(layout)
    undo_fix(store, outcome)
    assert store.find_by_id(a.id) is not None and store.get(b.id).body == "Run make check."


# --------------------------------------------------------------------------- CLI


def _cli(layout: Layout, *args: str) -> list[str]:
    return ["--home", str(layout.root), "--workspace", str(layout.workspace), "memory", "health", *args]


def test_cli_on_a_healthy_store_prints_an_empty_list_and_exits_0(layout: Layout, capsys) -> None:
    save(layout, "fine", days_ago=0)
    assert main(_cli(layout, "--json")) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(_cli(layout)) == 0
    assert capsys.readouterr().out.startswith("memory health: no findings (1 facts;")


def test_cli_exit_code_follows_problems_only(layout: Layout, capsys) -> None:
    save(layout, "stale", days_ago=200)
    assert main(_cli(layout, "--json")) == 0  # info only
    assert [f["kind"] for f in json.loads(capsys.readouterr().out)] == ["stale"]
    (layout.project_dir / "broken.md").write_text("---\ntitle: [x\n---\nB\n", encoding="utf-8")
    assert main(_cli(layout)) == 1
    out = capsys.readouterr().out
    assert out.startswith("memory health: 1 problem, 1 info") and "PROBLEM  unreadable file: broken.md" in out


def test_cli_dismiss_restore_and_fix(layout: Layout, capsys) -> None:
    old, _ = _conflict(layout)
    assert main(_cli(layout, "--json")) == 1
    [f] = json.loads(capsys.readouterr().out)
    assert main(_cli(layout, "dismiss", f["fingerprint"])) == 0
    assert "dismissed: 2 project facts hold subject project.deploy_target" in capsys.readouterr().out
    assert main(_cli(layout, "--json")) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(_cli(layout, "--json", "--all")) == 0  # dismissed problems do not count
    [d] = json.loads(capsys.readouterr().out)
    assert d["dismissed"] is True
    assert main(_cli(layout, "restore", f["fingerprint"])) == 0
    capsys.readouterr()
    assert main(_cli(layout, "fix", f["fingerprint"], "archive")) == 0
    assert "archived project/deploy-on-render.md" in capsys.readouterr().out
    assert Store(layout).find_by_id(old.id) is None
    assert main(_cli(layout, "fix", "nope", "archive")) == 1
    assert "no finding nope" in capsys.readouterr().err


# --------------------------------------------------------------------------- side by side


def test_compare_marks_the_differing_words_of_two_facts() -> None:
    from reasonix_tui.core.health.compare import compare_facts

    a = Fact(
        id="mem-a",
        revision=2,
        created_at=None,
        updated_at=None,
        name="deploy-target",
        description="Production runs on Fly.io in ams",
        subject_key="project.deploy_target",
    )
    b = Fact(
        id="mem-b",
        revision=1,
        created_at=None,
        updated_at=None,
        name="deploy-on-render",
        description="Production runs on Render",
        subject_key="project.deploy_target",
    )
    by = {d.field: d for d in compare_facts(a, b)}
    assert by["subject"].same and not by["description"].same
    d = by["description"]
    assert [d.left[s:e] for s, e in d.left_spans] == ["Fly.io in ams"]
    assert [d.right[s:e] for s, e in d.right_spans] == ["Render"]
    assert by["revision"].left == "2" and by["revision"].right == "1"


def test_cli_text_counts_what_is_past_ten_of_a_kind(layout: Layout, capsys) -> None:
    for i in range(12):
        save(layout, f"old-{i:02d}", days_ago=200, description=f"Old decision number {i}")
    assert main(_cli(layout)) == 0
    out = capsys.readouterr().out
    assert out.count("INFO     stale:") == 10
    assert "… and 2 more stale (memory health --kind stale lists them all)" in out
    assert main(_cli(layout, "--kind", "stale")) == 0
    assert capsys.readouterr().out.count("INFO     stale:") == 12


def test_usage_from_real_recall_traces(layout: Layout) -> None:
    """Traces recorded by real automatic recall (as the prompt hook records them) drive
    the usage findings: the fact the turns ask about is recalled often, the other never,
    and the pinned fact no turn is about is reported."""
    from reasonix_tui.core.recall import run_recall

    deploy = save(
        layout,
        "deploy-target",
        days_ago=5,
        title="Deploy target is Fly.io",
        description="Production deploys go to Fly.io",
        body="Deploy production with fly deploy to Fly.io.",
    )
    save(
        layout,
        "release-branch",
        days_ago=5,
        title="Release branch",
        description="Release branches",
        body="Cut releases from release/2026.07.",
    )
    pinned = save(
        layout,
        "commit-style",
        days_ago=5,
        title="Commit style",
        activation="pinned",
        description="Conventional commits",
        body="Write conventional commits with a scope.",
    )
    store = store_at(layout, 0)
    for i in range(MIN_TURNS):
        at = Timestamp(NOW.ns - (MIN_TURNS - i) * 3_600_000_000_000)
        trace = run_recall(layout, "how do we deploy production to fly?", settings=SETTINGS, now=at, store=store)
        assert [h.id for h in trace.hits] == [deploy.id]
    k = kinds(layout)
    assert [f.facts[0].ref for f in k["often-recalled"]] == ["project/deploy-target.md"]
    assert [f.facts[0].ref for f in k["never-recalled"]] == ["project/release-branch.md"]
    assert [f.facts[0].id for f in k["pinned-unused"]] == [pinned.id]


# --------------------------------------------------------------------------- the resolver's pairs


def test_a_newer_fact_that_says_it_replaced_an_older_one(layout: Layout) -> None:
    old = save(
        layout,
        "package-manager",
        days_ago=90,
        title="Package manager",
        description="Install dependencies with npm",
        body="Run npm install before building.",
    )
    new = save(
        layout,
        "pnpm-migration",
        days_ago=3,
        title="Package manager is pnpm",
        description="Install dependencies with pnpm",
        body="We switched from npm last month; run pnpm install.",
    )
    [f] = kinds(layout)["topic-supersession"]
    assert f.severity == "warning"
    assert [(r.id, r.role) for r in f.facts] == [(new.id, "current"), (old.id, "superseded")]
    assert "it says npm was replaced" in f.evidence[0]
    assert f.fix("archive").fact_id == old.id


def test_facts_on_different_topics_are_no_supersession(layout: Layout) -> None:
    save(layout, "package-manager", days_ago=90, description="Install dependencies with pnpm", body="Run pnpm install.")
    save(layout, "deploy-target", days_ago=3, description="Production runs on Fly.io", body="Deploy with fly deploy.")
    assert "topic-supersession" not in kinds(layout)


def test_a_project_fact_overriding_a_global_default_by_topic(layout: Layout) -> None:
    g = save(
        layout,
        "js-tooling",
        scope="global",
        days_ago=60,
        title="JavaScript package manager",
        description="Default package manager for JavaScript projects is npm",
        body="Use npm install for dependencies.",
    )
    p = save(
        layout,
        "this-repo-installs",
        days_ago=2,
        title="Installing in this repository",
        description="This repository installs packages with pnpm, not npm",
        body="Use pnpm install, not npm install.",
    )
    [f] = kinds(layout)["project-override"]
    assert [r.id for r in f.facts] == [p.id, g.id] and f.evidence[0].startswith("by topic, under other words")


def test_the_same_fact_in_other_words_is_a_near_duplicate(layout: Layout) -> None:
    a = save(
        layout,
        "billing-owner",
        days_ago=20,
        title="Billing owner",
        description="Dana owns the billing service",
        body="Dana owns the billing service.",
    )
    b = save(
        layout,
        "who-owns-billing",
        days_ago=2,
        title="Who owns billing",
        description="The billing service owner is Dana",
        body="The billing service owner is Dana; ask her first.",
    )
    [f] = kinds(layout)["near-duplicate"]
    assert [r.id for r in f.facts] == [b.id, a.id]
    assert f.overlap[0].startswith("words: ") and "dana" in f.overlap[0].lower()
    assert "meaning similarity" in f.evidence[1]
    assert f.fix("merge").keep_id == b.id and f.fix("archive").fact_id == a.id


def test_different_values_in_similar_words_are_not_duplicates(layout: Layout) -> None:
    save(layout, "billing-owner", days_ago=20, description="Dana owns the billing service", body="Dana owns billing.")
    save(layout, "search-owner", days_ago=2, description="Lee owns the search service", body="Lee owns search.")
    save(layout, "node-runtime", days_ago=20, description="Node 18 is the runtime", body="The services run on Node 18.")
    save(layout, "node-version", days_ago=2, description="Runtime is Node 20", body="The services run on Node 20.")
    assert "near-duplicate" not in kinds(layout)


def test_meaning_pairs_after_one_write_equal_a_fresh_computation(layout: Layout) -> None:
    """The incremental near-duplicate pairs (one row computed after a write) are the pairs
    a computation from scratch finds; the saved state spares the next process the work."""
    from reasonix_tui.core.health.similar import MeaningPairs

    texts = [
        "Dana owns the billing service",
        "The billing service owner is Dana",
        "Lee owns search",
        "Search is owned by Lee",
        "Deploy with fly deploy",
        "Production deploys use fly deploy",
        "Run make check before committing",
        "Before a commit, run make check",
    ]
    for i, t in enumerate(texts):
        save(layout, f"fact-{i}", description=t, body=t)
    facts = Store(layout, settings=SETTINGS).list_all()
    incremental = MeaningPairs()
    first = incremental.update(facts)
    assert incremental.computed == len(facts) and first
    store = Store(layout, settings=SETTINGS)
    store.save(SaveRequest(name="fact-2", description="Lee owns the search service", body="Lee owns search."))
    facts = store.list_all()
    again = incremental.update(facts)
    assert incremental.computed == 1
    fresh = MeaningPairs().update(facts)
    assert [(i, j, round(c, 5)) for i, j, c in again] == [(i, j, round(c, 5)) for i, j, c in fresh]
    restored = MeaningPairs()
    assert restored.restore(incremental.state())
    assert restored.update(facts) == again and restored.computed == 0


# --------------------------------------------------------------------------- persisted state


def _scratch(layout: Layout, now: Timestamp):
    """Findings computed with nothing kept: no memo file, the recall's per-fact memo emptied."""
    from reasonix_tui.core.recall.memo import FACT_MEMO

    FACT_MEMO.clear()
    return HealthChecker().report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS), now=now))


def test_the_persisted_state_answers_exactly_what_a_run_from_scratch_does(tmp_path) -> None:
    """A new process (new checker, new fact objects) reading the state, the worker after one
    write, and a new process after a write elsewhere all return the findings a run from
    scratch returns, field by field, on the demo home (every kind of finding)."""
    from reasonix_tui.core.demo import build_demo_home
    from reasonix_tui.core.recall.memo import FACT_MEMO

    now = NOW
    demo = build_demo_home(tmp_path / "demo", now=now, with_approval=False)
    layout = Layout.resolve(home=demo.root, workspace=demo.workspace)
    scratch = _scratch(layout, now)
    assert len({f.kind for f in scratch.findings}) >= 12
    # a negation that only shares a word is no replacement ("Logs carry no personal data" in
    # the review checklist against the June release notes; "never" against "Never force-push")
    pairs = {
        frozenset(r.ref for r in f.facts)
        for f in scratch.findings
        if f.kind in ("topic-supersession", "project-override")
    }
    assert frozenset(("project/release-notes-june.md", "project/review-checklist.md")) not in pairs
    assert not any("global/no-force-push.md" in p for p in pairs)
    assert frozenset(("project/error-tracking.md", "project/error-tracking-honeycomb.md")) in pairs
    first = HealthChecker(memo_path(layout))
    first.report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS), now=now))
    assert first.reused == () and first.save()
    assert stat.S_IMODE(os.stat(memo_path(layout)).st_mode) == 0o600

    FACT_MEMO.clear()  # a new process: new fact objects, nothing in memory
    worker = HealthChecker(memo_path(layout))
    store = Store(layout, settings=SETTINGS)
    ctx = gather(layout, SETTINGS, store, now=now)
    warm = worker.report(ctx)
    assert worker.reused == ("pairs", "pinned-unused") and worker.scanned == 0
    assert warm.findings == scratch.findings
    assert worker.prime(ctx.facts) and not worker.prime(ctx.facts)  # the worker's next step

    # the worker after one write: only what changed is redone, the answer is a fresh one's
    victim = next(f for f in scratch.findings if f.kind == "never-recalled").facts[0]
    name = os.path.splitext(os.path.basename(victim.path))[0]
    store.save(SaveRequest(name=name, description="Rewritten", body=f"now holding {AWS_KEY}"))
    after = worker.report(gather(layout, SETTINGS, store, now=now))
    assert worker.scanned == 1 and "pairs" not in worker.reused
    assert after.findings == _scratch(layout, now).findings
    assert any(f.kind == "secret" and f.facts[0].id == victim.id for f in after.findings)
    worker.save()

    # another process writes; a new one starts from the state (pairs redone, the rest kept)
    other = next(f for f in after.findings if f.kind == "stale").facts[0]
    Store(layout, settings=SETTINGS).save(
        SaveRequest(name=os.path.splitext(os.path.basename(other.path))[0], body="Checked again today.")
    )
    FACT_MEMO.clear()
    fresh = HealthChecker(memo_path(layout))
    again = fresh.report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS), now=now))
    assert fresh.scanned == 1 and "pairs" not in fresh.reused
    assert again.findings == _scratch(layout, now).findings


def test_a_damaged_or_foreign_state_file_is_ignored(layout: Layout) -> None:
    for i in range(3):
        save(layout, f"fact-{i}", days_ago=400)
    expected = report(layout).findings
    path = memo_path(layout)
    blob = open(path, "rb").read()
    with open(path, "wb") as fh:
        fh.write(blob[:-7] + b"garbage")  # torn: the checksum no longer matches
    checker = HealthChecker(path)
    assert report(layout, checker=checker).findings == expected
    assert checker.scanned == 3 and checker.reused == ()


def test_a_rejection_of_what_the_older_rule_says_is_still_a_replacement(layout: Layout) -> None:
    """The stronger evidence a rejection needs keeps the real ones: "use pnpm, not npm" and
    "never deploy on Fridays" replace the older rules (their meanings are alike)."""
    save(
        layout,
        "package-manager",
        100,
        title="Package manager",
        description="npm for installs",
        body="We install with npm install and run scripts with npm run.",
    )
    save(
        layout,
        "pnpm-only",
        10,
        title="This repo uses pnpm",
        description="use pnpm, not npm",
        body="Install with pnpm install; the lockfile is pnpm-lock.yaml.",
    )
    save(
        layout,
        "deploy-days",
        100,
        title="Deploys",
        description="deploy on fridays",
        body="We deploy on Fridays after the standup.",
    )
    save(
        layout,
        "deploy-freeze",
        10,
        title="No Friday deploys",
        description="never deploy on fridays",
        body="Never deploy on Fridays; deploys go out Tuesday to Thursday.",
    )
    found = {(f.facts[1].ref, f.facts[0].ref): f for f in kinds(layout)["topic-supersession"]}
    assert set(found) == {
        ("project/package-manager.md", "project/pnpm-only.md"),
        ("project/deploy-days.md", "project/deploy-freeze.md"),
    }
    assert all(f.severity == "warning" and "it says not" in f.evidence[0] for f in found.values())


def test_cli_json_is_compact_one_finding_a_line_when_piped_and_indented_on_request(layout: Layout, capsys) -> None:
    save(layout, "stale", days_ago=200)
    save(layout, "older", days_ago=300)
    assert main(_cli(layout, "--json")) == 0  # capsys is not a terminal: compact
    compact = capsys.readouterr().out
    lines = compact.splitlines()
    assert len(lines) == 2 and lines[0].startswith('[{"kind":') and lines[1].endswith("}]")
    assert main(_cli(layout, "--json", "--indent", "2")) == 0
    indented = capsys.readouterr().out
    assert indented.startswith('[\n  {\n    "kind":')
    assert json.loads(indented) == json.loads(compact) and len(json.loads(compact)) == 2
    assert {f["kind"] for f in json.loads(compact)} == {"stale"}


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_cli_json_on_a_terminal_is_indented_and_an_empty_list_stays_one_line(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonix_tui.integrations.commands.health import write_json_list

    save(layout, "stale", days_ago=200)
    tty = _Tty()
    monkeypatch.setattr("sys.stdout", tty)
    assert main(_cli(layout, "--json")) == 0
    assert tty.getvalue().startswith('[\n  {\n    "kind": "stale"')
    out = io.StringIO()
    write_json_list(out, iter([]), 0)
    assert out.getvalue() == "[]\n"

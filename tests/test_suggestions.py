"""Suggestions: Reasonix's memory and skill candidates (exact), memory wanted, imports
from Claude Code auto-memory and other agents' notes, dismissal, and accepting through
the store."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reasonix_tui.core import suggestions as S
from reasonix_tui.core.history import history_tool_call
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.sessions import claude_project_slugs
from reasonix_tui.core.store.model import InvalidInput, NotFound
from reasonix_tui.core.store.store import SaveRequest, Store
from reasonix_tui.integrations.cli import main

# Golden vectors: the expected values were produced by running Reasonix's own Go functions
# (extractMemoryStatement, stableSuggestionName, inferMemoryType, truncateRunes) on these inputs.
GOLDEN = [
    ("以后请始终用中文回复，除非我明确要求英文。", "以后请始终用中文回复，除非我明确要求英文。", "future-facing preference", "memory-candidate-e2cf7f06", "feedback", "以后请始终用中文回复，除非我明确要求英文。"),
    ("Remember: always run pnpm install before tests", "Remember: always run pnpm install before tests", "explicit remember request", "remember-always-run-pnpm-install-before-tests", "feedback", "Remember: always run pnpm install before tests"),
    ("Please remember-use tabs in the Makefile", "use tabs in the Makefile", "explicit remember request", "use-tabs-in-the-makefile", "user", "use tabs in the Makefile"),
    ("We prefer squash merges on every PR to main", "prefer squash merges on every PR to main", "user preference", "prefer-squash-merges-on-every-pr-to-main", "project", "prefer squash merges on every PR to main"),
    ("Nevertheless the build passed", "Nevertheless the build passed", "negative working preference", "nevertheless-the-build-passed", "feedback", "Nevertheless the build passed"),
    ("By default deploy to staging, see https://example.com/runbook", "By default deploy to staging, see https://example.com/runbook", "default behavior preference", "by-default-deploy-to-staging-see-httpsexample-comrunbook-6ce69fec", "reference", "By default deploy to staging, see https://example.com/runbook"),
    ("记住：提交前先运行 make lint", "提交前先运行 make lint", "explicit remember request", "make-lint", "user", "提交前先运行 make lint"),
    ("I never want you to push directly to the main branch of github.com/acme/repo without asking", "never want you to push directly to the main branch of github.com/acme/repo without asking", "negative working preference", "never-want-you-to-push-directly-to-the-main-branch-of-gi-3a4c72e0", "reference", "never want you to push directly to the main branch of github.co..."),
    ("   ALWAYS   keep\tthe changelog\nupdated   ", "ALWAYS keep the changelog updated", "persistent working rule", "always-keep-the-changelog-updated", "feedback", "ALWAYS keep the changelog updated"),
    ("İstanbul team always reviews on Fridays", "always reviews on Fridays", "persistent working rule", "always-reviews-on-fridays", "feedback", "always reviews on Fridays"),
    ("The preference here is Ruff over Black for formatting the whole codebase and every other Python project we maintain in this organization", "preference here is Ruff over Black for formatting the whole codebase and every other Python project we maintain in this organization", "user preference", "preference-here-is-ruff-over-black-for-formatting-the-wh-f70eb74c", "project", "preference here is Ruff over Black for formatting the whole cod..."),
    ("约定：分支命名用 feat/xxx", "分支命名用 feat/xxx", "project convention", "featxxx", "project", "分支命名用 feat/xxx"),
    ("不要在周五部署生产环境", "不要在周五部署生产环境", "negative working preference", "memory-candidate-a9af4347", "feedback", "不要在周五部署生产环境"),
    ("remember—the staging DB is read-only", "the staging DB is read-only", "explicit remember request", "the-staging-db-is-read-only", "user", "the staging DB is read-only"),
    ("ALWAYS: Use the ΣIGMA helper", "ALWAYS: Use the ΣIGMA helper", "persistent working rule", "always-use-the-igma-helper", "feedback", "ALWAYS: Use the ΣIGMA helper"),
]


@pytest.mark.parametrize(("text", "statement", "reason", "name", "type_", "title"), GOLDEN)
def test_reasonix_golden_vectors(text: str, statement: str, reason: str, name: str, type_: str, title: str) -> None:
    assert S.extract_memory_statement(text) == (statement, reason)
    assert S.stable_suggestion_name(statement) == name
    assert S.infer_memory_type(statement) == type_
    assert S._title(statement, "Memory candidate") == title


def test_statement_length_bounds() -> None:
    assert S.extract_memory_statement("always") == ("", "")  # 6 runes
    assert S.extract_memory_statement("x" * 425 + " always") == ("", "")
    assert S.extract_memory_statement("no marker in this sentence at all") == ("", "")


def test_candidate_body_and_evidence_formats() -> None:
    body = S.memory_candidate_body("以后请始终用中文回复，除非我明确要求英文。", "future-facing preference", "sess-1")
    assert body == (
        "以后请始终用中文回复，除非我明确要求英文。\n\n"
        "**Why:** Suggested from recent local history (future-facing preference).\n"
        "**How to apply:** Treat this as durable guidance only after the user confirms it still applies.\n"
        "\nEvidence: [sess-1] 以后请始终用中文回复，除非我明确要求英文。"
    )
    assert S.memory_candidate_body("x", "", "") == (
        "x\n\n**Why:** Suggested from recent local history.\n"
        "**How to apply:** Treat this as durable guidance only after the user confirms it still applies.\n"
    )
    assert S.session_evidence("s1", "/p/s1.jsonl", "a " * 200) == "s1: " + ("a " * 80)[:159] + "..."
    assert S.session_evidence("", "/p/x.jsonl", "hi") == "x.jsonl: hi"


def test_name_rules() -> None:
    assert S.ascii_slug("  Hello, World -- __x.y  ") == "hello-world-x-y"
    assert S.ascii_slug("中文") == ""
    assert S.is_well_formed_slug("a-b-c1") and not S.is_well_formed_slug("a--b") and not S.is_well_formed_slug("-a")
    assert not S.is_well_formed_slug("A") and not S.is_well_formed_slug("a" * 129)
    long = "x" * 56 + "-deadbeef"
    assert S.accepted_suggestion_name(long, "desc") == long  # the hash suffix survives
    assert S.accepted_suggestion_name("Bad Name", "Use pnpm for installs") == "use-pnpm-for-installs"
    assert S.accepted_suggestion_name("", "中文描述") == "memory-candidate"


def test_existing_covers() -> None:
    assert S.existing_covers(["always use pnpm for installs"], "use pnpm")
    assert S.existing_covers(["pnpm"], "always use pnpm")  # the key contains the existing text
    assert not S.existing_covers(["", "yarn"], "always use pnpm")
    assert S.existing_covers([], "")


def test_skill_body_format() -> None:
    cat = S.WORKFLOW_CATEGORIES[0]
    body = S.skill_candidate_body(cat, ["a: one", "b: two"])
    assert body.startswith("# Pr Followup\n\nUse this skill when the user asks for this repeated Reasonix workflow.\n\n## Evidence\n\n- a: one\n- b: two\n\n## Workflow\n\n1. Fetch the live PR state")
    assert body.endswith("\n## Stop Condition\n\nFinish only after the requested change is implemented, verified, and any requested PR or UI update is delivered.\n")
    assert S.skill_candidate_body(S.WORKFLOW_CATEGORIES[2], []).startswith("# Desktop Ui Iteration\n")
    assert S.skill_candidate_body(S.WORKFLOW_CATEGORIES[1], []).startswith("# Memory Ui\n")


# --------------------------------------------------------------------------------------
# End to end on a home with real session files


def session(path: Path, msgs: list[dict[str, object]], mtime: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(['{"schema_version":1}'] + [json.dumps(m, ensure_ascii=False) for m in msgs]) + "\n", encoding="utf-8")
    if mtime is not None:
        os.utime(path, ns=(mtime * 1_000_000_000, mtime * 1_000_000_000))
    return path


def user(text: str, **kw: object) -> dict[str, object]:
    return {"role": "user", "content": text, **kw}


@pytest.fixture
def home(layout: Layout) -> Layout:
    sd = layout.project_sessions_dir
    session(sd / "old.jsonl", [user("We prefer squash merges on every PR to main"), {"role": "assistant", "content": "ok"}], 1_700_000_000)
    session(sd / "new.jsonl", [
        user("以后请始终用中文回复，除非我明确要求英文。", createdAt=1_750_000_000_000),
        user("Host progress check: 3 steps left"),  # legacy host text, not the person
        user("<memory-update>x</memory-update>\nalways be brief", origin="host"),
        user("wrapped", raw_content="Remember: the staging DB is read-only", origin="user"),
        user("Please review the pull request and update the PR description"),
    ], 1_750_000_000)
    return layout


def test_memory_candidates_from_sessions(home: Layout) -> None:
    view = S.list_suggestions(home)
    assert view.available and view.sessions == 2
    hist = [m for m in view.memories if m.origin == "history"]
    assert [m.description for m in hist] == [
        "以后请始终用中文回复，除非我明确要求英文。",  # newest session first, oldest message first
        "Remember: the staging DB is read-only",  # raw_content wins
        "prefer squash merges on every PR to main",
    ]
    zh = hist[0]
    assert zh.id == "memory-memory-candidate-e2cf7f06" and zh.type == "feedback" and zh.scope == "project"
    assert zh.evidence == ("new: 以后请始终用中文回复，除非我明确要求英文。",)
    ev = zh.sources[0]
    assert ev.label == "new" and ev.line == 0 and ev.at is not None and ev.at.rfc3339() == "2025-06-15T15:06:40Z"
    assert ev.path.endswith("new.jsonl")
    payload = view.to_json()
    assert list(payload)[:5] == ["memories", "skills", "generatedAt", "available", "source"]
    assert payload["source"] == "local-history" and payload["generatedAt"].endswith("Z") and "." not in payload["generatedAt"]


def test_dedup_against_facts_and_instructions(home: Layout) -> None:
    store = Store(home)
    store.save(SaveRequest(name="merges", description="Merge policy", body="We PREFER squash merges on every PR to main, always."))
    (home.workspace / "AGENTS.md").write_text("# Rules\n\nRemember: the staging DB is read-only\n", encoding="utf-8")
    descs = [m.description for m in S.list_suggestions(home, store).memories if m.origin == "history"]
    assert descs == ["以后请始终用中文回复，除非我明确要求英文。"]


def test_session_limit_and_candidate_limit(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    for i in range(14):
        session(sd / f"s{i:02d}.jsonl", [user(f"always use tool number {i} for task {i}"), user(f"never skip step {i} of the checklist")], 1_700_000_000 + i)
    sessions = S.load_suggestion_sessions(layout)
    assert len(sessions) == 12 and sessions[0].id == "s13" and sessions[-1].id == "s02"
    hist = [m for m in S.list_suggestions(layout).memories if m.origin == "history"]
    assert len(hist) == 6
    assert [m.sources[0].label for m in hist] == ["s13", "s13", "s12", "s12", "s11", "s11"]


def test_skill_candidates(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    session(sd / "a.jsonl", [user("hello there"), user("please fix the layout of the settings 页面")], 1_700_000_003)
    session(sd / "b.jsonl", [user("the desktop button is misaligned")], 1_700_000_002)
    session(sd / "c.jsonl", [user("nothing relevant here")], 1_700_000_001)
    skills = {s.name: s for s in S.list_suggestions(layout).skills}
    ui = skills["desktop-ui-iteration"]
    assert ui.id == "skill-desktop-ui-iteration" and ui.scope == "project"
    assert ui.evidence == ("a: please fix the layout of the settings 页面", "b: the desktop button is misaligned")
    assert ui.body.startswith("# Desktop Ui Iteration\n")
    # An existing skill with that name suppresses the candidate.
    (layout.workspace / ".claude" / "skills" / "desktop-ui-iteration").mkdir(parents=True)
    (layout.workspace / ".claude" / "skills" / "desktop-ui-iteration" / "SKILL.md").write_text("---\nname: x\n---\n")
    assert "desktop-ui-iteration" not in {s.name for s in S.list_suggestions(layout).skills}


def test_claude_sessions_and_cli_sessions_of_this_workspace(layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    cdir = tmp_path / "claude" / "projects" / claude_project_slugs(layout.workspace)[0]
    cdir.mkdir(parents=True)
    (cdir / "c1.jsonl").write_text("\n".join(json.dumps(x) for x in [
        {"type": "user", "sessionId": "c1", "timestamp": "2025-07-01T00:00:00Z", "message": {"role": "user", "content": "Always run pytest with -q in this repo"}},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "always meta noise text"}},
        {"type": "user", "isSidechain": True, "message": {"role": "user", "content": "always sidechain prompt text"}},
    ]) + "\n")
    mine = session(layout.global_sessions_dir / "cli-mine.jsonl", [user("never commit generated files in this project")])
    (layout.global_sessions_dir / "cli-mine.jsonl.meta").write_text(json.dumps({"id": "cli-mine", "workspace_root": str(layout.workspace), "updated_at": "2025-01-01T00:00:00Z"}))
    session(layout.global_sessions_dir / "cli-other.jsonl", [user("never touch the other project")])
    (layout.global_sessions_dir / "cli-other.jsonl.meta").write_text(json.dumps({"workspace_root": "/elsewhere"}))
    hist = [m for m in S.list_suggestions(layout).memories if m.origin == "history"]
    assert {m.description for m in hist} == {"Always run pytest with -q in this repo", "never commit generated files in this project"}
    claude = next(m for m in hist if m.sources[0].source == "claude-session")
    assert claude.sources[0].label == "c1" and claude.sources[0].at.rfc3339() == "2025-07-01T00:00:00Z"
    assert mine.exists()


def test_dismissed_stays_dismissed_and_restore(home: Layout) -> None:
    first = S.list_suggestions(home).memories[0]
    S.dismiss_suggestion(home, first.id)
    assert first.id not in {m.id for m in S.list_suggestions(home).memories}
    # New sessions with the same sentence produce the same id: still dismissed.
    session(home.project_sessions_dir / "newer.jsonl", [user("以后请始终用中文回复，除非我明确要求英文。")], 1_800_000_000)
    view = S.list_suggestions(home)
    assert first.id not in {m.id for m in view.memories} and view.hidden == 1
    assert first.id in {m.id for m in S.list_suggestions(home, include_hidden=True).memories}
    assert S.dismiss_suggestion(home, first.id) is None  # idempotent
    assert json.loads(S.state_path(home).read_text())["dismissed"][first.id]["title"] == first.title
    assert S.restore_suggestion(home, first.id)
    assert first.id in {m.id for m in S.list_suggestions(home).memories}
    with pytest.raises(NotFound, match='suggestion "nope" not found'):
        S.dismiss_suggestion(home, "nope")


def test_accept_writes_through_the_store(home: Layout) -> None:
    store = Store(home, actor="context-center")
    sug = next(m for m in S.list_suggestions(home, store).memories if m.description.startswith("Remember"))
    res = S.accept_suggestion(home, sug.id, store=store)
    fact = res.fact
    assert res.kind == "memory" and res.created and fact.revision == 1
    assert fact.name == sug.name and fact.description == sug.description and fact.type == sug.type
    assert fact.body == sug.body.strip() and Path(res.path).is_file()
    audit = [json.loads(x) for x in home.audit_log.read_text().splitlines()]
    assert audit[-1]["actor"] == "context-center" and audit[-1]["op"] == "create"
    assert sug.id not in {m.id for m in S.list_suggestions(home, store).memories}
    # Accepting an edited draft with the same name gives revision 2 of that fact.
    other = S.MemorySuggestion(
        id="memory-x", name=sug.name, title="T", description="  edited\n description ", type="nonsense",
        scope="global", body="  new body  ", reason="", evidence=())
    res2 = S.accept_suggestion(home, other, S.SuggestionEdits(title="Edited title"), store=store)
    assert res2.fact.revision == 2 and not res2.created and res2.fact.description == "edited description"
    assert res2.fact.title == "Edited title" and res2.fact.body == "new body"


def test_accept_validation(home: Layout) -> None:
    sug = S.list_suggestions(home).memories[0]
    with pytest.raises(InvalidInput, match="^memory suggestion requires description and body$"):
        S.accept_suggestion(home, sug.id, S.SuggestionEdits(body="   "))
    with pytest.raises(InvalidInput, match="requires description and body"):
        S.accept_suggestion(home, sug.id, S.SuggestionEdits(description=""))
    with pytest.raises(NotFound):
        S.accept_suggestion(home, "memory-does-not-exist")
    assert not list(Store(home).list_all())


def test_accept_skill_never_overwrites(layout: Layout) -> None:
    sug = S.SkillSuggestion(id="skill-demo", name="demo-flow", description='Do: the "demo" flow', scope="project",
                            body="# Demo\n\nsteps\n", reason="r", evidence=())
    res = S.accept_suggestion(layout, sug)
    path = layout.workspace / ".reasonix" / "skills" / "demo-flow" / "SKILL.md"
    assert res.path == str(path)
    assert path.read_text() == "---\nname: demo-flow\ndescription: 'Do: the \"demo\" flow'\n---\n\n# Demo\n\nsteps\n"
    with pytest.raises(InvalidInput, match="already exists"):
        S.accept_suggestion(layout, sug)
    g = S.accept_suggestion(layout, sug, S.SuggestionEdits(scope="global", name="demo-global"))
    assert g.path == str(layout.root / "skills" / "demo-global" / "SKILL.md")
    with pytest.raises(InvalidInput, match="^skill suggestion requires name, description, and body$"):
        S.accept_suggestion(layout, sug, S.SuggestionEdits(name=""))


def test_memory_wanted_from_repeated_misses(layout: Layout) -> None:
    for _ in range(2):
        history_tool_call(layout, {"operation": "search", "query": "kubernetes ingress timeout"})
    history_tool_call(layout, {"operation": "search", "query": "only once"})
    wanted = [m for m in S.list_suggestions(layout).memories if m.origin == "memory-wanted"]
    assert [m.description for m in wanted] == ["Answer for: kubernetes ingress timeout"]
    w = wanted[0]
    assert w.needs_edit and w.reason == "searched 2 times without a result" and len(w.sources) == 2
    assert all(e.source == "history-miss" for e in w.sources)
    with pytest.raises(InvalidInput, match="not an answer"):
        S.accept_suggestion(layout, w.id)
    res = S.accept_suggestion(layout, w.id, S.SuggestionEdits(body="Ingress timeout is 60s; raise it in values.yaml", description="Ingress timeout"))
    assert res.fact.body == "Ingress timeout is 60s; raise it in values.yaml"
    # The answer now exists: the query is covered.
    assert not [m for m in S.list_suggestions(layout, include_hidden=True).memories if m.origin == "memory-wanted"]


def test_import_claude_auto_memory(layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    mdir = tmp_path / "claude" / "projects" / claude_project_slugs(layout.workspace)[0] / "memory"
    mdir.mkdir(parents=True)
    (mdir / "testing.md").write_text("---\nname: testing-setup\ndescription: How tests run here\ntype: project\n---\n\nRun `make test`; the DB fixture needs Docker.\n")
    (mdir / "MEMORY.md").write_text("# Memory\n\n- [Testing](testing.md) — how tests run\n- The user prefers short answers without emojis\n- tiny\n")
    imported = [m for m in S.list_suggestions(layout).memories if m.origin == "claude-memory"]
    by_name = {m.name: m for m in imported}
    topic = by_name["testing-setup"]
    assert topic.id == "claude-testing-setup" and topic.type == "project" and topic.description == "How tests run here"
    assert topic.body == "Run `make test`; the DB fixture needs Docker."
    assert topic.sources[0].path == str(mdir / "testing.md") and topic.evidence[0].endswith("testing.md: How tests run here")
    bullet = next(m for m in imported if m.description == "The user prefers short answers without emojis")
    assert bullet.sources[0].line == 4 and bullet.type == "project"  # Reasonix's "pr" matches inside "prefers"
    assert len(imported) == 2  # the link-only bullet and the too-short one are not candidates
    S.accept_suggestion(layout, topic.id)
    assert Store(layout).find("testing-setup") is not None


def test_import_other_agents_notes(layout: Layout, isolated_home: Path) -> None:
    (layout.workspace / "GEMINI.md").write_text("# Notes\n\n- Use uv for every Python dependency change\n```\n- not a note in code\n```\n- ok\n")
    (layout.workspace / ".cursor" / "rules").mkdir(parents=True)
    (layout.workspace / ".cursor" / "rules" / "style.mdc").write_text("---\ndescription: style\n---\nPrefer dataclasses over dicts for records\n")
    (isolated_home / ".codex").mkdir()
    (isolated_home / ".codex" / "AGENTS.md").write_text("* Never print secrets to the terminal\n")
    notes = [m for m in S.list_suggestions(layout).memories if m.origin == "agent-notes"]
    assert {(m.description, m.scope) for m in notes} == {
        ("Use uv for every Python dependency change", "project"),
        ("Prefer dataclasses over dicts for records", "project"),
        ("Never print secrets to the terminal", "global"),
    }
    uv = next(m for m in notes if "uv" in m.description)
    assert uv.evidence == ("GEMINI.md:3: Use uv for every Python dependency change",)
    style = next(m for m in notes if "dataclasses" in m.description)
    assert style.sources[0].line == 4 and style.evidence[0].startswith(os.path.join(".cursor", "rules", "style.mdc") + ":4: ")
    codex = next(m for m in notes if m.scope == "global")
    assert codex.evidence[0].startswith("~/.codex/AGENTS.md:1: ")


def test_memory_disabled(home: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONIX_EXPERIMENT_NO_MEMORY", "1")
    view = S.list_suggestions(home)
    assert not view.available and view.memories == () and view.skills == ()
    assert view.to_json()["memories"] == [] and view.to_json()["skills"] == []


# --------------------------------------------------------------------------------------
# CLI


def test_cli_suggest_accept_dismiss(home: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--home", str(home.root), "--workspace", str(home.workspace)]
    assert main(base + ["suggest"]) == 0
    out = capsys.readouterr().out
    assert "memory-memory-candidate-e2cf7f06  [memory · history]" in out
    assert "evidence: [new · 2025-06-15T15:06:40Z] 以后请始终用中文回复，除非我明确要求英文。" in out
    assert main(base + ["suggest", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ids = [m["id"] for m in data["memories"]]
    assert "memory-prefer-squash-merges-on-every-pr-to-main" in ids
    assert main(base + ["suggest", "dismiss", "memory-prefer-squash-merges-on-every-pr-to-main"]) == 0
    assert capsys.readouterr().out == "dismissed memory-prefer-squash-merges-on-every-pr-to-main\n"
    assert main(base + ["suggest", "accept", "memory-memory-candidate-e2cf7f06", "--name", "reply-in-chinese", "--json"]) == 0
    acc = json.loads(capsys.readouterr().out)
    assert acc["ref"] == "project/reply-in-chinese.md" and acc["revision"] == 1
    assert main(base + ["suggest", "--json"]) == 0
    left = [m["id"] for m in json.loads(capsys.readouterr().out)["memories"]]
    assert "memory-memory-candidate-e2cf7f06" not in left and "memory-prefer-squash-merges-on-every-pr-to-main" not in left
    assert main(base + ["suggest", "accept", "missing-id"]) == 1
    assert 'suggestion "missing-id" not found' in capsys.readouterr().err
    assert main(base + ["suggest", "accept", "memory-remember-the-staging-db-is-read-only", "--body", " "]) == 2
    # --all shows what was dismissed or accepted, and says which
    capsys.readouterr()
    assert main(base + ["suggest", "--all"]) == 0
    out = capsys.readouterr().out
    assert "memory-prefer-squash-merges-on-every-pr-to-main  [memory · history · dismissed]" in out
    assert "undo a dismissal with `reasonix-tui suggest restore ID`" in out
    assert main(base + ["suggest", "--all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dismissed"] == ["memory-prefer-squash-merges-on-every-pr-to-main"]
    assert main(base + ["suggest"]) == 0
    out = capsys.readouterr().out
    assert "[memory · history · dismissed]" not in out and "`reasonix-tui suggest --all` shows them" in out
    assert main(base + ["suggest", "restore", "memory-prefer-squash-merges-on-every-pr-to-main"]) == 0
    assert main(base + ["suggest", "restore", "memory-prefer-squash-merges-on-every-pr-to-main"]) == 2


def test_cli_says_when_every_candidate_is_hidden(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    session(layout.project_sessions_dir / "one.jsonl", [user("never deploy on Fridays please")], 1_700_000_000)
    base = ["--home", str(layout.root), "--workspace", str(layout.workspace)]
    [cand] = S.list_suggestions(layout).memories
    assert main(base + ["suggest", "dismiss", cand.id]) == 0
    capsys.readouterr()
    assert main(base + ["suggest"]) == 0
    assert capsys.readouterr().out == (
        "suggestions: none (scanned 1 sessions; 1 dismissed or accepted hidden, "
        "`reasonix-tui suggest --all` shows them)\n"
    )
    view = S.list_suggestions(layout, include_hidden=True)
    assert view.state_of(cand.id) == "dismissed" and view.hidden == 0


def test_hidden_and_empty_sessions_are_not_scanned(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    session(sd / "hidden.jsonl", [user("always deploy on Tuesdays only")], 1_900_000_000)
    (sd / "hidden.cleanup-pending.json").write_text("{}")
    session(sd / "empty.jsonl", [{"role": "assistant", "content": "always talking alone"}], 1_800_000_000)
    session(sd / "real.jsonl", [user("never deploy on Fridays please")], 1_700_000_000)
    sessions = S.load_suggestion_sessions(layout)
    assert [s.id for s in sessions] == ["real"]
    assert [m.description for m in S.list_suggestions(layout).memories] == ["never deploy on Fridays please"]

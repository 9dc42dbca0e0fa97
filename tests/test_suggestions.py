"""Suggestions: durable statements scored by signals (not marker words), corrections with
their context, ranking then capping, merging across phrasing and language and against
existing facts, skills from repeated procedures, readable names, the window, the miner's
cache, dismissal, accepting through the store, imports, and the CLI."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.sessions import suggestions as S
from reasonix_tui.core.sessions.claude import claude_project_slugs
from reasonix_tui.core.sessions.history_tool import history_tool_call
from reasonix_tui.core.sessions.suggestions import signals as sig
from reasonix_tui.core.sessions.suggestions.entities import entities
from reasonix_tui.core.sessions.suggestions.mining import cache_path, mine_sessions
from reasonix_tui.core.sessions.suggestions.procedures import command_keys, find_procedures
from reasonix_tui.core.sessions.suggestions.sentences import has_cjk, prepare_text
from reasonix_tui.core.settings import Settings, load_settings
from reasonix_tui.core.store.model import InvalidInput, NotFound
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations.cli import main

DAY_MS = 86_400_000
T0 = 1_784_000_000_000  # 2026-07-14, unix ms


# --------------------------------------------------------------------------------------
# Writing real session files


def reasonix_session(path: Path, msgs: list[dict[str, Any]], mtime_ms: int | None = None) -> Path:
    """A Reasonix session: header, then provider messages."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "\n".join(['{"schema_version":1}'] + [json.dumps(m, ensure_ascii=False) for m in msgs]) + "\n", encoding="utf-8"
    )
    if mtime_ms is not None:
        os.utime(path, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))
    return path


def user(text: str, at: int = T0, **kw: Any) -> dict[str, Any]:
    return {"role": "user", "origin": "user", "content": text, "createdAt": at, **kw}


def assistant(text: str = "", at: int = T0, call: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": text, "createdAt": at}
    if call:
        msg["tool_calls"] = [
            {"id": f"c{abs(hash(json.dumps(call[1]))) % 10**6}", "name": call[0], "arguments": json.dumps(call[1])}
        ]
    return msg


def bash(command: str, at: int = T0) -> dict[str, Any]:
    return assistant(at=at, call=("bash", {"command": command}))


def claude_transcript(layout: Layout, claude_dir: Path, sid: str, records: list[dict[str, Any]]) -> Path:
    cdir = claude_dir / "projects" / claude_project_slugs(layout.workspace)[0]
    cdir.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, r in enumerate(records):
        base = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": str(layout.workspace),
            "sessionId": sid,
            "version": "2.0.37",
            "gitBranch": "main",
            "uuid": f"{sid}-{i}",
            "timestamp": f"2026-07-14T09:{i:02d}:00.000Z",
        }
        lines.append(json.dumps({**base, **r}, ensure_ascii=False))
    path = cdir / f"{sid}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def c_user(text: str, **kw: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}, **kw}


def c_bash(command: str, tool_id: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "message": {
            "id": "msg_" + tool_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}],
        },
    }


def c_result(tool_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": text}]},
    }


def memories(view: S.SuggestionsView) -> list[S.MemorySuggestion]:
    return [m for m in view.memories if m.origin == "history"]


@pytest.fixture
def claude_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(d))
    return d


# --------------------------------------------------------------------------------------
# Signals: what reads as durable, in either language


DURABLE = [
    "From now on keep answers short, no summaries at the end.",
    "We use pnpm here, never npm.",
    "PR to develop like always",
    "deploys go through ArgoCD now",
    "the staging DB is stg-db-2",
    "Don't touch anything under vendor/, it's generated.",
    "Heads-up: the payments service is owned by @lina-ops.",
    "money is always an integer number of cents, never a float",
    "we validate all request bodies with zod",
    "以后回答都用中文。",
    "数据库迁移一律用 alembic，不要手写 SQL。",
    "提交信息统一用 Conventional Commits 格式",
    "生产日志都在 Loki 里，入口是 grafana.internal",
    # general causes found by the fresh histories, in other wording: an obligation with a
    # quantified subject and its consequence, a definition behind a label, a prohibition after
    # "but" with a permission, "多…少…", a Chinese "…的时候" condition with 只能 (five more new
    # wordings stay under the threshold on their own: see the suite's README)
    "each migration has to be reversible, or the rollback job fails",
    "Background: the queue lives in eu-central-1 and the replica is in eu-west-2",
    "but don't bump the node engine without asking me first",
    "写文档的时候多放截图，少写大段文字",
    "发版的时候只能从 release 分支打 tag，不然 CI 不会签名",
]
NOT_DURABLE = [
    ("I never understood why this test is flaky?", "question"),
    ("Why does the badge never update when I remove an item", "question"),
    ("为什么这个任务每次都跑两遍？", "question"),
    ("For this PR only, skip the snapshot tests", "one-off scoping"),
    ("这次先不用写测试", "one-off scoping"),
    ('The vendor docs say "always retry on 409" here', "quoted"),
    ("不要紧，先这样吧", ""),
    ("never mind, I fixed it myself", ""),
    ("Add a 10% discount for orders over 50 euros", ""),
    ("帮我把按钮改成蓝色", ""),
    ("the users always complain about checkout speed", ""),
    ("这个函数以后可能会删掉", ""),
    ("it's broken like always", ""),
    ("I must have missed that line", ""),
    ("we have to fix this before lunch", ""),
    ("我昨天调试的时候发现日志没输出", ""),
    ("but it works on my machine", ""),
]


@pytest.mark.parametrize("text", DURABLE)
def test_durable_statements_score_above_the_threshold(text: str) -> None:
    sc = sig.score_sentence(text)
    assert not sc.excluded and sc.score >= sig.THRESHOLD, (sc.score, sc.reasons)


@pytest.mark.parametrize(("text", "excluded"), NOT_DURABLE)
def test_noise_stays_below_the_threshold(text: str, excluded: str) -> None:
    sc = sig.score_sentence(text)
    assert sc.score < sig.THRESHOLD or sc.excluded, (sc.score, sc.reasons)
    if excluded:
        assert sc.excluded == excluded


def test_pasted_code_and_quotes_are_not_the_persons_words() -> None:
    text = "keep the semantics:\n```ts\n// always round down\nreturn Math.floor(v)\n```\n> never use floats\nok?"
    prose, removed = prepare_text(text)
    assert "always" not in prose and "never" not in prose and set(removed) == {"code", "quote"}
    log = 'getting this:\nTraceback (most recent call last):\n  File "x.py", line 3, in f\nAssertionError: should never be negative'
    prose, removed = prepare_text(log)
    assert "never" not in prose and "paste" in removed


def test_entities_and_clean_statement() -> None:
    kinds = {
        (e.kind, e.value)
        for e in entities(
            "Staging is pg-stg-02.internal:5433, logs at https://grafana.example.com, see `make test-fast` in app/reconcile/ "
            "(owner @lina, env DATABASE_URL, Python 3.12, deploys via ArgoCD)"
        )
    }
    assert {
        ("host", "pg-stg-02.internal:5433"),
        ("url", "https://grafana.example.com"),
        ("code", "make test-fast"),
        ("path", "app/reconcile/"),
        ("handle", "@lina"),
        ("env", "database_url"),
        ("version", "3.12"),
        ("name", "argocd"),
    } <= kinds
    assert (
        sig.clean_statement("commit message 不对，我们统一用 Conventional Commits 格式，记住这个")
        == "我们统一用 Conventional Commits 格式"
    )
    assert sig.clean_statement("ok also, PR to develop like always") == "PR to develop"
    assert sig.clean_statement("no no, use `yarn test:unit`") == "Use `yarn test:unit`"
    assert sig.clean_statement("now the export endpoint") == "Now the export endpoint"  # "no" is not cut from "now"


# --------------------------------------------------------------------------------------
# Statements in sessions: whole statement, right message, correction context


def test_statement_keeps_the_whole_message_and_points_at_it(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    reasonix_session(
        sd / "a.jsonl",
        [
            {"role": "system", "content": "You are Reasonix."},
            user("Add the bundle discount to the cart."),
            bash("npm install date-fns"),
            {"role": "tool", "tool_call_id": "x", "name": "bash", "content": "added 1 package"},
            user("Stop, this repo is on yarn (berry), not npm. npm just created a package-lock.json. Delete it."),
            user("Please review the pull request and update the PR description"),
        ],
        T0,
    )
    [m] = memories(S.list_suggestions(layout))
    assert m.description == "This repo is on yarn (berry), not npm."  # a clean rule, not a cut sentence
    [src] = m.sources
    assert src.line == 4 and src.label == "a" and src.path.endswith("a.jsonl")
    assert src.text.startswith("Stop, this repo is on yarn") and src.text.endswith("Delete it.")  # the whole statement
    assert src.context == "bash: npm install date-fns"
    assert any(r.startswith("correction of the previous step (bash: npm install date-fns)") for r in m.reasons)
    assert m.score >= sig.THRESHOLD and "correcting `npm install date-fns`" in m.body
    assert "confirm" not in m.body.lower()


def test_a_plain_correction_without_marker_words_is_found(layout: Layout) -> None:
    reasonix_session(
        layout.project_sessions_dir / "t.jsonl",
        [
            user("run the tests"),
            bash("make test"),
            {"role": "tool", "tool_call_id": "x", "name": "bash", "content": "error: docker: command not found"},
            user("no, use `make test-fast`, the full suite needs docker"),
        ],
        T0,
    )
    [m] = memories(S.list_suggestions(layout))
    assert "make test-fast" in m.title and m.sources[0].context == "bash: make test"


def test_host_meta_compaction_and_wrappers_are_never_candidates(layout: Layout, claude_dir: Path) -> None:
    claude_transcript(
        layout,
        claude_dir,
        "c1",
        [
            {"type": "summary", "summary": "always use pnpm", "leafUuid": "x"},
            c_user("Caveat: The messages below were generated by the user while running local commands.", isMeta=True),
            c_user(
                "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"
            ),
            c_user("<local-command-stdout>always never from now on</local-command-stdout>"),
            c_user(
                "This session is being continued from a previous conversation. The user said: from now on always use pnpm.",
                isCompactSummary=True,
            ),
            c_user("<bash-input>never run this</bash-input>"),
            c_user("from now on always run the linter before committing", isSidechain=True),
            c_bash("cat README", "t1"),
            c_result("t1", "Always run `make lint` before committing. Never push to main."),
            c_user("ok thanks"),
        ],
    )
    reasonix_session(
        layout.project_sessions_dir / "r.jsonl",
        [
            user("hi"),
            {
                "role": "user",
                "origin": "host",
                "content": "Summary of earlier conversation (compacted up to here):\nfrom now on always use pnpm",
            },
            {
                "role": "user",
                "content": "Host progress check: always use pnpm from now on",
            },  # legacy host text, no origin
            user("<memory-update>from now on always use pnpm</memory-update>\nthanks"),
        ],
        T0,
    )
    view = S.list_suggestions(layout)
    assert memories(view) == [] and view.sessions == 2


# --------------------------------------------------------------------------------------
# Ranking, capping, window


def _many(layout: Layout, n: int) -> None:
    for i in range(n):
        reasonix_session(
            layout.project_sessions_dir / f"s{i:02d}.jsonl",
            [
                user(f"From now on always deploy service-{i} through the blue pipeline-{i}.", at=T0 + i * 60_000),
            ],
            T0 + i * 60_000,
        )


def test_rank_then_cap_and_dismissing_brings_the_next_in(layout: Layout) -> None:
    _many(layout, 14)
    settings = Settings(suggestions_limit=5)
    view = S.list_suggestions(layout, settings=settings)
    assert view.sessions == 14 and len(view.memories) == 5 and view.more == 9  # not the 12 newest files
    first = view.memories[0]
    S.dismiss_suggestion(layout, first.id)
    after = S.list_suggestions(layout, settings=settings)
    assert len(after.memories) == 5 and first.id not in {m.id for m in after.memories}
    assert [m.id for m in after.memories][:4] == [m.id for m in view.memories][1:5]  # the next one came in
    assert after.hidden == 1 and after.more == 8
    everything = S.list_suggestions(layout, settings=settings, include_hidden=True)
    assert len(everything.memories) == 14 and everything.state_of(first.id) == "dismissed"
    assert sum(everything.state_of(m.id) == "below" for m in everything.memories) == 8


def test_ranking_uses_repetition_then_recency(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    reasonix_session(sd / "a.jsonl", [user("From now on run `make lint` before every commit.", at=T0)], T0)
    reasonix_session(
        sd / "b.jsonl",
        [user("Remember: run `make lint` before every commit, CI rejects lint errors.", at=T0 + 1000)],
        T0 + 1000,
    )
    reasonix_session(
        sd / "c.jsonl", [user("From now on the staging API lives at api.stg.example.com.", at=T0 + 2000)], T0 + 2000
    )
    ms = memories(S.list_suggestions(layout))
    assert "make lint" in ms[0].title and len(ms[0].sources) == 2 and "said in 2 sessions" in ms[0].reasons


def test_the_window_is_a_time_span_setting(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    reasonix_session(
        sd / "old.jsonl", [user("From now on deploys go through ArgoCD.", at=T0 - 60 * DAY_MS)], T0 - 60 * DAY_MS
    )
    reasonix_session(sd / "new.jsonl", [user("From now on the staging DB is stg-db-2.", at=T0)], T0)
    assert [m.sources[0].label for m in memories(S.list_suggestions(layout))] == ["new"]
    wide = S.list_suggestions(layout, settings=Settings(suggestions_window_days=0))
    assert {m.sources[0].label for m in memories(wide)} == {"old", "new"} and wide.window_days == 0


def test_settings_for_window_and_limit(state_root: Path) -> None:
    path = state_root / "reasonix-tui" / "settings.toml"
    path.parent.mkdir(parents=True)
    path.write_text("[suggestions]\nwindow_days = 7\nlimit = 4\n")
    s = load_settings(state_root, env={})
    assert (s.suggestions_window_days, s.suggestions_limit) == (7, 4) and s.problems == ()
    path.write_text("[suggestions]\nwindow_days = -1\nlimit = 0\n")
    s = load_settings(state_root, env={})
    assert (s.suggestions_window_days, s.suggestions_limit) == (30, 12) and len(s.problems) == 2


# --------------------------------------------------------------------------------------
# Merging, and against what is already known


def test_the_same_rule_in_two_languages_and_in_auto_memory_is_one_candidate(layout: Layout, claude_dir: Path) -> None:
    reasonix_session(
        layout.project_sessions_dir / "a.jsonl",
        [
            bash("npm install zod", at=T0),
            user("Stop, we use yarn here, not npm.", at=T0 + 1),
        ],
        T0,
    )
    reasonix_session(
        layout.project_sessions_dir / "b.jsonl",
        [
            user("对了，装依赖记得用 yarn，不要用 npm。", at=T0 + DAY_MS),
        ],
        T0 + DAY_MS,
    )
    mdir = claude_dir / "projects" / claude_project_slugs(layout.workspace)[0] / "memory"
    mdir.mkdir(parents=True)
    (mdir / "MEMORY.md").write_text("# Memory\n\n- Package manager is yarn (berry); never npm\n")
    view = S.list_suggestions(layout)
    [m] = view.memories
    assert {s.source for s in m.sources} == {"session", "claude-memory"} and len(m.sources) == 3
    assert "said in 2 sessions" in m.reasons and "also in Claude Code auto-memory" in m.reasons


def test_a_newer_value_of_the_same_fact_replaces_the_older(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    reasonix_session(
        sd / "a.jsonl", [user("FYI the staging database is stg-db-1.internal on port 5432 now.", at=T0)], T0
    )
    reasonix_session(
        sd / "b.jsonl",
        [user("FYI the staging database is stg-db-2.internal on port 5433 now, db-1 is gone.", at=T0 + DAY_MS)],
        T0 + DAY_MS,
    )
    reasonix_session(
        sd / "c.jsonl",
        [
            user("From now on deploy service-a through pipeline-a.", at=T0),
            user("From now on deploy service-b through pipeline-b.", at=T0 + 1),
        ],
        T0 + 2,
    )
    ms = memories(S.list_suggestions(layout))
    staging = [m for m in ms if "staging" in m.title]
    assert len(staging) == 1 and "stg-db-2" in staging[0].title and len(staging[0].sources) == 2
    assert any(r.startswith("replaces what was said before (") for r in staging[0].reasons)
    assert len([m for m in ms if "deploy service" in m.title.lower()]) == 2  # two subjects, not one replacing the other


def test_merging_across_languages_and_objects(layout: Layout) -> None:
    pytest.importorskip("reasonix_tui.core.lang")  # the shared language resources (dictionary, segmentation)
    sd = layout.project_sessions_dir
    reasonix_session(sd / "a.jsonl", [user("以后跟我聊天用中文回答。", at=T0)], T0)
    reasonix_session(
        sd / "b.jsonl",
        [
            user("From now on answer in Chinese please.", at=T0 + 1),
            user("From now on always run lint before committing.", at=T0 + 2),
            user("From now on always run the tests before committing.", at=T0 + 3),
        ],
        T0 + 3,
    )
    ms = memories(S.list_suggestions(layout))
    chinese = [m for m in ms if "Chinese" in m.description or "中文" in m.description]
    assert len(chinese) == 1 and {s.label for s in chinese[0].sources} == {"a", "b"}  # one rule, two languages
    assert len([m for m in ms if "before committing" in m.description]) == 2  # lint and tests: two rules
    reasonix_session(sd / "c.jsonl", [user("以后回答简短一点，不用解释。", at=T0 + 4)], T0 + 4)
    zh = next(m for m in S.list_suggestions(layout).memories if m.title.startswith("回答简短"))
    assert (
        zh.name == "reply-brief-explanation" and zh.id == "memory-reply-brief-explanation"
    )  # from the dictionary's glosses, never a hash


def test_names_without_the_language_resources_are_readable(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonix_tui.core.sessions.suggestions import language

    monkeypatch.setattr(language, "_lang", lambda: None)
    language.stem.cache_clear()
    try:
        reasonix_session(
            layout.project_sessions_dir / "a.jsonl",
            [user("以后回答都用中文，不要用英文。"), user("数据库迁移一律用 alembic，不要手写 SQL。")],
            T0,
        )
        names = {m.name for m in S.list_suggestions(layout, use_cache=False).memories}
        assert "alembic-sql" in names and all(n and not re.search(r"[0-9a-f]{8}", n) for n in names), names
    finally:
        language.stem.cache_clear()


def test_covered_by_a_fact_or_an_instruction_is_not_shown(layout: Layout) -> None:
    store = Store(layout)
    store.save(
        SaveRequest(
            name="lint",
            description="Run ruff check and ruff format before every commit",
            body="Run `ruff check --fix` and `ruff format` before every commit.",
        )
    )
    (layout.workspace / "AGENTS.md").write_text("# Rules\n\n- Never commit credentials; secrets go in `.env.local`.\n")
    reasonix_session(
        layout.project_sessions_dir / "a.jsonl",
        [
            bash("ruff --version"),
            user("记得提交前跑 ruff。"),
            user("记住，别把凭证提交进仓库，放 .env.local 里。"),
            user("From now on the staging DB is stg-db-2."),
        ],
        T0,
    )
    view = S.list_suggestions(layout, store)
    assert [m.title for m in memories(view)] == ["The staging DB is stg-db-2"] and view.covered == 2


def test_a_contradicting_statement_is_an_update_of_the_fact(layout: Layout) -> None:
    store = Store(layout)
    store.save(
        SaveRequest(
            name="python-version",
            title="Python version",
            description="The service runs on Python 3.11",
            body='Targets Python 3.11 (`requires-python = ">=3.11,<3.12"`).',
        )
    )
    reasonix_session(
        layout.project_sessions_dir / "a.jsonl",
        [
            user("Yes, we moved to Python 3.12 last sprint, the 3.11 images are gone."),
            user("生产日志都在 Loki 里，入口是 grafana.ledger.internal，别去服务器上翻文件了。"),
        ],
        T0,
    )
    view = S.list_suggestions(layout, store)
    update = next(m for m in view.memories if "3.12" in m.title)
    other = next(m for m in view.memories if "Loki" in m.title)
    assert update.updates == "project/python-version.md" and update.name == "python-version"
    assert update.reasons[0].startswith("updates project/python-version.md") and other.updates == ""
    res = S.accept_suggestion(layout, update.id, store=store)
    assert res.fact.revision == 2 and not res.created and "3.12" in res.fact.description
    # A statement that merely names Python is not covered by the Python-version fact.
    reasonix_session(
        layout.project_sessions_dir / "b.jsonl",
        [user("Keep answers short from now on, I don't need explanations of basic Python.", at=T0 + 5)],
        T0 + 5,
    )
    assert any("Keep answers short" in m.title for m in S.list_suggestions(layout, store).memories)


# --------------------------------------------------------------------------------------
# Dismissal, accept, listing writes nothing


def test_a_dismissal_never_comes_back(layout: Layout) -> None:
    reasonix_session(layout.project_sessions_dir / "a.jsonl", [user("From now on deploys go through ArgoCD.")], T0)
    [m] = memories(S.list_suggestions(layout))
    S.dismiss_suggestion(layout, m.id)
    # Said again later in other words: it merges with the dismissed one and stays hidden.
    reasonix_session(
        layout.project_sessions_dir / "b.jsonl",
        [user("Remember that deploys go through ArgoCD now.", at=T0 + DAY_MS)],
        T0 + DAY_MS,
    )
    view = S.list_suggestions(layout)
    assert memories(view) == [] and view.hidden == 1
    assert S.dismiss_suggestion(layout, m.id) is None  # idempotent
    assert json.loads(S.state_path(layout).read_text())["dismissed"][m.id]["title"] == m.title
    assert S.restore_suggestion(layout, m.id) and len(memories(S.list_suggestions(layout))) == 1
    with pytest.raises(NotFound, match='suggestion "nope" not found'):
        S.dismiss_suggestion(layout, "nope")


def test_accept_writes_a_proper_fact_through_the_store(layout: Layout) -> None:
    reasonix_session(layout.project_sessions_dir / "a.jsonl", [user("以后回答都用中文，代码注释用英文。")], T0)
    store = Store(layout, actor="context-center")
    [m] = memories(S.list_suggestions(layout, store))
    assert m.name and not re.search(r"[0-9a-f]{8}$", m.name)  # readable, never a hash
    res = S.accept_suggestion(layout, m.id, store=store)
    fact = res.fact
    assert res.kind == "memory" and res.created and fact.revision == 1 and Path(res.path).is_file()
    assert fact.name == m.name and fact.description == m.description and fact.body == m.body.strip()
    assert "confirm" not in fact.body and "以后回答都用中文" in fact.body
    audit = [json.loads(x) for x in layout.audit_log.read_text().splitlines()]
    assert audit[-1]["actor"] == "context-center" and audit[-1]["op"] == "create"
    assert memories(S.list_suggestions(layout, store)) == []  # accepted, and now covered by the fact
    with pytest.raises(InvalidInput, match="^memory suggestion requires description and body$"):
        S.accept_suggestion(layout, m, S.SuggestionEdits(body="   "))
    with pytest.raises(NotFound):
        S.accept_suggestion(layout, "memory-does-not-exist")


def test_listing_writes_nothing(layout: Layout) -> None:
    reasonix_session(layout.project_sessions_dir / "a.jsonl", [user("From now on deploys go through ArgoCD.")], T0)
    before = sorted(p for p in layout.root.rglob("*"))
    S.list_suggestions(layout, use_cache=False)
    assert sorted(p for p in layout.root.rglob("*")) == before
    S.list_suggestions(layout)  # with its caches: only they appear
    result = Path(cache_path(layout).replace(".marshal", ".result.marshal"))
    merge = Path(cache_path(layout).replace(".marshal", ".merge.marshal"))
    assert sorted(set(layout.root.rglob("*")) - set(before)) == [
        layout.tui_dir,
        layout.cache_dir,
        Path(cache_path(layout)),
        merge,
        result,
    ]
    assert {oct(p.stat().st_mode & 0o777) for p in (Path(cache_path(layout)), merge, result)} == {"0o600"}


def test_an_unchanged_history_is_listed_from_the_result_cache(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonix_tui.core.sessions.suggestions import api

    reasonix_session(layout.project_sessions_dir / "a.jsonl", [user("From now on deploys go through ArgoCD.")], T0)
    first = S.list_suggestions(layout)
    calls = []
    real = api._compute
    monkeypatch.setattr(api, "_compute", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert calls == [] and S.list_suggestions(layout).memories == first.memories
    for change in (
        lambda: Store(layout).save(SaveRequest(name="x", description="d", body="b")),
        lambda: (layout.workspace / "AGENTS.md").write_text("- Deploys go through ArgoCD.\n"),
        lambda: reasonix_session(layout.project_sessions_dir / "b.jsonl", [user("the staging DB is stg-db-2")], T0 + 1),
    ):
        change()
        before = len(calls)
        S.list_suggestions(layout)
        assert len(calls) == before + 1  # each change is seen
    assert [m.title for m in S.list_suggestions(layout).memories] == [
        "The staging DB is stg-db-2"
    ]  # covered by AGENTS.md now


def test_the_miner_reads_only_changed_transcripts(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    reasonix_session(sd / "a.jsonl", [user("From now on deploys go through ArgoCD.")], T0)
    reasonix_session(sd / "b.jsonl", [user("the staging DB is stg-db-2")], T0 + 1000)
    assert mine_sessions(layout).read == 2
    again = mine_sessions(layout)
    assert again.read == 0 and len(again.sessions) == 2
    reasonix_session(sd / "b.jsonl", [user("the staging DB is stg-db-3")], T0 + 2000)
    third = mine_sessions(layout)
    assert third.read == 1 and any("stg-db-3" in s[6] for r in third.sessions for s in r.statements)
    Path(cache_path(layout)).write_bytes(b"garbage")
    assert mine_sessions(layout).read == 2  # a broken cache is ignored


# --------------------------------------------------------------------------------------
# Skills from repeated procedures


def _release(layout: Layout, name: str, version: str, at: int) -> None:
    reasonix_session(
        layout.project_sessions_dir / f"{name}.jsonl",
        [
            user(f"cut the {version} release", at=at),
            bash("git checkout main && git pull --ff-only", at=at),
            bash("pnpm test", at=at),
            assistant(at=at, call=("edit_file", {"path": "CHANGELOG.md", "old_string": "x", "new_string": "y"})),
            bash(f"pnpm version {version}", at=at),
            bash(f'git commit -am "chore(release): {version}" && git tag v{version}', at=at),
            bash("git push --follow-tags | tee push.log", at=at),
            bash(f"gh release create v{version} --generate-notes", at=at),
        ],
        at,
    )


def test_a_procedure_repeated_in_sessions_becomes_a_skill(layout: Layout) -> None:
    _release(layout, "r1", "1.2.0", T0)
    _release(layout, "r2", "1.3.0", T0 + DAY_MS)
    reasonix_session(
        layout.project_sessions_dir / "other.jsonl",
        [user("fix the price rounding in the suite"), bash("pnpm test")],
        T0 + 2 * DAY_MS,
    )
    view = S.list_suggestions(layout)
    [skill] = view.skills
    assert skill.name == "release" and skill.id == "skill-release"
    assert "`pnpm version 1.3.0`" in " ".join(skill.steps) or "`pnpm version 1.2.0`" in " ".join(skill.steps)
    assert "Edit `CHANGELOG.md`" in skill.steps and any("git tag" in s for s in skill.steps)
    assert [e.label for e in skill.sources] == ["r1", "r2"] and skill.sources[0].text.startswith(
        "cut the 1.2.0 release"
    )
    assert "## Steps" in skill.body and "## Evidence" in skill.body and "Reasonix" not in skill.body
    res = S.accept_suggestion(layout, skill)
    assert Path(res.path) == layout.workspace / ".reasonix" / "skills" / "release" / "SKILL.md"
    assert S.list_suggestions(layout).skills == ()  # an existing skill of that name suppresses it


def test_no_skill_from_substrings_or_routine(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    for i, text in enumerate(
        [
            "fix the price display, I prefer two decimals",
            "the suite rebuilds the ui every time",
            "update the pricing page",
            "review the pull request on github",
        ]
    ):
        reasonix_session(
            sd / f"s{i}.jsonl", [user(text), bash("pnpm test"), bash("git commit -am wip && git push")], T0 + i
        )
    assert S.list_suggestions(layout).skills == ()


def test_command_keys() -> None:
    assert command_keys("git checkout main && git pull --ff-only; yarn test:unit src | tee x") == [
        ("git checkout", "git checkout main"),
        ("git pull", "git pull --ff-only"),
        ("yarn test:unit", "yarn test:unit src"),
    ]
    assert command_keys("FOO=1 sudo ./bin/etl backfill -table x") == [
        ("etl backfill", "FOO=1 sudo ./bin/etl backfill -table x")
    ]
    assert command_keys("pnpm -r --filter web build") == [("pnpm build", "pnpm -r --filter web build")]
    assert command_keys("ls -la && git status && cat x") == []
    assert command_keys('python -m pytest -q && git commit -m "a; b"') == [
        ("python -m pytest", "python -m pytest -q"),
        ("git commit", "git commit -m 'a; b'"),
    ]
    assert find_procedures([[], []]) == []


# --------------------------------------------------------------------------------------
# Imports


def test_import_claude_auto_memory(layout: Layout, claude_dir: Path) -> None:
    mdir = claude_dir / "projects" / claude_project_slugs(layout.workspace)[0] / "memory"
    mdir.mkdir(parents=True)
    (mdir / "testing.md").write_text(
        "---\nname: testing-setup\ndescription: How tests run here\ntype: project\n---\n\nRun `make test`; the DB fixture needs Docker.\n"
    )
    (mdir / "MEMORY.md").write_text(
        "# Memory\n\n- [Testing](testing.md) — how tests run\n- The user prefers short answers without emojis\n- tiny\n"
    )
    imported = [m for m in S.list_suggestions(layout).memories if m.origin == "claude-memory"]
    topic = next(m for m in imported if m.name == "testing-setup")
    assert topic.id == "claude-testing-setup" and topic.type == "project" and topic.description == "How tests run here"
    assert topic.body == "Run `make test`; the DB fixture needs Docker."
    assert topic.sources[0].path == str(mdir / "testing.md") and topic.evidence[0].endswith(
        "testing.md: How tests run here"
    )
    bullet = next(m for m in imported if m.description == "The user prefers short answers without emojis")
    assert bullet.sources[0].line == 4 and bullet.score >= sig.THRESHOLD
    assert len(imported) == 2  # the link-only bullet and the too-short one are not candidates
    S.accept_suggestion(layout, topic.id)
    assert Store(layout).find("testing-setup") is not None


def test_import_other_agents_notes(layout: Layout, isolated_home: Path) -> None:
    (layout.workspace / "GEMINI.md").write_text(
        "# Notes\n\n- Use uv for every Python dependency change\n```\n- not a note in code\n```\n- ok\n"
    )
    (layout.workspace / ".cursor" / "rules").mkdir(parents=True)
    (layout.workspace / ".cursor" / "rules" / "style.mdc").write_text(
        "---\ndescription: style\n---\nPrefer dataclasses over dicts for records\n"
    )
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
    assert style.sources[0].line == 4 and style.evidence[0].startswith(
        os.path.join(".cursor", "rules", "style.mdc") + ":4: "
    )


def test_memory_wanted_from_repeated_misses(layout: Layout) -> None:
    from reasonix_tui.core.sessions.history_tool import misses_path
    from reasonix_tui.core.sessions.suggestions.imports import misses_path as our_path

    assert our_path(layout) == misses_path(layout)
    for _ in range(2):
        history_tool_call(layout, {"operation": "search", "query": "kubernetes ingress timeout"})
    history_tool_call(layout, {"operation": "search", "query": "only once"})
    view = S.list_suggestions(layout, include_hidden=True)
    wanted = [m for m in view.memories if m.origin == "memory-wanted"]
    assert [m.description for m in wanted] == ["Answer for: kubernetes ingress timeout"]
    w = wanted[0]
    assert w.needs_edit and w.reason == "searched 2 times without a result" and len(w.sources) == 2
    with pytest.raises(InvalidInput, match="not an answer"):
        S.accept_suggestion(layout, w.id)
    res = S.accept_suggestion(
        layout,
        w.id,
        S.SuggestionEdits(body="Ingress timeout is 60s; raise it in values.yaml", description="Ingress timeout"),
    )
    assert res.fact.body == "Ingress timeout is 60s; raise it in values.yaml"


def test_memory_disabled(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    reasonix_session(layout.project_sessions_dir / "a.jsonl", [user("From now on deploys go through ArgoCD.")], T0)
    monkeypatch.setenv("REASONIX_EXPERIMENT_NO_MEMORY", "1")
    view = S.list_suggestions(layout)
    assert not view.available and view.memories == () and view.to_json()["skills"] == []


def test_claude_sessions_and_cli_sessions_of_this_workspace(layout: Layout, claude_dir: Path) -> None:
    claude_transcript(
        layout,
        claude_dir,
        "c1",
        [
            c_bash("npm test", "t1"),
            c_result("t1", "error"),
            c_user("no, always run `npm run test:unit` here, the full suite needs docker"),
        ],
    )
    mine = reasonix_session(
        layout.global_sessions_dir / "cli-mine.jsonl",
        [user("never commit generated files under gen/ in this project")],
        T0,
    )
    (layout.global_sessions_dir / "cli-mine.jsonl.meta").write_text(
        json.dumps({"id": "cli-mine", "workspace_root": str(layout.workspace), "updated_at": "2026-07-14T00:00:00Z"})
    )
    reasonix_session(
        layout.global_sessions_dir / "cli-other.jsonl", [user("never touch the other project under other/")], T0
    )
    (layout.global_sessions_dir / "cli-other.jsonl.meta").write_text(json.dumps({"workspace_root": "/elsewhere"}))
    hist = memories(S.list_suggestions(layout))
    assert {m.sources[0].label for m in hist} == {"c1", "cli-mine"} and mine.exists()
    claude = next(m for m in hist if m.sources[0].source == "claude-session")
    assert claude.sources[0].line == 2 and claude.sources[0].at.rfc3339() == "2026-07-14T09:02:00Z"
    assert claude.sources[0].context == "bash: npm test"


def test_hidden_and_empty_sessions_are_not_scanned(layout: Layout) -> None:
    sd = layout.project_sessions_dir
    reasonix_session(sd / "hidden.jsonl", [user("From now on deploy on Tuesdays only.")], T0 + 2000)
    (sd / "hidden.cleanup-pending.json").write_text("{}")
    reasonix_session(sd / "empty.jsonl", [{"role": "assistant", "content": "From now on always talk alone"}], T0 + 1000)
    reasonix_session(sd / "real.jsonl", [user("From now on deploys go through ArgoCD.")], T0)
    view = S.list_suggestions(layout)
    assert view.sessions == 1 and [m.sources[0].label for m in view.memories] == ["real"]


# --------------------------------------------------------------------------------------
# CLI


def test_cli_lists_scores_reasons_and_evidence(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    reasonix_session(
        layout.project_sessions_dir / "a.jsonl",
        [
            bash("npm install zod"),
            user("Stop, we use yarn here, not npm."),
            user("From now on deploys go through ArgoCD."),
        ],
        T0,
    )
    base = ["--home", str(layout.root), "--workspace", str(layout.workspace)]
    assert main(base + ["suggest"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\[memory · history · score [\d.]+\]", out) and "  why: " in out
    assert "evidence: [a #1 · " in out and "after: bash: npm install zod" in out
    assert "2 suggestion(s) from 1 session(s) in the last 30 days of history" in out
    assert main(base + ["suggest", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ids = [m["id"] for m in data["memories"]]
    assert all("score" in m and m["reasons"] for m in data["memories"]) and data["windowDays"] == 30
    assert main(base + ["suggest", "dismiss", ids[0]]) == 0
    assert capsys.readouterr().out == f"dismissed {ids[0]}\n"
    assert main(base + ["suggest", "--all"]) == 0
    out = capsys.readouterr().out
    assert f"{ids[0]}  [memory · history · score" in out and "· dismissed]" in out
    assert "undo a dismissal with `reasonix-tui suggest restore ID`" in out
    assert main(base + ["suggest", "accept", ids[1], "--name", "deploy-route", "--json"]) == 0
    acc = json.loads(capsys.readouterr().out)
    assert acc["ref"] == "project/deploy-route.md" and acc["revision"] == 1
    assert main(base + ["suggest"]) == 0
    assert capsys.readouterr().out == (
        "suggestions: none (scanned 1 sessions in the last 30 days of history; 1 dismissed or accepted hidden, "
        "`reasonix-tui suggest --all` shows them; 1 already said by a fact or an instruction)\n"
    )  # the accepted one is a fact now
    assert main(base + ["suggest", "accept", "missing-id"]) == 1
    assert 'suggestion "missing-id" not found' in capsys.readouterr().err
    assert main(base + ["suggest", "restore", ids[0]]) == 0
    assert main(base + ["suggest", "restore", ids[0]]) == 2


def test_the_fast_path_prints_what_the_full_cli_prints(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    from reasonix_tui.__main__ import main as entry
    from reasonix_tui.integrations.commands.suggest import fast_main

    reasonix_session(layout.project_sessions_dir / "a.jsonl", [user("From now on deploys go through ArgoCD.")], T0)
    base = ["--home", str(layout.root), "--workspace", str(layout.workspace)]
    for extra in ([], ["--json"], ["--all"]):
        assert main(base + ["suggest", *extra]) == 0
        full = capsys.readouterr().out
        assert entry(base + ["suggest", *extra]) == 0
        fast = capsys.readouterr().out
        if extra == ["--json"]:
            full, fast = (re.sub(r'"generatedAt": "[^"]+"', "", x) for x in (full, fast))
        assert fast == full
    assert fast_main(base + ["suggest", "dismiss", "x"]) is None and fast_main(["suggest", "--help"]) is None
    assert fast_main(["memory", "list"]) is None


# --------------------------------------------------------------------------------------
# The suite itself


def test_the_suite_renders_real_formats_and_meets_its_targets() -> None:
    import sys

    from script_modules import load_script

    here = Path(__file__).resolve().parents[1] / "benchmarks" / "suggestions"
    try:
        suite = load_script(here / "run.py", "suggestion_suite", on_path=True)
        results = [suite.run_history(p) for p in sorted((here / "histories").glob("*.yaml"))]
    finally:
        sys.modules.pop("suggestion_suite", None)
    s = suite.summarize(results)
    assert sum(r.sessions for r in results) >= 12 and s["recall_memories"][1] >= 15 and s["recall_skills"][1] >= 2
    found, planted = s["recall"]
    right, shown = s["precision"]
    assert found / planted >= 0.8 and right / shown >= 0.8, s
    assert s["recall_skills"][0] == s["recall_skills"][1]  # every repeated procedure found as a skill


def _suite_module() -> Any:
    from script_modules import load_script

    here = Path(__file__).resolve().parents[1] / "benchmarks" / "suggestions"
    return load_script(here / "run.py", "suggestion_suite_incremental", on_path=True)


def _everything(view: Any) -> list[tuple[Any, ...]]:
    return [m.to_tuple() for m in view.memories] + [s.to_tuple() for s in view.skills]


@pytest.mark.parametrize("history", ["shopfront", "ledger-api"])
def test_listing_after_new_sessions_merges_only_them_and_equals_a_listing_from_scratch(
    history: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The merge state: sessions added one by one (and one that grows) give, at every step,
    exactly the candidates a listing from nothing gives; the statements already clustered
    are not clustered again."""
    from reasonix_tui.core.sessions.suggestions import clustering, result_cache

    suite = _suite_module()
    here = Path(__file__).resolve().parents[1] / "benchmarks" / "suggestions" / "histories"
    with suite.isolated_env(tmp_path / "home"):
        layout, store, rendered, _labels = suite.build(suite.load_history(here / f"{history}.yaml"), tmp_path)
        order = sorted(rendered, key=lambda r: r.path.stat().st_mtime_ns)
        aside = tmp_path / "aside"
        aside.mkdir()
        for r in order[1:]:
            r.path.rename(aside / f"{r.key}.jsonl")
        S.list_suggestions(layout, store)
        clustered: list[int] = []
        real = clustering.cluster_items
        monkeypatch.setattr(
            result_cache, "kept_clusters", result_cache.kept_clusters
        )  # the real seed; only cluster_items is watched
        import reasonix_tui.core.sessions.suggestions.clustering as cmod

        def watch(items: Any, seed: Any = ()) -> Any:
            clustered.append(len(items))
            return real(items, seed)

        monkeypatch.setattr(cmod, "cluster_items", watch)
        for r in order[1:]:
            (aside / f"{r.key}.jsonl").rename(r.path)
            clustered.clear()
            incremental = S.list_suggestions(layout, store, include_hidden=True)
            assert clustered and clustered[0] == sum(1 for _ in _statements_of(r.path))  # only the new session's
            scratch = S.list_suggestions(layout, store, include_hidden=True, use_cache=False)
            assert _everything(incremental) == _everything(scratch)
        # a session that grows: its statements are taken out of their clusters and merged again
        last = order[-1].path
        text = last.read_text(encoding="utf-8")
        last.write_text(text + text.splitlines()[-1] + "\n", encoding="utf-8")
        assert _everything(S.list_suggestions(layout, store, include_hidden=True)) == _everything(
            S.list_suggestions(layout, store, include_hidden=True, use_cache=False)
        )


def _statements_of(path: Path) -> tuple[Any, ...]:
    from reasonix_tui.core.sessions.suggestions.mining import _mine

    fmt = "claude" if "claude" in str(path) else "reasonix"
    mined = _mine(str(path), fmt)
    return mined[3] if mined else ()


@pytest.mark.parametrize(
    "said,title",
    [
        ("以后请用中文写提交说明的正文部分", "用中文写提交说明的正文部分"),
        (
            "组件名统一用 PascalCase，文件名用 kebab-case，比如 user-list.vue 里导出 UserList，以后新建的都按这个来",
            "组件名统一用 PascalCase，文件名用 kebab-case",
        ),
        (
            "Remember that we always run database migrations with alembic, never by hand.",
            "Always run database migrations with alembic",
        ),
        (
            "For context: prod runs in eu-west-1. The DR cluster is in us-east-2, both need the same monitor",
            "Prod runs in eu-west-1",
        ),
    ],
)
def test_titles_are_short_rules_in_every_language(said: str, title: str) -> None:
    """A title is the rule, without what leads into it, and fits the list row (44 cells, a
    Han character two): never the whole Chinese sentence (the demo showed them whole)."""
    from reasonix_tui.core.sessions.suggestions.titles import TITLE_CELLS, cells, short_title

    assert short_title(said) == title and cells(title) <= TITLE_CELLS


def test_the_demo_suggestions_have_short_titles_and_readable_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the demo's Suggestions pane lists: every title fits the row and is not a cut
    sentence's head; every name is readable words (glosses for Chinese), never a hash."""
    from reasonix_tui.core.demo import build_demo_home
    from reasonix_tui.core.sessions.suggestions.titles import TITLE_CELLS, cells

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    demo = build_demo_home(tmp_path / "demo", with_approval=False)
    view = S.list_suggestions(Layout.resolve(home=demo.root, workspace=demo.workspace))
    assert len(view.memories) == 4
    zh = next(m for m in view.memories if has_cjk(m.description))
    assert zh.title == "用中文写提交说明的正文部分" and zh.description == "以后请用中文写提交说明的正文部分。"
    for m in view.memories:
        assert cells(m.title) <= TITLE_CELLS and not m.title.endswith("…")
        assert re.fullmatch(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*", m.name) and not re.search(r"[0-9a-f]{8}", m.name)


def test_a_statement_is_not_an_update_of_a_fact_it_shares_only_path_parts_and_glosses_with(layout: Layout) -> None:
    """Found by accepting a candidate in a fresh history: the next listing showed an unrelated
    rule as an update of the new fact (both name a path under src/, and 改 glosses to four
    English words). A real update still is one (the training data moved to v3)."""
    st = Store(layout)
    st.save(
        SaveRequest(
            name="pay-module-owner",
            title="支付模块一直是老王负责的",
            description="支付模块一直是老王负责的，改 src/views/pay 下面的东西之前先跟他确认。",
            body="支付模块一直是老王负责的，改 src/views/pay 下面的东西之前先跟他确认。",
        )
    )
    st.save(
        SaveRequest(
            name="dataset-location",
            title="Training data location",
            description="Training data lives in s3://tidepool-data/v2",
            body="The training corpus is in `s3://tidepool-data/v2` (parquet shards, one per day).",
        )
    )
    reasonix_session(
        layout.project_sessions_dir / "a.jsonl",
        [
            user("element 的样式不要直接覆盖，要改就改主题变量 src/styles/element-vars.scss", at=T0),
            user(
                "btw the training data moved, it's s3://tidepool-data/v3 now, v2 is being deleted at the end of the month",
                at=T0 + 1,
            ),
        ],
        T0 + 2,
    )
    view = S.list_suggestions(layout, include_hidden=True)
    style = next(m for m in view.memories if "element-vars" in m.description)
    data = next(m for m in view.memories if "tidepool-data/v3" in m.description)
    assert style.updates == "" and data.updates == "project/dataset-location.md"


def test_accepting_in_the_form_keeps_the_fields_a_suggestion_does_not_carry(layout: Layout) -> None:
    # The accept form shows every field; a pin, keywords or a subject key typed there
    # were dropped before (only the suggestion's own fields reached the save).
    from reasonix_tui.tui.panes.suggestions import suggestion_fields
    from reasonix_tui.tui.writes import accept_suggestion

    reasonix_session(layout.project_sessions_dir / "a.jsonl", [user("以后回答都用中文，代码注释用英文。")], T0)
    store = Store(layout, actor="context-center")
    [m] = memories(S.list_suggestions(layout, store))
    values = replace(
        suggestion_fields(m),
        activation="pinned",
        keywords="language chinese",
        subject_key="user.reply_language",
        volatility="stable",
        expires_at="2099-01-01",
    )
    accept_suggestion(store, m.id, values)
    fact = store.get(m.name)
    assert fact.body == m.body.strip() and fact.description == m.description
    assert fact.pinned and fact.keywords == "language chinese" and fact.subject_key == "user.reply_language"
    assert fact.volatility == "stable" and fact.expires_at is not None and fact.expires_at.rfc3339().startswith("2099")
    with pytest.raises(InvalidInput, match="a suggested field is an edit"):
        S.accept_suggestion(layout, m, extra={"body": "not like this"}, store=store)

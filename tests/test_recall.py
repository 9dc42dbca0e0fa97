"""Automatic recall (store-format §6): every rule, the spec's vectors, byte-exact blocks,
and each enhanced-mode improvement as a visible delta over ``reasonix-exact``.

``tests/data/recall_golden.json`` holds blocks, scores and snippets produced by a Go 1.19
transcription of Reasonix's ``auto_recall.go`` and ``retrieval/bm25.go`` (see
docs/recall.md); ``reasonix-exact`` must reproduce them byte for byte.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp, parse_rfc3339
from reasonix_tui.core.compat.retrieval import make_snippet
from reasonix_tui.core.compat.tokenize import query_terms, tokens
from reasonix_tui.core.recall import Enhancements, clear_index_cache, get_index, recall
from reasonix_tui.core.recall.exact_gate import distinctive_term, strong_term
from reasonix_tui.core.recall.generic import GENERIC_TURNS, is_generic_enhanced, is_generic_exact
from reasonix_tui.core.recall.index import LABELS, RecallIndex
from reasonix_tui.core.recall.pool import build_pool, find_overrides, identity_keys
from reasonix_tui.core.recall.redact import redact_home
from reasonix_tui.core.recall.render import PREAMBLE
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.freshness import freshness_for
from reasonix_tui.core.store.model import Fact, FactId

NOW = parse_rfc3339("2026-07-27T00:00:00Z")
assert NOW is not None
EXACT = "reasonix-exact"
GOLDEN = json.loads((Path(__file__).parent / "data" / "recall_golden.json").read_text(encoding="utf-8"))


def ago(days: float) -> Timestamp:
    return Timestamp(NOW.ns - int(days * DAY_NS))


def F(fid: str, name: str, title: str = "", desc: str = "", body: str = "", **kw: Any) -> Fact:
    updated = kw.pop("updated", ago(5))
    return Fact(
        id=FactId(fid),
        revision=kw.pop("revision", 1),
        created_at=kw.pop("created", updated),
        updated_at=updated,
        name=name,
        title=title,
        description=desc,
        body=body,
        **kw,
    )


def ids(result: Any) -> list[str]:
    return [h.fact.id for h in result.hits]


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_index_cache()


# ----------------------------------------------------------------- tokenizer (§6.3)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("BM25 检索 cache-first", ["bm25", "检索", "cache", "first"]),
        ("数据库迁移", ["数据", "据库", "库迁", "迁移"]),
        ("库", ["库"]),
        ("用pnpm装依赖", ["用", "pnpm", "装依", "依赖"]),
        ("max_open_conns --no-verify", ["max_open_conns", "no", "verify"]),
    ],
)
def test_tokenizer_table(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


def test_query_terms_unique_in_order() -> None:
    assert query_terms("  Deploy deploy DEPLOY target  ") == ["deploy", "target"]
    assert query_terms("!!! ---") == []


# ----------------------------------------------------------------- generic turns (§6.1)


@pytest.mark.parametrize("turn", sorted(GENERIC_TURNS))
def test_every_generic_turn_is_silent(turn: str) -> None:
    facts = [
        F("mem-1", "continue-notes", "Continue next yes no ok", body="continue next ok okay yes no 继续 好的 下一步")
    ]
    for variant in (turn, f"  {turn.upper()}  ", turn.replace(" ", "   ")):
        for mode in (EXACT, "enhanced"):
            r = recall(facts, variant, NOW, mode=mode)
            assert r.suppressed == "generic user turn" and r.block == ""


def test_generic_normalisation_and_non_generic() -> None:
    assert is_generic_exact(" Please\t CONTINUE ")
    assert not is_generic_exact("continue the migration")
    assert not is_generic_exact("ok thanks")


def test_enhanced_generic_turns() -> None:
    for turn in (
        "ok, continue",
        "好的，继续下一步",
        "thanks, looks good",
        "ok, next step please",
        "继续吧",
        "sounds good!",
    ):
        assert is_generic_enhanced(turn), turn
        assert not is_generic_exact(turn)
    for turn in ("ok, continue the pnpm migration", "next: deploy", "go build", "yes, use redis", "继续部署"):
        assert not is_generic_enhanced(turn), turn


def test_enhanced_generic_is_a_delta_over_exact() -> None:
    facts = [F("mem-next", "release-next-step", "发布流程", body="发布流程的下一步：打 tag 并推送到远端。")]
    assert ids(recall(facts, "继续下一步", NOW, mode=EXACT)) == ["mem-next"]
    r = recall(facts, "继续下一步", NOW, mode="enhanced")
    assert r.suppressed == "generic user turn" and r.notes


# ----------------------------------------------------------------- golden vectors


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[c["name"] for c in GOLDEN["cases"]])
def test_exact_mode_matches_reasonix_bytes(case: dict[str, Any]) -> None:
    facts = []
    for d in case["facts"]:
        t = {k: parse_rfc3339(d[k]) for k in ("updated_at", "created_at", "expires_at", "last_verified_at")}
        facts.append(
            Fact(
                id=FactId(d["id"]),
                revision=d["revision"],
                created_at=t["created_at"],
                updated_at=t["updated_at"],
                name=d["name"],
                title=d["title"],
                description=d["description"],
                keywords=d["keywords"],
                activation=d["activation"],
                volatility=d["volatility"],
                subject_key=d["subject_key"],
                expires_at=t["expires_at"],
                last_verified_at=t["last_verified_at"],
                type=d["type"],
                scope=d["scope"],
                body=d["body"],
            )
        )
    settings = Settings(recall_limit=case["limit"], recall_max_chars=case["max_chars"])
    r = recall(facts, case["query"], parse_rfc3339(case["now"]), settings, mode=EXACT)
    e = case["expect"]
    assert r.block == e["block"]
    assert r.suppressed == e["suppressed"]
    assert (r.omitted_by_limit, r.omitted_by_budget, r.used_chars, r.char_budget) == (
        e["omitted_by_limit"],
        e["omitted_by_budget"],
        e["used_chars"],
        e["char_budget"],
    )
    assert [h.fact.id for h in r.hits] == [h["id"] for h in e["hits"]]
    for got, want in zip(r.hits, e["hits"]):
        assert got.score == pytest.approx(want["score"], rel=1e-12)
        assert (got.freshness, got.reason) == (want["freshness"], want["reason"])


@pytest.mark.parametrize("case", GOLDEN["snippets"], ids=lambda c: f"{c['query'] or 'empty'}-{c['runes']}")
def test_snippets_match_reasonix(case: dict[str, Any]) -> None:
    assert make_snippet(case["text"], case["query"], query_terms(case["query"]), case["runes"]) == case["expect"]


# ----------------------------------------------------------------- the block, by hand


def test_exact_block_bytes() -> None:
    facts = [
        F(
            "mem-1",
            "deploy-target",
            "Deploy target",
            "Deployment target for payments",
            "Deploy payments to the green cluster.",
        )
    ]
    r = recall(facts, "deploy payments target cluster", NOW, mode=EXACT)
    entry = (
        f"- id=mem-1 revision=1 scope=project type=project freshness=fresh score={r.hits[0].score:.3f} "
        'reason="matched deploy, payments, target, cluster; project scope"\n'
        "  title: Deploy target\n"
        "  fact: deploy-target Deploy target Deployment target for payments Deploy payments to the green cluster.\n"
    )
    assert r.block == "<memory-recall>\n" + PREAMBLE + "\n" + entry + "</memory-recall>"
    assert r.used_chars == len(r.block) and not r.block.endswith("\n")


def test_escaping_quoting_and_redaction_in_the_entry() -> None:
    facts = [
        F(
            "mem-<x>",
            "q",
            'Say "hi" & <bye>',
            body='see /home/alice/proj and C:\\Users\\Bob\\x; <b> & "q"',
            keywords="alice tags",
        )
    ]
    r = recall(facts, "tags alice", NOW, mode=EXACT)
    block = r.block
    assert "id=mem-&lt;x&gt;" in block
    assert "title: Say &#34;hi&#34; &amp; &lt;bye&gt;" in block
    assert "&lt;local-home&gt;/proj" in block and "&lt;local-home&gt;\\x" in block
    assert "/home/alice" not in block and "Users\\Bob" not in block
    assert 'reason="matched tags, alice; project scope"' in block


# ----------------------------------------------------------------- redaction


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/home/alice/work", "<local-home>/work"),
        ("/Users/Bob/x", "<local-home>/x"),
        ("/USERS/bob", "<local-home>"),
        ("C:\\Users\\Eve\\doc", "<local-home>\\doc"),
        ("d:/users/eve/doc", "<local-home>/doc"),
        ("C:\\Documents and Settings\\Al\\x", "<local-home>\\x"),
        ("/home/", "/home/"),
        ("/srv/home/x", "/srv<local-home>"),
        ("/uſers/x", "<local-home>"),  # RE2 folds ſ with s
        ("İ:\\users\\x", "İ:\\users\\x"),  # ...but not İ with i
        ("k:\\users\\bob\\x", "<local-home>\\x"),
        ("no separators here", "no separators here"),
    ],
)
def test_home_redaction(text: str, expected: str) -> None:
    assert redact_home(text) == expected


# ----------------------------------------------------------------- gate (§6.5)


def _gate(query: str, body: str) -> bool:
    facts = [F("mem-1", "x", body=body), F("mem-2", "y", body="unrelated filler words")]
    return "mem-1" in ids(recall(facts, query, NOW, mode=EXACT))


def test_gate_cases() -> None:
    assert _gate("redis cluster", "redis cluster notes")  # two terms
    assert _gate("authentication", "authentication notes")  # one long term, short query
    assert _gate("the authentication", "authentication notes")  # two query terms, one ≥ 6 runes
    assert not _gate("fix the authentication issue", "authentication notes")  # long query, common word
    assert not _gate("fix the cache", "cache notes")  # short term
    assert _gate("fix the v2 thing", "v2 notes")  # digit
    assert _gate("fix the max_conns thing", "max_conns notes")  # underscore
    assert _gate("fix the AuthHandler issue", "authhandler notes")  # inner capital
    assert not _gate("fix the Authhandler issue", "authhandler notes")  # capital at 0 only
    assert _gate("fix #cache please now", "cache notes")  # #term
    assert _gate("use cache. then go", "cache notes")  # term.
    assert not _gate("use Cache. then go", "cache notes")  # case-sensitive check, raw query


def test_distinctive_and_strong_helpers() -> None:
    assert distinctive_term('see "ERR_X" now', "err_x")
    assert distinctive_term("(AuthHandler)", "authhandler")
    assert not distinctive_term("plain words", "plain")
    assert strong_term("abc", ["abcdef"], "abcdef") and not strong_term("a b c", ["a", "b", "c"], "abcdef")


# ----------------------------------------------------------------- multipliers, freshness


def test_project_boost_and_stale_factor() -> None:
    body = "kafka consumer lag alerts"
    facts = [
        F("mem-p", "p", body=body),
        F("mem-g", "g", body=body, scope="global"),
        F("mem-s", "s", body=body, updated=ago(200)),
    ]
    r = recall(facts, "kafka consumer lag", NOW, mode=EXACT)
    by = {h.fact.id: h for h in r.hits}
    assert by["mem-p"].score == pytest.approx(by["mem-g"].score * 1.08)
    assert by["mem-s"].freshness == "stale"
    assert by["mem-s"].score == pytest.approx(by["mem-g"].score * 1.08 * 0.92)


def test_expired_is_skipped_and_explained() -> None:
    facts = [
        F("mem-x", "promo", body="promo code WELCOME10", expires_at=ago(1)),
        F("mem-y", "promo-now", body="promo code SPRING", expires_at=NOW),
    ]  # exactly at expiry: not expired
    r = recall(facts, "promo code", NOW, mode=EXACT)
    assert ids(r) == ["mem-y"]
    assert {c.fact.id: c.decision for c in r.considered}["mem-x"] == "expired"


def test_vectorised_freshness_equals_freshness_for() -> None:
    r = random.Random(5)
    facts = []
    for i in range(400):
        facts.append(
            F(
                f"mem-{i}",
                f"f{i}",
                body="x",
                type=r.choice(["project", "reference", "user", "feedback"]),
                volatility=r.choice(["", "stable", "volatile", "evergreen"]),
                updated=r.choice([ago(r.randint(-5, 400)), None]),
                created=r.choice([ago(50), None]),
                expires_at=r.choice([None, ago(1), ago(-1), NOW]),
                last_verified_at=r.choice([None, ago(2)]),
            )
        )
    index = RecallIndex(facts)
    import numpy as np

    codes = index.freshness_codes(np.arange(len(index.docs)), NOW.ns)
    assert [LABELS[c] for c in codes] == [freshness_for(f, NOW) for f in index.docs]
    assert [index.freshness_code(i, NOW.ns) for i in range(len(index.docs))] == list(codes)


# ----------------------------------------------------------------- pool and suppression (§6.2, §6.6)


def test_identity_keys() -> None:
    f = F("mem-1 ", "Deploy Target!", "Deploy-Target v2", subject_key="Deploy.Region")
    assert identity_keys(f) == ["id:mem-1", "name:deploy-target", "title:deploytargetv2", "subject:deploy.region"]
    assert identity_keys(F("mem-2", "x")) == ["id:mem-2", "name:x"]


@pytest.mark.parametrize(
    "shared",
    [{"name": "deploy-target"}, {"subject_key": "deploy.region"}, {"title": "Deploy Target"}, {"id": "mem-same"}],
)
def test_project_fact_suppresses_global(shared: dict[str, str]) -> None:
    g = {"fid": "mem-g", "name": "global-one", "title": "Global one", **shared}
    p = {"fid": "mem-p", "name": "project-one", "title": "Project one", **shared}
    if "id" in shared:
        g["fid"] = p["fid"] = shared["id"]
        g.pop("id"), p.pop("id")
    gf = F(g.pop("fid"), **g, body="deploy region us-east-1 legacy", scope="global")
    pf = F(p.pop("fid"), **p, body="deploy region eu-west-1 green")
    r = recall([gf, pf], "deploy region", NOW, mode=EXACT)
    assert [h.fact.scope for h in r.hits] == ["project"]
    assert "legacy" not in r.block
    suppressed = [c for c in r.considered if c.decision == "suppressed"]
    assert suppressed and suppressed[0].fact is gf and "shared key" in suppressed[0].detail
    assert suppressed[0].detail.startswith("by project fact ")  # the trace prints "suppressed: by …"


def test_pinned_facts_are_skipped_by_recall() -> None:
    facts = [
        F("mem-pin", "lint", "Lint before commit", body="always run make lint before commit", activation="pinned"),
        F("mem-user", "style", "Style", body="always run make lint quietly", scope="global", type="user"),
    ]
    r = recall(facts, "run make lint", NOW, mode=EXACT)
    assert r.suppressed == "memory store is empty" and r.block == ""
    pool = build_pool(facts)
    assert not pool.facts and {e.kind for e in pool.excluded} == {"pinned"}


def test_find_overrides_order_and_keys() -> None:
    facts = [
        F("global", "deploy-target", "Deploy target", scope="global"),
        F("project", "deploy-target", "Deploy target"),
        F("other", "unrelated", "Unrelated", scope="global"),
    ]
    [o] = find_overrides(facts)
    assert (o.project.id, o.global_fact.id, o.key) == ("project", "global", "name:deploy-target")


# ----------------------------------------------------------------- floor, limit, budget, suppression strings


def test_relative_floor() -> None:
    strong = F("mem-a", "alpha", "Alpha beta gamma", body="alpha beta gamma delta epsilon " * 3)
    weak = F("mem-b", "other", "Other", body="alpha beta and many other unrelated words " * 20)
    r = recall([strong, weak], "alpha beta gamma delta epsilon", NOW, mode=EXACT)
    assert ids(r) == ["mem-a"]
    decision = {c.fact.id: c for c in r.considered}["mem-b"]
    assert decision.decision == "floor" and "0.24" in decision.detail


def test_limit_budget_and_note() -> None:
    facts = [
        F(
            f"mem-cap-{i}",
            f"cap-{i}",
            "cap fact",
            "matched cap fact",
            "cap detail " * 30,
            type="reference",
            updated=ago(i / 24),
        )
        for i in range(6)
    ]
    r = recall(facts, "matched cap fact", NOW, Settings(recall_limit=2, recall_max_chars=20000), mode=EXACT)
    assert (len(r.hits), r.omitted_by_limit, r.omitted_by_budget) == (2, 4, 0)
    assert (
        "- omitted=4 additional relevant fact(s) because of the recall limit or character budget\n</memory-recall>"
        in r.block
    )
    assert [c.decision for c in r.considered].count("limit") == 4
    r = recall(facts, "matched cap fact", NOW, Settings(recall_limit=6, recall_max_chars=3000), mode=EXACT)
    assert r.omitted_by_limit == 0 and r.omitted_by_budget > 0 and r.used_chars <= 3000
    assert f"omitted={r.omitted_by_budget}" in r.block
    assert any(c.decision == "budget" for c in r.considered)
    r = recall(facts, "matched cap fact", NOW, Settings(recall_max_chars=300), mode=EXACT)
    assert r.suppressed == "matched facts exceeded recall budget" and r.block == "" and r.used_chars == 0


def test_clipped_entries_end_with_ellipsis_and_fit() -> None:
    facts = [F("mem-1", "long", "Long", body="word " * 400)]
    r = recall(facts, "word long", NOW, Settings(recall_max_chars=500), mode=EXACT)
    assert len(r.block) <= 500 and "...\n</memory-recall>" in r.block


def test_suppression_strings() -> None:
    facts = [F("mem-1", "a", body="alpha beta")]
    assert recall([], "alpha beta", NOW, mode=EXACT).suppressed == "memory store is empty"
    assert recall(facts, "!!!", NOW, mode=EXACT).suppressed == "no searchable terms"
    assert recall(facts, "gamma delta", NOW, mode=EXACT).suppressed == "no sufficiently distinctive match"
    assert recall(facts, "alpha beta", NOW, Settings(no_memory=True)).suppressed == "memory store is empty"
    assert recall([F("mem-e", "—", body="")], "alpha", NOW, mode=EXACT).suppressed == "memory store is empty"


def test_stable_sort_ties_updated_then_id() -> None:
    facts = [
        F("mem-b", "b", body="same words", updated=ago(3)),
        F("mem-a", "a", body="same words", updated=ago(3)),
        F("mem-c", "c", body="same words", updated=ago(1)),
    ]
    assert ids(recall(facts, "same words", NOW, mode=EXACT)) == ["mem-c", "mem-a", "mem-b"]


def test_reason_lists_at_most_four_terms() -> None:
    facts = [F("mem-1", "x", body="one two three four five six")]
    [hit] = recall(facts, "one two three four five six", NOW, mode=EXACT).hits
    assert hit.reason == "matched one, two, three, four; project scope"


def test_considered_explains_weak_matches() -> None:
    facts = [F("mem-1", "auth-notes", "Authentication notes", body="Authentication uses a signed session cookie.")]
    r = recall(facts, "fix the authentication issue in this large application", NOW, mode=EXACT)
    [c] = r.considered
    assert c.decision == "gate" and "authentication" in c.detail and c.score and c.score > 0
    assert r.considered_total == 1


# ----------------------------------------------------------------- warm index


def test_warm_index_is_reused_and_rebuilt_on_change() -> None:
    facts = (F("mem-1", "a", body="alpha beta"),)
    first = get_index(facts)
    assert get_index(facts) is first and get_index(list(facts)) is first
    changed = (F("mem-1", "a", body="alpha gamma"),)
    assert get_index(changed) is not first
    assert ids(recall(changed, "alpha gamma", NOW, mode=EXACT)) == ["mem-1"]


# ----------------------------------------------------------------- enhanced improvements (deltas)


def test_supersedes_drops_the_old_fact_and_says_so() -> None:
    old = F(
        "mem-v1",
        "api-base-url",
        "API base URL",
        body="The API base URL is https://api.example.com/v1 for clients.",
        updated=ago(40),
    )
    new = F(
        "mem-v2",
        "api-base-v2",
        "API base URL (v2)",
        body="Since July the API base is https://api.example.com/v2.",
        supersedes=("mem-v1",),
    )
    assert "mem-v1" in ids(recall([old, new], "what is the API base URL for clients?", NOW, mode=EXACT))
    r = recall([old, new], "what is the API base URL for clients?", NOW)
    assert ids(r) == ["mem-v2"] and "example.com/v1" not in r.block
    c = {c.fact.id: c for c in r.considered}["mem-v1"]
    assert c.decision == "superseded" and "mem-v2" in c.detail


def test_superseding_fact_takes_the_place_of_an_old_only_match() -> None:
    old = F(
        "mem-old", "deploy-command", "Deploy command", body="Deploy with ./scripts/deploy.sh --prod.", updated=ago(90)
    )
    new = F(
        "mem-new",
        "release-procedure",
        "Release procedure",
        body="Releases go out with make ship.",
        supersedes=("project/deploy-command.md",),
    )
    r = recall([old, new], "how do I run deploy.sh for prod?", NOW)
    assert ids(r) == ["mem-new"] and "replaces deploy-command" in r.hits[0].reason


def test_supersedes_by_a_pinned_fact_only_drops() -> None:
    old = F("mem-old", "style-old", "Style", body="tabs for indentation everywhere")
    new = F("mem-new", "style", "Style", body="spaces", activation="pinned", supersedes=("mem-old",))
    r = recall([old, new], "tabs for indentation", NOW)
    assert r.hits == () and r.block == "" and r.suppressed == "matched facts are superseded or shadowed"
    assert {c.fact.id: c.decision for c in r.considered}["mem-old"] == "superseded"


def test_stale_hits_are_flagged_and_ranked_after_current_ones() -> None:
    old = F(
        "mem-old",
        "release-branch",
        "Release branch",
        body="Cut releases from release/0.9; the release branch is protected; cut releases here.",
        volatility="volatile",
        updated=ago(60),
    )
    new = F(
        "mem-new",
        "release-line",
        "Current release line",
        body="The release line is release/1.21; cut from it.",
        volatility="volatile",
        updated=ago(3),
    )
    q = "which release branch do we cut releases from?"
    exact = recall([old, new], q, NOW, mode=EXACT)
    assert ids(exact)[0] == "mem-old" and "[stale" not in exact.block
    r = recall([old, new], q, NOW)
    assert ids(r) == ["mem-new", "mem-old"]
    assert "fact: [stale: last updated 2026-05-28, 60 days ago; verify before relying on it]" in r.block
    assert r.hits[1].markers and "freshness=stale" in r.block


def test_an_older_fact_a_newer_one_says_it_replaced_is_flagged_and_ranked_after_it() -> None:
    npm = F(
        "mem-npm",
        "package-manager-npm",
        "Package manager: npm",
        body="We use npm. Run npm install, then npm run build.",
        updated=ago(100),
    )
    pnpm = F(
        "mem-pnpm",
        "package-manager-change",
        "Switched to pnpm",
        body="We moved away from npm to pnpm in June; use pnpm install.",
        updated=ago(20),
    )
    q = "how should I run npm install before building?"
    assert ids(recall([npm, pnpm], q, NOW, mode=EXACT))[0] == "mem-npm"
    r = recall([npm, pnpm], q, NOW)
    assert ids(r) == ["mem-pnpm", "mem-npm"]
    assert "[outdated: superseded by mem-pnpm (it says npm was replaced)]" in r.block
    assert any(ch.startswith("supersession: superseded by mem-pnpm") for ch in r.hits[1].channels)


@pytest.mark.parametrize(
    ("old_body", "new_body", "query"),
    [
        (
            "CI is the Jenkins job app-main; it builds every push.",
            "Pipelines are GitHub Actions workflows. The Jenkins server was shut down in January.",
            "which jenkins job builds the app?",
        ),
        (
            "部署用 Jenkins 的 deploy 任务，选好分支点构建。",
            "我们已经迁移到 Argo CD，Jenkins 不再使用。",
            "Jenkins 部署任务怎么用",
        ),
        ("主库是 MySQL 5.7，读写都走 proxysql。", "MySQL 已于五月弃用，主库现在是 PostgreSQL。", "MySQL 主库怎么连"),
        (
            "The mobile builds run on Bitrise for every PR.",
            "PR builds run on GitHub Actions now; Bitrise was turned off.",
            "why is bitrise not building my PR?",
        ),
    ],
)
def test_passive_and_chinese_replacement_language(old_body: str, new_body: str, query: str) -> None:
    old = F("mem-old", "old-setup", body=old_body, updated=ago(200))
    new = F("mem-new", "new-setup", body=new_body, updated=ago(10))
    r = recall([old, new], query, NOW)
    assert ids(r)[0] == "mem-new", r.considered
    if "mem-old" in ids(r):
        assert "outdated" in r.hits[ids(r).index("mem-old")].markers[0]


def test_replacement_language_must_name_what_the_older_fact_is_about() -> None:
    build = F("mem-build", "build-server", "Building", body="Build the server with make build.", updated=ago(60))
    turbo = F("mem-turbo", "build-cache", "Build cache", body="We switched from the old build cache to Turborepo.")
    r = recall([build, turbo], "how do I build the server?", NOW)
    assert ids(r)[0] == "mem-build" and all(not h.markers for h in r.hits)
    older_claim = F("mem-claim", "claim", "Claim", body="We moved away from npm.", updated=ago(200))
    npm = F("mem-npm", "npm", "npm usage", body="Run npm install and npm test.", updated=ago(1))
    r = recall([older_claim, npm], "npm install test", NOW)
    assert all(not h.markers for h in r.hits)


def test_moved_to_is_replacement_language() -> None:
    """ "We moved the API to Render" states a change without naming Heroku: the older fact on
    the same thing is flagged and ranked after it."""
    heroku = F(
        "mem-heroku",
        "api-deploy",
        "Deploying the API",
        body="The API runs on Heroku (app quill-api); deploy with `git push heroku main` after CI is green.",
        updated=ago(400),
    )
    render = F(
        "mem-render",
        "render-hosting",
        "API hosting",
        body="We moved the API to Render in March. It deploys by itself when main goes green; the service is quill-api-prod.",
        updated=ago(50),
    )
    r = recall([heroku, render], "how do I deploy the api?", NOW)
    assert ids(r)[0] == "mem-render", r.considered
    old = r.hits[ids(r).index("mem-heroku")] if "mem-heroku" in ids(r) else None
    assert old is None or any("outdated" in m for m in old.markers), old
    assert any("supersession" in c for h in r.hits for c in h.channels)


def test_a_fact_that_states_a_change_supersedes_an_equally_dated_one_it_never_names() -> None:
    """Reasonix's MemoryBench mb-contradiction: "We migrated to pnpm" never names npm, and
    the two facts carry the same date; the fact that states the change is the later word."""
    pnpm = F(
        "mem-a-tooling",
        "dependency-tooling",
        desc="We migrated to pnpm",
        body="We migrated to pnpm; install with `pnpm install`.",
        updated=ago(1),
    )
    npm = F(
        "mem-b-pm",
        "package-manager",
        desc="This project uses npm",
        body="This project uses npm; install with `npm install`.",
        updated=ago(1),
    )
    q = "Write the command to install this project's dependencies into answer.txt."
    assert ids(recall([pnpm, npm], q, NOW, mode=EXACT))[0] == "mem-b-pm"  # Reasonix: npm first, unflagged
    r = recall([pnpm, npm], q, NOW)
    assert ids(r)[0] == "mem-a-tooling", r.considered
    if "mem-b-pm" in ids(r):
        assert "outdated" in r.hits[1].markers[0]
    # the same two facts without the change statement: neither is flagged
    plain = F(
        "mem-a-tooling",
        "dependency-tooling",
        desc="We use pnpm",
        body="We use pnpm; install with `pnpm install`.",
        updated=ago(1),
    )
    assert all(not h.markers for h in recall([plain, npm], q, NOW).hits)


def test_one_known_rare_word_in_one_fact_is_enough_an_unknown_one_is_not() -> None:
    """MemoryBench mb-v1miss-cjk-short: one specific word (灰度, canary release) among an
    instruction's nine; an unknown word ("kotlin") found in one fact is no such evidence."""
    canary = F(
        "mem-canary",
        "canary-ratio",
        desc="Canary rollout ratio",
        body="Canary (灰度) traffic ratio is 7%, fixed by the SRE council.",
    )
    other = F("mem-ports", "local-ports", body="本地开发：API 跑在 8080。")
    q = "查一下灰度的放量比例，写进 answer.txt。"
    assert ids(recall([canary, other], q, NOW, mode=EXACT)) == []
    assert ids(recall([canary, other], q, NOW)) == ["mem-canary"]
    lexical_only = Enhancements().without("meaning")
    assert ids(recall([canary, other], q, NOW, enhancements=lexical_only)) == ["mem-canary"]
    # a word no dictionary knows, in one fact, is no such evidence
    unknown = F("mem-zorb", "zorblax-ratio", desc="Zorblax ratio", body="Zorblax traffic ratio is 7%.")
    zq = "check the zorblax numbers, write them into answer.txt"
    assert ids(recall([unknown, other], zq, NOW, enhancements=lexical_only)) == []


def test_a_tool_name_meets_the_file_named_after_it() -> None:
    node = F("mem-node", "node-runtime", "Node runtime", body="Node 22 LTS now; .nvmrc says 22.")
    npm = F("mem-npm", "registry", "npm registry", body="npm uses the company registry; run npm login first.")
    lint = F("mem-lint", "linting", "Linting", body="ESLint rules live in .eslintrc.json at the root.")
    r = recall([node, npm, lint], "nvm use says the version isn't installed, what do I install?", NOW)
    assert ids(r)[:1] == ["mem-node"], r.considered
    assert "lexical: nvm" in r.hits[0].channels


def test_a_chinese_word_reaches_an_acronym_through_the_compounds_it_heads() -> None:
    docs = F("mem-docs", "api-docs", "API docs", body="The OpenAPI spec is generated by FastAPI and served at /docs.")
    ports = F("mem-ports", "local-ports", "Local ports", body="The API listens on 8080 locally.")
    deploy = F("mem-deploy", "deploy", "Deploy", body="Deploy with Argo CD; production syncs are manual.")
    r = recall([docs, ports, deploy], "接口文档要手动改吗", NOW)
    assert ids(r)[:1] == ["mem-docs"], r.considered
    assert "translated: 接口→API" in r.hits[0].channels


def test_same_subject_key_the_newest_is_current_and_the_trace_says_why() -> None:
    old = F(
        "mem-node20",
        "node-version",
        "Node version",
        body="Use Node 20 (see .nvmrc).",
        subject_key="runtime.node",
        updated=ago(160),
    )
    new = F(
        "mem-node22",
        "node-runtime",
        "Node runtime",
        body="Node 22 LTS now.",
        subject_key="runtime.node",
        updated=ago(12),
    )
    q = "which node version should I use?"
    assert ids(recall([old, new], q, NOW, mode=EXACT))[0] == "mem-node20"
    r = recall([old, new], q, NOW)
    assert ids(r) == ["mem-node22"] and "Node 20" not in r.block
    c = {c.fact.id: c for c in r.considered}["mem-node20"]
    assert c.decision == "superseded" and "mem-node22" in c.detail and "same subject runtime.node" in c.detail
    assert any(ch.startswith("subject: superseded by mem-node22") for ch in c.channels)


def test_same_subject_across_scopes_the_project_fact_wins_even_when_older() -> None:
    g = F(
        "mem-g",
        "default-region",
        "Default AWS region",
        body="Deploy to us-east-1.",
        scope="global",
        subject_key="deploy.region",
        updated=ago(1),
    )
    p = F(
        "mem-p",
        "payments-region",
        "Payments region",
        body="Payments deploy to eu-west-1.",
        subject_key="deploy.region",
        updated=ago(90),
    )
    r = recall([g, p], "which region do we deploy to?", NOW)
    assert ids(r) == ["mem-p"] and "us-east-1" not in r.block


def test_a_project_fact_overrides_a_global_default_under_other_names() -> None:
    g = F(
        "mem-g",
        "js-package-manager-default",
        "Default JS package manager",
        desc="npm unless a repo says otherwise",
        body="For JavaScript projects I use npm (npm install, npm run <script>).",
        scope="global",
        type="user",
        updated=ago(400),
    )
    p = F(
        "mem-p",
        "pnpm-workspace",
        "This repo is a pnpm workspace",
        desc="use pnpm, not npm or yarn",
        body="Install with pnpm install from the root. The lockfile is pnpm-lock.yaml.",
        updated=ago(200),
    )
    from reasonix_tui.core.recall import pinned_report

    assert "mem-g" in [f.id for f in pinned_report(facts=[g, p], settings=Settings(recall_mode=EXACT)).guidance.facts]
    report = pinned_report(facts=[g, p], settings=Settings())
    assert [f.id for f in report.guidance.facts] == [] and "npm install, npm run" not in report.block
    assert any(e.kind == "superseded" and e.by is p for e in report.guidance.suppressed)
    r = recall([g, p], "how do I run npm install here?", NOW)
    assert ids(r) == ["mem-p"]


def test_session_start_never_carries_two_values_for_one_subject() -> None:
    zh = F(
        "mem-zh",
        "commit-message-style",
        "提交信息格式",
        body="提交信息用中文写。",
        scope="global",
        type="user",
        subject_key="git.commit_style",
        updated=ago(300),
    )
    en = F(
        "mem-en",
        "commit-messages",
        "Commit messages",
        body="Commit messages in English, conventional commits.",
        scope="global",
        type="user",
        subject_key="git.commit_style",
        updated=ago(20),
    )
    from reasonix_tui.core.recall import pinned_report

    assert len(pinned_report(facts=[zh, en], settings=Settings(recall_mode=EXACT)).guidance.facts) == 2
    report = pinned_report(facts=[zh, en], settings=Settings())
    assert [f.id for f in report.guidance.facts] == ["mem-en"] and "提交信息用中文写" not in report.block


def test_identifier_spellings_meet() -> None:
    fact = F("mem-pool", "db-pool-size", "DB pool size", body="max_open_conns = 20 in config/db.toml")
    assert recall([fact], "where is MaxOpenConns configured?", NOW, mode=EXACT).hits == ()
    r = recall([fact], "where is MaxOpenConns configured?", NOW)
    assert ids(r) == ["mem-pool"] and "lexical: maxopenconns" in r.hits[0].channels


def test_chinese_words_are_segmented_not_bigrams() -> None:
    recon = F("mem-recon", "recon-owner", "对账服务负责人", body="对账服务（recon）的负责人是陈静。")
    core = F("mem-core", "core-owner", "账务核心负责人", body="ledger-core 模块由王磊负责。")
    r = recall([recon, core], "对账服务谁负责", NOW)
    assert ids(r)[0] == "mem-recon"
    # 账服 is a bigram across two words; it is no evidence for the ledger-core fact
    assert all("账服" not in ch for h in r.hits for ch in h.channels)


def test_dictionary_bridges_languages_both_ways() -> None:
    en = F("mem-en", "database-migrations", "Database migrations", body="Run make migrate to apply migrations.")
    assert recall([en], "数据库迁移怎么跑", NOW, mode=EXACT).hits == ()
    r = recall([en], "数据库迁移怎么跑", NOW)
    assert ids(r) == ["mem-en"] and "translated: 数据库→database" in r.hits[0].channels
    zh = F("mem-zh", "rule-17", "金额存储", body="金额一律用整数「分」存储（int64），禁止用 float。")
    r = recall([zh], "how should money amounts be stored?", NOW)
    assert ids(r) == ["mem-zh"] and any(ch.startswith("translated: money→金额") for ch in r.hits[0].channels)
    other = F("mem-it", "nightly", "Nightly integration tests", body="Integration tests run nightly.")
    assert recall([other, en], "单元测试覆盖率要求", NOW).hits == ()


def test_title_that_is_the_query_ranks_first() -> None:
    port = F(
        "mem-port", "dev-server-port", "Dev server port", body="The dev server runs on port 3000.", updated=ago(50)
    )
    e2e = F(
        "mem-e2e",
        "e2e",
        "End-to-end tests",
        body="Playwright tests expect the dev server on port 3000; start the dev server first.",
        updated=ago(5),
    )
    assert ids(recall([port, e2e], "dev server port", NOW))[0] == "mem-port"


def test_function_words_alone_are_no_evidence() -> None:
    dlq = F(
        "mem-dlq",
        "payments-dead-letter-policy",
        "Payments dead-letter policy",
        body="Failed payment events are retried five times, then parked in a dead-letter queue.",
    )
    rota = F(
        "mem-rota", "oncall-rota", "On-call rota", body="The on-call engineer this week is Dana; see the calendar."
    )
    q = "what is the dead-letter policy for the payments queue?"
    assert ids(recall([dlq, rota], q, NOW, mode=EXACT)) == ["mem-dlq", "mem-rota"]  # matched "is, the"
    r = recall([dlq, rota], q, NOW)
    assert ids(r) == ["mem-dlq"] and "On-call" not in r.block
    assert r.hits[0].reason.startswith("matched dead, letter, policy, payments;")  # not "what, is, the"
    assert recall([dlq, rota], "what is the", NOW).hits == ()


def test_weak_match_is_explained_with_its_evidence() -> None:
    facts = [F(f"mem-{i}", f"f{i}", f"Topic {i}", body=f"Unrelated body number {i} about widgets.") for i in range(12)]
    facts.append(
        F("mem-auth", "auth-notes", "Authentication notes", body="Authentication uses a signed session cookie.")
    )
    r = recall(facts, "fix the authentication issue in this large application before the demo tomorrow", NOW)
    c = {c.fact.id: c for c in r.considered}["mem-auth"]
    assert c.decision == "gate" and "authentication matched" in c.detail and "evidence" in c.detail


@pytest.mark.parametrize(
    "query",
    [
        "ok, go ahead",
        "好的，继续",
        "write a haiku about autumn leaves",
        "tell me a joke about programmers",
        "今天天气怎么样",
    ],
)
def test_generic_and_unrelated_turns_stay_silent(query: str) -> None:
    facts = [
        F("mem-1", "deploy", "Deploy", body="Deploy with fly deploy; staging uses fly.staging.toml."),
        F("mem-2", "tests", "Running tests", body="Run pnpm test; e2e needs the dev server on port 3000."),
        F("mem-3", "owner", "Checkout owner", body="Priya owns the checkout service."),
        F("mem-4", "weather-widget", "Weather widget", body="天气组件的接口在 apps/weather。"),
    ]
    assert recall(facts, query, NOW).hits == ()


def test_each_improvement_can_be_switched_off() -> None:
    en = F("mem-en", "database-migrations", "Database migrations", body="Run make migrate to apply migrations.")
    assert ids(recall([en], "数据库迁移怎么跑", NOW)) == ["mem-en"]
    assert recall([en], "数据库迁移怎么跑", NOW, enhancements=Enhancements().without("dictionary")).hits == ()
    old = F(
        "mem-node20", "node-version", "Node version", body="Use Node 20.", subject_key="runtime.node", updated=ago(9)
    )
    new = F("mem-node22", "node-runtime", "Node runtime", body="Node 22 now.", subject_key="runtime.node")
    assert "mem-node20" in ids(recall([old, new], "node version", NOW, enhancements=Enhancements().without("subjects")))
    assert set(Enhancements.names()) == {
        "dictionary",
        "meaning",
        "answers",
        "lexicon",
        "subjects",
        "topics",
        "supersedes",
        "stale_flags",
        "generic",
        "focus",
    }


def test_mode_setting_and_validation() -> None:
    fact = F("mem-pool", "db-pool-size", "DB pool size", body="max_open_conns = 20")
    assert recall([fact], "MaxOpenConns", NOW, Settings(recall_mode=EXACT)).mode == EXACT
    assert recall([fact], "MaxOpenConns", NOW, Settings(recall_mode=EXACT)).hits == ()
    with pytest.raises(ValueError):
        recall([fact], "x", NOW, mode="fancy")


# ----------------------------------------------------------------- the retrieval suite


def _suite() -> Any:
    from script_modules import retrieval_runner

    return retrieval_runner()


def test_retrieval_tasks_are_valid_and_cover_every_class() -> None:
    run = _suite()
    tasks = run.load_tasks()
    assert all(not run.validate(t) for t in tasks), {t.id: run.validate(t) for t in tasks if run.validate(t)}
    per_class = {c: sum(t.cls == c for t in tasks) for c in run.CLASSES}
    assert all(n >= 3 for n in per_class.values()), per_class
    assert any(t.noise >= 100 for t in tasks if t.cls == "distractor")


def test_realistic_part_is_valid_and_big_enough() -> None:
    """At least 60 tasks over three or more stores of 20-40 facts, every class present,
    and every task valid."""
    run = _suite()
    tasks = run.load_store_tasks()
    assert len(tasks) >= 60
    assert all(not run.validate(t) for t in tasks), {t.id: run.validate(t) for t in tasks if run.validate(t)}
    stores = {t.store: len(t.facts) for t in tasks}
    assert len(stores) >= 3 and all(20 <= n <= 40 for n in stores.values()), stores
    per_class = {c: sum(t.cls == c for t in tasks) for c in run.REALISTIC_CLASSES}
    assert all(n >= 3 for n in per_class.values()), per_class


def test_memorybench_part_holds_the_fifteen_upstream_tasks() -> None:
    run = _suite()
    tasks = run.load_tasks(run.MB_DIR, "memorybench")
    assert len(tasks) == 15
    assert all(not run.validate(t) for t in tasks), {t.id: run.validate(t) for t in tasks if run.validate(t)}
    assert len(next(t for t in tasks if t.id == "mb-distractor").facts) == 101


def test_validation_refuses_a_forbidden_pattern_inside_the_required_one() -> None:
    run = _suite()
    task = run.Task(
        id="mb-contradiction",
        cls="contradiction",
        query="q",
        facts=[{"id": "mem-1", "name": "x"}],
        expect={"contain": ["pnpm install"], "not_contain": ["npm install"]},
        now=NOW,
    )
    assert any("can never pass" in p for p in run.validate(task))
    task.expect = {"contain": ["pnpm install"], "not_contain": [r"(?<![\w])npm install"]}
    assert run.validate(task) == []


def test_suite_enhanced_passes_everything_exact_passes() -> None:
    run = _suite()
    rows = run.run_suite(run.load_tasks())
    exact = {r["task"].id for r in rows if r["results"]["exact"].passed}
    enhanced = {r["task"].id for r in rows if r["results"]["enhanced"].passed}
    off = {r["task"].id for r in rows if r["results"]["off"].passed}
    assert exact <= enhanced
    assert len(enhanced) > len(exact) > len(off)


# ----------------------------------------------------------------- per-fact memo


def test_rebuilds_reuse_unchanged_facts_and_give_the_same_answers() -> None:
    """After a write, the next index tokenizes only the changed fact (same objects are
    reused), and every answer equals a build from nothing."""
    from dataclasses import replace

    import reasonix_tui.core.recall.index as index_mod
    from reasonix_tui.core.recall.memo import FACT_MEMO

    rnd = random.Random(7)
    words = "deploy cache billing retry invoice token schema region replica queue CamelCase max_open_conns 数据库 迁移".split()
    facts = [
        F(
            f"mem-{i:04d}",
            f"fact-{i}",
            title=" ".join(rnd.sample(words, 3)) + f" svc{i}",
            desc=" ".join(rnd.sample(words, 4)),
            body=" ".join(rnd.sample(words, 6)),
            keywords=" ".join(rnd.sample(words, 2)),
            type="project",
            scope="project" if i % 3 else "global",
        )
        for i in range(60)
    ]
    queries = [
        "how do we deploy the cache region of svc10",
        "billing retry token svc4",
        "数据库迁移怎么做 svc11",
        "max_open_conns replica svc20",
    ]
    first = [ids(recall(facts, q, NOW)) for q in queries]
    assert len(FACT_MEMO) >= len(facts)
    computed: list[str] = []
    real = index_mod._recall_tokens
    index_mod._recall_tokens = lambda f: computed.append(f.id) or real(f)  # type: ignore[assignment]
    try:
        changed = replace(facts[10], body="deploy deploy billing", revision=2)
        facts2 = facts[:10] + [changed] + facts[11:]
        memo_answers = [(ids(r), [h.score for h in r.hits]) for r in (recall(facts2, q, NOW) for q in queries)]
    finally:
        index_mod._recall_tokens = real  # type: ignore[assignment]
    assert computed == [changed.id]  # one fact tokenized, not 60
    clear_index_cache()  # a build from nothing
    fresh_answers = [(ids(r), [h.score for h in r.hits]) for r in (recall(facts2, q, NOW) for q in queries)]
    assert memo_answers == fresh_answers
    assert all(first) and all(a[0] for a in memo_answers)  # real hits, not empty answers


def test_memo_keeps_only_facts_of_cached_indexes() -> None:
    from reasonix_tui.core.recall.memo import FactMemo

    memo = FactMemo()
    a, b = F("mem-a", "a", body="alpha"), F("mem-b", "b", body="beta")
    assert memo.get(a, "tokens", lambda f: ["x"]) == ["x"]
    assert memo.get(a, "tokens", lambda f: ["y"]) == ["x"]  # same object: memoised
    twin = F("mem-a", "a", body="alpha")
    assert memo.get(twin, "tokens", lambda f: ["z"]) == ["z"]  # an equal but other object is not
    memo.get(b, "tokens", lambda f: ["b"])
    memo.retain([[twin], [b]])
    assert len(memo) == 2 and memo.get(a, "tokens", lambda f: ["again"]) == ["again"]


def test_memo_disk_layer_serves_a_new_process_with_the_same_answers(tmp_path: Path) -> None:
    """One-shot processes: tokens and features come from disk for facts whose content is
    unchanged, and every answer equals a build without the disk layer."""
    from dataclasses import replace

    import reasonix_tui.core.recall.fields as fields_mod
    import reasonix_tui.core.recall.index as index_mod
    from reasonix_tui.core.recall.memo import FACT_MEMO

    words = "deploy cache billing retry invoice token schema region replica queue CamelCase max_open_conns 数据库 迁移".split()

    def make() -> list[Fact]:  # new objects with the same content, as a new process reads them
        r = random.Random(11)
        return [
            F(
                f"mem-{i:04d}",
                f"fact-{i}",
                title=" ".join(r.sample(words, 3)) + f" svc{i}",
                desc=" ".join(r.sample(words, 4)),
                body=" ".join(r.sample(words, 6)),
                keywords=" ".join(r.sample(words, 2)),
                type="project",
                scope="project" if i % 3 else "global",
                subject_key=f"project.k{i}" if i % 7 == 0 else "",
            )
            for i in range(40)
        ]

    queries = [
        "how do we deploy the cache region svc3",
        "billing retry token svc5",
        "数据库迁移怎么做 svc8",
        "CamelCase replica svc12",
    ]
    path = tmp_path / "cache" / "recall-memo.marshal"
    try:
        FACT_MEMO.clear()
        FACT_MEMO.attach(path)
        first = [(ids(r), [h.score for h in r.hits]) for r in (recall(make(), q, NOW) for q in queries)]
        assert FACT_MEMO.save() and path.exists() and oct(path.stat().st_mode & 0o777) == "0o600"
        # "a new process": nothing in memory, the file read again, new fact objects
        clear_index_cache()
        FACT_MEMO.attach(path)
        computed: list[str] = []
        real_tokens, real_fields = index_mod._recall_tokens, fields_mod._compute
        index_mod._recall_tokens = lambda f: computed.append("t:" + f.id) or real_tokens(f)  # type: ignore[assignment]
        fields_mod._compute = lambda f: computed.append("e:" + f.id) or real_fields(f)  # type: ignore[assignment]
        try:
            facts = make()
            facts[3] = replace(facts[3], body="deploy deploy billing changed")
            second = [(ids(r), [h.score for h in r.hits]) for r in (recall(facts, q, NOW) for q in queries)]
        finally:
            index_mod._recall_tokens, fields_mod._compute = real_tokens, real_fields  # type: ignore[assignment]
        assert sorted(computed) == ["e:mem-0003", "t:mem-0003"]  # only the changed fact
        clear_index_cache()  # the reference: no disk layer at all
        fresh = [(ids(r), [h.score for h in r.hits]) for r in (recall(facts, q, NOW) for q in queries)]
        assert second == fresh and all(a[0] for a in first)
        # a corrupt file is ignored (everything is computed again, answers unchanged)
        path.write_bytes(path.read_bytes()[:-7] + b"garbage")
        clear_index_cache()
        FACT_MEMO.attach(path)
        assert [(ids(r), [h.score for h in r.hits]) for r in (recall(facts, q, NOW) for q in queries)] == fresh
    finally:
        clear_index_cache()


def _office(n: int = 6) -> list[Fact]:
    """Unrelated project facts, so that document frequencies mean something."""
    topics = [
        "Staging database is Postgres 15 on port 5433.",
        "Priya owns the billing service.",
        "The design files are in Figma, project Harbor.",
        "Nightly exports land in the S3 bucket trk-exports.",
        "Standup is at 9:45 in the team channel.",
        "The API gateway listens on 8080 locally.",
        "Feature flags are LaunchDarkly keys prefixed hb_.",
        "Grafana dashboards live in ops/grafana.",
    ]
    return [F(f"mem-o{i}", f"office-{i}", f"Office note {i}", body=topics[i]) for i in range(n)]


def test_a_project_fact_rejecting_a_global_default_overrides_it_in_the_session_start_block() -> None:
    """A project rule that rejects what a global default prescribes ("no feat:/fix: prefixes
    in this repo", "别用 pip"), under another name, title and wording, overrides it."""
    from reasonix_tui.core.recall import pinned_report

    g = F(
        "mem-g",
        "commit-style",
        "Commit messages",
        scope="global",
        type="feedback",
        activation="pinned",
        body="Write commit messages in Conventional Commits form (feat:, fix:, chore: ...), imperative mood.",
        updated=ago(500),
    )
    p = F(
        "mem-p",
        "changelog-keys",
        "How harbor titles its commits",
        updated=ago(60),
        body="Every commit subject starts with the Jira key, like `TRK-142 add retry`. The release tool builds "
        "the changelog from those keys, so no feat:/fix: prefixes in this repo.",
    )
    zg = F(
        "mem-zg",
        "python-tooling",
        "Python tooling",
        scope="global",
        type="feedback",
        activation="pinned",
        body="For Python projects create the environment with `python -m venv .venv` and install with pip.",
        updated=ago(600),
    )
    zp = F(
        "mem-zp",
        "env-setup",
        "环境搭建",
        updated=ago(50),
        body="这个仓库用 uv 管理依赖：`uv sync` 建环境，`uv run` 跑命令，别用 pip 直接装包。",
    )
    facts = [g, p, zg, zp, *_office()]
    assert {"mem-g", "mem-zg"} <= {
        f.id for f in pinned_report(facts=facts, settings=Settings(recall_mode=EXACT)).guidance.facts
    }
    report = pinned_report(facts=facts, settings=Settings())
    assert {f.id for f in report.guidance.facts}.isdisjoint({"mem-g", "mem-zg"})
    assert "Conventional Commits" not in report.block and "venv" not in report.block
    # a turn about the dropped default recalls the project fact that overrides it, first
    r = recall(facts, "how do I set up the Python environment for this repo?", NOW)
    assert ids(r)[:1] == ["mem-zp"], r.considered
    assert any("replaces python-tooling (override)" in c for c in r.hits[0].channels)
    assert "mem-zp" not in ids(recall(facts, "how do I set up the Python environment?", NOW, mode=EXACT))


def test_a_title_that_is_the_query_passes_the_gate() -> None:
    retries = F("mem-r", "retries", "Retries", body="Outbound HTTP calls retry 3 times with exponential backoff.")
    others = [
        F(f"mem-{i}", f"n{i}", f"Worker {i}", body=f"The worker {i} logs every retries exhausted case.")
        for i in range(3)
    ]
    r = recall([retries, *others, *_office()], "retries", NOW)
    assert ids(r)[:1] == ["mem-r"]


def test_a_common_single_character_or_gloss_is_no_evidence() -> None:
    facts = [
        F("mem-pii", "sensitive", "敏感数据", body="手机号和身份证号入仓前必须用 sha256 加盐哈希。"),
        F(
            "mem-sc",
            "schema-changes",
            "Schema changes",
            body="Any column rename or drop in a mart table needs a notice one week ahead.",
        ),
        F("mem-rev", "review", "代码评审", body="合并请求至少要一个数据组的人批准。"),
        *_office(),
    ]
    assert recall(facts, "我的手机屏幕碎了，换一块要多少钱？", NOW).hits == ()


def test_compounds_and_agent_nouns_meet_their_parts() -> None:
    dlq = F(
        "mem-dlq",
        "dead-letters",
        "Failed messages",
        body="A message that fails 5 times goes to the deadletter topic; replay it with trk replay-dlq.",
    )
    logger = F("mem-log", "logx", "Service output", body="Services use the zerolog-based logger in internal/logx.")
    facts = [dlq, logger, *_office()]
    assert ids(recall(facts, "where do dead letter messages go?", NOW))[:1] == ["mem-dlq"]
    assert ids(recall(facts, "what's our logging setup?", NOW)) == ["mem-log"]


def test_enhanced_analysis_reads_a_bounded_prefix_of_a_huge_body() -> None:
    """A megabyte body (an approved paste) is analysed as its first ANALYSED_CHARS
    characters: the same terms, cues and meaning vector as that prefix, so an index build
    does not spend seconds on one fact."""
    from reasonix_tui.core.recall.fields import ANALYSED_CHARS, fact_fields, fact_vector

    head = "Deploys go to k8s-stage-2 with helm upgrade; we no longer use kubectl apply. "
    tail = "zebrafish-only-in-the-tail " * 2000
    body = (head * (ANALYSED_CHARS // len(head) + 1))[:ANALYSED_CHARS]
    huge = F("h", "deploy-notes", body=body + tail)
    prefix = F("p", "deploy-notes", body=body)
    assert fact_fields(huge) == fact_fields(prefix)
    assert not any("zebrafish" in key for key, _ in fact_fields(huge).body)
    assert (fact_vector(huge) == fact_vector(prefix)).all()


def test_a_rejecting_clause_never_rejects_its_own_negation_words() -> None:
    """The negation that makes a clause a rejection ("never", "don't", "rather than", 从不, 别)
    is its cue, not the thing rejected: the clause's keys name npm and yarn, not "never"."""
    from reasonix_tui.core.recall.fields import fact_fields

    def rejected(body: str) -> set[str]:
        ff = fact_fields(F("mem-x", "x", "X", body=body))
        return {k for clause, strong in ff.cues if not strong for k, _ in clause}

    assert rejected("Use pnpm, never npm or yarn, in this repository.") == {"w:npm", "w:yarn"}
    assert rejected("Don't run the full suite, rather than that run tox.") >= {"w:run", "w:full", "w:suit"}
    assert rejected("Don't run the full suite, rather than that run tox.").isdisjoint({"w:dont", "w:rather"})
    zh = rejected("我们从不用 npm，别用 yarn。")
    assert {"w:npm", "w:yarn"} <= zh and zh.isdisjoint({"z:从不", "z:别"})


def test_a_negation_or_an_incidental_rejected_word_pairs_no_facts() -> None:
    """Two facts that share only a negation ("never" against "Never force-push") are no
    override; a rejected word the older fact holds in passing ("Logs carry no personal
    data" against release notes that "log more context"), with meanings far apart, is no
    replacement. "use pnpm, never npm" still replaces the npm rule."""
    from reasonix_tui.core.resolve import resolve

    force = F(
        "mem-g",
        "no-force-push",
        "Never force-push shared branches",
        "Do not force-push main or release branches",
        "Never `git push --force` to `main`. Use `--force-with-lease` only on your own branches.",
        scope="global",
        updated=ago(400),
    )
    pm = F(
        "mem-pm",
        "package-manager",
        "Package manager is pnpm",
        "Use pnpm, never npm or yarn, in this repository",
        "Use pnpm for every install and script.",
        updated=ago(10),
    )
    npm = F("mem-npm", "npm-install", "Installing", "npm for installs", "We install with npm install.", updated=ago(90))
    notes = F(
        "mem-rn",
        "release-notes-june",
        "Release notes, June",
        "Every change merged in June",
        "- fix a crash in invoices\n- log more context in auth\n- speed up reports\n- retry failed webhooks",
        updated=ago(40),
    )
    review = F(
        "mem-rc",
        "review-checklist",
        "Code review checklist",
        "What every pull request review covers",
        "Every change has tests. Logs carry no personal data. A change merged without review is reverted.",
        updated=ago(20),
    )
    pairs = {(s.old.id, s.current.id) for s in resolve([force, pm, npm, notes, review, *_office()]).items}
    assert ("mem-g", "mem-pm") not in pairs
    assert ("mem-rn", "mem-rc") not in pairs
    assert ("mem-npm", "mem-pm") in pairs


def test_one_shared_everyday_word_in_an_unrelated_turn_recalls_nothing() -> None:
    """A fact that matches one English word of a turn about something else stays out: an
    everyday word ("Friday" in a dinner question) weighs little in the turn (its prior comes
    from corpus frequencies), and a rarer one ("payroll" in a question about a bakery app)
    stays out when the meaning channel finds the turn unrelated; a turn about the fact still
    recalls it, and an identifier alone still passes."""
    friday = F(
        "mem-fri",
        "friday-deploys",
        "Friday deploys",
        body="No production deploys after 16:00 on Friday; anything later waits until Monday.",
    )
    freeze = F(
        "mem-frz",
        "release-freeze",
        "Release freeze",
        body="No deploys during the quarter-end freeze while the payroll batch runs; carbon offsets reports ship after it.",
    )
    facts = [friday, freeze, *_office(8)]
    for turn in ("any ideas for a Friday night dinner with friends?", "a Friday night dinner?"):
        r = recall(facts, turn, NOW)
        assert ids(r) == [], turn
        why = next(c for c in r.considered if c.fact.id == "mem-fri")
        assert why.decision == "gate" and why.detail.startswith("weak match: friday matched"), turn
    r = recall(facts, "what is a good payroll app for a bakery?", NOW)
    assert ids(r) == []
    why = next(c for c in r.considered if c.fact.id == "mem-frz")
    assert why.decision == "gate" and "the turn means something else (meaning" in why.detail
    assert ids(recall(facts, "can I still deploy to production on Friday afternoon?", NOW))[:1] == ["mem-fri"]
    assert ids(recall(facts, "can I deploy while the payroll batch runs?", NOW))[:1] == ["mem-frz"]
    assert ids(recall(facts, "what is trk-exports for?", NOW))[:1] == ["mem-o3"]


def test_one_shared_name_in_a_turn_about_something_the_memory_does_not_hold_recalls_nothing() -> None:
    """A fact that matches one word of a turn ("Lisbon", "Berlin") stays out when the turn's
    other words are found in no fact and, read without the shared word, are far from the fact
    by meaning (weather, weekend; Prague), even though the whole turn's cosine, carried by the
    shared word, is high; the meaning channel does not bring it back alone. A real question
    naming the same thing still recalls it, and the trace says why the fact stayed out."""
    import numpy as np

    from reasonix_tui.core.recall.aside import ASIDE_MASS, aside

    standup = F(
        "mem-stand",
        "standup",
        "Standup",
        body="Standup is at 10:00 Lisbon time in the #quill-daily huddle; keep it under 15 minutes.",
    )
    regions = F(
        "mem-reg",
        "aws-regions",
        "AWS regions",
        body="Production runs in AWS eu-central-1 (Frankfurt); staging runs in eu-west-1 (Ireland).",
    )
    facts = [standup, regions, *_office(8)]
    for turn, fid in (
        ("what's the weather like in Lisbon this weekend?", "mem-stand"),
        ("are there any good restaurants near Frankfurt airport?", "mem-reg"),
    ):
        r = recall(facts, turn, NOW)
        assert ids(r) == [], turn
        why = next(c for c in r.considered if c.fact.id == fid)
        assert why.decision == "gate" and "about something no fact holds" in why.detail, turn
    assert ids(recall(facts, "what time is standup, Lisbon time?", NOW))[:1] == ["mem-stand"]
    assert ids(recall(facts, "is Frankfurt production or staging?", NOW))[:1] == ["mem-reg"]
    # too little information outside the store: nothing is kept out
    none = np.ones(1, dtype=bool)
    assert ASIDE_MASS == 1.0
    assert not aside((), np.zeros((0, 1), dtype=np.int16), np.zeros(0, dtype=bool), none, lambda p: np.zeros(4)).any()


def test_a_chinese_word_whose_sense_is_to_turn_into_states_a_change() -> None:
    """改成 "to turn into (sth else)" states a change like 改为 "to change into": the newer
    deploy fact replaces the older one; 成 alone (a bound character in most words) does not."""
    from reasonix_tui.core.recall.fields import zh_cue
    from reasonix_tui.core.resolve import resolve

    assert zh_cue("改成") and zh_cue("变成") and not zh_cue("成")
    old = F(
        "mem-fab",
        "部署脚本",
        "部署",
        body="部署用 Fabric，`fab deploy:staging` 会 ssh 到三台 ECS 上拉代码重启。",
        updated=ago(500),
    )
    new = F(
        "mem-k8s",
        "部署-k8s",
        "部署方式",
        body="部署已经改成 Kubernetes（阿里云 ACK）：`make deploy ENV=staging`；生产环境只在周二、周四下午发布。",
        updated=ago(40),
    )
    pairs = {(s.old.id, s.current.id) for s in resolve([old, new, *_office()]).items}
    assert ("mem-fab", "mem-k8s") in pairs


def test_a_turn_about_an_overridden_default_in_few_content_words_recalls_the_override() -> None:
    """ "Jest" (a content word) and "tests" (a common one) carry most of the turn: the turn is
    about the pinned Jest default, so the project's Vitest fact that overrides it is recalled."""
    from reasonix_tui.core.recall.channels import about_fact

    g = F(
        "mem-g",
        "unit-tests",
        "Unit tests",
        scope="global",
        type="feedback",
        activation="pinned",
        body="Every new function gets a Jest unit test next to it (foo.test.ts).",
        updated=ago(450),
    )
    p = F(
        "mem-p",
        "test-runner",
        "Test runner",
        updated=ago(65),
        body="Specs run on Vitest here (`yarn test`), components with React Native Testing Library. "
        "Put them in __tests__ folders.",
    )
    query = "should I write the tests for this hook with Jest?"
    assert about_fact(query, g)
    npm = F(
        "mem-npm",
        "js-package-manager-default",
        "Default JS package manager",
        scope="global",
        body=(
            "For JavaScript and TypeScript projects I use npm (npm install, npm run <script>) unless the repo says otherwise."
        ),
    )
    # "use" (0.1), "says" and "installed" are found, but they hold under half of the turn
    assert not about_fact("nvm use says the version isn't installed, what do I install?", npm)
    r = recall([g, p, *_office()], query, NOW)
    assert ids(r)[:1] == ["mem-p"], r.considered


def test_the_resolver_keeps_its_per_process_sets_out_of_the_disk_memo(tmp_path: Path) -> None:
    """A process that resolves topics without the recall channels loaded (``memory health``)
    must not write the resolver's interned arrays to the disk memo: the next process read
    them back as bytes and every topic pair was lost ("zero-dimensional arrays cannot be
    concatenated")."""
    from reasonix_tui.core.recall.memo import FACT_MEMO
    from reasonix_tui.core.resolve import topic_pairs

    path = tmp_path / "memo.marshal"
    facts = [
        F("mem-a", "deploy-a", "Deploys", body="We deploy with Fabric to the ECS hosts.", updated=ago(300)),
        F("mem-b", "deploy-b", "Deploys", body="We switched from Fabric to Kubernetes for deploys.", updated=ago(30)),
        *_office(),
    ]
    FACT_MEMO._transient.discard("topic-sets")  # as in a process that never imported the channels
    try:
        clear_index_cache()
        FACT_MEMO.clear()
        FACT_MEMO.attach(path)
        assert topic_pairs(facts) and FACT_MEMO.save()
        assert not any(kind == "topic-sets" for kind, _ in FACT_MEMO._disk_layer())
        FACT_MEMO.clear()  # a new process reading the file
        FACT_MEMO.attach(path)
        assert [(s.old.id, s.current.id) for s in topic_pairs([*facts])] == [("mem-a", "mem-b")]
    finally:
        FACT_MEMO.register_transient("topic-sets")
        clear_index_cache()


def test_a_common_chinese_character_is_never_what_a_clause_replaces() -> None:
    """ "迁移到 Kafka" says the messages moved, not that 到 "to" was replaced: a replacement
    clause's keys hold no common single character, so a rule sharing only such a character
    with it ("回滚到上一个镜像") is not paired with it; the queue it does name still is."""
    from reasonix_tui.core.recall.fields import fact_fields
    from reasonix_tui.core.resolve import resolve

    moved = F(
        "mem-mq",
        "消息队列迁移",
        "消息队列迁移",
        body="今年起异步消息已经迁移到 Kafka，RabbitMQ 不再使用。",
        updated=ago(10),
    )
    keys = {k for clause, _ in fact_fields(moved).cues for k, _ in clause}
    assert "x:rabbitmq" in keys and "z:到" not in keys
    rollback = F(
        "mem-rb", "回滚", "回滚", body="发版后出问题直接回滚到上一个镜像 tag，不要在线上热修。", updated=ago(100)
    )
    queue = F("mem-q", "消息队列", "消息队列", body="服务之间的异步消息用 RabbitMQ。", updated=ago(300))
    res = resolve([rollback, queue, moved])
    assert res.of(rollback) is None
    sup = res.of(queue)
    assert sup is not None and sup.current.id == moved.id


def test_a_change_statement_is_paired_by_what_it_is_about_not_by_its_replacement_verb() -> None:
    """ "异步消息已经迁移到 Kafka" glosses 迁移 as "migrate": read with that verb, it looks like
    any fact about migrations (an Alembic rule), and it was paired with one on meaning alone.
    The pair's meaning reads a change statement without its replacement words, so the
    Alembic rule stays current while the RabbitMQ fact the statement replaces is still paired."""
    from reasonix_tui.core.recall.fields import topic_vector
    from reasonix_tui.core.resolve import resolve

    alembic = F(
        "mem-al",
        "migrations",
        "Migrations",
        body="Alembic migrations live in db/versions; `make migrate` applies them. Never edit a migration that has shipped.",
        updated=ago(190),
    )
    queue = F(
        "mem-q",
        "消息队列",
        "消息队列",
        body="服务之间的异步消息用 RabbitMQ，交换机是 larkspur.events。",
        updated=ago(500),
    )
    moved = F(
        "mem-mq",
        "消息队列迁移",
        "消息队列迁移",
        body="今年起异步消息已经迁移到 Kafka，RabbitMQ 不再使用，旧交换机下个月下线。",
        updated=ago(100),
    )
    res = resolve([alembic, queue, moved, *_office()])
    assert res.of(alembic) is None
    sup = res.of(queue)
    assert sup is not None and sup.current.id == moved.id
    assert float(topic_vector(alembic) @ topic_vector(moved)) < 0.5


def test_moved_straight_to_and_the_old_x_are_replacement_language() -> None:
    """ "CI moved to GitHub Actions" (no object between the verb and "to") states a change,
    and "the old Jenkins job" names what was replaced: the Jenkins fact is paired with it."""
    from reasonix_tui.core.recall.fields import fact_fields
    from reasonix_tui.core.resolve import resolve

    new = F(
        "mem-ci-new",
        "ci-actions",
        "CI on GitHub Actions",
        body="CI moved to GitHub Actions in March; the old Jenkins job is read-only now.",
        updated=ago(120),
    )
    strong = [clause for clause, is_strong in fact_fields(new).cues if is_strong]
    assert len(strong) == 2
    assert any(k == "w:jenkin" for clause in strong for k, _ in clause)
    old = F(
        "mem-ci-old",
        "ci-jenkins",
        "CI",
        body="CI runs on Jenkins (jenkins.example.internal), job main.",
        updated=ago(420),
    )
    sup = resolve([old, new, *_office()]).of(old)
    assert sup is not None and sup.current.id == new.id
    assert "it says jenkins was replaced" in sup.evidence.lower()  # the term the old fact is about, not "job"
    keep = F("mem-keep", "api-v1", "API v1", body="Keep the API v1 routes for mobile clients.", updated=ago(30))
    assert not fact_fields(keep).cues


def test_one_everyday_word_does_not_pass_alone_because_the_turn_is_short() -> None:
    """A short generic turn is all one everyday word ("check", "fix": a low corpus prior);
    that word found in a fact is no evidence, however much of the turn it holds: the turn
    recalls nothing and is about no pinned default. A turn about the fact still recalls it."""
    from reasonix_tui.core.recall.channels import about_fact

    recon = F(
        "mem-recon",
        "每日对账",
        "每日对账",
        body="每天凌晨两点跑对账任务，和支付宝的账单逐笔核对，差异写进 recon_diff 表。",
    )
    commits = F(
        "mem-commits",
        "commit-messages",
        "Commit messages",
        scope="global",
        type="feedback",
        activation="pinned",
        body="Commit messages follow Conventional Commits (feat:, fix:, chore:).",
        updated=ago(400),
    )
    subjects = F(
        "mem-subjects",
        "commit-subjects",
        "Commit subjects",
        body="Here commit subjects start with the Jira key instead (PAY-123 fix refund rounding).",
        updated=ago(30),
    )
    facts = [recon, commits, subjects, *_office(8)]
    assert not about_fact("please fix it", commits)
    for turn in ("can you check again?", "please fix it"):
        r = recall(facts, turn, NOW)
        assert ids(r) == [], (turn, r.considered)
    assert ids(recall(facts, "when does the 对账 job run?", NOW))[:1] == ["mem-recon"]


def test_a_chinese_question_reaches_an_english_fact_through_jargon_jieba_cuts_apart() -> None:
    """联调 ("joint debugging") has no sense of its own in CC-CEDICT and jieba's path cut it
    as 联 + 调用 ("to call"): the question found only 银行 → bank, under the gate."""
    sandbox = F(
        "mem-sandbox",
        "bank-sandbox",
        "Bank sandbox",
        body="End-to-end testing with the partner bank happens in their sandbox (sandbox.bankco.test).",
    )
    rollout = F("mem-release", "release-train", "Release train", body="We ship every other Thursday.")
    facts = [sandbox, rollout, *_office(8)]
    r = recall(facts, "和银行联调用哪个环境？", NOW)
    assert ids(r)[:1] == ["mem-sandbox"], r.considered
    assert any("联调" in c for c in r.hits[0].channels)


def test_japanese_grammar_in_hiragana_is_no_evidence() -> None:
    """Kana runs were cut into bigrams, so です, します and their neighbours matched any
    Japanese fact: "how's the weather today?" recalled a code-review rule."""
    facts = [
        F(
            "mem-ja-deploy",
            "deploy-steps-ja",
            "デプロイ手順",
            body="デプロイ手順：make deploy を実行し、ステージングで確認してください。",
        ),
        F(
            "mem-ja-server",
            "server-restart",
            "サーバーの再起動",
            body="ステージングのサーバーは毎週月曜日に再起動します。",
        ),
        F("mem-ja-review", "review", "レビュー", body="プルリクエストは二人の承認が必要です。"),
        *_office(8),
    ]
    for turn in ("今日の天気はどうですか？", "お昼ご飯は何にしますか？", "週末は何をしますか？"):
        assert ids(recall(facts, turn, NOW)) == [], turn
    assert ids(recall(facts, "デプロイのやり方を教えてください", NOW)) == ["mem-ja-deploy"]
    assert ids(recall(facts, "サーバーはいつ再起動しますか？", NOW))[:1] == ["mem-ja-server"]


def test_a_common_character_whose_senses_agree_is_translated() -> None:
    """读 has six senses, four of them "read": 服务的密钥从哪里读 ("where do services read
    their keys from?") found only 服务 → service in the Vault fact, under the gate."""
    vault = F("mem-vault", "secrets", "Secrets", body="Services read secrets from Vault at startup (role tw-backend).")
    logs = F("mem-logs", "服务日志", "服务日志", body="服务日志以 JSON 打到 stdout，由 Loki 收集。")
    facts = [vault, logs, *_office(8)]
    assert ids(recall(facts, "服务的密钥从哪里读？", NOW))[:1] == ["mem-vault"]


def test_a_paraphrase_sharing_no_word_is_recalled_by_meaning_alone(tmp_path: Path) -> None:
    """On a clinic-booking team's store (the suite's paraphrase5 part), a turn sharing no
    word with any fact recalls the one its meaning clearly points to, and says so in the
    trace; with the meaning channel off it recalls nothing. A turn whose meaning rests on two
    words that mean little together, and generic turns, stay silent."""
    from script_modules import retrieval_runner

    run = retrieval_runner()
    tasks = run.load_all("paraphrase5")
    _, facts = run.build_facts(tasks[0], tmp_path)
    facts = [f for f in facts if f.activation != "pinned"]
    turn = "what stops us from hanging forever when a partner's server stops responding?"
    r = recall(facts, turn, NOW)
    assert ids(r) == ["tw-timeouts"], r.considered
    assert any(ch.startswith("meaning alone:") for ch in r.hits[0].channels)
    assert ids(recall(facts, turn, NOW, enhancements=Enhancements().without("meaning"))) == []
    for quiet in ("how should I pace my first marathon?", "帮我写一首关于秋天的短诗", "any update?", "看看"):
        assert ids(recall(facts, quiet, NOW)) == [], quiet
    # a turn none of whose words any fact holds (the channels' sums are empty) is admitted too
    tasks = [t for t in run.load_all("realistic4") if t.id == "l-pa-utc"]
    _, facts = run.build_facts(tasks[0], tmp_path / "r4")
    r = recall([f for f in facts if f.activation != "pinned"], "which clock do we save dates in?", NOW)
    assert ids(r) == ["l-utc"] and r.hits[0].score > 0, r.considered


def test_meaning_alone_needs_a_clear_cosine_an_outlier_and_several_words() -> None:
    """:func:`best_alone` admits the top fact only with a cosine of at least ``SIM_ALONE``,
    ``Z_ALONE`` deviations above the store's, and ``SUPPORT_WORDS`` words of the turn each
    pointing to it: one word carrying the turn's whole vector is not enough."""
    import numpy as np

    import reasonix_tui.core.lang as lang
    from reasonix_tui.core.lang import QueryUnit
    from reasonix_tui.core.recall import meaning_alone as ma

    rng = np.random.default_rng(7)
    vecs = rng.normal(size=(40, 256)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    target = 11
    qv = vecs[target] * 0.5 + rng.normal(size=256).astype(np.float32) * 0.03
    qv /= np.linalg.norm(qv)

    def spread(q: np.ndarray) -> tuple[float, float]:
        s = vecs @ q
        return float(s.mean()), float(s.std())

    units = tuple(QueryUnit(label=w, alternatives=((f"w:{w}", 1.0, "lexical"),), prior=0.9) for w in ("aa", "bb", "cc"))
    words = np.stack([vecs[target], vecs[target], vecs[target]])
    real = lang.embed
    try:
        lang.embed = lambda texts: words[: len(texts)]  # type: ignore[assignment]
        assert ma.best_alone(vecs, 40, units, qv, spread) == (target, pytest.approx(float(vecs[target] @ qv)))
        words = np.stack([vecs[target], vecs[3], vecs[4]])  # one word carries the turn
        assert ma.best_alone(vecs, 40, units, qv, spread) is None
        words = np.stack([vecs[target]] * 3)
        assert ma.best_alone(vecs, 40, units[:2], qv, spread) is None  # too few words
        assert ma.best_alone(vecs, 9, units, qv, spread) is None  # too small a store
        flat = np.full(256, 1 / 16, dtype=np.float32)
        assert ma.best_alone(vecs, 40, units, flat, spread) is None  # nothing stands out
    finally:
        lang.embed = real  # type: ignore[assignment]


def test_one_chinese_word_found_only_through_its_glosses_needs_the_turns_meaning() -> None:
    """A Chinese word that passes alone through one of its English glosses (看看 "to have a
    look" → its gloss "pretty") is vetoed, like a lone English word, when the turn's meaning
    is unrelated to the fact; a Chinese word found as written is not (its vector is read
    through its glosses)."""
    prettier = F(
        "mem-prettier", "formatting", "Formatting", body="Prettier formats the code; run pnpm format before committing."
    )
    retries = F(
        "mem-retries",
        "webhook-retries",
        "Webhook retries",
        body="After exhausting five retries a webhook goes to the dead-letter queue.",
    )
    canary = F("mem-canary", "灰度发布", "灰度发布", body="新版本先灰度 5% 的商户，观察半小时没有报警再全量。")
    facts = [prettier, retries, canary, *_office(8)]
    for turn in ("麻烦看看", "看看"):
        r = recall(facts, turn, NOW)
        assert ids(r) == [], (turn, [(h.fact.id, h.channels) for h in r.hits])
    assert ids(recall(facts, "灰度怎么放量", NOW)) == ["mem-canary"]


def test_a_turn_is_not_about_a_pinned_default_through_one_glossed_word() -> None:
    """One word found in a pinned default only through a gloss of the turn's Chinese word
    (稍等一下 "wait a moment" → "time") does not make a short turn about that default; the
    word as written still does."""
    from reasonix_tui.core.recall.channels import about_fact

    window = F(
        "mem-window",
        "deploy-window",
        "Deploy window",
        scope="global",
        activation="pinned",
        body="Deploy any time before 16:00 on weekdays.",
    )
    assert not about_fact("稍等一下", window)
    assert about_fact("deploy window?", window)


def test_a_translated_word_meets_a_shorter_fact_word_only_when_that_word_is_a_form_of_it() -> None:
    """苹果 "apple" met the App Store fact's "app" because ``app`` begins ``appl``; "app" is an
    English word of its own (no clipping of "apple"), while "docs" is a clipping of the
    gloss "document" and still meets 文档."""
    app = F(
        "mem-app",
        "app-store-review",
        "App Store review",
        body="iOS builds go to TestFlight first; submit the app to App Store review by Wednesday.",
    )
    docs = F("mem-docs", "design-docs", "Design docs", body="Design docs live in Notion under Engineering/Design.")
    facts = [app, docs, *_office(8)]
    assert ids(recall(facts, "苹果好吃吗", NOW)) == []
    r = recall(facts, "设计文档放在哪里？", NOW)
    assert ids(r)[:1] == ["mem-docs"]
    assert any("文档→document" in c for c in r.hits[0].channels)


def test_a_turn_of_everyday_words_recalls_nothing_though_a_fact_holds_them() -> None:
    """A turn whose words are all everyday words ("any update?", "one more thing") says
    nothing about any fact, even when a fact holds those words (a status page where one posts
    an update, "One thing per PR") and the meaning channel finds the two alike; two words the
    turn glosses to one word of a fact (回头, 再说 → "later") are one piece of evidence. Real
    questions in everyday words still recall."""
    status = F(
        "mem-status",
        "status-page",
        "Status page",
        body="The public status page is status.example.events; post an update there during an outage.",
    )
    one_thing = F(
        "mem-one",
        "one-thing-per-pr",
        "One thing per PR",
        body="Each PR should do one thing; refactors go in their own PR, never mixed with features.",
    )
    later = F("mem-later", "friday-deploys", "Friday deploys", body="Deploys after 15:00 on Friday wait until later.")
    oncall = F("mem-oncall", "on-call", "On-call", body="On-call rotates weekly on Monday; this week it is Ines.")
    facts = [status, one_thing, later, oncall, *_office(8)]
    for turn in ("any update?", "update please", "what's the status?", "one more thing", "回头再说"):
        r = recall(facts, turn, NOW)
        assert ids(r) == [], (turn, [(h.fact.id, h.channels) for h in r.hits])
    assert ids(recall(facts, "what's the status page?", NOW))[:1] == ["mem-status"]
    assert ids(recall(facts, "who is on call this week?", NOW))[:1] == ["mem-oncall"]
    assert ids(recall(facts, "should a refactor go in the same PR as a feature?", NOW))[:1] == ["mem-one"]


def test_a_turn_is_not_about_a_pinned_default_through_everyday_words() -> None:
    """Two everyday words ("one more thing": priors 0.1 and 0.31) holding the whole turn do
    not make it about a pinned default that holds them."""
    from reasonix_tui.core.recall.channels import about_fact

    rule = F(
        "mem-rule",
        "pr-scope",
        "PR scope",
        scope="global",
        activation="pinned",
        body="One thing per pull request: keep refactors apart from features.",
    )
    assert not about_fact("one more thing", rule)
    assert about_fact("how big should a pull request be?", rule)


def test_a_change_stated_without_a_replace_verb_supersedes_the_older_fact() -> None:
    """A newer fact on the same topic that states a change without a replacement verb — a
    separable phrasal verb ("turned Celery off"), a dictionary sense that removes (撤掉 "to
    throw out"), a date from which it holds ("As of the October upgrade", 从九月份开始) — makes
    the older one not current; the evidence names what was turned off, not the phrase."""
    from reasonix_tui.core.resolve import resolve

    pairs = [
        (
            F(
                "q-old",
                "background-jobs",
                "Background jobs",
                body="Background jobs (emails, PDF tickets) run on Celery with RabbitMQ.",
                updated=ago(300),
            ),
            F(
                "q-new",
                "job-queue",
                "Job queue",
                body="We turned Celery off in March. Emails and PDF tickets are handled by the Go worker.",
                updated=ago(30),
            ),
        ),
        (
            F(
                "d-old",
                "staging-db",
                "Staging database",
                body="The staging database is staging-db-1.internal (Postgres 13).",
                updated=ago(200),
            ),
            F(
                "d-new",
                "staging-db-host",
                "Staging database host",
                body="As of the October upgrade the staging database is pg-staging.internal, Postgres 16.",
                updated=ago(20),
            ),
        ),
        (
            F(
                "c-old",
                "灰度工具",
                "灰度工具",
                body="灰度发布用 Argo Rollouts，按 10%、50%、100% 三步放量。",
                updated=ago(300),
            ),
            F(
                "c-new",
                "灰度发布",
                "灰度发布",
                body="从九月份开始灰度交给 Flagger 做，Argo Rollouts 那套已经撤掉了。",
                updated=ago(40),
            ),
        ),
    ]
    for old, new in pairs:
        res = resolve([old, new, *_office(8)])
        sup = res.of(old)
        assert sup is not None and sup.current is new, (old.id, sup)
        assert res.of(new) is None
    res = resolve([*pairs[0], *_office(8)])
    assert "celery" in (res.of(pairs[0][0]).evidence or "").lower()  # type: ignore[union-attr]


def test_one_everyday_chinese_word_passes_on_meaning_only_when_the_fact_is_about_it() -> None:
    """A turn whose only word is an everyday Chinese word found as written (进展 "progress")
    is carried by the meaning channel only when the fact is about that word (cosine ≥ the
    gate's line), not because the one fact holding the word stands out in the store: 有什么进展吗
    stays silent beside a weekly-sync fact titled 进展同步, while a real question recalls it."""
    sync = F(
        "mem-sync", "进展同步", "进展同步", body="每周五下午四点在飞书群同步项目进展，周报写在飞书文档「调度周报」里。"
    )
    owner = F("mem-owner", "计费负责人", "计费负责人", body="计费模块由刘洋负责，改价格规则前先找他确认。")
    others = [
        F(
            "mem-app",
            "司机端",
            "司机端 App",
            body="司机端是 Flutter 写的，发版前要在华为和小米真机上各跑一遍冒烟测试。",
        ),
        F(
            "mem-k8s",
            "部署",
            "部署",
            body="服务部署在阿里云 ACK 集群 yunshan-prod，命名空间 dispatch，用 Helm chart 发布。",
        ),
        F("mem-port", "调度端口", "调度服务端口", body="调度服务本地监听 9091，管理端口 9092（actuator）。"),
        F(
            "mem-nacos",
            "配置中心",
            "配置中心",
            body="配置放在 Nacos，测试环境地址 nacos.test.yunshan.cn，命名空间按环境分。",
        ),
        F("mem-logs", "日志", "日志查询", body="日志接入了阿里云 SLS，logstore 叫 dispatch-app。"),
        F("mem-week", "周会", "周会", body="技术周会每周二上午十点，会议纪要由当周值班的人写。"),
    ]
    facts = [sync, owner, *others, *_office(8)]
    for turn in ("有什么进展吗？", "进展如何？"):
        r = recall(facts, turn, NOW)
        assert ids(r) == [], (turn, [(h.fact.id, h.channels) for h in r.hits])
    assert ids(recall(facts, "周报写在哪里？", NOW))[:1] == ["mem-sync"]
    assert ids(recall(facts, "计费谁负责？", NOW))[:1] == ["mem-owner"]


def test_one_everyday_word_of_a_turn_of_everyday_words_needs_the_turns_meaning() -> None:
    """In a turn made only of everyday words ("give me a minute", "sounds good, ship it"),
    one word a fact holds is no evidence, however rare it is in the store or whatever share
    of the turn it holds — unless the meaning channel finds the turn about the fact ("where
    can I read the logs?" against the logging fact)."""
    labels = F(
        "mem-labels",
        "shipping-labels",
        "Shipping labels",
        body="Shipping labels are rendered by label-svc; a label takes about a minute, so the dashboard polls.",
    )
    retry = F(
        "mem-retry",
        "webhook-retries",
        "Webhook retries",
        body="Failed webhook deliveries are retried after 1, 5 and 30 minutes, then parked.",
    )
    logs = F(
        "mem-logs",
        "logs",
        "Logs",
        body='Production logs are in Grafana Loki; query them with {app="api"} and keep 14 days.',
    )
    facts = [labels, retry, logs, *_office(8)]
    for turn in ("give me a minute", "sounds good, ship it"):
        r = recall(facts, turn, NOW)
        assert ids(r) == [], (turn, [(h.fact.id, h.channels) for h in r.hits])
    assert ids(recall(facts, "where can I read the logs?", NOW))[:1] == ["mem-logs"]
    assert ids(recall(facts, "how long does a shipping label take?", NOW))[:1] == ["mem-labels"]


def test_a_change_from_a_version_or_a_month_supersedes_but_a_causal_since_does_not() -> None:
    """ "Starting with v3 …" and "Since March, …" state from when a newer fact holds: the
    older fact on the same topic is not current. "Since Redis is single-threaded, …" gives a
    reason, not a date: nothing is replaced."""
    from reasonix_tui.core.resolve import resolve

    port_old = F(
        "p-old",
        "api-port",
        "Tracking API port",
        body="The tracking API listens on port 8080 locally.",
        updated=ago(300),
    )
    port_new = F(
        "p-new",
        "api-local",
        "Tracking API locally",
        body="Starting with v3 the tracking API listens on 9090 locally (8080 clashed with the dashboard).",
        updated=ago(40),
    )
    region_old = F(
        "r-old", "staging-cluster", "Staging cluster", body="Staging runs in AWS eu-central-1.", updated=ago(300)
    )
    region_new = F(
        "r-new",
        "staging-cluster-region",
        "Staging cluster region",
        body="Since March, the staging cluster runs in AWS eu-west-1.",
        updated=ago(30),
    )
    for old, new in ((port_old, port_new), (region_old, region_new)):
        res = resolve([old, new, *_office(8)])
        sup = res.of(old)
        assert sup is not None and sup.current is new, (old.id, sup)
    cache_old = F(
        "c-old",
        "session-cache",
        "Session cache",
        body="Sessions are cached in Redis with a 30 minute TTL.",
        updated=ago(300),
    )
    cache_new = F(
        "c-new",
        "session-cache-keys",
        "Session cache keys",
        body="Since Redis is single-threaded, keep session cache keys small.",
        updated=ago(30),
    )
    res = resolve([cache_old, cache_new, *_office(8)])
    assert res.of(cache_old) is None


def test_a_tool_named_by_what_it_does_meets_the_fact_saying_what_the_team_does() -> None:
    """A question "which linter…" recalls "we lint with ESLint", "what parser…" recalls "parsed with
    papaparse" (Snowball keeps a short verb apart from its -er noun); a turn about a ferry
    that will dock or a sheet to fold does not meet a Docker or a folder fact."""
    facts = [
        F(
            "mem-lint",
            "lint",
            "Lint",
            body="We lint with ESLint (flat config); pnpm lint must pass with zero warnings.",
        ),
        F(
            "mem-csv",
            "csv-import",
            "CSV import",
            body="Customer spreadsheets are parsed with papaparse in a Web Worker.",
        ),
        F("mem-web", "bundling", "Bundling", body="The web app is bundled with Vite; library packages with tsup."),
        F("mem-stack", "local-stack", "Local stack", body="docker compose up starts Postgres and Redis locally."),
        F("mem-adr", "decision-records", "Decision records", body="Decision records go in the docs/adr folder."),
        *_office(8),
    ]
    assert ids(recall(facts, "which linter is set up here?", NOW)) == ["mem-lint"]
    assert ids(recall(facts, "what parser do we use?", NOW)) == ["mem-csv"]
    assert ids(recall(facts, "which bundler should a new library use?", NOW))[:1] == ["mem-web"]
    assert recall(facts, "our ferry will dock in Kiel around noon, any lunch spot near the harbour?", NOW).hits == ()
    assert recall(facts, "how do you fold a fitted sheet neatly?", NOW).hits == ()


def test_a_question_noun_meets_the_fact_that_uses_its_verb() -> None:
    """ "How do customer notifications go out?" recalls "we notify customers by SMS"; a turn
    about a photo's resolution does not meet the fact saying incidents are resolved (a noun
    read through its verb weighs as a translation does)."""
    facts = [
        F(
            "mem-sms",
            "customer-sms",
            "Telling customers about their parcel",
            body="We notify customers by SMS through Twilio when the parcel is out for delivery.",
        ),
        F(
            "mem-inc",
            "incidents",
            "Incidents",
            body="The on-call engineer owns an incident until it is resolved and writes the postmortem.",
        ),
        F("mem-ports", "local-ports", "Local ports", body="Locally the API listens on 8081 and Postgres on 5433."),
        *_office(8),
    ]
    assert ids(recall(facts, "how do customer notifications go out?", NOW))[:1] == ["mem-sms"]
    assert ids(recall(facts, "who is responsible for incident resolution?", NOW))[:1] == ["mem-inc"]
    assert recall(facts, "the resolution of this photo is too low", NOW).hits == ()


def test_an_acronyms_plural_meets_the_acronym() -> None:
    """ "Where do ADRs go?" recalls the fact about the docs/adr folder."""
    facts = [
        F(
            "mem-adr",
            "decision-records",
            "Decision records",
            body="Architecture decision records go in the docs/adr folder, numbered like 0007-use-temporal.md.",
        ),
        F("mem-ports", "local-ports", "Local ports", body="Locally the API listens on 8081 and Postgres on 5433."),
        *_office(8),
    ]
    assert ids(recall(facts, "where do ADRs go?", NOW)) == ["mem-adr"]


def test_one_rare_word_found_only_through_its_translation_passes_the_everyday_words_test() -> None:
    """埋点 "event tracking" and 事件 "event" gloss to one word of the English fact and hold
    the whole turn: a word found only through a translation counted at 0.6 of its prior, so
    one rare word asked across languages (埋点, prior 1.0) never reached the 0.7 the test
    asks of one word. The test asks whether the word says something, which is its own prior;
    a turn of everyday words glossed into a fact still says nothing."""
    events = F(
        "mem-events",
        "product-events",
        "Product events",
        body="Product events go to Amplitude; name an event Object Action in title case (Order Placed).",
    )
    progress = F("mem-progress", "progress-notes", "Progress notes", body="Post progress in #team-sync every Friday.")
    facts = [events, progress, *_office(8)]
    r = recall(facts, "埋点事件名怎么起？", NOW)
    assert ids(r)[:1] == ["mem-events"]
    assert ids(recall(facts, "有什么进展吗？", NOW)) == []


def test_a_gloss_meets_the_noun_in_ment_it_makes() -> None:
    """支付 glosses to "pay"; the fact says "payments", which Snowball keeps apart from "pay"
    (its stem is ``payment``). The -ment noun the meaning model puts near the verb is read as
    the verb's: with 服务 "service" the turn's two content words are both in the fact."""
    pay = F(
        "mem-pay",
        "payments-team",
        "Payments service",
        body="The payments service belongs to the billing squad; page them through PagerDuty (billing-core).",
    )
    search = F("mem-search", "search-service", "Search service", body="The search service runs on OpenSearch 2.11.")
    facts = [pay, search, *_office(8)]
    r = recall(facts, "支付服务归哪个组管？", NOW)
    assert ids(r)[:1] == ["mem-pay"]
    assert any("支付→payment" in c for c in r.hits[0].channels)


def test_team_jargon_is_read_as_the_initials_of_a_dictionary_word() -> None:
    """单测 is in neither jieba's dictionary nor CC-CEDICT: read character by character it
    meant "bill/list" + "survey/measure". Read as the initials of 单元测试 ("unit" + "test",
    two words of jieba's dictionary), a fact holding both words is found, and the meaning
    channel reads the turn as being about unit tests."""
    unit = F(
        "mem-unit", "unit-tests", "Unit tests", body="Unit tests run with Vitest; `pnpm test --run` runs them once."
    )
    e2e = F("mem-e2e", "e2e", "Browser tests", body="Playwright specs live in e2e/ and run on Chromium.")
    facts = [unit, e2e, *_office(8)]
    r = recall(facts, "单测用的什么框架？", NOW)
    assert ids(r)[:1] == ["mem-unit"]


def test_a_word_that_asks_for_a_value_is_no_query_word() -> None:
    """哪些 "which ones?" says what the turn asks, not what it is about: counted as a query
    word it held a share of the turn that the words naming the topic (提测 "hand over for
    testing", 内容 "contents") then lacked, and the fact holding them stayed under the gate.
    A turn asking what time logs rotate is not about a fact on log time zones through 几点
    "what time?"."""
    qa = F("mem-qa", "提测", "提测", body="提测前先自测，提测单里写清楚改动范围和影响的接口，测试同学才会接。")
    tz = F("mem-tz", "log-times", "Log times", body="Every time in the logs is UTC, not Beijing time.")
    facts = [qa, tz, *_office(8)]
    assert ids(recall(facts, "提测单要写哪些内容？", NOW))[:1] == ["mem-qa"]
    assert ids(recall(facts, "日志几点轮转？", NOW)) == []

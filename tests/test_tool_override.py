"""Project facts that do a pinned global default's job with another tool (``core/tool_override.py``),
and the defaults that must stay: a project fact that uses the default's tool, one about another
purpose sharing a word, one that says it *cannot* replace the default."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from script_modules import retrieval_runner

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp, parse_rfc3339
from reasonix_tui.core.recall import pinned_report, recall
from reasonix_tui.core.resolve import resolve
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.model import Fact, FactId

NOW = parse_rfc3339("2026-07-27T00:00:00Z")
assert NOW is not None


def F(fid: str, title: str, body: str, *, scope: str = "project", age: int = 30, **kw: Any) -> Fact:
    when = Timestamp(NOW.ns - age * DAY_NS)
    return Fact(
        id=FactId(fid),
        revision=1,
        created_at=when,
        updated_at=when,
        name=title.lower().replace(" ", "-"),
        title=title,
        body=body,
        scope=scope,
        file_scope=scope,
        **kw,
    )


def G(fid: str, title: str, body: str) -> Fact:
    """A pinned global default, written long ago."""
    return F(fid, title, body, scope="global", age=500, type="feedback", activation="pinned")


def _others() -> list[Fact]:
    """Unrelated project facts, so that each pair has neighbours to lose to."""
    return [
        F("o-owners", "Owners", "Storefront belongs to Maya Chen, the pricing service to Jonas Berg."),
        F("o-flags", "Feature flags", "Feature flags come from LaunchDarkly; new flags default to off."),
        F("o-sentry", "Error tracking", "Errors go to Sentry project tern-storefront; tag releases with the git SHA."),
        F("o-env", "Pricing env vars", "PRICING_DB_URL and FX_API_KEY are required for local runs."),
    ]


def _pinned(facts: list[Fact], mode: str = "enhanced") -> list[str]:
    return [str(f.id) for f in pinned_report(facts=facts, settings=Settings(recall_mode=mode)).guidance.facts]


def test_a_project_fact_doing_the_defaults_job_with_another_tool_overrides_it() -> None:
    """No shared title term, no word of the default: "pnpm" stands where "npm" stood, both
    about installing packages. The default leaves the session-start block (enhanced only), the
    resolution says why, and a turn about installing recalls the project fact."""
    npm = G("g-npm", "JavaScript packages", "Install JavaScript packages with npm and commit package-lock.json.")
    black = G("g-black", "Python formatting", "Format Python with Black (default line length) before every commit.")
    pnpm = F(
        "p-pnpm",
        "Workspace install",
        "Packages here come from pnpm — `pnpm install` at the root sets up every workspace; "
        "pnpm-lock.yaml is the lockfile.",
    )
    ruff = F(
        "p-ruff",
        "Pricing service style",
        "The pricing service is formatted and linted by ruff (`ruff format` then `ruff check --fix`).",
    )
    facts = [npm, black, pnpm, ruff, *_others()]
    assert set(_pinned(facts, "reasonix-exact")) == {"g-npm", "g-black"}
    assert _pinned(facts) == []
    res = resolve(facts)
    sup = res.of(npm)
    assert sup is not None and sup.current is pnpm and sup.kind == "override"
    assert "another tool" in sup.evidence and "pnpm" in sup.evidence and "npm" in sup.evidence
    assert res.current(black) is ruff
    r = recall(facts, "how do I install the dependencies in this repo?", NOW, Settings())
    assert [str(h.fact.id) for h in r.hits][:1] == ["p-pnpm"]


def test_a_chinese_project_fact_naming_another_database_overrides_the_default() -> None:
    mysql = G("g-mysql", "本地数据库", "本地开发默认用 MySQL 8，docker run 起一个就行。")
    pg = F("p-pg", "订单库", "订单服务本地用 PostgreSQL 15，docker compose up pg 启动，端口 5432。")
    facts = [mysql, pg, *_others()]
    assert _pinned(facts) == []
    sup = resolve(facts).of(mysql)
    assert sup is not None and sup.current is pg and "postgresql" in sup.evidence


def test_the_session_start_of_a_real_store_keeps_the_defaults_nothing_replaces(tmp_path: Path) -> None:
    """The ``tern`` store of the retrieval suite's override5 part: the defaults whose job a
    project fact does with another tool leave the session-start block; the pytest default
    stays though a project fact's Hypothesis tests "run in the normal pytest run" (same
    topic by terms and meaning: it uses the default's tool, it adds to it), and the commit
    style stays though the changelog "is built from changesets, not from commit messages"
    (the rejected words are prose of the default, not one of its names)."""
    run = retrieval_runner()
    task = next(t for t in run.load_all("override5") if t.store == "tern")
    _, facts = run.build_facts(task, tmp_path)
    pinned = set(_pinned(facts))
    assert {"t-g-pytest", "t-g-docker", "t-g-tone", "t-g-commits"} <= pinned
    assert not {"t-g-npm", "t-g-black", "t-g-branch"} & pinned
    sup = resolve(facts).of(next(f for f in facts if f.id == "t-g-npm"))
    assert sup is not None and str(sup.current.id) == "t-pnpm"


def test_another_purpose_sharing_a_word_is_no_override() -> None:
    """Tracing with Jaeger mentions the logs (日志) in another clause; the logging default stays."""
    zap = G("g-zap", "日志", "Go 服务的日志统一用 zap 打结构化日志，不要用 fmt.Println。")
    jaeger = F("p-jaeger", "链路追踪", "链路追踪用 Jaeger，日志里要带上 trace_id 方便对应。")
    k8s = F(
        "p-k8s",
        "Deploys",
        "Staging and production run on Kubernetes; CI builds the Docker images and Argo CD rolls them out.",
    )
    docker = G(
        "g-docker", "Local services", "Run Postgres and Redis locally with docker compose, never installed on the host."
    )
    facts = [zap, jaeger, docker, k8s, *_others()]
    assert sorted(_pinned(facts)) == ["g-docker", "g-zap"]


def test_a_fact_that_cannot_replace_the_default_does_not_supersede_it() -> None:
    """ "这不能代替人工 review" negates its replacement word: no replacement, no rejection."""
    review = G("g-review", "代码评审", "合并前至少一位同事 review 通过。")
    bot = F("p-bot", "评审机器人", "PR 打开后 reviewdog 会自动贴 lint 结果，这不能代替人工 review。")
    facts = [review, bot, *_others()]
    assert _pinned(facts) == ["g-review"]
    assert resolve(facts).of(review) is None


def test_a_reference_to_a_document_is_no_override() -> None:
    """ "See docs/api-style.md: plural nouns, cursor pagination" (a reference, whose
    description speaks of "REST conventions") beside the pinned "Conventional commits"
    default: the nearest pair by meaning, with other names on each side and a shared word,
    but a pointer to a document says where to read, not what to do instead."""
    commits = G("g-commits", "Commit message style", "Write conventional commits: `feat(api): …`, `fix(db): …`.")
    commits = replace(commits, description="Conventional commits with a scope", keywords="git commit message")
    guide = F(
        "p-guide",
        "API style guide",
        "See `docs/api-style.md`: plural nouns, cursor pagination, RFC 9457 problem details.",
        type="reference",
    )
    guide = replace(guide, description="Link to the REST conventions document", keywords="rest conventions")
    facts = [commits, guide, *_others()]
    assert _pinned(facts) == ["g-commits"]
    assert resolve(facts).of(commits) is None


def test_a_name_standing_alone_is_found_as_the_boundary_pattern_finds_it() -> None:
    """``stands_alone`` (no pattern compiled per name) answers as the regular expression it
    replaces, over random texts and names from a small alphabet (boundaries, hyphens,
    slashes, Chinese, repeated and overlapping occurrences)."""
    import random
    import re as _re

    from reasonix_tui.core.tool_override import stands_alone

    rng = random.Random(16)
    alphabet = "ab-1/_ .<>缓"
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))
        want = _re.search(r"(?<![a-z0-9-])" + _re.escape(name) + r"(?![a-z0-9-])", text) is not None
        assert stands_alone(name, text) == want, (name, text)


def test_a_project_fact_overrides_its_nearest_default_that_is_still_free() -> None:
    """ "Biome checks the front end" is nearer by meaning to the Jest default (front end,
    pnpm) than to the ESLint one; Jest is overridden by the Vitest fact, so ESLint is the
    nearest free default and Biome overrides it. A hyphenated compound of everyday words
    ("type-check") is no tool name: pyright overrides mypy, both about type checks."""
    jest = G(
        "g-jest", "JavaScript unit tests", "Write JavaScript unit tests with Jest and keep them in __tests__ folders."
    )
    eslint = G("g-eslint", "JavaScript linting", "Lint JavaScript and TypeScript with ESLint using the airbnb config.")
    mypy = G("g-mypy", "Python type checks", "Type-check Python code with mypy in strict mode before opening a PR.")
    tone = G("g-tone", "Answer tone", "Keep answers short and skip the pleasantries.")
    vitest = F(
        "p-vitest",
        "Front-end tests",
        "The Vue app's unit tests run on Vitest (`pnpm vitest`); specs sit next to the components as *.spec.ts.",
    )
    biome = F("p-biome", "Front-end lint", "Biome checks and formats the front end here (`pnpm biome check --write`).")
    pyright = F(
        "p-pyright", "API typing", "The Django API is type-checked by pyright (basic mode); run `pyright api/`."
    )
    facts = [jest, eslint, mypy, tone, vitest, biome, pyright, *_others()]
    res = resolve(facts)
    pairs = {str(s.old.id): str(s.current.id) for s in res.items if s.kind == "override"}
    assert pairs == {"g-jest": "p-vitest", "g-eslint": "p-biome", "g-mypy": "p-pyright"}
    assert _pinned(facts) == ["g-tone"]


def test_a_project_fact_nearer_to_a_free_default_overrides_no_other() -> None:
    """A project fact whose nearest default is still in force (the pytest default, nearest to
    a fact that uses pytest) is no override of a farther default that happens to have it as
    its nearest (the Makefile default and the Playwright fact)."""
    make = G(
        "g-make", "Task runner", "Common tasks (lint, test, build) go in a Makefile so `make <task>` works everywhere."
    )
    pytest_ = G(
        "g-pytest", "Python tests", "Python tests use pytest; files are named test_*.py next to the package they test."
    )
    e2e = F(
        "p-e2e",
        "End-to-end tests",
        "Storefront end-to-end tests are Playwright specs in e2e/; run them with `pnpm e2e` against a local build.",
    )
    hypothesis = F(
        "p-hypothesis",
        "Property tests",
        "Price rounding has property-based tests with Hypothesis; they run in the normal pytest run.",
    )
    facts = [make, pytest_, e2e, hypothesis, *_others()]
    assert [s for s in resolve(facts).items if s.kind == "override"] == []
    assert sorted(_pinned(facts)) == ["g-make", "g-pytest"]


def test_a_compound_name_a_file_name_and_a_prose_verb() -> None:
    """ "Buildkite" is no mention of the default's "build" (a closed compound's parts are not
    the name's words); a task runner named by its file (``Taskfile.yml``) is a name; a rare
    inflection of an everyday verb ("clashed") is prose, not a tool: the Datadog default is
    not overridden by a port fact that mentions the dashboard."""
    travis = G(
        "g-travis", "Continuous integration", "CI runs on Travis CI; keep the build configuration in .travis.yml."
    )
    make = G(
        "g-make", "Task runner", "Put the common project tasks behind a Makefile so `make test` works in every repo."
    )
    datadog = G("g-datadog", "Service metrics", "Send service metrics to Datadog and build the dashboards there.")
    buildkite = F(
        "p-buildkite",
        "CI pipeline",
        "Every push runs the Buildkite pipeline defined in .buildkite/pipeline.yml on our own agents.",
    )
    task = F("p-task", "Dev tasks", "Dev tasks are in Taskfile.yml (go-task) — `task test`, `task lint`, `task dev`.")
    port = F(
        "p-port",
        "Tracking API locally",
        "Starting with v3 the tracking API listens on 9090 locally (8080 clashed with the dashboard).",
    )
    facts = [travis, make, datadog, buildkite, task, port, *_others()]
    pairs = {str(s.old.id): str(s.current.id) for s in resolve(facts).items if s.kind == "override"}
    assert pairs.get("g-travis") == "p-buildkite" and pairs.get("g-make") == "p-task"
    assert "g-datadog" not in pairs


def test_the_role_reading_finds_a_default_whose_nearest_project_fact_is_another(tmp_path: Path) -> None:
    """The ``kestrel`` store of the retrieval suite's resolve7 part: by the whole text the
    Datadog default's nearest project fact is a port fact ("clashed with the Datadog agent"),
    which does no monitoring; read by role — each fact's title and the clauses holding its
    names, the names masked out — "services expose /metrics for …" and "send service metrics
    to … and build the dashboards there" single each other out, so the Prometheus fact
    overrides the default. The defaults nothing replaces stay."""
    run = retrieval_runner()
    task = next(t for t in run.load_all("resolve7") if t.store == "kestrel")
    _, facts = run.build_facts(task, tmp_path)
    by_id = {str(f.id): f for f in facts}
    sup = resolve(facts).of(by_id["k-g-datadog"])
    assert sup is not None and str(sup.current.id) == "k-prom"
    assert "role" in sup.evidence and "prometheus" in sup.evidence
    pinned = set(_pinned(facts))
    assert "k-g-datadog" not in pinned
    assert {"k-g-commits", "k-g-tone"} <= pinned


def test_role_text_masks_the_names_and_keeps_what_they_are_for() -> None:
    from reasonix_tui.core.tool_override import role_text

    rollbar = F("p-rb", "Crash alerts", "Crashes in the payment workers go to Rollbar. The team meets at ten.")
    text = role_text(rollbar)
    assert text == "Crash alerts. crashes in the payment workers go to ."
    assert role_text(F("p-none", "Reviews", "Reviews happen every morning.")) == ""


def test_a_project_fact_giving_the_defaults_word_another_number_overrides_it() -> None:
    """ "The app needs Node 20" against "Target Node 18 LTS": no other tool, the same word with
    another number. The same number, or a number on another word, is no override."""
    node18 = G("g-node", "Node runtime", "Target Node 18 LTS for every JavaScript project.")
    node20 = F("p-node", "Engines", "The app needs Node 20 — it is pinned in .nvmrc and in package.json.")
    facts = [node18, node20, *_others()]
    sup = resolve(facts).of(node18)
    assert sup is not None and sup.current is node20
    assert "node another value: 20 instead of 18" in sup.evidence
    assert _pinned(facts) == []
    same = F("p-node", "Engines", "The app runs on Node 18 — it is pinned in .nvmrc and in package.json.")
    assert resolve([node18, same, *_others()]).of(node18) is None
    other = F("p-node", "Engines", "The app needs 2 GB of memory; Node is pinned in .nvmrc.")
    assert resolve([node18, other, *_others()]).of(node18) is None


def test_a_function_word_is_a_name_and_a_hyphenated_names_parts_are_no_role() -> None:
    """`` `just --list` `` names the task runner "just" (a function word of English: its key is
    the word itself), and "just dag-check" says nothing about checking: the linter default
    that runs `ruff check` stays beside it."""
    from reasonix_tui.core.tool_override import tool_profile

    just = F(
        "p-just",
        "Recipes",
        "We use just as the task runner — `just --list` shows the recipes (just test, just dag-check).",
    )
    names = {n: keys for n, keys, _ in tool_profile(just).names}
    assert names["just"] == frozenset({"n:just"})
    ruff = G("g-ruff", "Python linting", "Lint Python with ruff (`ruff check`) before pushing.")
    facts = [ruff, just, *_others()]
    assert resolve(facts).of(ruff) is None
    assert _pinned(facts) == ["g-ruff"]


def test_the_session_start_block_never_carries_an_overridden_default_nor_two_values(tmp_path: Path) -> None:
    """Every store of the override8 part: no fact of the session-start block is superseded
    (an overridden default, or a fact of a subject another fact holds), the defaults whose job a
    project fact does with another tool or value are out, and the defaults beside a tool of
    another role (a formatter beside the linter default, a queue beside the cache default)
    stay."""
    run = retrieval_runner()
    stores: dict[str, Any] = {}
    for t in run.load_all("override8"):
        stores.setdefault(t.store, t)
    assert len(stores) == 3
    for i, task in enumerate(stores.values()):
        _, facts = run.build_facts(task, tmp_path / str(i))
        res = resolve(facts)
        block = _pinned(facts)
        by_id = {str(f.id): f for f in facts}
        assert all(res.of(by_id[fid]) is None for fid in block), task.store
        keys = [by_id[fid].subject_key for fid in block if by_id[fid].subject_key]
        assert len(keys) == len(set(keys))
    larch, wren = (next(t for t in stores.values() if t.store == s) for s in ("larch", "wren"))
    _, facts = run.build_facts(larch, tmp_path / "larch2")
    block = set(_pinned(facts))
    assert {"l-g-ruff", "l-g-redis", "l-g-tone"} <= block
    assert not {"l-g-conda", "l-g-datadog"} & block
    _, facts = run.build_facts(wren, tmp_path / "wren2")
    block = set(_pinned(facts))
    assert {"w-g-prettier", "w-g-sentry"} <= block
    assert not {"w-g-node", "w-g-cypress", "w-g-heroku", "w-g-mkdocs"} & block


def test_a_capitalised_inflection_of_an_everyday_word_is_no_name() -> None:
    """ "Tuesdays" or the "Commits" of Conventional Commits are written capitalised, but each is
    the plural of an everyday word: prose, not a tool. So "commit" is a purpose the commit-style
    default and a project fact about commit subjects share, and the Jira-key fact overrides
    the default."""
    from reasonix_tui.core.tool_override import tool_profile

    release = F("p-rel", "Store release", "App store releases go out on Tuesdays; Sam submits them after QA sign-off.")
    assert "tuesdays" not in {n for n, _, _ in tool_profile(release).names}
    commits = G("g-commits", "Commit messages", "Commit messages follow Conventional Commits (feat:, fix:, chore:).")
    assert {n for n, _, _ in tool_profile(commits).names} >= {"conventional"}
    assert "commits" not in {n for n, _, _ in tool_profile(commits).names}
    jira = F(
        "p-jira", "Commit prefix", 'Every commit subject starts with the Jira key, e.g. "WREN-412 add waitlist banner".'
    )
    facts = [commits, jira, *_others()]
    sup = resolve(facts).of(commits)
    assert sup is not None and sup.current is jira and "jira" in sup.evidence

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

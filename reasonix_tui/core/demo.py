"""A generated demo home, so a new user sees every Context Center pane populated.

Everything is written through the public APIs of the core modules (the store for facts,
revisions and the archive; ``recall.run_recall`` for traces, with prompts a person would
type; the approval queue for the pending proposal) — only the instruction documents and
session transcripts, which are the user's and the agent's own files, are written as plain
files in their documented formats. The sessions hold preference sentences the suggestion
scanner picks up (one per marker kind, one in Chinese). :func:`build_demo_home` returns
what it made.

Plain Python: no textual import (the firewall test imports this module).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .agent import approvals, policy, proposals
from .compat.gotime import DAY_NS, Timestamp
from .paths import Layout
from .recall import run_recall
from .settings import Settings

__all__ = ["DemoReport", "build_demo_home", "DEMO_NOW", "demo_facts"]

DEMO_NOW = Timestamp(1_785_000_000 * 1_000_000_000)
"""A fixed "now" for snapshot tests (2026-07-25T17:20:00Z); real runs use the real time."""


@dataclass
class DemoReport:
    """What the generator made."""

    root: Path
    """The state root."""
    workspace: Path
    """The workspace directory."""
    facts: int = 0
    """Active facts written."""
    archived: int = 0
    """Facts archived."""
    revisions: int = 0
    """Extra revisions written."""
    traces: int = 0
    """Recall traces recorded."""
    sessions: int = 0
    """Session transcripts written."""
    approvals: int = 0
    """Pending proposals queued."""
    skipped: list[str] = field(default_factory=list)
    """Optional parts that failed (the demo still opens without them)."""


# name, title, description, type, scope, activation, volatility, subject, keywords, age_days, body
_FACTS: tuple[tuple[Any, ...], ...] = (
    (
        "package-manager",
        "Package manager is pnpm",
        "Use pnpm, never npm or yarn, in this repository",
        "project",
        "project",
        "pinned",
        "stable",
        "project.package_manager",
        "npm yarn install",
        3,
        "Use **pnpm** for every install and script (`pnpm install`, `pnpm test`).\n\nThe lockfile is `pnpm-lock.yaml`; npm and yarn lockfiles are rejected by CI.",
    ),
    (
        "deploy-target",
        "Deploy target is Fly.io",
        "Production runs on Fly.io in the ams region",
        "project",
        "project",
        "",
        "",
        "project.deploy_target",
        "deploy production hosting",
        12,
        "Production deploys go to **Fly.io**, region `ams`, app `acme-api`.\n\nUse `fly deploy --strategy rolling`.",
    ),
    (
        "test-command",
        "Run tests with make check",
        "make check runs lint, types and tests",
        "project",
        "project",
        "",
        "evergreen",
        "",
        "pytest ruff mypy",
        40,
        "`make check` runs ruff, mypy and pytest in that order. Run it before every commit.",
    ),
    (
        "api-style-guide",
        "API style guide",
        "Link to the REST conventions document",
        "reference",
        "project",
        "",
        "",
        "",
        "rest conventions",
        60,
        "See `docs/api-style.md`: plural nouns, cursor pagination, RFC 9457 problem details.",
    ),
    (
        "release-branch",
        "Release branch",
        "Releases are cut from release/* branches",
        "project",
        "project",
        "",
        "volatile",
        "project.release_branch",
        "release branch",
        20,
        "Release branches are named `release/<yyyy.mm>`; the current one is `release/2026.07`.",
    ),
    (
        "staging-db-host",
        "Staging database host",
        "Staging Postgres host (changes often)",
        "reference",
        "project",
        "",
        "volatile",
        "",
        "postgres staging",
        45,
        "Staging Postgres: `staging-db.internal:5432`, database `acme`.",
    ),
    (
        "oncall-rota",
        "On-call rota",
        "Who is on call this week",
        "project",
        "project",
        "",
        "",
        "",
        "pager oncall",
        2,
        "This week: Dana (primary), Lee (secondary). Expires at the end of the week.",
    ),
    (
        "feature-flag-cleanup",
        "Feature flag cleanup",
        "Old flag new-checkout can be removed",
        "project",
        "project",
        "",
        "",
        "",
        "flags",
        200,
        "The `new-checkout` flag has been at 100% since March; remove it and its dead branch.",
    ),
    (
        "prefers-short-answers",
        "Prefers short answers",
        "The user wants concise answers with code first",
        "user",
        "global",
        "",
        "",
        "user.answer_style",
        "concise terse",
        10,
        "Answer with the code first, then at most three sentences of explanation.",
    ),
    (
        "no-force-push",
        "Never force-push shared branches",
        "Do not force-push main or release branches",
        "feedback",
        "global",
        "",
        "",
        "",
        "git push force",
        30,
        "Never `git push --force` to `main` or `release/*`. Use `--force-with-lease` only on your own branches.",
    ),
    (
        "editor-is-helix",
        "Editor is Helix",
        "The user edits in Helix",
        "user",
        "global",
        "relevant",
        "",
        "",
        "hx editor",
        400,
        "The user's editor is Helix (`hx`). Suggest Helix keybindings when relevant.",
    ),
    (
        "deploy-target-global",
        "Deploy target (old default)",
        "Older default deploy target for all projects",
        "project",
        "global",
        "",
        "",
        "project.deploy_target",
        "deploy heroku",
        300,
        "Default deploy target for new projects: Heroku. (Overridden per project.)",
    ),
    (
        "python-version",
        "Python version",
        "Services target Python 3.12",
        "project",
        "global",
        "",
        "stable",
        "",
        "python runtime",
        100,
        "All services target Python 3.12; use `uv` to manage interpreters.",
    ),
    (
        "commit-style",
        "Commit message style",
        "Conventional commits with a scope",
        "feedback",
        "global",
        "pinned",
        "",
        "user.commit_style",
        "git commit message",
        5,
        "Write conventional commits: `feat(api): …`, `fix(db): …`. Keep the subject under 72 characters.",
    ),
    # What memory health finds (the Health pane): an error tracker replaced in plain words
    # but still active, the test command said twice in other words, a pinned checklist
    # nobody asks about that fills most of the pinned budget.
    (
        "error-tracking",
        "Errors go to Sentry",
        "Application errors are reported to Sentry",
        "project",
        "project",
        "",
        "",
        "",
        "exceptions monitoring",
        120,
        "Exceptions are reported to Sentry (project `acme-api`); check it first when a deploy fails.",
    ),
    (
        "error-tracking-honeycomb",
        "Error tracking is Honeycomb",
        "Application errors are reported to Honeycomb",
        "project",
        "project",
        "",
        "",
        "",
        "exceptions monitoring",
        8,
        "We switched from Sentry to Honeycomb in July: exceptions and traces go to the `acme-api` dataset.",
    ),
    (
        "before-commit",
        "Before committing, run make check",
        "Run make check before every commit: lint, types and tests",
        "feedback",
        "project",
        "",
        "",
        "",
        "pytest ruff mypy",
        4,
        "Before every commit, run `make check`: it runs ruff, mypy and pytest.",
    ),
    (
        "review-checklist",
        "Code review checklist",
        "What every pull request review covers",
        "project",
        "project",
        "pinned",
        "stable",
        "",
        "pull request review",
        25,
        "Every pull request review covers, in this order:\n\n"
        "1. The change does what its description says, and nothing else.\n"
        "2. New behaviour has tests; a fixed bug has a test that failed before the fix.\n"
        "3. Renamed public functions keep a deprecated alias for one full release cycle.\n"
        "4. Schema changes can be rolled back, and the pull request says how.\n"
        "5. No new dependency without a note in the description saying why.\n"
        "6. Errors say what happened and what to do next, in one line.\n"
        "7. Logs carry no personal data; request ids are logged, bodies are not.\n"
        "8. Feature flags have an owner and a removal date.\n"
        "9. The changelog entry is written for users, not for reviewers.\n"
        "10. Anything left for later has an issue linked from a TODO.\n"
        "11. Screenshots in the description for every visible change to the admin UI.",
    ),
)

_RELEASE_AREAS = (
    "invoices",
    "payments",
    "webhooks",
    "auth",
    "exports",
    "reports",
    "search",
    "the admin UI",
    "rate limits",
    "the CLI",
    "emails",
    "tax rules",
)
_RELEASE_VERBS = (
    "fix a crash in",
    "speed up",
    "add pagination to",
    "log more context in",
    "tidy up",
    "retry failures in",
    "document",
    "harden input checks in",
)


def _release_notes() -> str:
    """A long pasted changelog (an oversized fact, as agents sometimes store)."""
    lines = ["Pasted from the June release thread, every merged change:", ""]
    for i in range(150):
        lines.append(
            f"- 2026.06.{1 + i % 28:02d}: {_RELEASE_VERBS[i % len(_RELEASE_VERBS)]} "
            f"{_RELEASE_AREAS[(i * 5) % len(_RELEASE_AREAS)]} (#{1200 + i})"
        )
    return "\n".join(lines)


def _demo_key() -> str:
    """An access-key-shaped string made at run time (the secret the demo's Health pane flags)."""
    return "AKIA" + "".join(chr(65 + (i * 7 + 3) % 26) for i in range(16))


def demo_facts() -> tuple[tuple[Any, ...], ...]:
    """The demo facts' raw fields (for tests)."""
    return _FACTS


def _write_instructions(root: Path, workspace: Path) -> None:
    (workspace / ".git").mkdir(parents=True, exist_ok=True)
    (workspace / "docs").mkdir(exist_ok=True)
    (workspace / "services" / "billing").mkdir(parents=True, exist_ok=True)
    (root / "AGENTS.md").write_text(
        "# My global agent rules\n\n- Prefer small, reviewable commits.\n- Ask before deleting files.\n",
        encoding="utf-8",
    )
    (workspace / "AGENTS.md").write_text(
        "# acme-api\n\nThis is the Acme billing API.\n\n@docs/conventions.md\n\n## Notes\n\n- Keep handlers thin.\n",
        encoding="utf-8",
    )
    (workspace / "docs" / "conventions.md").write_text(
        "## Conventions\n\n- snake_case in Python, camelCase in JSON.\n\n@testing.md\n", encoding="utf-8"
    )
    # A diagnostic at the workspace root: testing.md imports conventions.md back (a cycle).
    (workspace / "docs" / "testing.md").write_text(
        "## Testing\n\n- Every bug fix comes with a test.\n\n@conventions.md\n", encoding="utf-8"
    )
    (workspace / "REASONIX.local.md").write_text("My local notes: run the API on port 8081.\n", encoding="utf-8")
    # Another, below the root: a project document importing from outside its directory.
    (workspace / "services" / "billing" / "AGENTS.md").write_text(
        "# billing service\n\n@../../../shared-secrets.md\n\nInvoices are immutable once sent.\n", encoding="utf-8"
    )


def _write_sessions(layout: Layout, now: Timestamp) -> int:
    sessions = layout.project_sessions_dir
    sessions.mkdir(parents=True, exist_ok=True)
    # Each turn states a lasting rule or preference (a project rule, a prohibition, a
    # future-facing preference), so each becomes a suggestion with its message as evidence.
    turns = [
        (
            "20260720-091500.000000000-deepseek-chat.jsonl",
            [
                ("user", "Remember that we always run database migrations with alembic, never by hand."),
                ("assistant", "Understood: migrations go through alembic."),
                ("user", "Always write Google-style docstrings for every public function."),
                ("assistant", "Will do."),
            ],
        ),
        (
            "20260722-140200.000000000-deepseek-chat.jsonl",
            [
                ("user", "Never commit .env files; we keep secrets in 1Password."),
                ("assistant", "Noted."),
                ("user", "以后请用中文写提交说明的正文部分。"),
                ("assistant", "好的。"),
            ],
        ),
    ]
    count = 0
    for i, (name, messages) in enumerate(turns):
        base_ms = (now.ns - (5 - i) * DAY_NS) // 1_000_000
        lines = [json.dumps({"schema_version": 1})]
        for j, (role, content) in enumerate(messages):
            lines.append(
                json.dumps({"role": role, "content": content, "createdAt": base_ms + j * 60_000}, ensure_ascii=False)
            )
        (sessions / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        count += 1
    return count


def build_demo_home(
    root: str | Path,
    workspace: str | Path | None = None,
    *,
    now: Timestamp | None = None,
    reset: bool = False,
    with_approval: bool = True,
) -> DemoReport:
    """Generate a demo home at ``root`` (with a workspace, by default ``root/workspace/acme-api``).

    ``now`` fixes the clock (tests and screenshots); ``reset`` deletes an earlier demo
    home at ``root`` first.
    """
    from .store.store import SaveRequest, Store

    root = Path(root)
    workspace = Path(workspace) if workspace is not None else root / "workspace" / "acme-api"
    if reset and root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    workspace.mkdir(parents=True, exist_ok=True)
    now = now or Timestamp.now()
    layout = Layout.resolve(home=root, workspace=workspace)
    settings = Settings(pinned_budget_chars=1500)
    report = DemoReport(root=root, workspace=workspace)
    _write_instructions(root, workspace)

    def store_at(days_ago: float, actor: str = "cli") -> Any:
        ts = Timestamp(now.ns - int(days_ago * DAY_NS))
        clock: Callable[[], Timestamp] = lambda: ts  # noqa: E731
        return Store(layout, settings=settings, actor=actor, clock=clock, use_cache=False)

    # The history is written oldest first (each write with a store whose clock is set back
    # to its day), so the audit log is chronological like a real one.
    history: list[tuple[float, Callable[[], object]]] = []

    def at(days_ago: float, fn: Callable[[], object]) -> None:
        history.append((days_ago, fn))

    def create(
        name: str,
        title: str,
        desc: str,
        type_: str,
        scope: str,
        activation: str,
        volatility: str,
        subject: str,
        keywords: str,
        age: float,
        body: str,
    ) -> None:
        expires = Timestamp(now.ns + 4 * DAY_NS) if name == "oncall-rota" else None
        if name == "staging-db-host":
            expires = Timestamp(now.ns - 2 * DAY_NS)
        # The Activity pane shows every kind of actor: the on-call rota was a low-risk write
        # the agent made unasked.
        store_at(age, "agent-auto" if name == "oncall-rota" else "cli").save(
            SaveRequest(
                name=name,
                title=title,
                description=desc,
                type=type_,
                scope=scope,
                activation=activation,
                volatility=volatility,
                subject_key=subject,
                keywords=keywords,
                body=body,
                expires_at=expires,
            ),
            require_create=True,
        )
        report.facts += 1

    for fields in _FACTS:
        at(fields[9], partial(create, *fields))

    # Memory health's other kinds: a secret pasted into a note, an oversized changelog,
    # and (below, after the history) a second holder of a subject a sync brought in.
    at(
        18,
        lambda: store_at(18).save(
            SaveRequest(
                name="ci-deploy-user",
                title="CI deploy user",
                description="The IAM user CI deploys with",
                type="reference",
                scope="project",
                keywords="aws iam ci",
                body=f"CI deploys as IAM user `ci-deploy`, access key `{_demo_key()}`.",
            ),
            require_create=True,
        ),
    )
    at(
        35,
        lambda: store_at(35).save(
            SaveRequest(
                name="release-notes-june",
                title="Release notes, June",
                description="Every change merged in June (pasted)",
                type="reference",
                scope="project",
                keywords="changelog",
                body=_release_notes(),
            ),
            require_create=True,
        ),
    )
    report.facts += 2

    # Revisions: the deploy target moved, then moved back (a superseded value for the demo).
    at(
        9,
        lambda: store_at(9).save(
            SaveRequest(
                name="deploy-target",
                title="Deploy target is Render",
                description="Production runs on Render",
                type="project",
                scope="project",
                subject_key="project.deploy_target",
                body="Production deploys go to **Render** (migration trial).",
            )
        ),
    )
    at(
        6,
        lambda: store_at(6).save(
            SaveRequest(
                name="deploy-target",
                title="Deploy target is Fly.io",
                description="Production runs on Fly.io in the ams region",
                type="project",
                scope="project",
                subject_key="project.deploy_target",
                keywords="deploy production hosting",
                body="Production deploys go to **Fly.io**, region `ams`, app `acme-api`.\n\nUse `fly deploy --strategy rolling`.",
            )
        ),
    )
    # The agent asked to pin the package manager, a person approved it...
    at(
        1,
        lambda: store_at(1, "agent-approved").save(
            SaveRequest(
                name="package-manager",
                title="Package manager is pnpm",
                description="Use pnpm, never npm or yarn, in this repository",
                type="project",
                scope="project",
                activation="pinned",
                volatility="stable",
                subject_key="project.package_manager",
                keywords="npm yarn install pnpm",
                body="Use **pnpm** (v9) for every install and script (`pnpm install`, `pnpm test`).\n\n"
                "The lockfile is `pnpm-lock.yaml`; npm and yarn lockfiles are rejected by CI.",
            )
        ),
    )
    report.revisions = 3
    at(2, lambda: store_at(2).verify("global/python-version.md"))

    # ...and a second holder of the deploy target's subject key was refused (audited).
    def refused_second_holder() -> None:
        from .store.model import StoreError

        try:
            store_at(3, "agent-approved").save(
                SaveRequest(
                    name="deploy-on-render",
                    title="Deploy target is Render",
                    description="Production runs on Render",
                    type="project",
                    scope="project",
                    subject_key="project.deploy_target",
                    body="Deploy to Render.",
                ),
                require_create=True,
            )
        except StoreError:
            pass

    at(3, refused_second_holder)

    # Archived facts, one per scope, and one whose name is active again (a recover collision).
    def archived(name: str, title: str, scope: str, body: str) -> None:
        store_at(50).save(
            SaveRequest(name=name, title=title, description=title, type="project", scope=scope, body=body),
            require_create=True,
        )

    def forget(name: str, scope: str) -> None:
        store_at(15).archive(f"{scope}/{name}.md")
        report.archived += 1

    for name, title, scope, body in (
        ("old-ci-provider", "CI runs on Travis", "project", "CI used to run on Travis CI; it moved to GitHub Actions."),
        ("likes-tabs", "Prefers tabs", "global", "The user once preferred tabs over spaces."),
        ("test-command-old", "Run tests with tox", "project", "Run `tox` for the full matrix."),
    ):
        at(50, partial(archived, name, title, scope, body))
        at(15, partial(forget, name, scope))

    # Oldest first; writes of the same day keep the order above (sorted() is stable).
    for _days_ago, write in sorted(history, key=lambda item: -item[0]):
        write()

    # A sync brought a second holder of the release branch's subject (the store refuses
    # one, so it is written as the sync would: a file that names the subject itself).
    synced = (
        store_at(1)
        .save(
            SaveRequest(
                name="release-branch-august",
                title="Release branch for August",
                description="The August release branch",
                type="project",
                scope="project",
                subject_key="project.release_branch_synced",
                keywords="release branch",
                body="The current release branch is `release/2026.08`.",
            ),
            require_create=True,
        )
        .fact
    )
    path = Path(synced.path)
    path.write_text(
        path.read_text(encoding="utf-8").replace("project.release_branch_synced", "project.release_branch"),
        encoding="utf-8",
    )
    os.utime(path, ns=(now.ns - DAY_NS, now.ns - DAY_NS))
    report.facts += 1

    # A file Reasonix cannot parse (shows as an error row).
    broken = layout.project_dir / "broken-note.md"
    broken.write_text("---\ntitle: [unclosed\n---\nA note with broken frontmatter.\n", encoding="utf-8")
    hour_ago = now.ns - 3600 * 1_000_000_000
    os.utime(broken, ns=(hour_ago, hour_ago))

    report.sessions = _write_sessions(layout, now)

    # Recall traces from prompts a person would type, oldest first: a generic turn (recall
    # stays out), a question whose fact is pinned (already in the prompt), a Chinese one
    # (cross-language terms), then two that hit on their real terms.
    queries = (
        ("continue", 50),
        ("which package manager should I use", 48),
        ("where does production run?", 46),
        ("发布分支叫什么？", 44),
        ("what is the staging database host", 42),
        ("which region do we deploy to", 40),
        ("which python version do the services use", 38),
        ("is the rolling deploy strategy still what we use for fly deploy", 36),
        ("who is on call this week", 34),
        ("where are production deploys hosted now", 30),
        ("how do I run the tests before committing?", 20),
        ("how do we deploy to production?", 10),
    )
    for query, minutes_ago in queries:
        when = Timestamp(now.ns - minutes_ago * 60 * 1_000_000_000)
        try:
            run_recall(layout, query, settings=settings, source="demo", now=when, store=store_at(0))
        except Exception as exc:  # the demo never fails because of one optional part
            report.skipped.append(f"recall trace {query!r}: {type(exc).__name__}: {exc}")
            break
        report.traces += 1

    if with_approval:
        arguments = {
            "name": "deploy-target",
            "title": "Deploy target is Fly.io (two regions)",
            "description": "Production runs on Fly.io in ams and iad",
            "type": "project",
            "scope": "project",
            "subject_key": "project.deploy_target",
            "keywords": "deploy production hosting",
            "body": "Production deploys go to **Fly.io**, regions `ams` and `iad`.\n\nUse `fly deploy --strategy rolling`.",
        }
        store = Store(layout, settings=settings, actor="agent-auto", use_cache=False)
        assessment = policy.assess_remember(arguments, store)
        requester = proposals.Requester(pid=4242, agent="claude-code", source="mcp", host="demo")
        approvals.ApprovalQueue(layout).propose("remember", arguments, assessment, store, requester)
        report.approvals = 1
    return report

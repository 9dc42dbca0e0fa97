"""What the generated demo home holds, as declarations (:mod:`.demo` writes them).

The facts and their later revisions, the facts Memory health flags (a pasted secret, an
oversized changelog, a second holder of a subject), archived facts, the instruction
documents, the session transcripts with preference sentences the suggestion scanner picks
up (one per marker kind, one in Chinese), the prompts of the recall traces, and the
pending proposal.

Plain Python: no textual import (the firewall test imports this module).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FACTS",
    "FACT_ACTORS",
    "FACT_EXPIRY_DAYS",
    "DemoWrite",
    "HEALTH_FACTS",
    "REVISIONS",
    "VERIFIED",
    "REFUSED_SECOND_HOLDER",
    "ARCHIVED",
    "SYNCED_SECOND_HOLDER",
    "SYNCED_SUBJECT",
    "BROKEN_NOTE",
    "INSTRUCTION_FILES",
    "SESSIONS",
    "RECALL_QUERIES",
    "APPROVAL_ARGUMENTS",
    "demo_key",
    "release_notes",
]

# name, title, description, type, scope, activation, volatility, subject, keywords, age_days, body
FACTS: tuple[tuple[Any, ...], ...] = (
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


def release_notes() -> str:
    """A long pasted changelog (an oversized fact, as agents sometimes store)."""
    lines = ["Pasted from the June release thread, every merged change:", ""]
    for i in range(150):
        lines.append(
            f"- 2026.06.{1 + i % 28:02d}: {_RELEASE_VERBS[i % len(_RELEASE_VERBS)]} "
            f"{_RELEASE_AREAS[(i * 5) % len(_RELEASE_AREAS)]} (#{1200 + i})"
        )
    return "\n".join(lines)


def demo_key() -> str:
    """An access-key-shaped string made at run time (the secret the demo's Health pane flags)."""
    return "AKIA" + "".join(chr(65 + (i * 7 + 3) % 26) for i in range(16))


FACT_EXPIRY_DAYS: dict[str, int] = {"oncall-rota": 4, "staging-db-host": -2}
"""Facts that expire, in days from "now" (the staging host has already expired)."""
FACT_ACTORS: dict[str, str] = {"oncall-rota": "agent-auto"}
"""The Activity pane shows every kind of actor: the on-call rota was a low-risk write the
agent made unasked (every other fact was written from the CLI)."""


@dataclass(frozen=True)
class DemoWrite:
    """One write of the demo's history, made by a store whose clock is set back ``days_ago``."""

    days_ago: float
    fields: dict[str, Any] = field(default_factory=dict)
    """``SaveRequest`` fields (a save); empty for a verify or an archive."""
    actor: str = "cli"
    create: bool = False
    """The save must create the fact (``require_create``)."""


# Memory health's other kinds: a secret pasted into a note and an oversized changelog (and,
# written after the history, a second holder of a subject a sync brought in).
HEALTH_FACTS: tuple[DemoWrite, ...] = (
    DemoWrite(
        18,
        {
            "name": "ci-deploy-user",
            "title": "CI deploy user",
            "description": "The IAM user CI deploys with",
            "type": "reference",
            "scope": "project",
            "keywords": "aws iam ci",
            "body": f"CI deploys as IAM user `ci-deploy`, access key `{demo_key()}`.",
        },
        create=True,
    ),
    DemoWrite(
        35,
        {
            "name": "release-notes-june",
            "title": "Release notes, June",
            "description": "Every change merged in June (pasted)",
            "type": "reference",
            "scope": "project",
            "keywords": "changelog",
            "body": release_notes(),
        },
        create=True,
    ),
)

# Revisions: the deploy target moved, then moved back (a superseded value for the demo);
# the agent asked to pin the package manager, a person approved it.
REVISIONS: tuple[DemoWrite, ...] = (
    DemoWrite(
        9,
        {
            "name": "deploy-target",
            "title": "Deploy target is Render",
            "description": "Production runs on Render",
            "type": "project",
            "scope": "project",
            "subject_key": "project.deploy_target",
            "body": "Production deploys go to **Render** (migration trial).",
        },
    ),
    DemoWrite(
        6,
        {
            "name": "deploy-target",
            "title": "Deploy target is Fly.io",
            "description": "Production runs on Fly.io in the ams region",
            "type": "project",
            "scope": "project",
            "subject_key": "project.deploy_target",
            "keywords": "deploy production hosting",
            "body": "Production deploys go to **Fly.io**, region `ams`, app `acme-api`.\n\n"
            "Use `fly deploy --strategy rolling`.",
        },
    ),
    DemoWrite(
        1,
        {
            "name": "package-manager",
            "title": "Package manager is pnpm",
            "description": "Use pnpm, never npm or yarn, in this repository",
            "type": "project",
            "scope": "project",
            "activation": "pinned",
            "volatility": "stable",
            "subject_key": "project.package_manager",
            "keywords": "npm yarn install pnpm",
            "body": "Use **pnpm** (v9) for every install and script (`pnpm install`, `pnpm test`).\n\n"
            "The lockfile is `pnpm-lock.yaml`; npm and yarn lockfiles are rejected by CI.",
        },
        actor="agent-approved",
    ),
)

VERIFIED: tuple[float, str] = (2, "global/python-version.md")
"""A fact a person verified (days ago, ref)."""

REFUSED_SECOND_HOLDER = DemoWrite(
    3,
    {
        "name": "deploy-on-render",
        "title": "Deploy target is Render",
        "description": "Production runs on Render",
        "type": "project",
        "scope": "project",
        "subject_key": "project.deploy_target",
        "body": "Deploy to Render.",
    },
    actor="agent-approved",
    create=True,
)
"""A second holder of the deploy target's subject key: the store refuses it (audited)."""

ARCHIVED: tuple[tuple[str, str, str, str], ...] = (
    ("old-ci-provider", "CI runs on Travis", "project", "CI used to run on Travis CI; it moved to GitHub Actions."),
    ("likes-tabs", "Prefers tabs", "global", "The user once preferred tabs over spaces."),
    ("test-command-old", "Run tests with tox", "project", "Run `tox` for the full matrix."),
)
"""Archived facts (name, title, scope, body), one per scope, and one whose name is active
again (a recover collision): written 50 days ago, archived 15 days ago."""

SYNCED_SUBJECT = ("project.release_branch_synced", "project.release_branch")
"""The subject the synced fact is saved with, and the one its file is rewritten to name."""
SYNCED_SECOND_HOLDER = DemoWrite(
    1,
    {
        "name": "release-branch-august",
        "title": "Release branch for August",
        "description": "The August release branch",
        "type": "project",
        "scope": "project",
        "subject_key": SYNCED_SUBJECT[0],
        "keywords": "release branch",
        "body": "The current release branch is `release/2026.08`.",
    },
    create=True,
)
"""A second holder of the release branch's subject a sync brought in (the store refuses
one, so it is written as the sync would: a file that names the subject itself)."""

BROKEN_NOTE = ("broken-note.md", "---\ntitle: [unclosed\n---\nA note with broken frontmatter.\n")
"""A file Reasonix cannot parse (shows as an error row), written an hour ago."""

INSTRUCTION_FILES: tuple[tuple[str, str, str], ...] = (
    (
        "root",
        "AGENTS.md",
        "# My global agent rules\n\n- Prefer small, reviewable commits.\n- Ask before deleting files.\n",
    ),
    (
        "workspace",
        "AGENTS.md",
        "# acme-api\n\nThis is the Acme billing API.\n\n@docs/conventions.md\n\n## Notes\n\n- Keep handlers thin.\n",
    ),
    (
        "workspace",
        "docs/conventions.md",
        "## Conventions\n\n- snake_case in Python, camelCase in JSON.\n\n@testing.md\n",
    ),
    # A diagnostic at the workspace root: testing.md imports conventions.md back (a cycle).
    ("workspace", "docs/testing.md", "## Testing\n\n- Every bug fix comes with a test.\n\n@conventions.md\n"),
    ("workspace", "REASONIX.local.md", "My local notes: run the API on port 8081.\n"),
    # Another, below the root: a project document importing from outside its directory.
    (
        "workspace",
        "services/billing/AGENTS.md",
        "# billing service\n\n@../../../shared-secrets.md\n\nInvoices are immutable once sent.\n",
    ),
)
"""Instruction documents: (``root`` or ``workspace``, relative path, text)."""

# Each turn states a lasting rule or preference (a project rule, a prohibition, a
# future-facing preference), so each becomes a suggestion with its message as evidence.
SESSIONS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "20260720-091500.000000000-deepseek-chat.jsonl",
        (
            ("user", "Remember that we always run database migrations with alembic, never by hand."),
            ("assistant", "Understood: migrations go through alembic."),
            ("user", "Always write Google-style docstrings for every public function."),
            ("assistant", "Will do."),
        ),
    ),
    (
        "20260722-140200.000000000-deepseek-chat.jsonl",
        (
            ("user", "Never commit .env files; we keep secrets in 1Password."),
            ("assistant", "Noted."),
            ("user", "以后请用中文写提交说明的正文部分。"),
            ("assistant", "好的。"),
        ),
    ),
)
"""Session transcripts (file name, (role, content) turns), 5 and 4 days old."""

# Recall traces from prompts a person would type, oldest first: a generic turn (recall
# stays out), a question whose fact is pinned (already in the prompt), a Chinese one
# (cross-language terms), then two that hit on their real terms.
RECALL_QUERIES: tuple[tuple[str, int], ...] = (
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
"""(prompt, minutes ago)."""

APPROVAL_ARGUMENTS: dict[str, str] = {
    "name": "deploy-target",
    "title": "Deploy target is Fly.io (two regions)",
    "description": "Production runs on Fly.io in ams and iad",
    "type": "project",
    "scope": "project",
    "subject_key": "project.deploy_target",
    "keywords": "deploy production hosting",
    "body": "Production deploys go to **Fly.io**, regions `ams` and `iad`.\n\nUse `fly deploy --strategy rolling`.",
}
"""The pending proposal: the agent's ``remember`` call to move the deploy target to two regions."""

"""Deterministic noise facts for distractor tasks: plausible agent-memory facts about
unrelated parts of a codebase, sharing common words with real queries."""

from __future__ import annotations

import random
from typing import Any

_COMPONENTS = [
    "billing service",
    "search indexer",
    "mobile app",
    "admin dashboard",
    "email worker",
    "image resizer",
    "analytics pipeline",
    "feature flags",
    "rate limiter",
    "audit exporter",
    "webhook relay",
    "geo lookup",
    "report builder",
    "sso bridge",
    "chat widget",
    "pdf renderer",
    "invoice sync",
    "tag manager",
    "session store",
    "notification hub",
    "sitemap generator",
    "export job",
    "import wizard",
    "cdn purger",
]
_TECH = [
    "Kafka",
    "Postgres",
    "SQLite",
    "Redis streams",
    "gRPC",
    "GraphQL",
    "Celery",
    "Sidekiq",
    "Terraform",
    "Helm",
    "Nginx",
    "Envoy",
    "Tailwind",
    "Vite",
    "webpack",
    "Jest",
    "pytest",
    "Playwright",
    "Sentry",
    "Grafana",
    "Prometheus",
    "S3",
    "CloudFront",
    "Lambda",
    "Bun",
    "Deno",
    "Rust",
    "Go",
    "Kotlin",
    "Swift",
]
_VERBS = ["uses", "talks to", "is built with", "runs on", "is tested with", "depends on", "reads from", "writes to"]
_TAILS = [
    "Run the tests before you push and keep the config in the repo.",
    "We use the default settings; change them only after a review.",
    "The team agreed on this in the weekly sync; see the design doc for the details.",
    "Logs go to the shared dashboard; alerts page the on-call engineer.",
    "Keep the timeout short and retry twice with backoff.",
    "The staging copy mirrors production but with synthetic data.",
    "Build it with make, then run the smoke test script.",
    "Owners are listed in CODEOWNERS; ask them before large changes.",
]


def noise_facts(count: int, seed: str, now_age_max: int = 90) -> list[dict[str, Any]]:
    """``count`` fact specs (same shape as task facts), reproducible from ``seed``."""
    r = random.Random(f"noise:{seed}")
    out = []
    for i in range(count):
        comp = r.choice(_COMPONENTS)
        tech = r.choice(_TECH)
        verb = r.choice(_VERBS)
        tail = " ".join(r.sample(_TAILS, 2))
        name = f"{comp.replace(' ', '-')}-{tech.lower().replace(' ', '-')}-{i:03d}"
        out.append(
            {
                "id": f"mem-noise-{i:03d}",
                "name": name,
                "title": f"{comp.title()} {verb} {tech}",
                "description": f"The {comp} {verb} {tech}.",
                "body": f"The {comp} {verb} {tech}. {tail}",
                "scope": r.choice(["project", "project", "project", "global"]),
                "type": r.choice(["project", "project", "reference"]),
                "age_days": r.randint(1, now_age_max),
            }
        )
    return out

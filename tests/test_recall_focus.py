"""Order among passed facts (:mod:`reasonix_tui.core.recall.focus`): a quoted literal held
verbatim, and the title's focus (the aspect of a subject the turn asks about)."""

from __future__ import annotations

from typing import Any

import pytest

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp, parse_rfc3339
from reasonix_tui.core.recall import Enhancements, clear_index_cache, recall
from reasonix_tui.core.recall.focus import (
    LITERAL_FACTOR,
    TITLE_BOOST,
    focus_factor,
    holds_literal,
    query_literals,
    title_focus,
)
from reasonix_tui.core.store.model import Fact, FactId

NOW = parse_rfc3339("2026-07-27T00:00:00Z")
assert NOW is not None


def F(fid: str, name: str, title: str, body: str, age: float = 5, **kw: Any) -> Fact:
    updated = Timestamp(NOW.ns - int(age * DAY_NS))
    return Fact(
        id=FactId(fid),
        revision=1,
        created_at=updated,
        updated_at=updated,
        name=name,
        title=title,
        body=body,
        **kw,
    )


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_index_cache()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("is `pnpm test -- -u` safe to run?", ("pnpm test -- -u",)),
        ("why does CI pass --retries=2?", ("--retries=2",)),
        ("what does -short skip?", ("-short",)),
        ("what is billing.retry.max_attempts set to?", ("billing.retry.max_attempts",)),
        ("where does CARRIER_WEBHOOK_SECRET come from?", ("CARRIER_WEBHOOK_SECRET",)),
        ("what goes in deploy/helm/values-prod.yaml?", ("deploy/helm/values-prod.yaml",)),
        ("what does DELETE /api/docs/:id/share/:token do?", ("/api/docs/:id/share/:token",)),
        ("localhost:4100 is busy", ("localhost:4100",)),
        # prose, versions, abbreviations and hyphenated words are no literals
        ("who owns the Spark jobs?", ()),
        ("we target Python 3.12, e.g. for match statements", ()),
        ("a well-known end-to-end test", ()),
        ("done. next one", ()),
    ],
)
def test_query_literals(query: str, expected: tuple[str, ...]) -> None:
    assert query_literals(query) == expected


def test_holds_literal_as_written_not_inside_a_longer_identifier() -> None:
    assert holds_literal("run `pnpm test -- -u` to update", "pnpm test -- -u")
    assert holds_literal("caps billing.retry.max_attempts (default 4)", "billing.retry.max_attempts")
    assert not holds_literal("caps tracking.ingest.max_attempts", "billing.retry.max_attempts")
    assert not holds_literal("set MY_CARRIER_WEBHOOK_SECRET_V2", "CARRIER_WEBHOOK_SECRET")
    assert not holds_literal("go test -shortcut", "-short")
    assert holds_literal("go test ./... -short skips", "-short")


def test_title_focus_counts_an_agent_noun_of_the_turns_verb() -> None:
    # "owns" (key own) covers a title's "owner"; "run" does not cover "runtime"
    assert title_focus(frozenset({"w:owner"}), {"w:own"}) == 1.0
    assert title_focus(frozenset({"w:spark", "w:job", "w:runtim"}), {"w:spark", "w:job", "w:run"}) == pytest.approx(
        2 / 3
    )
    assert title_focus(frozenset(), {"w:own"}) == 1.0


def test_focus_factor() -> None:
    # a title the turn does not touch says nothing; a whole title weighs more unless stale
    assert focus_factor((), "", frozenset({"w:local", "w:redi"}), {"w:port"}) == 1.0
    assert focus_factor((), "", frozenset({"w:owner"}), {"w:own"}) == pytest.approx(1 + TITLE_BOOST)
    assert focus_factor((), "", frozenset({"w:owner"}), {"w:own"}, stale=True) == 1.0
    assert focus_factor((), "", frozenset({"w:spark", "w:job", "w:runtim"}), {"w:spark", "w:job"}) < 1.0
    assert focus_factor(("-u",), "pnpm test -- -u", frozenset(), {"w:pnpm"}) == pytest.approx(LITERAL_FACTOR)
    half = focus_factor(("-u", "--ci"), "pnpm test -- -u", frozenset(), {"w:pnpm"})
    assert 1.0 < half < LITERAL_FACTOR


def _ids(res: Any) -> list[str]:
    return [str(h.fact.id) for h in res.hits]


def test_the_fact_whose_title_names_what_is_asked_comes_first() -> None:
    facts = [
        F("mem-owners", "owners", "Owners", "Priya owns the DAGs, Lena Vogt the Spark jobs."),
        F(
            "mem-spark-py",
            "spark-python",
            "Spark jobs runtime",
            "The Spark jobs are stuck on Python 3.9 because of the EMR image; no 3.10 syntax in the Spark jobs.",
        ),
        F("mem-dags", "dag-rules", "DAG rules", "Every DAG sets catchup=False; schedules are in UTC."),
    ]
    res = recall(facts, "who owns the Spark jobs?", NOW)
    assert _ids(res)[0] == "mem-owners"
    off = recall(facts, "who owns the Spark jobs?", NOW, enhancements=Enhancements().without("focus"))
    assert _ids(off)[0] == "mem-spark-py"  # what the words alone say
    # the runtime question still gets the runtime fact
    assert _ids(recall(facts, "what Python do the Spark jobs run on?", NOW))[0] == "mem-spark-py"


def test_the_fact_holding_the_quoted_literal_comes_first() -> None:
    facts = [
        F("mem-snap", "snapshots", "Snapshot tests", "Update Jest snapshots with `pnpm test -- -u`; never with logic."),
        F(
            "mem-e2e",
            "e2e",
            "End-to-end tests",
            "Playwright runs with `pnpm e2e --project=chromium`; CI adds --retries=2.",
        ),
        F("mem-pm", "package-manager", "Package manager", "pnpm 9 workspaces; never commit package-lock.json."),
    ]
    res = recall(facts, "is `pnpm test -- -u` safe to run?", NOW)
    assert _ids(res)[0] == "mem-snap"
    assert any("quoted literals" in n for n in res.notes)
    off = recall(facts, "is `pnpm test -- -u` safe to run?", NOW, enhancements=Enhancements().without("focus"))
    assert _ids(off)[0] == "mem-e2e"  # "run" matched one more word there


def test_a_replaced_fact_still_ranks_after_its_replacement_whatever_its_title() -> None:
    old = F("mem-port-old", "query-port", "Query service port", "The query service listens on port 8000.", age=300)
    new = F(
        "mem-port-new",
        "query-local",
        "Query service locally",
        "The query service now runs on 8081 locally (replaces port 8000).",
        age=20,
        supersedes=("mem-port-old",),
    )
    res = recall([old, new], "what port does the query service use?", NOW)
    assert _ids(res)[0] == "mem-port-new"

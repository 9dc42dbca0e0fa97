"""The one-shot fast path: an unchanged store answers from the last report, exactly.

``health_report`` without a checker (what ``memory health`` does) keeps the report beside
the checker's state; the next call on an unchanged store returns it without running the
checks. Any change of what the findings are made of — a fact file, the recorded traces,
the settings, the clock past a freshness boundary — sends the call to the full checks,
and every answer equals a run from scratch field by field.
"""

from __future__ import annotations

import os
import random

import pytest

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp
from reasonix_tui.core.health import Dismissals, HealthChecker, gather, health_report
from reasonix_tui.core.health import checker as checker_module
from reasonix_tui.core.health.freshness import check_freshness, valid_until
from reasonix_tui.core.health.quick import quick_path, quick_report
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall.memo import FACT_MEMO
from reasonix_tui.core.recall.trace import RecallTrace, TraceStore
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.model import Fact, new_memory_id
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

BUILT = Timestamp(1_785_000_000 * 1_000_000_000)  # 2026-07-25T17:20:00Z: the demo's facts are whole days old
NOW = Timestamp(BUILT.ns + 3_600 * 10**9)  # an hour later: at a whole day of age a fact turns stale 1 ns later
SETTINGS = Settings(pinned_budget_chars=1500)


def _scratch(layout: Layout, now: Timestamp = NOW):
    FACT_MEMO.clear()
    return HealthChecker().report(
        gather(layout, SETTINGS, Store(layout, settings=SETTINGS), now=now), Dismissals(layout).fingerprints()
    )


def _same(a, b) -> None:
    assert a.findings == b.findings
    assert a.dismissed == b.dismissed
    assert (a.facts, a.span, a.partial) == (b.facts, b.span, b.partial)


class _NoChecks:
    """Stands in for the checker: a call that reaches the checks fails the test."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("the full checks ran")


@pytest.fixture
def demo(tmp_path) -> Layout:
    from reasonix_tui.core.demo import build_demo_home

    home = build_demo_home(tmp_path / "demo", now=BUILT, with_approval=False)
    return Layout.resolve(home=home.root, workspace=home.workspace)


def test_an_unchanged_store_answers_from_the_last_report_exactly(demo: Layout, monkeypatch) -> None:
    full = health_report(demo, SETTINGS, now=NOW)
    assert os.path.exists(quick_path(demo))
    kinds = {f.kind for f in full.findings}
    assert "instruction" in kinds and len(kinds) >= 12  # the live kind sits among kept ones
    with monkeypatch.context() as m:
        m.setattr(checker_module, "HealthChecker", _NoChecks)
        quick = health_report(demo, SETTINGS, now=NOW)
        later = health_report(demo, SETTINGS, now=Timestamp(NOW.ns + 1_800 * 10**9))
    _same(quick, full)
    _same(quick, _scratch(demo))
    assert later.findings == quick.findings
    # a dismissal is applied on every call, not kept in the report
    Dismissals(demo).dismiss(full.findings[0])
    with monkeypatch.context() as m:
        m.setattr(checker_module, "HealthChecker", _NoChecks)
        dismissed = health_report(demo, SETTINGS, now=NOW)
    assert dismissed.dismissed == (full.findings[0],)
    _same(dismissed, _scratch(demo))


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def test_every_change_the_findings_depend_on_sends_the_call_to_the_checks(demo: Layout) -> None:
    first = health_report(demo, SETTINGS, now=NOW)
    assert quick_report(demo, SETTINGS, now=NOW) is not None

    # a write through the store
    victim = next(f for f in first.findings if f.kind == "never-recalled").facts[0]
    Store(demo, settings=SETTINGS).save(SaveRequest(name=_stem(victim.path), description="Rewritten"))
    assert quick_report(demo, SETTINGS, now=NOW) is None
    _same(health_report(demo, SETTINGS, now=NOW), _scratch(demo))

    # a file edited from outside (same size: the stat key still differs)
    stale = next(f for f in first.findings if f.kind == "stale").facts[0]
    text = open(stale.path, encoding="utf-8").read()
    with open(stale.path, "w", encoding="utf-8") as fh:
        fh.write(text.replace("a", "e", 1))
    assert quick_report(demo, SETTINGS, now=NOW) is None
    _same(health_report(demo, SETTINGS, now=NOW), _scratch(demo))

    # a recorded turn (usage findings)
    TraceStore(demo).record(RecallTrace(query="how do we deploy", at=NOW.rfc3339(), hits=(), terms=("deploy",)))
    assert quick_report(demo, SETTINGS, now=NOW) is None
    _same(health_report(demo, SETTINGS, now=NOW), _scratch(demo))

    # other settings, and a clock before the report or past a freshness boundary
    assert quick_report(demo, Settings(pinned_budget_chars=900), now=NOW) is None
    assert quick_report(demo, SETTINGS, now=Timestamp(NOW.ns - 1)) is None
    assert quick_report(demo, SETTINGS, now=Timestamp(NOW.ns + 200 * DAY_NS)) is None
    assert quick_report(demo, SETTINGS, now=NOW) is not None
    assert health_report(demo, SETTINGS, now=BUILT).findings == _scratch(demo, BUILT).findings  # at a boundary
    assert quick_report(demo, SETTINGS, now=BUILT) is None and not os.path.exists(quick_path(demo))

    # a damaged file is ignored
    health_report(demo, SETTINGS, now=NOW)
    assert quick_report(demo, SETTINGS, now=NOW) is not None
    with open(quick_path(demo), "r+b") as fh:
        fh.seek(40)
        fh.write(b"\xff\xff\xff")
    assert quick_report(demo, SETTINGS, now=NOW) is None


def _facts(rng: random.Random, now: Timestamp, n: int) -> list[Fact]:
    out = []
    for i in range(n):
        start = Timestamp(now.ns - rng.randrange(0, 400 * DAY_NS))
        expires = Timestamp(now.ns + rng.randrange(-10 * DAY_NS, 12 * DAY_NS)) if i % 3 == 0 else None
        out.append(
            Fact(
                id=new_memory_id(),
                name=f"fact-{i}",
                title=f"Fact {i}",
                description="a fact",
                body="a body",
                type=rng.choice(("project", "feedback", "reference", "user")),
                scope="project",
                file_scope="project",
                revision=1,
                created_at=start,
                updated_at=start,
                expires_at=expires,
                volatility=rng.choice(("", "volatile", "stable")),
            )
        )
    return out


def test_freshness_findings_do_not_change_before_valid_until() -> None:
    """Sampled moments between ``now`` and :func:`valid_until` give the same freshness
    findings (ages round, windows and expiries end, all with the clock)."""
    rng = random.Random(7)
    for round_ in range(40):
        now = Timestamp(NOW.ns + rng.randrange(0, 30 * DAY_NS))
        facts = _facts(rng, now, 25)
        until = valid_until(facts, now)
        assert until >= now.ns
        if until == now.ns:
            continue
        at_now = check_freshness(facts, now)
        for t in (until - 1, now.ns + (until - now.ns) // 2, *(rng.randrange(now.ns, until) for _ in range(5))):
            assert check_freshness(facts, Timestamp(t)) == at_now, round_
    # a fact's age crossing a half day is a boundary: the span is short, not a year
    one = _facts(random.Random(1), NOW, 1)
    assert valid_until(one, NOW) - NOW.ns <= DAY_NS // 2
    on_boundary = Timestamp(one[0].updated_at.ns + 3 * DAY_NS)
    assert valid_until(one, on_boundary) == on_boundary.ns


def test_the_cli_on_an_unchanged_store_prints_the_same_without_loading_the_checks(tmp_path) -> None:
    """Two ``memory health --json`` processes: the second answers from the last report
    (numpy and the resolver never imported) and prints the same findings."""
    import subprocess
    import sys

    from reasonix_tui.core.demo import build_demo_home

    # the demo's facts are whole days old at the moment it is built: build it six hours ago,
    # so the real clock is far from a freshness boundary while the two calls run
    home = build_demo_home(
        tmp_path / "demo", now=Timestamp(Timestamp.now().ns - 6 * 3_600 * 10**9), with_approval=False
    )
    demo = Layout.resolve(home=home.root, workspace=home.workspace)

    code = (
        "import sys\n"
        "from reasonix_tui.integrations.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "print('checks loaded:', 'numpy' in sys.modules or 'reasonix_tui.core.resolve' in sys.modules)\n"
        "raise SystemExit(rc)\n"
    )
    args = ["--home", str(demo.root), "--workspace", str(demo.workspace), "memory", "health", "--json"]
    runs = [
        subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [1, 1], runs[0].stderr
    first, second = (r.stdout.rsplit("checks loaded:", 1) for r in runs)
    assert first[1].strip() == "True" and second[1].strip() == "False"
    assert second[0] == first[0] and first[0].count("\n") > 20

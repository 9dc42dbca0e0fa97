"""The Health pane (issue 15): findings of the demo home by severity, the status line's
count, the evidence side by side, and each one-key fix through the one write worker
(audited, undoable where the store allows)."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from reasonix_tui.core.health import Dismissals
from reasonix_tui.core.health.model import KINDS
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.audit import AuditLog
from reasonix_tui.tui.messages import HealthFixRequested, WriteFinished
from reasonix_tui.tui.screens.fact_form import FactFormScreen
from reasonix_tui.tui.screens.main import MainScreen

from .helpers import SIZE, make, plain, store
from .helpers import settle as settle_once


def hold_health_runs(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Hold every health run in its worker thread (as a slow 10k check would be) until
    ``release`` is set; ``started`` is set when a run begins."""
    from reasonix_tui.core.health import HealthChecker

    started, release = threading.Event(), threading.Event()
    real = HealthChecker.report

    def held(self: HealthChecker, *args: Any, **kwargs: Any) -> Any:
        started.set()
        release.wait(timeout=60)  # bounded: a broken test never hangs the suite
        return real(self, *args, **kwargs)

    monkeypatch.setattr(HealthChecker, "report", held)
    return started, release


async def settle(pilot: Any) -> None:
    """Settle until the health report answers the newest request (a fix is a write, then a
    reload, then a health run: each a worker whose result starts the next)."""
    app = pilot.app
    for _ in range(20):
        await settle_once(pilot)
        if (
            app.health is not None
            and app._health_seen == app._health_gen
            and not any(w.is_running for w in app.workers)
        ):
            return


def finished(messages: list[Any], action: str) -> WriteFinished:
    """The last write of ``action``."""
    done = [m for m in messages if isinstance(m, WriteFinished) and m.action == action]
    assert done, f"no {action} write finished"
    return done[-1]


async def open_health(pilot: Any, kind: str, title_part: str = "") -> Any:
    """Show the Health pane with the cursor on the first finding of ``kind``."""
    await settle(pilot)
    await pilot.press("8")
    await settle(pilot)
    pane = pilot.app.screen.query_one("#health-pane")
    index = next(i for i, f in enumerate(pane.findings) if f.kind == kind and title_part in f.title)
    pane.query_one("#health-list", OptionList).highlighted = index
    await settle(pilot)
    return pane.findings[index]


def audit_ops(layout: Layout) -> list[tuple[str, str, str]]:
    """``(op, actor, ref)`` of the audit log, newest first."""
    return [(e.op, e.actor, e.ref) for e in AuditLog(layout.audit_log).read(30)]


async def test_the_pane_lists_every_kind_by_severity_with_a_status_count(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        report = app.health
        assert report is not None and {f.kind for f in report.findings} == set(KINDS)
        status = plain(app.screen.query_one("#status-bar", Static))
        assert f"{report.problems} memory problems — press 8" in status
        await pilot.press("8")
        await settle(pilot)
        pane = app.screen.query_one("#health-pane")
        severities = [f.severity for f in pane.findings]
        assert severities == sorted(severities, key=("problem", "warning", "info").index)
        assert pane.query_one("#health-list", OptionList).option_count == len(report.findings)
        assert "4 problems" in plain(pane.query_one("#health-heading"))


async def test_two_facts_side_by_side_with_the_differing_words_marked(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        finding = await open_health(pilot, "subject-conflict")
        text = plain(app.screen.query_one("#health-detail", Static))
        assert "project/release-branch-august.md" in text and "project/release-branch.md" in text
        assert "current" in text and "superseded" in text
        table = app.screen.query_one("#health-detail", Static).content.renderables[1]
        body_row = [d for d in table.columns[1].cells if "2026.08" in str(d)]
        assert body_row and any("reverse" in str(s.style) for s in body_row[0].spans)
        assert finding.fix("archive").fact_id == store(demo).get("project/release-branch.md").id


async def test_archive_the_replaced_fact_then_undo(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        finding = await open_health(pilot, "topic-supersession", "Errors go to Sentry")
        old, current = finding.facts[1], finding.facts[0]
        await pilot.press("a")
        await settle(pilot)
        assert finished(messages, "archive").ok
        assert store(demo).find_by_id(old.id) is None and store(demo).find_by_id(current.id) is not None
        assert ("forget", "context-center", old.ref) in audit_ops(demo)
        assert finding.key not in {f.key for f in app.health.findings}
        await pilot.press("U")
        await settle(pilot)
        assert finished(messages, "undo").ok and store(demo).find_by_id(old.id) is not None
        assert finding.key in {f.key for f in app.health.findings}


async def test_merge_opens_the_form_prefilled_and_archives_the_other_on_save(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        finding = await open_health(pilot, "near-duplicate")
        keep, other = finding.facts[0], finding.facts[1]
        await pilot.press("m")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, FactFormScreen)
        values = form.collect()
        assert "Before every commit, run `make check`" in values.body
        assert "in that order" in values.body  # the other fact's paragraph, merged in
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert finished(messages, "merge").ok
        merged = store(demo).get(keep.id)
        assert "in that order" in merged.body and other.id in merged.supersedes
        assert store(demo).find_by_id(other.id) is None
        assert ("forget", "context-center", other.ref) in audit_ops(demo)


async def test_merge_cancelled_writes_nothing(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        finding = await open_health(pilot, "near-duplicate")
        before = [store(demo).get(r.id).revision for r in finding.facts]
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert [store(demo).get(r.id).revision for r in finding.facts] == before


async def test_verify_a_stale_fact(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonix_tui.core.health import HealthChecker

    app = make(demo)
    messages: list[Any] = []
    scanned: list[str] = []
    real_scan = HealthChecker.scan
    monkeypatch.setattr(HealthChecker, "scan", lambda self, f: scanned.append(f.ref) or real_scan(self, f))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        finding = await open_health(pilot, "stale", "Editor is Helix")
        scanned.clear()
        await pilot.press("v")
        await settle(pilot)
        assert finished(messages, "verify").ok
        fact = store(demo).get(finding.facts[0].id)
        assert fact.last_verified_at is not None and fact.revision == finding.facts[0].revision + 1
        assert ("verify", "context-center", fact.ref) in list(audit_ops(demo))
        assert not [f for f in app.health.findings if f.kind == "stale" and f.facts[0].id == fact.id]
        assert set(scanned) <= {fact.ref}  # after one write, at most the written fact is scanned again


async def test_unpin_a_pinned_fact_nobody_asks_about_then_undo(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        finding = await open_health(pilot, "pinned-unused", "Commit message style")
        await pilot.press("p")
        await settle(pilot)
        assert finished(messages, "unpin").ok
        assert not store(demo).get(finding.facts[0].id).pinned
        await pilot.press("U")
        await settle(pilot)
        assert store(demo).get(finding.facts[0].id).pinned


async def test_open_in_the_editor(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make(demo)
    messages: list[Any] = []

    def fake_editor(argv: list[str], check: bool = False) -> None:
        path = Path(argv[-1])
        path.write_text(path.read_text(encoding="utf-8").replace("This week: Dana", "This week: Sam"), encoding="utf-8")

    monkeypatch.setenv("EDITOR", "fake-editor")
    monkeypatch.setattr("reasonix_tui.tui.app_edits.subprocess.run", fake_editor)
    monkeypatch.setattr(type(app), "suspend", lambda self: contextlib.nullcontext())
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        finding = await open_health(pilot, "ending-soon")
        await pilot.press("E")
        await settle(pilot)
        assert finished(messages, "edit").ok
        assert "This week: Sam" in store(demo).get(finding.facts[0].id).body


async def test_dismiss_for_good_then_undo(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        finding = await open_health(pilot, "often-recalled")
        await pilot.press("d")
        await settle(pilot)
        assert finished(messages, "dismiss").ok
        assert finding.fingerprint in Dismissals(demo).fingerprints()
        assert finding.key not in {f.key for f in app.health.findings}
        assert finding.fingerprint in {f.fingerprint for f in app.health.dismissed}
        assert ("health-dismiss", "context-center", finding.facts[0].ref) in audit_ops(demo)
        await pilot.press("U")
        await settle(pilot)
        assert finding.fingerprint not in Dismissals(demo).fingerprints()
        assert finding.key in {f.key for f in app.health.findings}


async def test_a_fix_on_a_fact_changed_since_is_refused(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        finding = await open_health(pilot, "topic-supersession", "Errors go to Sentry")
        old = finding.facts[1]
        store(demo).verify(old.id)  # someone else changes it; the pane still shows the old finding
        pane = app.screen.query_one("#health-pane")
        pane.post_message(HealthFixRequested(finding, "archive"))
        await settle(pilot)
        assert not finished(messages, "archive").ok
        assert store(demo).find_by_id(old.id) is not None


async def test_keys_of_fixes_a_finding_does_not_offer_are_disabled(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await open_health(pilot, "unreadable")
        pane = app.screen.query_one("#health-pane")
        assert pane.check_action("fix", ("archive",)) is None and pane.check_action("fix", ("merge",)) is None
        assert pane.check_action("fix", ("edit",)) and pane.check_action("fix", ("dismiss",))
        await pilot.press("a")  # nothing happens
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_the_status_line_fits_80_columns_with_the_count_and_the_pinned_budget(demo: Layout) -> None:
    """At 80 columns the status line takes its short forms instead of cutting the pinned
    budget off; widened again, it shows the full forms (it follows a resize)."""
    app = make(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one("#status-bar", Static)
        status = plain(bar)
        assert "4 problems (8)" in status and "pinned 1,219/1,500" in status
        assert len(status) <= 78  # the bar's width inside its padding: nothing is cut
        await pilot.resize_terminal(160, 30)
        await settle(pilot)
        status = plain(bar)
        assert "4 memory problems — press 8" in status and "pinned 1,219/1,500 chars" in status
        assert status.endswith("watching")


async def test_the_pane_never_blocks_the_ui_while_memory_health_runs(
    demo: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A health run held in its worker thread (as a slow 10k check would be): the pane
    says it is checking, keys switch panes and move the cursor, and the findings land
    when the run ends."""
    import asyncio

    started, release = hold_health_runs(monkeypatch)
    app = make(demo)
    try:
        async with app.run_test(size=SIZE) as pilot:

            async def until(ok: Any) -> bool:
                for _ in range(1500):  # bounded (30 s of pauses): a busy CI machine is slow, never stuck
                    if ok():
                        return True
                    await pilot.pause(0.02)
                return bool(ok())

            # the app's loop keeps running while this waits in a thread
            assert await asyncio.to_thread(started.wait, 60) and app.health is None
            assert any(w.group == "health" and w.is_running for w in app.workers)
            # the start is done (the first load and its follow-ups), only the held run is left
            assert await until(lambda: all(w.group == "health" or not w.is_running for w in app.workers))
            await pilot.pause()
            await pilot.press("8")
            screen = app.screen
            assert isinstance(screen, MainScreen)
            assert await until(lambda: screen.active_pane == "health")
            assert await until(lambda: "Checking memory" in plain(screen.query_one("#health-heading")))
            await pilot.press("1")
            assert await until(lambda: screen.active_pane == "facts")  # the UI answered while the run is held
            assert any(w.group == "health" and w.is_running for w in app.workers)
            release.set()
            await settle(pilot)
            assert app.health is not None and app.health.findings
            await pilot.press("8")
            await settle(pilot)
            assert len(screen.query_one("#health-pane").findings) == len(app.health.findings)
    finally:
        release.set()


async def test_a_second_start_shows_the_last_report_at_once_while_its_checks_run(
    demo: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Context Center's first health run answers from the last full run's report when
    nothing changed: a second start shows the same findings while its own run (from the
    saved state, for later writes) is still held in the worker, and keeps them after."""
    import asyncio
    import os

    from reasonix_tui.core.compat.gotime import Timestamp
    from reasonix_tui.core.health.quick import quick_path
    from reasonix_tui.tui.app import make_app

    from .helpers import NOW, settings

    later = Timestamp(NOW.ns + 3_600 * 10**9)  # the demo's ages are whole days at NOW: a boundary
    first = make_app(demo, settings(), watch=False, clock=lambda: later)
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = first.health
    assert shown is not None and shown.findings and os.path.exists(quick_path(demo))

    started, release = hold_health_runs(monkeypatch)
    second = make_app(demo, settings(), watch=False, clock=lambda: later)
    try:
        async with second.run_test(size=SIZE) as pilot:
            assert await asyncio.to_thread(started.wait, 60)
            for _ in range(1500):  # bounded (30 s of pauses)
                if second.health is not None:
                    break
                await pilot.pause(0.02)
            assert second.health is not None and second.health.findings == shown.findings
            assert any(w.group == "health" and w.is_running for w in second.workers)  # still held
            release.set()
            await settle(pilot)
            assert second.health.findings == shown.findings
            assert second.health.dismissed == shown.dismissed
    finally:
        release.set()

"""A big store's first start: the facts table comes first; the language resources, the
resolver and memory health start only once it is on screen."""

from __future__ import annotations

from typing import Any

import pytest

from reasonix_tui.core import lang
from reasonix_tui.core.paths import Layout
from reasonix_tui.tui import app as app_module
from reasonix_tui.tui.widgets.facts_table import FactsTable

from .helpers import SIZE, make, settle


async def _settle_until_health(app: Any, pilot: Any) -> None:
    """Let the app run until its memory-health report is there (at most 20 settles)."""
    for _ in range(20):
        await settle(pilot)
        if app.health is not None:
            return


async def test_a_big_first_start_shows_the_table_before_its_background_work(
    demo: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    warmed: list[int] = []
    monkeypatch.setattr(lang, "warm", lambda *a, **k: warmed.append(1))
    monkeypatch.setattr(app_module, "BIG_STORE_ROWS", 2)  # the demo store counts as big
    monkeypatch.setattr(app_module, "BACKGROUND_AFTER_S", 3600.0)  # never within the test
    app: Any = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#facts-table", FactsTable)
        assert app.complete and table.row_count > 2
        assert not warmed and app.health is None  # nothing of it started yet
        assert not any(w.group in ("health", "resolve") for w in app.workers)
        app._start_background()  # what the timer runs
        await _settle_until_health(app, pilot)
        assert warmed and app.health is not None


async def test_a_small_first_start_starts_it_at_once(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    warmed: list[int] = []
    monkeypatch.setattr(lang, "warm", lambda *a, **k: warmed.append(1))
    app: Any = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await _settle_until_health(app, pilot)
        assert warmed and app.health is not None


async def test_a_big_store_checks_memory_health_only_when_asked(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Label

    monkeypatch.setattr(lang, "warm", lambda *a, **k: None)
    monkeypatch.setattr(app_module, "HEALTH_AUTO_FACTS", 2)  # the demo store counts as big
    app: Any = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app._start_background()  # what a big start's timer runs; a small start did it already
        app.post_message(app_module.SidecarsReloaded(recall=True))  # a trace written: would re-check
        await settle(pilot)
        assert app.complete and app.health is None
        assert not any(w.group == "health" for w in app.workers)
        assert "only when asked" in app.health_deferred and f"has {len(app.snapshot.facts):,})" in app.health_deferred
        app.action_show_pane("health")
        await settle(pilot)
        heading = app.screen.query_one("#health-heading", Label)
        assert "Press ctrl+r to check now" in str(heading.render())
        await pilot.press("ctrl+r")
        await _settle_until_health(app, pilot)
        assert app.health is not None and app.health_deferred == ""
        assert "only when asked" not in str(heading.render())

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
        for _ in range(20):
            await settle(pilot)
            if app.health is not None:
                break
        assert warmed and app.health is not None


async def test_a_small_first_start_starts_it_at_once(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    warmed: list[int] = []
    monkeypatch.setattr(lang, "warm", lambda *a, **k: warmed.append(1))
    app: Any = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(20):
            await settle(pilot)
            if app.health is not None:
                break
        assert warmed and app.health is not None

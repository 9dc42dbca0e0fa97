"""The facts table's default order is worked out by the reload worker, not on the UI thread."""

from __future__ import annotations

from typing import Any

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.tui.model.loader import load_snapshot
from reasonix_tui.tui.model.rows import ErrorRow
from reasonix_tui.tui.model.snapshot import Changes, default_order, with_order
from reasonix_tui.tui.widgets.facts_table import FactsTable

from .helpers import NOW, SIZE, facts_table_app, make, settings, settle


def _rows_with_ties_and_errors(demo: Layout) -> dict[str, Any]:
    rows = dict(load_snapshot(demo, settings(), NOW).rows)
    keys = sorted(k for k in rows if not rows[k].error)
    rows[keys[0]] = rows[keys[0]]._replace(title="same TITLE")
    rows[keys[1]] = rows[keys[1]]._replace(title="Same title")
    for path in ("/x/b.md", "/x/a.md"):
        err = ErrorRow(path=path, message="cannot read", scope="project").row()
        rows[err.key] = err
    return rows


async def test_the_worker_order_is_the_tables_own_and_is_used_as_given(demo: Layout) -> None:
    rows = _rows_with_ties_and_errors(demo)

    app = facts_table_app()
    async with app.run_test(size=(120, 30)):
        table = app.query_one(FactsTable)
        table.set_rows(rows, None)
        own = list(table.order)
        word = rows[own[-1]].title.split()[0]
        table.set_filter(word)
        filtered = list(table.order)
        table.set_filter("")
        table.sort_by("title", reverse=True)
        descending = list(table.order)
        table.sort_by("title", reverse=False)
        assert list(default_order(rows)) == own
        assert [rows[k].error != "" for k in own[:2]] == [True, True]
        # Given an order, the table takes it as is (no sort of its own): a reversed one shows it.
        given = tuple(reversed(own))
        table.set_rows(rows, None, given)
        assert table.order == list(given)
        # Any other view sorts by itself; back to the default view, the given order again.
        table.set_filter(word)
        assert table.order == filtered and 0 < len(filtered) < len(own)
        table.set_filter("")
        assert table.order == list(given)
        table.sort_by("title", reverse=True)
        assert table.order == descending
        table.sort_by("title", reverse=False)
        assert table.order == list(given)
        # New rows without an order: the table sorts them itself again.
        table.set_rows(rows, None)
        assert table.order == own


def test_with_order_only_for_a_big_change(demo: Layout) -> None:
    snap = load_snapshot(demo, settings(), NOW)
    assert with_order(snap).order == default_order(snap.rows)
    assert with_order(snap, Changes(full=True)).order is not None
    small = Changes(changed=frozenset(list(snap.rows)[:2]))
    assert with_order(snap, small) is snap


async def test_the_first_load_reaches_the_table_sorted(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    sorted_on_ui: list[int] = []
    real = FactsTable._rebuild

    def spy(self: FactsTable, keep: str | None) -> None:
        if self._presorted is None:
            sorted_on_ui.append(1)
        real(self, keep)

    monkeypatch.setattr(FactsTable, "_rebuild", spy)
    app: Any = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#facts-table", FactsTable)
        assert app.complete and app.snapshot.order is not None
        assert table.order == list(app.snapshot.order)
        assert not sorted_on_ui

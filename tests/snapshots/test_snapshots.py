"""Snapshot tests (pytest-textual-snapshot): every pane, the approval modal, the empty
store, a narrow terminal. Sync tests: ``snap_compare`` runs the app itself.

Update with ``pytest tests/snapshots --snapshot-update`` after looking at
``snapshot_report.html``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ui.helpers import SIZE, make, settle

from reasonix_tui.core.paths import Layout


def before(*steps: Any) -> Callable[[Any], Any]:
    """A ``run_before`` that settles, then runs each step (a key string or an async callable)."""

    async def run(pilot: Any) -> None:
        await settle(pilot)
        for step in steps:
            if isinstance(step, str):
                await pilot.press(step)
            else:
                await step(pilot)
            await settle(pilot)
        await pilot.pause(0.2)
        await settle(pilot)

    return run


def goto(ref: str) -> Callable[[Any], Any]:
    """A step putting the facts cursor on ``ref``."""

    async def step(pilot: Any) -> None:
        app = pilot.app
        fact = app.snapshot.find(ref)
        app.screen.query_one("#facts-table").move_to_key(str(fact.id))
        await pilot.pause(0.15)

    return step


def test_facts_pane(snap_compare: Any, snap_demo: Layout) -> None:
    assert snap_compare(make(snap_demo), run_before=before(goto("global/deploy-target-global.md")), terminal_size=SIZE)


def test_facts_pane_filtered(snap_compare: Any, snap_demo: Layout) -> None:
    async def filt(pilot: Any) -> None:
        await pilot.press("slash", *"pinned", "enter")

    assert snap_compare(make(snap_demo), run_before=before(filt), terminal_size=SIZE)


def test_revisions_pane(snap_compare: Any, snap_demo: Layout) -> None:
    assert snap_compare(make(snap_demo), run_before=before(goto("project/deploy-target.md"), "2"), terminal_size=SIZE)


def test_archive_pane(snap_compare: Any, snap_demo: Layout) -> None:
    assert snap_compare(make(snap_demo), run_before=before("3"), terminal_size=SIZE)


def test_instructions_pane(snap_compare: Any, snap_demo: Layout) -> None:
    async def target(pilot: Any) -> None:
        await pilot.press("t", *"services/billing", "enter")

    assert snap_compare(make(snap_demo), run_before=before("4", target), terminal_size=SIZE)


def test_recall_pane(snap_compare: Any, snap_demo: Layout, fixed_sidecars: None) -> None:
    assert snap_compare(make(snap_demo), run_before=before("5"), terminal_size=SIZE)


def test_suggestions_pane(snap_compare: Any, snap_demo: Layout, fixed_sidecars: None) -> None:
    assert snap_compare(make(snap_demo), run_before=before("6"), terminal_size=SIZE)


def test_activity_pane(snap_compare: Any, snap_demo: Layout) -> None:
    assert snap_compare(make(snap_demo), run_before=before("7"), terminal_size=SIZE)


def test_approval_modal(snap_compare: Any, snap_demo_approval: Layout) -> None:
    assert snap_compare(make(snap_demo_approval), run_before=before(), terminal_size=SIZE)


def test_fact_form(snap_compare: Any, snap_demo: Layout) -> None:
    assert snap_compare(make(snap_demo), run_before=before(goto("project/oncall-rota.md"), "e"), terminal_size=SIZE)


def test_help(snap_compare: Any, snap_demo: Layout) -> None:
    assert snap_compare(make(snap_demo), run_before=before("f1"), terminal_size=SIZE)


def test_empty_store(snap_compare: Any, snap_empty: Layout) -> None:
    assert snap_compare(make(snap_empty), run_before=before(), terminal_size=SIZE)


def test_narrow_terminal(snap_compare: Any, snap_demo: Layout) -> None:
    assert snap_compare(make(snap_demo), run_before=before(goto("project/package-manager.md")), terminal_size=(80, 24))


def test_approval_modal_80x24(snap_compare: Any, snap_demo_approval: Layout) -> None:
    """At 80x24 the four buttons fit and the agent's side is on screen."""
    assert snap_compare(make(snap_demo_approval), run_before=before(), terminal_size=(80, 24))


def test_recall_pane_80x24(snap_compare: Any, snap_demo: Layout, fixed_sidecars: None) -> None:
    """At 80x24 the hits table fits (ref, score, fresh, reason)."""
    assert snap_compare(make(snap_demo), run_before=before("5"), terminal_size=(80, 24))


def test_health_pane(snap_compare: Any, snap_demo: Layout) -> None:
    """Findings by severity; the first (two facts on one subject) side by side."""
    assert snap_compare(make(snap_demo), run_before=before("8"), terminal_size=SIZE)


def test_health_pane_80x24(snap_compare: Any, snap_demo: Layout) -> None:
    """At 80x24 the list, the evidence and the fix keys in the footer fit."""
    assert snap_compare(make(snap_demo), run_before=before("8"), terminal_size=(80, 24))

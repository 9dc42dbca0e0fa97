"""Everyday keys and screen details (issue 10, point 7) and keys people can change (point 8)."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.notifications import Notify
from textual.widgets import DataTable, Input, Markdown, OptionList, Static

from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import Settings, load_settings
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.tui.screens.approval import ApprovalScreen
from reasonix_tui.tui.screens.help import HelpScreen
from reasonix_tui.tui.screens.main import MainScreen

from .helpers import NOW, SIZE, make, plain, settings, settle, store
from .test_approvals import NEW_FACT, notify_queue, propose, result_of


async def test_q_quits_outside_a_text_box_and_question_mark_opens_help(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("q")  # closes the help, does not quit
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and app.is_running
        await pilot.press("slash", "q")  # typed into the filter
        await settle(pilot)
        assert app.screen.query_one("#facts-filter", Input).value == "q" and app.is_running
        await pilot.press("escape", "q")
        await settle(pilot)
        assert not app.is_running


async def test_escape_leaves_every_input_and_clears_a_filter(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"deploy")
        await pilot.pause(0.2)
        table = app.screen.query_one("#facts-table")
        assert table.row_count < len(app.snapshot.rows)
        await pilot.press("escape")  # leaves the box, the filter stays
        await settle(pilot)
        assert app.focused is table and table.filter_text == "deploy"
        await pilot.press("escape")  # on the table: clears it
        await settle(pilot)
        assert table.filter_text == "" and app.screen.query_one("#facts-filter", Input).value == ""
        # The Recall query box and the Activity filter too.
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("slash", *"tests")
        assert isinstance(app.focused, Input)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.focused, OptionList)
        await pilot.press("7")
        await settle(pilot)
        await pilot.press("slash", *"pin")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.focused, DataTable)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one("#activity-filter", Input).value == ""


def _line(table: Any, key: str) -> str:
    index = table.index_of(key)
    strip = table.render_line(index + 1 - int(table.scroll_y))
    return "".join(segment.text for segment in strip)


async def test_relative_ages_move_while_the_app_is_open(demo: Layout) -> None:
    now = [NOW]
    from reasonix_tui.tui.app import make_app

    app = make_app(demo, settings(), watch=False, clock=lambda: now[0])
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        fact = store(demo).save(SaveRequest(name="fresh-one", description="d", body="b", type="project")).fact
        app.reload_store([fact.path])
        await settle(pilot)
        table = app.screen.query_one("#facts-table")
        key = str(fact.id)
        now[0] = Timestamp(fact.updated_at.ns + 30 * 10**9)
        app._tick()
        await settle(pilot)
        assert re.search(r"\bnow\s*$", _line(table, key).rstrip())
        now[0] = Timestamp(fact.updated_at.ns + 5 * 60 * 10**9)
        app._tick()
        await settle(pilot)
        assert re.search(r"\b5m\s*$", _line(table, key).rstrip()), _line(table, key)


async def test_archive_and_activity_details(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # A forget proposal denied: the message says nothing was archived, not "saved",
        # and the Activity line names the proposal and says "denied".
        proposal = propose(demo, "forget", {"ref": "project/release-branch.md"})
        await notify_queue(pilot)
        await pilot.press("n")
        await settle(pilot)
        result = result_of(demo, proposal)
        assert result.state == "denied" and "nothing was archived" in result.message and "saved" not in result.message
        await pilot.press("7")
        await settle(pilot)
        pane = app.screen.query_one("#activity-pane")
        table = pane.query_one("#activity-table", DataTable)
        rows = [
            [str(c.plain if isinstance(c, Text) else c) for c in table.get_row_at(i)] for i in range(table.row_count)
        ]
        denied = next(r for r in rows if r[2] == "approval")
        assert denied[3] == "denied" and denied[4] == f"forget proposal {proposal.id}"
        assert all(r[4] for r in rows), "an entry with an empty Ref"
        assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(", rows[0][0])
        # Archive: a fact forgotten just now says "just now", never "(now ago)".
        store(demo).archive("project/oncall-rota.md")
        app.reload_store()
        await pilot.press("3")
        await settle(pilot)
        meta = plain(app.screen.query_one("#archive-meta", Static))
        assert "now ago" not in meta


async def test_the_dialog_diff_hides_noise_and_times_are_human(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        target = store(demo).get("project/deploy-target.md")
        propose(
            demo,
            "remember",
            {
                "name": "deploy-target",
                "description": target.description,
                "type": "project",
                "body": "Deploy to Fly.io in ams and iad.",
            },
        )
        await notify_queue(pilot)
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        body = plain(screen.query_one("#approval-body", Static))
        assert "+Deploy to Fly.io in ams and iad." in body
        assert not re.search(r"^[-+]?(revision|updated_at):", body, re.M)
        await pilot.press("f")
        await settle(pilot)
        body = plain(screen.query_one("#approval-body", Static))
        assert f"-revision: {target.revision}" in body and f"+revision: {target.revision + 1}" in body
        assert re.search(r"^-updated_at:", body, re.M)
        status = plain(screen.query_one("#approval-status", Static))
        assert re.search(r"proposed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(", status)
        assert not re.search(r"T\d\d:\d\d:\d\d\.\d+Z", status)


async def test_notifications_never_cover_the_dialog_buttons(demo: Layout) -> None:
    from textual.widgets._toast import Toast

    app = make(demo)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        propose(demo, "remember", NEW_FACT)
        await notify_queue(pilot)
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        for i in range(3):
            app.notify(f"A long notification number {i} that wraps over several lines of the toast", timeout=30)
        await settle(pilot)
        toasts = [t.region for t in screen.query(Toast)]
        assert toasts
        for button in screen.query("#approval-buttons Button"):
            assert button.region.width and button.region.x + button.region.width <= 80
            for region in toasts:
                assert not region.overlaps(button.region), (region, button.region)


async def test_a_keymap_changes_keys_and_help_shows_them(demo: Layout, tmp_path: Any) -> None:
    custom = Settings(
        pinned_budget_chars=1500,
        time_zone="utc",
        keymap=(("approval-approve", "Y"), ("app-reload", "f5"), ("no-such-binding", "z")),
    )
    messages: list[Any] = []
    app = make(demo, settings=custom)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        toasts = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert any("no-such-binding" in t for t in toasts)
        await pilot.press("f1")
        await settle(pilot)
        text = app.screen.query_one("#help-text", Markdown).source
        assert "| `Y` | Approve | `approval-approve` |" in text
        assert "`f5` | Reload" in text
        await pilot.press("escape")
        await settle(pilot)
        proposal = propose(demo, "remember", NEW_FACT)
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen) and result_of(demo, proposal) is None
        await pilot.press("Y")
        await settle(pilot)
        assert result_of(demo, proposal).state == "approved"


def test_keymap_and_time_zone_settings(tmp_path: Any) -> None:
    root = tmp_path / "root"
    (root / "reasonix-tui").mkdir(parents=True)
    (root / "reasonix-tui" / "settings.toml").write_text(
        '[display]\ntime_zone = "UTC"\n[keymap]\napproval-approve = "Y, ctrl+y"\nfacts-pin = 3\n'
    )
    s = load_settings(root, env={})
    assert s.time_zone == "utc"
    assert s.keymap == (("approval-approve", "Y,ctrl+y"),)
    assert any("keymap.facts-pin" in p for p in s.problems)

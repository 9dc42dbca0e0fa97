"""Pilot tests: the facts pane, its table, filter, sort, detail and every fact action."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static, TabbedContent

from reasonix_tui.core.paths import Layout
from reasonix_tui.tui.messages import PinRequested, WriteFinished
from reasonix_tui.tui.screens.dialogs import ConfirmScreen, QuickAddScreen
from reasonix_tui.tui.screens.fact_form import FactFormScreen
from reasonix_tui.tui.screens.main import MainScreen
from reasonix_tui.tui.widgets.facts_columns import column_layout
from reasonix_tui.tui.widgets.facts_table import FactsTable

from .helpers import SIZE, make, plain, settings, settle, store


def table_of(app: Any) -> FactsTable:
    return app.screen.query_one("#facts-table", FactsTable)


async def select(pilot: Any, ref: str) -> str:
    """Put the cursor on a fact and wait for the detail to follow."""
    app = pilot.app
    fact = app.snapshot.find(ref)
    assert fact is not None, ref
    assert table_of(app).move_to_key(str(fact.id))
    for _ in range(200):  # the detail follows the cursor after a short debounce
        await pilot.pause(0.02)
        if app.screen.selected_fact == str(fact.id):
            break
    await settle(pilot)
    assert app.screen.selected_fact == str(fact.id)
    return str(fact.id)


def posted(messages: list[Any], kind: type) -> list[Any]:
    """Messages of a kind, once each (a bubbling message is seen at every node)."""
    return list({id(m): m for m in messages if isinstance(m, kind)}.values())


def finished(messages: list[Any], action: str) -> WriteFinished:
    [msg] = [m for m in posted(messages, WriteFinished) if m.action == action]
    return msg


async def test_start_shows_every_fact_and_error_rows(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        facts = store(demo).list_all()
        assert len(app.snapshot.facts) == len(facts) == 22
        assert table.row_count == len(app.snapshot.rows)
        # The broken file shows as an error row, sorted first.
        first = app.snapshot.rows[table.order[0]]
        assert first.is_error and "frontmatter" in first.error
        status = plain(app.screen.query_one("#status-bar", Static))
        assert "project" in status and "global" in status and "pinned" in status
        assert isinstance(app.screen, MainScreen)
        assert app.focused is table


async def test_number_keys_switch_panes_and_active_one_is_greyed(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tabs = app.screen.query_one("#tabs", TabbedContent)
        for key, pane in zip(
            "2345671", ("revisions", "archive", "instructions", "recall", "suggestions", "activity", "facts")
        ):
            await pilot.press(key)
            await settle(pilot)
            assert tabs.active == pane
            assert app.screen.active_pane == pane
            assert app.check_action("show_pane", (pane,)) is None
        await pilot.press("f1")
        await pilot.pause()
        from reasonix_tui.tui.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_filter_search_and_sort(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        total = table.row_count
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"deploy", "enter")
        await settle(pilot)
        assert 0 < table.row_count < total
        assert all("deploy" in app.snapshot.rows[k].search for k in table.order)
        assert app.focused is table
        table.set_filter("scope:global pinned")
        assert table.order and all(
            app.snapshot.rows[k].scope == "global" and app.snapshot.rows[k].activation == "pinned" for k in table.order
        )
        table.set_filter("fresh:stale")
        assert table.order and all(app.snapshot.rows[k].freshness == "stale" for k in table.order)
        table.set_filter("")
        assert table.row_count == total
        await pilot.press("s")
        assert table.sort_column == "ref"
        keys = [app.snapshot.rows[k].ref.lower() for k in table.order if not app.snapshot.rows[k].is_error]
        assert keys == sorted(keys)
        await pilot.press("S")
        assert table.sort_reverse
        keys = [app.snapshot.rows[k].ref.lower() for k in table.order if not app.snapshot.rows[k].is_error]
        assert keys == sorted(keys, reverse=True)


async def test_detail_explains_freshness_override_and_subject(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "global/deploy-target-global.md")
        meta = plain(app.screen.query_one("#fact-meta", Static))
        assert "stale" in meta and "windows" in meta
        assert "suppressed by project fact project/deploy-target.md" in meta
        await select(pilot, "project/deploy-target.md")
        meta = plain(app.screen.query_one("#fact-meta", Static))
        assert "overrides global fact global/deploy-target-global.md" in meta
        assert "project.deploy_target" in meta and "held by this fact" in meta
        await select(pilot, "global/prefers-short-answers.md")
        meta = plain(app.screen.query_one("#fact-meta", Static))
        assert "legacy rule" in meta  # global user fact with no activation resolves pinned


async def test_detail_labels_a_fact_a_newer_one_supersedes(demo: Layout) -> None:
    from reasonix_tui.core.store.requests import SaveRequest

    store(demo).save(
        SaveRequest(
            name="mobile-ci",
            title="Mobile CI",
            type="project",
            description="Bitrise",
            body="Bitrise builds every PR of the mobile apps.",
        )
    )
    store(demo).save(
        SaveRequest(
            name="mobile-ci-actions",
            title="Mobile CI on GitHub Actions",
            type="project",
            description="GitHub Actions macOS runners",
            body="Mobile PR builds run on GitHub Actions now; Bitrise was turned off in June.",
        )
    )
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "project/mobile-ci-actions.md")
        assert "superseded" not in plain(app.screen.query_one("#fact-meta", Static))
        await select(pilot, "project/mobile-ci.md")
        meta = plain(app.screen.query_one("#fact-meta", Static))
        assert "superseded by" in meta and "project/mobile-ci-actions.md" in meta and "bitrise" in meta.lower()


async def test_pin_and_unpin(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        fact_id = await select(pilot, "project/api-style-guide.md")
        await pilot.press("p")
        await settle(pilot)
        [request] = posted(messages, PinRequested)
        assert request.pin and request.fact_id == fact_id
        assert finished(messages, "pin").ok
        assert app.snapshot.facts[fact_id].pinned
        assert store(demo).get(fact_id).activation == "pinned"
        assert table_of(app).cursor_key == fact_id
        await pilot.press("p")
        await settle(pilot)
        assert finished(messages, "unpin").ok
        assert not app.snapshot.facts[fact_id].pinned


async def test_pin_over_budget_is_refused_and_explained(demo: Layout) -> None:
    from reasonix_tui.core.settings import Settings

    app = make(demo, settings=Settings(pinned_budget_chars=450, pinned_budget_configured=True))
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        fact_id = await select(pilot, "project/feature-flag-cleanup.md")
        meta = plain(app.screen.query_one("#fact-meta", Static))
        assert "over budget: it would be refused" in meta
        await pilot.press("p")
        await settle(pilot)
        result = finished(messages, "pin")
        assert not result.ok
        assert "over the 450 budget" in result.text and "unpin or consolidate" in result.text
        assert not app.snapshot.facts[fact_id].pinned


async def test_verify_renews_freshness(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        fact_id = await select(pilot, "project/feature-flag-cleanup.md")
        assert app.snapshot.rows[fact_id].freshness == "stale"
        await pilot.press("v")
        await settle(pilot)
        assert finished(messages, "verify").ok
        assert store(demo).get(fact_id).last_verified_at is not None


async def test_new_fact_through_the_form(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, FactFormScreen)
        form.query_one("#form-title-input", Input).value = "Queue is Redis streams"
        form.query_one("#form-description", Input).value = "Background jobs use Redis streams"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, FactFormScreen)  # body missing: refused in the form
        assert "Required: body" in plain(form.query_one("#form-error", Static))
        from textual.widgets import TextArea

        form.query_one("#form-body", TextArea).text = "Jobs go through `XADD jobs`."
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert finished(messages, "new").ok
        fact = store(demo).get("queue-is-redis-streams")
        assert fact.description == "Background jobs use Redis streams" and fact.scope == "project"
        assert table_of(app).cursor_key == str(fact.id)


async def test_edit_saves_a_new_revision(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        fact_id = await select(pilot, "project/oncall-rota.md")
        before = app.snapshot.facts[fact_id].revision
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, FactFormScreen)
        form.query_one("#form-description", Input).value = "Who is on call (updated)"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert finished(messages, "edit").ok
        fact = store(demo).get(fact_id)
        assert fact.revision == before + 1 and fact.description == "Who is on call (updated)"


async def test_edit_is_safe_against_a_concurrent_write(demo: Layout) -> None:
    from reasonix_tui.core.store.requests import SaveRequest

    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        fact_id = await select(pilot, "project/oncall-rota.md")
        await pilot.press("e")
        await pilot.pause()
        # Someone else writes a new revision while the form is open.
        outside = store(demo)
        current = outside.get(fact_id)
        outside.save(SaveRequest.from_fact(current, description="changed elsewhere"))
        app.screen.query_one("#form-description", Input).value = "my edit"
        await pilot.press("ctrl+s")
        await settle(pilot)
        result = finished(messages, "edit")
        assert not result.ok and "revision conflict" in result.text
        assert store(demo).get(fact_id).description == "changed elsewhere"


async def test_edit_in_editor(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make(demo)
    messages: list[Any] = []

    def fake_editor(argv: list[str], check: bool = False) -> None:
        path = Path(argv[-1])
        path.write_text(path.read_text(encoding="utf-8").replace("Dana (primary)", "Sam (primary)"), encoding="utf-8")

    monkeypatch.setenv("EDITOR", "fake-editor")
    monkeypatch.setattr("reasonix_tui.tui.app_edits.subprocess.run", fake_editor)
    monkeypatch.setattr(type(app), "suspend", lambda self: contextlib.nullcontext())
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        fact_id = await select(pilot, "project/oncall-rota.md")
        await pilot.press("E")
        await settle(pilot)
        assert finished(messages, "edit").ok
        assert "Sam (primary)" in store(demo).get(fact_id).body


async def test_forget_asks_first(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        fact_id = await select(pilot, "project/oncall-rota.md")
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert store(demo).find(fact_id) is not None
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert finished(messages, "forget").ok
        assert store(demo).find(fact_id) is None
        assert fact_id not in app.snapshot.facts
        assert any(a.fact.id == fact_id for a in app.snapshot.archived)


async def test_quick_add_note(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("number_sign")
        await pilot.pause()
        assert isinstance(app.screen, QuickAddScreen)
        await pilot.press(*"Run ruff before committing", "enter")
        await settle(pilot)
        assert finished(messages, "note").ok
        text = (demo.workspace / "AGENTS.md").read_text(encoding="utf-8")
        assert "- Run ruff before committing" in text
        assert text.index("- Keep handlers thin.") < text.index("- Run ruff before committing")


async def test_copy_ref(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "project/oncall-rota.md")
        await pilot.press("c")
        await pilot.pause()
        assert app.clipboard == "project/oncall-rota.md"


async def test_actions_are_greyed_without_a_fact(tmp_path: Path) -> None:
    layout = Layout.resolve(home=tmp_path / "empty", workspace=tmp_path / "ws")
    app = make(layout)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.screen.query_one("#facts-pane")
        assert table_of(app).row_count == 0
        assert pane.check_action("pin", ()) is None
        assert pane.check_action("new", ()) is True


async def test_palette_jumps_to_a_fact(demo: Layout) -> None:
    from reasonix_tui.tui.messages import ShowFactRequested

    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        app.screen.post_message(ShowFactRequested("project/release-branch.md"))
        await settle(pilot)
        assert app.screen.active_pane == "facts"
        assert app.snapshot.facts[table_of(app).cursor_key].name == "release-branch"


async def test_settings_budget_is_shown(demo: Layout) -> None:
    app = make(demo, settings=settings())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        status = plain(app.screen.query_one("#status-bar", Static))
        assert "/1,500" in status


async def test_every_pane_action_is_in_the_palette(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for expected in (
            "facts: pin / unpin",
            "facts: verify",
            "facts: new fact",
            "facts: edit",
            "facts: edit in $EDITOR",
            "facts: forget",
            "instructions: quick-add note",
            "facts: copy ref",
            "revisions: restore the highlighted revision",
            "archive: recover the highlighted fact",
            "recall: try a query",
            "suggestions: accept (edit first)",
            "suggestions: dismiss",
            "approvals: review pending",
            "view: Revisions",
            "store: reload",
        ):
            assert expected in titles, expected
        # A pane action from the palette mounts its pane first.
        app.screen.run_pane_action("instructions", "show_block")
        for _ in range(300):
            await pilot.pause(0.02)
            view = app.screen.query("#instructions-view")
            if view and "Provider-visible block" in plain(view.first()):
                break
        await settle(pilot)
        assert app.screen.active_pane == "instructions"
        assert "Provider-visible block" in plain(app.screen.query_one("#instructions-view", Static))


async def test_detail_can_be_hidden_for_every_column(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        narrow = [c.key for c, _ in column_layout(table.scrollable_content_region.width)]
        await pilot.press("d")
        await settle(pilot)
        wide = [c.key for c, _ in column_layout(table.scrollable_content_region.width)]
        assert "subject" not in narrow and "subject" in wide and "ref" in wide


async def test_escape_leaves_the_filter_box(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"stale")
        await pilot.pause(0.3)
        assert isinstance(app.focused, Input) and app.focused.value == "stale"
        await pilot.press("escape")
        await pilot.pause(0.3)
        table = table_of(app)
        assert app.focused is table
        assert table.filter_text == "stale" and all(app.snapshot.rows[k].freshness == "stale" for k in table.order)


async def test_table_has_the_keys_from_the_first_frame(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        # Before the rows arrive the table already holds the focus (not the tab strip, where
        # the first arrow key would switch panes)...
        assert isinstance(app.focused, FactsTable)
        await settle(pilot)
        table = table_of(app)
        assert app.focused is table and table.row_count > 2
        # ...so the first keys move the cursor.
        await pilot.press("down", "down")
        await settle(pilot)
        assert table.cursor_row == 2 and app.screen.active_pane == "facts"


async def test_mark_several_then_verify_or_forget_them_at_once(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        table = table_of(app)
        # Filter to the stale facts, mark every one shown, verify them all.
        await pilot.press("slash", *"stale", "enter")
        await settle(pilot)
        stale = list(table.order)
        assert len(stale) >= 2
        await pilot.press("asterisk")
        await settle(pilot)
        assert table.marked == set(stale)
        count = plain(app.screen.query_one("#facts-count", Static))
        assert f"{len(stale)} marked" in count
        assert "✓ " in "".join(str(s.text) for s in [table.render_line(1)])
        await pilot.press("v")
        await settle(pilot)
        result = finished(messages, "verify")
        assert result.ok and result.text.startswith(f"Verified {len(stale)} facts")
        assert table.marked == set()
        for key in stale:
            assert store(demo).get(key).last_verified_at is not None
        # Clear the filter; mark two with space (the cursor moves down each time) and forget them.
        await pilot.press("slash")
        app.screen.query_one("#facts-filter", Input).value = ""
        await pilot.press("enter")
        await settle(pilot)
        fact_id = await select(pilot, "project/oncall-rota.md")
        await pilot.press("space")
        second = table.cursor_key
        await pilot.press("space")
        await settle(pilot)
        assert table.marked == {fact_id, second}
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # cancelled: nothing forgotten, marks kept
        await settle(pilot)
        assert table.marked == {fact_id, second} and store(demo).find(fact_id) is not None
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert finished(messages, "forget").ok
        assert store(demo).find(fact_id) is None and store(demo).find(second) is None
        assert table.marked == set()  # the forgotten rows took their marks with them
        # u clears marks.
        await pilot.press("space")
        assert table.marked
        await pilot.press("u")
        assert not table.marked


def test_bulk_action_reports_each_refusal_and_carries_on(demo: Layout) -> None:
    from reasonix_tui.core.store.model import StoreError
    from reasonix_tui.tui import writes

    st = store(demo)
    ids = (str(st.get("project/oncall-rota.md").id), "mem-does-not-exist", str(st.get("project/test-command.md").id))
    out = writes.many(st, "verify", ids)
    assert out.text.startswith("Verified 2 facts; 1 refused: mem-does-not-exist:")
    assert len(out.paths) >= 2
    with pytest.raises(StoreError, match="Forgot none of 1"):
        writes.many(st, "forget", ("mem-does-not-exist",))

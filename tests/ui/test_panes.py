"""Pilot tests: Revisions, Archive, Instructions, Recall, Suggestions and Activity panes,
and the live reload path (diff, cursor kept, error rows)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Label, OptionList, Static, Tree
from textual.worker import WorkerFailed

from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.tui.screens.dialogs import ConfirmScreen

from .helpers import NOW, SIZE, make, plain, settle, store, wait_for_workers
from .test_facts_pane import finished, select, table_of


async def show(pilot: Any, key: str) -> None:
    await pilot.press(key)
    await settle(pilot)


async def test_revisions_diff_and_restore(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        fact_id = await select(pilot, "project/deploy-target.md")
        assert app.snapshot.facts[fact_id].revision == 3
        await show(pilot, "2")
        options = app.screen.query_one("#revisions-list", OptionList)
        assert options.option_count == 3  # current + revisions 2 and 1
        assert "revision 3" in plain(app.screen.query_one("#revisions-heading", Label))
        # Revision 2 (Render) is highlighted first; its diff against the current one:
        diff = plain(app.screen.query_one("#revisions-diff", Static))
        assert "-" in diff and "Render" in diff and "Fly.io" in diff
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        result = finished(messages, "restore")
        assert result.ok
        fact = store(demo).get(fact_id)
        assert fact.revision == 4 and "Render" in fact.body
        # Render was replaced by Fly.io at revision 3: bringing it back warns.
        assert any(
            "project.deploy_target" in w or "superseded" in w.lower() or "replaced" in w.lower()
            for w in result.warnings
        ), result.warnings


async def test_revisions_of_a_fact_with_one_version(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "project/oncall-rota.md")
        await show(pilot, "2")
        assert app.screen.query_one("#revisions-list", OptionList).option_count == 1
        assert "No earlier revisions" in plain(app.screen.query_one("#revisions-diff", Static))
        assert app.screen.query_one("#revisions-pane").check_action("restore", ()) is None


async def test_archive_preview_and_recover(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await show(pilot, "3")
        options = app.screen.query_one("#archive-list", OptionList)
        assert options.option_count == 3
        scopes = {a.fact.scope for a in app.snapshot.archived}
        assert scopes == {"project", "global"}
        entry = app.snapshot.archived[0]
        meta = plain(app.screen.query_one("#archive-meta", Static))
        assert entry.fact.ref in meta and entry.path in meta.replace("\n", "")
        await pilot.press("r")
        await settle(pilot)
        assert finished(messages, "recover").ok
        assert store(demo).find(str(entry.fact.id)) is not None
        assert options.option_count == 2


async def test_archive_recover_collision_is_explained(demo: Layout) -> None:
    # An active fact now uses the archived one's name.
    store(demo).save(
        SaveRequest(
            name="old-ci-provider",
            description="CI is GitHub Actions",
            body="GitHub Actions.",
            type="project",
            scope="project",
        )
    )
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await show(pilot, "3")
        index = next(i for i, a in enumerate(app.snapshot.archived) if a.fact.name == "old-ci-provider")
        app.screen.query_one("#archive-list", OptionList).highlighted = index
        await pilot.pause()
        meta = plain(app.screen.query_one("#archive-meta", Static))
        assert "already active" in meta and "would be refused" in meta
        await pilot.press("r")
        await settle(pilot)
        result = finished(messages, "recover")
        assert not result.ok and "already active" in result.text


async def test_instructions_tree_diagnostics_block_and_target(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await show(pilot, "4")
        tree = app.screen.query_one("#instructions-tree", Tree)
        labels = [str(node.label) for node in tree.root.children]
        assert any("user/AGENTS.md" in label for label in labels)
        assert any("workspace/AGENTS.md" in label for label in labels)
        imports = [str(c.label) for node in tree.root.children for c in node.children]
        assert any("@docs/conventions.md" in label and "loaded" in label for label in imports)
        # At the workspace root the demo already shows a diagnostic: testing.md imports
        # conventions.md back.
        diagnostics = plain(app.screen.query_one("#instructions-diagnostics", Static))
        assert "import_cycle" in diagnostics and "testing.md" in diagnostics
        # The billing service is below the workspace root: pick it as the target path.
        await pilot.press("t")
        assert isinstance(app.focused, Input)
        await pilot.press(*"services/billing", "enter")
        await settle(pilot)
        diagnostics = plain(app.screen.query_one("#instructions-diagnostics", Static))
        assert "import_outside_source" in diagnostics
        labels = [str(node.label) for node in tree.root.children]
        assert any("services/billing/AGENTS.md" in label for label in labels)
        await pilot.press("b")
        block = plain(app.screen.query_one("#instructions-view", Static))
        assert "Provider-visible block" in block and "Instructions" in block


async def test_recall_try_a_query_records_nothing(demo: Layout) -> None:
    last = demo.recall_dir / "last.json"
    history = demo.recall_dir / "history.jsonl"
    before = (last.read_bytes() if last.exists() else b"", history.read_bytes() if history.exists() else b"")
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await show(pilot, "5")
        await pilot.press("slash")
        await pilot.press(*"how do we deploy to production", "enter")
        await settle(pilot)
        view = plain(app.screen.query_one("#recall-view", Static))
        assert "Try a query (not recorded)" in view
        assert "project/deploy-target.md" in view
        assert "channels: lexical: deploy" in view  # each hit names the evidence channels
        after = (last.read_bytes() if last.exists() else b"", history.read_bytes() if history.exists() else b"")
        assert after == before


async def test_recall_shows_the_last_trace_live(demo: Layout) -> None:
    from reasonix_tui.core import recall as recall_pkg

    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await show(pilot, "5")
        recall_pkg.run_recall(demo, "which tests command do we run", settings=app.settings)
        from reasonix_tui.tui.messages import SidecarsReloaded

        app.post_message(SidecarsReloaded(recall=True))
        await settle(pilot)
        view = plain(app.screen.query_one("#recall-view", Static))
        assert "which tests command do we run" in view
        assert "Run tests with make check" in view or "project/test-command.md" in view
        # The injected fact changes afterwards: the trace says what the agent saw no longer
        # holds as shown; forgotten, it says that.
        from reasonix_tui.core.store.requests import SaveRequest

        fact = store(demo).get("project/test-command.md")
        assert "changed since" not in view
        saved = store(demo).save(SaveRequest.from_fact(fact, body="Run tests with `make test`."))
        app.reload_store([str(saved.fact.path)])
        await settle(pilot)
        view = plain(app.screen.query_one("#recall-view", Static))
        assert f"{fact.revision}→{saved.fact.revision}" in view
        assert f"changed since (now revision {saved.fact.revision})" in view
        store(demo).archive(str(fact.id))
        app.reload_store()
        await settle(pilot)
        view = plain(app.screen.query_one("#recall-view", Static))
        assert "forgotten since this recall" in view


async def test_suggestions_accept_and_dismiss(demo: Layout) -> None:
    app = make(demo)
    messages: list[Any] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await show(pilot, "6")
        options = app.screen.query_one("#suggestions-list", OptionList)
        assert options.option_count >= 2, plain(app.screen.query_one("#suggestions-heading", Label))
        count = options.option_count
        view = plain(app.screen.query_one("#suggestions-evidence", Static))
        assert "Evidence" in view
        await pilot.press("d")
        await settle(pilot)
        assert options.option_count == count - 1
        await pilot.press("a")
        await pilot.pause()
        from reasonix_tui.tui.screens.fact_form import FactFormScreen

        assert isinstance(app.screen, FactFormScreen)
        app.screen.query_one("#form-description", Input).value = "Edited by the test before accepting"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert finished(messages, "accept").ok
        assert any(f.description == "Edited by the test before accepting" for f in store(demo).list_all())


async def test_suggestions_dismissing_brings_the_next_one_in(demo: Layout) -> None:
    from reasonix_tui.core.settings import Settings

    app = make(demo, settings=Settings(pinned_budget_chars=1500, suggestions_limit=2))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await show(pilot, "6")
        pane = app.screen.query_one("SuggestionsPane")
        options = app.screen.query_one("#suggestions-list", OptionList)
        heading = plain(app.screen.query_one("#suggestions-heading", Label))
        assert options.option_count == 2 and "2 more waiting" in heading, heading
        first = [item.id for item in pane.items]
        view = plain(app.screen.query_one("#suggestions-view", Static))
        assert f"score {pane.items[0].score:g}" in view and "why:" in view
        evidence = plain(app.screen.query_one("#suggestions-evidence", Static))
        src = pane.items[0].sources[0]
        assert (
            "Evidence (1)" in evidence
            and f"Reasonix session · {src.label} #{src.line}" in evidence
            and src.text in evidence
        )
        await pilot.press("d")
        await settle(pilot)
        after = [item.id for item in pane.items]
        assert options.option_count == 2 and first[0] not in after and after[0] == first[1]
        assert len(set(after) - set(first)) == 1  # the next one came in
        assert "1 more waiting" in plain(app.screen.query_one("#suggestions-heading", Label))


async def test_activity_shows_the_audit_log_newest_first(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "project/release-branch.md")
        await pilot.press("v")
        await settle(pilot)
        await show(pilot, "7")
        table = app.screen.query_one("#activity-table", DataTable)
        assert table.row_count > 10
        first = [str(c) for c in table.get_row_at(0)]
        assert first[1] == "context-center" and first[2] == "verify" and "release-branch" in first[4]
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.active_pane == "facts"
        assert app.snapshot.facts[table_of(app).cursor_key].name == "release-branch"


async def test_outside_change_updates_by_diff_and_keeps_the_cursor(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        keep = await select(pilot, "project/release-branch.md")
        table = table_of(app)
        position = table.cursor_row
        other = store(demo).get("project/oncall-rota.md")
        store(demo).save(SaveRequest.from_fact(other, title="On-call rota (edited outside)"))
        path = other.path
        old_rows = app.snapshot.rows
        app.reload_store([path])
        await settle(pilot)
        assert app.snapshot.rows is not old_rows
        assert table.cursor_key == keep and table.cursor_row == position
        assert app.snapshot.rows[str(other.id)].title == "On-call rota (edited outside)"
        # Unchanged rows are the very same objects: nothing else was rebuilt.
        assert app.snapshot.rows[keep] is old_rows[keep]


async def test_new_unparseable_file_appears_as_an_error_row(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bad = demo.global_dir / "broken.md"
        bad.write_bytes(b"---\nname: [\n---\nbody\n")
        app.reload_store([str(bad)])
        await settle(pilot)
        rows = [r for r in app.snapshot.rows.values() if r.error and r.ref.endswith("broken.md")]
        assert rows, "error row expected"
        bad.unlink()
        app.reload_store([str(bad)])
        await settle(pilot)
        assert not [r for r in app.snapshot.rows.values() if r.ref.endswith("/broken.md")]


async def test_full_reload_equals_incremental(demo: Layout) -> None:
    from reasonix_tui.tui.model.loader import load_snapshot, update_snapshot

    from .helpers import NOW, settings

    base = load_snapshot(demo, settings(), NOW)
    fact = store(demo).get("project/oncall-rota.md")
    store(demo).save(SaveRequest.from_fact(fact, body="changed"))
    store(demo).archive("project/release-branch.md")
    paths = [fact.path, str(demo.project_dir / "release-branch.md"), str(demo.project_dir / ".archive" / "x.md")]
    inc = update_snapshot(base, demo, settings(), NOW, paths)
    full = load_snapshot(demo, settings(), NOW)
    assert inc is not None
    assert set(inc.rows) == set(full.rows)
    assert dict(inc.rows.items()) == dict(full.rows)
    assert [a.path for a in inc.archived] == [a.path for a in full.archived]
    assert inc.pinned_chars == full.pinned_chars


async def test_reload_failure_keeps_the_last_good_snapshot(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        good = app.snapshot

        def boom(*args: Any, **kwargs: Any) -> Any:
            raise OSError("disk on fire")

        monkeypatch.setattr("reasonix_tui.tui.app_base.load_snapshot", boom)
        app.reload_store()
        with contextlib.suppress(WorkerFailed):  # the reload fails on purpose (when still running here)
            await wait_for_workers(app)
        await settle(pilot)
        assert app.snapshot is good and app.stale
        assert app.screen.query_one("#status-bar").has_class("-stale")
        assert "stale" in plain(app.screen.query_one("#status-bar", Static))
        monkeypatch.undo()
        app.reload_store()
        await settle(pilot)
        assert not app.stale


async def test_fact_written_after_start_is_fresh(demo: Layout) -> None:
    from reasonix_tui.core.compat.gotime import Timestamp
    from reasonix_tui.tui.app import make_app

    from .helpers import settings

    app = make_app(demo, settings(), watch=False, clock=Timestamp.now)  # the real clock
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await asyncio.sleep(0.05)
        saved = store(demo).save(
            SaveRequest(name="new-one", description="Just written", body="x", type="project", scope="project")
        )
        app.reload_store([saved.fact.path])
        await settle(pilot)
        row = app.snapshot.rows[str(saved.fact.id)]
        assert row.freshness == "fresh" and row.updated == "now"


async def test_activity_orders_an_out_of_order_log_by_time(demo: Layout) -> None:
    """Backdated clocks write the log out of order: the pane sorts by ``at``, newest first,
    keeping the file order (newest line first) for equal times."""
    from reasonix_tui.core.store.audit import AuditEntry

    def at(hours: float) -> str:
        return Timestamp(NOW.ns - int(hours * 3600 * 10**9)).rfc3339()

    lines = [
        AuditEntry(at=at(24 * 15), op="forget", ok=True, actor="cli", ref="project/a.md"),
        AuditEntry(at=at(24 * 50), op="create", ok=True, actor="cli", ref="project/b.md"),
        AuditEntry(at=at(2), op="update", ok=True, actor="cli", ref="project/tie-older-line.md"),
        AuditEntry(at=at(24 * 15), op="forget", ok=True, actor="cli", ref="project/c.md"),
        AuditEntry(at=at(2), op="update", ok=True, actor="cli", ref="project/tie-newer-line.md"),
        AuditEntry(at="not a time", op="verify", ok=True, actor="cli", ref="project/undated.md"),
        AuditEntry(at=at(24 * 3), op="create", ok=True, actor="cli", ref="project/d.md"),
    ]
    demo.audit_log.write_text("".join(e.to_json() + "\n" for e in lines), encoding="utf-8")
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await show(pilot, "7")
        table = app.screen.query_one("#activity-table", DataTable)
        refs = [str(table.get_row_at(i)[4]) for i in range(table.row_count)]
        assert refs == [
            "project/tie-newer-line.md",
            "project/tie-older-line.md",
            "project/d.md",
            "project/c.md",
            "project/a.md",
            "project/b.md",
            "project/undated.md",
        ]
        # enter opens the fact of the row under the cursor (the sorted order, not the file's)
        assert app.screen.query_one("#activity-pane").entries[2].ref == "project/d.md"


def test_demo_writes_its_history_chronologically(demo: Layout) -> None:
    """The demo's backdated writes go to the audit log oldest first, like a real history."""
    from reasonix_tui.core.compat.gotime import parse_rfc3339
    from reasonix_tui.core.store.audit import AuditEntry

    entries = [
        AuditEntry.from_dict(json.loads(line))
        for line in demo.audit_log.read_text(encoding="utf-8").splitlines()
        if line
    ]
    times = [parse_rfc3339(e.at) for e in entries]
    assert len(entries) > 15 and all(t is not None for t in times)
    assert times == sorted(times, key=lambda t: t.ns)  # type: ignore[union-attr]
    # The revisions and the archive still tell the same story.
    assert [e.op for e in entries if e.ref == "project/deploy-target.md"] == ["create", "update", "update"]
    assert [e.op for e in entries if e.ref == "project/old-ci-provider.md"][:2] == ["create", "forget"]


async def test_activity_filter_by_actor_op_outcome_and_words(demo: Layout) -> None:
    from reasonix_tui.core.store.model import Conflict
    from reasonix_tui.core.store.requests import SaveRequest

    agent = store(demo, actor="agent-auto")
    agent.save(SaveRequest(name="lint-command", description="Lint with ruff", body="ruff check .", type="project"))
    fact = store(demo).get("project/oncall-rota.md")
    try:  # a write against an old revision is refused, and audited as such
        store(demo).save(SaveRequest.from_fact(fact, body="x"), expected_revision=fact.revision + 5)
    except Conflict:
        pass
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await show(pilot, "7")
        pane = app.screen.query_one("#activity-pane")
        table = app.screen.query_one("#activity-table", DataTable)
        total = table.row_count

        async def filter_by(text: str) -> list[Any]:
            await pilot.press("slash")
            assert isinstance(app.focused, Input)
            app.focused.value = ""
            await pilot.press(*text, "enter")
            await settle(pilot)
            assert isinstance(app.focused, DataTable)  # enter goes back to the table
            return list(pane.entries)

        agent_rows = await filter_by("actor:agent-auto")
        # the test's write (newest first) and the demo's own unasked write
        assert [(e.actor, e.ref) for e in agent_rows] == [
            ("agent-auto", "project/lint-command.md"),
            ("agent-auto", "project/oncall-rota.md"),
        ]
        assert table.row_count == 2
        heading = plain(app.screen.query_one("#activity-heading", Label))
        assert heading.startswith(f"2 of {total} entries match") and "actor:agent-auto" in heading
        assert {e.actor for e in await filter_by("actor:agent")} == {"agent-auto", "agent-approved"}
        refused = await filter_by("refused")
        assert all(not e.ok for e in refused)
        assert "oncall-rota" in refused[0].ref and any(e.ref == "deploy-on-render" for e in refused)
        forgets = await filter_by("op:forget old")
        assert forgets and all(e.op == "forget" and "old" in e.ref for e in forgets)
        assert await filter_by("nothing-like-this") == []
        assert "0 of" in plain(app.screen.query_one("#activity-heading", Label))
        await filter_by(" ")  # cleared: everything again
        assert table.row_count == total


async def test_instruction_document_opens_in_the_editor_and_is_resolved_again(
    demo: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextlib

    opened: list[str] = []

    def fake_editor(argv: list[str], check: bool = False) -> None:
        opened.append(argv[-1])
        path = Path(argv[-1])
        path.write_text(path.read_text(encoding="utf-8") + "\n- Prefer editing over rewriting.\n", encoding="utf-8")

    monkeypatch.setenv("VISUAL", "fake-editor --wait")
    monkeypatch.setattr("reasonix_tui.tui.app_edits.subprocess.run", fake_editor)
    app = make(demo)
    monkeypatch.setattr(type(app), "suspend", lambda self: contextlib.nullcontext())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await show(pilot, "4")
        tree = app.screen.query_one("#instructions-tree", Tree)
        pane = app.screen.query_one("#instructions-pane")
        workspace_doc = next(n for n in tree.root.children if "workspace/AGENTS.md" in str(n.label))
        tree.move_cursor(workspace_doc)
        await settle(pilot)
        assert pane.check_action("edit_document", ()) is True
        await pilot.press("E")
        await settle(pilot)
        assert opened == [str(demo.workspace / "AGENTS.md")]
        # resolved again: the viewer shows the new line
        workspace_doc = next(n for n in tree.root.children if "workspace/AGENTS.md" in str(n.label))
        tree.move_cursor(workspace_doc)
        await settle(pilot)
        assert "Prefer editing over rewriting." in plain(app.screen.query_one("#instructions-view", Static))
        # a rejected import has no file to open
        billing_import = None
        await pilot.press("t")
        await pilot.press(*"services/billing", "enter")
        await settle(pilot)
        for node in tree.root.children:
            for child in node.children:
                if "rejected" in str(child.label):
                    billing_import = child
        assert billing_import is not None
        tree.move_cursor(billing_import)
        await settle(pilot)
        assert pane.check_action("edit_document", ()) is None


async def test_suggestion_rows_show_each_title_whole(demo: Layout) -> None:
    """The demo's candidates, Chinese included, are short rules the list row shows whole
    (the Chinese one used to be the whole sentence, cut off by the row)."""
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await show(pilot, "6")
        pane = app.screen.query_one("SuggestionsPane")
        options = app.screen.query_one("#suggestions-list", OptionList)
        rows = [options.render_line(y).text for y in range(options.option_count)]
        assert any("用中文写提交说明的正文部分" in row for row in rows), rows
        for item, row in zip(pane.items, rows):
            assert item.title in row and "…" not in row, (item.title, row)

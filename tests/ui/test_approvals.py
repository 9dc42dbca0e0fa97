"""Pilot tests: the approval modal (approve, deny, edit, conflict, a queue of several,
proposals from before start), the presence marker and the auto-write undo."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual.widgets import Input, Label, Static

from reasonix_tui.core.agent import approvals, policy, proposals
from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.tui.messages import SidecarsReloaded
from reasonix_tui.tui.model.proposals import Decision
from reasonix_tui.tui.screens.approval import ApprovalScreen
from reasonix_tui.tui.screens.fact_form import FactFormScreen
from reasonix_tui.tui.screens.main import MainScreen

from .helpers import NOW, SIZE, make, plain, settle, store


def propose(layout: Layout, tool: str, arguments: dict[str, Any]) -> Any:
    """What the CLI / MCP side does: assess, then queue a proposal."""
    st = store(layout, actor="agent-auto")
    if tool == "remember":
        assessment = policy.assess_remember(arguments, st)
    else:
        assessment = policy.assess_forget(str(arguments["ref"]), st)
    requester = proposals.Requester(pid=777, agent="test-agent", source="cli")
    return approvals.ApprovalQueue(layout).propose(tool, arguments, assessment, st, requester)


NEW_FACT = {
    "name": "cache-backend",
    "title": "Cache backend is Redis",
    "description": "The HTTP cache lives in Redis 7",
    "type": "project",
    "scope": "global",
    "body": "Use the `cache` Redis database (db 2).",
}


def result_of(layout: Layout, proposal: Any) -> Any:
    return approvals.ApprovalQueue(layout).read_result(proposal.id)


async def notify_queue(pilot: Any) -> None:
    """What the watcher does when approvals/ changes."""
    pilot.app.post_message(SidecarsReloaded(approvals=True))
    await settle(pilot)


async def test_proposal_from_before_start_opens_at_start_and_approve(demo_with_approval: Layout) -> None:
    layout = demo_with_approval
    [pending] = approvals.ApprovalQueue(layout).pending()
    app = make(layout)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        view = app.screen.view
        assert view.kind == "update" and view.current is not None and view.current.name == "deploy-target"
        body = plain(app.screen.query_one("#approval-body", Static))
        for expected in (
            "deploy-target",
            "Deploy target is Fly.io (two regions)",
            "project",
            "Diff of the file against the current revision",
            "+Production deploys go to **Fly.io**, regions `ams` and `iad`.",
            "Why you are asked",
        ):
            assert expected in body, expected
        assert "1 of 1 pending" in plain(app.screen.query_one("#approval-count", Label))
        # The app writes the presence marker while open.
        markers = list((layout.approvals_dir / "presence").glob("*.json"))
        assert len(markers) == 1 and str(os.getpid()) in markers[0].name
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        fact = store(layout).get("project/deploy-target.md")
        assert fact.revision == 4 and "iad" in fact.body
        assert result_of(layout, pending).state == "approved"
        assert not approvals.ApprovalQueue(layout).pending()
    assert not list((layout.approvals_dir / "presence").glob("*.json"))


async def test_deny_writes_nothing(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        proposal = propose(demo, "remember", NEW_FACT)
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        assert app.screen.view.kind == "create"
        assert "global memory requires confirmation" in plain(app.screen.query_one("#approval-body", Static))
        await pilot.press("n")
        await settle(pilot)
        assert store(demo).find("global/cache-backend.md") is None
        assert result_of(demo, proposal).state == "denied"


async def test_edit_then_approve(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        proposal = propose(demo, "remember", NEW_FACT)
        await notify_queue(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, FactFormScreen)
        assert app.screen.query_one("#form-title-input", Input).value == "Cache backend is Redis"
        app.screen.query_one("#form-description", Input).value = "The HTTP cache lives in Redis 7.2"
        await pilot.press("ctrl+s")
        await settle(pilot)
        fact = store(demo).get("global/cache-backend.md")
        assert fact.description == "The HTTP cache lives in Redis 7.2"
        result = result_of(demo, proposal)
        assert result.state == "approved" and result.edited


async def test_conflict_is_shown_not_applied(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        target = store(demo).get("project/oncall-rota.md")
        proposal = propose(
            demo,
            "remember",
            {
                "name": "oncall-rota",
                "description": "Rota",
                "type": "project",
                "body": "Lee (primary).",
                "expected_revision": target.revision,
            },
        )
        # Someone writes a new revision after the proposal was made.
        store(demo).save(SaveRequest.from_fact(target, body="Kim (primary)."))
        app.reload_store()
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        assert app.screen.view.conflict
        assert "CONFLICT" in plain(app.screen.query_one("#approval-body", Static))
        assert app.screen.has_class("-conflict")
        assert app.screen.check_action("decide", ("approve",)) is None
        # Even when applied by force, the core refuses it as a conflict.
        screen = app.screen
        screen.dismiss(Decision("approve", screen.view.digest))
        await settle(pilot)
        assert store(demo).get("project/oncall-rota.md").body == "Kim (primary)."
        assert result_of(demo, proposal).state == "conflict"


async def test_a_queue_of_several(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = propose(demo, "remember", NEW_FACT)
        second = propose(demo, "forget", {"ref": "project/release-branch.md"})
        third = propose(
            demo,
            "remember",
            {**NEW_FACT, "name": "queue-backend", "title": "Queue backend", "description": "Jobs run on Redis streams"},
        )
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        assert app.screen.view.id == first.id
        assert "1 of 3 pending" in plain(app.screen.query_one("#approval-count", Label))
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen) and app.screen.view.id == second.id
        assert app.screen.view.kind == "forget"
        assert app.screen.check_action("decide", ("edit",)) is None
        await pilot.press("y")
        await settle(pilot)
        assert store(demo).find("project/release-branch.md") is None
        assert isinstance(app.screen, ApprovalScreen) and app.screen.view.id == third.id
        # "later" keeps it queued, and the count stays visible in the status line.
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert "1 pending approval" in plain(app.screen.query_one("#status-bar", Static))
        assert approvals.ApprovalQueue(demo).is_pending(third.id)
        app.action_review_approvals()
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen) and app.screen.view.id == third.id
        await pilot.press("n")
        await settle(pilot)
        assert [result_of(demo, p).state for p in (first, second, third)] == ["approved", "approved", "denied"]


async def test_modal_opens_over_another_modal(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        propose(demo, "remember", NEW_FACT)
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("n")
        await settle(pilot)
        from reasonix_tui.tui.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)


async def test_sensitive_content_is_flagged(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        propose(
            demo,
            "remember",
            {**NEW_FACT, "scope": "project", "body": "Use api_key=sk-proj-abcdefghijklmnop1234 for staging."},
        )
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        assert app.screen.view.sensitive
        assert "SENSITIVE CONTENT" in plain(app.screen.query_one("#approval-body", Static))
        await pilot.press("n")
        await settle(pilot)


async def test_auto_write_notice_and_undo(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        st = store(demo, actor="agent-auto")
        saved = st.save(
            SaveRequest(
                name="lint-command",
                description="Lint with ruff",
                body="`ruff check .`",
                type="project",
                scope="project",
            ),
            require_create=True,
        )
        approvals.ApprovalQueue(demo).record_auto_write(saved.fact)
        await notify_queue(pilot)
        assert app.approvals.last_auto is not None
        assert app.check_action("undo_agent_write", ()) is True
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert store(demo).find("project/lint-command.md") is None
        assert not approvals.ApprovalQueue(demo).auto_writes()
        assert app.check_action("undo_agent_write", ()) is False


def toasts(messages: list[Any], title: str = "agent auto-write") -> list[str]:
    """The notifications with ``title`` among the messages a ``message_hook`` caught."""
    from textual.notifications import Notify

    return [m.notification.message for m in messages if isinstance(m, Notify) and m.notification.title == title]


def auto_write(layout: Layout, name: str, age_s: float | None = None) -> Any:
    """What ``reasonix-tui remember`` does for a low-risk write: save, then record it."""
    st = store(layout, actor="agent-auto")
    fact = st.save(
        SaveRequest(name=name, description=f"{name} desc", body="b", type="project", scope="project"),
        require_create=True,
    ).fact
    record = approvals.ApprovalQueue(layout).record_auto_write(
        fact, proposals.Requester(pid=9, agent="test-agent", source="cli")
    )
    if age_s is not None:  # backdate the record against the app's frozen clock
        data = json.loads(Path(record.path).read_text())
        data["created_at"] = Timestamp(NOW.ns - int(age_s * 1e9)).rfc3339()
        Path(record.path).write_text(json.dumps(data))
    return record


async def test_auto_write_is_announced_once_not_at_every_start(demo: Layout) -> None:
    record = auto_write(demo, "lint-command", age_s=30)
    messages: list[Any] = []
    app = make(demo)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        [toast] = toasts(messages)
        assert "project/lint-command.md" in toast and "ctrl+z" in toast
        assert not approvals.ApprovalQueue(demo).auto_writes()  # dismissed once shown
        await notify_queue(pilot)  # another look at the queue does not repeat it
        assert len(toasts(messages)) == 1
    messages.clear()
    app = make(demo)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        assert toasts(messages) == []  # the next start is quiet...
        assert app.approvals.last_auto is not None and app.approvals.last_auto.id == record.id
        assert app.check_action("undo_agent_write", ()) is True  # ...and it can still be undone
        assert any(c.title.startswith("approvals: undo") for c in app.get_system_commands(app.screen))
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert store(demo).find("project/lint-command.md") is None
        assert app.check_action("undo_agent_write", ()) is False


async def test_old_auto_writes_are_not_announced_and_several_share_one_notice(demo: Layout) -> None:
    auto_write(demo, "old-one", age_s=3 * 86400)
    auto_write(demo, "old-two", age_s=2 * 86400)
    auto_write(demo, "fresh-one", age_s=20)
    newest = auto_write(demo, "fresh-two", age_s=10)
    messages: list[Any] = []
    app = make(demo)
    async with app.run_test(size=(80, 24), message_hook=messages.append) as pilot:
        await settle(pilot)
        [toast] = toasts(messages)
        assert "fresh-one" in toast and "fresh-two" in toast and "old-" not in toast
        assert not approvals.ApprovalQueue(demo).auto_writes()  # the old ones are dismissed too
        assert app.approvals.last_auto is not None and app.approvals.last_auto.id == newest.id


async def test_undo_is_offered_only_while_the_fact_is_at_the_written_revision(demo: Layout) -> None:
    auto_write(demo, "lint-command", age_s=3600)
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.check_action("undo_agent_write", ()) is True
        fact = store(demo).get("project/lint-command.md")
        saved = store(demo).save(SaveRequest.from_fact(fact, body="edited by a person"))
        app.reload_store([str(saved.fact.path)])
        await settle(pilot)
        assert app.check_action("undo_agent_write", ()) is False
        assert not any(c.title.startswith("approvals: undo") for c in app.get_system_commands(app.screen))


async def test_modal_shows_what_activation_resolves_to(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # A global feedback fact with no activation asked for loads as pinned guidance.
        propose(
            demo,
            "remember",
            {
                "name": "tone",
                "description": "Short answers",
                "type": "feedback",
                "scope": "global",
                "body": "Keep answers short.",
            },
        )
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        body = plain(app.screen.query_one("#approval-body", Static))
        assert "activation pinned (not set: a global user/feedback fact loads as pinned guidance" in body
        await pilot.press("n")
        await settle(pilot)
        # An explicit activation is shown as asked, without a note.
        propose(demo, "remember", {**NEW_FACT, "activation": "relevant"})
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen) and app.screen.view.name == "cache-backend"
        body = plain(app.screen.query_one("#approval-body", Static))
        assert "activation relevant\n" in body


async def test_open_modal_follows_the_store(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        target = store(demo).get("project/oncall-rota.md")
        propose(
            demo,
            "remember",
            {
                "name": "oncall-rota",
                "description": "Rota",
                "type": "project",
                "body": "Lee (primary).",
                "expected_revision": target.revision,
            },
        )
        await notify_queue(pilot)
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and not screen.view.conflict
        assert screen.check_action("decide", ("approve",)) is True
        # Someone writes a new revision while the dialog is open: the watcher reloads the
        # store and the dialog turns into a conflict in place, without closing.
        saved = store(demo).save(SaveRequest.from_fact(target, body="Kim (primary)."))
        app.reload_store([str(saved.fact.path)])
        await settle(pilot)
        assert app.screen is screen
        assert screen.view.conflict and screen.has_class("-conflict")
        body = plain(screen.query_one("#approval-body", Static))
        assert "CONFLICT" in body and f"found {saved.fact.revision}" in body
        assert screen.check_action("decide", ("approve",)) is None
        assert screen.query_one("#approval-approve-button").disabled
        # The diff is against the new current revision.
        assert "-Kim (primary)." in body and f"revision {saved.fact.revision} (current)" in body


async def test_key_A_reopens_postponed_proposals(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.check_action("review_approvals", ()) is False  # nothing pending: hidden
        propose(demo, "remember", NEW_FACT)
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        assert app.check_action("review_approvals", ()) is False  # the dialog is up
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.check_action("review_approvals", ()) is True
        footer = [key for key, b in app.screen.active_bindings.items() if b.binding.show and b.enabled]
        assert "A" in footer
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen) and app.screen.view.name == "cache-backend"


async def test_auto_update_notice_and_undo_brings_the_old_revision_back(demo: Layout) -> None:
    from reasonix_tui.core.agent.writes import agent_remember
    from reasonix_tui.core.settings import Settings
    from reasonix_tui.core.store.store import Store

    before = store(demo).get("project/oncall-rota.md")
    agent_store = Store(demo, settings=Settings(auto_confirm_project_remember=True), actor="agent-auto")
    out = agent_remember(
        {"name": "oncall-rota", "description": before.description, "type": "project", "body": "Lee (primary)."},
        agent_store,
        requester=proposals.Requester(pid=9, agent="test-agent", source="cli"),
        wait=0,
    )
    assert out.status == "saved" and out.revision == before.revision + 1
    messages: list[Any] = []
    app = make(demo)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        [toast] = toasts(messages)
        assert (
            f"test-agent (via cli) updated project/oncall-rota.md (revision {before.revision} → {out.revision})"
            in toast
        )
        assert f"ctrl+z to bring revision {before.revision} back" in toast
        await pilot.press("ctrl+z")
        await settle(pilot)
        fact = store(demo).get("project/oncall-rota.md")
        assert fact.revision == out.revision + 1 and fact.body == before.body  # restored, not archived
        assert app.check_action("undo_agent_write", ()) is False

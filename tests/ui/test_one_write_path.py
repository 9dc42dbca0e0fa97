"""One write path (issue 10, point 2): approval decisions, suggestion accept/dismiss, the
undo of an auto-write and every other store change are intents that one write worker
carries out, each ending in ``WriteFinished`` and a reload; the approval flow is state
only; panes post messages; ``StoreUpdate`` lives in ``messages``; no import cycle."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reasonix_tui.core.agent import approvals
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.tui import approval_flow
from reasonix_tui.tui.messages import WriteFinished
from reasonix_tui.tui.screens.approval import ApprovalScreen

from .helpers import SIZE, make, settle, store
from .test_approvals import NEW_FACT, notify_queue, propose

TUI = Path(approval_flow.__file__).parent


async def test_every_write_goes_through_the_write_worker(demo: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonix_tui.core.sessions.suggestions import MemorySuggestion, SuggestionsView

    suggestion = MemorySuggestion(
        id="s-1",
        name="use-alembic",
        title="Use alembic",
        description="Migrations via alembic",
        type="project",
        scope="project",
        body="Run alembic.",
        reason="rule",
        evidence=(),
    )
    monkeypatch.setattr(
        "reasonix_tui.tui.reads.scan_suggestions",
        lambda layout, settings, now=None: SuggestionsView(memories=(suggestion,), available=True),
    )
    accepted: list[str] = []
    monkeypatch.setattr(
        "reasonix_tui.core.sessions.suggestions.accept_suggestion",
        lambda layout, sid, edits, store=None, actor="", extra=None: accepted.append(sid) or _accepted(store),
    )
    monkeypatch.setattr(
        "reasonix_tui.core.sessions.suggestions.dismiss_suggestion",
        lambda layout, sid, store=None: accepted.append("dismissed " + sid),
    )
    messages: list[Any] = []
    app = make(demo)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        threads: list[str] = []
        real = app._store_for_writes

        def tracked() -> Any:
            import threading

            threads.append(threading.current_thread().name)
            return real()

        monkeypatch.setattr(app, "_store_for_writes", tracked)
        # An approval decision.
        propose(demo, "remember", NEW_FACT)
        await notify_queue(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("y")
        await settle(pilot)
        # A suggestion accepted (through the form) and one dismissed.
        await pilot.press("6")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        # A pin.
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
    finished = [m.action for m in messages if isinstance(m, WriteFinished)]
    assert {"approval", "accept", "dismiss", "pin"} <= set(finished), finished
    assert accepted == ["s-1", "dismissed s-1"]
    assert len(threads) >= 4 and "MainThread" not in threads  # every one in the write worker


def _accepted(st: Any) -> Any:
    from reasonix_tui.core.sessions.suggestions import AcceptResult

    fact = st.save(
        SaveRequest(name="use-alembic", description="Migrations via alembic", body="Run alembic.", type="project")
    ).fact
    return AcceptResult(fact=fact, path=fact.path)


async def test_writes_run_one_at_a_time_in_order(demo: Layout) -> None:
    import threading

    from reasonix_tui.tui import writes

    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        running = [0]
        overlap: list[int] = []
        order: list[int] = []
        lock = threading.Lock()

        def job(n: int) -> Any:
            def run(st: Any) -> writes.Outcome:
                with lock:
                    running[0] += 1
                    overlap.append(running[0])
                order.append(n)
                threading.Event().wait(0.01)
                with lock:
                    running[0] -= 1
                return writes.Outcome(f"job {n}")

            return run

        for n in range(8):
            app.run_write("note", job(n))
        await settle(pilot)
        assert order == list(range(8)) and max(overlap) == 1


def test_the_approval_flow_holds_state_and_no_app() -> None:
    flow = approval_flow.ApprovalFlow()
    assert not hasattr(flow, "app")
    tree = ast.parse((TUI / "approval_flow.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    assert not any(m and m.startswith("textual") for m in imported)


APP_PARTS = {"app.py", "app_base.py", "app_approvals.py", "app_edits.py"}
"""The app and the parts it is put together from (only they import each other)."""


def test_panes_post_messages_and_nothing_imports_the_app() -> None:
    offenders = []
    for path in TUI.rglob("*.py"):
        text = path.read_text()
        if "call_from_thread" in text:
            offenders.append(f"{path.name}: call_from_thread")
        if path.name not in APP_PARTS and re.search(r"from \.+(?:tui\.)?app(?:_base|_approvals|_edits)? import", text):
            offenders.append(f"{path.name}: imports the app")
        if "pending_select" in text:
            offenders.append(f"{path.name}: pending_select")
    assert offenders == []


def test_panes_and_screens_import_without_the_app() -> None:
    code = (
        "import sys\n"
        "import reasonix_tui.tui.screens.main, reasonix_tui.tui.screens.help, reasonix_tui.tui.screens.approval\n"
        "import reasonix_tui.tui.panes.facts, reasonix_tui.tui.messages, reasonix_tui.tui.approval_flow\n"
        "assert 'reasonix_tui.tui.app' not in sys.modules, 'the app was imported'\n"
        "from reasonix_tui.tui.messages import StoreUpdate\n"
        "import reasonix_tui.tui.app as app\n"
        "assert app.StoreUpdate is StoreUpdate\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_undo_of_an_auto_write_goes_through_the_write_worker(demo: Layout) -> None:
    messages: list[Any] = []
    st = store(demo, actor="agent-auto")
    saved = st.save(
        SaveRequest(name="lint-command", description="Lint", body="ruff", type="project"), require_create=True
    )
    approvals.ApprovalQueue(demo).record_auto_write(saved.fact)
    app = make(demo)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert str(saved.fact.id) not in app.snapshot.rows
    [undo] = [m for m in messages if isinstance(m, WriteFinished) and m.action == "undo"]
    assert undo.ok and "archive" in undo.text

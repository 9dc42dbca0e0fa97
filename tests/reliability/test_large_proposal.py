"""A big proposal is shown promptly (issue 11, point 12: a 5 MB proposal took 18.9 s): its
dialog view is computed in a worker, never on the UI thread, and what is drawn is bounded
(the dialog says how much it shows; approving stores all of it). The time itself is a
figure of ``benchmarks/approval_bench.py``, not an assertion here."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from reasonix_tui.core.agent.approvals import ApprovalQueue
from reasonix_tui.core.agent.policy import assess_remember
from reasonix_tui.core.agent.proposals import Requester
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.store import Store

SIZE_CHARS = 1_000_000


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    from ui.helpers import build_demo

    from reasonix_tui.tui.screens.approval import ApprovalScreen

    monkeypatch.setattr(ApprovalScreen, "GUARD_SECONDS", 0.0)
    return build_demo(tmp_path / "demo", monkeypatch)


# About 14 s of CPU (a 1 MB body through the policy, the queue and the store, and 20,000
# characters wrapped on each redraw): on a 2-core machine shared with other suites it can
# pass the default 120 s, so this one test gets more room.
@pytest.mark.timeout(360)
async def test_a_big_proposal_is_prepared_off_the_ui_thread_and_drawn_bounded(
    demo: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Static
    from ui.helpers import SIZE, make, plain, settle

    from reasonix_tui.tui import app_approvals
    from reasonix_tui.tui.messages import SidecarsReloaded
    from reasonix_tui.tui.model.proposals import SHOWN_CHARS
    from reasonix_tui.tui.screens.approval import ApprovalScreen

    threads: list[str] = []
    real_view = app_approvals.proposal_view

    def tracked(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real_view(*args, **kwargs)

    monkeypatch.setattr(app_approvals, "proposal_view", tracked)
    line = "Use the staging database for integration tests, never production. "
    body = (line * (SIZE_CHARS // len(line) + 1))[:SIZE_CHARS]
    args = {
        "name": "big-note",
        "description": "A big note",
        "type": "user",
        "scope": "global",
        "activation": "relevant",
        "body": body,
    }
    st = Store(demo, actor="agent-auto")
    proposal = ApprovalQueue(demo).propose("remember", args, assess_remember(args, st), st, Requester(pid=5))
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(SidecarsReloaded(approvals=True))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and screen.view.id == proposal.id
        assert threads and "MainThread" not in threads
        shown = plain(screen.query_one("#approval-body", Static))
        assert f"LARGE: the body is {SIZE_CHARS:,} characters" in shown and "Approving stores all of it" in shown
        assert len(shown) < SHOWN_CHARS * 1.5
        await pilot.press("y")
        await settle(pilot)
    assert Store(demo).get("global/big-note.md").body == body.strip()

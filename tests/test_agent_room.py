"""The agent room (``core/agent``) after its split by role: one clock for every queue
record, and modules and functions of a readable size."""

from __future__ import annotations

import ast
import json
from itertools import count
from pathlib import Path

import pytest

from reasonix_tui.core.agent import stamps
from reasonix_tui.core.agent.approvals import ApprovalQueue
from reasonix_tui.core.agent.policy import assess_remember
from reasonix_tui.core.agent.proposals import Requester
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

REPO = Path(__file__).resolve().parent.parent
FROZEN = "2026-01-02T03:04:05Z"


def test_every_queue_record_takes_the_one_clock(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """Freezing ``stamps`` freezes the proposal, the decision, the auto-write record and the
    presence marker alike (the UI snapshots and the screenshots rely on it)."""
    ids = count(1)
    monkeypatch.setattr(stamps, "now", lambda: FROZEN)
    monkeypatch.setattr(stamps, "new_id", lambda prefix: f"{prefix}-{next(ids):04d}")
    store = Store(layout)
    queue = ApprovalQueue(layout)
    args = {"name": "tabs", "description": "Indentation", "type": "user", "scope": "global", "body": "Use tabs."}
    proposal = queue.propose("remember", args, assess_remember(args, store), store, Requester(pid=1, agent="t"))
    assert (proposal.id, proposal.created_at) == ("p-0001", FROZEN)
    result = queue.apply(proposal, "approve", store=store)
    assert (result.state, result.decided_at) == ("approved", FROZEN)
    decided = json.loads((queue.decided_dir / "p-0001.json").read_text(encoding="utf-8"))
    assert decided["created_at"] == FROZEN
    fact = store.save(SaveRequest(name="spaces", description="d", type="project", body="b")).fact
    record = queue.record_auto_write(fact)
    assert (record.id, record.created_at) == ("a-0002", FROZEN)
    marker = queue.presence_marker().start()
    try:
        beat = json.loads(marker.path.read_text(encoding="utf-8"))
    finally:
        marker.stop()
    assert beat["started_at"] == beat["heartbeat_at"] == FROZEN


ROOM = [
    *sorted((REPO / "reasonix_tui" / "core" / "agent").glob("*.py")),
    REPO / "reasonix_tui" / "core" / "settings.py",
    REPO / "reasonix_tui" / "tui" / "model" / "proposals.py",
    REPO / "reasonix_tui" / "tui" / "screens" / "approval.py",
]


@pytest.mark.parametrize("path", ROOM, ids=lambda p: p.relative_to(REPO).as_posix())
def test_agent_room_modules_and_functions_stay_readable(path: Path) -> None:
    """A module under 600 lines, a function under 80 (the contributor guide's bar)."""
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 600, f"{path.name} has grown past 600 lines: split it by role"
    long = [
        f"{node.name} ({(node.end_lineno or node.lineno) - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (node.end_lineno or node.lineno) - node.lineno + 1 > 80
    ]
    assert not long, f"{path.name}: functions over 80 lines: {long}"

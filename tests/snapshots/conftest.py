"""Fixtures of the snapshot tests: a demo home at a fixed path (paths are on screen), a
frozen clock everywhere, deterministic ids, no watcher, no blinking cursors.

Audit lines carry the clock of the store that wrote them (the demo's backdated stores),
so the Activity pane shows the demo's own history."""

from __future__ import annotations

import difflib
import html
import pickle
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from ui.helpers import build_demo

from reasonix_tui.core.compat.gotime import parse_rfc3339
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import RecallTrace
from reasonix_tui.core.sessions.suggestions import Evidence, MemorySuggestion, SuggestionsView

SNAPSHOT_ROOT = Path("/tmp/reasonix-tui-snapshots")
"""Fixed parent of the snapshot homes: file paths and workspace slugs appear on screen."""


def screen_lines(svg: str) -> list[str]:
    """The text of an SVG screenshot, one string per terminal row (styles dropped)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), html.unescape(m.group(3))))
    return ["".join(t for _, t in sorted(parts)).replace("\xa0", " ").rstrip() for _, parts in sorted(rows.items())]


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool], request: pytest.FixtureRequest) -> Callable[..., bool]:
    """The plugin's ``snap_compare``; on a mismatch it also prints which screen rows differ
    (the HTML report stays on the machine that ran the tests; this lands in the CI log)."""
    from pytest_textual_snapshot import node_to_report_path

    def compare(*args: Any, **kwargs: Any) -> bool:
        ok = snap_compare(*args, **kwargs)
        if not ok:
            try:
                data = pickle.loads(node_to_report_path(request.node).read_bytes())
                expected, actual = screen_lines(str(data[1])), screen_lines(str(data[2]))
            except Exception as exc:  # noqa: BLE001 - diagnostics only
                print(f"(no screen diff: {exc})")
            else:
                diff = list(difflib.unified_diff(expected, actual, "expected", "actual", lineterm="", n=1))
                print("screen rows that differ:" if diff else "the screen text is the same (styles differ)")
                print("\n".join(diff))
        return ok

    return compare


@pytest.fixture(autouse=True)
def _frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """No blinking cursors; no key pause in the approval dialog (snapshots press keys at once)."""
    from textual.widgets import Input, TextArea

    from reasonix_tui.tui.screens.approval import ApprovalScreen

    monkeypatch.setattr(ApprovalScreen, "GUARD_SECONDS", 0.0)
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None, raising=False)


def _home(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, with_approval: bool, demo: bool = True
) -> Iterator[Layout]:
    name = request.node.name.replace("[", "-").replace("]", "")
    root = SNAPSHOT_ROOT / name
    SNAPSHOT_ROOT.mkdir(parents=True, exist_ok=True)
    with FileLock(str(SNAPSHOT_ROOT / f"{name}.lock")):
        if root.exists():
            shutil.rmtree(root)
        if demo:
            yield build_demo(root, monkeypatch, with_approval=with_approval, freeze_time=True)
        else:
            (root / "work" / "empty-project").mkdir(parents=True)
            yield Layout.resolve(home=root / "home", workspace=root / "work" / "empty-project")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def snap_demo(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
    """The demo home without pending approvals."""
    yield from _home(request, monkeypatch, with_approval=False)


@pytest.fixture
def snap_demo_approval(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
    """The demo home with its pending approval."""
    yield from _home(request, monkeypatch, with_approval=True)


@pytest.fixture
def snap_empty(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
    """A state root with nothing in it."""
    yield from _home(request, monkeypatch, with_approval=False, demo=False)


FIXED_TRACES = [
    RecallTrace.from_json(
        {
            "query": "which package manager do we use here?",
            "at": "2026-07-25T16:40:00Z",
            "source": "hook",
            "hits": [
                {
                    "id": "mem-1",
                    "ref": "project/package-manager.md",
                    "revision": 2,
                    "score": 3.412,
                    "freshness": "fresh",
                    "reason": "matched package, manager; project scope",
                },
                {
                    "id": "mem-2",
                    "ref": "global/python-version.md",
                    "revision": 2,
                    "score": 0.913,
                    "freshness": "current",
                    "reason": "matched use; global scope",
                },
            ],
            "considered": [
                {
                    "id": "mem-1",
                    "ref": "project/package-manager.md",
                    "score": 3.412,
                    "decision": "selected",
                    "detail": "rank 1",
                },
                {
                    "id": "mem-2",
                    "ref": "global/python-version.md",
                    "score": 0.913,
                    "decision": "selected",
                    "detail": "rank 2",
                },
                {
                    "id": "mem-3",
                    "ref": "project/staging-db-host.md",
                    "score": 1.204,
                    "decision": "expired",
                    "detail": "expired at 2026-07-23T17:20:00Z",
                },
                {
                    "id": "mem-4",
                    "ref": "project/commit-style.md",
                    "score": 0.201,
                    "decision": "floor",
                    "detail": "below 0.24 of the best score",
                },
            ],
            "suppressed": "",
            "used_chars": 812,
            "char_budget": 2400,
            "omitted_by_limit": 0,
            "omitted_by_budget": 0,
            "block": "# Recalled memory\n\n- fact: project/package-manager.md …",
        }
    ),
    RecallTrace.from_json(
        {
            "query": "continue",
            "at": "2026-07-25T16:20:00Z",
            "source": "hook",
            "hits": [],
            "considered": [],
            "suppressed": "generic user turn",
            "used_chars": 0,
            "char_budget": 2400,
            "omitted_by_limit": 0,
            "omitted_by_budget": 0,
            "block": "",
        }
    ),
]
"""Traces shown by the Recall snapshot (fixed, so the snapshot tests the pane, not the engine)."""

FIXED_SUGGESTIONS = [
    MemorySuggestion(
        id="memory-migrations-alembic",
        name="migrations-alembic",
        title="Database migrations always go through alembic",
        description="Database migrations always go through alembic, never hand-written SQL.",
        type="feedback",
        scope="project",
        body="Database migrations always go through alembic, never hand-written SQL.\n\n"
        "Said in session 20260720-091500.000000000-deepseek-chat on 2026-07-20; repeated in 1 more session.",
        reason="general wording (always); project rule (prohibition); correction of the previous step",
        evidence=(),
        sources=(
            Evidence(
                "session",
                "20260720-091500.000000000-deepseek-chat",
                "No, don't write the ALTER TABLE by hand. Database migrations always go through alembic, "
                "never hand-written SQL.",
                parse_rfc3339("2026-07-20T09:15:00Z"),
                "",
                6,
                "write: migrations/manual/add_memo.sql",
            ),
            Evidence(
                "session",
                "20260722-140200.000000000-deepseek-chat",
                "数据库结构改动一律走 alembic 迁移。",
                parse_rfc3339("2026-07-22T14:02:00Z"),
                "",
                3,
            ),
        ),
        score=8.0,
        reasons=(
            "general wording (always)",
            "project rule (prohibition)",
            "correction of the previous step (write: migrations/manual/add_memo.sql)",
            "said in 2 sessions",
        ),
    ),
    MemorySuggestion(
        id="memory-commit-bodies-chinese",
        name="commit-bodies-chinese",
        title="以后请用中文写提交说明的正文部分",
        description="以后请用中文写提交说明的正文部分。",
        type="feedback",
        scope="project",
        body="以后请用中文写提交说明的正文部分。",
        reason="future-facing wording (以后)",
        evidence=(),
        sources=(
            Evidence(
                "session",
                "20260722-140200.000000000-deepseek-chat",
                "以后请用中文写提交说明的正文部分。",
                parse_rfc3339("2026-07-22T14:02:00Z"),
                "",
                1,
            ),
        ),
        score=4.0,
        reasons=("future-facing wording (以后)", "answer-style preference"),
    ),
]
"""Candidates shown by the Suggestions snapshot."""


def _with_demo_ids(trace: RecallTrace, ids: dict[str, str]) -> RecallTrace:
    """The fixed trace with the demo store's real fact ids (the pane checks each hit
    against the store now: a fact that is gone or changed is marked)."""
    data = trace.to_json()
    for item in [*data.get("hits", []), *data.get("considered", [])]:
        item["id"] = ids.get(item.get("ref", ""), item.get("id", ""))
    return RecallTrace.from_json(data)


@pytest.fixture
def fixed_sidecars(monkeypatch: pytest.MonkeyPatch, snap_demo: Layout) -> None:
    """Recall traces and suggestions from fixed data instead of the engines."""
    from reasonix_tui.core.store.store import Store

    ids = {f.ref: str(f.id) for f in Store(snap_demo).list_all()}
    traces = [_with_demo_ids(t, ids) for t in FIXED_TRACES]
    monkeypatch.setattr("reasonix_tui.tui.reads.last_trace", lambda layout: traces[0])
    monkeypatch.setattr("reasonix_tui.tui.reads.trace_history", lambda layout, limit=200: list(traces))
    view = SuggestionsView(memories=tuple(FIXED_SUGGESTIONS), available=True, sessions=2, window_days=30, more=3)
    monkeypatch.setattr("reasonix_tui.tui.reads.scan_suggestions", lambda layout, settings, now=None: view)

"""Private by default: state-root folders 0700 and reasonix-tui's files 0600 (traces,
search misses, audit, logs, approvals, caches, session state), existing ones tightened
on the first write; prompts stored with secrets redacted; a setting keeps no prompt."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from reasonix_tui.core.agent.approvals import ApprovalQueue
from reasonix_tui.core.agent.proposals import Requester
from reasonix_tui.core.agent.writes import agent_forget
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall.service import run_recall
from reasonix_tui.core.recall.trace import TraceStore
from reasonix_tui.core.sessions.history_tool import log_miss
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations import hooks
from reasonix_tui.integrations.hook_log import append_log

from .support import req, seeded

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")

REASONIX_FORMAT = {".md"}  # fact files, MEMORY.md, revisions, archives keep Reasonix's 0644 (in 0700 folders)

SECRET_PROMPT = "deploy billing with key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY and password=hunter2"


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.lstat().st_mode)


def _exercise(layout: Layout) -> None:
    store = seeded(layout, "billing")
    store.archive("billing")
    store.save(req("deploy"))
    run_recall(layout, SECRET_PROMPT)
    log_miss(layout, "nothing matches AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "project", None, "", "cli")
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s-1",
        "cwd": str(layout.workspace),
        "prompt": SECRET_PROMPT,
    }
    hooks.run_hook("user-prompt-submit", json.dumps(payload), home=str(layout.root))
    append_log(layout, "a log line")
    outcome = agent_forget("deploy", Store(layout), requester=Requester.current(source="cli"), wait=0)
    assert outcome.status == "pending"
    assert ApprovalQueue(layout).pending()


def test_everything_under_the_root_is_private(layout: Layout) -> None:
    _exercise(layout)
    checked = 0
    for p in [layout.root, *layout.root.rglob("*")]:
        if p.is_symlink():
            continue
        if p.is_dir():
            assert _mode(p) == 0o700, f"{p} is {oct(_mode(p))}"
        elif p.suffix in REASONIX_FORMAT and "reasonix-tui" not in p.parts:
            assert _mode(p) & 0o077 in (0, 0o044), p
        else:
            assert _mode(p) == 0o600, f"{p} is {oct(_mode(p))}"
        checked += 1
    assert checked > 15
    for name in ("audit.jsonl", "hooks.log"):
        assert (layout.tui_dir / name).exists()
    assert (layout.recall_dir / "last.json").exists() and (layout.tui_dir / "history-misses.jsonl").exists()


def test_existing_open_files_and_folders_are_tightened(layout: Layout) -> None:
    seeded(layout, "billing")
    for d in (layout.root, layout.tui_dir, layout.project_dir):
        os.chmod(d, 0o755)
    os.chmod(layout.audit_log, 0o644)
    Store(layout).save(req("second"))
    for d in (layout.root, layout.tui_dir, layout.project_dir):
        assert _mode(d) == 0o700, d
    assert _mode(layout.audit_log) == 0o600


def test_prompts_are_stored_redacted(layout: Layout) -> None:
    _exercise(layout)
    for p in (
        layout.recall_dir / "last.json",
        layout.recall_dir / "history.jsonl",
        layout.tui_dir / "history-misses.jsonl",
    ):
        text = p.read_text()
        assert "AIzaSyD-9tSrke72PouQMnMX" not in text, p
        assert "hunter2" not in text, p
    last = TraceStore(layout).last()
    assert last is not None and "[redacted]" in last.query and "deploy billing" in last.query


def test_prompt_recording_can_be_turned_off(layout: Layout) -> None:
    seeded(layout, "billing")
    layout.settings_file.parent.mkdir(parents=True, exist_ok=True)
    layout.settings_file.write_text("[privacy]\nrecord_prompts = false\n")
    trace = run_recall(layout, "how does the billing service deploy, zebracorn")
    assert trace.hits and "zebracorn" in trace.query  # the caller still gets the recall
    log_miss(layout, "some rare words", "project", None, "", "cli")
    for p in (
        layout.recall_dir / "last.json",
        layout.recall_dir / "history.jsonl",
        layout.tui_dir / "history-misses.jsonl",
    ):
        text = p.read_text()
        assert "zebracorn" not in text and "rare words" not in text, p
    assert TraceStore(layout).last().query == ""  # type: ignore[union-attr]

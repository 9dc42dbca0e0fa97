"""Only regular files are opened, never blocking: FIFOs, sockets and devices anywhere in
the state root are skipped or refused with a clear message; settings that cannot be read
fall back to defaults with a warning; the hook answers whatever the root holds.

The subprocess ``timeout`` is only a guard: on the code before this change each of these
commands hung in ``open()`` forever."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from reasonix_tui.core.agent.approvals import ApprovalQueue
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import load_settings
from reasonix_tui.core.store.store import Store

from .support import cli, hook, req, seeded

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def test_fifo_named_like_a_fact_is_reported_and_saves_go_on(layout: Layout) -> None:
    store = seeded(layout, "billing")
    os.mkfifo(layout.project_dir / "trap.md")
    done = cli(layout, "memory", "save", "--name", "other", "--description", "d", "--body", "b", timeout=30)
    assert done.returncode == 0, done.stderr
    snap = Store(layout).snapshot()
    assert any(e.path.endswith("trap.md") and "not a regular file" in e.message for e in snap.errors)
    assert {f.name for f in snap.facts} == {"billing", "other"}
    assert store.find("other") is not None


def test_fifo_at_memory_md_is_refused_without_hanging(layout: Layout) -> None:
    seeded(layout, "billing")
    (layout.project_dir / "MEMORY.md").unlink()
    os.mkfifo(layout.project_dir / "MEMORY.md")
    done = cli(layout, "memory", "save", "--name", "other", "--description", "d", "--body", "b", timeout=30)
    assert done.returncode == 1
    err = done.stderr.decode()
    assert "MEMORY.md" in err and "FIFO" in err and len(err.strip().splitlines()) == 1
    assert not (layout.project_dir / "other.md").exists()


def test_fifo_at_audit_log_refuses_the_change_and_undoes_it(layout: Layout) -> None:
    store = seeded(layout, "billing")
    layout.audit_log.unlink()
    os.mkfifo(layout.audit_log)
    done = cli(layout, "memory", "forget", "billing", timeout=30)
    assert done.returncode == 1
    assert "FIFO" in done.stderr.decode()
    assert store.find("billing") is not None  # not archived without its audit line


def test_fifo_settings_falls_back_to_defaults_with_a_warning(layout: Layout) -> None:
    seeded(layout, "billing")
    os.mkfifo(layout.settings_file)
    settings = load_settings(layout.root)
    assert settings.recall_limit == 4
    assert any("FIFO" in p and "defaults apply" in p for p in settings.problems)
    done = cli(layout, "memory", "list", timeout=30)
    assert done.returncode == 0
    assert b"billing" in done.stdout
    assert b"warning" in done.stderr and b"FIFO" in done.stderr


def test_hook_answers_whatever_the_root_holds(layout: Layout) -> None:
    seeded(layout, "billing")
    os.mkfifo(layout.settings_file)
    os.mkfifo(layout.project_dir / "trap.md")
    layout.recall_dir.mkdir(parents=True, exist_ok=True)
    os.mkfifo(layout.recall_dir / "history.jsonl")
    done = hook(layout, "how does the billing service deploy?", timeout=30)
    assert done.returncode == 0
    out = json.loads(done.stdout)
    assert "billing" in out["hookSpecificOutput"]["additionalContext"]


def test_fifos_in_the_approval_queue_are_skipped(layout: Layout) -> None:
    queue = ApprovalQueue(layout)
    (layout.approvals_dir / "presence").mkdir(parents=True)
    os.mkfifo(layout.approvals_dir / "presence" / "host-1.json")
    (layout.approvals_dir / "results").mkdir(parents=True)
    os.mkfifo(layout.approvals_dir / "results" / "prop-20260101T000000-abcdef0123.json")
    assert queue.presence() == []
    assert queue.read_result("prop-20260101T000000-abcdef0123") is None
    done = cli(layout, "approval-status", "prop-20260101T000000-abcdef0123", "--wait", "0", timeout=30)
    assert done.returncode != 0 or b"pending" in done.stdout or b"not" in done.stdout


def test_open_regular_refuses_fifo_socket_and_device(tmp_path: Path) -> None:
    from reasonix_tui.core.store import safeio

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(safeio.NotRegularFile, match="FIFO"):
        safeio.read_regular(fifo)
    sock_path = tmp_path / "s"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        srv.bind(str(sock_path))
        with pytest.raises(OSError):
            safeio.read_regular(sock_path)
    finally:
        srv.close()
    if os.path.exists("/dev/zero"):
        with pytest.raises(safeio.NotRegularFile, match="character device"):
            safeio.read_regular("/dev/zero")


def test_store_lock_fifo_is_refused_not_waited_on(layout: Layout) -> None:
    seeded(layout, "billing")
    layout.lock_file.unlink()
    os.mkfifo(layout.lock_file)
    done = cli(layout, "memory", "save", "--name", "x", "--description", "d", "--body", "b", timeout=30)
    assert done.returncode == 1
    assert b"store.lock" in done.stderr and b"FIFO" in done.stderr


def test_saving_never_opens_a_fact_fifo_under_the_lock(layout: Layout) -> None:
    store = seeded(layout, "billing")
    os.mkfifo(layout.project_dir / "trap.md")
    # An agent asks to save a fact with the FIFO's name: refused at once, not blocked.
    done = cli(layout, "memory", "save", "--name", "trap", "--description", "d", "--body", "b", timeout=30)
    assert done.returncode == 1
    assert len(done.stderr.decode().strip().splitlines()) == 1
    store.save(req("after"))  # the lock was released: other writers go on

"""A full disk or a read-only root: every operation either completes with its audit line
or is rolled back, with one line that says "no space left" / "read-only" (exit 1, never
"internal error"); the hook still prints the recall it computed. Failures are injected
into the writes (no tmpfs needed)."""

from __future__ import annotations

import errno
import io
import json
import os
from contextlib import redirect_stderr

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store import index_md, journal, safeio, tempfiles
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations import cli, hooks

from .support import seeded


def _fail_writes_to(monkeypatch: pytest.MonkeyPatch, code: int, match: str = "") -> None:
    """Every temporary file written (whose target contains ``match``) fails with ``code``."""
    real = tempfiles.prepare_temp

    def prepare(dfd: int, data: bytes, mode: int, durable: bool = True, name: str = "") -> str:
        if not match or match.encode() in data or match in os.readlink(f"/proc/self/fd/{dfd}"):
            raise OSError(code, os.strerror(code))
        return real(dfd, data, mode, durable, name)

    monkeypatch.setattr(tempfiles, "prepare_temp", prepare)


def _run_cli(layout: Layout, *argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with redirect_stderr(err):
        code = cli.main(["--home", str(layout.root), "--workspace", str(layout.workspace), *argv])
    return code, err.getvalue()


def _audit(layout: Layout) -> list[dict]:
    return [json.loads(x) for x in layout.audit_log.read_text().splitlines() if x.strip()]


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc")
def test_forget_on_a_full_disk_is_rolled_back_with_one_line(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout, "billing", "deploy")
    before = index_md.read_index(str(layout.project_dir))
    lines = len(_audit(layout))
    _fail_writes_to(monkeypatch, errno.ENOSPC, match="# Memory")  # MEMORY.md cannot be rewritten
    code, err = _run_cli(layout, "memory", "forget", "billing")
    assert code == 1
    assert "no space left on device" in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1
    monkeypatch.undo()
    assert Store(layout).find("billing") is not None  # not archived
    assert index_md.read_index(str(layout.project_dir)) == before
    assert (
        not list((layout.project_dir / ".archive").glob("*.md")) if (layout.project_dir / ".archive").exists() else True
    )
    new = _audit(layout)[lines:]
    assert all(not e["ok"] for e in new)  # the refusal is logged, no success line


def test_save_on_a_read_only_root_says_so(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout, "billing")
    _fail_writes_to(monkeypatch, errno.EROFS)
    code, err = _run_cli(layout, "memory", "save", "--name", "billing", "--description", "x", "--body", "new")
    assert code == 1
    assert "read-only file system" in err and len(err.strip().splitlines()) == 1
    monkeypatch.undo()
    assert Store(layout).get("billing").revision == 1


def test_audit_line_that_cannot_be_written_undoes_the_change(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    store = seeded(layout, "billing")

    def full(*_: object, **__: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safeio, "append_bytes", full)
    with pytest.raises(journal.StorageError, match="no space left"):
        store.archive("billing")
    monkeypatch.undo()
    assert Store(layout).find("billing") is not None
    assert "billing" in index_md.read_index(str(layout.project_dir))
    assert not journal.pending(layout.root)


def test_hook_prints_the_recall_on_a_read_only_root(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout, "billing")
    _fail_writes_to(monkeypatch, errno.EROFS)

    def ro_append(*_: object, **__: object) -> int:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(safeio, "append_bytes", ro_append)
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s-1",
        "cwd": str(layout.workspace),
        "prompt": "how does the billing service deploy?",
    }
    out = hooks.run_hook("user-prompt-submit", json.dumps(payload), home=str(layout.root))
    assert "billing" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def test_hook_prints_the_recall_on_a_full_disk(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded(layout, "billing")
    _fail_writes_to(monkeypatch, errno.ENOSPC)
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s-2",
        "cwd": str(layout.workspace),
        "prompt": "billing deploy",
    }
    out = hooks.run_hook("user-prompt-submit", json.dumps(payload), home=str(layout.root))
    assert out and "billing" in out


def test_describe_os_error_is_one_line() -> None:
    assert journal.describe_os_error(OSError(errno.ENOSPC, "x"), "/r/a.md") == (
        "no space left on device (/r/a.md); nothing was changed"
    )
    assert "read-only file system" in journal.describe_os_error(OSError(errno.EROFS, "x"))

"""The warm hook server's life: it goes away when it can no longer be reached or serve
its root, tidies up after itself, and starts with a clean environment (issue 11 point 9,
issue 13 point 5)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.integrations import hook_client

from ._hookd_support import running_server, wait_for

pytestmark = pytest.mark.skipif(not hook_client.enabled({}) or sys.platform == "win32", reason="no Unix sockets")


@pytest.fixture(autouse=True)
def daemon_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONIX_TUI_HOOK_DAEMON", "1")


def _run_files(root: Path) -> list[str]:
    rd = hook_client.run_dir(root)
    return sorted(p.name for p in rd.iterdir()) if rd.exists() else []


def test_sigterm_removes_the_run_files(layout: Layout) -> None:
    with running_server(layout.root) as proc:
        pid_file = hook_client.run_dir(layout.root) / "hookd.json"
        assert json.loads(pid_file.read_text())["pid"] == proc.pid
        assert oct(pid_file.stat().st_mode & 0o777) == "0o600"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    assert not pid_file.exists()
    assert not os.path.exists(hook_client.socket_path(layout.root))
    assert _run_files(layout.root) == ["hookd.lock"]


def test_a_deleted_socket_makes_the_server_exit_and_free_the_root(layout: Layout) -> None:
    with running_server(layout.root) as proc:
        os.unlink(hook_client.socket_path(layout.root))
        assert proc.wait(timeout=60) == 0
        assert not (hook_client.run_dir(layout.root) / "hookd.json").exists()
    # the lock is free: a new server starts and answers
    with running_server(layout.root):
        assert hook_client.status(str(layout.root))


def test_a_replaced_socket_is_left_to_its_new_owner(layout: Layout) -> None:
    path = hook_client.socket_path(layout.root)
    with running_server(layout.root) as proc:
        os.unlink(path)
        Path(path).write_text("not a socket")  # something else took the path
        assert proc.wait(timeout=60) == 0
    assert Path(path).read_text() == "not a socket"


def test_a_removed_state_root_makes_the_server_exit(layout: Layout) -> None:
    with running_server(layout.root) as proc:
        shutil.rmtree(layout.root)
        assert proc.wait(timeout=60) == 0
    assert not layout.root.exists()  # and it did not recreate it


def test_the_server_starts_with_an_allow_list_environment(
    layout: Layout, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if not Path("/proc/self/environ").exists():
        pytest.skip("reads /proc/<pid>/environ")
    secrets = {
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "OPENAI_API_KEY": "sk-test",
        "CLAUDE_CODE_SESSION_ID": "sess",
        "SSH_AUTH_SOCK": str(tmp_path / "agent.sock"),
        "CLAUDE_PROJECT_DIR": str(layout.workspace),
        "CURSOR_PROJECT_DIR": str(layout.workspace),
        "GITHUB_TOKEN": "ghp_x",
        "CODEX_HOME": str(tmp_path),
        "REASONIX_TUI_SESSION": "sess",
    }
    for key, value in secrets.items():
        monkeypatch.setenv(key, value)
    hook_client.spawn(str(layout.root), str(layout.workspace))
    info = wait_for(lambda: hook_client.status(str(layout.root)))
    assert info, "the spawned server did not answer"
    pid = info["pid"]  # type: ignore[index]
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
        names = {item.split(b"=", 1)[0].decode() for item in raw.split(b"\0") if item}
        assert not names & set(secrets), names & set(secrets)
        assert {"PATH", "HOME", "PYTHONPATH"} <= names
        assert names <= set(hook_client.SERVER_ENV_NAMES) | {"PYTHONPATH"} | {
            n for n in names if n.startswith(("LC_", "OPENBLAS_", "OMP_", "MKL_"))
        }
    finally:
        hook_client.shutdown(str(layout.root))
        wait_for(lambda: not Path(f"/proc/{pid}").exists() or hook_client.status(str(layout.root)) is None)


def test_request_env_carries_only_what_changes_an_answer() -> None:
    env = {
        "CLAUDE_PROJECT_DIR": "/p",
        "CURSOR_PROJECT_DIR": "/c",
        "REASONIX_TUI_RECALL_MODE": "enhanced",
        "ANTHROPIC_API_KEY": "k",
        "PATH": "/bin",
        "SSH_AUTH_SOCK": "/s",
        "REASONIX_TUI_HOOK_DAEMON": "1",
        "HOME": "/h",
    }
    assert hook_client.request_env(env) == {
        "CLAUDE_PROJECT_DIR": "/p",
        "CURSOR_PROJECT_DIR": "/c",
        "REASONIX_TUI_RECALL_MODE": "enhanced",
        "HOME": "/h",
    }
    assert hook_client.server_env(env, pythonpath="/pkg") == {"PATH": "/bin", "HOME": "/h", "PYTHONPATH": "/pkg"}

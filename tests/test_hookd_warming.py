"""The warm hook server's ping says whether its warm-up still runs (benchmarks and tools
wait on it instead of guessing)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from reasonix_tui.integrations import hook_client, hookd


@pytest.mark.skipif(not hook_client.enabled({}), reason="no Unix sockets")
def test_a_ping_says_warming_until_the_warm_up_is_done(state_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONIX_TUI_HOOK_DAEMON", "1")
    root = str(state_root)
    release = threading.Event()
    logged: list[str] = []
    server = threading.Thread(
        target=hookd.serve,
        args=(root, lambda req: "", logged.append),
        kwargs={"warm": lambda: release.wait(30), "idle_seconds": 60},
        daemon=True,
    )
    server.start()
    try:
        deadline = time.monotonic() + 30
        info = None
        while time.monotonic() < deadline and not info:
            info = hook_client.status(root)
            time.sleep(0.02)
        assert info is not None and info["warming"] is True
        release.set()
        while time.monotonic() < deadline and info and info["warming"]:
            time.sleep(0.02)
            info = hook_client.status(root)
        assert info is not None and info["warming"] is False
    finally:
        release.set()
        hook_client.shutdown(root)
        server.join(30)
    assert not server.is_alive()

"""The warm hook server against slow, stuck and foreign peers (issue 11, point 9).

* a slow same-user peer holds only its own connection: other clients are answered
  meanwhile, and the peer is cut off after the server's per-connection deadline;
* the client gives up on a listener that never answers, or trickles bytes forever,
  instead of waiting on it (it then answers in-process);
* what a listener at the socket path sends is read up to a cap and believed only when
  it is our reply: a foreign listener's 54k characters are never printed.

No timed assertions: "answered while the peer was still trickling" is an ordering, not a
duration.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations import hook_client
from reasonix_tui.integrations.hook_answers import MAX_CONTEXT

from ._hookd_support import Listener, Peer, exe, running_server, wait_for

pytestmark = pytest.mark.skipif(not hook_client.enabled({}) or sys.platform == "win32", reason="no Unix sockets")


@pytest.fixture(autouse=True)
def daemon_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONIX_TUI_HOOK_DAEMON", "1")


def _prompt(layout: Layout, prompt: str) -> str:
    return json.dumps(
        {"session_id": "s-1", "cwd": str(layout.workspace), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    )


def _run_hook(layout: Layout, stdin: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, REASONIX_TUI_HOOK_DAEMON="1")
    return subprocess.run(
        [*exe(), "--home", str(layout.root), "hook", "user-prompt-submit"],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_slow_peer_does_not_hold_up_other_clients(layout: Layout) -> None:
    root = str(layout.root)
    with running_server(layout.root):
        peer = Peer(hook_client.socket_path(root))
        peer.start()
        assert peer.connected.wait(30)
        try:
            # The server is busy reading the peer's never-ending request; a single-threaded
            # server would answer nobody else until the peer gave up.
            reply = hook_client.request(root, {"op": "ping"}, timeout=30)
            assert reply is not None and reply["ok"] is True
            assert peer.is_alive() and not peer.cut_off
            # ...and the peer itself is cut off after the per-connection deadline.
            peer.join(60)
            assert peer.cut_off
        finally:
            peer.stop.set()
            peer.join(5)


def test_many_stuck_connections_cannot_starve_the_server(layout: Layout) -> None:
    root = str(layout.root)
    with running_server(layout.root):
        peers = [Peer(hook_client.socket_path(root)) for _ in range(hook_client.MAX_WORKERS + 4)]
        for p in peers:
            p.start()
        try:
            for p in peers:
                assert p.connected.wait(30)
            # Once the deadline has cut the stuck peers off, the server answers again.
            assert wait_for(lambda: hook_client.request(root, {"op": "ping"}, timeout=5), seconds=60)
        finally:
            for p in peers:
                p.stop.set()
            for p in peers:
                p.join(5)


@pytest.mark.parametrize("behaviour", ["silent", "trickle"])
def test_the_client_gives_up_on_a_listener_that_never_answers(layout: Layout, behaviour: str) -> None:
    path = hook_client.socket_path(layout.root)
    Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    trickling = {"done": False}

    def reply(request: bytes) -> bytes | None:
        if behaviour == "silent":
            return None
        return b" " * 10  # never a newline: a reader with only a per-recv timeout would keep going

    listener = Listener(path, reply)
    listener.start()
    try:
        assert hook_client.request(str(layout.root), {"op": "ping"}) is None
        assert listener.requests, "the client did reach the listener"
    finally:
        trickling["done"] = True
        listener.stop.set()
        listener.join(10)


def test_a_dead_socket_is_not_waited_on(layout: Layout) -> None:
    path = hook_client.socket_path(layout.root)
    Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    listener = Listener(path, lambda r: b"{}\n")
    listener.sock.close()  # bound, never accepting: connect is refused
    assert os.path.exists(path)
    assert hook_client.request(str(layout.root), {"op": "ping"}) is None


def test_replies_are_read_up_to_a_cap(layout: Layout) -> None:
    path = hook_client.socket_path(layout.root)
    Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    listener = Listener(path, lambda r: b"A" * (hook_client.MAX_REPLY * 4))
    listener.start()
    try:
        assert hook_client.request(str(layout.root), {"op": "ping"}, timeout=30) is None
    finally:
        listener.stop.set()
        listener.join(10)


def _echo_nonce(output: str):  # type: ignore[no-untyped-def]
    def reply(request: bytes) -> bytes:
        nonce = json.loads(request)["nonce"]
        return json.dumps({"ok": True, "nonce": nonce, "output": output}).encode() + b"\n"

    return reply


@pytest.mark.parametrize(
    "output",
    [
        "x" * 54_087,  # the rogue text of the report
        json.dumps(
            {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "y" * (MAX_CONTEXT + 1)}}
        )
        + "\n",
        json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "wrong event"}})
        + "\n",
        json.dumps(
            {
                "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ok"},
                "decision": "block",
                "reason": "injected",
            }
        )
        + "\n",
    ],
    ids=["54k-chars", "over-the-cap", "wrong-event", "extra-keys"],
)
def test_a_foreign_listener_is_never_printed(layout: Layout, output: str) -> None:
    Store(layout).save(
        SaveRequest(
            name="deploy-target",
            type="project",
            description="Deploys go to k8s-stage-2",
            body="helm upgrade --install app deploy/chart on k8s-stage-2",
        )
    )
    path = hook_client.socket_path(layout.root)
    Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    listener = Listener(path, _echo_nonce(output))
    listener.start()
    try:
        proc = _run_hook(layout, _prompt(layout, "how do we deploy to k8s-stage-2 with helm?"))
    finally:
        listener.stop.set()
        listener.join(10)
    assert listener.requests, "the hook did ask the listener"
    assert proc.returncode == 0
    # The in-process answer, not the listener's text.
    data = json.loads(proc.stdout)
    context = data["hookSpecificOutput"]["additionalContext"]
    assert set(data) == {"hookSpecificOutput"} and context.startswith("<memory-recall>")
    assert "xxxxxxxx" not in proc.stdout and "injected" not in proc.stdout and len(context) <= MAX_CONTEXT


def test_a_listener_that_does_not_echo_the_nonce_is_not_ours(layout: Layout) -> None:
    path = hook_client.socket_path(layout.root)
    Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    listener = Listener(path, lambda r: json.dumps({"ok": True, "pid": 1, "stamp": "x"}).encode() + b"\n")
    listener.start()
    try:
        assert hook_client.status(str(layout.root)) is None
    finally:
        listener.stop.set()
        listener.join(10)

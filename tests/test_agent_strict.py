"""Strict agent input: an invalid type, scope, activation, volatility or expiry from the
CLI (``reasonix-tui remember``) or MCP (``remember``) is refused — exit 2 / ``isError`` —
and nothing is queued or saved."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest
from cli_exe import exe

from reasonix_tui.core.agent.approvals import ApprovalQueue
from reasonix_tui.core.agent.writes import agent_remember, check_agent_arguments
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.model import InvalidInput
from reasonix_tui.core.store.store import Store

BAD = [
    ({"type": "banana"}, "type must be one of user, feedback, project, reference"),
    ({"scope": "team"}, "scope must be one of project, global"),
    ({"activation": "always"}, "activation must be one of relevant, pinned"),
    ({"volatility": "fast"}, "volatility must be one of evergreen, stable, volatile"),
    ({"expires_at": "next tuesday"}, 'expires_at must be RFC3339, YYYY-MM-DD, or "never"'),
    ({"expires_at": "2020-01-01"}, "is in the past"),
    ({"expires_at": "2026-02-30"}, "expires_at must be RFC3339"),
    ({"expected_revision": -1, "id": "mem-x"}, "expected_revision must not be negative"),
]
IDS = ["type", "scope", "activation", "volatility", "expiry-text", "expiry-past", "expiry-bad-day", "revision"]
BASE = {
    "name": "ci-runner",
    "description": "CI runs on buildkite linux-large agents",
    "body": "The CI pipeline runs on buildkite agents labelled linux-large.",
}


def nothing_happened(layout: Layout) -> None:
    assert ApprovalQueue(layout).pending() == []
    assert Store(layout).find("ci-runner") is None


@pytest.mark.parametrize(("extra", "message"), BAD, ids=IDS)
def test_cli_refuses_with_exit_2(layout: Layout, extra: dict[str, Any], message: str) -> None:
    args = []
    for key, value in {**BASE, **extra}.items():
        args += [f"--{key.replace('_', '-')}", str(value)]
    proc = subprocess.run(
        [*exe(), "--home", str(layout.root), "--workspace", str(layout.workspace), "remember", *args, "--wait", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "REASONIX_TUI_HOOK_DAEMON": "0"},
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr and proc.stderr.count("\n") == 1 and proc.stdout == ""
    nothing_happened(layout)


@pytest.mark.parametrize(("extra", "message"), BAD, ids=IDS)
def test_mcp_arguments_are_refused_as_a_tool_error(layout: Layout, extra: dict[str, Any], message: str) -> None:
    outcome = agent_remember({**BASE, **extra}, Store(layout), wait=0)
    assert (outcome.status, outcome.exit_code) == ("invalid", 2) and message in outcome.message
    nothing_happened(layout)


def test_over_the_real_mcp_channel(layout: Layout) -> None:
    proc = subprocess.Popen(
        [*exe(), "--home", str(layout.root), "mcp", "--workspace", str(layout.workspace)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def call(message: dict[str, Any]) -> dict[str, Any]:
        proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        while True:
            reply = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
            if reply.get("id") == message.get("id"):
                return reply

    try:
        call(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for n, (extra, message) in enumerate(BAD, start=1):
            reply = call(
                {
                    "jsonrpc": "2.0",
                    "id": n,
                    "method": "tools/call",
                    "params": {"name": "remember", "arguments": {**BASE, **extra}},
                }
            )
            assert reply["result"]["isError"] is True, reply
            assert message in reply["result"]["content"][0]["text"]
        wrong_type = call(
            {
                "jsonrpc": "2.0",
                "id": 99,
                "method": "tools/call",
                "params": {"name": "remember", "arguments": {**BASE, "activation": 5}},
            }
        )
        assert wrong_type.get("error") or wrong_type["result"]["isError"] is True
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    nothing_happened(layout)


def test_valid_spellings_still_pass() -> None:
    check_agent_arguments(
        {
            "type": " Project ",
            "scope": "GLOBAL",
            "activation": "Pinned",
            "volatility": "stable",
            "expires_at": "2999-01-01",
            "expected_revision": 3,
        }
    )
    check_agent_arguments({"expires_at": "never"})
    with pytest.raises(InvalidInput):
        check_agent_arguments({"type": "projects"})

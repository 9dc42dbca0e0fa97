"""``reasonix-tui mcp``'s static front (``integrations/mcp_front.py``): the handshake is
answered without the MCP SDK, from the same data the SDK server lists (no drift), and
everything else reaches the SDK server unchanged. Real subprocesses speaking
newline-delimited JSON-RPC, as Claude Code and Codex do."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_exe import exe

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations import mcp_tools
from reasonix_tui.integrations.mcp_front import scrub


class Client:
    """A line-oriented JSON-RPC client over a ``reasonix-tui mcp`` subprocess."""

    def __init__(self, layout: Layout, env: dict[str, str] | None = None) -> None:
        e = dict(os.environ)
        e.update(env or {})
        self.proc = subprocess.Popen(
            [*exe(), "--home", str(layout.root), "mcp", "--workspace", str(layout.workspace)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=e,
        )
        self.next_id = 0

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(raw.rstrip(b"\n") + b"\n")
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the server closed its output"
        return json.loads(line)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            reply = self.read()
            if reply.get("id") == self.next_id:
                return reply

    def handshake(self, version: str = "2025-06-18") -> dict[str, Any]:
        init = self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return init

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)


@pytest.fixture
def store(layout: Layout) -> Store:
    s = Store(layout)
    s.save(
        SaveRequest(
            name="pkg-manager",
            title="Package manager",
            type="project",
            description="Package manager is pnpm",
            body="Use pnpm install, never npm install.",
        )
    )
    return s


def _session(layout: Layout, env: dict[str, str] | None = None) -> dict[str, Any]:
    client = Client(layout, env)
    try:
        out = {
            "init": client.handshake("2025-06-18"),
            "init_new": None,
            "tools": client.request("tools/list"),
            "prompts": client.request("prompts/list"),
            "resources": client.request("resources/list"),
            "templates": client.request("resources/templates/list"),
            "ping": client.request("ping"),
        }
    finally:
        client.close()
    client = Client(layout, env)
    try:
        out["init_new"] = client.handshake("1999-01-01")  # unknown version: the newest is offered
    finally:
        client.close()
    for value in out.values():
        value.pop("id", None)
    return out


def test_the_front_answers_exactly_as_the_sdk_server(layout: Layout, store: Store) -> None:
    front = _session(layout)
    sdk = _session(layout, {"REASONIX_TUI_MCP_FRONT": "0"})
    assert front == sdk
    assert [t["name"] for t in front["tools"]["result"]["tools"]] == list(mcp_tools.TOOL_SPECS)
    assert front["init"]["result"]["protocolVersion"] == "2025-06-18"


async def test_static_tools_equal_the_sdk_servers_list(layout: Layout) -> None:
    from reasonix_tui.integrations.mcp_server import build_server

    server = build_server(str(layout.workspace), str(layout.root))
    listed = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in await server.list_tools()]
    assert listed == mcp_tools.tools()


def test_handshake_data_matches_the_sdk() -> None:
    from mcp.server import runner

    from reasonix_tui.core.sessions.history_docs import HISTORY_TOOL_DESCRIPTION

    assert mcp_tools.PROTOCOL_VERSIONS == tuple(runner.HANDSHAKE_PROTOCOL_VERSIONS)
    assert mcp_tools.PROTOCOL_VERSIONS[-1] == runner.LATEST_HANDSHAKE_VERSION
    assert mcp_tools.HISTORY_DESCRIPTION == HISTORY_TOOL_DESCRIPTION


def test_the_handshake_does_not_wait_for_the_sdk(layout: Layout, store: Store, tmp_path: Path) -> None:
    """An ``mcp`` package that cannot be imported until the test says so: the handshake
    is answered meanwhile; the first tool call then gets a clear error, not silence."""
    fake = tmp_path / "fake-sdk" / "mcp"
    fake.mkdir(parents=True)
    release = tmp_path / "release"
    (fake / "__init__.py").write_text(
        "import os, time\n"
        f"for _ in range(600):\n    if os.path.exists({str(release)!r}):\n        break\n    time.sleep(0.05)\n"
        "raise ImportError('the MCP SDK is held back by the test')\n"
    )
    env = {"PYTHONPATH": os.pathsep.join([str(fake.parent), os.environ.get("PYTHONPATH", "")])}
    client = Client(layout, env)
    try:
        init = client.handshake()
        tools = client.request("tools/list")
        assert init["result"]["serverInfo"]["name"] == "reasonix-tui"
        assert [t["name"] for t in tools["result"]["tools"]] == list(mcp_tools.TOOL_SPECS)
        assert not release.exists()  # answered while the SDK import was still blocked
        release.write_text("go")
        call = client.request("tools/call", {"name": "memory", "arguments": {"op": "list"}})
        assert call["error"]["code"] == -32603 and "could not start" in call["error"]["message"]
        assert "held back" in call["error"]["message"]
    finally:
        release.write_text("go")
        assert client.close() == 0


def test_tool_calls_reach_the_sdk_server(layout: Layout, store: Store) -> None:
    client = Client(layout)
    try:
        client.handshake()
        listed = client.request("tools/call", {"name": "memory", "arguments": {"op": "list"}})
        assert "pkg-manager" in listed["result"]["content"][0]["text"]
        bad = client.request("tools/call", {"name": "remember", "arguments": {"description": "x"}})
        assert bad["result"]["isError"] is True or "error" in bad
    finally:
        assert client.close() == 0


def test_a_lone_surrogate_gets_an_answer(layout: Layout, store: Store) -> None:
    client = Client(layout)
    try:
        client.handshake()
        client.next_id += 1
        raw = (
            '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "memory", '
            '"arguments": {"op": "search", "query": "pnpm \\ud800 install"}}}' % client.next_id
        )
        client.send(raw.encode())
        reply = client.read()
        assert reply["id"] == client.next_id and "result" in reply
        assert "pkg-manager" in reply["result"]["content"][0]["text"]
    finally:
        client.close()


def test_a_line_that_is_not_json_gets_a_parse_error(layout: Layout) -> None:
    client = Client(layout)
    try:
        client.handshake()
        client.send(b"{not json")
        assert client.read() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        assert client.request("ping")["result"] == {}
    finally:
        client.close()


def test_a_client_that_skips_the_handshake_is_served_by_the_sdk(layout: Layout, store: Store) -> None:
    client = Client(layout)
    try:
        reply = client.request("tools/list")  # no initialize: not ours to answer statically
        assert "error" in reply or "result" in reply
    finally:
        client.close()


def test_scrub_replaces_only_lone_surrogates() -> None:
    assert scrub({"a\ud800": ["x\udfffy", 1, None], "ok": "é😀"}) == {"a\ufffd": ["x\ufffdy", 1, None], "ok": "é😀"}

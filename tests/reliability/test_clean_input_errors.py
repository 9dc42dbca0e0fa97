"""Clean input errors: non-UTF-8 input is exit 2 naming the source; a lone UTF-16
surrogate is answered (an MCP reply, a hook recall), never silence; errors stay on one
line even when a ref holds a newline."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall.trace import TraceStore
from reasonix_tui.integrations import hooks

from .support import cli, exe, run_main, seeded


def test_non_utf8_body_file_is_exit_2_naming_it(layout: Layout, tmp_path: Path) -> None:
    bad = tmp_path / "body.txt"
    bad.write_bytes(b"caf\xe9 latin-1\n")
    code, _, err = run_main(layout, "memory", "save", "--name", "x", "--description", "d", "--body-file", str(bad))
    assert code == 2
    assert f"--body-file {bad} is not valid UTF-8" in err and len(err.strip().splitlines()) == 1
    assert "internal error" not in err


def test_non_utf8_stdin_is_exit_2_naming_it(layout: Layout) -> None:
    done = cli(layout, "memory", "save", "--name", "x", "--description", "d", "--body-file", "-",
               stdin=b"\xff\xfe\x00oops")
    assert done.returncode == 2
    assert b"stdin is not valid UTF-8" in done.stderr


@pytest.mark.skipif(os.name != "posix", reason="argv bytes")
def test_non_utf8_argument_is_exit_2_naming_it(layout: Layout) -> None:
    done = subprocess.run([*exe(), "--home", str(layout.root), "--workspace", str(layout.workspace), "remember",
                           "--description", b"d\xff".decode("utf-8", "surrogateescape"), "--body", "b"],
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 2
    assert b"argument --description is not valid UTF-8" in done.stderr


def test_error_with_a_newline_in_the_ref_stays_one_line(layout: Layout) -> None:
    seeded(layout, "billing")
    code, _, err = run_main(layout, "memory", "show", "bill\ning\r\nx")
    assert code == 1
    assert len(err.strip().splitlines()) == 1
    assert "bill\\ning" in err


def test_lone_surrogate_in_a_hook_prompt_keeps_the_recall(layout: Layout) -> None:
    seeded(layout, "billing")
    raw = '{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":%s,"prompt":"billing deploy \\ud800 now"}' % (
        json.dumps(str(layout.workspace)))
    out = hooks.run_hook("user-prompt-submit", raw, home=str(layout.root))
    assert "billing" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    last = TraceStore(layout).last()
    assert last is not None and last.query.startswith("billing deploy")  # the trace was written too


def _mcp(layout: Layout, *requests: dict | str) -> list[dict]:
    """Talk raw JSON-RPC to ``reasonix-tui mcp`` (the SDK client cannot send a lone surrogate)."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    lines = [json.dumps(init), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    lines += [r if isinstance(r, str) else json.dumps(r) for r in requests]
    env = dict(os.environ, REASONIX_TUI_HOOK_DAEMON="0")
    proc = subprocess.Popen([*exe(), "--home", str(layout.root), "--workspace", str(layout.workspace), "mcp"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(("\n".join(lines) + "\n").encode())
    proc.stdin.flush()
    replies: dict[int, dict] = {}
    want = len(requests) + 1
    try:
        while len(replies) < want:
            line = proc.stdout.readline()
            if not line:
                break
            msg = json.loads(line)
            if "id" in msg:
                replies[msg["id"]] = msg
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    return [replies.get(i, {}) for i in range(1, want)]


def test_mcp_answers_a_lone_surrogate_and_the_minor_points(layout: Layout) -> None:
    seeded(layout, "billing")
    search = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"op":"search","query":"billing \\ud800"}}}'
    remember = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"description":"d \\udfff","body":"b","type":"project","name":"new-one"}}}'
    minus_one = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                 "params": {"name": "remember", "arguments": {"description": "d", "body": "b", "type": "project",
                                                              "name": "other", "expected_revision": -1}}}
    huge = {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "memory", "arguments": {"op": "search", "query": "billing " * 200_000}}}
    r1, r2, r3, r4 = _mcp(layout, search, remember, minus_one, huge)
    assert "billing" in r1["result"]["content"][0]["text"]
    assert r2.get("result"), r2  # answered (the surrogate arrives as U+FFFD)
    assert r3["result"]["isError"] and "must not be negative" in r3["result"]["content"][0]["text"]
    assert not (layout.project_dir / "other.md").exists()
    text4 = r4["result"]["content"][0]["text"]
    assert r4["result"]["isError"] and len(text4) < 300 and "at most 4096" in text4

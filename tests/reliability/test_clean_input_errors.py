"""Clean input errors: non-UTF-8 input is exit 2 naming the source; a lone UTF-16
surrogate is answered (an MCP reply, a hook recall), never silence; errors stay on one
line even when a ref holds a newline."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from test_mcp_front import Client  # tests/ is on sys.path (tests/reliability is a package)

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
    done = cli(
        layout, "memory", "save", "--name", "x", "--description", "d", "--body-file", "-", stdin=b"\xff\xfe\x00oops"
    )
    assert done.returncode == 2
    assert b"stdin is not valid UTF-8" in done.stderr


@pytest.mark.skipif(os.name != "posix", reason="argv bytes")
def test_non_utf8_argument_is_exit_2_naming_it(layout: Layout) -> None:
    done = subprocess.run(
        [
            *exe(),
            "--home",
            str(layout.root),
            "--workspace",
            str(layout.workspace),
            "remember",
            "--description",
            b"d\xff".decode("utf-8", "surrogateescape"),
            "--body",
            "b",
        ],
        capture_output=True,
        timeout=60,
        check=False,
    )
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
        json.dumps(str(layout.workspace))
    )
    out = hooks.run_hook("user-prompt-submit", raw, home=str(layout.root))
    assert "billing" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    last = TraceStore(layout).last()
    assert last is not None and last.query.startswith("billing deploy")  # the trace was written too


def test_mcp_minor_points(layout: Layout) -> None:
    """remember with expected_revision -1 is refused like the CLI; a 1.6 MB search query is
    refused without being echoed back. (A lone surrogate over MCP: tests/test_mcp_front.py.)"""
    seeded(layout, "billing")
    client = Client(layout)
    try:
        client.handshake()
        minus_one = client.request(
            "tools/call",
            {
                "name": "remember",
                "arguments": {
                    "description": "d",
                    "body": "b",
                    "type": "project",
                    "name": "other",
                    "expected_revision": -1,
                },
            },
        )
        assert minus_one["result"]["isError"] and "must not be negative" in minus_one["result"]["content"][0]["text"]
        assert not (layout.project_dir / "other.md").exists()
        huge = client.request(
            "tools/call", {"name": "memory", "arguments": {"op": "search", "query": "billing " * 200_000}}
        )
        text = huge["result"]["content"][0]["text"]
        assert huge["result"]["isError"] and len(text) < 300 and "at most 4096" in text
        found = client.request("tools/call", {"name": "memory", "arguments": {"op": "search", "query": "billing"}})
        assert "billing" in found["result"]["content"][0]["text"]
    finally:
        assert client.close() == 0

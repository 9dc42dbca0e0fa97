"""Session readers: Reasonix JSONL (header, legacy, sidecars, sub-agents, hidden sessions)
and Claude Code transcripts, read leniently."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.sessions import claude as C
from reasonix_tui.core.sessions import messages as M
from reasonix_tui.core.sessions import transcripts as S
from reasonix_tui.core.sessions import user_text as U


def write_jsonl(path: Path, lines: list[object], header: bool = True, raw_tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    if header:
        out.append('{"schema_version":1}')
    for line in lines:
        out.append(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False))
    path.write_text("\n".join(out) + "\n" + raw_tail, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------
# Reasonix


def test_reasonix_header_and_messages(tmp_path: Path) -> None:
    p = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"role": "system", "content": "sys"},
            {
                "role": "user",
                "origin": "user",
                "content": "<memory-update>x</memory-update>\nfix it",
                "raw_content": "fix it",
                "createdAt": 1712345678901,
            },
            {
                "role": "assistant",
                "content": "",
                "reasoning_content": "think",
                "tool_calls": [{"id": "c1", "name": "bash", "arguments": '{"cmd":"ls"}', "diff": "x"}],
            },
            {"role": "tool", "tool_call_id": "c1", "name": "bash", "content": "a\nb"},
        ],
    )
    t = S.read_reasonix_session(p)
    assert t.ok and t.format == M.FORMAT_REASONIX
    assert t.schema_version == 1
    assert [m.role for m in t.messages] == ["system", "user", "assistant", "tool"]
    user = t.messages[1]
    assert user.origin == "user" and user.raw_content == "fix it"
    assert user.created_at == Timestamp(1712345678901 * 1_000_000)
    call = t.messages[2].tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("c1", "bash", '{"cmd":"ls"}')
    assert t.messages[2].reasoning == "think"
    assert t.messages[3].name == "bash" and t.messages[3].tool_call_id == "c1"
    assert t.stats.broken == 0 and t.stats.skipped == 1  # the header
    assert t.session_id == "s"


def test_reasonix_headerless_legacy_and_openai_shaped_calls(tmp_path: Path) -> None:
    p = write_jsonl(
        tmp_path / "legacy.jsonl",
        [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "grep", "arguments": {"q": "x"}}}]},
        ],
        header=False,
    )
    t = S.read_reasonix_session(p)
    assert t.schema_version is None
    assert len(t.messages) == 2
    assert t.messages[1].tool_calls[0].name == "grep"
    assert t.messages[1].tool_calls[0].arguments == '{"q":"x"}'


def test_schema_version_only_counts_on_the_first_line(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "s.jsonl", [{"role": "user", "content": "a"}, {"schema_version": 2, "role": "user"}])
    t = S.read_reasonix_session(p)
    assert len(t.messages) == 2  # a later schema_version object is a (strange) message


def test_provider_content_is_migrated(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "s.jsonl", [{"role": "user", "content": "typed", "provider_content": "wire"}])
    m = S.read_reasonix_session(p).messages[0]
    assert (m.content, m.raw_content) == ("wire", "typed")


def test_broken_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    p = tmp_path / "broken.jsonl"
    p.write_bytes(
        b'\xef\xbb\xbf{"schema_version":1}\n'
        b'{"role":"user","content":"one"}\n'
        b"this is not json\n"
        b"\n"
        b"[1,2,3]\n"
        b'{"role":"assistant","content":"two \xff bytes"}\n'
        b"null\n"
        b'{"role":"user","content":"trunc'
    )
    t = S.read_reasonix_session(p)
    assert [m.content for m in t.messages] == ["one", "two \ufffd bytes", ""]
    assert t.stats.broken == 3  # not json, an array, the truncated tail
    assert t.stats.truncated_tail
    assert t.schema_version == 1  # BOM ignored


def test_empty_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    t = S.read_reasonix_session(tmp_path / "empty.jsonl")
    assert t.ok and t.messages == () and t.stats.lines == 0
    missing = S.read_transcript(tmp_path / "nope.jsonl")
    assert not missing.ok and missing.messages == () and "FileNotFoundError" in missing.error


def test_huge_line_and_oversized_line(tmp_path: Path) -> None:
    big = "x" * (3 * 1024 * 1024)
    p = write_jsonl(
        tmp_path / "big.jsonl", [{"role": "tool", "name": "cat", "content": big}, {"role": "user", "content": "after"}]
    )
    t = S.read_reasonix_session(p)
    assert len(t.messages[0].content) == len(big) and t.messages[1].content == "after"
    lines = list(M.iter_json_lines(p, max_line=1024))
    assert [ln.oversized for ln in lines] == [False, True, False]
    assert lines[2].value == {"role": "user", "content": "after"}
    assert lines[1].end == lines[2].offset


def test_cjk_content_round_trips(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "zh.jsonl", [{"role": "user", "content": "以后请始终用中文回复，除非我明确要求英文。"}])
    assert S.read_reasonix_session(p).messages[0].content.startswith("以后请始终")


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("a.jsonl", True),
        ("20250101-000000.000000000-deepseek-chat.jsonl", True),
        ("a.events.jsonl", False),
        ("a.turns.jsonl", False),
        ("a.conflicts.jsonl", False),
        ("a.guardian.jsonl", False),
        ("a.jsonl.meta", False),
        ("a.cleanup-pending.json", False),
        ("a.json", False),
        (" a.jsonl ", True),
    ],
)
def test_is_session_transcript_name(name: str, ok: bool) -> None:
    assert S.is_session_transcript_name(name) is ok


def test_cleanup_pending_and_subagent_visibility(tmp_path: Path) -> None:
    d = tmp_path / "sessions"
    parent = write_jsonl(d / "parent.jsonl", [{"role": "user", "content": "p"}])
    other = write_jsonl(d / "other.jsonl", [{"role": "user", "content": "o"}])
    sa = write_jsonl(d / "subagents" / "sa_1.jsonl", [{"role": "user", "content": "s"}])
    (d / "subagents" / "sa_1.meta.json").write_text(json.dumps({"ref": "sa_1", "parentSession": "parent"}))
    assert S.is_visible_session(parent) and S.is_visible_subagent_session(d, sa)
    (d / "parent.cleanup-pending.json").write_text('{"operation":"delete"}')
    assert S.is_cleanup_pending(parent) and not S.is_visible_session(parent)
    assert not S.is_visible_subagent_session(d, sa)  # follows its parent
    assert S.subagent_parent_session(sa) == ("parent", True)
    assert [os.path.basename(p) for p, _ in S.list_transcripts(d, S.is_visible_session)] == ["other.jsonl"]
    assert S.cleanup_pending_path(other) == str(d / "other.cleanup-pending.json")


def test_list_sessions_orders_by_activity_and_skips_empty(tmp_path: Path) -> None:
    d = tmp_path / "sessions"
    a = write_jsonl(d / "a.jsonl", [{"role": "user", "content": "first a"}])
    b = write_jsonl(d / "b.jsonl", [{"role": "user", "content": "first b"}, {"role": "user", "content": "second"}])
    write_jsonl(d / "empty.jsonl", [{"role": "assistant", "content": "no user turn"}])
    write_jsonl(d / "host.jsonl", [{"role": "user", "origin": "host", "content": "Host progress check: x"}])
    os.utime(a, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    os.utime(b, ns=(2_000_000_000_000_000_000, 2_000_000_000_000_000_000))
    infos = S.list_sessions(d)
    assert [i.session_id for i in infos] == ["b", "a"]
    assert infos[0].turns == 2 and infos[0].preview == "first b"
    # Branch meta updated_at wins over the mtime.
    (d / "a.jsonl.meta").write_text(json.dumps({"id": "a", "updated_at": "2040-01-01T00:00:00Z"}))
    assert [i.session_id for i in S.list_sessions(d)] == ["a", "b"]


# --------------------------------------------------------------------------------------
# Claude Code

CLAUDE_LINES = [
    {"type": "summary", "summary": "Fix flaky test", "leafUuid": "u9"},
    {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/repo",
        "sessionId": "abc-123",
        "version": "1.0.80",
        "gitBranch": "main",
        "type": "user",
        "message": {"role": "user", "content": "Always run pytest with -q in this repo"},
        "uuid": "u1",
        "timestamp": "2025-06-01T10:00:00.000Z",
    },
    {
        "type": "assistant",
        "sessionId": "abc-123",
        "uuid": "u2",
        "timestamp": "2025-06-01T10:00:01.000Z",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4",
            "content": [
                {"type": "thinking", "thinking": "plan"},
                {"type": "text", "text": "Running the tests."},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest -q"}},
            ],
        },
    },
    {
        "type": "user",
        "sessionId": "abc-123",
        "uuid": "u3",
        "timestamp": "2025-06-01T10:00:05.000Z",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "is_error": True,
                    "content": [{"type": "text", "text": "FAILED tests/test_x.py::test_y"}],
                }
            ],
        },
        "toolUseResult": {"stdout": "", "stderr": "FAILED"},
    },
    {"type": "file-history-snapshot", "messageId": "u3", "snapshot": {}},
    {"type": "user", "isMeta": True, "sessionId": "abc-123", "message": {"role": "user", "content": "Caveat: meta"}},
    {
        "type": "user",
        "sessionId": "abc-123",
        "message": {"role": "user", "content": "<command-name>/clear</command-name>"},
    },
    {
        "type": "user",
        "isSidechain": True,
        "sessionId": "abc-123",
        "message": {"role": "user", "content": "sub-agent prompt"},
    },
    {
        "type": "user",
        "sessionId": "abc-123",
        "message": {
            "role": "user",
            "content": [
                {"type": "text", "text": "part one"},
                {"type": "image", "source": {}},
                {"type": "text", "text": "part two"},
            ],
        },
    },
]


def test_claude_transcript(tmp_path: Path) -> None:
    p = write_jsonl(tmp_path / "abc-123.jsonl", CLAUDE_LINES + ["{broken"], header=False)
    t = S.read_transcript(p)
    assert t.format == M.FORMAT_CLAUDE
    assert t.cwd == "/repo" and t.session_id == "abc-123"
    roles = [(m.role, m.origin) for m in t.messages]
    assert roles == [
        ("user", "user"),
        ("assistant", ""),
        ("tool", ""),
        ("user", "host"),  # isMeta
        ("user", "host"),  # slash-command wrapper
        ("user", "host"),  # sub-agent side chain
        ("user", "user"),
    ]
    assistant = t.messages[1]
    assert assistant.content == "Running the tests." and assistant.reasoning == "plan"
    assert assistant.tool_calls[0].name == "Bash" and assistant.tool_calls[0].arguments == '{"command":"pytest -q"}'
    tool = t.messages[2]
    assert tool.name == "Bash" and tool.is_error and tool.content == "FAILED tests/test_x.py::test_y"
    assert t.messages[0].created_at is not None and t.messages[0].created_at.rfc3339() == "2025-06-01T10:00:00Z"
    assert t.messages[5].sidechain
    assert t.messages[6].content == "part one\npart two"
    assert t.stats.broken == 1 and t.stats.skipped == 2


def test_sniff_format(tmp_path: Path) -> None:
    c = write_jsonl(tmp_path / "c.jsonl", CLAUDE_LINES[:2], header=False)
    r = write_jsonl(tmp_path / "r.jsonl", [{"role": "user", "content": "x"}])
    assert S.sniff_format(c) == M.FORMAT_CLAUDE
    assert S.sniff_format(r) == M.FORMAT_REASONIX


def test_claude_project_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "work" / "my.proj"
    ws.mkdir(parents=True)
    slugs = C.claude_project_slugs(ws)
    assert slugs[0] == str(ws).replace("/", "-").replace(".", "-")
    home = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    assert C.claude_home() == home
    assert C.claude_project_dir(ws) is None
    (home / "projects" / slugs[0]).mkdir(parents=True)
    assert C.claude_project_dir(ws) == home / "projects" / slugs[0]
    write_jsonl(home / "projects" / slugs[0] / "s1.jsonl", CLAUDE_LINES[:2], header=False)
    write_jsonl(home / "projects" / slugs[0] / "s1" / "subagents" / "agent-1.jsonl", CLAUDE_LINES[:2], header=False)
    names = sorted(os.path.basename(p) for p, _ in S.list_claude_transcripts(home / "projects" / slugs[0]))
    assert names == ["agent-1.jsonl", "s1.jsonl"]


def test_claude_home_defaults_to_dot_claude(isolated_home: Path) -> None:
    assert C.claude_home() == isolated_home / ".claude"


# --------------------------------------------------------------------------------------
# Host text classification (Reasonix internal/agent)


def test_strip_transient_user_blocks() -> None:
    text = (
        '<response-language>zh</response-language>\n<memory-update kind="x">new fact</memory-update>\n'
        "  Please fix the bug\n\n<execution-policy>\nbe careful\n</execution-policy>\n"
    )
    assert U.strip_transient_user_blocks(text) == "Please fix the bug"
    assert U.strip_transient_user_blocks("a <memory-recall>x</memory-recall>") == "a"
    assert (
        U.strip_transient_user_blocks("keep <hook-context>inline</hook-context>")
        == "keep <hook-context>inline</hook-context>"
    )
    wrapped = '<memory-compiler-execution>{"planner_ir":{"source_event":"typed words"}}</memory-compiler-execution>'
    assert U.strip_transient_user_blocks(wrapped) == "typed words"


def test_user_authored_turns() -> None:
    assert U.is_user_authored_turn_message(M.Message(role="user", content="hello"))
    assert not U.is_user_authored_turn_message(M.Message(role="user", origin="host", content="hello"))
    assert not U.is_user_authored_turn_message(M.Message(role="user", content="Host progress check: 3 steps"))
    assert not U.is_user_authored_turn_message(M.Message(role="user", content="<memory-update>x</memory-update>\n"))
    steer = U.MID_TURN_STEER_PREFIX + "\nuse pnpm"
    assert U.steer_text(steer) == ("use pnpm", True)
    assert not U.is_user_authored_turn_message(M.Message(role="user", content=steer, raw_content="use pnpm"))
    assert U.is_user_authored_turn_message(M.Message(role="user", origin="user", content="x", raw_content="typed"))
    assert U.user_message_text(M.Message(role="user", content="x", raw_content="  typed ")) == "typed"
    handoff = "# Reasonix executor handoff\n\nOriginal task:\nship it\n\nPlanner output:\nplan"
    assert U.user_preview_text(handoff) == "ship it"
    assert U.is_pinned_context_revision(M.Message(role="user", origin="host", content=" <pinned_context_revision>x"))

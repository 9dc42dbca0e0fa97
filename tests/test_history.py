"""The history tool: records, BM25, scopes, filters, floor, limit, snippets, around,
confinement, exact provider-visible texts, the warm index and the CLI."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from reasonix_tui.core.bm25 import BM25Index
from reasonix_tui.core.compat.retrieval import make_snippet
from reasonix_tui.core.compat.tokenize import query_terms, tokens
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.sessions import history as H
from reasonix_tui.core.sessions import history_docs as HD
from reasonix_tui.core.sessions import history_tool as HT
from reasonix_tui.core.sessions.claude import claude_project_slugs
from reasonix_tui.core.sessions.history_options import HistoryError, HistoryOptions
from reasonix_tui.core.sessions.messages import Message, ToolCall
from reasonix_tui.integrations.cli import main


def write_session(path: Path, msgs: list[dict[str, object]], header: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ['{"schema_version":1}'] if header else []
    lines += [json.dumps(m, ensure_ascii=False) for m in msgs]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def opts(tmp_path: Path, **kw: str) -> HistoryOptions:
    base = {"session_dir": str(tmp_path / "sessions")}
    base.update(kw)
    return HistoryOptions(**base)


def idx(tmp_path: Path, **kw: str) -> H.HistoryIndex:
    return H.HistoryIndex(opts(tmp_path, **kw))


# --------------------------------------------------------------------------------------
# Reasonix's own test cases (internal/history/search_test.go), ported


def test_search_ranks_saved_session_history(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    write_session(
        sd / "first.jsonl",
        [
            {"role": "user", "content": "We need a cache-first implementation."},
            {
                "role": "assistant",
                "content": "Decision: keep the prefix stable and avoid CGO SQLite for Reasonix history retrieval.",
            },
        ],
    )
    write_session(
        sd / "second.jsonl",
        [
            {"role": "user", "content": "Talk about dashboard colors."},
            {"role": "assistant", "content": "No database decision here."},
        ],
    )
    hits = idx(tmp_path, archive_dir=str(tmp_path / "archive")).search("SQLite CGO cache", limit=5).hits
    assert hits and os.path.basename(hits[0].session_path) == "first.jsonl"
    assert hits[0].kind == "assistant_text" and hits[0].role == "assistant" and hits[0].source == "project"
    assert hits[0].session_id == "first"


def test_global_includes_archives_and_global_session_dir(tmp_path: Path) -> None:
    write_session(
        tmp_path / "archive" / "archive.jsonl",
        [{"role": "user", "content": "Old decision: Obelisk retrieval query runtime stays code-driven."}],
    )
    write_session(
        tmp_path / "sessions" / "project.jsonl",
        [{"role": "user", "content": "Project-only decision about local UI spacing."}],
    )
    gpath = write_session(
        tmp_path / "global" / "global.jsonl",
        [{"role": "user", "content": "Global-only decision about synthesis cache reuse."}],
    )
    index = idx(tmp_path, archive_dir=str(tmp_path / "archive"), global_session_dir=str(tmp_path / "global"))
    assert index.search("Obelisk runtime", scope="project").hits == ()
    g = index.search("Obelisk runtime", scope="global").hits
    assert len(g) == 1 and g[0].source == "archive"
    assert index.search("synthesis cache reuse", scope="project").hits == ()
    g = index.search("synthesis cache reuse", scope="global").hits
    assert len(g) == 1 and g[0].source == "global" and g[0].session_path == str(gpath)
    assert index.around(str(gpath), 0)  # a project-scope tool may open a global path
    # Our extension: archives alone.
    assert [h.source for h in index.search("Obelisk", scope="archive").hits] == ["archive"]


def test_same_dir_for_project_and_global_is_labelled_project(tmp_path: Path) -> None:
    write_session(tmp_path / "sessions" / "a.jsonl", [{"role": "user", "content": "shared quokka"}])
    index = idx(tmp_path, global_session_dir=str(tmp_path / "sessions"))
    assert [h.source for h in index.search("quokka", scope="global").hits] == ["project"]


def test_tool_inputs_and_errors_with_tool_filter(tmp_path: Path) -> None:
    write_session(
        tmp_path / "sessions" / "tools.jsonl",
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": "1", "name": "bash", "arguments": '{"cmd":"go test ./internal/history"}'}],
            },
            {
                "role": "tool",
                "tool_call_id": "1",
                "name": "bash",
                "content": "error: command exited: exit status 1\nFAIL",
            },
            {"role": "assistant", "tool_calls": [{"id": "2", "name": "grep", "arguments": '{"q":"go test fail"}'}]},
            {"role": "user", "content": "why does go test fail"},
        ],
    )
    index = idx(tmp_path)
    hits = index.search("go test fail", tool_name="bash", limit=5).hits
    kinds = {(h.kind, h.tool_name) for h in hits}
    assert ("tool_input", "bash") in kinds and ("tool_error", "bash") in kinds
    assert ("user_text", "") in kinds  # text is not filtered by tool_name
    assert all(h.tool_name != "grep" for h in hits)
    # tool_output only when asked.
    assert all(h.kind != "tool_output" for h in index.search("FAIL").hits)
    out = index.search("FAIL", kinds=["tool_output"]).hits
    assert [h.kind for h in out] == ["tool_output"]
    assert index.search("FAIL", kinds=["tool_output"], tool_name="grep").hits == ()


def test_common_word_noise_is_dropped_by_the_relative_floor(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    write_session(sd / "rare.jsonl", [{"role": "user", "content": "rareterm common common common"}])
    for i in range(12):
        write_session(sd / f"common-{chr(ord('a') + i)}.jsonl", [{"role": "user", "content": "common"}])
    hits = idx(tmp_path).search("rareterm common", limit=20).hits
    assert len(hits) == 1 and os.path.basename(hits[0].session_path) == "rare.jsonl"


def test_cleanup_pending_sessions_are_invisible(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    visible = write_session(sd / "visible.jsonl", [{"role": "user", "content": "ordinary alpha visible decision"}])
    pending = write_session(sd / "pending.jsonl", [{"role": "user", "content": "hidden alpha cleanup pending secret"}])
    (sd / "pending.cleanup-pending.json").write_text('{"operation":"delete"}')
    index = idx(tmp_path)
    hits = index.search("alpha", limit=5).hits
    assert [h.session_path for h in hits] == [str(visible)]
    assert index.search("cleanup pending secret").hits == ()
    with pytest.raises(HistoryError, match="^session_path is pending cleanup$"):
        index.around(str(pending), 0)


def test_subagents_follow_their_parent(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    write_session(sd / "parent.jsonl", [{"role": "user", "content": "parent prompt"}])
    write_session(sd / "visible-parent.jsonl", [{"role": "user", "content": "visible parent prompt"}])
    hidden = write_session(
        sd / "subagents" / "sa_pending.jsonl", [{"role": "user", "content": "subagent hidden orchid result"}]
    )
    (sd / "subagents" / "sa_pending.meta.json").write_text(json.dumps({"ref": "sa_pending", "parentSession": "parent"}))
    shown = write_session(
        sd / "subagents" / "sa_visible.jsonl", [{"role": "user", "content": "subagent visible orchid result"}]
    )
    (sd / "subagents" / "sa_visible.meta.json").write_text(
        json.dumps({"ref": "sa_visible", "parentSession": "visible-parent"})
    )
    index = idx(tmp_path)
    assert len(index.search("orchid result").hits) == 2
    (sd / "parent.cleanup-pending.json").write_text("{}")
    hits = index.search("orchid result", limit=5).hits
    assert [h.session_path for h in hits] == [str(shown)]
    with pytest.raises(HistoryError, match="pending cleanup"):
        index.around(str(hidden), 0)
    assert index.around(str(shown), 0)[0].text == "[0 user]\nsubagent visible orchid result"


def test_pinned_context_revisions_are_excluded(tmp_path: Path) -> None:
    p = write_session(
        tmp_path / "sessions" / "pinned.jsonl",
        [
            {
                "role": "user",
                "origin": "host",
                "content": "<pinned_context_revision>private pinned body</pinned_context_revision>",
            },
            {"role": "user", "content": "visible question"},
        ],
    )
    index = idx(tmp_path)
    assert index.search("private pinned body").hits == ()
    around = index.around(str(p), 1, 1, 1)
    assert [m.index for m in around] == [1]


# --------------------------------------------------------------------------------------
# Records and texts


def test_extract_documents_kinds_and_texts() -> None:
    msgs = [
        Message(role="system", content="never indexed"),
        Message(role="user", content="<hook-context>ctx</hook-context>\n[Plan mode active] plan this"),
        Message(role="assistant", content="  ", tool_calls=(ToolCall("1", "bash", ' {"cmd":"ls"} '),)),
        Message(role="tool", name="bash", content="Permission denied while opening"),
        Message(role="tool", name="read", content="ok"),
        Message(role="user", content="   "),
    ]
    docs = [(d.message_index, d.kind, d.tool_name, d.text) for d in HD.extract_documents(msgs)]
    assert docs == [
        (1, "user_text", "", "plan this"),
        (2, "tool_input", "bash", 'bash  {"cmd":"ls"}'),
        (3, "tool_error", "bash", "bash Permission denied while opening"),
        (3, "tool_output", "bash", "bash Permission denied while opening"),
        (4, "tool_output", "read", "read ok"),
    ]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("<memory-update>a\nb</memory-update>\nquestion", "question"),
        ('  <active-goal id="1">g</active-goal>  \n<background-jobs>j</background-jobs>\nq', "q"),
        ("<memory-update>a</memory-update> no newline", "<memory-update>a</memory-update> no newline"),
        ("[Plan mode: read only] do it", "do it"),
        ("[Plan mode without bracket end", "[Plan mode without bracket end"),
        ("<other>x</other>\nq", "<other>x</other>\nq"),
    ],
)
def test_strip_compose_prefixes(content: str, expected: str) -> None:
    assert HD.strip_compose_prefixes(content) == expected


def test_is_tool_error() -> None:
    assert HD.is_tool_error("  Error: boom")
    assert HD.is_tool_error("BLOCKED: by policy")
    assert HD.is_tool_error("cat: x: Permission denied")
    assert not HD.is_tool_error("errors: none")


# --------------------------------------------------------------------------------------
# Scoring equals the spec formula


def _go_score(doc_toks: list[str], terms: list[str], df: dict[str, int], n: int, avg: float) -> float:
    score = 0.0
    counts = {t: doc_toks.count(t) for t in set(doc_toks)}
    for term in terms:
        tf = counts.get(term, 0)
        if tf == 0 or df.get(term, 0) == 0:
            continue
        idf = math.log(1 + (float(n) - float(df[term]) + 0.5) / (float(df[term]) + 0.5))
        score += idf * (tf * (1.2 + 1)) / (tf + 1.2 * (1 - 0.75 + 0.75 * len(doc_toks) / avg))
    return score


def test_scores_equal_the_formula_and_bm25index(tmp_path: Path) -> None:
    texts = [
        "prompt cache cache stability",
        "dashboard colors",
        "the prompt cache must stay stable across turns 缓存前缀",
        "cache miss again",
        "缓存前缀稳定",
    ]
    write_session(tmp_path / "sessions" / "s.jsonl", [{"role": "user", "content": t} for t in texts])
    write_session(tmp_path / "sessions" / "tools.jsonl", [{"role": "tool", "name": "bash", "content": "cache output"}])
    index = idx(tmp_path)
    query = "prompt cache 缓存"
    hits = index.search(query, limit=20).hits
    terms = query_terms(query)
    corpus = [tokens(t) for t in texts]  # tool_output is not in the default selection
    df = {t: sum(1 for d in corpus if t in d) for t in terms}
    avg = sum(len(d) for d in corpus) / len(corpus)
    expect = {i: _go_score(d, terms, df, len(corpus), avg) for i, d in enumerate(corpus)}
    got = {h.message_index: h.score for h in hits}
    floor = max(expect.values()) * 0.15
    assert got == {i: s for i, s in expect.items() if s > 0 and s >= floor}  # bit-exact
    ref = {pos: s for pos, s, _ in BM25Index(corpus).search(terms)}
    for i, s in got.items():
        assert s == pytest.approx(ref[i], rel=1e-12)


def test_order_ties_by_path_then_message_index(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    write_session(sd / "b.jsonl", [{"role": "user", "content": "tie word"}, {"role": "user", "content": "tie word"}])
    write_session(sd / "a.jsonl", [{"role": "user", "content": "tie word"}])
    hits = idx(tmp_path).search("tie").hits
    assert [(os.path.basename(h.session_path), h.message_index) for h in hits] == [
        ("a.jsonl", 0),
        ("b.jsonl", 0),
        ("b.jsonl", 1),
    ]


def test_limit_default_max_and_nonpositive(tmp_path: Path) -> None:
    write_session(tmp_path / "sessions" / "many.jsonl", [{"role": "user", "content": f"needle {i}"} for i in range(30)])
    index = idx(tmp_path)
    assert len(index.search("needle").hits) == 8
    assert len(index.search("needle", limit=-3).hits) == 8
    assert len(index.search("needle", limit=3).hits) == 3
    assert len(index.search("needle", limit=500).hits) == 20


# --------------------------------------------------------------------------------------
# Snippets


def test_snippet_short_text_is_whole_and_collapsed() -> None:
    assert make_snippet("a\n\tb   c", "b", ["b"], HD.MAX_SNIPPET) == "a b c"


def test_snippet_window_around_query() -> None:
    text = "x " * 300 + "needle here " + "y " * 300
    out = make_snippet(text, "needle", ["needle"], HD.MAX_SNIPPET)
    assert out.startswith("...") and out.endswith("...")
    assert "needle here" in out
    assert len(out) == 240 + 6
    core = out[3:-3]
    assert core.index("needle") == 120


def test_snippet_multibyte_and_tail_shift() -> None:
    text = "前缀" * 80 + "稳定结论 synthesis cache " + "后缀" * 80
    out = make_snippet(text, "synthesis cache", query_terms("synthesis cache"), 60)
    assert "synthesis cache" in out and "\ufffd" not in out
    tail = "a" * 300 + " end"
    out = make_snippet(tail, "end", ["end"], HD.MAX_SNIPPET)
    assert out.startswith("...") and not out.endswith("...") and out.endswith("end")
    # Single-rune non-CJK terms are skipped; without any match the window starts at 0.
    out = make_snippet("z" * 300, "q", ["q"], HD.MAX_SNIPPET)
    assert out == "z" * 240 + "..."


# --------------------------------------------------------------------------------------
# around


def test_around_window_and_rendering(tmp_path: Path) -> None:
    p = write_session(
        tmp_path / "sessions" / "nearby.jsonl",
        [
            {"role": "system", "content": "S" * 1300},
            {"role": "user", "content": "<memory-update>m</memory-update>\nfirst"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "name": "bash", "arguments": "A" * 1300}]},
            {"role": "tool", "name": "bash", "content": "  out  "},
            {"role": "assistant", "content": "second"},
            {"role": "critic", "content": "odd role"},
        ],
    )
    index = idx(tmp_path)
    msgs = index.around(str(p), 2, 10, 10)
    assert [m.index for m in msgs] == [0, 1, 2, 3, 4, 5]
    assert msgs[0].text == "[0 system]\n" + "S" * 1200 + "..."
    assert msgs[1].text == "[1 user]\nfirst"
    assert msgs[2].text == "[2 assistant]\n[tool call: bash]\n" + "A" * 1200 + "..."
    assert msgs[3].text == "[3 tool bash result]\nout"
    assert msgs[5].text == "[5 critic]\nodd role"
    assert [m.index for m in index.around(str(p), 2, 1, 1)] == [1, 2, 3]
    assert [m.index for m in index.around(str(p), 0, 0, 0)] == [0, 1, 2, 3]  # 0 means the default 3
    assert [m.index for m in index.around(str(p), 0, 0, 100)] == [0, 1, 2, 3, 4, 5]
    text = HD.format_around(str(p), 2, index.around(str(p), 2, 1, 1))
    assert text.startswith(f"History around {p} message_index=2:\n\n[1 user]\nfirst\n\n[2 assistant]")
    assert not text.endswith("\n")


def test_around_errors_and_confinement(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    inside = write_session(sd / "in.jsonl", [{"role": "user", "content": "x"}])
    outside = write_session(tmp_path / "outside" / "outside.jsonl", [{"role": "user", "content": "secret"}])
    (sd / "link.jsonl").symlink_to(outside)
    (sd / "notes.txt").write_text('{"role":"user","content":"not a transcript"}\n')
    index = idx(tmp_path)

    def err(path: str, i: int) -> str:
        with pytest.raises(HistoryError) as e:
            index.around(path, i)
        return str(e.value)

    assert err("  ", 0) == "session_path is required"
    assert err(str(inside), -1) == "message_index must be non-negative"
    assert err(str(outside), 0) == "session_path is outside the configured history roots"
    assert (
        err(str(sd / ".." / "outside" / "outside.jsonl"), 0) == "session_path is outside the configured history roots"
    )
    assert err(str(sd / "link.jsonl"), 0) == "session_path is outside the configured history roots"
    assert err(str(sd / "notes.txt"), 0) == "session_path is outside the configured history roots"
    assert err(str(inside), 1) == "message_index 1 is outside session length 1"
    assert err(str(sd / "gone.jsonl"), 0) == f"open {sd / 'gone.jsonl'}: no such file or directory"
    # A `..` that stays inside is fine.
    (sd / "subagents").mkdir()
    assert index.around(str(sd / "subagents" / ".." / "in.jsonl"), 0)


# --------------------------------------------------------------------------------------
# Provider-visible texts


def test_tool_description_and_schema_are_reasonix_bytes() -> None:
    assert HD.HISTORY_TOOL_DESCRIPTION == (
        "Search saved local session history with lightweight BM25 retrieval, then read messages around a hit. "
        "Use search when past decisions, failed attempts, commands, or tool inputs may help the current task; "
        "use around with a returned session_path and message_index to inspect the nearby transcript. "
        "By default it searches user text, assistant text, tool inputs, and tool errors; normal tool outputs "
        "are excluded unless kind includes tool_output."
    )
    assert HD.HISTORY_TOOL_SCHEMA_TEXT.startswith('{\n\t\t"type": "object",\n\t\t"properties": {\n\t\t\t"operation": ')
    assert HD.HISTORY_TOOL_SCHEMA_TEXT.endswith('\t\t},\n\t\t"required": ["operation"]\n\t}')
    assert HD.HISTORY_TOOL_SCHEMA["required"] == ["operation"]
    assert list(HD.HISTORY_TOOL_SCHEMA["properties"]) == [
        "operation",
        "query",
        "scope",
        "kind",
        "tool_name",
        "limit",
        "session_path",
        "message_index",
        "before",
        "after",
    ]
    assert HD.HISTORY_TOOL_SCHEMA["properties"]["kind"]["items"]["enum"] == list(HD.KINDS)


def test_search_output_bytes() -> None:
    hits = [
        HD.Hit(2.25, "/s/first.jsonl", "first", "project", 1, "assistant", "assistant_text", "", "keep it"),
        HD.Hit(1.0, "/s/t.jsonl", "t", "archive", 0, "assistant", "tool_input", "bash", 'bash {"cmd":"<ls>"}'),
    ]
    assert HD.format_hits('a "q" <b>', hits) == (
        'History search results for "a \\"q\\" \\u003cb\\u003e":\n'
        "\n1. score=2.250 source=project session_id=first message_index=1 kind=assistant_text role=assistant\n"
        "   session_path: /s/first.jsonl\n   snippet: keep it\n"
        "\n2. score=1.000 source=archive session_id=t message_index=0 kind=tool_input role=assistant tool=bash\n"
        '   session_path: /s/t.jsonl\n   snippet: bash {"cmd":"<ls>"}\n'
        '\nUse operation="around" with a session_path and message_index to read nearby messages.'
    )


def test_zero_result_output_bytes() -> None:
    assert HD.format_hits("nothing here", []) == (
        'No saved session history matched "nothing here".\n'
        "\n"
        "0 results does not prove the event never happened. Try:\n"
        "1. Retry with fewer, rarer terms such as a function name, command, error phrase, ticket id, or decision keyword.\n"
        "2. Widen scope from project to global when cross-project or compacted-history context may matter.\n"
        '3. If you need tool output, include kind=["tool_output"] or filter by tool_name for tool input/error/output searches.'
    )


def test_hit_json_omits_empty_tool_name() -> None:
    h = HD.Hit(1.5, "/p.jsonl", "p", "project", 3, "user", "user_text", "", "s")
    assert list(h.to_json()) == [
        "score",
        "session_path",
        "session_id",
        "source",
        "message_index",
        "role",
        "kind",
        "snippet",
    ]
    assert HD.Hit(1.5, "/p", "p", "project", 3, "tool", "tool_error", "bash", "s").to_json()["tool_name"] == "bash"


# --------------------------------------------------------------------------------------
# history_tool_call (the MCP tool)


def test_tool_call_validation_errors(layout: Layout) -> None:
    cases = [
        ({}, "operation is required"),
        ({"operation": "scan"}, 'unknown operation "scan"'),
        (
            {"operation": "around", "session_path": "/tmp/session.jsonl"},
            "message_index is required for operation=around",
        ),
        ('{"operation":', None),
        ({"operation": "search"}, "query is required"),
        ({"operation": "search", "query": "  "}, "query is required"),
        ({"operation": "search", "query": "!!! ..."}, "query must contain at least one letter or number"),
        ({"operation": "search", "query": "x", "scope": "everywhere"}, 'scope must be "project" or "global"'),
        ({"operation": "search", "query": "x", "kind": ["user_text", "nope"]}, 'unknown kind "nope"'),
        (
            {"operation": "search", "query": "x", "limit": "5"},
            "invalid arguments: json: cannot unmarshal string into Go struct field .limit of type int",
        ),
        ({"operation": "around", "session_path": "", "message_index": 0}, "session_path is required"),
        (
            {"operation": "around", "session_path": "/etc/passwd.jsonl", "message_index": -2},
            "message_index must be non-negative",
        ),
    ]
    for args, message in cases:
        with pytest.raises(HistoryError) as e:
            HT.history_tool_call(layout, args)
        if message is None:
            assert str(e.value).startswith("invalid arguments: ")
        else:
            assert str(e.value) == message


def test_tool_call_search_around_and_misses(layout: Layout) -> None:
    p = write_session(
        layout.project_sessions_dir / "decision.jsonl",
        [
            {"role": "user", "content": "Should history use vector embeddings?"},
            {
                "role": "assistant",
                "content": "Decision: keep history retrieval lightweight with BM25 and no vector database.",
            },
            {"role": "user", "content": "Great, port that to Vcode."},
        ],
    )
    out = HT.history_tool_call(layout, {"operation": "search", "query": "BM25 vector database", "limit": 5.0})
    for want in (
        "History search results",
        "decision.jsonl",
        "message_index=1",
        "keep history retrieval lightweight",
        'Use operation="around"',
    ):
        assert want in out
    out = HT.history_tool_call(
        layout, json.dumps({"operation": "around", "session_path": str(p), "message_index": 1, "before": 1, "after": 1})
    )
    assert "History around" in out and "[0 user]" in out and "[1 assistant]" in out and "[2 user]" in out
    assert not Path(HT.misses_path(layout)).exists()
    out = HT.history_tool_call(layout, {"operation": "search", "query": "kubernetes ingress", "scope": "global"})
    assert out.startswith('No saved session history matched "kubernetes ingress".')
    rec = json.loads(Path(HT.misses_path(layout)).read_text().splitlines()[-1])
    assert rec["query"] == "kubernetes ingress" and rec["scope"] == "global" and rec["via"] == "mcp"
    assert rec["terms"] == ["kubernetes", "ingress"] and rec["workspace"] == str(layout.workspace)


# --------------------------------------------------------------------------------------
# The warm index stays correct as files change


def test_incremental_append_rewrite_delete_hide(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    p = write_session(sd / "live.jsonl", [{"role": "user", "content": "first turn about walrus"}])
    q = write_session(sd / "other.jsonl", [{"role": "user", "content": "unrelated llama"}])
    index = idx(tmp_path)
    assert [h.message_index for h in index.search("walrus").hits] == [0]
    docs_before = index.document_count
    with open(p, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"role": "assistant", "content": "walrus answer"}) + "\n")
    os.utime(p, ns=(os.stat(p).st_mtime_ns + 10_000_000, os.stat(p).st_mtime_ns + 10_000_000))
    hits = index.search("walrus").hits
    assert sorted(h.message_index for h in hits) == [0, 1]
    assert index.document_count == docs_before + 1  # appended, not re-read
    # Rewritten with different content: old documents disappear.
    write_session(p, [{"role": "user", "content": "now about narwhal"}])
    os.utime(p, ns=(os.stat(p).st_mtime_ns + 20_000_000, os.stat(p).st_mtime_ns + 20_000_000))
    assert index.search("walrus").hits == ()
    assert [h.message_index for h in index.search("narwhal").hits] == [0]
    # Hidden, then deleted.
    (sd / "other.cleanup-pending.json").write_text("{}")
    assert index.search("llama").hits == ()
    (sd / "other.cleanup-pending.json").unlink()
    assert len(index.search("llama").hits) == 1
    q.unlink()
    assert index.search("llama").hits == ()
    assert index.document_count == 1


def test_truncated_tail_is_reread_when_completed(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    sd.mkdir(parents=True)
    p = sd / "s.jsonl"
    p.write_text('{"role":"user","content":"alpha one"}\n{"role":"user","content":"alpha tw', encoding="utf-8")
    index = idx(tmp_path)
    assert [h.message_index for h in index.search("alpha").hits] == [0]
    with open(p, "a", encoding="utf-8") as fh:
        fh.write('o"}\n{"role":"user","content":"alpha three"}\n')
    hits = index.search("alpha").hits
    assert sorted(h.message_index for h in hits) == [0, 1, 2]
    assert len(hits) == 3  # no duplicates from the partial line


def test_big_documents_are_reread_for_snippets(tmp_path: Path) -> None:
    big = "filler " * 3000 + "the zanzibar clue " + "tail " * 3000
    write_session(
        tmp_path / "sessions" / "big.jsonl",
        [
            {"role": "user", "content": "small"},
            {"role": "tool", "name": "cat", "content": big},
            {"role": "assistant", "tool_calls": [{"id": "1", "name": "write", "arguments": json.dumps({"body": big})}]},
        ],
    )
    index = idx(tmp_path)
    out = index.search("zanzibar", kinds=["tool_output", "tool_input"]).hits
    assert {h.kind for h in out} == {"tool_output", "tool_input"}
    assert all("zanzibar clue" in h.snippet and len(h.snippet) == 246 for h in out)


def test_broken_and_empty_sessions_do_not_break_search(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    sd.mkdir(parents=True)
    (sd / "empty.jsonl").write_text("")
    (sd / "junk.jsonl").write_bytes(b"\x00\xff garbage\n{not json}\n[1]\n")
    write_session(sd / "ok.jsonl", ["oops"] + [{"role": "user", "content": "survivor text"}])  # type: ignore[list-item]
    (sd / "a.events.jsonl").write_text(json.dumps({"role": "user", "content": "survivor in sidecar"}) + "\n")
    hits = idx(tmp_path).search("survivor").hits
    assert [(os.path.basename(h.session_path), h.message_index) for h in hits] == [("ok.jsonl", 0)]


def test_cjk_search(tmp_path: Path) -> None:
    write_session(
        tmp_path / "sessions" / "zh.jsonl",
        [
            {"role": "user", "content": "数据库迁移失败了，怎么回滚？"},
            {"role": "assistant", "content": "先备份，再执行回滚脚本。"},
            {"role": "user", "content": "用pnpm装依赖"},
        ],
    )
    index = idx(tmp_path)
    assert [h.message_index for h in index.search("数据库迁移").hits] == [0]
    assert [h.message_index for h in index.search("pnpm 依赖").hits] == [2]
    assert index.search("回滚").hits[0].message_index in (0, 1)


def test_claude_transcripts_are_searched_and_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: Layout
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    cdir = tmp_path / "claude" / "projects" / claude_project_slugs(layout.workspace)[0]
    p = write_session(
        cdir / "5f0c.jsonl",
        [
            {
                "type": "user",
                "sessionId": "5f0c",
                "cwd": str(layout.workspace),
                "message": {"role": "user", "content": "why is the gizmo build red"},
            },
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make gizmo"}}],
                },
            },
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "is_error": True,
                            "content": "make: *** [gizmo] Error 2",
                        }
                    ],
                },
            },
        ],
        header=False,
    )
    options = HistoryOptions.for_layout(layout)
    assert options.claude_dir == str(cdir)
    hits = H.search(options, "gizmo", limit=10).hits
    assert {(h.source, h.kind) for h in hits} == {
        ("claude", "user_text"),
        ("claude", "tool_input"),
        ("claude", "tool_error"),
    }
    err = next(h for h in hits if h.kind == "tool_error")
    assert err.tool_name == "Bash" and err.message_index == 2
    text = HT.history_tool_call(layout, {"operation": "around", "session_path": str(p), "message_index": 2})
    assert "[2 tool Bash result]\nmake: *** [gizmo] Error 2" in text


# --------------------------------------------------------------------------------------
# CLI


def test_cli_search_and_around(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    p = write_session(
        layout.project_sessions_dir / "s.jsonl",
        [
            {"role": "user", "content": "deploy the staging cluster"},
            {"role": "assistant", "content": "Deployed staging with kubectl apply."},
        ],
    )
    base = ["--home", str(layout.root), "--workspace", str(layout.workspace)]
    assert main(base + ["history", "search", "staging", "deploy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('History search results for "staging deploy":')
    assert main(base + ["history", "search", "staging", "--json", "--limit", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scope"] == "project" and len(data["hits"]) == 1 and data["hits"][0]["session_path"] == str(p)
    assert main(base + ["history", "around", str(p), "1", "--window", "1"]) == 0
    assert (
        capsys.readouterr().out
        == f"History around {p} message_index=1:\n\n[0 user]\ndeploy the staging cluster\n\n[1 assistant]\nDeployed staging with kubectl apply.\n"
    )
    assert main(base + ["history", "around", str(p), "0", "--json"]) == 0
    assert [m["index"] for m in json.loads(capsys.readouterr().out)["messages"]] == [0, 1]
    assert main(base + ["history", "search", "x", "--kind", "bogus"]) == 2
    assert 'unknown kind "bogus"' in capsys.readouterr().err
    assert main(base + ["history", "around", "/etc/hosts", "0"]) == 2
    assert "outside the configured history roots" in capsys.readouterr().err
    assert main(base + ["history", "search", "nothingmatches"]) == 0
    assert json.loads(Path(HT.misses_path(layout)).read_text().splitlines()[-1])["via"] == "cli"
    # the tool's hints name tool arguments; on the command line they name the options
    out = capsys.readouterr().out
    assert "--kind tool_output or filter with --tool-name N" in out and "Widen --scope from project" in out
    assert "kind=[" not in out
    assert main(base + ["history", "search", "staging"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("Read nearby messages with: reasonix-tui history around SESSION_PATH MESSAGE_INDEX")
    assert 'operation="around"' not in out


def test_prewarm_then_search_reads_nothing_new(layout: Layout) -> None:
    write_session(layout.project_sessions_dir / "a.jsonl", [{"role": "user", "content": "warm words here"}])
    write_session(layout.history_archive_dir / "old.jsonl", [{"role": "user", "content": "archived warm words"}])
    assert H.prewarm(layout) == 2
    index = H.index_for(HistoryOptions.for_layout(layout))
    listed = index.sources("global")
    assert index.refresh(listed) == 0  # nothing left to read
    assert len(H.search(layout, "warm words", scope="global").hits) == 2


# --------------------------------------------------------------------------------------
# The disk cache of one-shot processes (``reasonix-tui history search``)


def _corpus(sd: Path) -> list[Path]:
    big = "filler " * 3000 + "the zanzibar clue " + "tail " * 3000
    return [
        write_session(
            sd / "a.jsonl",
            [
                {"role": "user", "content": "deploy the staging cluster with kubectl"},
                {"role": "assistant", "content": "Deployed staging; 数据库迁移 done."},
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "1", "name": "bash", "arguments": json.dumps({"cmd": "kubectl apply"})}],
                },
                {"role": "tool", "name": "bash", "content": "error: kubectl timeout"},
            ],
        ),
        write_session(
            sd / "b.jsonl",
            [
                {"role": "user", "content": "remember the walrus migration plan"},
                {"role": "tool", "name": "cat", "content": big},
            ],
        ),
        write_session(sd / "c.jsonl", [{"role": "user", "content": "unrelated llama"}], header=False),
    ]


QUERIES = [
    ("staging kubectl", None),
    ("walrus migration", None),
    ("数据库", None),
    ("zanzibar", ["tool_output"]),
    ("kubectl timeout", ["tool_error", "tool_input"]),
    ("llama", None),
]


def _answers(index: H.HistoryIndex) -> list[list[tuple[object, ...]]]:
    return [
        [
            (h.session_path, h.message_index, h.kind, h.tool_name, h.score, h.snippet)
            for h in index.search(q, kinds=k).hits
        ]
        for q, k in QUERIES
    ]


def test_disk_cache_gives_the_same_answers_without_reading_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _corpus(tmp_path / "sessions")
    cache = tmp_path / "cache" / "history.marshal"
    first = idx(tmp_path)
    first.enable_disk_cache(cache)
    expected = _answers(first)
    assert all(expected) and first.save_disk_cache() and cache.exists()
    assert oct(cache.stat().st_mode & 0o777) == "0o600"
    assert not first.save_disk_cache()  # nothing new since
    read: list[str] = []
    real = H.iter_json_lines
    monkeypatch.setattr(
        H, "iter_json_lines", lambda path, start=0: read.append(os.path.basename(path)) or real(path, start=start)
    )
    second = idx(tmp_path)
    second.enable_disk_cache(cache)
    assert _answers(second) == expected
    assert read == ["b.jsonl"]  # only to re-read the big tool output for its snippet
    assert second.document_count == first.document_count and not second.save_disk_cache()


def test_disk_cache_rereads_only_changed_files_and_follows_them(tmp_path: Path) -> None:
    sd = tmp_path / "sessions"
    a, b, c = _corpus(sd)
    cache = tmp_path / "cache" / "history.marshal"
    one = idx(tmp_path)
    one.enable_disk_cache(cache)
    one.search("walrus")
    one.save_disk_cache()
    with open(a, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"role": "user", "content": "a new walrus turn"}) + "\n")
    os.utime(a, ns=(os.stat(a).st_mtime_ns + 10_000_000,) * 2)
    c.unlink()
    two = idx(tmp_path)
    two.enable_disk_cache(cache)
    hits = two.search("walrus").hits
    assert sorted((os.path.basename(h.session_path), h.message_index) for h in hits) == [("a.jsonl", 4), ("b.jsonl", 0)]
    assert two.search("llama").hits == ()
    # A file restored from the cache that grows in the same process is read again whole.
    with open(b, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"role": "assistant", "content": "walrus plan approved"}) + "\n")
    os.utime(b, ns=(os.stat(b).st_mtime_ns + 20_000_000,) * 2)
    hits = two.search("walrus").hits
    assert sorted((os.path.basename(h.session_path), h.message_index) for h in hits) == [
        ("a.jsonl", 4),
        ("b.jsonl", 0),
        ("b.jsonl", 2),
    ]
    assert two.save_disk_cache()
    fresh = idx(tmp_path)
    three = idx(tmp_path)
    three.enable_disk_cache(cache)
    assert _answers(three) == _answers(fresh)


def test_a_corrupt_or_foreign_disk_cache_is_ignored(tmp_path: Path) -> None:
    _corpus(tmp_path / "sessions")
    cache = tmp_path / "cache" / "history.marshal"
    one = idx(tmp_path)
    one.enable_disk_cache(cache)
    expected = _answers(one)
    one.save_disk_cache()
    blob = bytearray(cache.read_bytes())
    blob[-5] ^= 0xFF  # a flipped byte: the checksum no longer matches
    cache.write_bytes(bytes(blob))
    two = idx(tmp_path)
    two.enable_disk_cache(cache)
    assert _answers(two) == expected
    # Written for other directories: not used.
    other = H.HistoryIndex(HistoryOptions(session_dir=str(tmp_path / "elsewhere")))
    other.enable_disk_cache(cache)
    assert other.search("walrus").hits == ()


def test_cli_search_keeps_a_disk_cache(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    write_session(layout.project_sessions_dir / "s.jsonl", [{"role": "user", "content": "deploy the staging cluster"}])
    base = ["--home", str(layout.root), "--workspace", str(layout.workspace)]
    assert main(base + ["history", "search", "staging"]) == 0
    [cache] = layout.cache_dir.glob("history-*.marshal")
    H._INDEXES.clear()  # a new process
    assert main(base + ["history", "search", "staging", "--json"]) == 0
    capsys.readouterr()
    assert cache.exists()

"""Hooks as each real client runs them (Claude Code, Codex, Cursor): a session start
that is never silent, the client named in the session state, one answer whether the
warm server or the hook process computes it, retraction only when the text changed,
and the shell guard (``hook pre-tool-use``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_exe import exe

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import TraceStore
from reasonix_tui.core.recall.pinned import MEMORY_PROTOCOL, background_block
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations import hook_client
from reasonix_tui.integrations.hook_answers import MAX_CONTEXT, PINNED_OMITTED, fit_session_start
from reasonix_tui.integrations.hook_payload import detect_client, parse_input
from reasonix_tui.integrations.hook_sessions import SessionState, session_path

FORMATS = ("claude", "codex", "cursor")


def client_env(fmt: str, layout: Layout, daemon: bool = False) -> dict[str, str]:
    """The environment each client gives its hooks (observed with Claude Code 2.1.197 and
    Codex 0.171: Claude sets CLAUDE_PROJECT_DIR and CLAUDECODE, Codex sets neither, Cursor
    sets CURSOR_PROJECT_DIR and CURSOR_VERSION)."""
    env = dict(os.environ, REASONIX_TUI_HOOK_DAEMON="1" if daemon else "0")
    for key in ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "CLAUDECODE", "CURSOR_VERSION"):
        env.pop(key, None)
    if fmt == "claude":
        env.update(CLAUDE_PROJECT_DIR=str(layout.workspace), CLAUDECODE="1")
    elif fmt == "cursor":
        env.update(CURSOR_PROJECT_DIR=str(layout.workspace), CURSOR_VERSION="3.20.17")
    return env


def payload(
    fmt: str, layout: Layout, event: str, prompt: str = "", session: str = "s-1", with_cwd: bool = True
) -> dict[str, Any]:
    """Each client's payload shape for ``event`` (``session-start``/``user-prompt-submit``)."""
    if fmt == "cursor":
        data: dict[str, Any] = {
            "conversation_id": session,
            "generation_id": "g-1",
            "cursor_version": "3.20.17",
            "hook_event_name": "sessionStart" if event == "session-start" else "beforeSubmitPrompt",
        }
        if with_cwd:
            data["workspace_roots"] = [str(layout.workspace)]
    else:
        data = {
            "session_id": session,
            "hook_event_name": "SessionStart" if event == "session-start" else "UserPromptSubmit",
        }
        if fmt == "codex":
            data.update(turn_id="t-1", model="gpt-5", transcript_path=f"/h/.codex/sessions/{session}.jsonl")
        else:
            data["transcript_path"] = f"/h/.claude/projects/p/{session}.jsonl"
        if with_cwd:
            data["cwd"] = str(layout.workspace)
    if event == "session-start":
        data["source"] = "startup"
    else:
        data["prompt"] = prompt
    return data


def run(
    fmt: str, layout: Layout, event: str, data: Any, daemon: bool = False, cwd: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*exe(), "--home", str(layout.root), "hook", event, "--format", fmt],
        input=data if isinstance(data, str) else json.dumps(data),
        capture_output=True,
        text=True,
        env=client_env(fmt, layout, daemon),
        timeout=120,
        check=False,
        cwd=cwd,
    )


def context(fmt: str, proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    if fmt == "cursor":
        return str(data["additional_context"])
    return str(data["hookSpecificOutput"]["additionalContext"])


def pin_many(layout: Layout, count: int, body_chars: int) -> list[str]:
    """``count`` pinned facts (oldest first); returns the titles in the resolver's order.
    The pinned budget is switched off (``0``), as a person who pins a lot would."""
    _no_budget(layout)
    store = Store(layout)
    for i in range(count):
        store.save(
            SaveRequest(
                name=f"rule-{i:02d}",
                title=f"Rule {i:02d}",
                type="feedback",
                activation="pinned",
                description=f"standing rule {i}",
                body=(f"Rule {i:02d}: " + "always do it " * 400)[:body_chars],
            )
        )
    return [f.display_title for f in Store(layout).pinned_guidance()]


def _no_budget(layout: Layout) -> None:
    layout.tui_dir.mkdir(parents=True, exist_ok=True)
    layout.settings_file.write_text("[memory]\npinned_budget_chars = 0\n")


# --------------------------------------------------------------------------- session start


@pytest.mark.parametrize("fmt", FORMATS)
def test_session_start_past_the_cap_prints_protocol_what_fits_and_a_line(layout: Layout, fmt: str) -> None:
    titles = pin_many(layout, 15, 889)  # 15 pinned facts, about 13.3k characters: the report's case
    text = context(fmt, run(fmt, layout, "session-start", payload(fmt, layout, "session-start")))
    assert len(text) <= MAX_CONTEXT
    assert MEMORY_PROTOCOL in text and "## Pinned preferences and feedback" in text
    shown = [t for t in titles if f"### {t} " in text]
    assert 0 < len(shown) < len(titles)
    assert shown == titles[: len(shown)]  # in the resolver's order
    assert PINNED_OMITTED.format(count=len(titles) - len(shown)) in text
    assert text.rstrip().endswith("`reasonix-tui memory pinned`.)")
    log = (layout.tui_dir / "hooks.log").read_text()
    assert f"session-start: {len(shown)} of {len(titles)} pinned facts fit" in log
    # the state remembers exactly what was shown, and names the client
    state = SessionState.load(session_path(layout, "s-1"), "s-1")
    assert len(state.injected) == len(shown)
    assert state.agent == {"claude": "claude-code", "codex": "codex", "cursor": "cursor"}[fmt]


@pytest.mark.parametrize("fmt", FORMATS)
def test_session_start_well_past_the_cap(layout: Layout, fmt: str) -> None:
    titles = pin_many(layout, 40, 3000)  # 120k characters of pinned guidance
    text = context(fmt, run(fmt, layout, "session-start", payload(fmt, layout, "session-start")))
    assert len(text) <= MAX_CONTEXT and MEMORY_PROTOCOL in text
    shown = [t for t in titles if f"### {t} " in text]
    assert shown == titles[: len(shown)] and len(shown) >= 1
    assert PINNED_OMITTED.format(count=len(titles) - len(shown)) in text


def _facts_of_size(layout: Layout, total: int) -> list[Any]:
    """Pinned facts whose whole session-start block is exactly ``total`` characters."""
    pin_many(layout, 7, 1200)
    facts = list(Store(layout).pinned_guidance())
    overshoot = len(background_block(facts)) - total
    assert 0 < overshoot < 1100
    last = facts[-1]
    body = last.body[: len(last.body) - overshoot]
    body = body[:-1] + "x" if body.endswith(" ") else body
    Store(layout).save(
        SaveRequest(
            id=last.id,
            name=last.name,
            title=last.title,
            type=last.type,
            activation="pinned",
            description=last.description,
            body=body,
        ),
        expected_revision=last.revision,
    )
    facts = list(Store(layout).pinned_guidance())
    assert len(background_block(facts)) == total
    return facts


def test_at_the_cap_everything_is_shown(layout: Layout) -> None:
    facts = _facts_of_size(layout, MAX_CONTEXT)
    text, shown = fit_session_start("", facts)
    assert shown == facts and len(text) == MAX_CONTEXT and "more pinned fact" not in text


def test_one_over_the_cap_leaves_one_out(layout: Layout) -> None:
    facts = _facts_of_size(layout, MAX_CONTEXT + 1)
    text, shown = fit_session_start("", facts)
    assert len(text) <= MAX_CONTEXT and MEMORY_PROTOCOL in text
    assert shown == facts[: len(shown)] and len(shown) < len(facts)
    assert PINNED_OMITTED.format(count=len(facts) - len(shown)) in text


def test_a_fact_too_big_alone_is_skipped_not_everything(layout: Layout) -> None:
    _no_budget(layout)
    store = Store(layout)
    store.save(SaveRequest(name="small-a", type="feedback", activation="pinned", description="a", body="Small A."))
    store.save(SaveRequest(name="huge", type="feedback", activation="pinned", description="h", body="x " * 8000))
    store.save(SaveRequest(name="small-b", type="feedback", activation="pinned", description="b", body="Small B."))
    facts = Store(layout).pinned_guidance()
    text, shown = fit_session_start("", facts)
    assert {f.name for f in shown} == {"small-a", "small-b"} and PINNED_OMITTED.format(count=1) in text


# --------------------------------------------------------------------------- clients


@pytest.mark.parametrize("fmt", FORMATS)
def test_session_state_and_trace_name_the_real_client(layout: Layout, fmt: str) -> None:
    Store(layout).save(
        SaveRequest(
            name="deploy-target",
            type="project",
            description="Deploys go to k8s-stage-2",
            body="helm upgrade --install app deploy/chart on k8s-stage-2",
        )
    )
    proc = run(
        fmt,
        layout,
        "user-prompt-submit",
        payload(fmt, layout, "user-prompt-submit", "how do we deploy to k8s-stage-2 with helm?"),
    )
    assert "k8s-stage-2" in context(fmt, proc)
    name = {"claude": "claude-code", "codex": "codex", "cursor": "cursor"}[fmt]
    assert SessionState.load(session_path(layout, "s-1"), "s-1").agent == name
    assert TraceStore(layout).last().source == f"{name}-hook"  # type: ignore[union-attr]


def test_client_detection_without_a_format() -> None:
    assert detect_client("claude", parse_input(json.dumps({"turn_id": "t", "prompt": "x"})), {}) == "codex"
    assert (
        detect_client("claude", parse_input(json.dumps({"transcript_path": "/u/.codex/sessions/a.jsonl"})), {})
        == "codex"
    )
    assert detect_client("claude", parse_input(json.dumps({"conversation_id": "c"})), {}) == "cursor"
    assert detect_client("claude", parse_input("{}"), {"CURSOR_VERSION": "3"}) == "cursor"
    assert detect_client("claude", parse_input("{}"), {"CLAUDECODE": "1"}) == "claude-code"
    assert detect_client("claude", parse_input("{}"), {"REASONIX_TUI_AGENT": "gemini"}) == "gemini"
    assert detect_client("codex", None, {}) == "codex"


@pytest.mark.skipif(not hook_client.enabled({}) or sys.platform == "win32", reason="no Unix sockets")
def test_server_and_in_process_answer_alike_for_every_client(
    layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project directory comes from each client's own variable, with no cwd in the
    payload and the hook started elsewhere: the warm server must see the same."""
    monkeypatch.setenv("REASONIX_TUI_HOOK_DAEMON", "1")
    store = Store(layout)
    store.save(
        SaveRequest(
            name="deploy-target",
            type="project",
            description="Deploys go to k8s-stage-2",
            body="helm upgrade --install app deploy/chart on k8s-stage-2",
        )
    )
    store.save(
        SaveRequest(
            name="pkg",
            type="project",
            activation="pinned",
            description="pnpm",
            body="Use pnpm install, never npm install.",
        )
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = str(layout.root)
    cases = [(fmt, event) for fmt in ("claude", "cursor") for event in ("session-start", "user-prompt-submit")]
    cases += [("codex", "session-start"), ("codex", "user-prompt-submit")]
    try:
        for i, (fmt, event) in enumerate(cases):
            with_cwd = fmt == "codex"  # Codex sets no project variable: its payload's cwd is the source
            data = payload(
                fmt, layout, event, "how do we deploy to k8s-stage-2 with helm?", session=f"a{i}", with_cwd=with_cwd
            )
            local = run(fmt, layout, event, data, daemon=False, cwd=str(elsewhere))
            if not hook_client.status(root):
                run(
                    fmt,
                    layout,
                    event,
                    {**data, "session_id": "warm", "conversation_id": "warm"},
                    daemon=True,
                    cwd=str(elsewhere),
                )
                deadline = time.monotonic() + 60
                while not hook_client.status(root) and time.monotonic() < deadline:
                    time.sleep(0.1)
            info = hook_client.status(root)
            assert info, "no warm server"
            # A client that hears nothing within its second answers in-process (by design);
            # on a loaded machine that can happen, so ask again (a few times at most) until
            # the server itself answered.
            for attempt in range(5):
                sid = f"b{i}-{attempt}"
                served = run(
                    fmt,
                    layout,
                    event,
                    {**data, "session_id": sid, "conversation_id": sid},
                    daemon=True,
                    cwd=str(elsewhere),
                )
                state = SessionState.load(session_path(layout, sid), sid)
                if state.handled_by == info["pid"]:
                    break
            assert state.handled_by == info["pid"], (fmt, event)  # really answered by the server
            assert context(fmt, served) == context(fmt, local), (fmt, event)
            assert ("k8s-stage-2" if event == "user-prompt-submit" else "pnpm") in context(fmt, local)
    finally:
        hook_client.shutdown(root)


# --------------------------------------------------------------------------- retraction


def test_a_verify_that_changes_no_text_is_not_a_retraction(layout: Layout) -> None:
    store = Store(layout)
    store.save(
        SaveRequest(
            name="deploy-target",
            type="project",
            description="Deploys go to k8s-stage-2",
            body="helm upgrade --install app deploy/chart on k8s-stage-2",
        )
    )
    store.save(
        SaveRequest(
            name="pkg",
            type="project",
            activation="pinned",
            description="pnpm",
            body="Use pnpm install, never npm install.",
        )
    )
    run("claude", layout, "session-start", payload("claude", layout, "session-start"))
    first = context(
        "claude",
        run(
            "claude",
            layout,
            "user-prompt-submit",
            payload("claude", layout, "user-prompt-submit", "how do we deploy to k8s-stage-2 with helm?"),
        ),
    )
    assert "k8s-stage-2" in first
    for ref in ("deploy-target", "pkg"):
        proc = subprocess.run(
            [*exe(), "--home", str(layout.root), "--workspace", str(layout.workspace), "memory", "verify", ref],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
    assert Store(layout).get("deploy-target").revision == 2
    after = run("claude", layout, "user-prompt-submit", payload("claude", layout, "user-prompt-submit", "thanks"))
    assert "<memory-update>" not in after.stdout
    # a real change of text still is one
    fact = Store(layout).get("pkg")
    Store(layout).save(
        SaveRequest(
            id=fact.id, name="pkg", type="project", activation="pinned", description="pnpm 9", body="Use pnpm 9."
        ),
        expected_revision=fact.revision,
    )
    later = context(
        "claude", run("claude", layout, "user-prompt-submit", payload("claude", layout, "user-prompt-submit", "ok"))
    )
    assert "<memory-update>" in later and "no longer applies" in later

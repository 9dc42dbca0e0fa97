"""``reasonix-tui hook user-prompt-submit`` / ``session-start``: real payload shapes, fail-open
behaviour, recorded traces, retraction notes, and the warm hook server.

Most tests run the console script in a subprocess with ``--home`` under tmp_path (the
conftest points HOME there too), with the hook server off (``REASONIX_TUI_HOOK_DAEMON=0``)
so every call answers in-process; one test covers the server path and stops it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_exe import exe, exe_python

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import TraceStore
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations import hook_answers, hook_client, hooks
from reasonix_tui.integrations.hook_answers import MAX_CONTEXT
from reasonix_tui.integrations.hook_payload import parse_input, resolve_workspace
from reasonix_tui.integrations.hook_sessions import SessionState, session_path
from reasonix_tui.integrations.hooks import fast_main, run_hook

# Keys Codex's strict UserPromptSubmit output schema accepts (agent-integration c-1).
CODEX_TOP = {"continue", "decision", "hookSpecificOutput", "reason", "stopReason", "suppressOutput", "systemMessage"}
CODEX_SPECIFIC = {"hookEventName", "additionalContext"}


def hook(
    layout: Layout, event: str, payload: Any, *, daemon: bool = False, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the console script as Claude Code does: JSON on stdin, output on stdout."""
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    e = dict(os.environ)
    e["REASONIX_TUI_HOOK_DAEMON"] = "1" if daemon else "0"
    e.update(env or {})
    return subprocess.run(
        [*exe(), "--home", str(layout.root), "hook", event],
        input=stdin,
        capture_output=True,
        text=True,
        env=e,
        timeout=60,
        check=False,
    )


def prompt_payload(layout: Layout, prompt: str, session: str = "sess-1", **extra: Any) -> dict[str, Any]:
    """``UserPromptSubmitHookInput`` (claude-agent-sdk-python types.py) plus newer optional keys."""
    return {
        "session_id": session,
        "transcript_path": f"/home/u/.claude/projects/-repo/{session}.jsonl",
        "cwd": str(layout.workspace),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
        **extra,
    }


def start_payload(layout: Layout, source: str = "startup", session: str = "sess-1") -> dict[str, Any]:
    """The SessionStart hook input: BaseHookInput + ``hook_event_name`` + ``source``."""
    return {
        "session_id": session,
        "transcript_path": f"/home/u/.claude/projects/-repo/{session}.jsonl",
        "cwd": str(layout.workspace),
        "hook_event_name": "SessionStart",
        "source": source,
    }


def context_of(proc: subprocess.CompletedProcess[str], event: str) -> str:
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) <= CODEX_TOP
    assert set(data) == {"hookSpecificOutput"}
    specific = data["hookSpecificOutput"]
    assert set(specific) <= CODEX_SPECIFIC
    assert specific["hookEventName"] == event
    text = specific["additionalContext"]
    assert isinstance(text, str) and 0 < len(text) <= MAX_CONTEXT
    return text


@pytest.fixture
def store(layout: Layout) -> Store:
    s = Store(layout)
    s.save(
        SaveRequest(
            name="deploy-target",
            title="Deploy target",
            type="project",
            description="We deploy to the k8s-stage-2 cluster with helm",
            body="Deploys go to k8s-stage-2 through the helm chart in deploy/; prod needs sign-off.",
        )
    )
    s.save(
        SaveRequest(
            name="pkg-manager",
            title="Package manager",
            type="project",
            activation="pinned",
            description="Package manager is pnpm",
            body="Use pnpm install, never npm install.",
        )
    )
    return s


# --------------------------------------------------------------------------- user-prompt-submit


def test_prompt_recalls_records_trace_and_session(layout: Layout, store: Store) -> None:
    fact = store.get("deploy-target")
    payload = prompt_payload(
        layout,
        "how do we deploy to the k8s-stage-2 cluster with helm?",
        prompt_id="p-1",
        effort="high",
        session_title="deploy",
        agent_type="main",
    )
    text = context_of(hook(layout, "user-prompt-submit", payload), "UserPromptSubmit")
    assert text.startswith("<memory-recall>\n") and text.endswith("</memory-recall>")
    assert f"id={fact.id} revision=1 scope=project" in text
    trace = TraceStore(layout).last()
    assert trace is not None
    assert (trace.source, trace.session_id) == ("claude-code-hook", "sess-1")
    assert trace.query == payload["prompt"] and [h.id for h in trace.hits] == [fact.id]
    state = SessionState.load(session_path(layout, "sess-1"), "sess-1")
    assert state.transcript_path == payload["transcript_path"]
    assert state.injected[fact.id]["revision"] == 1 and state.injected[fact.id]["via"] == "recall"
    assert state.prompts == 1 and state.workspace == str(layout.workspace)


@pytest.mark.parametrize("garbage", ["", "not json at all", "[1, 2, 3]", "null", '{"prompt": ', "\x00\xff"])
def test_garbage_payload_exits_0_without_output(layout: Layout, store: Store, garbage: str) -> None:
    proc = hook(layout, "user-prompt-submit", garbage)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_garbage_session_start_exits_0_without_output(layout: Layout, store: Store) -> None:
    proc = hook(layout, "session-start", "{{{")
    assert (proc.returncode, proc.stdout) == (0, "")


def test_suppressed_recall_prints_nothing(layout: Layout, store: Store) -> None:
    proc = hook(layout, "user-prompt-submit", prompt_payload(layout, "thanks"))
    assert (proc.returncode, proc.stdout) == (0, "")
    trace = TraceStore(layout).last()
    assert trace is not None and trace.suppressed and trace.session_id == "sess-1"


def test_empty_store_and_missing_fields(layout: Layout) -> None:
    # no facts at all, no session id, no cwd: still exit 0 and nothing printed
    proc = hook(layout, "user-prompt-submit", {"prompt": "how do we deploy with helm?"})
    assert (proc.returncode, proc.stdout) == (0, "")


def test_wrong_types_are_tolerated(layout: Layout, store: Store) -> None:
    proc = hook(layout, "user-prompt-submit", {"session_id": 7, "cwd": ["x"], "prompt": {"a": 1}})
    assert (proc.returncode, proc.stdout) == (0, "")


def test_memory_hidden_prints_nothing(layout: Layout, store: Store) -> None:
    env = {"REASONIX_EXPERIMENT_NO_MEMORY": "1"}
    assert hook(layout, "user-prompt-submit", prompt_payload(layout, "deploy helm k8s-stage-2"), env=env).stdout == ""
    assert hook(layout, "session-start", start_payload(layout), env=env).stdout == ""


# --------------------------------------------------------------------------- session-start


def test_session_start_prints_pinned_block(layout: Layout, store: Store) -> None:
    pinned = store.get("pkg-manager")
    text = context_of(hook(layout, "session-start", start_payload(layout)), "SessionStart")
    assert text.startswith("# Memory\n\n## Background memory")
    assert "## Pinned preferences and feedback" in text
    assert "### Package manager (project/project)\n\nUse pnpm install, never npm install." in text
    state = SessionState.load(session_path(layout, "sess-1"), "sess-1")
    assert state.injected[pinned.id] == {**state.injected[pinned.id], "revision": 1, "via": "pinned"}
    assert state.source == "startup"


# --------------------------------------------------------------------------- retraction


def test_retraction_after_forget_is_noted_once(layout: Layout, store: Store) -> None:
    fact = store.get("deploy-target")
    context_of(
        hook(layout, "user-prompt-submit", prompt_payload(layout, "deploy with helm to k8s-stage-2")),
        "UserPromptSubmit",
    )
    Store(layout).archive("deploy-target")
    text = context_of(hook(layout, "user-prompt-submit", prompt_payload(layout, "ok, and now?")), "UserPromptSubmit")
    assert text.startswith("<memory-update>\n") and text.endswith("</memory-update>")
    assert f"id={fact.id} revision=1 (Deploy target) was forgotten" in text
    assert "no longer applies" in text
    # noted once: the next prompt says nothing more
    assert hook(layout, "user-prompt-submit", prompt_payload(layout, "ok, and now?")).stdout == ""
    # another session never saw it: no note there
    assert hook(layout, "user-prompt-submit", prompt_payload(layout, "ok, and now?", session="other")).stdout == ""


def test_retraction_after_update_names_the_current_revision(layout: Layout, store: Store) -> None:
    pinned = store.get("pkg-manager")
    context_of(hook(layout, "session-start", start_payload(layout)), "SessionStart")
    Store(layout).save(
        SaveRequest.from_fact(pinned, description="Package manager is pnpm 9", body="Use pnpm 9; corepack pins it.")
    )
    text = context_of(hook(layout, "user-prompt-submit", prompt_payload(layout, "ok, what next?")), "UserPromptSubmit")
    assert (
        f"id={pinned.id} revision=1 (Package manager) no longer applies; revision 2 is current "
        "(Package manager is pnpm 9)"
    ) in text
    assert hook(layout, "user-prompt-submit", prompt_payload(layout, "ok, what next?")).stdout == ""
    state = SessionState.load(session_path(layout, "sess-1"), "sess-1")
    assert state.injected[pinned.id]["revision"] == 2
    assert [(r["id"], r["revision"], r["change"], r["current_revision"]) for r in state.retractions] == [
        (pinned.id, 1, "changed", 2)
    ]


def test_retraction_note_comes_before_the_recall_block(layout: Layout, store: Store) -> None:
    pinned = store.get("pkg-manager")
    context_of(hook(layout, "session-start", start_payload(layout)), "SessionStart")
    Store(layout).archive("pkg-manager")
    text = context_of(
        hook(layout, "user-prompt-submit", prompt_payload(layout, "deploy with helm to k8s-stage-2")),
        "UserPromptSubmit",
    )
    note, _, block = text.partition("</memory-update>\n\n")
    assert f"id={pinned.id} revision=1" in note and block.startswith("<memory-recall>")


def test_resume_reports_changes_made_while_away(layout: Layout, store: Store) -> None:
    pinned = store.get("pkg-manager")
    context_of(hook(layout, "session-start", start_payload(layout)), "SessionStart")
    Store(layout).archive("pkg-manager")
    text = context_of(hook(layout, "session-start", start_payload(layout, "resume")), "SessionStart")
    assert text.startswith("<memory-update>") and f"id={pinned.id} revision=1" in text
    assert "## Pinned preferences" not in text  # nothing is pinned any more


def test_clear_forgets_what_was_shown(layout: Layout, store: Store) -> None:
    context_of(hook(layout, "session-start", start_payload(layout)), "SessionStart")
    Store(layout).archive("pkg-manager")
    text = context_of(hook(layout, "session-start", start_payload(layout, "clear")), "SessionStart")
    assert "<memory-update>" not in text  # the old context is gone: nothing to retract


def test_unpinned_fact_is_reported_as_unpinned(layout: Layout, store: Store) -> None:
    run_hook("session-start", json.dumps(start_payload(layout)), home=str(layout.root))
    Store(layout).set_activation("pkg-manager", "relevant")
    out = run_hook("user-prompt-submit", json.dumps(prompt_payload(layout, "ok")), home=str(layout.root))
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "was unpinned: it is no longer standing guidance" in text


# --------------------------------------------------------------------------- in-process details


def test_errors_go_to_the_log_never_stdout(layout: Layout, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*a: Any, **k: Any) -> str:
        raise RuntimeError("recall exploded")

    monkeypatch.setattr(hook_answers, "user_prompt_submit", boom)
    assert run_hook("user-prompt-submit", json.dumps(prompt_payload(layout, "deploy")), home=str(layout.root)) == ""
    log = (layout.tui_dir / "hooks.log").read_text()
    assert "recall exploded" in log and "Traceback" in log


def test_context_stays_under_the_cap(layout: Layout) -> None:
    s = Store(layout)
    for i in range(30):
        s.save(
            SaveRequest(
                name=f"helm-note-{i}",
                type="project",
                description=f"helm chart note {i}",
                body="helm chart values " * 200,
            )
        )
    (layout.tui_dir).mkdir(parents=True, exist_ok=True)
    layout.settings_file.write_text("[memory]\nrecall_limit = 30\nrecall_max_chars = 50000\n")
    out = run_hook("user-prompt-submit", json.dumps(prompt_payload(layout, "helm chart values")), home=str(layout.root))
    if out:
        assert len(json.loads(out)["hookSpecificOutput"]["additionalContext"]) <= MAX_CONTEXT
    trace = TraceStore(layout).last()
    assert trace is not None and len(trace.block) > MAX_CONTEXT  # the cap, not recall, kept it out


def test_parse_input_is_lenient() -> None:
    p = parse_input('\ufeff{"session_id": " s ", "prompt": "x", "new_field": {"deep": 1}, "cwd": 3}')
    assert p is not None and (p.session_id, p.prompt, p.cwd, p.extra_keys) == ("s", "x", "", ("new_field",))
    assert parse_input("[]") is None and parse_input("") is None and parse_input(b"\xff\xfe") is None


def test_workspace_resolution(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    sub = project / "pkg" / "a"
    sub.mkdir(parents=True)
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    assert resolve_workspace(parse_input(json.dumps({"cwd": str(sub)})), env=env) == str(project)  # type: ignore[arg-type]
    other = tmp_path / "elsewhere"
    assert resolve_workspace(parse_input(json.dumps({"cwd": str(other)})), env=env) == str(other)  # type: ignore[arg-type]
    assert resolve_workspace(parse_input("{}"), env=env) == str(project)  # type: ignore[arg-type]
    assert resolve_workspace(parse_input("{}"), explicit="/x", env=env) == "/x"  # type: ignore[arg-type]
    assert resolve_workspace(parse_input("{}"), env={}, cwd="/from/client") == "/from/client"  # type: ignore[arg-type]


def test_odd_session_ids_are_hashed(layout: Layout) -> None:
    assert session_path(layout, "abc-123").name == "abc-123.json"
    odd = session_path(layout, "../../etc/passwd")
    assert odd.parent == layout.tui_dir / "sessions" and odd.name.startswith("h-")


def test_fast_main_declines_what_it_does_not_handle() -> None:
    assert fast_main(["hook", "user-prompt-submit", "--help"]) is None
    assert fast_main(["memory", "list"]) is None
    assert fast_main(["--home"]) is None
    assert fast_main(["hook"]) is None
    assert fast_main(["--home", "/x", "hook", "stop"]) is None


def test_misconfigured_hooks_never_block_the_prompt(layout: Layout, store: Store) -> None:
    # exit code 2 would make Claude Code block the prompt: every hook spelling exits 0
    for argv in (["hook", "user-prompt-sumbit"], ["hook", "session-start", "--bogus"]):
        proc = subprocess.run(
            [*exe(), "--home", str(layout.root), *argv],
            input="{}",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={**os.environ, "REASONIX_TUI_HOOK_DAEMON": "0"},
        )
        assert proc.returncode == 0, (argv, proc.stderr)
    # a bare `hook` (no event) is a usage error: help on stderr, nothing on stdout (a client
    # would hand stdout to the model), exit 1 (a non-blocking error, never 2)
    proc = subprocess.run(
        [*exe(), "--home", str(layout.root), "hook"],
        input="{}",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "REASONIX_TUI_HOOK_DAEMON": "0"},
    )
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "user-prompt-submit" in proc.stderr and "session-start" in proc.stderr
    proc = subprocess.run(
        [*exe(), "--home", str(layout.root), "hook", "user-prompt-submit", "--bogus"],
        input=json.dumps(prompt_payload(layout, "deploy to k8s-stage-2 with helm")),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "REASONIX_TUI_HOOK_DAEMON": "0"},
    )
    assert proc.returncode == 0 and "ignoring unexpected hook arguments" in proc.stderr
    assert context_of(proc, "UserPromptSubmit").startswith("<memory-recall>")


def test_help_lists_the_hook_commands() -> None:
    proc = subprocess.run([*exe(), "hook", "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert "user-prompt-submit" in proc.stdout and "session-start" in proc.stdout
    assert "SUPPRESS" not in proc.stdout and "\n    serve" not in proc.stdout  # the internal server stays out


# --------------------------------------------------------------------------- warm hook server


@pytest.mark.skipif(not hook_client.enabled({}), reason="no Unix sockets")
def test_server_is_spawned_on_this_copy_of_the_package(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONIX_TUI_HOOK_DAEMON", "1")
    seen: dict[str, Any] = {}

    def fake_popen(cmd: list[str], **kw: Any) -> None:
        seen.update(cmd=cmd, **kw)

    monkeypatch.setattr(subprocess, "Popen", fake_popen)
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    hook_client.spawn(str(layout.root))
    package_parent = str(Path(hook_client.__file__).resolve().parents[2])
    assert seen["cmd"][:3] == [sys.executable, "-m", "reasonix_tui"]
    assert seen["env"]["PYTHONPATH"].split(os.pathsep) == [package_parent, "/elsewhere"]


@pytest.mark.skipif(not hook_client.enabled({}), reason="no Unix sockets")
def test_warm_server_answers_like_in_process(layout: Layout, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONIX_TUI_HOOK_DAEMON", "1")
    root = str(layout.root)
    payload = prompt_payload(layout, "how do we deploy to the k8s-stage-2 cluster with helm?", session="srv")
    try:
        first = hook(layout, "user-prompt-submit", payload, daemon=True)  # answers in-process, starts the server
        deadline = time.monotonic() + 60
        info = None
        while time.monotonic() < deadline and not info:
            info = hook_client.status(root)
            time.sleep(0.1)
        # the stamp of the copy the console script runs (under `python -m pytest` this process
        # may import the source tree instead of the installed copy, as in .ci/run)
        stamp = subprocess.run(
            [
                *exe_python(),
                "-c",
                "from reasonix_tui.integrations import hook_client; " "print(hook_client.code_stamp())",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            cwd=str(hook_client.run_dir(root)),
        ).stdout.strip()
        assert info and info["ok"] and info["stamp"] == stamp
        pid = json.loads((hook_client.run_dir(root) / "hookd.json").read_text())["pid"]
        assert pid == info["pid"] and pid != os.getpid()
        second = hook(layout, "user-prompt-submit", payload, daemon=True)  # served by the server
        assert context_of(second, "UserPromptSubmit") == context_of(first, "UserPromptSubmit")
        assert hook_client.status(root)["pid"] == pid
        # the server wrote the trace and the session state, as the in-process path does
        assert TraceStore(layout).last().session_id == "srv"  # type: ignore[union-attr]
        state = SessionState.load(session_path(layout, "srv"), "srv")
        assert (state.prompts, state.handled_by) == (2, pid)
        Store(layout).archive("deploy-target")
        third = context_of(
            hook(layout, "user-prompt-submit", {**payload, "prompt": "and now?"}, daemon=True), "UserPromptSubmit"
        )
        assert "was forgotten" in third
        # a stale client stamp makes the server step down; the hook still answers
        reply = hook_client.request(
            root, {"op": "hook", "event": "user-prompt-submit", "stdin": "{}", "root": root, "stamp": "old"}
        )
        assert reply is not None and (reply["ok"], reply["error"]) == (False, "stale")
        hook(layout, "user-prompt-submit", payload, daemon=True)  # restarts a server with the current code
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not hook_client.status(root):
            time.sleep(0.1)
        stop = subprocess.run(
            [*exe(), "--home", root, "hook", "stop"], capture_output=True, text=True, timeout=60, check=False
        )
        assert (stop.returncode, stop.stdout.strip()) == (0, "hook server stopped")
    finally:
        hook_client.shutdown(root)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and hook_client.status(root):
        time.sleep(0.1)
    assert hook_client.status(root) is None


# --------------------------------------------------------------------------- Cursor


def cursor_hook(layout: Layout, event: str, payload: Any) -> subprocess.CompletedProcess[str]:
    """As Cursor runs a hook: its payload on stdin, CURSOR_* in the environment."""
    e = dict(
        os.environ, REASONIX_TUI_HOOK_DAEMON="0", CURSOR_VERSION="3.20.17", CURSOR_PROJECT_DIR=str(layout.workspace)
    )
    e.pop("CLAUDE_PROJECT_DIR", None)
    return subprocess.run(
        [*exe(), "--home", str(layout.root), "hook", event, "--format", "cursor"],
        input=payload if isinstance(payload, str) else json.dumps(payload),
        capture_output=True,
        text=True,
        env=e,
        timeout=60,
        check=False,
    )


def test_cursor_before_submit_prompt_gets_recall_in_cursors_shape(layout: Layout, store: Store) -> None:
    fact = store.get("deploy-target")
    payload = {  # Cursor's beforeSubmitPrompt input: no cwd, no session_id
        "conversation_id": "conv-42",
        "generation_id": "gen-1",
        "hook_event_name": "beforeSubmitPrompt",
        "prompt": "how do we deploy to the k8s-stage-2 cluster with helm?",
        "workspace_roots": [str(layout.workspace)],
        "cursor_version": "3.20.17",
        "attachments": [],
    }
    proc = cursor_hook(layout, "user-prompt-submit", payload)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"continue", "additional_context"} and data["continue"] is True
    assert data["additional_context"].startswith("<memory-recall>") and f"id={fact.id}" in data["additional_context"]
    trace = TraceStore(layout).last()
    assert trace is not None and trace.session_id == "conv-42"  # the conversation is the session
    # Nothing to add: no output at all (Cursor reads empty stdout as "nothing to add").
    assert cursor_hook(layout, "user-prompt-submit", {**payload, "prompt": "thanks"}).stdout == ""
    assert cursor_hook(layout, "user-prompt-submit", "not json").stdout == ""


def test_cursor_session_start_gets_pinned_guidance(layout: Layout, store: Store) -> None:
    proc = cursor_hook(
        layout,
        "session-start",
        {"conversation_id": "conv-42", "hook_event_name": "sessionStart", "workspace_roots": [str(layout.workspace)]},
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"additional_context"} and "pnpm" in data["additional_context"]


def test_to_cursor_reshapes_only_real_context() -> None:
    claude = json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ctx"}})
    assert json.loads(hooks.to_cursor("user-prompt-submit", claude)) == {"continue": True, "additional_context": "ctx"}
    assert json.loads(hooks.to_cursor("session-start", claude)) == {"additional_context": "ctx"}
    assert hooks.to_cursor("user-prompt-submit", "") == "" and hooks.to_cursor("session-start", "{}") == ""


def test_code_stamp_covers_every_sub_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed module anywhere under core/ or integrations/ (core/compat, core/agent…)
    changes the stamp, so a warm hook server never answers with code older than the client's."""
    for rel in ("core/a.py", "core/compat/deep/b.py", "integrations/commands/c.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
        os.utime(tmp_path / rel, ns=(1_000_000_000, 1_000_000_000))
    monkeypatch.setattr(hook_client, "_PKG", tmp_path)
    before = hook_client.code_stamp()
    assert before.endswith(":3:1000000000")
    os.utime(tmp_path / "core/compat/deep/b.py", ns=(2_000_000_000, 2_000_000_000))
    assert hook_client.code_stamp() != before

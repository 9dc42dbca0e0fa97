"""Claude Code (and Codex) command hooks: ``reasonix-tui hook user-prompt-submit`` and
``reasonix-tui hook session-start``.

Contract (agent-integration c-1):

* one JSON object arrives on stdin; it is parsed leniently (unknown keys ignored,
  missing fields tolerated). Anything that is not a JSON object gives no output;
* on success the hook prints ``{"hookSpecificOutput": {"hookEventName": ...,
  "additionalContext": ...}}`` — only keys Codex's strict schema accepts too — and
  prints nothing when there is nothing to add (recall suppressed, memory hidden);
* it always exits 0 (fail open: an error never blocks the person's turn). Errors go to
  ``<root>/reasonix-tui/hooks.log``, never to stdout;
* ``additionalContext`` stays under :data:`MAX_CONTEXT` characters (Claude Code turns
  longer hook output into a file preview).

A change of revision that leaves the text the agent was shown unchanged (``memory
verify``) is not a retraction: the state keeps a digest of what was shown.

``user-prompt-submit`` runs automatic recall for the workspace on the prompt and
records the trace (source ``<client>-hook``, with the session id). ``session-start``
prints the session-start block (protocol + pinned guidance, store-format §10.4); when the
pinned facts do not all fit under :data:`MAX_CONTEXT`, it prints the protocol, as many
pinned facts as fit (in the resolver's order), and one line saying how many were left
out and how to read them — never nothing — and logs the truncation.
``pre-tool-use`` is the shell guard: it denies a shell command that would run a
person-only subcommand (:mod:`.shell_guard`), in the client's own decision format.

The client (``claude-code``, ``codex`` or ``cursor``) comes from ``--format`` (setup
writes ``--format codex`` / ``--format cursor``), else from the payload and the
environment (:func:`detect_client`); the session state and the trace name it.

**Retraction**: a fact shown earlier in the session that has since been forgotten or
rewritten gets a short ``<memory-update>`` note (:mod:`.hook_sessions`).

This module runs a hook (:func:`run_hook`, :func:`main`, :func:`fast_main`) and the warm
server's entry point; the payload is read by :mod:`.hook_payload`, the two answers are
written by :mod:`.hook_answers`, errors go to the log of :mod:`.hook_log`.

Speed: the console script routes ``hook …`` here through :func:`fast_main` before the
full CLI parser is built, and the hook process forwards the payload to a warm hook
server (:mod:`.hookd`, reached through :mod:`.hook_client`) that keeps the store and the recall index in memory; without
one it answers in-process (importing the store and the recall engine only then) and
starts one for the next call.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from .hook_payload import MAX_CONTEXT, detect_client, parse_input, resolve_workspace

if TYPE_CHECKING:
    from ..core.paths import Layout

__all__ = [
    "EVENTS",
    "GUARD_EVENT",
    "FORMATS",
    "HOOK_SOURCE",
    "run_hook",
    "fast_main",
]

EVENTS = {"user-prompt-submit": "UserPromptSubmit", "session-start": "SessionStart"}
"""Our subcommand → the ``hookEventName`` we answer with."""

GUARD_EVENT = "pre-tool-use"
"""The shell guard: Claude Code's and Codex's ``PreToolUse`` (tool ``Bash``), Cursor's
``beforeShellExecution``."""

FORMATS = ("claude", "codex", "cursor")
"""Output shapes: Claude Code's ``hookSpecificOutput`` (Codex uses the same shape; ``codex``
only names the client), or Cursor's."""


HOOK_SOURCE = "claude-code-hook"
"""``source`` of recall traces recorded by the hook for Claude Code (``<client>-hook`` in general)."""


# --------------------------------------------------------------------------- input


# --------------------------------------------------------------------------- session state


# --------------------------------------------------------------------------- retraction


# --------------------------------------------------------------------------- the two hooks


# --------------------------------------------------------------------------- running


def run_hook(
    event: str,
    stdin_text: str | bytes,
    *,
    home: str | None = None,
    workspace: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    client: str = "",
) -> str:
    """Run one hook in this process and return what to print (``""`` for nothing). Never raises.

    ``env`` replaces ``os.environ`` for resolving the workspace, the state root and the
    settings (both the hook server and the in-process path pass
    :func:`~.hook_client.request_env`, so they answer alike); ``cwd`` is the caller's working
    directory (the hook server passes its client's); ``client`` names the client in the
    session state and the trace source (default: :func:`detect_client`).
    """
    layout: Layout | None = None
    try:
        hook_event = EVENTS.get(event)
        if hook_event is None:
            return ""
        payload = parse_input(stdin_text)
        if payload is None:
            return ""
        from ..core.paths import Layout
        from ..core.settings import load_settings

        env_d = dict(env) if env is not None else None
        client = client or detect_client("claude", payload, env)
        layout = Layout.resolve(home=home, workspace=resolve_workspace(payload, workspace, env, cwd), env=env_d)
        settings = load_settings(layout.root, env_d)
        from . import hook_answers  # the answers' code: imported only when this process answers

        if event == "user-prompt-submit":
            text = hook_answers.user_prompt_submit(payload, layout, settings, client)
        else:
            text = hook_answers.session_start(payload, layout, settings, client)
        if not text:
            return ""
        out = {"hookSpecificOutput": {"hookEventName": hook_event, "additionalContext": text}}
        return json.dumps(out, ensure_ascii=False) + "\n"
    except Exception as exc:  # fail open: never block the person's turn
        import traceback

        from .hook_log import append_log

        append_log(layout, f"hook {event} failed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        if layout is None:
            _log_without_layout(home, env, f"hook {event} failed: {type(exc).__name__}: {exc}")
        return ""


def _log_without_layout(home: str | None, env: Mapping[str, str] | None, message: str) -> None:
    try:
        from ..core.paths import Layout
        from .hook_log import append_log

        append_log(
            Layout.resolve(home=home, workspace=os.getcwd(), env=dict(env) if env is not None else None), message
        )
    except Exception:
        pass


def answer_request(request: Mapping[str, Any], root: str) -> str:
    """The hook server's answer to one request for the state root ``root``: :func:`run_hook`
    with the event, the payload, the environment, the working directory and the client the
    request carries."""
    raw_env = request.get("env")
    env = {str(k): str(v) for k, v in raw_env.items()} if isinstance(raw_env, dict) else {}
    return run_hook(
        str(request.get("event", "")),
        str(request.get("stdin", "")),
        home=root,
        workspace=request.get("workspace") or None,
        env=env,
        cwd=str(request.get("cwd") or "") or None,
        client=str(request.get("client") or ""),
    )


def serve(root: str, *, warm_workspace: str = "") -> int:
    """Run the warm hook server for ``root`` (``hook serve``): :mod:`.hookd` with this
    module's answer, log and warm-up injected. Returns an exit code."""
    from ..core.recall.service import serve_live
    from .hookd import serve as serve_hooks

    serve_live()  # this process answers many hooks: its stores follow file-system events
    root = os.path.abspath(root)

    def log(message: str) -> None:
        from ..core.paths import Layout
        from .hook_log import append_log

        append_log(Layout.resolve(home=root, workspace=root), message)

    def warm_up() -> None:
        warm(root, warm_workspace)

    return serve_hooks(
        root, functools.partial(answer_request, root=root), log, warm=warm_up if warm_workspace else None
    )


def warm(root: str, workspace: str) -> None:
    """Load the store and build the recall index for ``workspace`` (the hook server's warm-up),
    starting from the on-disk rows of the recall index where they are valid
    (:func:`~reasonix_tui.core.recall.service.seed_once`)."""
    layout: Layout | None = None
    try:
        from ..core.paths import Layout
        from ..core.recall.service import load_facts, store_for, try_recall
        from ..core.settings import load_settings

        layout = Layout.resolve(home=root, workspace=workspace)
        settings = load_settings(layout.root)
        import threading

        from ..core import lang
        from ..core.resolve import resolve

        store = store_for(layout, settings)
        facts = load_facts(layout, settings, store)  # seeded from the on-disk rows: only changed facts are analysed
        probe = next((f.description for f in facts if f.description.strip() and not f.pinned), "warm up")
        try_recall(layout, settings, probe, store=store, facts=facts)  # loads the meaning model and priors
        resolve(facts)
        import gc

        gc.freeze()  # the warm store and index live as long as the server: keep the cyclic GC off them
        # The Chinese segmenter and dictionary (about a second) load beside the first turns.
        threading.Thread(target=lang.warm, daemon=True, name="lang-warm").start()
    except Exception as exc:
        from .hook_log import append_log

        append_log(layout, f"hook server warm-up failed: {type(exc).__name__}: {exc}")


def valid_output(event: str, text: str) -> bool:
    """True when ``text`` is an answer this code could have printed for ``event``: nothing,
    or one line of ``{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}``
    within :data:`MAX_CONTEXT` (what the hook server's reply is checked against)."""
    if text == "":
        return True
    if not text.endswith("\n") or text.count("\n") != 1:
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    if not isinstance(data, dict) or set(data) != {"hookSpecificOutput"}:
        return False
    specific = data["hookSpecificOutput"]
    if not isinstance(specific, dict) or set(specific) != {"hookEventName", "additionalContext"}:
        return False
    context = specific["additionalContext"]
    return (
        specific["hookEventName"] == EVENTS.get(event) and isinstance(context, str) and 0 < len(context) <= MAX_CONTEXT
    )


def _answer(event: str, data: str, home: str | None, workspace: str | None, client: str) -> tuple[str, Any]:
    """``(output, after)``: the output, and a callable to run once it is printed (or ``None``).

    Asks the warm hook server first (and accepts only a reply that :func:`valid_output`
    approves); without one, starts it and answers in-process.
    """
    from . import hook_client as hookd

    if event not in EVENTS or not hookd.enabled():
        return _in_process(event, data, home, workspace, client)
    payload = parse_input(data)
    if payload is None:
        return "", None
    from ..core.state_root import state_root  # not core.paths: the warm path imports little

    root = state_root(home)
    message = {
        "op": "hook",
        "event": event,
        "stdin": data,
        "root": root,
        "workspace": workspace,
        "env": hookd.request_env(),
        "cwd": os.getcwd(),
        "stamp": hookd.code_stamp(),
        "client": client,
    }
    reply = hookd.request(root, message)
    if reply is not None and reply.get("ok") is True:
        output = reply.get("output")
        if isinstance(output, str) and valid_output(event, output):
            return output, None
    # Start the server before answering in-process: on a large store the in-process answer
    # may outlast the hook's timeout, and the next prompt must still find a warm server.
    # (A server that holds the lock keeps it; this one then exits at once.)
    hookd.spawn(root, resolve_workspace(payload, workspace, hookd.request_env()))
    return _in_process(event, data, home, workspace, client)


def _in_process(event: str, data: str, home: str | None, workspace: str | None, client: str = "") -> tuple[str, Any]:
    """Answer in this (one-shot) process: the per-fact recall memo comes from disk, and what
    was computed is written back after the answer is printed. The environment is seen
    through :func:`~.hook_client.request_env`, exactly as the hook server sees it."""
    from ..core.paths import resolve_state_root
    from ..core.recall.memo import FACT_MEMO, memo_path
    from ..core.recall.service import use_disk_index
    from .hook_client import request_env

    try:
        FACT_MEMO.attach(memo_path(resolve_state_root(home) / "reasonix-tui" / "cache"))
    except Exception:
        pass
    use_disk_index()  # recall starts from the on-disk recall index
    try:
        return run_hook(event, data, home=home, workspace=workspace, env=request_env(), client=client), FACT_MEMO.save
    finally:
        use_disk_index(False)


def to_cursor(event: str, text: str) -> str:
    """Claude Code's hook output reshaped for Cursor: ``sessionStart`` takes
    ``additional_context`` (documented); ``beforeSubmitPrompt`` takes ``continue`` and
    ``additional_context`` (the latter not on Cursor's docs page). Nothing to add stays empty."""
    if not text.strip():
        return ""
    try:
        data = json.loads(text)
        context = data["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        return ""
    if not isinstance(context, str) or not context:
        return ""
    out: dict[str, Any] = {"additional_context": context}
    if event == "user-prompt-submit":
        out = {"continue": True, **out}
    return json.dumps(out, ensure_ascii=False) + "\n"


def guard(data: str, fmt: str = "claude") -> str:
    """The shell guard's answer (:data:`GUARD_EVENT`, see :func:`.shell_guard.decide`)."""
    from .shell_guard import decide

    return decide(data, fmt)


def main(
    event: str,
    *,
    home: str | None = None,
    workspace: str | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    fmt: str = "claude",
) -> int:
    """Read stdin, answer (through the warm hook server when one runs), print. Always returns 0.

    ``fmt`` ``cursor`` prints Cursor's output shape instead of Claude Code's (:func:`to_cursor`);
    ``codex`` prints Claude Code's shape (Codex reads the same) and names the client.
    """
    raw: str | bytes = ""
    try:
        raw = sys.stdin.buffer.read() if stdin is None else stdin.read()
    except Exception:
        pass
    data = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    after = None
    if event == GUARD_EVENT:
        try:
            text = guard(data, fmt)
        except Exception:
            text = ""
    else:
        client = detect_client(fmt, parse_input(data))
        try:
            text, after = _answer(event, data, home, workspace, client)
        except Exception:
            text = run_hook(event, data, home=home, workspace=workspace, client=client)
        if fmt == "cursor":
            text = to_cursor(event, text)
    if text:
        try:
            out = stdout or sys.stdout
            out.write(text)
            out.flush()
        except Exception:
            pass
    if after is not None:
        try:
            after()
        except Exception:
            pass
    return 0


HOOK_EVENTS = (*EVENTS, GUARD_EVENT)
"""Every ``reasonix-tui hook EVENT`` a client runs."""


def fast_main(argv: Sequence[str]) -> int | None:
    """Handle ``[--home H] [--workspace W] hook EVENT [--format F]`` (and ``hook serve``)
    without building the full CLI.

    Returns ``None`` for anything else (help, ``--demo``, a bare ``hook``, other commands), so the
    caller falls back to the regular parser. A hook call never exits non-zero here: Claude
    Code treats exit code 2 as "block this prompt", so an unknown event or option is
    reported on stderr and ignored (exit 0).
    """
    home: str | None = None
    workspace: str | None = None
    fmt = "claude"
    warm_ws = ""
    positional: list[str] = []
    unknown: list[str] = []
    i = 0
    args = list(argv)
    if "-h" in args or "--help" in args or "--demo" in args:
        return None  # the regular parser resolves the demo home
    while i < len(args):
        a = args[i]
        if a in ("--home", "--workspace", "--warm", "--format"):
            if i + 1 >= len(args):
                return None
            value = args[i + 1]
            if a == "--home":
                home = value
            elif a == "--workspace":
                workspace = value
            elif a == "--format":
                fmt = value if value in FORMATS else fmt
                if value not in FORMATS:
                    unknown.append(f"--format {value}")
            else:
                warm_ws = value
            i += 2
            continue
        if a.startswith("--home="):
            home = a.split("=", 1)[1]
        elif a.startswith("--workspace="):
            workspace = a.split("=", 1)[1]
        elif a.startswith("-"):
            unknown.append(a)
        else:
            positional.append(a)
        i += 1
    if len(positional) < 2 or positional[0] != "hook" or positional[1] in ("stop",):
        return None  # not a hook call: the regular parser handles it
    if positional[1] == "serve" and len(positional) == 2 and not unknown:
        from ..core.paths import resolve_state_root

        return serve(str(resolve_state_root(home)), warm_workspace=warm_ws)
    if positional[1] not in HOOK_EVENTS or len(positional) > 2 or unknown:
        sys.stderr.write(
            f"reasonix-tui: ignoring unexpected hook arguments {' '.join([*positional[1:], *unknown])!r} "
            f"(events: {', '.join(HOOK_EVENTS)}); exiting 0 so the prompt is not blocked\n"
        )
        if positional[1] not in HOOK_EVENTS:
            return 0
    return main(positional[1], home=home, workspace=workspace, fmt=fmt)

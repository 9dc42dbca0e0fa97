"""What a hook call receives: the payload (parsed leniently), the workspace it is for and the client that runs it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["CLIENTS", "MAX_CONTEXT", "HookInput", "parse_input", "resolve_workspace", "detect_client"]

MAX_CONTEXT = 9000
"""Upper bound on ``additionalContext`` (Claude Code previews anything over 10,000)."""


CLIENTS = {"claude": "claude-code", "codex": "codex", "cursor": "cursor"}
"""``--format`` → the client named in the session state and the trace source."""


class HookInput(NamedTuple):
    """The fields of a hook payload that we use (everything else is ignored); immutable.
    A named tuple, not a dataclass: the hook client imports this module on every prompt,
    and ``dataclasses`` (with ``inspect``) would cost it milliseconds."""

    event: str = ""
    """``hook_event_name`` as sent (may be empty)."""
    session_id: str = ""
    transcript_path: str = ""
    cwd: str = ""
    prompt: str = ""
    """``UserPromptSubmit`` only."""
    source: str = ""
    """``SessionStart`` only: ``startup``, ``resume``, ``clear`` or ``compact``."""
    permission_mode: str = ""
    extra_keys: tuple[str, ...] = ()
    """Keys we do not use (kept for the log, never interpreted)."""
    origin: str = ""
    """The client the payload's shape points to (``cursor``, ``codex``) or ``""``."""


def as_str(value: Any) -> str:
    """``value`` when it is a string, else ``""`` (payloads and state files are read leniently)."""
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> int:
    """``value`` when it is an int (not a bool), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def parse_input(text: str | bytes) -> HookInput | None:
    """Parse a hook payload leniently; ``None`` when it is not a JSON object."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.lstrip("\ufeff")
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    known = {
        "hook_event_name",
        "session_id",
        "transcript_path",
        "cwd",
        "prompt",
        "source",
        "permission_mode",
        "conversation_id",
        "workspace_roots",
    }
    # Cursor names the session ``conversation_id`` and sends ``workspace_roots`` instead of ``cwd``.
    roots = data.get("workspace_roots")
    first_root = next((r for r in roots if isinstance(r, str) and r.strip()), "") if isinstance(roots, list) else ""
    origin = ""
    if "workspace_roots" in data or "conversation_id" in data or "cursor_version" in data:
        origin = "cursor"
    elif "turn_id" in data or "/.codex/" in as_str(data.get("transcript_path")).replace("\\", "/"):
        origin = "codex"
    return HookInput(
        event=as_str(data.get("hook_event_name")),
        session_id=(as_str(data.get("session_id")) or as_str(data.get("conversation_id"))).strip(),
        transcript_path=as_str(data.get("transcript_path")),
        cwd=as_str(data.get("cwd")) or first_root,
        prompt=as_str(data.get("prompt")),
        source=as_str(data.get("source")),
        permission_mode=as_str(data.get("permission_mode")),
        extra_keys=tuple(sorted(k for k in data if isinstance(k, str) and k not in known)),
        origin=origin,
    )


def _inside(child: str, parent: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(child), os.path.abspath(parent)]) == os.path.abspath(parent)
    except ValueError:
        return False


def resolve_workspace(
    payload: HookInput, explicit: str | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> str:
    """The workspace for a hook call.

    ``--workspace`` wins. Otherwise the payload's ``cwd`` — except that when the agent
    has moved into a subdirectory of ``$CLAUDE_PROJECT_DIR`` the project directory is
    used, so a ``cd`` mid-session does not switch to another project's store. Without
    a ``cwd``: ``$CLAUDE_PROJECT_DIR``, then ``cwd`` (default: this process's working directory).
    """
    env = os.environ if env is None else env
    if explicit:
        return explicit
    project = (env.get("CLAUDE_PROJECT_DIR", "") or env.get("CURSOR_PROJECT_DIR", "")).strip()
    where = payload.cwd.strip()
    if where and os.path.isabs(where):
        if project and os.path.isabs(project) and _inside(where, project):
            return project
        return where
    if project:
        return project
    return cwd or os.getcwd()


def detect_client(fmt: str = "claude", payload: HookInput | None = None, env: Mapping[str, str] | None = None) -> str:
    """Which client runs the hook: ``claude-code``, ``codex`` or ``cursor``.

    ``REASONIX_TUI_AGENT`` wins; then ``--format codex|cursor`` (what setup writes); then
    the payload's shape (Cursor's ``conversation_id``/``workspace_roots``, Codex's
    ``turn_id`` or a transcript under ``.codex/``); then the environment Cursor and Codex
    set; Claude Code otherwise.
    """
    env = os.environ if env is None else env
    forced = env.get("REASONIX_TUI_AGENT", "").strip()
    if forced:
        return forced
    if fmt in ("codex", "cursor"):
        return CLIENTS[fmt]
    if payload is not None and payload.origin:
        return payload.origin
    if env.get("CURSOR_VERSION") or env.get("CURSOR_PROJECT_DIR") or env.get("CURSOR_TRACE_ID"):
        return "cursor"
    if not env.get("CLAUDECODE") and any(k.startswith("CODEX_") for k in env):
        return "codex"
    return "claude-code"

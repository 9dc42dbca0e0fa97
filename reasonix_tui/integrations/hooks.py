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

**Retraction** (an improvement over Reasonix, where a forgotten fact stays in whatever
text already carried it): per session, ``<root>/reasonix-tui/sessions/<id>.json``
remembers which fact ids and revisions were injected (recall hits and pinned guidance).
On the next hook call, a fact that has since been forgotten or rewritten gets a short
``<memory-update>`` note — once per change — saying that id and revision no longer
apply (and which revision is current). The state also keeps Claude Code's
``transcript_path`` for the sessions/suggestions engine.

Speed: the console script routes ``hook …`` here through :func:`fast_main` before the
full CLI parser is built, and the hook process forwards the payload to a warm hook
server (:mod:`.hookd`, reached through :mod:`.hook_client`) that keeps the store and the recall index in memory; without
one it answers in-process (importing the store and the recall engine only then) and
starts one for the next call.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ..core.paths import Layout
    from ..core.settings import Settings
    from ..core.store.model import Fact

__all__ = [
    "EVENTS",
    "GUARD_EVENT",
    "FORMATS",
    "CLIENTS",
    "MAX_CONTEXT",
    "HOOK_SOURCE",
    "HookInput",
    "SessionState",
    "parse_input",
    "resolve_workspace",
    "user_prompt_submit",
    "session_start",
    "run_hook",
    "fast_main",
    "session_path",
    "detect_client",
    "shown_digest",
]

EVENTS = {"user-prompt-submit": "UserPromptSubmit", "session-start": "SessionStart"}
"""Our subcommand → the ``hookEventName`` we answer with."""

GUARD_EVENT = "pre-tool-use"
"""The shell guard: Claude Code's and Codex's ``PreToolUse`` (tool ``Bash``), Cursor's
``beforeShellExecution``."""

FORMATS = ("claude", "codex", "cursor")
"""Output shapes: Claude Code's ``hookSpecificOutput`` (Codex uses the same shape; ``codex``
only names the client), or Cursor's."""

CLIENTS = {"claude": "claude-code", "codex": "codex", "cursor": "cursor"}
"""``--format`` → the client named in the session state and the trace source."""

MAX_CONTEXT = 9000
"""Upper bound on ``additionalContext`` (Claude Code previews anything over 10,000)."""

HOOK_SOURCE = "claude-code-hook"
"""``source`` of recall traces recorded by the hook for Claude Code (``<client>-hook`` in general)."""

STATE_VERSION = 1
SESSION_TTL_SECONDS = 30 * 24 * 3600
"""Session state files untouched this long are removed at the next session start."""

MAX_NOTES = 12
"""Retraction lines shown at once (the rest are summarised)."""

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


# --------------------------------------------------------------------------- input


@dataclass(frozen=True, slots=True)
class HookInput:
    """The fields of a hook payload that we use (everything else is ignored)."""

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


def _s(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _i(value: Any) -> int:
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
    elif "turn_id" in data or "/.codex/" in _s(data.get("transcript_path")).replace("\\", "/"):
        origin = "codex"
    return HookInput(
        event=_s(data.get("hook_event_name")),
        session_id=(_s(data.get("session_id")) or _s(data.get("conversation_id"))).strip(),
        transcript_path=_s(data.get("transcript_path")),
        cwd=_s(data.get("cwd")) or first_root,
        prompt=_s(data.get("prompt")),
        source=_s(data.get("source")),
        permission_mode=_s(data.get("permission_mode")),
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


# --------------------------------------------------------------------------- session state


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _session_file_name(session_id: str) -> str:
    if _SAFE_ID.match(session_id):
        return session_id
    return "h-" + hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def session_path(layout: Layout, session_id: str) -> Path:
    """``<root>/reasonix-tui/sessions/<session_id>.json`` (odd ids are hashed)."""
    return layout.tui_dir / "sessions" / f"{_session_file_name(session_id)}.json"


@dataclass
class SessionState:
    """What one agent session was shown, for retraction notes."""

    session_id: str
    workspace: str = ""
    transcript_path: str = ""
    agent: str = "claude-code"
    started_at: str = ""
    updated_at: str = ""
    source: str = ""
    """The last ``SessionStart`` source."""
    prompts: int = 0
    """``UserPromptSubmit`` calls seen."""
    handled_by: int = 0
    """Pid of the process that answered the last call (the hook itself, or the hook server)."""
    injected: dict[str, dict[str, Any]] = field(default_factory=dict)
    """fact id → ``{revision, ref, title, via, at}`` as last shown to the agent."""
    retractions: list[dict[str, Any]] = field(default_factory=list)
    """Notes already given: ``{id, revision, change, current_revision, at}``."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Unknown keys from a newer version, kept on rewrite."""

    @classmethod
    def load(cls, path: Path, session_id: str) -> SessionState:
        """Read the state (a missing or unreadable file gives a fresh one)."""
        from ..core.store.safeio import read_regular

        try:
            data = json.loads(read_regular(path, limit=16 << 20))
        except (OSError, ValueError):
            return cls(session_id=session_id)
        if not isinstance(data, dict):
            return cls(session_id=session_id)
        injected = data.get("injected")
        retractions = data.get("retractions")
        known = {
            "version",
            "session_id",
            "workspace",
            "transcript_path",
            "agent",
            "started_at",
            "updated_at",
            "source",
            "prompts",
            "handled_by",
            "injected",
            "retractions",
        }
        return cls(
            session_id=session_id,
            workspace=_s(data.get("workspace")),
            transcript_path=_s(data.get("transcript_path")),
            agent=_s(data.get("agent")) or "claude-code",
            started_at=_s(data.get("started_at")),
            updated_at=_s(data.get("updated_at")),
            source=_s(data.get("source")),
            prompts=_i(data.get("prompts")),
            handled_by=_i(data.get("handled_by")),
            injected={str(k): v for k, v in injected.items() if isinstance(v, dict)}
            if isinstance(injected, dict)
            else {},
            retractions=[r for r in retractions if isinstance(r, dict)] if isinstance(retractions, list) else [],
            extra={k: v for k, v in data.items() if k not in known},
        )

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            **self.extra,
            "version": STATE_VERSION,
            "session_id": self.session_id,
            "agent": self.agent,
            "workspace": self.workspace,
            "transcript_path": self.transcript_path,
            "started_at": self.started_at,
            "updated_at": self.updated_at,
            "source": self.source,
            "prompts": self.prompts,
            "handled_by": self.handled_by,
            "injected": self.injected,
            "retractions": self.retractions[-200:],
        }

    def save(self, path: Path) -> None:
        """Write atomically (mode 0600: titles of facts are inside)."""
        from ..core.store.atomic import atomic_write

        self.updated_at = _now()
        atomic_write(path, json.dumps(self.to_json(), ensure_ascii=True, indent=1) + "\n", mode=0o600, durable=False)

    def remember_shown(
        self,
        fact_id: str,
        revision: int,
        ref: str,
        title: str,
        via: str,
        scope: str = "",
        workspace: str = "",
        digest: str = "",
    ) -> None:
        """Record that ``fact_id`` at ``revision`` was put in front of the agent (``via``
        ``recall`` or ``pinned``); ``digest`` is :func:`shown_digest` of that revision."""
        if not fact_id:
            return
        entry: dict[str, Any] = {
            "revision": int(revision),
            "ref": ref,
            "title": title,
            "via": via,
            "scope": scope,
            "workspace": workspace,
            "at": _now(),
        }
        if digest:
            entry["digest"] = digest
        self.injected[fact_id] = entry


def shown_digest(fact: Fact) -> str:
    """A digest of what the agent is shown of a fact (name, title, description, keywords,
    body, type, scope, subject key): a new revision with the same digest (a ``memory
    verify``, a freshness change) does not make the earlier text wrong."""
    parts = (fact.name, fact.title, fact.description, fact.keywords, fact.body, fact.type, fact.scope, fact.subject_key)
    text = "\x1f".join(p if isinstance(p, str) else str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _prune_sessions(directory: Path, keep: Path) -> None:
    cutoff = time.time() - SESSION_TTL_SECONDS
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if not entry.name.endswith(".json") or entry.path == str(keep):
            continue
        try:
            if entry.stat().st_mtime < cutoff:
                from ..core.store.safeio import remove

                remove(entry.path)
        except OSError:
            pass


# --------------------------------------------------------------------------- retraction


@dataclass(frozen=True, slots=True)
class Retraction:
    """A fact shown earlier in the session that no longer applies as shown."""

    id: str
    revision: int
    ref: str
    title: str
    change: str
    """``forgotten`` (no longer active), ``unpinned`` (shown as pinned guidance, now an
    ordinary fact) or ``changed`` (another revision is current)."""
    current_revision: int = 0
    current_description: str = ""
    """For ``changed``: the current revision's one-line description."""

    def line(self) -> str:
        """One line for the agent."""
        from ..core.compat.gostr import html_escape, one_line, truncate_runes

        label = html_escape(one_line(self.title or self.ref or self.id))
        head = f"- id={html_escape(self.id)} revision={self.revision} ({label})"
        if self.change == "forgotten":
            return f"{head} was forgotten by the user; it no longer applies. Disregard it."
        if self.change == "unpinned":
            return (
                f"{head} was unpinned: it is no longer standing guidance, only background that may be "
                f"recalled when relevant (revision {self.current_revision} is current)."
            )
        now = ""
        if self.current_description:
            now = f" ({html_escape(truncate_runes(one_line(self.current_description), 200))})"
        return (
            f"{head} no longer applies; revision {self.current_revision} is current{now}. "
            f"Disregard the earlier text (the memory tool's read op returns the current one)."
        )


def find_retractions(state: SessionState, by_id: Mapping[str, Fact], workspace: str = "") -> list[Retraction]:
    """Facts in ``state.injected`` that were forgotten or changed since; updates ``state``
    so each change is reported once.

    A project fact shown for another workspace (the session moved) is not checked: its
    store is not the one loaded now.
    """
    out: list[Retraction] = []
    for fact_id, shown in list(state.injected.items()):
        shown_ws = _s(shown.get("workspace"))
        if workspace and shown_ws and shown_ws != workspace and _s(shown.get("scope")) != "global":
            continue
        revision = _i(shown.get("revision"))
        current = by_id.get(fact_id)
        ref, title = _s(shown.get("ref")), _s(shown.get("title"))
        if current is None:
            out.append(Retraction(fact_id, revision, ref, title, "forgotten"))
            del state.injected[fact_id]
        elif current.revision != revision:
            unpinned = shown.get("via") == "pinned" and not current.pinned
            if not unpinned and shown.get("digest") and shown.get("digest") == shown_digest(current):
                # Same text under a new revision (verify): the agent's copy still holds.
                shown.update(revision=current.revision, ref=current.ref, at=_now())
                continue
            out.append(
                Retraction(
                    fact_id,
                    revision,
                    ref,
                    title,
                    "unpinned" if unpinned else "changed",
                    current.revision,
                    "" if unpinned else current.description,
                )
            )
            if unpinned:
                shown["via"] = "recall"
            # The agent now knows the current revision number, not its text: keep watching it.
            shown.update(
                revision=current.revision,
                ref=current.ref,
                title=current.display_title,
                at=_now(),
                digest=shown_digest(current),
            )
    for r in out:
        state.retractions.append(
            {
                "id": r.id,
                "revision": r.revision,
                "change": r.change,
                "current_revision": r.current_revision,
                "at": _now(),
            }
        )
    return out


def retraction_note(items: Sequence[Retraction]) -> str:
    """The ``<memory-update>`` note for retractions (empty when there are none)."""
    if not items:
        return ""
    lines = [r.line() for r in items[:MAX_NOTES]]
    if len(items) > MAX_NOTES:
        lines.append(f"- and {len(items) - MAX_NOTES} more earlier memory fact(s) no longer apply as shown.")
    return (
        "<memory-update>\nMemory shown earlier in this session has changed since:\n"
        + "\n".join(lines)
        + "\n</memory-update>"
    )


# --------------------------------------------------------------------------- the two hooks


def _compose(note: str, block: str) -> str:
    parts = [p for p in (note, block) if p]
    text = "\n\n".join(parts)
    if len(text) <= MAX_CONTEXT:
        return text
    if note and len(note) <= MAX_CONTEXT:
        return note  # the block does not fit beside the note: the note matters more
    return ""


def user_prompt_submit(payload: HookInput, layout: Layout, settings: Settings, client: str = "claude-code") -> str:
    """Recall for ``payload.prompt`` (trace recorded) plus retraction notes; the context text or ``""``."""
    from ..core.recall.service import disk_index, store_for

    if settings.no_memory:
        return ""
    store = store_for(layout, settings)
    index = disk_index(layout, settings, store)  # a one-shot process: the on-disk recall index
    if index is not None:
        from ..core.recall.disk_index import Changed, by_id

        try:
            return _user_prompt(payload, layout, settings, client, store, (), by_id(index), index)
        except Changed:
            pass  # a fact file changed meanwhile (nothing was recorded yet): load the store
    snapshot = store.snapshot()
    return _user_prompt(payload, layout, settings, client, store, snapshot.facts, snapshot.by_id, None)


def _user_prompt(
    payload: HookInput,
    layout: Layout,
    settings: Settings,
    client: str,
    store: Any,
    facts: Any,
    by_id: Mapping[str, Fact],
    index: Any,
) -> str:
    from ..core.recall.service import run_recall

    note = ""
    state: SessionState | None = None
    path: Path | None = None
    if payload.session_id:  # before the trace is recorded: reading a changed fact here retries cleanly
        path = session_path(layout, payload.session_id)
        state = SessionState.load(path, payload.session_id)
        note = retraction_note(find_retractions(state, by_id, str(layout.workspace)))
    trace = run_recall(
        layout,
        payload.prompt,
        settings=settings,
        source=f"{client}-hook",
        session_id=payload.session_id,
        store=store,
        facts=facts,
        index=index,
    )
    text = _compose(note, trace.block)
    if state is not None and path is not None:
        if trace.block and trace.block in text:
            for hit in trace.hits:
                fact = by_id.get(hit.id)
                state.remember_shown(
                    hit.id,
                    hit.revision,
                    hit.ref,
                    hit.title,
                    "recall",
                    hit.scope,
                    str(layout.workspace),
                    shown_digest(fact) if fact is not None else "",
                )
        state.prompts += 1
        _touch_state(state, payload, layout, client)
        _save_state(state, path, layout)
    return text


PINNED_OMITTED = (
    "({count} more pinned fact(s) are not shown here, to keep this block under the hook size limit. "
    "Read them with the `memory` tool (op=list, then op=read) or `reasonix-tui memory pinned`.)"
)
"""The line that replaces the pinned facts that do not fit at session start."""


def fit_session_start(note: str, pinned: Sequence[Fact], limit: int = MAX_CONTEXT) -> tuple[str, list[Fact]]:
    """The session-start text for ``pinned`` (already in the resolver's order) and the
    facts it shows: the whole block when it fits under ``limit``; otherwise the protocol,
    as many pinned facts as fit (in order, skipping any that alone would not fit) and one
    :data:`PINNED_OMITTED` line — never nothing. The retraction ``note`` comes first."""
    from ..core.recall.pinned import background_block

    whole = _compose(note, background_block(pinned))
    if whole and (not pinned or background_block(pinned) in whole):
        return whole, list(pinned)
    if note and len(note) + len(background_block([])) + 2 > limit:
        note = ""  # cannot happen with MAX_NOTES lines, but the protocol must come through
    reserve = len(PINNED_OMITTED.format(count=len(pinned))) + 2
    kept: list[Fact] = []
    for fact in pinned:
        trial = _join(note, background_block([*kept, fact]))
        if len(trial) + reserve <= limit:
            kept.append(fact)
    omitted = PINNED_OMITTED.format(count=len(pinned) - len(kept))
    return _join(note, background_block(kept), omitted), kept


def _join(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def session_start(payload: HookInput, layout: Layout, settings: Settings, client: str = "claude-code") -> str:
    """The session-start block (protocol + pinned guidance) plus retraction notes; ``""`` when hidden."""
    if settings.no_memory:
        return ""
    from ..core.recall.pinned import pinned_report
    from ..core.recall.service import store_for

    store = store_for(layout, settings)
    facts = store.snapshot().facts
    report = pinned_report(store, facts=facts, settings=settings)
    note = ""
    state: SessionState | None = None
    path: Path | None = None
    if payload.session_id:
        path = session_path(layout, payload.session_id)
        state = SessionState.load(path, payload.session_id)
        if payload.source == "clear":
            state.injected.clear()  # the earlier context is gone: nothing left to retract
        else:
            note = retraction_note(find_retractions(state, {f.id: f for f in facts}, str(layout.workspace)))
    pinned = list(report.guidance.facts)
    text, shown = fit_session_start(note, pinned)
    if len(shown) < len(pinned):
        left = [f for f in pinned if f not in shown]
        _log(
            layout,
            f"session-start: {len(shown)} of {len(pinned)} pinned facts fit under {MAX_CONTEXT} "
            f"characters; left out: {', '.join(f.id for f in left[:20])}"
            + (f" and {len(left) - 20} more" if len(left) > 20 else ""),
        )
    if state is not None and path is not None:
        for fact in shown:
            state.remember_shown(
                fact.id,
                fact.revision,
                fact.ref,
                fact.display_title,
                "pinned",
                fact.scope,
                str(layout.workspace),
                shown_digest(fact),
            )
        state.source = payload.source or state.source
        _touch_state(state, payload, layout, client)
        _save_state(state, path, layout)
        _prune_sessions(path.parent, path)
    return text


def _save_state(state: SessionState, path: Path, layout: Layout) -> None:
    """Write the session state; a failure (full disk, read-only root) is logged, and the
    answer is still printed."""
    try:
        state.save(path)
    except OSError as exc:
        _log(layout, f"could not save session state {path.name}: {exc}")


def _touch_state(state: SessionState, payload: HookInput, layout: Layout, client: str = "claude-code") -> None:
    state.workspace = str(layout.workspace)
    state.handled_by = os.getpid()
    state.agent = client or state.agent
    if payload.transcript_path:
        state.transcript_path = payload.transcript_path
    if not state.started_at:
        state.started_at = _now()


# --------------------------------------------------------------------------- running


def _log(layout: Layout | None, message: str) -> None:
    if layout is None:
        return
    try:
        from ..core.store import safeio

        log = layout.tui_dir / "hooks.log"
        line = f"{_now()} {message.rstrip()}\n".encode("utf-8", "backslashreplace")
        if safeio.append_bytes(log, line, 0o600) > 1_000_000:
            safeio.rename(log, log.with_name("hooks.log.1"))
    except OSError:
        pass


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
        if event == "user-prompt-submit":
            text = user_prompt_submit(payload, layout, settings, client)
        else:
            text = session_start(payload, layout, settings, client)
        if not text:
            return ""
        out = {"hookSpecificOutput": {"hookEventName": hook_event, "additionalContext": text}}
        return json.dumps(out, ensure_ascii=False) + "\n"
    except Exception as exc:  # fail open: never block the person's turn
        import traceback

        _log(layout, f"hook {event} failed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        if layout is None:
            _log_without_layout(home, env, f"hook {event} failed: {type(exc).__name__}: {exc}")
        return ""


def _log_without_layout(home: str | None, env: Mapping[str, str] | None, message: str) -> None:
    try:
        from ..core.paths import Layout

        _log(Layout.resolve(home=home, workspace=os.getcwd(), env=dict(env) if env is not None else None), message)
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

        _log(Layout.resolve(home=root, workspace=root), message)

    def warm_up() -> None:
        warm(root, warm_workspace)

    return serve_hooks(
        root, functools.partial(answer_request, root=root), log, warm=warm_up if warm_workspace else None
    )


def warm(root: str, workspace: str) -> None:
    """Load the store and build the recall index for ``workspace`` (the hook server's warm-up)."""
    layout: Layout | None = None
    try:
        from ..core.paths import Layout
        from ..core.recall.service import store_for, try_recall
        from ..core.settings import load_settings

        layout = Layout.resolve(home=root, workspace=workspace)
        settings = load_settings(layout.root)
        import threading

        from ..core import lang
        from ..core.resolve import resolve

        store = store_for(layout, settings)
        facts = store.snapshot().facts
        probe = next((f.description for f in facts if f.description.strip() and not f.pinned), "warm up")
        try_recall(layout, settings, probe, store=store, facts=facts)  # loads the meaning model and priors
        resolve(facts)
        import gc

        gc.freeze()  # the warm store and index live as long as the server: keep the cyclic GC off them
        # The Chinese segmenter and dictionary (about a second) load beside the first turns.
        threading.Thread(target=lang.warm, daemon=True, name="lang-warm").start()
    except Exception as exc:
        _log(layout, f"hook server warm-up failed: {type(exc).__name__}: {exc}")


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
    from ..core.paths import resolve_state_root

    root = str(resolve_state_root(home))
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
        FACT_MEMO.attach(memo_path(Path(resolve_state_root(home)) / "reasonix-tui" / "cache"))
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

    Returns ``None`` for anything else (help, a bare ``hook``, other commands), so the
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
    if "-h" in args or "--help" in args:
        return None
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

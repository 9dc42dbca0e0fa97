"""What each session was shown: the per-session state file and the retraction notes for
facts that changed since.

**Retraction** (an improvement over Reasonix, where a forgotten fact stays in whatever
text already carried it): per session, ``<root>/reasonix-tui/sessions/<id>.json``
remembers which fact ids and revisions were injected (recall hits and pinned guidance).
On the next hook call, a fact that has since been forgotten or rewritten gets a short
``<memory-update>`` note — once per change — saying that id and revision no longer
apply (and which revision is current). The state also keeps Claude Code's
``transcript_path`` for the sessions/suggestions engine.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .hook_log import append_log, utc_now
from .hook_payload import HookInput, as_int, as_str

if TYPE_CHECKING:
    from ..core.paths import Layout
    from ..core.store.model import Fact

__all__ = ["SessionState", "session_path", "shown_digest"]


STATE_VERSION = 1


SESSION_TTL_SECONDS = 30 * 24 * 3600
"""Session state files untouched this long are removed at the next session start."""


MAX_NOTES = 12
"""Retraction lines shown at once (the rest are summarised)."""


_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


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
            workspace=as_str(data.get("workspace")),
            transcript_path=as_str(data.get("transcript_path")),
            agent=as_str(data.get("agent")) or "claude-code",
            started_at=as_str(data.get("started_at")),
            updated_at=as_str(data.get("updated_at")),
            source=as_str(data.get("source")),
            prompts=as_int(data.get("prompts")),
            handled_by=as_int(data.get("handled_by")),
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

        self.updated_at = utc_now()
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
            "at": utc_now(),
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


def prune_sessions(directory: Path, keep: Path) -> None:
    """Remove session state files untouched for :data:`SESSION_TTL_SECONDS` (never ``keep``)."""
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
        shown_ws = as_str(shown.get("workspace"))
        if workspace and shown_ws and shown_ws != workspace and as_str(shown.get("scope")) != "global":
            continue
        revision = as_int(shown.get("revision"))
        current = by_id.get(fact_id)
        ref, title = as_str(shown.get("ref")), as_str(shown.get("title"))
        if current is None:
            out.append(Retraction(fact_id, revision, ref, title, "forgotten"))
            del state.injected[fact_id]
        elif current.revision != revision:
            unpinned = shown.get("via") == "pinned" and not current.pinned
            if not unpinned and shown.get("digest") and shown.get("digest") == shown_digest(current):
                # Same text under a new revision (verify): the agent's copy still holds.
                shown.update(revision=current.revision, ref=current.ref, at=utc_now())
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
                at=utc_now(),
                digest=shown_digest(current),
            )
    for r in out:
        state.retractions.append(
            {
                "id": r.id,
                "revision": r.revision,
                "change": r.change,
                "current_revision": r.current_revision,
                "at": utc_now(),
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


def save_state(state: SessionState, path: Path, layout: Layout) -> None:
    """Write the session state; a failure (full disk, read-only root) is logged, and the
    answer is still printed."""
    try:
        state.save(path)
    except OSError as exc:
        append_log(layout, f"could not save session state {path.name}: {exc}")


def touch_state(state: SessionState, payload: HookInput, layout: Layout, client: str = "claude-code") -> None:
    """Record who handled this call: the workspace, the process, the client, the transcript."""
    state.workspace = str(layout.workspace)
    state.handled_by = os.getpid()
    state.agent = client or state.agent
    if payload.transcript_path:
        state.transcript_path = payload.transcript_path
    if not state.started_at:
        state.started_at = utc_now()

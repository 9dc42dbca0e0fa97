"""Approval records: a proposed agent write, its requester, the decision and what the agent
is told (DESIGN "Agent writes and approvals"). The queue that stores them is :mod:`.approvals`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..compat.gostr import one_line, trim_space
from ..compat.gotime import Timestamp, parse_rfc3339
from ..paths import Layout
from ..store.model import (
    Fact,
    FactId,
    StoreError,
    normalize_type,
    parse_reference,
    resolve_activation,
    slug,
)
from ..store.requests import inherit_fact, save_name
from .policy import Assessment, ForgetAssessment

__all__ = [
    "TOOLS",
    "SOURCES",
    "STATES",
    "HEARTBEAT_SECONDS",
    "STALE_SECONDS",
    "Requester",
    "Proposal",
    "ApprovalResult",
    "WaitOutcome",
    "AutoWrite",
    "PresenceInfo",
    "ProposalPreview",
    "ApprovalError",
    "ProposalChanged",
    "WaitInfo",
    "planned_fact",
    "remember_reply",
    "remember_approved",
    "forget_reply",
    "valid_proposal_id",
]

TOOLS = ("remember", "forget")
SOURCES = ("cli", "mcp", "hook")
STATES = ("approved", "denied", "conflict", "error")
"""Final states of a result file."""

HEARTBEAT_SECONDS = 5.0
"""How often an open Context Center refreshes its presence marker."""

STALE_SECONDS = 30.0
"""A presence marker whose heartbeat is older than this is ignored."""

FORMAT_VERSION = 1
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def valid_proposal_id(value: str) -> bool:
    """True for an id that is safe to use as a file name."""
    return bool(_ID_RE.match(value)) and ".." not in value


class ApprovalError(StoreError):
    """A queue operation could not be done (unknown id, already decided, foreign root)."""


class ProposalChanged(ApprovalError):
    """The proposal file no longer has the digest the person was shown: nothing was
    applied and the proposal stays pending (show :attr:`proposal` again)."""

    def __init__(self, proposal: Proposal) -> None:
        super().__init__(f"proposal {proposal.id} changed since it was shown; nothing was applied (it is shown again)")
        self.proposal = proposal
        """The proposal as it is on disk now."""


@dataclass(frozen=True, slots=True)
class Requester:
    """Who asked for a write."""

    pid: int = 0
    """The requesting process (the CLI or MCP server)."""
    agent: str = ""
    """The agent product, when known (``claude-code``, ``codex``, ...)."""
    session: str = ""
    """The agent's session id, when known."""
    source: str = "cli"
    """``cli``, ``mcp`` or ``hook``."""
    ppid: int = 0
    """The requesting process's parent (usually the agent's shell)."""
    host: str = ""
    """Host name of the requesting process."""

    @classmethod
    def current(cls, source: str = "cli", agent: str = "", session: str = "") -> Requester:
        """This process as a requester."""
        return cls(
            pid=os.getpid(),
            agent=agent,
            session=session,
            source=source if source in SOURCES else "cli",
            ppid=os.getppid(),
            host=socket.gethostname(),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "pid": self.pid,
            "ppid": self.ppid,
            "host": self.host,
            "agent": self.agent,
            "session": self.session,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Requester:
        """Tolerant reader."""
        d = data if isinstance(data, Mapping) else {}
        return cls(
            pid=as_int(d.get("pid")),
            agent=as_str(d.get("agent")),
            session=as_str(d.get("session")),
            source=as_str(d.get("source")) or "cli",
            ppid=as_int(d.get("ppid")),
            host=as_str(d.get("host")),
        )


def as_int(v: Any) -> int:
    """``v`` when it is an integer (not a bool), else 0 (a record field read leniently)."""
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def as_str(v: Any) -> str:
    """``v`` when it is a string, else ``""`` (a record field read leniently)."""
    return v if isinstance(v, str) else ""


@dataclass(frozen=True, slots=True)
class Proposal:
    """A pending (or decided) agent write waiting for a person."""

    id: str
    """File-name-safe id, sortable by creation time."""
    tool: str
    """``remember`` or ``forget``."""
    arguments: Mapping[str, Any]
    """The tool's arguments as given (``forget``: ``{"ref": ...}``). Do not mutate."""
    workspace: str
    """The agent's workspace (decides the project store)."""
    state_root: str
    """The Reasonix state root."""
    store_dirs: Mapping[str, str]
    """``{"project": ..., "global": ...}`` at proposal time."""
    assessment: Mapping[str, Any]
    """The policy's assessment when proposed (``Assessment.to_dict``)."""
    reasons: tuple[str, ...]
    """Why it needs a person (the policy's reasons, in order)."""
    created_at: str
    """RFC3339 UTC."""
    requester: Requester
    """Who asked."""
    pinned: Mapping[str, Any] = field(default_factory=dict)
    """What the person is shown: ``remember``: ``{"id", "ref", "revision"}`` of the target
    (revision 0 when it did not exist); ``forget``: ``{"targets": [{"id", "ref", "revision"}]}``."""
    path: str = ""
    """The file it was read from."""

    @property
    def layout(self) -> Layout:
        """The layout the proposal writes to."""
        return Layout(root=Path(self.state_root), workspace=Path(self.workspace))

    @property
    def created(self) -> Timestamp | None:
        """Creation time."""
        return parse_rfc3339(self.created_at)

    @property
    def title(self) -> str:
        """A one-line label for lists (tool plus target)."""
        if self.tool == "forget":
            return f"forget {self.arguments.get('ref', '')}"
        name = self.assessment.get("name") or self.arguments.get("name") or self.arguments.get("id") or ""
        return f"remember {name}".rstrip()

    @property
    def digest(self) -> str:
        """SHA-256 (hex) of the proposal as stored: tool, workspace, state root, store
        directories, every argument, the pin, the assessment and the requester. Approving
        is bound to it (see :meth:`ApprovalQueue.apply`)."""
        canonical = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the proposal file)."""
        return {
            "version": FORMAT_VERSION,
            "id": self.id,
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "workspace": self.workspace,
            "state_root": self.state_root,
            "store_dirs": dict(self.store_dirs),
            "assessment": dict(self.assessment),
            "reasons": list(self.reasons),
            "created_at": self.created_at,
            "requester": self.requester.to_dict(),
            "pinned": dict(self.pinned),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "") -> Proposal:
        """Read a proposal file's JSON; :class:`ValueError` when it is not one."""
        pid = as_str(data.get("id"))
        tool = as_str(data.get("tool"))
        args = data.get("arguments")
        if not valid_proposal_id(pid) or tool not in TOOLS or not isinstance(args, Mapping):
            raise ValueError("not a proposal")
        assessment = data.get("assessment")
        pinned = data.get("pinned")
        dirs = data.get("store_dirs")
        reasons = data.get("reasons")
        return cls(
            id=pid,
            tool=tool,
            arguments=dict(args),
            workspace=as_str(data.get("workspace")),
            state_root=as_str(data.get("state_root")),
            store_dirs={str(k): str(v) for k, v in dirs.items()} if isinstance(dirs, Mapping) else {},
            assessment=dict(assessment) if isinstance(assessment, Mapping) else {},
            reasons=tuple(str(r) for r in reasons) if isinstance(reasons, list) else (),
            created_at=as_str(data.get("created_at")),
            requester=Requester.from_dict(data.get("requester")),
            pinned=dict(pinned) if isinstance(pinned, Mapping) else {},
            path=path,
        )


@dataclass(frozen=True, slots=True)
class ApprovalResult:
    """The decision on a proposal, as written to ``results/<id>.json``."""

    id: str
    """The proposal id."""
    tool: str
    """``remember`` or ``forget``."""
    state: str
    """``approved``, ``denied``, ``conflict`` or ``error``."""
    message: str = ""
    """One line for the agent (Reasonix's reply on success, else why not)."""
    fact_id: str = ""
    ref: str = ""
    revision: int = 0
    """The revision written (remember) or archived (forget)."""
    edited: bool = False
    """The person changed the arguments before approving."""
    note: str = ""
    """What the person said, if anything."""
    decided_at: str = ""
    decided_by: str = "context-center"
    notice: str = field(default="", compare=False)
    """What the person should know beyond the state (a forged audit line was ignored, the
    write had already landed before a crash, the file changed before a deny). Not written
    to the result file."""
    paths: tuple[str, ...] = field(default=(), compare=False)
    """Fact files this decision wrote or moved (for the Context Center's reload). Not
    written to the result file."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "version": FORMAT_VERSION,
            "id": self.id,
            "tool": self.tool,
            "state": self.state,
            "message": self.message,
            "fact_id": self.fact_id,
            "ref": self.ref,
            "revision": self.revision,
            "edited": self.edited,
            "note": self.note,
            "decided_at": self.decided_at,
            "decided_by": self.decided_by,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ApprovalResult:
        """Tolerant reader; :class:`ValueError` when the state is unknown."""
        state = as_str(data.get("state"))
        if state not in STATES:
            raise ValueError("unknown state")
        return cls(
            id=as_str(data.get("id")),
            tool=as_str(data.get("tool")),
            state=state,
            message=as_str(data.get("message")),
            fact_id=as_str(data.get("fact_id")),
            ref=as_str(data.get("ref")),
            revision=as_int(data.get("revision")),
            edited=data.get("edited") is True,
            note=as_str(data.get("note")),
            decided_at=as_str(data.get("decided_at")),
            decided_by=as_str(data.get("decided_by")),
        )


@dataclass(frozen=True, slots=True)
class WaitOutcome:
    """What the waiting agent side concluded."""

    state: str
    """A final state of :data:`STATES`, or ``pending`` (timeout) or ``missing`` (proposal gone)."""
    result: ApprovalResult | None = None
    """The believed result."""
    note: str = ""
    """E.g. that a result file could not be verified and was ignored."""


@dataclass(frozen=True, slots=True)
class WaitInfo:
    """Whether the agent that proposed is still waiting for the answer (``waiting/<id>.json``,
    written by :meth:`ApprovalQueue.wait_for_result`)."""

    state: str
    """``waiting`` (the process waits until :attr:`until`), ``timed-out`` (it stopped
    waiting and left the proposal queued), ``exited`` (the process is gone without an
    answer) or ``none`` (nobody waited: no Context Center was open when it was proposed,
    or the agent has not checked again)."""
    pid: int = 0
    """The waiting process."""
    since: Timestamp | None = None
    """When it started waiting."""
    until: Timestamp | None = None
    """When it gives up (``waiting``) or gave up (``timed-out``)."""

    def at(self, now: Timestamp) -> WaitInfo:
        """The same record judged at ``now``: a wait whose deadline passed has timed out."""
        if self.state == "waiting" and self.until is not None and now.ns > self.until.ns:
            return replace(self, state="timed-out")
        return self


@dataclass(frozen=True, slots=True)
class AutoWrite:
    """A low-risk agent write that landed without asking (the Context Center offers undo)."""

    id: str
    fact_id: str
    ref: str
    revision: int
    name: str
    description: str
    created_at: str
    requester: Requester
    workspace: str
    state_root: str
    path: str = ""
    previous_revision: int = 0
    """The revision an automatic *update* replaced (``auto_confirm_project_remember``);
    0 for a new fact. Undo restores it (as a new revision) instead of archiving."""

    @property
    def is_update(self) -> bool:
        """The write updated an existing fact."""
        return self.previous_revision > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        data = {
            "version": FORMAT_VERSION,
            "id": self.id,
            "fact_id": self.fact_id,
            "ref": self.ref,
            "revision": self.revision,
            "name": self.name,
            "description": self.description,
            "created_at": self.created_at,
            "requester": self.requester.to_dict(),
            "workspace": self.workspace,
            "state_root": self.state_root,
        }
        if self.previous_revision:
            data["previous_revision"] = self.previous_revision
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "") -> AutoWrite:
        """Tolerant reader."""
        rid = as_str(data.get("id"))
        if not valid_proposal_id(rid):
            raise ValueError("not an auto-write record")
        return cls(
            id=rid,
            fact_id=as_str(data.get("fact_id")),
            ref=as_str(data.get("ref")),
            revision=as_int(data.get("revision")),
            name=as_str(data.get("name")),
            description=as_str(data.get("description")),
            created_at=as_str(data.get("created_at")),
            requester=Requester.from_dict(data.get("requester")),
            workspace=as_str(data.get("workspace")),
            state_root=as_str(data.get("state_root")),
            path=path,
            previous_revision=max(as_int(data.get("previous_revision")), 0),
        )


@dataclass(frozen=True, slots=True)
class PresenceInfo:
    """One open Context Center."""

    pid: int
    host: str
    started_at: str
    heartbeat_at: str
    workspace: str
    path: str


@dataclass(frozen=True, slots=True)
class ProposalPreview:
    """What the approval modal shows, computed fresh against the store."""

    proposal: Proposal
    current: Fact | None
    """The fact a remember would rewrite (or the first a forget would archive), as it is now."""
    targets: tuple[Fact, ...]
    """Forget: every fact it would archive, as they are now."""
    request: Any
    """Remember: the :class:`~reasonix_tui.core.store.requests.RememberArgs` (None if invalid)."""
    assessment: Assessment | ForgetAssessment | None
    """The policy run again now."""
    subject_holder: Fact | None
    """Another fact holding the requested subject key in the target scope."""
    stale: bool
    """The target changed since the proposal (approving would come back as a conflict)."""
    error: str = ""
    """Why the arguments are invalid, if they are."""
    planned: Fact | None = None
    """Remember: the fact as ``apply`` would write it now (every field, kept ones included:
    see :func:`planned_fact`); ``None`` for a forget or invalid arguments."""

    @property
    def activation(self) -> str:
        """What the written fact's activation would resolve to (``""`` for a forget or invalid
        arguments): the requested one, else on an update the current fact's own, else the
        legacy rule, so an approved global user/feedback fact with no activation is *pinned*."""
        if self.request is None:
            return ""
        req = self.request.request
        cur = self.current
        activation = req.activation or (cur.activation if cur is not None else "")
        scope = req.scope or (cur.scope if cur is not None else "project")
        return resolve_activation(activation, scope, normalize_type(req.type))

    @property
    def activation_note(self) -> str:
        """Why :attr:`activation` is what it is, when nobody asked for it (``""`` otherwise)."""
        if self.request is None or self.request.request.activation:
            return ""
        cur = self.current
        if cur is not None and cur.activation:
            return f"kept from revision {cur.revision}"
        if self.activation == "pinned":
            return "not set: a global user/feedback fact loads as pinned guidance (Reasonix's legacy rule)"
        return "not set: recalled when relevant"


def planned_fact(
    request: Any, existing: Fact | None, *, clear_expiry: bool = False, now: Timestamp | None = None
) -> Fact:
    """The fact ``Store.save(request)`` would write over ``existing`` (``None``: a new fact).

    Built with the store's own steps (spec §2.8 steps 5-8, ``save_name`` and ``inherit_fact``):
    on an update an empty scope, activation, volatility, subject key, keyword list, expiry,
    verification time, ``supersedes`` and extra keys are kept from ``existing``; the type is
    normalised (not inherited); the body is trimmed. ``id`` is ``""`` for a new fact (the store makes
    one). A test keeps this equal to what the store writes.
    """
    now = now or Timestamp.now()
    req_name = trim_space(request.name)
    parsed = parse_reference(req_name) if req_name else None
    fact = inherit_fact(
        request,
        existing,
        now=now,
        name=slug(save_name(request, parsed, existing)),
        parsed=parsed,
        clear_expiry=clear_expiry,
        new_id=FactId(trim_space(request.id)),
    )
    return replace(fact, path=existing.path if existing is not None and existing.scope == fact.scope else "")


def content_key(title: str, description: str, type_: str, body: str) -> str:
    """What identifies the content of a remember write (for recognising one that landed)."""
    canonical = json.dumps(
        [one_line(title), one_line(description), normalize_type(type_), trim_space(body)], ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def remember_reply(fact: Fact) -> str:
    """Reasonix's ``remember`` tool reply (spec §10.4)."""
    return (
        f"Saved memory id={fact.id} revision={fact.revision} ({fact.scope} background) as {fact.ref} "
        "(it applies now and its derived index loads automatically in future sessions)."
    )


def remember_approved(
    proposal_id: str, fact: Fact, *, edited: bool, note: str, decided_at: str, paths: tuple[str, ...]
) -> ApprovalResult:
    """The result of an approved ``remember`` that wrote ``fact`` (the agent gets Reasonix's reply)."""
    return ApprovalResult(
        proposal_id,
        "remember",
        "approved",
        remember_reply(fact),
        fact_id=fact.id,
        ref=fact.ref,
        revision=fact.revision,
        edited=edited,
        note=note,
        decided_at=decided_at,
        paths=paths,
    )


def forget_reply(ref: str, fact: Fact | None, archived: bool) -> str:
    """Reasonix's ``forget`` tool reply (spec §8.1)."""
    if fact is not None and archived:
        return (
            f'Forgot memory "{ref}" (it no longer applies and will not load in future sessions; '
            f"archived from {fact.ref})."
        )
    return f'Forgot memory "{ref}" (it no longer applies and will not load in future sessions).'

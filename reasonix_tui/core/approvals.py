"""The durable approval queue for agent memory writes (DESIGN "Agent writes and approvals").

Layout under ``<root>/approvals/`` (all files JSON, written atomically, mode 0600 since
proposals carry the full body)::

    proposals/<id>.json    a pending proposal (written by the agent side)
    decided/<id>.json      the same proposal once a person decided (secrets redacted)
    results/<id>.json      the decision, for the waiting agent (information only)
    presence/<host>-<pid>.json   one per open Context Center, with a heartbeat
    auto/<id>.json         low-risk writes that landed unasked (for the undo notice)
    auto/seen/<id>.json    the same once the Context Center dismissed or undid it

Trust model. Only :func:`ApprovalQueue.apply` (called by the Context Center on a key
press) changes the store for a proposal. A result file is information for the agent,
never an instruction: :meth:`ApprovalQueue.wait_for_result` believes an ``approved``
result only when the audit log holds the matching ``approval`` entry *and* the store
holds the claimed fact id at (at least) the claimed revision. An agent that can edit
any file can of course edit fact files directly; the gate governs the memory tools.

Revision pinning. A proposal records the revision of the fact it targets at proposal
time (0 when the name did not exist). ``apply`` saves with that expected revision, so a
proposal made against revision 3 and approved after someone wrote revision 4 comes
back as ``conflict`` and is not applied. An explicit ``expected_revision`` argument
wins over the pin. A ``forget`` proposal pins every fact it would archive.
"""

from __future__ import annotations

import json
import os
import re
import secrets as _secrets
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any


from .gotime import Timestamp, parse_rfc3339
from .paths import Layout
from .policy import Assessment, ForgetAssessment, forget_targets, remember_request
from .secrets import redact
from .store import safeio
from .store.safeio import pid_alive as _pid_alive
from .store.atomic import atomic_write, ensure_dir
from .store.model import Fact, InvalidInput, StoreError, normalize_type, resolve_activation

if TYPE_CHECKING:
    from .settings import Settings
    from .store.store import Store

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
    "PresenceMarker",
    "ProposalPreview",
    "ApprovalError",
    "ApprovalQueue",
    "remember_reply",
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


# --------------------------------------------------------------------------- records


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
            pid=os.getpid(), agent=agent, session=session, source=source if source in SOURCES else "cli",
            ppid=os.getppid(), host=socket.gethostname(),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"pid": self.pid, "ppid": self.ppid, "host": self.host, "agent": self.agent,
                "session": self.session, "source": self.source}

    @classmethod
    def from_dict(cls, data: Any) -> Requester:
        """Tolerant reader."""
        d = data if isinstance(data, Mapping) else {}
        return cls(pid=_int(d.get("pid")), agent=_str(d.get("agent")), session=_str(d.get("session")),
                   source=_str(d.get("source")) or "cli", ppid=_int(d.get("ppid")), host=_str(d.get("host")))


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _str(v: Any) -> str:
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
        pid = _str(data.get("id"))
        tool = _str(data.get("tool"))
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
            workspace=_str(data.get("workspace")),
            state_root=_str(data.get("state_root")),
            store_dirs={str(k): str(v) for k, v in dirs.items()} if isinstance(dirs, Mapping) else {},
            assessment=dict(assessment) if isinstance(assessment, Mapping) else {},
            reasons=tuple(str(r) for r in reasons) if isinstance(reasons, list) else (),
            created_at=_str(data.get("created_at")),
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

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "version": FORMAT_VERSION, "id": self.id, "tool": self.tool, "state": self.state,
            "message": self.message, "fact_id": self.fact_id, "ref": self.ref, "revision": self.revision,
            "edited": self.edited, "note": self.note, "decided_at": self.decided_at, "decided_by": self.decided_by,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ApprovalResult:
        """Tolerant reader; :class:`ValueError` when the state is unknown."""
        state = _str(data.get("state"))
        if state not in STATES:
            raise ValueError("unknown state")
        return cls(
            id=_str(data.get("id")), tool=_str(data.get("tool")), state=state, message=_str(data.get("message")),
            fact_id=_str(data.get("fact_id")), ref=_str(data.get("ref")), revision=_int(data.get("revision")),
            edited=data.get("edited") is True, note=_str(data.get("note")),
            decided_at=_str(data.get("decided_at")), decided_by=_str(data.get("decided_by")),
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
            "version": FORMAT_VERSION, "id": self.id, "fact_id": self.fact_id, "ref": self.ref,
            "revision": self.revision, "name": self.name, "description": self.description,
            "created_at": self.created_at, "requester": self.requester.to_dict(),
            "workspace": self.workspace, "state_root": self.state_root,
        }
        if self.previous_revision:
            data["previous_revision"] = self.previous_revision
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "") -> AutoWrite:
        """Tolerant reader."""
        rid = _str(data.get("id"))
        if not valid_proposal_id(rid):
            raise ValueError("not an auto-write record")
        return cls(
            id=rid, fact_id=_str(data.get("fact_id")), ref=_str(data.get("ref")), revision=_int(data.get("revision")),
            name=_str(data.get("name")), description=_str(data.get("description")),
            created_at=_str(data.get("created_at")), requester=Requester.from_dict(data.get("requester")),
            workspace=_str(data.get("workspace")), state_root=_str(data.get("state_root")), path=path,
            previous_revision=max(_int(data.get("previous_revision")), 0),
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


# --------------------------------------------------------------------------- replies


def remember_reply(fact: Fact) -> str:
    """Reasonix's ``remember`` tool reply (spec §10.4)."""
    return (
        f"Saved memory id={fact.id} revision={fact.revision} ({fact.scope} background) as {fact.ref} "
        "(it applies now and its derived index loads automatically in future sessions)."
    )


def forget_reply(ref: str, fact: Fact | None, archived: bool) -> str:
    """Reasonix's ``forget`` tool reply (spec §8.1)."""
    if fact is not None and archived:
        return (
            f'Forgot memory "{ref}" (it no longer applies and will not load in future sessions; '
            f"archived from {fact.ref})."
        )
    return f'Forgot memory "{ref}" (it no longer applies and will not load in future sessions).'


# --------------------------------------------------------------------------- helpers


def _now() -> str:
    return Timestamp.now().rfc3339()


def _new_id(prefix: str) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return f"{prefix}-{stamp}-{_secrets.token_hex(5)}"


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n", 0o600)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        # Never blocks: a FIFO planted at a proposal, result or presence path is skipped.
        data = json.loads(safeio.read_regular(path, limit=64 << 20))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _same_root(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


# --------------------------------------------------------------------------- presence


class PresenceMarker:
    """Tells agents a Context Center is open: a file refreshed every few seconds.

    Use ``start()`` / ``beat()`` / ``stop()`` (the TUI calls ``beat`` from a timer), or
    ``start(background=True)`` to let a daemon thread beat, or use it as a context manager.
    """

    def __init__(self, layout: Layout, *, interval: float = HEARTBEAT_SECONDS) -> None:
        self.layout = layout
        self.interval = interval
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.path = layout.approvals_dir / "presence" / f"{_safe_host(self.host)}-{self.pid}.json"
        self.started_at = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, background: bool = False) -> PresenceMarker:
        """Write the marker (and optionally beat from a daemon thread)."""
        self.started_at = _now()
        self.beat()
        if background and self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="reasonix-tui-presence", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.beat()

    def beat(self) -> None:
        """Refresh the heartbeat (never raises)."""
        data = {
            "version": FORMAT_VERSION, "pid": self.pid, "host": self.host,
            "started_at": self.started_at or _now(), "heartbeat_at": _now(),
            "workspace": str(self.layout.workspace),
        }
        try:
            ensure_dir(self.path.parent, 0o700)
            _write_json(self.path, data)
        except OSError:
            pass

    def stop(self) -> None:
        """Remove the marker and stop the heartbeat thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        try:
            safeio.remove(self.path)
        except OSError:
            pass

    def __enter__(self) -> PresenceMarker:
        return self.start(background=True)

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _safe_host(host: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", host)[:64] or "host"


# --------------------------------------------------------------------------- the queue


class ApprovalQueue:
    """The approval queue of one state root (``layout.approvals_dir``)."""

    def __init__(self, layout: Layout, *, poll_interval: float = 0.1) -> None:
        self.layout = layout
        """The state root's layout (its workspace is the default for new proposals)."""
        self.root = layout.approvals_dir
        self.poll_interval = poll_interval
        """Seconds between checks while waiting for a result."""

    # ------------------------------------------------------------------ paths

    @property
    def proposals_dir(self) -> Path:
        return self.root / "proposals"

    @property
    def decided_dir(self) -> Path:
        return self.root / "decided"

    @property
    def results_dir(self) -> Path:
        return self.root / "results"

    @property
    def presence_dir(self) -> Path:
        return self.root / "presence"

    @property
    def auto_dir(self) -> Path:
        return self.root / "auto"

    def _checked(self, proposal_id: str) -> str:
        if not valid_proposal_id(proposal_id):
            raise InvalidInput(f"not a proposal id: {proposal_id!r}")
        return proposal_id

    def _lock(self) -> Any:
        ensure_dir(self.root, 0o700)
        return safeio.hold_lock(self.root / ".lock", timeout=30)

    # ------------------------------------------------------------------ presence

    def presence(self, stale_after: float = STALE_SECONDS) -> list[PresenceInfo]:
        """Open Context Centers: live pid (same host) and a fresh heartbeat; dead ones are cleaned up."""
        out: list[PresenceInfo] = []
        try:
            entries = sorted(self.presence_dir.glob("*.json"))
        except OSError:
            return out
        now_ns = Timestamp.now().ns
        host = socket.gethostname()
        for path in entries:
            data = _read_json(path)
            if data is None:
                continue
            pid = _int(data.get("pid"))
            marker_host = _str(data.get("host"))
            beat = parse_rfc3339(_str(data.get("heartbeat_at")))
            if marker_host == host and not _pid_alive(pid):
                try:
                    safeio.remove(path)
                except OSError:
                    pass
                continue
            if beat is None or (now_ns - beat.ns) > stale_after * 1e9:
                continue
            out.append(PresenceInfo(pid, marker_host, _str(data.get("started_at")), _str(data.get("heartbeat_at")),
                                    _str(data.get("workspace")), str(path)))
        return out

    def context_center_open(self) -> bool:
        """True when at least one Context Center is open for this state root."""
        return bool(self.presence())

    def presence_marker(self, layout: Layout | None = None) -> PresenceMarker:
        """A marker for this process (the TUI calls ``start``/``beat``/``stop``)."""
        return PresenceMarker(layout or self.layout)

    # ------------------------------------------------------------------ proposing

    def propose(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        assessment: Assessment | ForgetAssessment,
        store: Store,
        requester: Requester | None = None,
    ) -> Proposal:
        """Write a proposal for ``store``'s layout and return it (never applies anything)."""
        if tool not in TOOLS:
            raise InvalidInput(f"unknown tool {tool!r}")
        layout = store.layout
        if not _same_root(layout.root, self.layout.root):
            raise ApprovalError("the store belongs to another state root than this approval queue")
        pinned: dict[str, Any]
        if tool == "remember":
            target = _remember_target(arguments, store)
            pinned = (
                {"id": target.id, "ref": target.ref, "revision": target.revision}
                if target is not None
                else {"id": "", "ref": "", "revision": 0}
            )
        else:
            ref = str(arguments.get("ref", ""))
            pinned = {"targets": [{"id": f.id, "ref": f.ref, "revision": f.revision} for f in forget_targets(ref, store)]}
        proposal = Proposal(
            id=_new_id("p"),
            tool=tool,
            arguments=dict(arguments),
            workspace=str(layout.workspace),
            state_root=str(layout.root),
            store_dirs={"project": str(layout.project_dir), "global": str(layout.global_dir)},
            assessment=assessment.to_dict(),
            reasons=tuple(assessment.reasons) or (assessment.reason,),
            created_at=_now(),
            requester=requester or Requester.current(),
            pinned=pinned,
        )
        ensure_dir(self.proposals_dir, 0o700)
        path = self.proposals_dir / f"{proposal.id}.json"
        _write_json(path, proposal.to_dict())
        return replace(proposal, path=str(path))

    # ------------------------------------------------------------------ reading

    def pending(self) -> list[Proposal]:
        """Proposals waiting for a person, oldest first (unreadable files are skipped)."""
        return self._read_dir(self.proposals_dir)

    def decided(self) -> list[Proposal]:
        """Proposals a person has decided, oldest first."""
        return self._read_dir(self.decided_dir)

    def _read_dir(self, directory: Path) -> list[Proposal]:
        out: list[Proposal] = []
        try:
            paths = list(directory.glob("*.json"))
        except OSError:
            return out
        for path in paths:
            data = _read_json(path)
            if data is None:
                continue
            try:
                proposal = Proposal.from_dict(data, str(path))
            except ValueError:
                continue
            if proposal.id != path.stem:
                continue
            out.append(proposal)
        out.sort(key=lambda p: (p.created_at, p.id))
        return out

    def get(self, proposal_id: str) -> Proposal | None:
        """A proposal by id, pending or decided."""
        self._checked(proposal_id)
        for directory in (self.proposals_dir, self.decided_dir):
            path = directory / f"{proposal_id}.json"
            data = _read_json(path)
            if data is not None:
                try:
                    return Proposal.from_dict(data, str(path))
                except ValueError:
                    return None
        return None

    def is_pending(self, proposal_id: str) -> bool:
        """True while the proposal file is in ``proposals/``."""
        return (self.proposals_dir / f"{self._checked(proposal_id)}.json").exists()

    def read_result(self, proposal_id: str) -> ApprovalResult | None:
        """The result file as written, *unverified* (anyone could have written it)."""
        data = _read_json(self.results_dir / f"{self._checked(proposal_id)}.json")
        if data is None:
            return None
        try:
            return ApprovalResult.from_dict(data)
        except ValueError:
            return None

    # ------------------------------------------------------------------ preview

    def preview(self, proposal: Proposal, store: Store | None = None) -> ProposalPreview:
        """Fresh facts for the approval modal: current target, policy rerun, subject holder."""
        from .policy import assess_forget, assess_remember

        st = self._store_for(proposal, store)
        if proposal.tool == "forget":
            ref = str(proposal.arguments.get("ref", ""))
            fa = assess_forget(ref, st)
            now = {f.id: f for f in fa.targets}
            stale = any(
                now.get(_str(t.get("id"))) is None or now[_str(t.get("id"))].revision != _int(t.get("revision"))
                for t in _targets(proposal)
            )
            return ProposalPreview(proposal, fa.targets[0] if fa.targets else None, fa.targets, None, fa, None, stale)
        try:
            request = remember_request(proposal.arguments)
        except InvalidInput as exc:
            return ProposalPreview(proposal, None, (), None, None, None, False, str(exc))
        current = _remember_target(proposal.arguments, st)
        pinned_rev = _int(proposal.pinned.get("revision"))
        stale = (current.revision if current else 0) != pinned_rev
        fresh = assess_remember(proposal.arguments, st)
        holder = None
        if request.request.subject_key:
            scope = request.request.scope or (current.scope if current else "project")
            holder = st.subject_holder(request.request.subject_key, scope)
            if holder is not None and current is not None and holder.id == current.id:
                holder = None
        return ProposalPreview(proposal, current, (), request, fresh, holder, stale)

    # ------------------------------------------------------------------ applying

    def _store_for(self, proposal: Proposal, store: Store | None, settings: Settings | None = None) -> Store:
        from .store.store import Store

        if not _same_root(proposal.state_root, self.layout.root):
            raise ApprovalError(f"proposal {proposal.id} names another state root ({proposal.state_root})")
        layout = Layout(root=self.layout.root, workspace=Path(os.path.abspath(proposal.workspace or ".")))
        if store is not None and _same_root(store.layout.root, layout.root) and store.layout.workspace == layout.workspace:
            return store
        return Store(layout, settings=settings or (store.settings if store is not None else None), actor="agent-approved")

    def apply(
        self,
        proposal: Proposal | str,
        decision: str,
        edits: Mapping[str, Any] | None = None,
        store: Store | None = None,
        note: str = "",
    ) -> ApprovalResult:
        """Decide a proposal: the only function that changes the store for one.

        ``decision`` is ``approve`` (or ``approved``/``y``) or ``deny`` (``denied``/``n``).
        ``edits`` (remember only) override arguments before saving; invalid edits raise
        :class:`InvalidInput` and leave the proposal pending. Writes go through ``store``
        (or a store for the proposal's workspace) with actor ``agent-approved`` and the
        pinned revision. Writes ``results/<id>.json``, appends an ``approval`` audit
        entry and moves the proposal to ``decided/``.
        """
        verdict = _verdict(decision)
        proposal_id = self._checked(proposal if isinstance(proposal, str) else proposal.id)
        with self._lock():
            path = self.proposals_dir / f"{proposal_id}.json"
            data = _read_json(path)
            if data is None:
                previous = self.read_result(proposal_id)
                if previous is not None and (self.decided_dir / f"{proposal_id}.json").exists():
                    raise ApprovalError(f"proposal {proposal_id} was already decided ({previous.state})")
                raise ApprovalError(f"proposal {proposal_id} is not pending")
            try:
                current = Proposal.from_dict(data, str(path))
            except ValueError:
                raise ApprovalError(f"proposal {proposal_id} is unreadable") from None
            try:
                st = self._store_for(current, store)
            except ApprovalError as exc:
                # A proposal for another state root is never applied; it leaves the queue.
                from .store.store import Store as _Store

                audit_store = store if store is not None else _Store(self.layout, actor="context-center")
                result = ApprovalResult(proposal_id, current.tool, "denied" if verdict == "deny" else "error",
                                        str(exc), note=note, decided_at=_now())
                self._audit_decision(audit_store, current, result)
                self._finish(current, result)
                return result
            recorded = self._recorded_decision(st, proposal_id)
            if recorded is not None:
                # Decided before a crash between the audit line and the file moves: finish it.
                self._finish(current, recorded)
                return recorded
            if verdict == "deny":
                result = ApprovalResult(proposal_id, current.tool, "denied",
                                        "The user denied this memory write; nothing was saved.",
                                        note=note, decided_at=_now())
            elif current.tool == "remember":
                result = self._apply_remember(current, st, edits, note)
            else:
                result = self._apply_forget(current, st, note)
            self._audit_decision(st, current, result)
            self._finish(current, result)
            return result

    def _audit_decision(self, store: Store, proposal: Proposal, result: ApprovalResult) -> None:
        store.audit.record(
            "approval", result.state == "approved", "context-center",
            id=result.fact_id, ref=result.ref, rev_after=result.revision or None,
            reason="" if result.state == "approved" else result.message,
            workspace=proposal.workspace,
            detail={"proposal": proposal.id, "tool": proposal.tool, "state": result.state,
                    "edited": result.edited, "requester": proposal.requester.to_dict()},
        )

    def _finish(self, proposal: Proposal, result: ApprovalResult) -> None:
        ensure_dir(self.results_dir, 0o700)
        _write_json(self.results_dir / f"{proposal.id}.json", result.to_dict())
        ensure_dir(self.decided_dir, 0o700)
        src = self.proposals_dir / f"{proposal.id}.json"
        # The decided copy keeps the history but not the secrets: a denied proposal's
        # credential must not linger on disk (an approved one lives in the fact anyway).
        kept = proposal.to_dict()
        kept["arguments"] = {k: redact(v) if isinstance(v, str) else v for k, v in proposal.arguments.items()}
        _write_json(self.decided_dir / f"{proposal.id}.json", kept)
        safeio.remove(src)

    def _recorded_decision(self, store: Store, proposal_id: str) -> ApprovalResult | None:
        entry = _approval_entry(store, proposal_id)
        if entry is None:
            return None
        d = entry.detail
        return ApprovalResult(
            proposal_id, _str(d.get("tool")), _str(d.get("state")) or "error",
            "already decided", fact_id=entry.id, ref=entry.ref, revision=entry.rev_after or 0,
            edited=d.get("edited") is True, decided_at=entry.at,
        )

    def _apply_remember(
        self, proposal: Proposal, store: Store, edits: Mapping[str, Any] | None, note: str
    ) -> ApprovalResult:
        args = dict(proposal.arguments)
        edited = False
        if edits:
            for key, value in edits.items():
                if args.get(key) != value:
                    edited = True
                args[key] = value
        try:
            validated = remember_request(args)
        except InvalidInput as exc:
            if edited:
                raise
            return ApprovalResult(proposal.id, "remember", "error", str(exc), note=note, decided_at=_now())
        expected = validated.expected_revision
        if expected is None:
            expected = _int(proposal.pinned.get("revision"))
        try:
            saved = store.save(
                validated.request,
                expected_revision=expected,
                clear_expiry=validated.clear_expiry,
                actor="agent-approved",
            )
        except (StoreError, OSError) as exc:
            state = "conflict" if _is_conflict(exc) else "error"
            message = str(exc)
            if state == "conflict" and expected == 0 and "revision conflict" in message:
                message = f"{message} (a memory with this name was created after the proposal; nothing was overwritten)"
            return ApprovalResult(proposal.id, "remember", state, message, edited=edited, note=note, decided_at=_now())
        fact = saved.fact
        return ApprovalResult(
            proposal.id, "remember", "approved", remember_reply(fact), fact_id=fact.id, ref=fact.ref,
            revision=fact.revision, edited=edited, note=note, decided_at=_now(),
        )

    def _apply_forget(self, proposal: Proposal, store: Store, note: str) -> ApprovalResult:
        ref = str(proposal.arguments.get("ref", ""))
        targets = _targets(proposal)
        if not targets:
            return ApprovalResult(proposal.id, "forget", "error", f'memory "{ref}" not found', note=note, decided_at=_now())
        facts: list[Fact] = []
        for t in targets:
            now = store.find_by_id(_str(t.get("id")))
            if now is None:
                return ApprovalResult(proposal.id, "forget", "conflict",
                                      f'memory "{t.get("ref") or t.get("id")}" is no longer active; nothing was archived',
                                      note=note, decided_at=_now())
            if now.revision != _int(t.get("revision")):
                return ApprovalResult(
                    proposal.id, "forget", "conflict",
                    f"memory revision conflict: expected {_int(t.get('revision'))}, found {now.revision} "
                    f'(memory "{now.ref}" changed after the proposal; nothing was archived)',
                    note=note, decided_at=_now())
            facts.append(now)
        archived_any = False
        try:
            for fact in facts:
                res = store.archive(fact.id, actor="agent-approved")
                archived_any = archived_any or bool(res.paths)
        except (StoreError, OSError) as exc:
            return ApprovalResult(proposal.id, "forget", "error", str(exc), note=note, decided_at=_now())
        first = facts[0]
        return ApprovalResult(
            proposal.id, "forget", "approved", forget_reply(ref, first, archived_any),
            fact_id=first.id, ref=first.ref, revision=first.revision, note=note, decided_at=_now(),
        )

    # ------------------------------------------------------------------ waiting (agent side)

    def verify(self, result: ApprovalResult, store: Store | None = None) -> tuple[bool, str]:
        """Whether a result file is backed by the store and the audit log (not just a file)."""
        proposal = self.get(result.id)
        if proposal is None:
            return False, "no such proposal"
        try:
            st = self._store_for(proposal, store)
        except ApprovalError as exc:
            return False, str(exc)
        entry = _approval_entry(st, result.id)
        if entry is None:
            return False, "no approval entry in the audit log"
        if _str(entry.detail.get("state")) != result.state:
            return False, f"the audit log says {entry.detail.get('state')!r}, the result file says {result.state!r}"
        if result.state != "approved":
            return True, ""
        if entry.id != result.fact_id or (entry.rev_after or 0) != result.revision:
            return False, "the result file does not match the audit log"
        if proposal.tool == "remember":
            fact = st.find_by_id(result.fact_id)
            if fact is not None and fact.revision >= result.revision:
                return True, ""
            if fact is None and any(a.fact.id == result.fact_id for a in st.list_archived()):
                return True, ""
            return False, f"memory id={result.fact_id} revision={result.revision} is not in the store"
        active = st.find_by_id(result.fact_id)
        if active is None or active.revision > result.revision:
            return True, ""  # archived (or recovered and rewritten since)
        return False, f"memory id={result.fact_id} is still active"

    def wait_for_result(
        self, proposal_id: str, timeout: float, store: Store | None = None
    ) -> WaitOutcome:
        """Wait up to ``timeout`` seconds for a *verified* decision.

        Polls ``results/<id>.json``; a result that :meth:`verify` cannot back is ignored
        (the wait goes on, and the outcome's note says so).
        """
        self._checked(proposal_id)
        deadline = time.monotonic() + max(timeout, 0.0)
        note = ""
        rejected: tuple[str, float] | None = None
        while True:
            result = self.read_result(proposal_id)
            if result is not None:
                stamp = json.dumps(result.to_dict(), sort_keys=True)
                if rejected is None or rejected[0] != stamp or time.monotonic() - rejected[1] >= 1.0:
                    ok, why = self.verify(result, store)
                    if ok:
                        return WaitOutcome(result.state, result, note)
                    rejected = (stamp, time.monotonic())
                    note = f"ignored a result file that could not be verified ({why})"
            elif self.get(proposal_id) is None:
                return WaitOutcome("missing", None, "the proposal file is gone and no decision was recorded")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return WaitOutcome("pending", None, note)
            time.sleep(min(self.poll_interval, remaining))

    # ------------------------------------------------------------------ auto writes (undo)

    def record_auto_write(
        self, fact: Fact, requester: Requester | None = None, layout: Layout | None = None, previous_revision: int = 0
    ) -> AutoWrite:
        """Note a low-risk write that landed unasked, so the Context Center can offer undo
        (``previous_revision``: the revision an automatic update replaced)."""
        lay = layout or self.layout
        rec = AutoWrite(
            id=_new_id("a"), fact_id=fact.id, ref=fact.ref, revision=fact.revision, name=fact.name,
            description=fact.description, created_at=_now(), requester=requester or Requester.current(),
            workspace=str(lay.workspace), state_root=str(lay.root), previous_revision=previous_revision,
        )
        ensure_dir(self.auto_dir, 0o700)
        path = self.auto_dir / f"{rec.id}.json"
        _write_json(path, rec.to_dict())
        return replace(rec, path=str(path))

    def auto_writes(self) -> list[AutoWrite]:
        """Auto writes not yet dismissed or undone, oldest first."""
        try:
            paths = list(self.auto_dir.glob("*.json"))
        except OSError:
            return []
        out = [rec for rec in map(_read_auto_write, paths) if rec is not None]
        out.sort(key=lambda r: (r.created_at, r.id))
        return out

    def latest_auto_write(self, scan: int = 16) -> AutoWrite | None:
        """The newest auto write, announced (``auto/seen/``) or not, undone or not.

        Record ids start with their UTC second, so only the ``scan`` newest file names of
        each folder are read: the answer stays cheap however many records ``seen/`` holds.
        Whether the fact is still at the written revision is the caller's to check.
        """
        best: AutoWrite | None = None
        for directory in (self.auto_dir, self.auto_dir / "seen"):
            try:
                names = sorted((p.name for p in directory.glob("*.json")), reverse=True)[:scan]
            except OSError:
                continue
            for name in names:
                rec = _read_auto_write(directory / name)
                if rec is not None and (best is None or _auto_key(rec) > _auto_key(best)):
                    best = rec
        return best

    def dismiss_auto_write(self, record: AutoWrite | str) -> None:
        """Mark an auto-write notice as seen (moves it to ``auto/seen/``)."""
        rid = self._checked(record if isinstance(record, str) else record.id)
        seen = self.auto_dir / "seen"
        ensure_dir(seen, 0o700)
        try:
            safeio.rename(self.auto_dir / f"{rid}.json", seen / f"{rid}.json")
        except FileNotFoundError:
            pass

    def undo_auto_write(self, record: AutoWrite, store: Store | None = None, actor: str = "context-center") -> Any:
        """Undo an automatic write while the fact is still the revision that was written:
        a new fact is archived; an update brings the replaced revision back (as a new one)."""
        from .store.model import Conflict, NotFound
        from .store.store import Store

        if not _same_root(record.state_root or self.layout.root, self.layout.root):
            raise ApprovalError("the auto-write belongs to another state root")
        layout = Layout(root=self.layout.root, workspace=Path(record.workspace or self.layout.workspace))
        st = store if store is not None and store.layout.workspace == layout.workspace else Store(layout, actor=actor)
        fact = st.find_by_id(record.fact_id)
        if fact is None:
            self.dismiss_auto_write(record)
            raise NotFound(f'memory "{record.ref}" is no longer active; nothing to undo')
        if fact.revision != record.revision:
            raise Conflict(
                f"memory revision conflict: expected {record.revision}, found {fact.revision} "
                f'(memory "{fact.ref}" changed after the automatic write; undo would discard that change)'
            )
        if record.is_update:
            res: Any = st.restore(fact.id, record.previous_revision, actor=actor)
        else:
            res = st.archive(fact.id, actor=actor)
        self.dismiss_auto_write(record)
        return res

    # ------------------------------------------------------------------ iteration helpers

    def __iter__(self) -> Iterator[Proposal]:
        return iter(self.pending())


def _read_auto_write(path: Path) -> AutoWrite | None:
    """An auto-write record file, or ``None`` when it is unreadable or not one."""
    data = _read_json(path)
    if data is None:
        return None
    try:
        return AutoWrite.from_dict(data, str(path))
    except ValueError:
        return None


def _auto_key(record: AutoWrite) -> tuple[int, str]:
    """Order of auto writes: their time (parsed: RFC 3339 text with trimmed fractions does
    not sort as text), then id."""
    ts = parse_rfc3339(record.created_at)
    return (ts.ns if ts is not None else 0, record.id)


def _verdict(decision: str) -> str:
    d = decision.strip().lower()
    if d in ("approve", "approved", "y", "yes", "edit"):
        return "approve"
    if d in ("deny", "denied", "n", "no", "reject", "rejected"):
        return "deny"
    raise InvalidInput(f"decision must be approve or deny, not {decision!r}")


def _is_conflict(exc: BaseException) -> bool:
    from .store.model import Conflict, NotFound

    return isinstance(exc, (Conflict, NotFound))


def _targets(proposal: Proposal) -> list[Mapping[str, Any]]:
    raw = proposal.pinned.get("targets")
    return [t for t in raw if isinstance(t, Mapping)] if isinstance(raw, list) else []


def _remember_target(arguments: Mapping[str, Any], store: Store) -> Fact | None:
    """The fact a remember call would rewrite, looked up the way ``save`` looks it up."""
    try:
        req = remember_request(arguments).request
    except InvalidInput:
        return None
    if req.id:
        return store.find(req.id)
    name = req.name.strip()
    return store.find(name) if name else None


_AUDIT_SCAN = 50_000
"""How many recent audit lines are searched for an ``approval`` entry."""


def _approval_entry(store: Store, proposal_id: str) -> Any:
    for entry in store.audit.read(limit=_AUDIT_SCAN):
        if entry.op == "approval" and entry.detail.get("proposal") == proposal_id:
            return entry
    return None

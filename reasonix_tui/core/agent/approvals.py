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

Digest binding. :attr:`Proposal.digest` is a SHA-256 over the whole proposal as stored
(tool, workspace, state root, store directories, every argument, the pin, the assessment
and the requester). The Context Center passes the digest of the proposal it *displayed*
to :meth:`ApprovalQueue.apply`, which re-reads the file under the queue lock and approves
only when the file still has that digest; otherwise it raises :class:`ProposalChanged`
(nothing written, still pending) so the person is shown the new content. A deny always
stands (writing nothing is safe whatever the file says now).

Decisions already made. ``apply`` never takes an earlier decision from a file the agent
can write (an audit line or a result file). Before it writes to the store it writes an
*intent* (``applying/<id>.json``); a retry after a crash finds the intent and checks the
store: when the intended write is there (the fact at the intended revision with the
intended content, or the forgotten facts archived) the decision is finished as
``approved``, whatever key was pressed this time (that is the truth); when it is not,
the intent is dropped and this key press decides. An ``approval`` audit line for the
proposal that no intent backs is reported to the person as forged and ignored.
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
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..compat.gotime import Timestamp, parse_rfc3339
from ..paths import Layout
from ..store import locks, safeio
from ..store.atomic import atomic_write, ensure_dir
from ..store.model import (
    Fact,
    InvalidInput,
    StoreError,
)
from ..store.tempfiles import pid_alive as _pid_alive
from .policy import Assessment, ForgetAssessment, forget_targets, remember_request
from .proposals import (
    FORMAT_VERSION,
    HEARTBEAT_SECONDS,
    STALE_SECONDS,
    TOOLS,
    ApprovalError,
    ApprovalResult,
    AutoWrite,
    PresenceInfo,
    Proposal,
    ProposalChanged,
    ProposalPreview,
    Requester,
    WaitInfo,
    WaitOutcome,
    as_int,
    as_str,
    content_key,
    forget_reply,
    planned_fact,
    remember_reply,
    valid_proposal_id,
)
from .secrets import redact

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store.store import Store

__all__ = [
    "PresenceMarker",
    "ApprovalQueue",
]


# --------------------------------------------------------------------------- records


# --------------------------------------------------------------------------- replies


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
            "version": FORMAT_VERSION,
            "pid": self.pid,
            "host": self.host,
            "started_at": self.started_at or _now(),
            "heartbeat_at": _now(),
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

    @property
    def applying_dir(self) -> Path:
        """Intents of approves being applied (see :meth:`apply`)."""
        return self.root / "applying"

    @property
    def waiting_dir(self) -> Path:
        """One marker per agent process waiting for a decision (see :meth:`waiter`)."""
        return self.root / "waiting"

    def _checked(self, proposal_id: str) -> str:
        if not valid_proposal_id(proposal_id):
            raise InvalidInput(f"not a proposal id: {proposal_id!r}")
        return proposal_id

    def _lock(self) -> Any:
        ensure_dir(self.root, 0o700)
        return locks.hold_lock(self.root / ".lock", timeout=30)

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
            pid = as_int(data.get("pid"))
            marker_host = as_str(data.get("host"))
            beat = parse_rfc3339(as_str(data.get("heartbeat_at")))
            if marker_host == host and not _pid_alive(pid):
                try:
                    safeio.remove(path)
                except OSError:
                    pass
                continue
            if beat is None or (now_ns - beat.ns) > stale_after * 1e9:
                continue
            out.append(
                PresenceInfo(
                    pid,
                    marker_host,
                    as_str(data.get("started_at")),
                    as_str(data.get("heartbeat_at")),
                    as_str(data.get("workspace")),
                    str(path),
                )
            )
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
            pinned = {
                "targets": [{"id": f.id, "ref": f.ref, "revision": f.revision} for f in forget_targets(ref, store)]
            }
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
            now = {str(f.id): f for f in fa.targets}
            stale = any(
                now.get(as_str(t.get("id"))) is None or now[as_str(t.get("id"))].revision != as_int(t.get("revision"))
                for t in _targets(proposal)
            )
            return ProposalPreview(proposal, fa.targets[0] if fa.targets else None, fa.targets, None, fa, None, stale)
        try:
            request = remember_request(proposal.arguments)
        except InvalidInput as exc:
            return ProposalPreview(proposal, None, (), None, None, None, False, str(exc))
        current = _remember_target(proposal.arguments, st)
        pinned_rev = as_int(proposal.pinned.get("revision"))
        stale = (current.revision if current else 0) != pinned_rev
        fresh = assess_remember(proposal.arguments, st)
        planned = planned_fact(request.request, current, clear_expiry=request.clear_expiry, now=st.clock())
        holder = None
        if request.request.subject_key:
            holder = st.subject_holder(request.request.subject_key, planned.scope)
            if holder is not None and current is not None and holder.id == current.id:
                holder = None
        return ProposalPreview(proposal, current, (), request, fresh, holder, stale, planned=planned)

    # ------------------------------------------------------------------ applying

    def _store_for(self, proposal: Proposal, store: Store | None, settings: Settings | None = None) -> Store:
        from ..store.store import Store

        if not _same_root(proposal.state_root, self.layout.root):
            raise ApprovalError(f"proposal {proposal.id} names another state root ({proposal.state_root})")
        layout = Layout(root=self.layout.root, workspace=Path(os.path.abspath(proposal.workspace or ".")))
        if (
            store is not None
            and _same_root(store.layout.root, layout.root)
            and store.layout.workspace == layout.workspace
        ):
            return store
        return Store(
            layout, settings=settings or (store.settings if store is not None else None), actor="agent-approved"
        )

    def apply(
        self,
        proposal: Proposal | str,
        decision: str,
        edits: Mapping[str, Any] | None = None,
        store: Store | None = None,
        note: str = "",
        digest: str | None = None,
    ) -> ApprovalResult:
        """Decide a proposal: the only function that changes the store for one.

        ``decision`` is ``approve`` (or ``approved``/``y``) or ``deny`` (``denied``/``n``).
        ``digest`` is the :attr:`Proposal.digest` of the proposal the person was shown
        (taken from ``proposal`` when a :class:`Proposal` is passed; a bare id binds
        nothing). An approve is applied only while the file still has that digest, else
        :class:`ProposalChanged` is raised and nothing is written; a deny always stands.
        ``edits`` (remember only) override arguments before saving; invalid edits raise
        :class:`InvalidInput` and leave the proposal pending. Writes go through ``store``
        (or a store for the proposal's workspace) with actor ``agent-approved`` and the
        pinned revision, after an intent record that lets a retry after a crash tell the
        truth. Writes ``results/<id>.json``, appends an ``approval`` audit entry and moves
        the proposal to ``decided/``.
        """
        verdict = _verdict(decision)
        proposal_id = self._checked(proposal if isinstance(proposal, str) else proposal.id)
        if digest is None and isinstance(proposal, Proposal):
            digest = proposal.digest
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
                from ..store.store import Store as _Store

                audit_store = store if store is not None else _Store(self.layout, actor="context-center")
                result = ApprovalResult(
                    proposal_id,
                    current.tool,
                    "denied" if verdict == "deny" else "error",
                    str(exc),
                    note=note,
                    decided_at=_now(),
                )
                self._audit_decision(audit_store, current, result)
                self._finish(current, result)
                return result
            with st.mutation():
                return self._apply_locked(current, verdict, edits, st, note, digest)

    def _apply_locked(
        self, current: Proposal, verdict: str, edits: Mapping[str, Any] | None, st: Store, note: str, digest: str | None
    ) -> ApprovalResult:
        """``apply`` with the queue lock and the store lock held."""
        intent = _read_json(self._intent_path(current.id))
        if intent is not None:
            landed = self._landed(current, intent, st, note)
            if landed is not None:
                # The person's earlier approve was written before a crash: that is the truth
                # whatever is pressed now. Finish it (once) and say so.
                pressed = "deny" if verdict == "deny" else "approve"
                landed = replace(
                    landed,
                    notice=(
                        f"This proposal had already been approved and written before the Context Center stopped "
                        f"({landed.ref} revision {landed.revision}); it is finished now"
                        + (
                            "; your deny cannot undo it: forget the fact if you do not want it."
                            if pressed == "deny"
                            else "."
                        )
                    ),
                )
                if not self._already_audited(st, current.id, landed):
                    self._audit_decision(st, current, landed)
                self._finish(current, landed)
                return landed
            self._clear_intent(current.id)  # it never reached the store: this key press decides
        forged = self._unbacked_claim(st, current.id)
        notice = forged
        if digest is not None and current.digest != digest:
            if verdict == "approve":
                raise ProposalChanged(current)
            notice = "; ".join(
                x for x in (notice, "the proposal file changed after it was shown; denied all the same") if x
            )
        if verdict == "deny":
            what = "memory write; nothing was saved" if current.tool == "remember" else "forget; nothing was archived"
            result = ApprovalResult(
                current.id, current.tool, "denied", f"The user denied this {what}.", note=note, decided_at=_now()
            )
        else:
            if current.tool == "remember":
                result = self._apply_remember(current, st, edits, note)
            else:
                result = self._apply_forget(current, st, note)
        result = replace(result, notice=notice)
        self._audit_decision(st, current, result)
        self._finish(current, result)
        return result

    # ------------------------------------------------------------------ intents (crash safety)

    def _intent_path(self, proposal_id: str) -> Path:
        return self.applying_dir / f"{proposal_id}.json"

    def _write_intent(self, proposal: Proposal, **fields: Any) -> None:
        """Record, before touching the store, what this approve is about to write."""
        ensure_dir(self.applying_dir, 0o700)
        data = {
            "version": FORMAT_VERSION,
            "id": proposal.id,
            "digest": proposal.digest,
            "tool": proposal.tool,
            "started_at": _now(),
            **fields,
        }
        _write_json(self._intent_path(proposal.id), data)

    def _clear_intent(self, proposal_id: str) -> None:
        try:
            self._intent_path(proposal_id).unlink()
        except OSError:
            pass

    def interrupted(self) -> list[Proposal]:
        """Pending proposals whose approve was interrupted (an intent record is left).
        Intents of proposals that are no longer pending are removed."""
        out: list[Proposal] = []
        try:
            paths = sorted(self.applying_dir.glob("*.json"))
        except OSError:
            return out
        for path in paths:
            if not valid_proposal_id(path.stem):
                continue
            data = _read_json(self.proposals_dir / path.name)
            if data is None:
                self._clear_intent(path.stem)
                continue
            try:
                out.append(Proposal.from_dict(data, str(self.proposals_dir / path.name)))
            except ValueError:
                continue
        return out

    def finish_interrupted(self, store: Store | None = None) -> list[ApprovalResult]:
        """Finish every approve that reached the store before a crash (see :meth:`apply`);
        one whose write never landed stays pending for the person. Returns what was finished."""
        done: list[ApprovalResult] = []
        for proposal in self.interrupted():
            with self._lock():
                intent = _read_json(self._intent_path(proposal.id))
                data = _read_json(self.proposals_dir / f"{proposal.id}.json")
                if intent is None or data is None:
                    continue
                try:
                    current = Proposal.from_dict(data, proposal.path)
                    st = self._store_for(current, store)
                except (ValueError, ApprovalError):
                    continue
                with st.mutation():
                    landed = self._landed(current, intent, st, "")
                    if landed is None:
                        self._clear_intent(current.id)
                        continue
                    landed = replace(
                        landed,
                        notice=(
                            f"An approval interrupted when the Context Center stopped had already been written "
                            f"({landed.ref} revision {landed.revision}); it is finished now and the agent is told."
                        ),
                    )
                    if not self._already_audited(st, current.id, landed):
                        self._audit_decision(st, current, landed)
                    self._finish(current, landed)
                    done.append(landed)
        return done

    def _landed(self, proposal: Proposal, intent: Mapping[str, Any], st: Store, note: str) -> ApprovalResult | None:
        """The approved result when the write an intent announced is in the store, else ``None``."""
        if as_str(intent.get("digest")) != proposal.digest:
            return None  # the intent was for other content
        started = parse_rfc3339(as_str(intent.get("started_at")))
        if proposal.tool == "remember":
            fact = st.find_by_id(as_str(intent.get("target_id"))) if intent.get("target_id") else None
            if fact is None:
                name = as_str(intent.get("name"))
                fact = st.find(name) if name else None
            expected = as_int(intent.get("expected"))
            if fact is None or fact.revision <= expected:
                return None
            written: Fact | None = fact
            if fact.revision > expected + 1:  # written, then changed again by someone: look in its history
                try:
                    written = next((r for r in st.revisions(fact.id) if r.revision == expected + 1), None)
                except StoreError:
                    written = None
                if written is None:
                    return None
            assert written is not None
            if content_key(written.title, written.description, written.type, written.body) != as_str(
                intent.get("content")
            ):
                return None
            if (
                started is not None
                and written.updated_at is not None
                and written.updated_at.ns < started.ns - 5 * 10**9
            ):
                return None  # written before this intent: someone else's write
            fact = replace(fact, revision=written.revision) if written is not fact else fact
            return ApprovalResult(
                proposal.id,
                "remember",
                "approved",
                remember_reply(fact),
                fact_id=fact.id,
                ref=fact.ref,
                revision=fact.revision,
                edited=intent.get("edited") is True,
                note=note,
                decided_at=_now(),
                paths=(fact.path,),
            )
        targets = _targets(proposal)
        if not targets:
            return None
        still = [t for t in targets if st.find_by_id(as_str(t.get("id"))) is not None]
        archived_ids = {a.fact.id for a in st.list_archived()}
        if len(still) == len(targets) or not all(
            as_str(t.get("id")) in archived_ids for t in targets if t not in still
        ):
            return None  # nothing archived yet (or not by this forget)
        paths: list[str] = []
        for t in still:  # a forget of several facts stopped half-way: finish it
            fact = st.find_by_id(as_str(t.get("id")))
            if fact is None or fact.revision != as_int(t.get("revision")):
                return None
            res = st.archive(fact.id, actor="agent-approved")
            paths.extend(p for p in (fact.path, *res.paths) if p)
        first = targets[0]
        ref = str(proposal.arguments.get("ref", ""))
        return ApprovalResult(
            proposal.id,
            "forget",
            "approved",
            f'Forgot memory "{ref}" (it no longer applies and will not load in future sessions).',
            fact_id=as_str(first.get("id")),
            ref=as_str(first.get("ref")),
            revision=as_int(first.get("revision")),
            note=note,
            decided_at=_now(),
            paths=tuple(paths),
        )

    def _already_audited(self, store: Store, proposal_id: str, result: ApprovalResult) -> bool:
        entry = _approval_entry(store, proposal_id)
        return (
            entry is not None
            and entry.actor == "context-center"
            and as_str(entry.detail.get("state")) == result.state
            and entry.id == result.fact_id
            and (entry.rev_after or 0) == result.revision
        )

    def _unbacked_claim(self, store: Store, proposal_id: str) -> str:
        """An ``approval`` audit line for a still-pending proposal that no intent of ours
        backs: the deciding side did not write it (it is ignored; the person is told)."""
        entry = _approval_entry(store, proposal_id)
        if entry is None:
            return ""
        state = as_str(entry.detail.get("state")) or "decided"
        return (
            f"the audit log held a line saying this proposal was already {state} ({entry.at or 'no time'}, "
            f"actor {entry.actor or '?'}); the Context Center did not write it and nothing in the store backs it, "
            "so it was ignored as forged"
        )

    def _audit_decision(self, store: Store, proposal: Proposal, result: ApprovalResult) -> None:
        store.audit.record(
            "approval",
            result.state == "approved",
            "context-center",
            id=result.fact_id,
            ref=result.ref,
            rev_after=result.revision or None,
            reason="" if result.state == "approved" else result.message,
            workspace=proposal.workspace,
            detail={
                "proposal": proposal.id,
                "tool": proposal.tool,
                "state": result.state,
                "edited": result.edited,
                "digest": proposal.digest,
                "requester": proposal.requester.to_dict(),
            },
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
        self._clear_intent(proposal.id)
        try:
            safeio.remove(self.waiting_dir / f"{proposal.id}.json")
        except OSError:
            pass

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
            expected = as_int(proposal.pinned.get("revision"))
        req = validated.request
        target = _remember_target(args, store)
        self._write_intent(
            proposal,
            expected=expected,
            target_id=str(target.id) if target is not None else "",
            name=req.id or req.name,
            edited=edited,
            content=content_key(req.title, req.description, req.type, req.body),
        )
        try:
            saved = store.save(
                req,
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
        paths = tuple(
            p
            for p in dict.fromkeys(
                (fact.path, saved.previous.path if saved.previous is not None else "", *saved.archived)
            )
            if p
        )
        return ApprovalResult(
            proposal.id,
            "remember",
            "approved",
            remember_reply(fact),
            fact_id=fact.id,
            ref=fact.ref,
            revision=fact.revision,
            edited=edited,
            note=note,
            decided_at=_now(),
            paths=paths,
        )

    def _apply_forget(self, proposal: Proposal, store: Store, note: str) -> ApprovalResult:
        ref = str(proposal.arguments.get("ref", ""))
        targets = _targets(proposal)
        if not targets:
            return ApprovalResult(
                proposal.id, "forget", "error", f'memory "{ref}" not found', note=note, decided_at=_now()
            )
        facts: list[Fact] = []
        for t in targets:
            now = store.find_by_id(as_str(t.get("id")))
            if now is None:
                return ApprovalResult(
                    proposal.id,
                    "forget",
                    "conflict",
                    f'memory "{t.get("ref") or t.get("id")}" is no longer active; nothing was archived',
                    note=note,
                    decided_at=_now(),
                )
            if now.revision != as_int(t.get("revision")):
                return ApprovalResult(
                    proposal.id,
                    "forget",
                    "conflict",
                    f"memory revision conflict: expected {as_int(t.get('revision'))}, found {now.revision} "
                    f'(memory "{now.ref}" changed after the proposal; nothing was archived)',
                    note=note,
                    decided_at=_now(),
                )
            facts.append(now)
        self._write_intent(proposal)
        archived_any = False
        paths: list[str] = []
        try:
            for fact in facts:
                res = store.archive(fact.id, actor="agent-approved")
                archived_any = archived_any or bool(res.paths)
                paths.extend(p for p in (fact.path, *res.paths) if p)
        except (StoreError, OSError) as exc:
            return ApprovalResult(
                proposal.id, "forget", "error", str(exc), note=note, decided_at=_now(), paths=tuple(paths)
            )
        first = facts[0]
        return ApprovalResult(
            proposal.id,
            "forget",
            "approved",
            forget_reply(ref, first, archived_any),
            fact_id=first.id,
            ref=first.ref,
            revision=first.revision,
            note=note,
            decided_at=_now(),
            paths=tuple(paths),
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
        if as_str(entry.detail.get("state")) != result.state:
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

    def wait_for_result(self, proposal_id: str, timeout: float, store: Store | None = None) -> WaitOutcome:
        """Wait up to ``timeout`` seconds for a *verified* decision.

        Polls ``results/<id>.json``; a result that :meth:`verify` cannot back is ignored
        (the wait goes on, and the outcome's note says so).
        """
        self._checked(proposal_id)
        deadline = time.monotonic() + max(timeout, 0.0)
        note = ""
        rejected: tuple[str, float] | None = None
        marker = self._mark_waiting(proposal_id, timeout)
        outcome: WaitOutcome | None = None
        try:
            while True:
                result = self.read_result(proposal_id)
                if result is not None:
                    stamp = json.dumps(result.to_dict(), sort_keys=True)
                    if rejected is None or rejected[0] != stamp or time.monotonic() - rejected[1] >= 1.0:
                        ok, why = self.verify(result, store)
                        if ok:
                            outcome = WaitOutcome(result.state, result, note)
                            return outcome
                        rejected = (stamp, time.monotonic())
                        note = f"ignored a result file that could not be verified ({why})"
                elif self.get(proposal_id) is None:
                    outcome = WaitOutcome("missing", None, "the proposal file is gone and no decision was recorded")
                    return outcome
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    outcome = WaitOutcome("pending", None, note)
                    return outcome
                time.sleep(min(self.poll_interval, remaining))
        finally:
            self._unmark_waiting(marker, timed_out=outcome is not None and outcome.state == "pending")

    def _mark_waiting(self, proposal_id: str, timeout: float) -> Path | None:
        """Tell the Context Center this process waits for ``proposal_id`` until the deadline."""
        if timeout <= 0 or not self.is_pending(proposal_id):
            return None
        now = Timestamp.now()
        path = self.waiting_dir / f"{proposal_id}.json"
        data = {
            "version": FORMAT_VERSION,
            "id": proposal_id,
            "state": "waiting",
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": now.rfc3339(),
            "until": Timestamp(now.ns + int(timeout * 1e9)).rfc3339(),
        }
        try:
            ensure_dir(self.waiting_dir, 0o700)
            _write_json(path, data)
        except OSError:
            return None
        return path

    def _unmark_waiting(self, path: Path | None, *, timed_out: bool) -> None:
        """A timeout leaves a ``timed-out`` record (the proposal stays queued); any other
        end of the wait removes the marker."""
        if path is None:
            return
        try:
            if timed_out and self.is_pending(path.stem):
                data = _read_json(path) or {}
                data.update(state="timed-out", until=_now())
                _write_json(path, data)
            else:
                path.unlink()
        except OSError:
            pass

    def waiter(self, proposal_id: str) -> WaitInfo:
        """Whether the proposing agent is still waiting for ``proposal_id``."""
        data = _read_json(self.waiting_dir / f"{self._checked(proposal_id)}.json")
        if data is None:
            return WaitInfo("none")
        state = as_str(data.get("state"))
        pid = as_int(data.get("pid"))
        info = WaitInfo(
            state if state in ("waiting", "timed-out") else "none",
            pid,
            parse_rfc3339(as_str(data.get("since"))),
            parse_rfc3339(as_str(data.get("until"))),
        )
        if info.state == "waiting" and as_str(data.get("host")) == socket.gethostname() and not _pid_alive(pid):
            return replace(info, state="exited")
        return info

    # ------------------------------------------------------------------ auto writes (undo)

    def record_auto_write(
        self, fact: Fact, requester: Requester | None = None, layout: Layout | None = None, previous_revision: int = 0
    ) -> AutoWrite:
        """Note a low-risk write that landed unasked, so the Context Center can offer undo
        (``previous_revision``: the revision an automatic update replaced)."""
        lay = layout or self.layout
        rec = AutoWrite(
            id=_new_id("a"),
            fact_id=fact.id,
            ref=fact.ref,
            revision=fact.revision,
            name=fact.name,
            description=fact.description,
            created_at=_now(),
            requester=requester or Requester.current(),
            workspace=str(lay.workspace),
            state_root=str(lay.root),
            previous_revision=previous_revision,
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
        from ..store.model import Conflict, NotFound
        from ..store.store import Store

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
    from ..store.model import Conflict, NotFound

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

"""The approval queue's folders and files: the paths under ``<root>/approvals/``, the
queue lock, JSON records (written atomically, mode 0600), reading proposals and results,
and recording a decision (result file, audit entry, the redacted ``decided/`` copy).

:class:`QueueFiles` is the base of :class:`~.approvals.ApprovalQueue`; the other roles of
the queue (:mod:`.deciding`, :mod:`.recovery`, :mod:`.waiting`, :mod:`.auto_writes`) build
on it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..paths import Layout
from ..store import locks, safeio
from ..store.atomic import atomic_write, ensure_dir
from ..store.model import Fact, InvalidInput
from .proposals import ApprovalError, ApprovalResult, Proposal, as_str, valid_proposal_id
from .remember_args import remember_request
from .secrets import redact

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store.store import Store

__all__ = ["QueueFiles", "AUDIT_SCAN", "read_json", "write_json", "same_root", "pinned_targets", "remember_target"]


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write a queue record atomically, readable by its owner only (proposals carry bodies)."""
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n", 0o600)


def read_json(path: Path) -> dict[str, Any] | None:
    """A queue record, or ``None`` when it is missing, unreadable or not a JSON object."""
    try:
        # Never blocks: a FIFO planted at a proposal, result or presence path is skipped.
        data = json.loads(safeio.read_regular(path, limit=64 << 20))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def same_root(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when two state-root paths name the same folder."""
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


def pinned_targets(proposal: Proposal) -> list[Mapping[str, Any]]:
    """The facts a ``forget`` proposal pinned (id, ref, revision at proposal time)."""
    raw = proposal.pinned.get("targets")
    return [t for t in raw if isinstance(t, Mapping)] if isinstance(raw, list) else []


def remember_target(arguments: Mapping[str, Any], store: Store) -> Fact | None:
    """The fact a remember call would rewrite, looked up the way ``save`` looks it up."""
    try:
        req = remember_request(arguments).request
    except InvalidInput:
        return None
    if req.id:
        return store.find(req.id)
    name = req.name.strip()
    return store.find(name) if name else None


AUDIT_SCAN = 50_000
"""How many recent audit lines are searched for an ``approval`` entry."""


def approval_entry(store: Store, proposal_id: str) -> Any:
    """The newest ``approval`` audit entry for ``proposal_id`` (``None`` when there is none)."""
    for entry in store.audit.read(limit=AUDIT_SCAN):
        if entry.op == "approval" and entry.detail.get("proposal") == proposal_id:
            return entry
    return None


class QueueFiles:
    """The files of one state root's approval queue (``layout.approvals_dir``)."""

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

    def _intent_path(self, proposal_id: str) -> Path:
        return self.applying_dir / f"{proposal_id}.json"

    def _clear_intent(self, proposal_id: str) -> None:
        try:
            self._intent_path(proposal_id).unlink()
        except OSError:
            pass

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
            data = read_json(path)
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
            data = read_json(path)
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
        data = read_json(self.results_dir / f"{self._checked(proposal_id)}.json")
        if data is None:
            return None
        try:
            return ApprovalResult.from_dict(data)
        except ValueError:
            return None

    def _store_for(self, proposal: Proposal, store: Store | None, settings: Settings | None = None) -> Store:
        from ..store.store import Store

        if not same_root(proposal.state_root, self.layout.root):
            raise ApprovalError(f"proposal {proposal.id} names another state root ({proposal.state_root})")
        layout = Layout(root=self.layout.root, workspace=Path(os.path.abspath(proposal.workspace or ".")))
        if (
            store is not None
            and same_root(store.layout.root, layout.root)
            and store.layout.workspace == layout.workspace
        ):
            return store
        return Store(
            layout, settings=settings or (store.settings if store is not None else None), actor="agent-approved"
        )

    # ------------------------------------------------------------------ recording a decision

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
        write_json(self.results_dir / f"{proposal.id}.json", result.to_dict())
        ensure_dir(self.decided_dir, 0o700)
        src = self.proposals_dir / f"{proposal.id}.json"
        # The decided copy keeps the history but not the secrets: a denied proposal's
        # credential must not linger on disk (an approved one lives in the fact anyway).
        kept = proposal.to_dict()
        kept["arguments"] = {k: redact(v) if isinstance(v, str) else v for k, v in proposal.arguments.items()}
        write_json(self.decided_dir / f"{proposal.id}.json", kept)
        safeio.remove(src)
        self._clear_intent(proposal.id)
        try:
            safeio.remove(self.waiting_dir / f"{proposal.id}.json")
        except OSError:
            pass

    def _already_audited(self, store: Store, proposal_id: str, result: ApprovalResult) -> bool:
        entry = approval_entry(store, proposal_id)
        return (
            entry is not None
            and entry.actor == "context-center"
            and as_str(entry.detail.get("state")) == result.state
            and entry.id == result.fact_id
            and (entry.rev_after or 0) == result.revision
        )

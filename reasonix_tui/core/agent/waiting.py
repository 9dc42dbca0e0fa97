"""The agent's side of a proposal: wait for a decision a person made in the Context Center,
believing a result file only when the store and the audit log back it, and tell the
Context Center (``<root>/approvals/waiting/``) that someone is waiting.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..compat.gotime import Timestamp, parse_rfc3339
from ..store.atomic import ensure_dir
from ..store.tempfiles import pid_alive as _pid_alive
from . import stamps
from .proposals import FORMAT_VERSION, ApprovalError, ApprovalResult, WaitInfo, WaitOutcome, as_int, as_str
from .queue_files import QueueFiles, approval_entry, read_json, write_json

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["AgentWaiting"]


class AgentWaiting(QueueFiles):
    """Waiting for a verified decision (see :class:`~.approvals.ApprovalQueue`)."""

    def verify(self, result: ApprovalResult, store: Store | None = None) -> tuple[bool, str]:
        """Whether a result file is backed by the store and the audit log (not just a file)."""
        proposal = self.get(result.id)
        if proposal is None:
            return False, "no such proposal"
        try:
            st = self._store_for(proposal, store)
        except ApprovalError as exc:
            return False, str(exc)
        entry = approval_entry(st, result.id)
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
            write_json(path, data)
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
                data = read_json(path) or {}
                data.update(state="timed-out", until=stamps.now())
                write_json(path, data)
            else:
                path.unlink()
        except OSError:
            pass

    def waiter(self, proposal_id: str) -> WaitInfo:
        """Whether the proposing agent is still waiting for ``proposal_id``."""
        data = read_json(self.waiting_dir / f"{self._checked(proposal_id)}.json")
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

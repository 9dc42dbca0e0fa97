"""Crash safety of an approve: before it writes to the store, the Context Center records an
*intent* (``<root>/approvals/applying/<id>.json``). A retry after a crash finds it and
checks the store: when the intended write is there the decision is finished as approved
(that is the truth), otherwise the intent is dropped and the person decides again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..compat.gotime import parse_rfc3339
from ..store.atomic import ensure_dir
from ..store.model import Fact, StoreError
from . import stamps
from .proposals import (
    FORMAT_VERSION,
    ApprovalError,
    ApprovalResult,
    Proposal,
    as_int,
    as_str,
    content_key,
    remember_approved,
    valid_proposal_id,
)
from .queue_files import QueueFiles, pinned_targets, read_json, write_json

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["CrashRecovery"]


class CrashRecovery(QueueFiles):
    """Intents of approves being applied, and finishing the ones a crash interrupted."""

    def _write_intent(self, proposal: Proposal, **fields: Any) -> None:
        """Record, before touching the store, what this approve is about to write."""
        ensure_dir(self.applying_dir, 0o700)
        data = {
            "version": FORMAT_VERSION,
            "id": proposal.id,
            "digest": proposal.digest,
            "tool": proposal.tool,
            "started_at": stamps.now(),
            **fields,
        }
        write_json(self._intent_path(proposal.id), data)

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
            data = read_json(self.proposals_dir / path.name)
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
                intent = read_json(self._intent_path(proposal.id))
                data = read_json(self.proposals_dir / f"{proposal.id}.json")
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
            return remember_approved(
                proposal.id,
                fact,
                edited=intent.get("edited") is True,
                note=note,
                decided_at=stamps.now(),
                paths=(fact.path,),
            )
        targets = pinned_targets(proposal)
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
            decided_at=stamps.now(),
            paths=tuple(paths),
        )

"""Deciding a proposal: :meth:`Deciding.apply`, the only code that changes the store for an
agent's proposal (a person's key press in the Context Center). An approve is applied only
while the proposal file still has the digest the person was shown, at the pinned revision,
after an intent record (:mod:`.recovery`); a deny always stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..store.model import Fact, InvalidInput, StoreError
from . import stamps
from .proposals import (
    ApprovalError,
    ApprovalResult,
    Proposal,
    ProposalChanged,
    as_int,
    as_str,
    content_key,
    forget_reply,
    remember_approved,
)
from .queue_files import approval_entry, pinned_targets, read_json, remember_target
from .recovery import CrashRecovery
from .remember_args import remember_request

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["Deciding"]


class Deciding(CrashRecovery):
    """Applying a person's decision (see :class:`~.approvals.ApprovalQueue`)."""

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
            data = read_json(path)
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
                    decided_at=stamps.now(),
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
        intent = read_json(self._intent_path(current.id))
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
                current.id, current.tool, "denied", f"The user denied this {what}.", note=note, decided_at=stamps.now()
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

    def _unbacked_claim(self, store: Store, proposal_id: str) -> str:
        """An ``approval`` audit line for a still-pending proposal that no intent of ours
        backs: the deciding side did not write it (it is ignored; the person is told)."""
        entry = approval_entry(store, proposal_id)
        if entry is None:
            return ""
        state = as_str(entry.detail.get("state")) or "decided"
        return (
            f"the audit log held a line saying this proposal was already {state} ({entry.at or 'no time'}, "
            f"actor {entry.actor or '?'}); the Context Center did not write it and nothing in the store backs it, "
            "so it was ignored as forged"
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
            return ApprovalResult(proposal.id, "remember", "error", str(exc), note=note, decided_at=stamps.now())
        expected = validated.expected_revision
        if expected is None:
            expected = as_int(proposal.pinned.get("revision"))
        req = validated.request
        target = remember_target(args, store)
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
            return ApprovalResult(
                proposal.id, "remember", state, message, edited=edited, note=note, decided_at=stamps.now()
            )
        fact = saved.fact
        paths = tuple(
            p
            for p in dict.fromkeys(
                (fact.path, saved.previous.path if saved.previous is not None else "", *saved.archived)
            )
            if p
        )
        return remember_approved(proposal.id, fact, edited=edited, note=note, decided_at=stamps.now(), paths=paths)

    def _apply_forget(self, proposal: Proposal, store: Store, note: str) -> ApprovalResult:
        ref = str(proposal.arguments.get("ref", ""))
        targets = pinned_targets(proposal)
        if not targets:
            return ApprovalResult(
                proposal.id, "forget", "error", f'memory "{ref}" not found', note=note, decided_at=stamps.now()
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
                    decided_at=stamps.now(),
                )
            if now.revision != as_int(t.get("revision")):
                return ApprovalResult(
                    proposal.id,
                    "forget",
                    "conflict",
                    f"memory revision conflict: expected {as_int(t.get('revision'))}, found {now.revision} "
                    f'(memory "{now.ref}" changed after the proposal; nothing was archived)',
                    note=note,
                    decided_at=stamps.now(),
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
                proposal.id, "forget", "error", str(exc), note=note, decided_at=stamps.now(), paths=tuple(paths)
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
            decided_at=stamps.now(),
            paths=tuple(paths),
        )


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

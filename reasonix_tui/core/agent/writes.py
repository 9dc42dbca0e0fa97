"""The agent side of memory writes: policy → write now, or propose and wait (DESIGN §agent writes).

Shared by the CLI verbs (``reasonix-tui remember`` / ``forget``) and the MCP tools, so
both behave the same:

* a low-risk ``remember`` (policy ``auto_allow``) is saved at once, create-only, with
  actor ``agent-auto``, and recorded under ``approvals/auto/`` for the undo notice;
* anything else becomes a durable proposal and the caller waits for a *verified*
  decision (see :mod:`.approvals`), up to ``wait`` seconds;
* with no Context Center open it returns at once (the proposal stays queued);
* in a headless or sub-agent run (``settings.headless``) nothing is proposed: a write
  that needs a person fails at once (status ``refused``, exit code 3);
* arguments are checked strictly first (:func:`check_agent_arguments`): an unknown type,
  scope, activation or volatility, an expiry that does not parse or has passed, a
  negative expected revision are refused (status ``invalid``, exit code 2; ``isError``
  over MCP) and nothing is queued. Reasonix turns an unknown type into ``project``;
  an agent's typo must not become a proposal the person has to read.

Exit codes: 0 written, 2 invalid input, 3 denied or refused, 4 still pending, 1 conflict
or any other failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..compat.gostr import to_lower, trim_space
from ..compat.gotime import Timestamp
from ..store.fields import EDITABLE_FIELDS
from ..store.model import (
    Conflict,
    InvalidInput,
    NotFound,
    StoreError,
    normalisation_note,
)
from ..store.requests import parse_expires_at
from ..store.store import Store
from .approvals import ApprovalQueue
from .policy import Assessment, assess_forget, assess_remember, assess_remember_skip
from .proposals import ApprovalResult, Proposal, Requester, WaitOutcome, remember_reply
from .remember_args import parse_remember_arguments, remember_request

__all__ = [
    "EXIT_CODES",
    "AgentWriteOutcome",
    "agent_remember",
    "agent_forget",
    "await_proposal",
    "check_agent_arguments",
]

EXIT_CODES = {
    "saved": 0,
    "approved": 0,
    "invalid": 2,
    "denied": 3,
    "refused": 3,
    "pending": 4,
    "conflict": 1,
    "error": 1,
    "missing": 1,
}
"""Exit code per outcome status."""


@dataclass(frozen=True, slots=True)
class AgentWriteOutcome:
    """What happened to an agent's write, with one line a model can act on."""

    status: str
    """``saved`` (auto), ``approved``, ``denied``, ``refused``, ``pending``, ``invalid``,
    ``conflict``, ``error`` or ``missing``."""
    message: str
    """One line for the model."""
    tool: str = "remember"
    proposal_id: str = ""
    fact_id: str = ""
    ref: str = ""
    revision: int = 0
    reason: str = ""
    """The policy's first reason when a person was needed."""
    reasons: tuple[str, ...] = ()
    context_center_open: bool | None = None
    """Whether a Context Center was open (None when not checked)."""
    note: str = ""
    """Extra detail (e.g. an unverifiable result file was ignored)."""
    edited: bool = False
    """The person edited the write before approving."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """The CLI exit code."""
        return EXIT_CODES.get(self.status, 1)

    def to_dict(self) -> dict[str, Any]:
        """JSON form for ``--json`` and MCP."""
        out: dict[str, Any] = {
            "status": self.status,
            "exit_code": self.exit_code,
            "tool": self.tool,
            "message": self.message,
        }
        for key in ("proposal_id", "fact_id", "ref", "reason", "note"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.revision:
            out["revision"] = self.revision
        if self.reasons:
            out["reasons"] = list(self.reasons)
        if self.context_center_open is not None:
            out["context_center_open"] = self.context_center_open
        if self.edited:
            out["edited"] = True
        out.update(self.extra)
        return out


def _status_cmd(proposal_id: str) -> str:
    return f"reasonix-tui approval-status {proposal_id} --wait 60"


def _from_wait(
    tool: str, proposal: Proposal, outcome: WaitOutcome, waited: float, reason: str, reasons: tuple[str, ...]
) -> AgentWriteOutcome:
    res: ApprovalResult | None = outcome.result
    common: dict[str, Any] = {
        "tool": tool,
        "proposal_id": proposal.id,
        "reason": reason,
        "reasons": reasons,
        "note": outcome.note,
        "context_center_open": True,
    }
    if outcome.state == "approved" and res is not None:
        suffix = " The user approved it with edits." if res.edited else " The user approved it."
        return AgentWriteOutcome(
            "approved",
            res.message + suffix,
            fact_id=res.fact_id,
            ref=res.ref,
            revision=res.revision,
            edited=res.edited,
            **common,
        )
    if outcome.state == "denied" and res is not None:
        said = f" The user said: {res.note}" if res.note else ""
        what = "memory write" if tool == "remember" else "forget"
        return AgentWriteOutcome(
            "denied", f"The user denied this {what} (proposal {proposal.id}); nothing was changed.{said}", **common
        )
    if outcome.state in ("conflict", "error") and res is not None:
        return AgentWriteOutcome(outcome.state, f"Not applied (proposal {proposal.id}): {res.message}", **common)
    if outcome.state == "missing":
        return AgentWriteOutcome(
            "missing", f"Proposal {proposal.id} disappeared without a decision; nothing was changed.", **common
        )
    return AgentWriteOutcome(
        "pending",
        f"Still waiting for the user's approval after {waited:g}s: proposal {proposal.id} stays queued and nothing "
        f"is changed yet. Check later with: {_status_cmd(proposal.id)}",
        **common,
    )


def _no_context_center(tool: str, proposal: Proposal, reason: str, reasons: tuple[str, ...]) -> AgentWriteOutcome:
    return AgentWriteOutcome(
        "pending",
        f"No Context Center is open, so nobody can approve this now: proposal {proposal.id} is queued and nothing is "
        f"changed yet ({reason}). Ask the user to run `reasonix-tui` to review it, then check with: "
        f"{_status_cmd(proposal.id)}",
        tool=tool,
        proposal_id=proposal.id,
        reason=reason,
        reasons=reasons,
        context_center_open=False,
    )


def _refused(tool: str, reason: str, reasons: tuple[str, ...], store: Store, ref: str = "") -> AgentWriteOutcome:
    store.audit.record(
        tool,
        False,
        "agent-auto",
        ref=ref,
        reason=f"headless: {reason}",
        workspace=str(store.layout.workspace),
        detail={"refused": "headless", "reasons": list(reasons)},
    )
    what = "memory write" if tool == "remember" else "forget"
    return AgentWriteOutcome(
        "refused",
        f"Not changed: this {what} needs a person's approval ({reason}), and this is a headless or sub-agent run "
        "(REASONIX_TUI_HEADLESS / REASONIX_TUI_SUBAGENT), so it was refused. Mention it to the user instead.",
        tool=tool,
        reason=reason,
        reasons=reasons,
    )


def _wait_seconds(wait: float | None, store: Store) -> float:
    if wait is None:
        return float(store.settings.approval_wait_seconds)
    return max(float(wait), 0.0)


def check_agent_arguments(args: Mapping[str, Any], now: Timestamp | None = None) -> None:
    """Refuse what an agent cannot have meant (:class:`InvalidInput`): values outside the
    store's vocabularies (case and surrounding spaces aside), an expiry that is not a
    date or has already passed, a negative expected revision."""
    for f in EDITABLE_FIELDS:  # every field chosen from a list (type, scope, activation, volatility)
        value = trim_space(str(args.get(f.name) or ""))
        if f.choices and value and to_lower(value) not in f.choices:
            raise InvalidInput(f"{f.name} must be one of {', '.join(f.choices)}")  # Reasonix's wording
    expires, _ = parse_expires_at(str(args.get("expires_at") or ""))
    if expires is not None and expires.ns <= (now or Timestamp.now()).ns:
        raise InvalidInput(
            f"expires_at {trim_space(str(args.get('expires_at')))!r} is in the past: "
            "the fact would never be recalled (use forget for a fact that no longer holds)"
        )
    revision = args.get("expected_revision")
    if isinstance(revision, int) and not isinstance(revision, bool) and revision < 0:
        raise InvalidInput("expected_revision must not be negative")


def agent_remember(
    arguments: Mapping[str, Any] | str | bytes,
    store: Store,
    *,
    requester: Requester | None = None,
    wait: float | None = None,
    queue: ApprovalQueue | None = None,
) -> AgentWriteOutcome:
    """An agent's ``remember``: write now if low-risk, else propose and wait."""
    try:
        args = parse_remember_arguments(arguments)
        check_agent_arguments(args)
        validated = remember_request(args)
    except InvalidInput as exc:
        return AgentWriteOutcome("invalid", str(exc))
    raw_args = {k: (list(v) if isinstance(v, tuple) else v) for k, v in args.items() if v not in ("", 0, False, ())}
    # Reasonix's ``auto_confirm_project_remember`` lets updates of an unpinned project fact
    # through as well (``AssessRememberSkip``); otherwise only new facts are low-risk.
    skip = store.settings.auto_confirm_project_remember
    assessment: Assessment = (assess_remember_skip if skip else assess_remember)(args, store)
    queue = queue or ApprovalQueue(store.layout)
    requester = requester or Requester.current()
    if assessment.auto_allow:
        target = assessment.target if skip else None
        # An update applies to the revision that was assessed (or the caller's), or not at all.
        expected = validated.expected_revision or (target.revision if target is not None else None)
        try:
            saved = store.save(
                validated.request,
                expected_revision=expected,
                require_create=target is None,
                clear_expiry=validated.clear_expiry,
                actor="agent-auto",
            )
        except (Conflict, NotFound) as exc:
            return AgentWriteOutcome("conflict", str(exc), reason=assessment.reason)
        except InvalidInput as exc:
            return AgentWriteOutcome("invalid", str(exc), reason=assessment.reason)
        except StoreError as exc:
            return AgentWriteOutcome("error", str(exc), reason=assessment.reason)
        fact = saved.fact
        extra: dict[str, Any] = {}
        note = ""
        try:
            previous = saved.previous.revision if target is not None and saved.previous is not None else 0
            extra["auto_write"] = queue.record_auto_write(fact, requester, store.layout, previous_revision=previous).id
        except OSError as exc:  # the fact is written; only the undo notice is missing
            note = f"could not record the undo notice: {exc}"
        message = remember_reply(fact)
        renamed = normalisation_note(str(args.get("name") or ""), fact.ref)
        if renamed:
            message += f" Note: {renamed}."
        return AgentWriteOutcome(
            "saved",
            message,
            fact_id=fact.id,
            ref=fact.ref,
            revision=fact.revision,
            reason=assessment.reason,
            note=note,
            extra=extra,
        )
    reasons = assessment.reasons or (assessment.reason,)
    if store.settings.headless:
        return _refused("remember", assessment.reason, reasons, store, ref=assessment.name)
    proposal = queue.propose("remember", raw_args, assessment, store, requester)
    return _wait(queue, proposal, store, wait, assessment.reason, reasons)


def agent_forget(
    ref: str,
    store: Store,
    *,
    requester: Requester | None = None,
    wait: float | None = None,
    queue: ApprovalQueue | None = None,
) -> AgentWriteOutcome:
    """An agent's ``forget``: always a proposal (or refused when headless)."""
    ref = ref.strip()
    if not ref:
        return AgentWriteOutcome("invalid", "memory needs a name", tool="forget")
    fa = assess_forget(ref, store)
    if not fa.found:
        return AgentWriteOutcome("error", f'memory "{ref}" not found; nothing to forget', tool="forget")
    if store.settings.headless:
        return _refused("forget", fa.reason, fa.reasons, store, ref=ref)
    queue = queue or ApprovalQueue(store.layout)
    proposal = queue.propose("forget", {"ref": ref}, fa, store, requester or Requester.current())
    return _wait(queue, proposal, store, wait, fa.reason, fa.reasons)


def _wait(
    queue: ApprovalQueue, proposal: Proposal, store: Store, wait: float | None, reason: str, reasons: tuple[str, ...]
) -> AgentWriteOutcome:
    if not queue.context_center_open():
        return _no_context_center(proposal.tool, proposal, reason, reasons)
    seconds = _wait_seconds(wait, store)
    outcome = queue.wait_for_result(proposal.id, seconds, store)
    return _from_wait(proposal.tool, proposal, outcome, seconds, reason, reasons)


def await_proposal(
    proposal_id: str, store: Store, *, wait: float | None = None, queue: ApprovalQueue | None = None
) -> AgentWriteOutcome:
    """Check on (and optionally wait for) an earlier proposal."""
    queue = queue or ApprovalQueue(store.layout)
    try:
        proposal = queue.get(proposal_id)
    except InvalidInput as exc:
        return AgentWriteOutcome("invalid", str(exc))
    if proposal is None:
        return AgentWriteOutcome("missing", f"No proposal {proposal_id} in this state root.")
    reasons = proposal.reasons
    reason = reasons[0] if reasons else ""
    if queue.is_pending(proposal_id) and queue.read_result(proposal_id) is None and not queue.context_center_open():
        return _no_context_center(proposal.tool, proposal, reason, reasons)
    seconds = _wait_seconds(wait, store)
    outcome = queue.wait_for_result(proposal_id, seconds, store)
    return _from_wait(proposal.tool, proposal, outcome, seconds, reason, reasons)

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

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..paths import Layout
from ..store.atomic import ensure_dir
from ..store.model import InvalidInput
from . import stamps
from .auto_writes import AutoWriteLog
from .deciding import Deciding
from .policy import Assessment, ForgetAssessment, assess_forget, assess_remember, forget_targets
from .presence import PresenceMarker, open_context_centers
from .proposals import (
    STALE_SECONDS,
    TOOLS,
    ApprovalError,
    PresenceInfo,
    Proposal,
    ProposalPreview,
    Requester,
    as_int,
    as_str,
    planned_fact,
)
from .queue_files import pinned_targets, remember_target, same_root, write_json
from .remember_args import remember_request
from .waiting import AgentWaiting

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["ApprovalQueue"]


class ApprovalQueue(Deciding, AgentWaiting, AutoWriteLog):
    """The approval queue of one state root (``layout.approvals_dir``).

    Its roles live in sibling modules: files and reading (:mod:`.queue_files`), deciding
    (:mod:`.deciding`) and crash recovery (:mod:`.recovery`), the agent's wait
    (:mod:`.waiting`), automatic writes (:mod:`.auto_writes`), presence (:mod:`.presence`).
    """

    # ------------------------------------------------------------------ presence

    def presence(self, stale_after: float = STALE_SECONDS) -> list[PresenceInfo]:
        """Open Context Centers: live pid (same host) and a fresh heartbeat; dead ones are cleaned up."""
        return open_context_centers(self.presence_dir, stale_after)

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
        if not same_root(layout.root, self.layout.root):
            raise ApprovalError("the store belongs to another state root than this approval queue")
        pinned: dict[str, Any]
        if tool == "remember":
            target = remember_target(arguments, store)
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
            id=stamps.new_id("p"),
            tool=tool,
            arguments=dict(arguments),
            workspace=str(layout.workspace),
            state_root=str(layout.root),
            store_dirs={"project": str(layout.project_dir), "global": str(layout.global_dir)},
            assessment=assessment.to_dict(),
            reasons=tuple(assessment.reasons) or (assessment.reason,),
            created_at=stamps.now(),
            requester=requester or Requester.current(),
            pinned=pinned,
        )
        ensure_dir(self.proposals_dir, 0o700)
        path = self.proposals_dir / f"{proposal.id}.json"
        write_json(path, proposal.to_dict())
        return replace(proposal, path=str(path))

    # ------------------------------------------------------------------ preview

    def preview(self, proposal: Proposal, store: Store | None = None) -> ProposalPreview:
        """Fresh facts for the approval modal: current target, policy rerun, subject holder."""
        st = self._store_for(proposal, store)
        if proposal.tool == "forget":
            ref = str(proposal.arguments.get("ref", ""))
            fa = assess_forget(ref, st)
            now = {str(f.id): f for f in fa.targets}
            stale = any(
                now.get(as_str(t.get("id"))) is None or now[as_str(t.get("id"))].revision != as_int(t.get("revision"))
                for t in pinned_targets(proposal)
            )
            return ProposalPreview(proposal, fa.targets[0] if fa.targets else None, fa.targets, None, fa, None, stale)
        try:
            request = remember_request(proposal.arguments)
        except InvalidInput as exc:
            return ProposalPreview(proposal, None, (), None, None, None, False, str(exc))
        current = remember_target(proposal.arguments, st)
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

    # ------------------------------------------------------------------ iteration helpers

    def __iter__(self) -> Iterator[Proposal]:
        return iter(self.pending())

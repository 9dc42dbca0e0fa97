"""What the approval dialog shows about one proposal (no textual import).

:func:`proposal_view` turns a queued :class:`~reasonix_tui.core.agent.proposals.Proposal`, its
fresh :class:`~reasonix_tui.core.agent.proposals.ProposalPreview` and the current snapshot into
a :class:`ProposalView`: the fact as it would be written (every field, kept ones included),
a diff of the file against the current revision for updates, the subject holder,
sensitive findings (``core.secrets``), the policy's reasons, a conflict note when the
fact moved on since the proposal was made, the digest the decision is bound to, and
whether the agent still waits. It is computed in a worker (a big proposal takes a while)
and bounds what is drawn: a body or diff beyond :data:`SHOWN_CHARS` is cut, and the
dialog says so.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...core.agent.proposals import Proposal, ProposalPreview, Requester, WaitInfo
from ...core.agent.secrets import findings
from ...core.store.fileformat import render_fact
from ...core.store.model import Fact, normalize_fact_scope, normalize_subject_key, parse_reference
from ...core.store.requests import remember_request_name
from .snapshot import CenterSnapshot

__all__ = ["ProposalView", "Decision", "proposal_view", "SHOWN_CHARS", "NOISE_KEYS"]

SHOWN_CHARS = 20_000
"""Most characters of a body (and of each side of a diff) drawn in the dialog."""

NOISE_KEYS = ("revision", "updated_at")
"""Frontmatter lines every update changes; the diff hides them unless asked (``f``)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """What the person chose in the approval dialog."""

    action: str
    """``approve``, ``deny``, ``edit``, ``later`` (or ``gone`` when closed by the app)."""
    digest: str = ""
    """The :attr:`~reasonix_tui.core.agent.proposals.Proposal.digest` of the content shown."""


@dataclass(frozen=True)
class ProposalView:
    """Everything the approval dialog shows."""

    id: str
    """Proposal id."""
    tool: str
    """``remember`` or ``forget``."""
    kind: str
    """``create``, ``update`` or ``forget``."""
    name: str
    """Fact name (derived as the policy does when not given)."""
    title: str
    """Title."""
    type: str
    """Fact type."""
    scope: str
    """Scope."""
    activation: str
    """Activation asked for (``""``: default)."""
    activation_resolved: str
    """What the written fact's activation resolves to (``pinned`` / ``relevant``; ``""`` unknown)."""
    activation_note: str
    """Why it resolves so when nobody asked (``""`` when asked or unknown)."""
    description: str
    """Description."""
    body: str
    """Full body."""
    args: Mapping[str, Any]
    """The tool arguments as proposed."""
    current: Fact | None
    """The active fact this proposal updates or forgets."""
    diff: str
    """Unified diff of the current file against the file as it would be written (updates),
    without the :data:`NOISE_KEYS` lines."""
    subject_key: str
    """Normalised subject key."""
    subject_holder: Fact | None
    """The fact holding that subject in the target scope (when not the target itself)."""
    sensitive: tuple[str, ...]
    """What looks like a secret: one label per kind found (``an e-mail address``...)."""
    reasons: tuple[str, ...]
    """Why the policy asks a person."""
    conflict: str
    """Why applying would be refused now (the fact changed), or ``""``."""
    requester: str
    """Who asked (agent, how, process), one line."""
    created_at: str
    """When it was proposed (RFC 3339)."""
    digest: str = ""
    """Digest of the proposal file this view was built from (the decision is bound to it)."""
    planned: Fact | None = None
    """Remember: the fact as it would be written now (every field)."""
    diff_full: str = ""
    """The same diff with every line (``revision``, ``updated_at`` included)."""
    changed: bool = False
    """The proposal file changed after the person first saw it: this is the new content."""
    waiting: WaitInfo = field(default_factory=lambda: WaitInfo("none"))
    """Whether the proposing agent still waits for the answer."""
    cut: tuple[str, ...] = ()
    """What is not drawn in full (``body``, ``diff``), each with its size: the dialog says so."""
    body_chars: int = 0
    """Length of the body (``len(body)`` before cutting)."""


def _find_target(args: Mapping[str, Any], snapshot: CenterSnapshot, tool: str) -> Fact | None:
    fact_id = str(args.get("id") or "").strip()
    if fact_id and fact_id in snapshot.facts:
        return snapshot.facts[fact_id]
    ref = str(args.get("ref") or args.get("name") or "").strip() if tool == "forget" else remember_request_name(args)
    if not ref:
        return None
    parsed = parse_reference(ref)
    scope = parsed.scope or (normalize_fact_scope(args.get("scope")) if args.get("scope") else "")
    name_key = "name:" + parsed.name
    keys = [key for key, src in snapshot.sources.items() if name_key in src.keys or src.key == parsed.raw]
    if scope:
        keys = [k for k in keys if snapshot.sources[k].scope == scope]
    keys.sort(key=lambda k: 0 if snapshot.sources[k].scope == "project" else 1)
    return snapshot.facts.get(keys[0]) if keys else None


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS]


def _file_diff(current: Fact, planned: Fact, *, full: bool) -> str:
    """The file as it is against the file as it would be written (bounded)."""

    def lines(fact: Fact) -> list[str]:
        out = _cut(render_fact(fact)).splitlines()
        if not full:
            out = [line for line in out if line.split(":", 1)[0] not in NOISE_KEYS]
        return out

    return "\n".join(
        difflib.unified_diff(
            lines(current),
            lines(planned),
            f"{current.ref} revision {current.revision} (current)",
            f"as it would be written (revision {planned.revision})",
            lineterm="",
        )
    )


def _sensitive(args: Mapping[str, Any]) -> tuple[str, ...]:
    """What looks like a secret in the text fields, one label per kind."""
    text = "\n".join(
        str(args.get(k) or "") for k in ("name", "title", "description", "keywords", "subject_key", "body")
    )
    return tuple(dict.fromkeys(finding.label for finding in findings(text)))


def _sensitive_labels(args: Mapping[str, Any], tool: str, preview: ProposalPreview | None) -> tuple[str, ...]:
    """The labels of what looks like a secret, from the policy's fresh run when there is one."""
    fresh = preview.assessment if preview is not None else None
    if fresh is not None and tool != "forget" and hasattr(fresh, "sensitive"):
        # The policy's fresh run already scanned every field: do not scan a big body twice.
        return tuple(dict.fromkeys(f.label for f in fresh.sensitive))
    return _sensitive(args)


def _update_diffs(current: Fact | None, planned: Fact | None, cut: list[str]) -> tuple[str, str]:
    """The update's diff without and with the :data:`NOISE_KEYS` lines (notes a cut in ``cut``)."""
    if current is None or planned is None:
        return "", ""
    size = max(len(current.body), len(planned.body))
    if size > SHOWN_CHARS:
        cut.append(f"diff: the first {SHOWN_CHARS:,} characters of each side of {size:,}")
    return _file_diff(current, planned, full=False), _file_diff(current, planned, full=True)


def _snapshot_holder(snapshot: CenterSnapshot, subject: str, scope: str, current: Fact | None) -> Fact | None:
    """The fact of ``snapshot`` holding ``subject`` in ``scope``, when not ``current`` itself."""
    if not subject:
        return None
    for key, src in snapshot.sources.items():
        if src.subject == subject and src.scope == scope and (current is None or src.key != current.id):
            return snapshot.facts.get(key)
    return None


def _expected_conflict(args: Mapping[str, Any], tool: str, current: Fact | None) -> str:
    """Why the call's own ``expected_revision`` (or a forget's missing target) fails now, or ``""``."""
    expected = args.get("expected_revision")
    try:
        expected_rev = int(str(expected)) if expected not in (None, "") else 0
    except (TypeError, ValueError):
        expected_rev = 0
    if expected_rev > 0:
        if current is None:
            return f"expected revision {expected_rev}, but the fact no longer exists"
        if current.revision != expected_rev:
            return (
                f"the fact changed after this was proposed: expected revision {expected_rev}, found {current.revision}"
            )
        return ""
    if tool == "forget" and current is None:
        return "there is no active fact by that reference (already forgotten?)"
    return ""


def _requester(req: Requester) -> str:
    who = req.agent or "The agent"
    details = ", ".join(
        x for x in (f"via {req.source}" if req.source else "", f"pid {req.pid}" if req.pid else "") if x
    )
    return f"{who} ({details})" if details else who


def _preview_conflict(proposal: Proposal, preview: ProposalPreview, current: Fact | None, name: str) -> str:
    """Why the fresh preview says approving would be refused, or ``""``."""
    if preview.error:
        return f"the request is invalid: {preview.error}"
    if not preview.stale:
        return ""
    if proposal.tool != "remember":
        return "a fact to forget changed or disappeared after this was proposed"
    was = proposal.pinned.get("revision", 0)
    if not was:
        return f"a fact named {current.ref if current else name} was created after this was proposed"
    if current is None:
        return f"revision {was} was proposed against, but the fact is gone"
    return f"the fact changed after this was proposed: it was revision {was}, now {current.revision}"


def proposal_view(
    proposal: Proposal,
    snapshot: CenterSnapshot,
    preview: ProposalPreview | None = None,
    *,
    changed: bool = False,
    waiting: WaitInfo | None = None,
) -> ProposalView:
    """Build the dialog's view of ``proposal`` against ``snapshot`` (blocking: call it in
    a worker).

    ``preview`` is ``ApprovalQueue.preview(proposal)`` (``None`` when it failed): its
    current target, planned fact, subject holder, staleness (the fact moved since the
    proposal) and fresh policy reasons win over what this function works out from the
    snapshot. ``changed`` marks content that replaced what the person saw first.
    """
    tool = proposal.tool
    args = dict(proposal.arguments)
    current = _find_target(args, snapshot, tool)
    if preview is not None and preview.current is not None:
        current = preview.current
    planned = preview.planned if preview is not None and tool != "forget" else None
    if tool == "forget":
        kind = "forget"
    else:
        kind = "update" if current is not None else "create"
    name = remember_request_name(args) if tool != "forget" else str(args.get("ref") or args.get("name") or "")
    cut: list[str] = []
    diff, diff_full = _update_diffs(current, planned, cut) if kind == "update" else ("", "")
    if planned is not None:
        scope, subject = planned.scope, planned.subject_key
    else:
        scope = normalize_fact_scope(str(args.get("scope") or (current.scope if current else "project")))
        subject = normalize_subject_key(str(args.get("subject_key") or (current.subject_key if current else "")))
    holder = _snapshot_holder(snapshot, subject, scope, current) if tool != "forget" else None
    conflict = _expected_conflict(args, tool, current)
    if preview is not None and not conflict:
        conflict = _preview_conflict(proposal, preview, current, name)
        holder = preview.subject_holder
    reasons = proposal.reasons
    if preview is not None and preview.assessment is not None and preview.assessment.reasons:
        reasons = tuple(dict.fromkeys(preview.assessment.reasons))
    body = str(args.get("body") or (current.body if current and tool == "forget" else ""))
    if len(body) > SHOWN_CHARS:
        cut.append(f"body: the first {SHOWN_CHARS:,} of {len(body):,} characters")
    return ProposalView(
        id=proposal.id,
        tool=tool,
        kind=kind,
        name=name or (current.name if current else ""),
        title=str(args.get("title") or (current.title if current and tool == "forget" else "")),
        type=planned.type if planned is not None else str(args.get("type") or (current.type if current else "project")),
        scope=scope,
        activation=str(args.get("activation") or ""),
        activation_resolved=preview.activation if preview is not None and tool != "forget" else "",
        activation_note=preview.activation_note if preview is not None and tool != "forget" else "",
        description=str(args.get("description") or (current.description if current and tool == "forget" else "")),
        body=_cut(body),
        args=args,
        current=current,
        diff=diff,
        subject_key=subject,
        subject_holder=holder,
        sensitive=_sensitive_labels(args, tool, preview),
        reasons=reasons,
        conflict=conflict,
        requester=_requester(proposal.requester),
        created_at=proposal.created_at,
        digest=proposal.digest,
        planned=planned,
        diff_full=diff_full,
        changed=changed,
        waiting=waiting if waiting is not None else WaitInfo("none"),
        cut=tuple(cut),
        body_chars=len(body),
    )

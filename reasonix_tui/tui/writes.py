"""The Context Center's writes, as plain functions over the store API (no textual import).

Every function takes a ``Store`` built with actor ``context-center`` and returns an
:class:`Outcome` the app shows. Expected refusals (pinned budget, subject holder,
revision conflict, recover collisions) are raised by the store as ``StoreError`` with
the spec's text; the app's write worker turns them into a notification. The form's
expiry and derived name follow ``store.requests`` (``parse_expires_at``,
``remember_request_name``), as every other surface that writes a fact does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.agent.approvals import ApprovalQueue
from ..core.agent.proposals import ApprovalResult, AutoWrite, Proposal, ProposalChanged
from ..core.compat.gotime import Timestamp
from ..core.paths import Layout
from ..core.store.fields import EDITABLE_FIELDS
from ..core.store.model import Fact, InvalidInput, StoreError
from ..core.store.requests import SaveRequest, parse_expires_at, remember_request_name
from ..core.store.results import SaveResult
from ..core.store.store import Store

__all__ = [
    "Outcome",
    "FactFormValues",
    "form_from_fact",
    "pin",
    "verify",
    "forget",
    "many",
    "save_form",
    "restore",
    "recover",
    "decide",
    "finish_interrupted",
    "undo_auto_write",
    "accept_suggestion",
    "dismiss_suggestion",
    "quick_add",
    "HealthUndo",
    "health_fix",
    "merge_form",
    "health_merge",
    "health_dismiss",
    "health_undo",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a write did."""

    text: str
    """One line for the person."""
    fact_id: str | None = None
    """The fact written (kept selected)."""
    warnings: tuple[str, ...] = ()
    """Warnings from the store (superseded value...)."""
    paths: tuple[str, ...] = ()
    """Files the write touched (the app re-reads only these; empty: re-read everything)."""
    refresh: tuple[str, ...] = ()
    """Sidecars to read again afterwards (``suggestions``, ``instructions``, ``approvals``)."""
    approval: ApprovalResult | None = None
    """The result of an approval decision."""
    changed: Proposal | None = None
    """An approve the core refused because the proposal changed since it was shown."""
    proposal_id: str = ""
    """The proposal an approval job was about."""
    ok: bool = True
    """False when the write was refused (``text`` says why)."""


@dataclass(frozen=True, slots=True)
class FactFormValues:
    """The fields of the new/edit form (strings as typed)."""

    name: str = ""
    """Name or reference (slugged by the store)."""
    title: str = ""
    """Title."""
    description: str = ""
    """One-line description (required)."""
    type: str = "project"
    """``user``, ``feedback``, ``project``, ``reference``."""
    scope: str = "project"
    """``project`` or ``global``."""
    activation: str = ""
    """``""`` (inherit / default), ``relevant`` or ``pinned``."""
    volatility: str = ""
    """``""``, ``evergreen``, ``stable``, ``volatile``."""
    subject_key: str = ""
    """Subject key."""
    keywords: str = ""
    """Search aliases."""
    expires_at: str = ""
    """``""`` (keep), ``never``, RFC3339 or ``YYYY-MM-DD``."""
    body: str = ""
    """Markdown body (required)."""
    verified: bool = False
    """Mark verified now."""


def form_from_fact(fact: Fact) -> FactFormValues:
    """The form pre-filled from an existing fact."""
    values: dict[str, Any] = {}
    for field in EDITABLE_FIELDS:
        value = getattr(fact, field.name)
        values[field.name] = (value.rfc3339() if value else "") if field.kind == "time" else value
    return FactFormValues(**values)


def _save_paths(result: SaveResult | None) -> tuple[str, ...]:
    """Files a ``SaveResult`` touched: the fact, where it was before, anything archived."""
    if result is None:
        return ()
    paths = [result.fact.path]
    if result.previous is not None:
        paths.append(result.previous.path)
    paths.extend(result.archived)
    return tuple(p for p in dict.fromkeys(paths) if p)


def _warnings(result: SaveResult | None) -> tuple[str, ...]:
    return result.warnings if result is not None else ()


def pin(store: Store, ref: str, pinned: bool) -> Outcome:
    """Pin or unpin (the store checks the pinned budget)."""
    result = store.set_activation(ref, "pinned" if pinned else "relevant")
    fact = result.fact
    if not result.changed:
        return Outcome(f"{fact.ref} is already {'pinned' if pinned else 'relevant'}.", str(fact.id))
    verb = "Pinned" if pinned else "Unpinned"
    return Outcome(
        f"{verb} {fact.ref} (revision {fact.revision}).",
        str(fact.id),
        _warnings(result.result),
        _save_paths(result.result),
    )


def verify(store: Store, ref: str) -> Outcome:
    """Mark verified now (renews the freshness clock)."""
    result = store.verify(ref)
    fact = result.fact
    return Outcome(
        f"Verified {fact.ref}: its freshness clock starts now.", str(fact.id), _warnings(result), _save_paths(result)
    )


def forget(store: Store, ref: str) -> Outcome:
    """Archive a fact (the user's own action: no approval)."""
    result = store.archive(ref)
    fact = result.fact
    if fact is None and not result.paths and not result.path:
        # The store's forget is idempotent (as Reasonix's): here, nothing moved is news.
        from ..core.store.model import NotFound

        raise NotFound(f'memory "{ref}" is no longer active; nothing was forgotten')
    what = fact.ref if fact is not None else ref
    paths = [fact.path] if fact is not None and fact.path else []
    paths.extend(p for p in (result.paths or (result.path,)) if p)
    return Outcome(
        f"Forgot {what}; archived to {result.path}. Recover it from the Archive pane.", None, (), tuple(paths)
    )


def many(store: Store, action: str, refs: tuple[str, ...]) -> Outcome:
    """``verify`` or ``forget`` several facts, one store write each; every refusal is
    reported, and a refusal does not stop the rest. Raises ``StoreError`` only when
    nothing could be done."""
    one = verify if action == "verify" else forget
    done: list[Outcome] = []
    refused: list[str] = []
    for ref in refs:
        try:
            done.append(one(store, ref))
        except StoreError as exc:
            refused.append(f"{ref}: {exc}")
    verb = "Verified" if action == "verify" else "Forgot"
    if not done:
        raise StoreError(f"{verb} none of {len(refs)}: " + "; ".join(refused[:3]) + ("…" if len(refused) > 3 else ""))
    text = f"{verb} {len(done)} fact{'s' if len(done) != 1 else ''}"
    text += (
        "."
        if not refused
        else f"; {len(refused)} refused: " + "; ".join(refused[:3]) + ("…" if len(refused) > 3 else "")
    )
    if action == "forget":
        text += " They are in the Archive pane."
    paths = tuple(p for o in done for p in o.paths)
    warnings = tuple(w for o in done for w in o.warnings)
    return Outcome(text, None, warnings, paths)


def _form_fields(values: FactFormValues) -> tuple[dict[str, Any], Timestamp | None, bool]:
    """The request fields the form gives as typed (text trimmed, the body as is), its
    expiry parsed (``parse_expires_at``: the time, and whether to clear it); a form
    without a description or a body is refused."""
    if not values.description.strip() or not values.body.strip():
        raise InvalidInput("description and body are required")
    return _typed_fields(values)


def _typed_fields(values: FactFormValues) -> tuple[dict[str, Any], Timestamp | None, bool]:
    """:func:`_form_fields` without the check for a description and a body."""
    expires_at, clear = parse_expires_at(values.expires_at)
    fields = {
        "title": values.title.strip(),
        "description": values.description.strip(),
        "type": values.type,
        "scope": values.scope,
        "keywords": values.keywords.strip(),
        "subject_key": values.subject_key.strip(),
        "activation": values.activation,
        "volatility": values.volatility,
        "verified": values.verified,
        "body": values.body,
    }
    return fields, expires_at, clear


def save_form(
    store: Store,
    values: FactFormValues,
    *,
    fact_id: str | None = None,
    expected_revision: int | None = None,
) -> Outcome:
    """Create (no ``fact_id``) or update a fact, guarded by ``expected_revision``."""
    fields, expires_at, clear = _form_fields(values)
    # As the remember tool derives it (store-format §7): the name, else (a new fact) the
    # title, else the description.
    name = remember_request_name(
        {"name": values.name, "title": values.title, "description": values.description, "id": fact_id}
    )
    request = SaveRequest(name=name, expires_at=expires_at, id=fact_id or "", **fields)
    result = store.save(
        request,
        expected_revision=expected_revision,
        require_create=fact_id is None,
        clear_expiry=clear,
    )
    fact = result.fact
    verb = "Created" if result.created else "Saved"
    return Outcome(
        f"{verb} {fact.ref} (revision {fact.revision}).", str(fact.id), _warnings(result), _save_paths(result)
    )


def restore(store: Store, ref: str, revision: int) -> Outcome:
    """Bring an old revision back as a new one."""
    result = store.restore(ref, revision)
    fact = result.fact
    return Outcome(
        f"Restored revision {revision} of {fact.ref} as revision {fact.revision}.",
        str(fact.id),
        _warnings(result),
        _save_paths(result),
    )


def recover(store: Store, path: str) -> Outcome:
    """Recover an archived fact (the store explains collisions)."""
    result = store.recover(path)
    fact = result.fact
    return Outcome(
        f"Recovered {fact.ref} (revision {fact.revision}).",
        str(fact.id),
        _warnings(result),
        (*_save_paths(result), path),
    )


# ----------------------------------------------------------------- approvals


def decide(
    store: Store, queue: ApprovalQueue, proposal_id: str, action: str, digest: str, edits: dict[str, Any] | None = None
) -> Outcome:
    """Apply the person's decision on a proposal, bound to the ``digest`` they were shown
    (``ApprovalQueue.apply``); a proposal that changed since comes back in
    :attr:`Outcome.changed` with nothing written."""
    try:
        result = queue.apply(proposal_id, action, edits=edits, store=store, digest=digest)
    except ProposalChanged as exc:
        return Outcome(str(exc), changed=exc.proposal, proposal_id=proposal_id, refresh=("approvals",))
    except (StoreError, OSError) as exc:  # invalid edits, already decided...: it stays as it is
        return Outcome(str(exc), proposal_id=proposal_id, refresh=("approvals",), ok=False)
    fact_id = result.fact_id if result.state == "approved" and result.tool == "remember" else None
    return Outcome(result.message, fact_id, (), result.paths, ("approvals",), result, None, proposal_id)


def finish_interrupted(store: Store, queue: ApprovalQueue) -> Outcome:
    """Finish approvals a crash interrupted after their write landed (``""`` text: none)."""
    done = queue.finish_interrupted(store)
    if not done:
        return Outcome("", refresh=("approvals",))
    text = " ".join(r.notice for r in done)
    paths = tuple(p for r in done for p in r.paths)
    return Outcome(text, done[-1].fact_id or None, (), paths, ("approvals",))


def undo_auto_write(store: Store, queue: ApprovalQueue, record: AutoWrite) -> Outcome:
    """Undo the agent's unasked write while the fact is still at the written revision."""
    res = queue.undo_auto_write(record, store=store)
    if record.is_update:
        text = f"Undone: {record.ref} has revision {record.previous_revision}'s content again (as revision {res.fact.revision})."
        return Outcome(text, str(res.fact.id), (), _save_paths(res), ("approvals",))
    paths = tuple(p for p in (*(res.paths or ()), res.path, res.fact.path if res.fact is not None else "") if p)
    return Outcome(f"Undone: {record.ref} moved to the archive.", None, (), paths, ("approvals",))


# ----------------------------------------------------------------- suggestions and notes


def accept_suggestion(store: Store, suggestion_id: str, values: FactFormValues) -> Outcome:
    """Accept a suggestion with the person's edits (their own write)."""
    from ..core.sessions.suggestions import SuggestionEdits
    from ..core.sessions.suggestions import accept_suggestion as accept
    from ..core.sessions.suggestions.model import suggested_fields

    # What the form holds beyond a suggestion's own fields (pin, keywords, subject key, …)
    # is saved too: the form shows every field, so none is dropped silently.
    fields, expires_at, _clear = _typed_fields(values)
    carried = {f.name for f in suggested_fields()}
    extra = {k: v for k, v in fields.items() if k not in carried}
    if expires_at is not None:
        extra["expires_at"] = expires_at
    result = accept(
        store.layout,
        suggestion_id,
        SuggestionEdits.from_values(values),
        store=store,
        actor="context-center",
        extra=extra,
    )
    fact = result.fact
    if fact is not None:
        return Outcome(
            f"Accepted: saved {fact.ref} (revision {fact.revision}).",
            str(fact.id),
            (),
            tuple(p for p in (fact.path,) if p),
            ("suggestions",),
        )
    return Outcome(f"Accepted: wrote {result.path}.", None, (), (), ("suggestions",))


def dismiss_suggestion(store: Store, suggestion_id: str) -> Outcome:
    """Dismiss a suggestion for good."""
    from ..core.sessions.suggestions import dismiss_suggestion as dismiss

    dismiss(store.layout, suggestion_id, store)
    return Outcome("Dismissed: it will not be suggested again.", refresh=("suggestions",))


def quick_add(layout: Layout, scope: str, note: str) -> Outcome:
    """Append a note to the standing instructions of ``scope``."""
    from .reads import quick_add as add

    return Outcome(add(layout, scope, note), refresh=("instructions",))


# ----------------------------------------------------------------- memory health


@dataclass(frozen=True, slots=True)
class HealthUndo:
    """How to take back one health fix: the store steps of a fix or merge, or a dismissal."""

    label: str
    """What it takes back, for the person (``archive of project/x.md``)."""
    fix: Any = None
    """The :class:`~reasonix_tui.core.health.fixes.FixOutcome` to undo, or ``None``."""
    fingerprint: str = ""
    """A dismissed finding's fingerprint (undo restores it)."""


def _health_paths(outcomes: list[Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p for o in outcomes for p in o.paths if p))


def health_fix(store: Store, finding: Any, action: str, undo: list[HealthUndo]) -> Outcome:
    """Apply a store fix of a health finding (``archive``: every fact the finding offers to
    archive; ``verify``, ``unpin``, ``pin``: the first such fix), refused when a fact changed
    since the finding was computed. What can be taken back is appended to ``undo``."""
    from ..core.health.fixes import FixOutcome, apply_fix

    fixes = [f for f in finding.fixes if f.action == action]
    if action != "archive":
        fixes = fixes[:1]
    if not fixes:
        raise InvalidInput(f"this finding offers no {action} fix")
    done: list[FixOutcome] = []
    refused: list[str] = []
    for fix in fixes:
        try:
            done.append(apply_fix(store, finding, fix))
        except StoreError as exc:
            if not done and len(fixes) == 1:
                raise
            refused.append(str(exc))
    if not done:
        raise StoreError("; ".join(refused))
    steps = tuple(u for o in done for u in o.undo)
    text = "; ".join(o.text for o in done)
    text = text[:1].upper() + text[1:] + "."
    if refused:
        text += " Refused: " + "; ".join(refused)
    if steps:
        undo.append(
            HealthUndo(f"{action} ({finding.label})", FixOutcome(text, done[0].fact_id, _health_paths(done), steps))
        )
        text += " U undoes it."
    return Outcome(text, done[0].fact_id or None, (), _health_paths(done), ("health",))


def merge_form(facts: list[Fact], keep_id: str) -> tuple[Any, FactFormValues]:
    """The merged draft of ``facts`` into ``keep_id`` and the fact form pre-filled with it."""
    from ..core.health.fixes import merged_draft

    draft = merged_draft(facts, keep_id)
    values = FactFormValues(
        name=draft.name,
        title=draft.title,
        description=draft.description,
        type=draft.type,
        scope=draft.scope,
        activation=draft.activation,
        volatility=draft.volatility,
        subject_key=draft.subject_key,
        keywords=draft.keywords,
        expires_at=draft.expires_at.rfc3339() if draft.expires_at else "",
        body=draft.body,
    )
    return draft, values


def health_merge(store: Store, finding: Any, draft: Any, values: FactFormValues, undo: list[HealthUndo]) -> Outcome:
    """Save the merged fact as edited in the form and archive the finding's other facts
    (:func:`~reasonix_tui.core.health.fixes.save_merge`: refused before anything is
    written when a fact changed since the finding)."""
    from dataclasses import replace

    from ..core.health.fixes import save_merge

    fields, expires_at, clear = _form_fields(values)
    request = replace(
        draft,
        name=values.name.strip() or draft.name,
        expires_at=None if clear else (expires_at or draft.expires_at),
        **fields,
    )
    outcome = save_merge(store, finding, request)
    text = outcome.text[:1].upper() + outcome.text[1:] + ". U undoes it."
    undo.append(HealthUndo(f"merge ({finding.label})", outcome))
    return Outcome(text, outcome.fact_id or None, (), outcome.paths, ("health",))


def health_dismiss(store: Store, finding: Any, undo: list[HealthUndo]) -> Outcome:
    """Dismiss a finding for good (kept in the state root by fingerprint, so it comes back
    only when one of its facts changes); audited as ``health-dismiss``."""
    from ..core.health.dismissals import Dismissals

    first = finding.facts[0] if finding.facts else None
    if not Dismissals(store.layout).dismiss(finding):
        return Outcome("Already dismissed.", refresh=("health",))
    store.audit.record(
        "health-dismiss",
        True,
        store.actor,
        workspace=str(store.layout.workspace),
        id=first.id if first else "",
        ref=first.ref if first else finding.path,
        reason=finding.title,
        detail={"kind": finding.kind, "fingerprint": finding.fingerprint},
    )
    undo.append(HealthUndo(f"dismissal ({finding.label})", fingerprint=finding.fingerprint))
    return Outcome(
        "Dismissed: it stays hidden until one of its facts changes. U undoes it.", refresh=("health", "audit")
    )


def health_undo(store: Store, item: HealthUndo) -> Outcome:
    """Take back a health fix (recover what it archived, restore the revision it replaced,
    set an activation back) or a dismissal."""
    from ..core.health.dismissals import Dismissals
    from ..core.health.fixes import undo_fix

    if item.fix is None:
        Dismissals(store.layout).restore(item.fingerprint)
        store.audit.record(
            "health-restore",
            True,
            store.actor,
            workspace=str(store.layout.workspace),
            detail={"fingerprint": item.fingerprint},
        )
        return Outcome(f"Undone: the {item.label} — the finding is shown again.", refresh=("health", "audit"))
    text = undo_fix(store, item.fix)
    paths = tuple(item.fix.paths)
    return Outcome(f"Undone {item.label}: {text}.", item.fix.fact_id or None, (), paths, ("health",))

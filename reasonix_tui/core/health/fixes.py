"""What a fix does, through the store's own operations (audited like every other write).

* ``archive`` → :meth:`Store.archive` (forget: the file moves to ``.archive/``; undo is a
  recover of that path);
* ``verify`` → :meth:`Store.verify` (not undoable: any new revision renews the clock);
* ``unpin`` / ``pin`` → :meth:`Store.set_activation` (undo sets it back);
* ``merge`` → :func:`merged_draft` gives the fact form its pre-filled request;
  :func:`save_merge` saves it and archives the others;
* ``edit`` and ``dismiss`` are not store writes (an editor; :class:`~.dismissals.Dismissals`).

Every write first checks that the fact is still at the revision the finding showed: a
fact changed since is refused with :class:`~reasonix_tui.core.store.model.Conflict`, never
acted on blindly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..compat.gostr import trim_space
from ..store.model import Conflict, Fact, InvalidInput, NotFound, normalize_subject_key, normalized_phrase
from .model import FactRef, Finding, Fix

if TYPE_CHECKING:
    from ..store.requests import SaveRequest
    from ..store.store import Store

__all__ = ["FixOutcome", "Undo", "apply_fix", "undo_fix", "merged_draft", "save_merge", "current_fact"]

STORE_ACTIONS = ("archive", "verify", "unpin", "pin")
"""Fix actions :func:`apply_fix` performs."""


@dataclass(frozen=True, slots=True)
class Undo:
    """How to take a fix back: ``recover`` an archive path, ``restore`` the revision from
    before (as a new revision), or set an ``activation`` back."""

    action: str
    """``recover``, ``restore`` or ``activation``."""
    fact_id: str = ""
    path: str = ""
    revision: int = 0
    activation: str = ""


@dataclass(frozen=True, slots=True)
class FixOutcome:
    """What a fix did."""

    text: str
    """One line for the person."""
    fact_id: str = ""
    """The fact acted on."""
    paths: tuple[str, ...] = ()
    """Files written or moved."""
    undo: tuple[Undo, ...] = ()
    """How to take it back (empty: it cannot be)."""


def current_fact(store: Store, ref: FactRef) -> Fact:
    """The active fact ``ref`` names, refused when it changed since the finding."""
    fact = store.find_by_id(ref.id)
    if fact is None:
        raise NotFound(f"{ref.ref} is no longer active; refresh the findings")
    if fact.revision != ref.revision:
        raise Conflict(
            f"{ref.ref} changed since this finding (revision {ref.revision} → {fact.revision}); look at it again"
        )
    return fact


def _ref(finding: Finding, fact_id: str) -> FactRef:
    ref = next((r for r in finding.facts if r.id == fact_id), None)
    if ref is None:
        raise InvalidInput(f"fact {fact_id} is not part of this finding")
    return ref


def _other_subject_holder(store: Store, fact: Fact) -> Fact | None:
    """Another active fact of ``fact``'s scope holding its subject key, if any."""
    if not fact.subject_key:
        return None
    for other in store.list_dir(fact.scope):
        if other.id != fact.id and normalize_subject_key(other.subject_key) == normalize_subject_key(fact.subject_key):
            return other
    return None


def apply_fix(store: Store, finding: Finding, fix: Fix, *, actor: str | None = None) -> FixOutcome:
    """Perform a store fix (``archive``, ``verify``, ``unpin``, ``pin``) of ``finding``."""
    if fix.action not in STORE_ACTIONS:
        raise InvalidInput(f"{fix.action} is not a store fix")
    ref = _ref(finding, fix.fact_id)
    with store.mutation():
        fact = current_fact(store, ref)
        if fix.action == "archive":
            holder = _other_subject_holder(store, fact)
            res = store.archive(str(fact.id), actor=actor)
            if not res.path:
                raise NotFound(f"{fact.ref}: nothing archived")
            if holder is not None:
                # RestoreArchived refuses a fact whose subject another active fact holds
                # (spec §4), so no undo is offered that the store would refuse.
                return FixOutcome(
                    f"archived {fact.ref} (in the Archive; it can be recovered once {holder.ref} "
                    f"no longer holds subject {fact.subject_key})",
                    str(fact.id),
                    res.paths,
                )
            return FixOutcome(
                f"archived {fact.ref} (recoverable from the Archive)",
                str(fact.id),
                res.paths,
                (Undo("recover", str(fact.id), path=res.path),),
            )
        if fix.action == "verify":
            saved = store.verify(str(fact.id), actor=actor)
            # not undoable: any new revision (a restore too) renews the freshness clock
            return FixOutcome(saved.message or f"verified {fact.ref}", str(fact.id), (saved.fact.path,))
        target = "relevant" if fix.action == "unpin" else "pinned"
        act = store.set_activation(str(fact.id), target, actor=actor)
        undo = (Undo("activation", str(fact.id), activation=fact.resolved_activation),) if act.changed else ()
        return FixOutcome(act.message, str(fact.id), (act.fact.path,), undo)


def undo_fix(store: Store, outcome: FixOutcome, *, actor: str | None = None) -> str:
    """Take back what :func:`apply_fix` or :func:`save_merge` did (newest step first)."""
    done: list[str] = []
    for step in reversed(outcome.undo):
        if step.action == "recover":
            store.recover(step.path, actor=actor)
            done.append("recovered " + step.fact_id)
        elif step.action == "restore":
            fact = store.get(step.fact_id)
            store.restore(step.fact_id, step.revision, actor=actor)
            done.append(f"restored {fact.ref} revision {step.revision}")
        elif step.action == "activation":
            act = store.set_activation(step.fact_id, step.activation, actor=actor)
            done.append(act.message)
    return "; ".join(done) or "nothing to undo"


_PARAGRAPHS = re.compile(r"\n\s*\n")


def _merge_bodies(keep: str, others: Sequence[str]) -> str:
    seen = {normalized_phrase(p) for p in _PARAGRAPHS.split(keep) if trim_space(p)}
    parts = [trim_space(keep)] if trim_space(keep) else []
    for body in others:
        for para in _PARAGRAPHS.split(body):
            norm = normalized_phrase(para)
            if not norm or norm in seen or any(norm in s for s in seen):
                continue
            seen.add(norm)
            parts.append(trim_space(para))
    return "\n\n".join(parts)


def merged_draft(facts: Sequence[Fact], keep_id: str) -> SaveRequest:
    """The request the fact form opens with to merge ``facts`` into ``keep_id``: that
    fact's fields, its body followed by every paragraph of the others it does not already
    say, keywords of all, and ``supersedes`` naming the others."""
    from ..store.requests import SaveRequest

    keep = next((f for f in facts if str(f.id) == keep_id), None)
    if keep is None:
        raise InvalidInput(f"fact {keep_id} is not among the facts to merge")
    others = [f for f in facts if f is not keep]
    words: dict[str, None] = {}
    for f in [keep, *others]:
        for w in f.keywords.split():
            words.setdefault(w, None)
    supersedes = tuple(dict.fromkeys([*keep.supersedes, *(str(f.id) for f in others)]))
    return SaveRequest.from_fact(
        keep,
        body=_merge_bodies(keep.body, [f.body for f in others]),
        keywords=" ".join(words),
        supersedes=supersedes,
        last_verified_at=keep.last_verified_at,
    )


def save_merge(store: Store, finding: Finding, request: SaveRequest, *, actor: str | None = None) -> FixOutcome:
    """Save the merged fact (as edited in the form) and archive the finding's other facts.

    Refused before anything is written when any fact changed since the finding.
    """
    keep_id = request.id
    with store.mutation():
        facts = [current_fact(store, r) for r in finding.facts]
        keep = next((f for f in facts if str(f.id) == keep_id), None)
        if keep is None:
            raise InvalidInput("the merged fact must be one of the finding's facts")
        saved = store.save(request, expected_revision=keep.revision, actor=actor)
        undo = [Undo("restore", str(keep.id), revision=keep.revision)]
        paths = [saved.fact.path]
        for f in facts:
            if f is keep:
                continue
            res = store.archive(str(f.id), actor=actor)
            if res.path:
                undo.append(Undo("recover", str(f.id), path=res.path))
                paths.extend(res.paths)
        n = len(facts) - 1
        return FixOutcome(
            f"merged {n} fact{'s' if n != 1 else ''} into {saved.fact.ref} (others archived)",
            str(saved.fact.id),
            tuple(paths),
            tuple(undo),
        )

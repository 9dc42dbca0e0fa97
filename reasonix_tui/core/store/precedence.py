"""Project-over-global precedence (store-format §6.2, §6.6): identity keys, overrides and
the pinned guidance of a session prefix.

Pure functions over facts, shared by the store, recall, the CLI and the Context Center.
Reasonix calls these ``recallIdentityKeys``, ``FindOverrides`` and
``pinnedGuidanceForProject``; unlike Reasonix, each decision also says which fact and
which shared key caused it, so the UI and the traces can explain it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..compat.gostr import trim_space
from .model import Fact, normalize_subject_key, normalized_phrase, slug

__all__ = [
    "identity_keys",
    "Exclusion",
    "Override",
    "find_overrides",
    "PinnedGuidance",
    "pinned_guidance",
]


def identity_keys(fact: Fact) -> list[str]:
    """``recallIdentityKeys``: ``id:``, ``name:``, then ``title:`` and ``subject:`` when non-empty."""
    keys = ["id:" + trim_space(fact.id), "name:" + slug(fact.name)]
    title = normalized_phrase(fact.title)
    if title:
        keys.append("title:" + title)
    subject = normalize_subject_key(fact.subject_key)
    if subject:
        keys.append("subject:" + subject)
    return keys


@dataclass(frozen=True, slots=True)
class Exclusion:
    """Why an active fact is not in the automatic-recall pool."""

    fact: Fact
    """The left-out fact."""
    kind: str
    """``pinned``, ``suppressed`` or ``superseded`` (the subject/topic resolver)."""
    by: Fact | None = None
    """For ``suppressed``: the fact that already holds the shared identity key."""
    key: str = ""
    """For ``suppressed``: the shared key (``name:deploy-target``...)."""

    @property
    def explanation(self) -> str:
        """One line for a person, read after the kind (``pinned: …``, ``suppressed: …``)."""
        if self.kind == "pinned":
            return "its body rides the pinned channel, so recall skips it"
        assert self.by is not None
        if self.kind == "superseded":
            return f"by {self.by.scope} fact {self.by.id} ({self.by.ref}): {self.key}"
        return f"by {self.by.scope} fact {self.by.id} ({self.by.ref}); shared key {self.key}"


@dataclass(frozen=True, slots=True)
class Override:
    """A project fact that shadows an equivalent global fact (``FindOverrides``)."""

    project: Fact
    """The project fact that wins."""
    global_fact: Fact
    """The shadowed global fact."""
    key: str
    """The first shared identity key (``id``, ``name``, ``title``, ``subject`` order)."""


def find_overrides(all_facts: Sequence[Fact]) -> list[Override]:
    """``FindOverrides``: project-over-global decisions, sorted by project name then global id."""
    projects: dict[str, Fact] = {}
    for fact in all_facts:
        if fact.scope != "project":
            continue
        for key in identity_keys(fact):
            projects[key] = fact  # a later project fact wins a repeated key
    seen: set[tuple[str, str, str, str]] = set()
    out: list[Override] = []
    for fact in all_facts:
        if fact.scope != "global":
            continue
        for key in identity_keys(fact):
            project = projects.get(key)
            if project is None:
                continue
            pair = (project.id, fact.id, project.name, fact.name)
            if pair not in seen:
                seen.add(pair)
                out.append(Override(project=project, global_fact=fact, key=key))
            break
    out.sort(key=lambda o: (o.project.name, o.global_fact.id))
    return out


@dataclass(frozen=True, slots=True)
class PinnedGuidance:
    """Pinned facts for the session prefix, after project-over-global suppression."""

    facts: tuple[Fact, ...]
    """Pinned facts with a non-empty body, most recently updated first (then name)."""
    suppressed: tuple[Exclusion, ...]
    """Global pinned facts shadowed by an equivalent project fact."""

    @property
    def chars(self) -> int:
        """``PrefixCost.PinnedChars``: runes of the trimmed pinned bodies."""
        return sum(len(trim_space(f.body)) for f in self.facts)


def _ns(fact: Fact) -> int:
    return fact.updated_at.ns if fact.updated_at is not None else -(1 << 62)


def pinned_guidance(
    all_facts: Sequence[Fact], has_project_dir: bool = True, *, resolved: bool = False
) -> PinnedGuidance:
    """``pinnedGuidanceForProject`` over every active fact of both scopes.

    A global pinned fact is dropped when any project fact (pinned or not) shares one of
    its identity keys; keys ending in ``:`` are ignored. Project pinned facts stay.

    ``resolved`` (enhanced mode) also applies the subject/topic resolver
    (:func:`reasonix_tui.core.resolve.resolve`): a pinned fact that another fact supersedes
    on its subject, overrides as a project fact on its topic, or says it replaced, is left
    out, so the block never carries two values for one subject.
    """
    guidance = [f for f in all_facts if f.pinned and trim_space(f.body)]
    guidance.sort(key=lambda f: (-_ns(f), f.name))
    if resolved and guidance:
        guidance, dropped = _resolved(all_facts, guidance, has_project_dir)
        if dropped:
            rest = pinned_guidance(all_facts, has_project_dir)
            kept = [f for f in rest.facts if any(f is g for g in guidance)]
            already = {id(e.fact) for e in rest.suppressed}
            return PinnedGuidance(tuple(kept), (*rest.suppressed, *(e for e in dropped if id(e.fact) not in already)))
    if not guidance or not has_project_dir:
        return PinnedGuidance(tuple(guidance), ())
    project_keys: dict[str, Fact] = {}
    for fact in all_facts:
        if fact.scope != "project":
            continue
        for key in identity_keys(fact):
            if not key.endswith(":"):
                project_keys.setdefault(key, fact)
    if not project_keys:
        return PinnedGuidance(tuple(guidance), ())
    kept_facts: list[Fact] = []
    suppressed: list[Exclusion] = []
    for fact in guidance:
        holder: tuple[str, Fact] | None = None
        if fact.scope == "global":
            for key in identity_keys(fact):
                if key in project_keys:
                    holder = (key, project_keys[key])
                    break
        if holder is None:
            kept_facts.append(fact)
        else:
            suppressed.append(Exclusion(fact, "suppressed", by=holder[1], key=holder[0]))
    return PinnedGuidance(tuple(kept_facts), tuple(suppressed))


def _resolved(
    all_facts: Sequence[Fact], guidance: list[Fact], has_project_dir: bool
) -> tuple[list[Fact], list[Exclusion]]:
    """Pinned facts that stay current under the resolver, and the ones it leaves out."""
    from ..resolve import resolve

    res = resolve(all_facts if has_project_dir else [f for f in all_facts if f.scope == "global"])
    kept: list[Fact] = []
    dropped: list[Exclusion] = []
    for fact in guidance:
        sup = res.of(fact)
        if sup is None or not sup.certain:
            kept.append(fact)
        else:
            dropped.append(Exclusion(fact, "superseded", by=res.current(fact), key=sup.evidence))
    return kept, dropped

"""The recall pool, identity keys and project-over-global suppression (store-format §6.2, §6.6).

Pure functions over facts; nothing here reads files.

* :func:`list_all_order` sorts like ``ListAll``: name, then scope (``global`` before
  ``project``), then id.
* :func:`build_pool` is ``recallMemories``: pinned facts are dropped (their bodies
  already ride the pinned channel), project facts are kept in order, then global
  facts are added unless one of their identity keys was already seen. Unlike Reasonix
  it also says *why* each left-out fact was left out, for the trace.
* :func:`pinned_guidance` is ``pinnedGuidanceForProject``.
* :func:`find_overrides` is ``FindOverrides``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..store.model import Fact
from ..store.precedence import (
    Exclusion,
    Override,
    PinnedGuidance,
    find_overrides,
    identity_keys,
    pinned_guidance,
)

__all__ = [
    "identity_keys",
    "list_all_order",
    "build_pool",
    "Pool",
    "Exclusion",
    "pinned_guidance",
    "PinnedGuidance",
    "Override",
    "find_overrides",
]


def list_all_order(facts: Iterable[Fact]) -> list[Fact]:
    """``ListAll`` order: name, scope, id (stable for exact duplicates)."""
    return sorted(facts, key=lambda f: (f.name, f.scope, f.id))


@dataclass(frozen=True, slots=True)
class Pool:
    """The automatic-recall pool and what was left out of it."""

    facts: tuple[Fact, ...]
    """Pool facts: project facts in ``ListAll`` order, then surviving global facts."""
    excluded: tuple[Exclusion, ...]
    """Pinned and suppressed facts, in ``ListAll`` order."""


def build_pool(all_facts: Sequence[Fact]) -> Pool:
    """``recallMemories`` over facts already in ``ListAll`` order."""
    project: list[Fact] = []
    global_: list[Fact] = []
    excluded: list[Exclusion] = []
    for fact in all_facts:
        if fact.pinned:
            excluded.append(Exclusion(fact, "pinned"))
        elif fact.scope == "global":
            global_.append(fact)
        else:
            project.append(fact)
    from .memo import FACT_MEMO

    def keys_of(fact: Fact) -> list[str]:
        return FACT_MEMO.get(fact, "identity", identity_keys)  # type: ignore[no-any-return]  # the memo holds identity_keys

    seen: dict[str, Fact] = {}
    for fact in project:
        for key in keys_of(fact):
            seen.setdefault(key, fact)
    out = list(project)
    for fact in global_:
        keys = keys_of(fact)
        holder: tuple[str, Fact] | None = None
        for key in keys:
            if key in seen:
                holder = (key, seen[key])
                break
        if holder is not None:
            excluded.append(Exclusion(fact, "suppressed", by=holder[1], key=holder[0]))
            continue
        out.append(fact)
        for key in keys:
            seen.setdefault(key, fact)
    return Pool(facts=tuple(out), excluded=tuple(excluded))

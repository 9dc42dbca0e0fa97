"""Listing suggestions: the ranked candidates (computed, or from the result cache), then
what the person dismissed or accepted, the threshold and the cap applied.

Accepting, dismissing and restoring are in :mod:`.accept`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...compat.gostr import trim_space
from ...compat.gotime import Timestamp
from ...paths import Layout
from ...settings import load_settings
from ...store.model import NotFound
from .mining import list_transcripts, mine_sessions
from .model import (
    MemorySuggestion,
    SkillSuggestion,
    Suggestion,
    SuggestionsView,
)
from .result_cache import (
    base_key,
    kept_clusters,
    load_merge,
    load_result,
    load_terms_memo,
    result_key,
    save_merge,
    save_result,
    transcript_sigs,
)
from .state import load_state, matches_raw, state_keys
from .workspace_inputs import active_facts, existing_skill_names, history_tools, instruction_docs, mined_items

THRESHOLD = 3.0
"""A candidate needs this score to be shown (:data:`.signals.THRESHOLD`)."""

__all__ = [
    "SKILL_LIMIT",
    "list_suggestions",
    "find_suggestion",
]

SKILL_LIMIT = 4
"""Skill candidates shown at once."""


# --------------------------------------------------------------------------------------
# Names (Reasonix §C.4)


# --------------------------------------------------------------------------------------
# State (dismissed / accepted)


# --------------------------------------------------------------------------------------
# Listing


def _compute(
    layout: Layout, store: Any, listing: Any, window: int, include_claude: bool, use_cache: bool, base: str = ""
) -> tuple[tuple[Any, ...], tuple[Any, ...], int, int]:
    """Every candidate, ranked (before dismissals and the cap), as raw tuples.

    With the cache, the clusters of the last computation are the starting point when only
    transcripts changed since: statements of new or changed transcripts join them (or make
    new ones); the rest is not compared again."""
    from .candidates import SessionRef, build_memories, build_skills
    from .clustering import cluster_items, prepare_items
    from .imports import agent_note_items, claude_memory_items, wanted_items
    from .known import known_entries
    from .language import configure, save_memo
    from .procedures import find_procedures

    configure(layout.cache_dir)
    if use_cache:
        load_terms_memo(layout)

    mined = mine_sessions(layout, window, include_claude=include_claude, use_cache=use_cache, listing=listing)
    tools = history_tools(mined)
    items = mined_items(mined)
    imported = (claude_memory_items(layout) if include_claude else []) + agent_note_items(layout) + wanted_items(layout)
    for k, it in enumerate(imported):
        it.ref = ("import", str(k))
    items += imported
    prepare_items(items, tools)
    sigs = transcript_sigs(listing)
    seed, new = kept_clusters(items, load_merge(layout, base) if use_cache and base else None, sigs, tools)
    clusters = cluster_items(new, seed)
    if use_cache and base:
        save_merge(layout, base, sigs, tools, clusters)
    known = known_entries(active_facts(layout, store), instruction_docs(layout), tools)
    memories, covered = build_memories(items, known, tools, clusters=clusters)
    refs = [SessionRef(r.session_id, r.path, r.source, r.last_ns, r.triggers) for r in mined.sessions]
    scope = "project" if trim_space(str(layout.workspace)) else "global"
    skills = build_skills(find_procedures([r.steps for r in mined.sessions]), refs, scope, existing_skill_names(layout))
    skills.sort(key=lambda s: (-s.score, s.id))
    if use_cache:
        save_memo()
    return tuple(m.to_tuple() for m in memories), tuple(s.to_tuple() for s in skills), covered, len(mined.sessions)


@dataclass
class _Marks:
    """What the person dismissed and accepted, and which candidates a listing hid."""

    dismissed_ids: set[str]
    dismissed_keys: set[str]
    accepted_ids: set[str]
    accepted_keys: set[str]
    dismissed: set[str] = field(default_factory=set)
    accepted: set[str] = field(default_factory=set)
    below: set[str] = field(default_factory=set)

    @classmethod
    def load(cls, layout: Layout) -> _Marks:
        """The state file's dismissals and acceptances."""
        state = load_state(layout)
        return cls(
            set(state["dismissed"]),
            state_keys(state["dismissed"]),
            set(state["accepted"]),
            state_keys(state["accepted"]),
        )


def _partition(
    cands: Sequence[tuple[Any, ...]], cap: int, skill: bool, marks: _Marks
) -> tuple[list[Any], list[Any], int, int]:
    """Shown and the rest (raw tuples), in rank order; counts hidden and past the cap."""
    shown: list[Any] = []
    rest: list[Any] = []
    hidden = more = 0
    score_at, keys_at = (8, 11) if skill else (12, 15)
    for c in cands:
        cid, score, keys = c[0], c[score_at], c[keys_at]
        if matches_raw(cid, keys, skill, marks.dismissed_ids, marks.dismissed_keys):
            marks.dismissed.add(cid)
            hidden += 1
            rest.append(c)
        elif matches_raw(cid, keys, skill, marks.accepted_ids, marks.accepted_keys):
            marks.accepted.add(cid)
            hidden += 1
            rest.append(c)
        elif score < THRESHOLD:
            marks.below.add(cid)
            rest.append(c)
        elif len(shown) >= cap:
            marks.below.add(cid)
            more += 1
            rest.append(c)
        else:
            shown.append(c)
    return shown, rest, hidden, more


def _ranked_result(
    layout: Layout, store: Any, window: int, include_claude: bool, use_cache: bool
) -> tuple[tuple[Any, ...], tuple[Any, ...], int, int]:
    """Every candidate, ranked, from the result cache when nothing changed (else computed)."""
    listing = list_transcripts(layout, include_claude)
    base = base_key(layout, window, include_claude) if use_cache else ""
    key = result_key(base, transcript_sigs(listing)) if use_cache else ""
    result = load_result(layout, key) if use_cache else None
    if result is None:
        result = _compute(layout, store, listing, window, include_claude, use_cache, base)
        if use_cache:
            save_result(layout, key, *result)
    return result


def list_suggestions(
    layout: Layout,
    store: Any = None,
    *,
    include_hidden: bool = False,
    include_claude: bool = True,
    now: Timestamp | None = None,
    settings: Any = None,
    use_cache: bool = True,
) -> SuggestionsView:
    """Candidates for the workspace, best first.

    Memories are ranked by score (repetition included; the latest evidence breaks ties);
    dismissed, accepted and already-known ones are removed, then the list is capped at
    ``[suggestions] limit``. With ``include_hidden`` everything found is listed — dismissed,
    accepted, under the threshold, past the cap — each marked in the view. Nothing is
    written except the miner's caches (``use_cache=False``: nothing at all); when no
    transcript, fact, instruction or imported file changed since the last listing, the
    candidates come from the result cache without mining or merging anything.
    """
    generated = now or Timestamp.now()
    settings = settings if settings is not None else load_settings(layout.root)
    if settings.no_memory:
        return SuggestionsView(generated_at=generated, available=False)
    window = max(0, int(getattr(settings, "suggestions_window_days", 30)))
    limit = max(1, int(getattr(settings, "suggestions_limit", 12)))
    memories, skills, covered, sessions = _ranked_result(layout, store, window, include_claude, use_cache)
    marks = _Marks.load(layout)
    mem_shown, mem_rest, mem_hidden, mem_more = _partition(memories, limit, False, marks)
    sk_shown, sk_rest, sk_hidden, sk_more = _partition(skills, SKILL_LIMIT, True, marks)
    if include_hidden:
        mem_out = sorted(
            (MemorySuggestion.from_tuple(t) for t in (*mem_shown, *mem_rest)), key=lambda m: (-m.score, m.id)
        )
        sk_out = sorted((SkillSuggestion.from_tuple(t) for t in (*sk_shown, *sk_rest)), key=lambda s: (-s.score, s.id))
        return SuggestionsView(
            memories=tuple(mem_out),
            skills=tuple(sk_out),
            generated_at=generated,
            available=True,
            sessions=sessions,
            hidden=0,
            dismissed=frozenset(marks.dismissed),
            accepted=frozenset(marks.accepted - marks.dismissed),
            below=frozenset(marks.below - marks.dismissed - marks.accepted),
            covered=covered,
            more=mem_more + sk_more,
            window_days=window,
        )
    return SuggestionsView(
        memories=tuple(MemorySuggestion.from_tuple(t) for t in mem_shown),
        skills=tuple(SkillSuggestion.from_tuple(t) for t in sk_shown),
        generated_at=generated,
        available=True,
        sessions=sessions,
        hidden=mem_hidden + sk_hidden,
        covered=covered,
        more=mem_more + sk_more,
        window_days=window,
    )


def find_suggestion(layout: Layout, suggestion_id: str, store: Any = None, include_hidden: bool = True) -> Suggestion:
    """The current candidate with this id (``NotFound`` otherwise)."""
    sid = trim_space(suggestion_id)
    view = list_suggestions(layout, store, include_hidden=include_hidden)
    for s in view.all():
        if s.id == sid:
            return s
    raise NotFound(f'suggestion "{sid}" not found')


# --------------------------------------------------------------------------------------
# Accepting, dismissing

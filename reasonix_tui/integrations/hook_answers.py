"""The two hooks' answers: recall for a prompt (user-prompt-submit) and the session-start block, each with the retraction notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .hook_log import append_log
from .hook_payload import MAX_CONTEXT, HookInput
from .hook_sessions import (
    SessionState,
    find_retractions,
    prune_sessions,
    retraction_note,
    save_state,
    session_path,
    shown_digest,
    touch_state,
)

if TYPE_CHECKING:
    from ..core.paths import Layout
    from ..core.settings import Settings
    from ..core.store.model import Fact

__all__ = ["MAX_CONTEXT", "user_prompt_submit", "session_start"]


def _compose(note: str, block: str) -> str:
    parts = [p for p in (note, block) if p]
    text = "\n\n".join(parts)
    if len(text) <= MAX_CONTEXT:
        return text
    if note and len(note) <= MAX_CONTEXT:
        return note  # the block does not fit beside the note: the note matters more
    return ""


def user_prompt_submit(payload: HookInput, layout: Layout, settings: Settings, client: str = "claude-code") -> str:
    """Recall for ``payload.prompt`` (trace recorded) plus retraction notes; the context text or ``""``."""
    from ..core.recall.service import disk_index, store_for

    if settings.no_memory:
        return ""
    store = store_for(layout, settings)
    index = disk_index(layout, settings, store)  # a one-shot process: the on-disk recall index
    if index is not None:
        from ..core.recall.disk_index import Changed, by_id

        try:
            return _user_prompt(payload, layout, settings, client, store, (), by_id(index), index)
        except Changed:
            pass  # a fact file changed meanwhile (nothing was recorded yet): load the store
    snapshot = store.snapshot()
    return _user_prompt(payload, layout, settings, client, store, snapshot.facts, snapshot.by_id, None)


def _user_prompt(
    payload: HookInput,
    layout: Layout,
    settings: Settings,
    client: str,
    store: Any,
    facts: Any,
    by_id: Mapping[str, Fact],
    index: Any,
) -> str:
    from ..core.recall.service import run_recall

    note = ""
    state: SessionState | None = None
    path: Path | None = None
    if payload.session_id:  # before the trace is recorded: reading a changed fact here retries cleanly
        path = session_path(layout, payload.session_id)
        state = SessionState.load(path, payload.session_id)
        note = retraction_note(find_retractions(state, by_id, str(layout.workspace)))
    trace = run_recall(
        layout,
        payload.prompt,
        settings=settings,
        source=f"{client}-hook",
        session_id=payload.session_id,
        store=store,
        facts=facts,
        index=index,
    )
    text = _compose(note, trace.block)
    if state is not None and path is not None:
        if trace.block and trace.block in text:
            for hit in trace.hits:
                fact = by_id.get(hit.id)
                state.remember_shown(
                    hit.id,
                    hit.revision,
                    hit.ref,
                    hit.title,
                    "recall",
                    hit.scope,
                    str(layout.workspace),
                    shown_digest(fact) if fact is not None else "",
                )
        state.prompts += 1
        touch_state(state, payload, layout, client)
        save_state(state, path, layout)
    return text


PINNED_OMITTED = (
    "({count} more pinned fact(s) are not shown here, to keep this block under the hook size limit. "
    "Read them with the `memory` tool (op=list, then op=read) or `reasonix-tui memory pinned`.)"
)
"""The line that replaces the pinned facts that do not fit at session start."""


def fit_session_start(note: str, pinned: Sequence[Fact], limit: int = MAX_CONTEXT) -> tuple[str, list[Fact]]:
    """The session-start text for ``pinned`` (already in the resolver's order) and the
    facts it shows: the whole block when it fits under ``limit``; otherwise the protocol,
    as many pinned facts as fit (in order, skipping any that alone would not fit) and one
    :data:`PINNED_OMITTED` line — never nothing. The retraction ``note`` comes first."""
    from ..core.recall.pinned import background_block

    whole = _compose(note, background_block(pinned))
    if whole and (not pinned or background_block(pinned) in whole):
        return whole, list(pinned)
    if note and len(note) + len(background_block([])) + 2 > limit:
        note = ""  # cannot happen with MAX_NOTES lines, but the protocol must come through
    reserve = len(PINNED_OMITTED.format(count=len(pinned))) + 2
    kept: list[Fact] = []
    for fact in pinned:
        trial = _join(note, background_block([*kept, fact]))
        if len(trial) + reserve <= limit:
            kept.append(fact)
    omitted = PINNED_OMITTED.format(count=len(pinned) - len(kept))
    return _join(note, background_block(kept), omitted), kept


def _join(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def session_start(payload: HookInput, layout: Layout, settings: Settings, client: str = "claude-code") -> str:
    """The session-start block (protocol + pinned guidance) plus retraction notes; ``""`` when hidden."""
    if settings.no_memory:
        return ""
    from ..core.recall.pinned import pinned_report
    from ..core.recall.service import store_for

    store = store_for(layout, settings)
    facts = store.snapshot().facts
    report = pinned_report(store, facts=facts, settings=settings)
    note = ""
    state: SessionState | None = None
    path: Path | None = None
    if payload.session_id:
        path = session_path(layout, payload.session_id)
        state = SessionState.load(path, payload.session_id)
        if payload.source == "clear":
            state.injected.clear()  # the earlier context is gone: nothing left to retract
        else:
            note = retraction_note(find_retractions(state, {f.id: f for f in facts}, str(layout.workspace)))
    pinned = list(report.guidance.facts)
    text, shown = fit_session_start(note, pinned)
    if len(shown) < len(pinned):
        left = [f for f in pinned if f not in shown]
        append_log(
            layout,
            f"session-start: {len(shown)} of {len(pinned)} pinned facts fit under {MAX_CONTEXT} "
            f"characters; left out: {', '.join(f.id for f in left[:20])}"
            + (f" and {len(left) - 20} more" if len(left) > 20 else ""),
        )
    if state is not None and path is not None:
        for fact in shown:
            state.remember_shown(
                fact.id,
                fact.revision,
                fact.ref,
                fact.display_title,
                "pinned",
                fact.scope,
                str(layout.workspace),
                shown_digest(fact),
            )
        state.source = payload.source or state.source
        touch_state(state, payload, layout, client)
        save_state(state, path, layout)
        prune_sessions(path.parent, path)
    return text

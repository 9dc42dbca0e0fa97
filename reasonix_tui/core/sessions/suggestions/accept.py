"""Accepting, dismissing and restoring suggestions, and the names accepted facts get.

A memory is written through ``Store.save`` as the person's own action; a skill becomes a
``SKILL.md`` created without overwriting. Names follow Reasonix §C.4.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from ...compat.gostr import one_line, trim_space
from ...compat.gotime import Timestamp
from ...markdown import write_markdown
from ...paths import Layout
from ...store.atomic import atomic_create
from ...store.model import InvalidInput, normalize_fact_scope, normalize_type
from .api import find_suggestion
from .model import (
    AcceptResult,
    MemorySuggestion,
    SkillSuggestion,
    Suggestion,
    SuggestionEdits,
    suggested_fields,
)
from .state import load_state, save_state, state_record

__all__ = [
    "accept_suggestion",
    "dismiss_suggestion",
    "restore_suggestion",
    "render_skill_file",
    "ascii_slug",
    "is_well_formed_slug",
    "accepted_suggestion_name",
]


def ascii_slug(s: str) -> str:
    """Reasonix ``asciiSlug``: ``a-z0-9`` kept, ``-_.`` and spaces → one ``-``, 56 bytes."""
    out: list[str] = []
    last_dash = False
    for ch in trim_space(s).lower():
        if "a" <= ch <= "z" or "0" <= ch <= "9":
            out.append(ch)
            last_dash = False
        elif ch in "-_." or ch.isspace():
            if out and not last_dash:
                out.append("-")
                last_dash = True
        if len(out) >= 56:
            break
    return "".join(out).strip("-")


def is_well_formed_slug(s: str) -> bool:
    """``a-z0-9`` and single ``-``, no leading/trailing ``-``, at most 128 bytes."""
    return bool(s) and len(s.encode("utf-8")) <= 128 and re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", s) is not None


def accepted_suggestion_name(given: str, description: str) -> str:
    """§C.4: keep a well-formed given name, else derive one from the description."""
    if is_well_formed_slug(given):
        return given
    return ascii_slug(description) or "memory-candidate"


VALID_SKILL_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$")


def render_skill_file(name: str, description: str, body: str) -> str:
    """``SKILL.md``: frontmatter ``name`` and ``description`` (YAML-escaped), then the body."""
    return write_markdown({"name": name, "description": description}, body)


def accept_suggestion(
    layout: Layout,
    suggestion: str | Suggestion,
    edits: SuggestionEdits | None = None,
    *,
    store: Any = None,
    actor: str = "context-center",
    extra: Mapping[str, Any] | None = None,
) -> AcceptResult:
    """Write a candidate (optionally edited) as the person's own action.

    Memories go through ``Store.save`` (a new fact at revision 1, or revision+1 of a fact
    with that name — an update candidate carries the fact's name); skills become
    ``SKILL.md`` files created without overwriting. ``extra`` holds the save request's
    fields a suggestion does not carry but the person set while accepting (activation,
    keywords, subject key, volatility, expiry, verified); a skill has none of them.
    """
    sug = find_suggestion(layout, suggestion, store) if isinstance(suggestion, str) else suggestion
    e = edits or SuggestionEdits()
    if isinstance(sug, SkillSuggestion):
        result = accept_skill(layout, sug, e)
    else:
        result = accept_memory(layout, sug, e, store, actor, extra)
    state = load_state(layout)
    state["accepted"][sug.id] = {
        "at": Timestamp.now().rfc3339(),
        "path": result.path,
        "kind": result.kind,
        "keys": state_record(sug),
    }
    state["dismissed"].pop(sug.id, None)
    save_state(layout, state)
    return result


def accept_memory(
    layout: Layout,
    sug: MemorySuggestion,
    e: SuggestionEdits,
    store: Any,
    actor: str,
    extra: Mapping[str, Any] | None = None,
) -> AcceptResult:
    from ...store.requests import SaveRequest
    from ...store.store import Store

    if sug.needs_edit and trim_space(e.pick("body", sug.body)) == trim_space(sug.body):
        raise InvalidInput(
            f'suggestion "{sug.id}" is a question the agent kept asking, not an answer: give the answer as the body'
        )
    draft: dict[str, Any] = {f.name: e.pick(f.name, str(getattr(sug, f.name, ""))) for f in suggested_fields()}
    clash = sorted(set(extra or ()) & set(draft))
    if clash:
        raise InvalidInput(f"{', '.join(clash)}: a suggested field is an edit, not an extra field")
    draft |= dict(extra or {})
    desc = one_line(draft["description"])
    body = trim_space(draft["body"])
    if not desc or not body:
        raise InvalidInput("memory suggestion requires description and body")
    st = store if store is not None else Store(layout, actor=actor)
    res = st.save(
        SaveRequest(
            **draft
            | {
                "name": accepted_suggestion_name(draft["name"], desc),
                "title": one_line(draft["title"]),
                "description": desc,
                "type": normalize_type(draft["type"]),
                "scope": normalize_fact_scope(draft["scope"]),
                "body": body,
            }
        ),
        actor=actor,
    )
    return AcceptResult(id=sug.id, kind="memory", path=res.fact.path, fact=res.fact, created=res.created)


def accept_skill(layout: Layout, sug: SkillSuggestion, e: SuggestionEdits) -> AcceptResult:
    name = trim_space(e.pick("name", sug.name))
    desc = one_line(e.pick("description", sug.description))
    body = trim_space(e.pick("body", sug.body))
    if not name or not desc or not body:
        raise InvalidInput("skill suggestion requires name, description, and body")
    if not VALID_SKILL_NAME.match(name):
        raise InvalidInput(f"invalid skill name {json.dumps(name)}: use letters, digits, '.', '_' and '-' (at most 64)")
    scope = "global" if trim_space(e.pick("scope", sug.scope)) == "global" else "project"
    base = layout.root / "skills" if scope == "global" else layout.workspace / ".reasonix" / "skills"
    target = base / name / "SKILL.md"
    os.makedirs(target.parent, exist_ok=True)
    try:
        atomic_create(target, render_skill_file(name, desc, body))
    except FileExistsError:
        raise InvalidInput(f'skill "{name}" already exists at {target}') from None
    return AcceptResult(id=sug.id, kind="skill", path=str(target))


def dismiss_suggestion(layout: Layout, suggestion_id: str, store: Any = None, note: str = "") -> Suggestion | None:
    """Hide a candidate for good (its id and every occurrence it was found in). Dismissing
    an already dismissed id is a no-op."""
    sid = trim_space(suggestion_id)
    state = load_state(layout)
    if sid in state["dismissed"]:
        return None
    sug = find_suggestion(layout, sid, store)
    state["dismissed"][sid] = {
        "at": Timestamp.now().rfc3339(),
        "title": sug.title,
        "note": note,
        "keys": state_record(sug),
    }
    save_state(layout, state)
    return sug


def restore_suggestion(layout: Layout, suggestion_id: str) -> bool:
    """Undo a dismissal; False when the id was not dismissed."""
    sid = trim_space(suggestion_id)
    state = load_state(layout)
    if sid not in state["dismissed"]:
        return False
    del state["dismissed"][sid]
    save_state(layout, state)
    return True

"""Listing, dismissing, restoring and accepting suggestions."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...compat.encoding import read_text
from ...compat.gostr import one_line, trim_space
from ...compat.gotime import Timestamp
from ...markdown import write_markdown
from ...paths import Layout
from ...settings import load_settings
from ...store.atomic import atomic_create, atomic_write
from ...store.model import InvalidInput, NotFound, StoreError, normalize_fact_scope, normalize_type
from .mining import cache_path, list_transcripts, mine_sessions, miner_stamp
from .model import (
    AcceptResult,
    Evidence,
    MemorySuggestion,
    SkillSuggestion,
    Suggestion,
    SuggestionEdits,
    SuggestionsView,
)

THRESHOLD = 3.0
"""A candidate needs this score to be shown (:data:`.signals.THRESHOLD`)."""

__all__ = [
    "SKILL_LIMIT",
    "list_suggestions",
    "find_suggestion",
    "accept_suggestion",
    "dismiss_suggestion",
    "restore_suggestion",
    "state_path",
    "render_skill_file",
    "ascii_slug",
    "is_well_formed_slug",
    "accepted_suggestion_name",
]

SKILL_LIMIT = 4
"""Skill candidates shown at once."""


# --------------------------------------------------------------------------------------
# Names (Reasonix §C.4)


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


# --------------------------------------------------------------------------------------
# State (dismissed / accepted)


def state_path(layout: Layout) -> Path:
    """``<root>/reasonix-tui/suggestions.json``."""
    return layout.tui_dir / "suggestions.json"


def _load_state(layout: Layout) -> dict[str, dict[str, Any]]:
    from ...store.safeio import read_regular

    try:
        data = json.loads(read_regular(state_path(layout)))  # never blocks on a FIFO
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    for key in ("dismissed", "accepted"):
        if not isinstance(data.get(key), dict):
            data[key] = {}
    return data  # type: ignore[no-any-return]  # checked above: a dict of dicts


def _save_state(layout: Layout, data: dict[str, Any]) -> None:
    atomic_write(state_path(layout), json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", 0o600)


def _state_keys(entries: dict[str, Any]) -> set[str]:
    keys: set[str] = set()
    for v in entries.values():
        if isinstance(v, dict) and isinstance(v.get("keys"), list):
            keys.update(k for k in v["keys"] if isinstance(k, str) and k)
    return keys


def _matches_raw(sid: str, skeys: Sequence[str], skill: bool, ids: set[str], keys: set[str]) -> bool:
    """The same candidate: its id, or one of its occurrences (memories) / most of its steps (skills)."""
    if sid in ids:
        return True
    if skill:
        mine = {"steps:" + k for k in skeys}
        return len(mine) >= 3 and len(mine & keys) >= 0.7 * len(mine)
    return any(k in keys for k in skeys)


def _state_record(s: Suggestion) -> list[str]:
    if isinstance(s, SkillSuggestion):
        return ["steps:" + k for k in s.keys]
    return list(s.keys)


# --------------------------------------------------------------------------------------
# Listing


def _instruction_docs(layout: Layout) -> list[tuple[str, str]]:
    try:
        from ...instructions.documents import nearest_git_root, resolve
    except ImportError:  # pragma: no cover - the module ships with the package
        return []
    ws = str(layout.workspace)
    try:
        res = resolve(ws, str(layout.root), workspace_root=nearest_git_root(ws) or ws)
    except Exception:  # noqa: BLE001 - suggestions must survive a broken instruction tree
        out = []
        for d in (layout.root, layout.workspace):
            for name in ("REASONIX.md", "AGENTS.md", "CLAUDE.md"):
                try:
                    out.append((name, read_text(Path(d) / name).text))
                except OSError:
                    continue
        return out
    return [(os.path.basename(d.path), d.body) for d in res.docs]


def _facts(layout: Layout, store: Any) -> list[Any]:
    if store is None:
        from ...store.store import Store

        store = Store(layout)
    try:
        return list(store.list_all())
    except StoreError:
        return []


def _existing_skill_names(layout: Layout) -> set[str]:
    home = Path(os.environ.get("HOME") or os.path.expanduser("~"))
    roots = [layout.workspace / d / "skills" for d in (".reasonix", ".agents", ".agent", ".claude")]
    roots += [layout.root / "skills"] + [home / d / "skills" for d in (".agents", ".agent", ".claude")]
    names: set[str] = set()
    for root in roots:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for e in entries:
            if e.is_dir() and os.path.isfile(os.path.join(e.path, "SKILL.md")):
                names.add(e.name)
            elif e.name.endswith(".md") and e.is_file():
                names.add(e.name[:-3])
    return names


def _items(mined: Any) -> list[Any]:
    from .items import Item

    out: list[Item] = []
    for rec in mined.sessions:
        for k, (
            sid,
            path,
            source,
            index,
            at_ns,
            message,
            text,
            core,
            score,
            reasons,
            context,
            policy,
            _ents,
            terms,
            core_terms,
            values,
            words,
            name,
        ) in enumerate(rec.statements):
            at = at_ns or rec.last_ns
            out.append(
                Item(
                    ref=(rec.path, str(k)),
                    origin="history",
                    score=score,
                    reasons=list(reasons),
                    text=text,
                    core=core,
                    at_ns=at,
                    sources=[Evidence(source, sid, message, Timestamp(at) if at else None, path, index, context)],
                    group=sid,
                    policy=policy,
                    context=context,
                    name=name,
                    terms=dict(terms),
                    values=set(values),
                    core_terms=dict(core_terms),
                    words=words,
                )
            )
    return out


def _tools(mined: Any) -> frozenset[str]:
    heads: set[str] = set()
    for rec in mined.sessions:
        heads |= rec.tools
    return frozenset(h for h in heads if len(h) >= 2)


_RESULT_MAGIC = b"RXTSUGR1"


def _result_path(layout: Layout) -> str:
    return cache_path(layout)[: -len(".marshal")] + ".result.marshal"


def _stat_sig(path: str | os.PathLike[str]) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _dir_sig(directory: str | os.PathLike[str], suffixes: tuple[str, ...] = ("",)) -> list[str]:
    try:
        with os.scandir(directory) as it:
            return sorted(f"{e.name}:{_stat_sig(e.path)}" for e in it if e.name.endswith(suffixes) and e.is_file())
    except OSError:
        return []


def _transcript_sigs(listing: Sequence[tuple[str, str, os.stat_result, bool]]) -> dict[str, str]:
    """Every transcript's version (size, mtime, and its branch meta's for a Reasonix session)."""
    return {
        path: f"{fmt}:{st.st_size}:{st.st_mtime_ns}:" + (_stat_sig(path + ".meta") if fmt == "reasonix" else "")
        for path, fmt, st, _filtered in listing
    }


def _base_key(layout: Layout, window: int, include_claude: bool) -> str:
    """What the candidates depend on besides the transcripts: the facts, the instruction
    documents, the imported files, the misses log, existing skill names, the window and
    the code that computes them."""
    import hashlib

    h = hashlib.sha256()

    def put(*parts: object) -> None:
        h.update("\0".join(str(p) for p in parts).encode("utf-8", "surrogatepass") + b"\n")

    put("v2", miner_stamp(), _code_stamp(), window, include_claude, abs_ws(layout))
    for d in (layout.project_dir, layout.global_dir):
        put("facts", d, *_dir_sig(d, (".md",)))
    for label, body in _instruction_docs(layout):
        put("instructions", label, hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest())
    if include_claude:
        from ..claude import claude_project_dir

        cdir = claude_project_dir(layout.workspace)
        put("claude-memory", *(_dir_sig(cdir / "memory", (".md",)) if cdir is not None else []))
    from .imports import agent_note_files

    for path, scope in agent_note_files(layout):
        put("notes", path, scope, _stat_sig(path))
    from .imports import misses_path

    put("misses", _stat_sig(misses_path(layout)))
    put("skills", *sorted(_existing_skill_names(layout)))
    return h.hexdigest()


def _result_key(base: str, sigs: dict[str, str]) -> str:
    """The base key and every transcript's version."""
    import hashlib

    h = hashlib.sha256(base.encode("ascii"))
    for path in sorted(sigs):
        h.update((path + "\0" + sigs[path] + "\n").encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def abs_ws(layout: Layout) -> str:
    """The workspace, absolute."""
    return os.path.abspath(str(layout.workspace))


def _code_stamp() -> str:
    from ...store.sealed import source_stamp

    here = os.path.dirname(os.path.abspath(__file__))
    return source_stamp(
        *(
            os.path.join(here, n)
            for n in (
                "api.py",
                "candidates.py",
                "titles.py",
                "items.py",
                "clustering.py",
                "known.py",
                "imports.py",
                "language.py",
                "procedures.py",
                "model.py",
            )
        )
    )


def _load_result(layout: Layout, key: str) -> tuple[tuple[Any, ...], tuple[Any, ...], int, int] | None:
    """The cached candidates as raw tuples (objects are built only for what is shown)."""
    from ...store.sealed import read_sealed

    data = read_sealed(_result_path(layout), _RESULT_MAGIC)
    if type(data) is not tuple or len(data) != 6 or data[0] != key:
        return None
    if not isinstance(data[1], tuple) or not isinstance(data[2], tuple):
        return None
    return data[1], data[2], int(data[3]), int(data[4])


def _load_terms_memo(layout: Layout) -> None:
    """Terms of texts the last computation analysed (valid whatever its key)."""
    from ...store.sealed import read_sealed
    from .items import TERMS_MEMO

    data = read_sealed(_result_path(layout), _RESULT_MAGIC)
    if type(data) is tuple and len(data) == 6 and isinstance(data[5], dict) and data[5].get("stamp") == _code_stamp():
        memo = data[5].get("terms")
        if isinstance(memo, dict):
            TERMS_MEMO.update(memo)


def _save_result(
    layout: Layout, key: str, memories: tuple[Any, ...], skills: tuple[Any, ...], covered: int, sessions: int
) -> None:
    from ...store.sealed import write_sealed
    from .items import TERMS_MEMO

    try:
        memo = {"stamp": _code_stamp(), "terms": dict(TERMS_MEMO)}
        write_sealed(_result_path(layout), _RESULT_MAGIC, (key, memories, skills, covered, sessions, memo))
    except (OSError, ValueError):
        pass


_MERGE_MAGIC = b"RXTSUGM1"


def _merge_path(layout: Layout) -> str:
    return cache_path(layout)[: -len(".marshal")] + ".merge.marshal"


def _load_merge(layout: Layout, base: str) -> tuple[dict[str, str], frozenset[str], list[list[tuple[str, ...]]]] | None:
    """The merge state of the last computation when it was made with the same facts,
    instructions, imports, window and code: ``(transcript versions, tools, clusters as
    member refs)``."""
    from ...store.sealed import read_sealed

    data = read_sealed(_merge_path(layout), _MERGE_MAGIC)
    if type(data) is not tuple or len(data) != 4 or data[0] != base:
        return None
    sigs, tools, clusters = data[1], data[2], data[3]
    if not isinstance(sigs, dict) or not isinstance(tools, (set, frozenset)) or not isinstance(clusters, list):
        return None
    return sigs, frozenset(tools), clusters


def _save_merge(
    layout: Layout, base: str, sigs: dict[str, str], tools: frozenset[str], clusters: Sequence[Sequence[Any]]
) -> None:
    from ...store.sealed import write_sealed

    refs = [[m.ref for m in c] for c in clusters]
    try:
        write_sealed(_merge_path(layout), _MERGE_MAGIC, (base, sigs, tools, refs))
    except (OSError, ValueError):
        pass


def _names_tool(it: Any, names: frozenset[str]) -> bool:
    """The item says one of these words as a word or as the head of inline code."""
    return any(w in names for w in it.words) or any(
        v.startswith("code:") and v[5:].split(" ", 1)[0] in names for v in it.values
    )


def _seed(
    items: Sequence[Any], state: Any, sigs: dict[str, str], tools: frozenset[str]
) -> tuple[list[list[Any]], list[Any]]:
    """``(clusters kept from the last listing, items new since)``: members of transcripts
    that are unchanged (same version, still in the window) keep their clusters; everything
    else is clustered again — and so is a statement that names a command the history ran
    for the first (or no longer runs), whose terms changed with it. No state: everything is
    new."""
    if state is None:
        return [], list(items)
    old_sigs, old_tools, old_clusters = state
    retooled = old_tools ^ tools
    by_ref = {it.ref: it for it in items}
    seed: list[list[Any]] = []
    kept: set[tuple[str, ...]] = set()
    for refs in old_clusters:
        members = []
        for r in refs:
            r = tuple(r)
            it = by_ref.get(r)
            if it is None or r in kept:
                continue
            if r[0] != "import" and (r[0] not in sigs or old_sigs.get(r[0]) != sigs[r[0]]):
                continue
            if retooled and _names_tool(it, retooled):
                continue
            kept.add(r)
            members.append(it)
        if members:
            seed.append(members)
    return seed, [it for it in items if it.ref not in kept]


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
        _load_terms_memo(layout)

    mined = mine_sessions(layout, window, include_claude=include_claude, use_cache=use_cache, listing=listing)
    tools = _tools(mined)
    items = _items(mined)
    imported = (claude_memory_items(layout) if include_claude else []) + agent_note_items(layout) + wanted_items(layout)
    for k, it in enumerate(imported):
        it.ref = ("import", str(k))
    items += imported
    prepare_items(items, tools)
    sigs = _transcript_sigs(listing)
    seed, new = _seed(items, _load_merge(layout, base) if use_cache and base else None, sigs, tools)
    clusters = cluster_items(new, seed)
    if use_cache and base:
        _save_merge(layout, base, sigs, tools, clusters)
    known = known_entries(_facts(layout, store), _instruction_docs(layout), tools)
    memories, covered = build_memories(items, known, tools, clusters=clusters)
    refs = [SessionRef(r.session_id, r.path, r.source, r.last_ns, r.triggers) for r in mined.sessions]
    scope = "project" if trim_space(str(layout.workspace)) else "global"
    skills = build_skills(
        find_procedures([r.steps for r in mined.sessions]), refs, scope, _existing_skill_names(layout)
    )
    skills.sort(key=lambda s: (-s.score, s.id))
    if use_cache:
        save_memo()
    return tuple(m.to_tuple() for m in memories), tuple(s.to_tuple() for s in skills), covered, len(mined.sessions)


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
    listing = list_transcripts(layout, include_claude)
    base = _base_key(layout, window, include_claude) if use_cache else ""
    key = _result_key(base, _transcript_sigs(listing)) if use_cache else ""
    result = _load_result(layout, key) if use_cache else None
    if result is None:
        result = _compute(layout, store, listing, window, include_claude, use_cache, base)
        if use_cache:
            _save_result(layout, key, *result)
    memories, skills, covered, sessions = result

    state = _load_state(layout)
    dismissed_ids, accepted_ids = set(state["dismissed"]), set(state["accepted"])
    dismissed_keys, accepted_keys = _state_keys(state["dismissed"]), _state_keys(state["accepted"])
    dismissed: set[str] = set()
    accepted: set[str] = set()
    below: set[str] = set()

    def split(cands: Sequence[tuple[Any, ...]], cap: int, skill: bool) -> tuple[list[Any], list[Any], int, int]:
        """Shown and the rest (raw tuples), in rank order; counts hidden and past the cap."""
        shown: list[Any] = []
        rest: list[Any] = []
        hidden = more = 0
        score_at, keys_at = (8, 11) if skill else (12, 15)
        for c in cands:
            cid, score, keys = c[0], c[score_at], c[keys_at]
            if _matches_raw(cid, keys, skill, dismissed_ids, dismissed_keys):
                dismissed.add(cid)
                hidden += 1
                rest.append(c)
            elif _matches_raw(cid, keys, skill, accepted_ids, accepted_keys):
                accepted.add(cid)
                hidden += 1
                rest.append(c)
            elif score < THRESHOLD:
                below.add(cid)
                rest.append(c)
            elif len(shown) >= cap:
                below.add(cid)
                more += 1
                rest.append(c)
            else:
                shown.append(c)
        return shown, rest, hidden, more

    mem_shown, mem_rest, mem_hidden, mem_more = split(memories, limit, False)
    sk_shown, sk_rest, sk_hidden, sk_more = split(skills, SKILL_LIMIT, True)
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
            dismissed=frozenset(dismissed),
            accepted=frozenset(accepted - dismissed),
            below=frozenset(below - dismissed - accepted),
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


_VALID_SKILL_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$")


def render_skill_file(name: str, description: str, body: str) -> str:
    """``SKILL.md``: frontmatter ``name`` and ``description`` (YAML-escaped), then the body."""
    return write_markdown({"name": name, "description": description}, body)


def _pick(value: str | None, default: str) -> str:
    return default if value is None else value


def accept_suggestion(
    layout: Layout,
    suggestion: str | Suggestion,
    edits: SuggestionEdits | None = None,
    *,
    store: Any = None,
    actor: str = "context-center",
) -> AcceptResult:
    """Write a candidate (optionally edited) as the person's own action.

    Memories go through ``Store.save`` (a new fact at revision 1, or revision+1 of a fact
    with that name — an update candidate carries the fact's name); skills become
    ``SKILL.md`` files created without overwriting.
    """
    sug = find_suggestion(layout, suggestion, store) if isinstance(suggestion, str) else suggestion
    e = edits or SuggestionEdits()
    if isinstance(sug, SkillSuggestion):
        result = _accept_skill(layout, sug, e)
    else:
        result = _accept_memory(layout, sug, e, store, actor)
    state = _load_state(layout)
    state["accepted"][sug.id] = {
        "at": Timestamp.now().rfc3339(),
        "path": result.path,
        "kind": result.kind,
        "keys": _state_record(sug),
    }
    state["dismissed"].pop(sug.id, None)
    _save_state(layout, state)
    return result


def _accept_memory(layout: Layout, sug: MemorySuggestion, e: SuggestionEdits, store: Any, actor: str) -> AcceptResult:
    from ...store.store import SaveRequest, Store

    if sug.needs_edit and (e.body is None or trim_space(e.body) == trim_space(sug.body)):
        raise InvalidInput(
            f'suggestion "{sug.id}" is a question the agent kept asking, not an answer: give the answer as the body'
        )
    desc = one_line(_pick(e.description, sug.description))
    body = trim_space(_pick(e.body, sug.body))
    if not desc or not body:
        raise InvalidInput("memory suggestion requires description and body")
    name = accepted_suggestion_name(_pick(e.name, sug.name), desc)
    st = store if store is not None else Store(layout, actor=actor)
    res = st.save(
        SaveRequest(
            name=name,
            title=one_line(_pick(e.title, sug.title)),
            description=desc,
            type=normalize_type(_pick(e.type, sug.type)),
            scope=normalize_fact_scope(_pick(e.scope, sug.scope)),
            body=body,
        ),
        actor=actor,
    )
    return AcceptResult(id=sug.id, kind="memory", path=res.fact.path, fact=res.fact, created=res.created)


def _accept_skill(layout: Layout, sug: SkillSuggestion, e: SuggestionEdits) -> AcceptResult:
    name = trim_space(_pick(e.name, sug.name))
    desc = one_line(_pick(e.description, sug.description))
    body = trim_space(_pick(e.body, sug.body))
    if not name or not desc or not body:
        raise InvalidInput("skill suggestion requires name, description, and body")
    if not _VALID_SKILL_NAME.match(name):
        raise InvalidInput(f"invalid skill name {json.dumps(name)}: use letters, digits, '.', '_' and '-' (at most 64)")
    scope = "global" if trim_space(_pick(e.scope, sug.scope)) == "global" else "project"
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
    state = _load_state(layout)
    if sid in state["dismissed"]:
        return None
    sug = find_suggestion(layout, sid, store)
    state["dismissed"][sid] = {
        "at": Timestamp.now().rfc3339(),
        "title": sug.title,
        "note": note,
        "keys": _state_record(sug),
    }
    _save_state(layout, state)
    return sug


def restore_suggestion(layout: Layout, suggestion_id: str) -> bool:
    """Undo a dismissal; False when the id was not dismissed."""
    sid = trim_space(suggestion_id)
    state = _load_state(layout)
    if sid not in state["dismissed"]:
        return False
    del state["dismissed"][sid]
    _save_state(layout, state)
    return True

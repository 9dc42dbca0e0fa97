"""The explicit read-only ``memory`` tool: search, read, list (store-format §6.8; Reasonix ``recall.go``).

Unlike automatic recall, search sees every active fact (pinned and expired included),
indexes the type and scope words too, has no gate and no multipliers, keeps hits
scoring at least 0.15 × the top score, and returns 8 hits by default (20 at most)
with 260-rune snippets.

:func:`memory_tool_call` returns exactly the text Reasonix's tool returns; errors are
raised as :class:`MemoryToolError` carrying Reasonix's message (the MCP server reports
them as tool errors). :func:`search_memories` returns structured hits for the CLI and
the Context Center.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compat.gostr import go_quote, one_line, trim_space
from ..compat.jsonargs import json_object
from ..compat.retrieval import go_json_quote, make_snippet
from ..compat.tokenize import required_query_terms, tokens
from ..settings import Settings
from ..store.model import TYPES, Fact, InvalidInput, display_title, normalize_fact_scope, normalize_type, slug
from .index import PoolBM25, get_index
from .memo import FACT_MEMO
from .search_postings import build_postings_in_background, warm_postings
from .term_matrix import SEARCH_FLOOR, rank, search_text, warm_resolution, warm_search

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = [
    "SearchHit",
    "MemoryToolError",
    "search_memories",
    "memory_tool_call",
    "format_search",
    "format_read",
    "format_list",
    "go_json_quote",
    "DEFAULT_SEARCH_LIMIT",
    "MAX_SEARCH_LIMIT",
    "SEARCH_SNIPPET",
]

DEFAULT_SEARCH_LIMIT = 8
MAX_SEARCH_LIMIT = 20
SEARCH_SNIPPET = 260


class MemoryToolError(InvalidInput):
    """The ``memory`` tool refused the call; ``str(err)`` is Reasonix's message."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One explicit-search result."""

    fact: Fact
    """The fact."""
    score: float
    """Plain BM25 (no multipliers)."""
    snippet: str
    """Up to 260 runes around the query."""
    superseded: str = ""
    """Enhanced mode: why this fact is not current (``superseded by <id> (<ref>): …``), else ``""``."""


def type_filter(value: str | None) -> str:
    """``recallTypeFilter``."""
    v = trim_space(value or "")
    if not v:
        return ""
    t = v.lower()
    if t not in TYPES:
        raise MemoryToolError("type must be one of user, feedback, project, reference")
    return t


def scope_filter(value: str | None) -> str:
    """``recallScopeFilter``."""
    v = trim_space(value or "")
    if not v:
        return ""
    s = v.lower()
    if s not in ("project", "global"):
        raise MemoryToolError("scope must be one of project, global")
    return s


def clamp_limit(n: int) -> int:
    """``clampRecallLimit``: ≤ 0 → 8, above 20 → 20."""
    if n <= 0:
        return DEFAULT_SEARCH_LIMIT
    return min(n, MAX_SEARCH_LIMIT)


def filter_facts(facts: Sequence[Fact], type_: str = "", scope: str = "") -> list[Fact]:
    """``filterMemories``."""
    if not type_ and not scope:
        return list(facts)
    return [
        f
        for f in facts
        if (not type_ or normalize_type(f.type) == type_) and (not scope or normalize_fact_scope(f.scope) == scope)
    ]


def _search_tokens(fact: Fact) -> list[str]:
    return tokens(search_text(fact))


class _SearchIndex:
    def __init__(self, facts: Sequence[Fact]) -> None:
        docs, texts, toks = [], [], []
        for f in facts:
            text = search_text(f)
            # memoised per fact object: after a change only the changed facts are tokenized
            t = FACT_MEMO.get(f, "search-tokens", _search_tokens)
            if t:
                docs.append(f)
                texts.append(text)
                toks.append(t)
        self.docs = docs
        self.texts = texts
        self.bm25 = PoolBM25(toks) if toks else None


def search_memories(
    facts: Sequence[Fact],
    query: str,
    *,
    type_: str = "",
    scope: str = "",
    limit: int = DEFAULT_SEARCH_LIMIT,
    resolved: bool = False,
) -> list[SearchHit]:
    """``searchMemories``: BM25 over every active fact after the filters.

    ``resolved`` (enhanced mode) labels each hit that the subject/topic resolver
    (:func:`reasonix_tui.core.resolve.resolve`) says is superseded, and puts the current
    fact first when both matched. Raises :class:`MemoryToolError` for an empty query, a
    query without letters or numbers, or a bad filter.
    """
    type_ = type_filter(type_)
    scope = scope_filter(scope)
    limit = clamp_limit(limit)
    q, terms = required_query_terms(query, MemoryToolError)
    if not type_ and not scope:
        # A warm matrix per snapshot, derived from the previous snapshot's after a change.
        # Its postings, once a long-lived process has turned it around (a background thread).
        matrix, row_facts, all_facts = warm_search(facts)
        found = [
            SearchHit(row_facts[r], s, make_snippet(search_text(row_facts[r]), q, terms, SEARCH_SNIPPET))
            for s, r in rank(warm_postings(matrix) or matrix, terms, limit)
        ]
        if resolved and found:
            found = _label_superseded(all_facts, found, q, terms, res=warm_resolution(facts))[: max(limit, len(found))]
        return found
    # Filtered: the index is warm per snapshot and per filter (BM25 statistics of the filtered set).
    base = get_index(facts)
    index: _SearchIndex = base.extra(
        f"search\0{type_}\0{scope}", lambda idx: _SearchIndex(filter_facts(idx.all_facts, type_, scope))
    )
    if index.bm25 is None:
        return []
    score, count, _ = index.bm25.accumulate(terms)
    cand = np.flatnonzero((count > 0) & (score > 0))
    values = score[cand]
    if cand.size > limit:
        # Only documents scoring at least the limit-th best can be among the first
        # ``limit`` (ties included): sort those, not every match of a common word.
        keep = values >= np.partition(values, -limit)[-limit]
        cand, values = cand[keep], values[keep]
    docs = index.docs
    scored = sorted(
        zip(values.tolist(), cand.tolist()), key=lambda p: (-p[0], docs[p[1]].name, docs[p[1]].scope, docs[p[1]].id)
    )
    if scored and scored[0][0] > 0:
        cutoff = scored[0][0] * SEARCH_FLOOR
        scored = [p for j, p in enumerate(scored) if j == 0 or p[0] >= cutoff]
    scored = scored[:limit]
    hits = [SearchHit(index.docs[i], s, make_snippet(index.texts[i], q, terms, SEARCH_SNIPPET)) for s, i in scored]
    if resolved and hits:
        hits = _label_superseded(base.all_facts, hits, q, terms)[: max(limit, len(hits))]
    return hits


def _label_superseded(
    all_facts: Sequence[Fact], hits: list[SearchHit], query: str, terms: Sequence[str], res: Any = None
) -> list[SearchHit]:
    """Label superseded hits and list the current fact just before each (added when the
    search did not find it). ``res``: the snapshot's resolution when the caller has it."""
    from dataclasses import replace

    from ..resolve import resolve

    res = res if res is not None else resolve(all_facts)
    listed = {id(h.fact) for h in hits}
    out: list[SearchHit] = []
    placed: set[int] = set()
    for h in hits:
        sup = res.of(h.fact)
        if sup is None:
            if id(h.fact) not in placed:
                out.append(h)
                placed.add(id(h.fact))
            continue
        cur = res.current(h.fact)
        if id(cur) not in placed:
            found = next((x for x in hits if x.fact is cur), None)
            if found is None and id(cur) not in listed:
                found = SearchHit(cur, h.score, make_snippet(search_text(cur), query, terms, SEARCH_SNIPPET))
            if found is not None:
                out.append(found)
                placed.add(id(cur))
        out.append(replace(h, superseded=sup.label))
        placed.add(id(h.fact))
    return out


def format_search(query: str, hits: Sequence[SearchHit]) -> str:
    """``formatMemoryHits`` (``query`` as the caller sent it, untrimmed)."""
    if not hits:
        return "\n".join(
            (
                "No saved memories matched " + go_json_quote(query) + ".",
                "",
                "0 results does not prove the fact was never recorded. Try:",
                "1. Retry with 1-3 distinctive terms (function name, task id, rare phrase) instead of a long generic sentence.",
                "2. For exact literals that punctuation splits (URLs, ports, file paths, command flags), search one distinctive token or inspect the memory directory directly.",
                "3. For verbatim original wording or exact command output, use the history tool; saved memories may paraphrase.",
            )
        )
    parts = [f"Memory search results for {go_json_quote(query)}:\n"]
    for i, hit in enumerate(hits, 1):
        m = hit.fact
        parts.append(
            f"\n{i}. score={hit.score:.3f} id={m.id} revision={m.revision} name={m.name} "
            f"scope={normalize_fact_scope(m.scope)} type={normalize_type(m.type)} "
            f"title={display_title(m.title, m.name)}\n"
            f"   reference: {normalize_fact_scope(m.scope)}/{slug(m.name)}.md\n"
            f"   description: {one_line(m.description)}\n"
            f"   snippet: {hit.snippet}\n" + (f"   note: {hit.superseded}\n" if hit.superseded else "")
        )
    parts.append('\nUse operation="read" with a stable memory id to inspect the full saved fact.')
    return trim_space("".join(parts))


def format_read(m: Fact) -> str:
    """``formatMemory``."""
    lines = [
        f"Memory {m.name}\n",
        f"id: {m.id}\n",
        f"revision: {m.revision}\n",
        f"title: {display_title(m.title, m.name)}\n",
        f"scope: {normalize_fact_scope(m.scope)}\n",
        f"type: {normalize_type(m.type)}\n",
    ]
    desc = one_line(m.description)
    if desc:
        lines.append(f"description: {desc}\n")
    lines.append(f"reference: {normalize_fact_scope(m.scope)}/{slug(m.name)}.md\n\n{trim_space(m.body)}")
    return trim_space("".join(lines))


def format_list(facts: Sequence[Fact], limit: int) -> str:
    """``formatMemoryList``."""
    if not facts:
        return "No saved memories found."
    out = ["Saved memories:\n"]
    for m in list(facts)[:limit]:
        out.append(
            f"- [{display_title(m.title, m.name)}]({m.name}.md) reference={normalize_fact_scope(m.scope)}/"
            f"{slug(m.name)}.md id={m.id} revision={m.revision} scope={normalize_fact_scope(m.scope)} "
            f"type={normalize_type(m.type)} - {one_line(m.description)}\n"
        )
    return trim_space("".join(out))


_ARG_TYPES = {"operation": str, "query": str, "name": str, "type": str, "scope": str, "limit": int}


def _parse_args(arguments: Mapping[str, Any] | str | bytes | None) -> dict[str, Any]:
    if arguments is None:
        arguments = {}
    arguments = json_object(arguments, MemoryToolError)
    args: dict[str, Any] = {"operation": "", "query": "", "name": "", "type": "", "scope": "", "limit": 0}
    for key, want in _ARG_TYPES.items():
        if key not in arguments or arguments[key] is None:
            continue
        value = arguments[key]
        if want is int:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
                raise MemoryToolError(f"invalid arguments: {key} must be an integer")
            value = int(value)
        elif not isinstance(value, str):
            raise MemoryToolError(f"invalid arguments: {key} must be a string")
        args[key] = value
    return args


def memory_tool_call(
    store: Store | None,
    arguments: Mapping[str, Any] | str | bytes | None,
    *,
    settings: Settings | None = None,
    facts: Sequence[Fact] | None = None,
) -> str:
    """Run the ``memory`` tool as Reasonix does and return its text.

    ``store`` provides the facts (``list_all``) and ``read`` lookups; ``facts`` may be
    passed instead for search/list (a snapshot). Raises :class:`MemoryToolError`.
    """
    args = _parse_args(arguments)
    settings = settings or (store.settings if store is not None else Settings())
    if store is None and facts is None or settings.no_memory:
        return "Memory store is unavailable."
    type_ = type_filter(args["type"])
    scope = scope_filter(args["scope"])
    limit = clamp_limit(args["limit"])
    op = trim_space(args["operation"])
    if op == "search":
        if store is not None and getattr(store, "long_lived", False):
            build_postings_in_background()
        all_facts = facts if facts is not None else store.snapshot().facts  # type: ignore[union-attr]  # a store is given whenever facts is not
        hits = search_memories(
            all_facts,
            args["query"],
            type_=type_,
            scope=scope,
            limit=limit,
            resolved=settings.recall_mode != "reasonix-exact",
        )
        return format_search(args["query"], hits)
    if op == "read":
        fact = _read(store, facts, args["name"])
        if fact is None:
            raise MemoryToolError(f"memory {go_quote(slug(args['name']))} not found")
        return format_read(fact)
    if op == "list":
        all_facts = facts if facts is not None else store.list_all()  # type: ignore[union-attr]  # a store is given whenever facts is not
        return format_list(filter_facts(all_facts, type_, scope), limit)
    if op == "":
        raise MemoryToolError("operation is required")
    raise MemoryToolError(f"unknown operation {go_quote(args['operation'])}")


def _read(store: Store | None, facts: Sequence[Fact] | None, name: str) -> Fact | None:
    if store is not None:
        return store.find(name)
    assert facts is not None
    from dataclasses import replace

    found = get_index(facts).resolve_ref(name)
    return replace(found, name=slug(found.name)) if found is not None else None

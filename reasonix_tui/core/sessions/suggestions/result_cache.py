"""The caches of a suggestion listing: the ranked result, and the merge state.

The result is keyed by everything the candidates depend on (facts, instruction documents,
imported files, the misses log, skill names, the window, the code) and every transcript's
version; an unchanged workspace lists from it without mining or merging. The merge state
keeps the clusters of the last computation, so statements of new or changed transcripts
join them instead of everything being compared again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ...paths import Layout
from .mining import cache_path, miner_stamp
from .workspace_inputs import existing_skill_names, instruction_docs

RESULT_MAGIC = b"RXTSUGR1"


def result_path(layout: Layout) -> str:
    return cache_path(layout)[: -len(".marshal")] + ".result.marshal"


def stat_sig(path: str | os.PathLike[str]) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def dir_sig(directory: str | os.PathLike[str], suffixes: tuple[str, ...] = ("",)) -> list[str]:
    try:
        with os.scandir(directory) as it:
            return sorted(f"{e.name}:{stat_sig(e.path)}" for e in it if e.name.endswith(suffixes) and e.is_file())
    except OSError:
        return []


def transcript_sigs(listing: Sequence[tuple[str, str, os.stat_result, bool]]) -> dict[str, str]:
    """Every transcript's version (size, mtime, and its branch meta's for a Reasonix session)."""
    return {
        path: f"{fmt}:{st.st_size}:{st.st_mtime_ns}:" + (stat_sig(path + ".meta") if fmt == "reasonix" else "")
        for path, fmt, st, _filtered in listing
    }


def base_key(layout: Layout, window: int, include_claude: bool) -> str:
    """What the candidates depend on besides the transcripts: the facts, the instruction
    documents, the imported files, the misses log, existing skill names, the window and
    the code that computes them."""
    import hashlib

    h = hashlib.sha256()

    def put(*parts: object) -> None:
        h.update("\0".join(str(p) for p in parts).encode("utf-8", "surrogatepass") + b"\n")

    put("v2", miner_stamp(), code_stamp(), window, include_claude, abs_ws(layout))
    for d in (layout.project_dir, layout.global_dir):
        put("facts", d, *dir_sig(d, (".md",)))
    for label, body in instruction_docs(layout):
        put("instructions", label, hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest())
    if include_claude:
        from ..claude import claude_project_dir

        cdir = claude_project_dir(layout.workspace)
        put("claude-memory", *(dir_sig(cdir / "memory", (".md",)) if cdir is not None else []))
    from .imports import agent_note_files

    for path, scope in agent_note_files(layout):
        put("notes", path, scope, stat_sig(path))
    from .imports import misses_path

    put("misses", stat_sig(misses_path(layout)))
    put("skills", *sorted(existing_skill_names(layout)))
    return h.hexdigest()


def result_key(base: str, sigs: dict[str, str]) -> str:
    """The base key and every transcript's version."""
    import hashlib

    h = hashlib.sha256(base.encode("ascii"))
    for path in sorted(sigs):
        h.update((path + "\0" + sigs[path] + "\n").encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def abs_ws(layout: Layout) -> str:
    """The workspace, absolute."""
    return os.path.abspath(str(layout.workspace))


def code_stamp() -> str:
    from ...store.sealed import source_stamp

    here = os.path.dirname(os.path.abspath(__file__))
    return source_stamp(
        *(
            os.path.join(here, n)
            for n in (
                "api.py",
                "workspace_inputs.py",
                "result_cache.py",
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


def load_result(layout: Layout, key: str) -> tuple[tuple[Any, ...], tuple[Any, ...], int, int] | None:
    """The cached candidates as raw tuples (objects are built only for what is shown)."""
    from ...store.sealed import read_sealed

    data = read_sealed(result_path(layout), RESULT_MAGIC)
    if type(data) is not tuple or len(data) != 6 or data[0] != key:
        return None
    if not isinstance(data[1], tuple) or not isinstance(data[2], tuple):
        return None
    return data[1], data[2], int(data[3]), int(data[4])


def load_terms_memo(layout: Layout) -> None:
    """Terms of texts the last computation analysed (valid whatever its key)."""
    from ...store.sealed import read_sealed
    from .items import TERMS_MEMO

    data = read_sealed(result_path(layout), RESULT_MAGIC)
    if type(data) is tuple and len(data) == 6 and isinstance(data[5], dict) and data[5].get("stamp") == code_stamp():
        memo = data[5].get("terms")
        if isinstance(memo, dict):
            TERMS_MEMO.update(memo)


def save_result(
    layout: Layout, key: str, memories: tuple[Any, ...], skills: tuple[Any, ...], covered: int, sessions: int
) -> None:
    from ...store.sealed import write_sealed
    from .items import TERMS_MEMO

    try:
        memo = {"stamp": code_stamp(), "terms": dict(TERMS_MEMO)}
        write_sealed(result_path(layout), RESULT_MAGIC, (key, memories, skills, covered, sessions, memo))
    except (OSError, ValueError):
        pass


MERGE_MAGIC = b"RXTSUGM1"


def merge_path(layout: Layout) -> str:
    return cache_path(layout)[: -len(".marshal")] + ".merge.marshal"


def load_merge(layout: Layout, base: str) -> tuple[dict[str, str], frozenset[str], list[list[tuple[str, ...]]]] | None:
    """The merge state of the last computation when it was made with the same facts,
    instructions, imports, window and code: ``(transcript versions, tools, clusters as
    member refs)``."""
    from ...store.sealed import read_sealed

    data = read_sealed(merge_path(layout), MERGE_MAGIC)
    if type(data) is not tuple or len(data) != 4 or data[0] != base:
        return None
    sigs, tools, clusters = data[1], data[2], data[3]
    if not isinstance(sigs, dict) or not isinstance(tools, (set, frozenset)) or not isinstance(clusters, list):
        return None
    return sigs, frozenset(tools), clusters


def save_merge(
    layout: Layout, base: str, sigs: dict[str, str], tools: frozenset[str], clusters: Sequence[Sequence[Any]]
) -> None:
    from ...store.sealed import write_sealed

    refs = [[m.ref for m in c] for c in clusters]
    try:
        write_sealed(merge_path(layout), MERGE_MAGIC, (base, sigs, tools, refs))
    except (OSError, ValueError):
        pass


def names_tool(it: Any, names: frozenset[str]) -> bool:
    """The item says one of these words as a word or as the head of inline code."""
    return any(w in names for w in it.words) or any(
        v.startswith("code:") and v[5:].split(" ", 1)[0] in names for v in it.values
    )


def kept_clusters(
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
            if retooled and names_tool(it, retooled):
                continue
            kept.add(r)
            members.append(it)
        if members:
            seed.append(members)
    return seed, [it for it in items if it.ref not in kept]

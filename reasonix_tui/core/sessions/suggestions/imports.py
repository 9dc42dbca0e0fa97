"""Candidates from files rather than conversations.

* ``claude-memory`` — the workspace's Claude Code auto-memory
  (``~/.claude/projects/<project>/memory/*.md``): topic files (frontmatter ``name``,
  ``description``, ``type``) and ``MEMORY.md`` bullets that do not just link a topic file;
* ``agent-notes`` — bullets (or plain lines) of other agents' instruction documents
  (``GEMINI.md``, ``.cursorrules``, ``.cursor/rules/*.md[c]``,
  ``.github/copilot-instructions.md``, ``.windsurfrules``, ``.clinerules``,
  ``CONVENTIONS.md``; ``~/.claude/CLAUDE.md``, ``~/.codex/AGENTS.md``, ``~/.gemini/GEMINI.md``);
* ``memory-wanted`` — history searches that found nothing, at least twice in this
  workspace. These are questions: accepting one needs the person's answer as the body.

Each becomes an :class:`~.candidates.Item`, merged with what the sessions said.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...compat.encoding import read_text
from ...compat.gostr import one_line, trim_space
from ...compat.gotime import Timestamp, parse_rfc3339
from ...paths import Layout, abs_clean
from ..claude import claude_home, claude_project_dir
from .model import Evidence

if TYPE_CHECKING:
    from .items import Item

__all__ = [
    "claude_memory_items",
    "agent_note_items",
    "wanted_items",
    "agent_note_files",
    "home_label",
    "IMPORT_LIMIT_PER_SOURCE",
    "WANTED_MIN_MISSES",
]

IMPORT_LIMIT_PER_SOURCE = 20
"""Notes imported from one file at most."""
WANTED_MIN_MISSES = 2
"""Zero-result searches needed before a query becomes a candidate."""

_MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")


def home_label(path: Path) -> str:
    """``~/…`` for a path under the home directory."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    p = str(path)
    if home and (p == home or p.startswith(home.rstrip(os.sep) + os.sep)):
        return "~" + p[len(home.rstrip(os.sep)) :]
    return p


def _file_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _note_item(text: str, label: str, lineno: int, path: Path, origin: str, scope: str) -> Item | None:
    from .items import IMPORT_SCORES, Item
    from .signals import score_sentence

    statement = one_line(text)
    if len(statement) < 8 or len(statement) > 420:
        return None
    at = _file_ns(path)
    sc = score_sentence(statement)
    return Item(
        origin=origin,
        score=IMPORT_SCORES[origin],
        reasons=[
            "kept by Claude Code's auto-memory" if origin == "claude-memory" else f"note in {os.path.basename(label)}"
        ],
        text=statement,
        core=statement,
        at_ns=at,
        sources=[Evidence(origin, label, statement, Timestamp(at) if at else None, str(path), lineno)],
        group=label,
        policy=sc.policy,
        scope=scope,
        id_prefix="claude-" if origin == "claude-memory" else "notes-",
    )


def claude_memory_items(layout: Layout) -> list[Item]:
    """The workspace's Claude Code auto-memory files."""
    from ...markdown import read_markdown
    from ...store.model import normalize_type, slug
    from .items import IMPORT_SCORES, Item
    from .signals import score_sentence
    from .titles import readable_name

    cdir = claude_project_dir(layout.workspace)
    if cdir is None:
        return []
    mdir = cdir / "memory"
    try:
        files = sorted(p for p in mdir.iterdir() if p.suffix == ".md" and p.is_file())
    except OSError:
        return []
    out: list[Item] = []
    for path in files:
        label = home_label(path)
        try:
            text = read_text(path).text
        except OSError:
            continue
        if path.name == "MEMORY.md":
            count = 0
            for lineno, line in enumerate(text.splitlines(), 1):
                m = _BULLET.match(line)
                if not m:
                    continue
                links = [t for t in _MD_LINK.findall(m.group(1)) if t.endswith(".md") and (mdir / t).exists()]
                if links:
                    continue
                item = _note_item(m.group(1), label, lineno, path, "claude-memory", "project")
                if item is not None:
                    out.append(item)
                    count += 1
                    if count >= IMPORT_LIMIT_PER_SOURCE:
                        break
            continue
        doc = read_markdown(text)
        meta = doc.metadata
        body = trim_space(doc.body)
        description = one_line(str(meta.get("description") or "")) or one_line(body.split("\n", 1)[0] if body else "")
        if not body or not description:
            continue
        raw_name = str(meta.get("name") or path.stem)
        name = slug(raw_name) if slug(raw_name) else readable_name(description, body, "claude-memory")
        title = one_line(str(meta.get("title") or "")) or description
        at = _file_ns(path)
        sc = score_sentence(description)
        out.append(
            Item(
                origin="claude-memory",
                score=IMPORT_SCORES["claude-memory"],
                reasons=["kept by Claude Code's auto-memory"],
                text=description + " " + one_line(body),
                core=description,
                at_ns=at,
                sources=[Evidence("claude-memory", label, description, Timestamp(at) if at else None, str(path), 0)],
                group=label,
                policy=sc.policy,
                name=name,
                title=title,
                type=normalize_type(str(meta.get("type") or "")) if meta.get("type") else "",
                body=body,
                id_prefix="claude-",
            )
        )
        if len(out) >= IMPORT_LIMIT_PER_SOURCE * 2:
            break
    return out


def agent_note_files(layout: Layout) -> list[tuple[Path, str]]:
    """Other agents' instruction documents that exist: ``(path, scope)``."""
    ws = layout.workspace
    home = Path(os.environ.get("HOME") or os.path.expanduser("~"))
    candidates: list[tuple[Path, str]] = [
        (ws / "GEMINI.md", "project"),
        (ws / ".cursorrules", "project"),
        (ws / ".windsurfrules", "project"),
        (ws / ".github" / "copilot-instructions.md", "project"),
        (ws / "CONVENTIONS.md", "project"),
    ]
    for d in (ws / ".cursor" / "rules", ws / ".clinerules"):
        if d.is_dir():
            try:
                candidates += [
                    (p, "project") for p in sorted(d.iterdir()) if p.suffix in (".md", ".mdc") and p.is_file()
                ]
            except OSError:
                pass
    if (ws / ".clinerules").is_file():
        candidates.append((ws / ".clinerules", "project"))
    candidates += [
        (claude_home() / "CLAUDE.md", "global"),
        (home / ".codex" / "AGENTS.md", "global"),
        (home / ".gemini" / "GEMINI.md", "global"),
    ]
    return [(p, s) for p, s in candidates if p.is_file()]


def agent_note_items(layout: Layout) -> list[Item]:
    """Bullet notes (or, without bullets, plain lines) of other agents' instruction files."""
    from ...markdown import read_markdown

    out: list[Item] = []
    for path, scope in agent_note_files(layout):
        try:
            text = read_text(path).text
        except OSError:
            continue
        doc = read_markdown(text)
        body, offset = doc.body, doc.body_line - 1
        label = home_label(path) if scope == "global" else os.path.relpath(path, layout.workspace)
        in_fence = False
        items: list[tuple[int, str]] = []
        plain: list[tuple[int, str]] = []
        for i, line in enumerate(body.splitlines(), 1 + offset):
            stripped = line.strip()
            if stripped.startswith(("```", "~~~")):
                in_fence = not in_fence
                continue
            if in_fence or not stripped or stripped.startswith(("#", "<!--")):
                continue
            m = _BULLET.match(line)
            if m:
                items.append((i, m.group(1)))
            elif not stripped.startswith(("|", ">", "---")):
                plain.append((i, stripped))
        count = 0
        for lineno, note in items or plain:
            item = _note_item(note, label, lineno, path, "agent-notes", scope)
            if item is None:
                continue
            out.append(item)
            count += 1
            if count >= IMPORT_LIMIT_PER_SOURCE:
                break
    return out


def misses_path(layout: Layout) -> str:
    """The history tool's zero-result log (``history_tool.misses_path``; not imported from there:
    that module loads numpy, which a listing does not need)."""
    return str(layout.tui_dir / "history-misses.jsonl")


def _read_misses(path: Path) -> list[dict[str, Any]]:
    import io

    from ...store.safeio import open_read

    out: list[dict[str, Any]] = []
    try:
        with io.TextIOWrapper(open_read(path), encoding="utf-8", errors="replace") as fh:  # never blocks on a FIFO
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict) and isinstance(rec.get("query"), str):
                    out.append(rec)
    except OSError:
        pass
    return out


def wanted_items(layout: Layout) -> list[Item]:
    """Queries searched at least twice in this workspace without a result."""
    from ...compat.tokenize import query_terms
    from .items import Item
    from .titles import readable_name

    ws = abs_clean(str(layout.workspace))
    groups: dict[str, list[dict[str, Any]]] = {}
    display: dict[str, str] = {}
    for rec in _read_misses(Path(misses_path(layout))):
        w = rec.get("workspace")
        if isinstance(w, str) and w and abs_clean(w) != ws:
            continue
        terms = query_terms(rec["query"])
        if not terms:
            continue
        key = " ".join(sorted(terms))
        groups.setdefault(key, []).append(rec)
        display[key] = one_line(rec["query"])
    out: list[Item] = []
    for key, recs in groups.items():
        if len(recs) < WANTED_MIN_MISSES:
            continue
        query = display[key]
        times = [parse_rfc3339(r.get("at")) for r in recs]
        last = max((t for t in times if t is not None), default=None)
        n = len(recs)
        body = (
            f"{query}\n\n"
            f"**Why:** Searched {n} times in session history without a result"
            + (f" (last {last.rfc3339()})" if last else "")
            + ".\n"
            "**How to apply:** Replace this draft with the answer before saving.\n"
        )
        name = readable_name(query, query, "memory-wanted")
        out.append(
            Item(
                origin="memory-wanted",
                score=2.5 + 0.25 * min(n - 2, 4),
                reasons=[f"searched {n} times without a result"],
                text=f"Answer for: {query}",
                core=query,
                at_ns=last.ns if last else 0,
                sources=[
                    Evidence(
                        "history-miss",
                        str(r.get("via") or ""),
                        one_line(r["query"]),
                        parse_rfc3339(r.get("at")),
                        misses_path(layout),
                    )
                    for r in recs[-4:]
                ],
                group="history-misses",
                name=name,
                title="Memory wanted: " + query,
                body=body,
                needs_edit=True,
                id_prefix="wanted-",
            )
        )
    out.sort(key=lambda it: (-len(it.sources), -it.at_ns, it.core))
    return out

"""Memory and skill suggestions: drafts a person reviews, never writes by themselves.

Spec: instructions-history-suggestions §C (Reasonix ``desktop/memory_suggestions.go``).

Sources, each candidate carrying its evidence (where, when, the sentence):

* ``history`` — explicit long-lived preferences, rules and conventions in the user turns
  of the 12 most recent sessions (Reasonix §C.2, exact: markers in list order, English
  and Chinese, statement cut, dedup against facts of both scopes and instruction bodies,
  type inference, stable names, titles, evidence and body formats, 6 at most). Sessions
  are the workspace's Reasonix sessions (``<root>/projects/<slug>/sessions``, plus CLI
  sessions in ``<root>/sessions`` whose branch meta names this workspace) and its Claude
  Code transcripts.
* ``skills`` — repeated workflows across those sessions (§C.3, exact categories).
* ``memory-wanted`` — history searches that found nothing, repeatedly (logged by the
  history tool to ``<root>/reasonix-tui/history-misses.jsonl``). These are questions, not
  answers: accepting one needs an edited body.
* ``claude-memory`` — the workspace's Claude Code auto-memory files
  (``~/.claude/projects/<project>/memory/*.md``).
* ``agent-notes`` — notes in other agents' instruction documents (``GEMINI.md``,
  ``.cursorrules``, ``.cursor/rules``, ``.github/copilot-instructions.md``,
  ``.windsurfrules``, ``.clinerules``, ``CONVENTIONS.md``, ``~/.claude/CLAUDE.md``,
  ``~/.codex/AGENTS.md``, ``~/.gemini/GEMINI.md``).

A dismissed candidate stays dismissed (ids are stable: they derive from the text), and
an accepted one is not offered again; both are recorded in
``<root>/reasonix-tui/suggestions.json``. Accepting writes through :meth:`Store.save` as
the person's own action (§C.4's name rule), or creates a ``SKILL.md`` without overwriting.

The TUI pane calls :func:`list_suggestions`, :func:`accept_suggestion`,
:func:`dismiss_suggestion` and :func:`restore_suggestion`.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .encoding import read_text
from .gostr import fields, fnv1a32, is_space, one_line, to_lower, trim_space
from .gotime import Timestamp, parse_rfc3339
from .paths import Layout, abs_clean
from .sessions import (
    FORMAT_CLAUDE,
    FORMAT_REASONIX,
    Message,
    branch_meta_updated,
    claude_home,
    claude_project_dir,
    is_user_authored_turn_message,
    is_visible_session,
    list_transcripts,
    read_transcript,
    session_id_of,
    user_message_text,
)
from .settings import load_settings
from .store.atomic import atomic_create, atomic_write
from .store.safeio import open_read, read_regular
from .store.fileformat import split_frontmatter
from .store.model import InvalidInput, NotFound, StoreError, normalize_fact_scope, normalize_type, slug
from .store.yamlv3 import scalar as yaml_scalar

__all__ = [
    "SUGGESTION_SESSION_LIMIT",
    "MEMORY_SUGGESTION_LIMIT",
    "MEMORY_MARKERS",
    "WORKFLOW_CATEGORIES",
    "Evidence",
    "MemorySuggestion",
    "SkillSuggestion",
    "SuggestionsView",
    "SuggestionEdits",
    "AcceptResult",
    "SuggestionSession",
    "list_suggestions",
    "accept_suggestion",
    "dismiss_suggestion",
    "restore_suggestion",
    "find_suggestion",
    "load_suggestion_sessions",
    "suggest_memories",
    "suggest_skills",
    "suggest_wanted",
    "suggest_claude_memories",
    "suggest_agent_notes",
    "existing_memory_texts",
    "existing_covers",
    "extract_memory_statement",
    "infer_memory_type",
    "ascii_slug",
    "stable_suggestion_name",
    "accepted_suggestion_name",
    "is_well_formed_slug",
    "normalize_suggestion_key",
    "memory_candidate_body",
    "skill_candidate_body",
    "session_evidence",
    "state_path",
    "render_skill_file",
]

SUGGESTION_SESSION_LIMIT = 12
"""Recent sessions scanned (``suggestionSessionLimit``)."""
MEMORY_SUGGESTION_LIMIT = 6
"""History-derived memory candidates (``memorySuggestionLimit``)."""
WANTED_LIMIT = 6
"""Memory-wanted candidates."""
WANTED_MIN_MISSES = 2
"""Zero-result searches needed before a query becomes a candidate."""
IMPORT_LIMIT_PER_SOURCE = 20
"""Candidates imported from one file at most."""

MEMORY_MARKERS: tuple[tuple[str, str], ...] = (
    ("记住", "explicit remember request"),
    ("以后", "future-facing preference"),
    ("始终", "persistent working rule"),
    ("总是", "persistent working rule"),
    ("每次", "repeated workflow preference"),
    ("默认", "default behavior preference"),
    ("不要", "negative working preference"),
    ("偏好", "user preference"),
    ("规则", "durable rule"),
    ("约定", "project convention"),
    ("remember", "explicit remember request"),
    ("always", "persistent working rule"),
    ("never", "negative working preference"),
    ("prefer", "user preference"),
    ("preference", "user preference"),
    ("by default", "default behavior preference"),
)
"""Reasonix's markers, in match order, with their reasons."""


@dataclass(frozen=True, slots=True)
class WorkflowCategory:
    """One repeated-workflow category (Reasonix ``workflowCategory``)."""

    name: str
    description: str
    reason: str
    keywords: tuple[str, ...]
    steps: tuple[str, ...]


WORKFLOW_CATEGORIES: tuple[WorkflowCategory, ...] = (
    WorkflowCategory(
        name="reasonix-pr-followup",
        description="Review or update a Reasonix GitHub PR, address feedback, verify, and publish safely.",
        reason="recent history repeatedly touched PR review, bot feedback, commits, or GitHub publication",
        keywords=("pr", "pull request", "github", "review", "机器人", "评审", "提交到pr", "更新pr", "code rabbit", "coderabbit"),
        steps=(
            "Fetch the live PR state and confirm branch, base, head SHA, and review status.",
            "Inspect the real diff and related implementation before changing code.",
            "Fix only actionable feedback, run focused verification, and keep cache-sensitive surfaces stable.",
            "Stage intended files, commit with an English behavior-focused message, push to the verified PR head, and update the PR.",
        ),
    ),
    WorkflowCategory(
        name="reasonix-memory-ui",
        description="Iterate on the Reasonix desktop Memory page with source-backed UI decisions and browser verification.",
        reason="recent history repeatedly discussed Memory page layout, labels, filters, and interaction details",
        keywords=("memory", "记忆", "设置-记忆", "memory panel", "指令文件", "归档", "全局", "项目", "添加记忆"),
        steps=(
            "Identify the active Memory settings component and current browser-rendered state before editing.",
            "Keep active memories, archived memories, instruction files, and suggestions visually distinct.",
            "Use neutral secondary actions and confirmation for persistent writes or archive operations.",
            "Run frontend checks and verify the affected Memory page in the in-app browser.",
        ),
    ),
    WorkflowCategory(
        name="desktop-ui-iteration",
        description="Apply focused desktop UI layout feedback, preserve existing design tokens, and verify in browser.",
        reason="recent history repeatedly involved screenshot-driven desktop UI layout and interaction feedback",
        keywords=("ui", "布局", "设计", "交互", "红框", "页面", "按钮", "浏览器", "frontend", "desktop"),
        steps=(
            "Map the screenshot target to the exact component, selector, and state in source.",
            "Patch the smallest component and CSS surface using existing settings/page recipes.",
            "Check responsive behavior and text overflow for the changed controls.",
            "Verify with the running local UI instead of relying only on code inspection.",
        ),
    ),
)
"""Reasonix's three workflow categories (``workflowCategories``), verbatim."""


# --------------------------------------------------------------------------------------
# Data the pane shows


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a candidate came from: a person can open it and check."""

    source: str
    """``session`` | ``claude-session`` | ``history-miss`` | ``claude-memory`` | ``agent-notes``."""
    label: str
    """Session id, or a file label (``~/.claude/CLAUDE.md``)."""
    text: str
    """The sentence (one line)."""
    at: Timestamp | None = None
    """When it was said / searched / last modified."""
    path: str = ""
    """The transcript or file."""
    line: int = 0
    """Message index (sessions) or 1-based line (files); 0 when not applicable."""

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "source": self.source,
            "label": self.label,
            "text": self.text,
            "at": self.at.rfc3339() if self.at else None,
            "path": self.path,
            "line": self.line,
        }


@dataclass(frozen=True, slots=True)
class MemorySuggestion:
    """A draft fact (Reasonix ``MemorySuggestion`` plus provenance)."""

    id: str
    name: str
    title: str
    description: str
    type: str
    scope: str
    body: str
    reason: str
    evidence: tuple[str, ...]
    """Reasonix's evidence strings (``<session>: <sentence>``)."""
    origin: str = "history"
    """``history`` | ``memory-wanted`` | ``claude-memory`` | ``agent-notes``."""
    sources: tuple[Evidence, ...] = ()
    """Structured evidence."""
    needs_edit: bool = False
    """True for memory-wanted: accepting requires a body written by the person."""

    kind = "memory"

    def to_json(self) -> dict[str, Any]:
        """Reasonix's JSON fields, then ours."""
        return {
            "id": self.id,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "type": self.type,
            "scope": self.scope,
            "body": self.body,
            "reason": self.reason,
            "evidence": list(self.evidence),
            "origin": self.origin,
            "needsEdit": self.needs_edit,
            "sources": [e.to_json() for e in self.sources],
        }


@dataclass(frozen=True, slots=True)
class SkillSuggestion:
    """A draft skill (Reasonix ``SkillSuggestion`` plus provenance)."""

    id: str
    name: str
    description: str
    scope: str
    body: str
    reason: str
    evidence: tuple[str, ...]
    sources: tuple[Evidence, ...] = ()

    kind = "skill"
    origin = "skills"

    @property
    def title(self) -> str:
        """Display title (the name)."""
        return self.name

    def to_json(self) -> dict[str, Any]:
        """Reasonix's JSON fields, then ours."""
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "scope": self.scope,
            "body": self.body,
            "reason": self.reason,
            "evidence": list(self.evidence),
            "origin": self.origin,
            "sources": [e.to_json() for e in self.sources],
        }


Suggestion = MemorySuggestion | SkillSuggestion


@dataclass(frozen=True, slots=True)
class SuggestionsView:
    """The Suggestions pane's payload (Reasonix ``MemorySuggestionsView`` plus counts)."""

    memories: tuple[MemorySuggestion, ...] = ()
    skills: tuple[SkillSuggestion, ...] = ()
    generated_at: Timestamp | None = None
    available: bool = False
    """False when memory is disabled (``REASONIX_EXPERIMENT_NO_MEMORY``)."""
    source: str = "local-history"
    sessions: int = 0
    """Sessions scanned."""
    hidden: int = 0
    """Candidates not shown because they were dismissed or accepted."""
    dismissed: frozenset[str] = frozenset()
    """Ids of shown candidates that were dismissed (only with ``include_hidden``)."""
    accepted: frozenset[str] = frozenset()
    """Ids of shown candidates that were accepted (only with ``include_hidden``)."""

    def all(self) -> tuple[Suggestion, ...]:
        """Memories then skills."""
        return (*self.memories, *self.skills)

    def state_of(self, suggestion_id: str) -> str:
        """``dismissed``, ``accepted`` or ``""`` (open)."""
        if suggestion_id in self.dismissed:
            return "dismissed"
        if suggestion_id in self.accepted:
            return "accepted"
        return ""

    def to_json(self) -> dict[str, Any]:
        """Reasonix's payload shape (arrays never null), then ours."""
        return {
            "memories": [m.to_json() for m in self.memories],
            "skills": [s.to_json() for s in self.skills],
            "generatedAt": _rfc3339_seconds(self.generated_at or Timestamp.now()),
            "available": self.available,
            "source": self.source,
            "sessions": self.sessions,
            "hidden": self.hidden,
            "dismissed": sorted(self.dismissed),
            "accepted": sorted(self.accepted),
        }


@dataclass(frozen=True, slots=True)
class SuggestionEdits:
    """What the person changed before accepting (``None`` keeps the draft's value)."""

    name: str | None = None
    title: str | None = None
    description: str | None = None
    type: str | None = None
    scope: str | None = None
    body: str | None = None


@dataclass(frozen=True, slots=True)
class AcceptResult:
    """What accepting wrote."""

    id: str
    """The suggestion id."""
    kind: str
    """``memory`` or ``skill``."""
    path: str
    """The written file."""
    fact: Any = None
    """The saved :class:`~reasonix_tui.core.store.model.Fact` (memories)."""
    created: bool = True
    """False when an existing fact of that name got a new revision."""


@dataclass(frozen=True, slots=True)
class SuggestionSession:
    """A loaded session (Reasonix ``suggestionSession``)."""

    path: str
    id: str
    last_seen: Timestamp
    messages: tuple[Message, ...]
    format: str = FORMAT_REASONIX


# --------------------------------------------------------------------------------------
# Reasonix helpers, exact


def _rfc3339_seconds(ts: Timestamp) -> str:
    """Go ``time.RFC3339`` in UTC (whole seconds)."""
    return Timestamp(ts.ns - ts.ns % 1_000_000_000).rfc3339()


def normalize_suggestion_key(s: str) -> str:
    """``strings.ToLower(strings.Join(strings.Fields(s), " "))``."""
    return to_lower(" ".join(fields(s)))


def _truncate(s: str, n: int) -> str:
    """Reasonix ``truncateRunes``: trim, then ``n-1`` runes plus ``...`` when longer."""
    if n <= 0:
        return ""
    r = trim_space(s)
    if len(r) <= n:
        return r
    return r[: n - 1] + "..."


def _has_any(hay: str, needles: Sequence[str]) -> bool:
    hay = to_lower(hay)
    return any(to_lower(n) in hay for n in needles)


def ascii_slug(s: str) -> str:
    """Reasonix ``asciiSlug``: ``a-z0-9`` kept, ``-_.`` and spaces → one ``-``, 56 bytes."""
    s = to_lower(trim_space(s))
    out: list[str] = []
    last_dash = False
    for ch in s:
        if "a" <= ch <= "z" or "0" <= ch <= "9":
            out.append(ch)
            last_dash = False
        elif ch in "-_." or is_space(ch):
            if out and not last_dash:
                out.append("-")
                last_dash = True
        if len(out) >= 56:
            break
    return "".join(out).strip("-")


def _suggestion_name(given: str, source: str, fallback: str) -> str:
    for value in (given, source, fallback):
        name = ascii_slug(value)
        if name:
            return name
    return "candidate"


def stable_suggestion_name(source: str, fallback: str = "memory-candidate") -> str:
    """Reasonix ``stableSuggestionName``: the slug, or slug + FNV-1a-32 of the text."""
    s = ascii_slug(source)
    if s and len(s) < 56:
        return s
    base = _suggestion_name("", source, fallback)
    return f"{base}-{fnv1a32(source.encode('utf-8', 'surrogatepass')):08x}"


def is_well_formed_slug(s: str) -> bool:
    """``a-z0-9`` and single ``-``, no leading/trailing ``-``, at most 128 bytes."""
    if not s or len(s.encode("utf-8")) > 128 or s[0] == "-" or s[-1] == "-":
        return False
    prev_dash = False
    for ch in s:
        if "a" <= ch <= "z" or "0" <= ch <= "9":
            prev_dash = False
        elif ch == "-":
            if prev_dash:
                return False
            prev_dash = True
        else:
            return False
    return True


def accepted_suggestion_name(given: str, description: str) -> str:
    """§C.4: keep a well-formed given name, else derive one from the description."""
    if is_well_formed_slug(given):
        return given
    return _suggestion_name("", description, "memory-candidate")


def _trim_memory_lead(text: str, marker: str) -> str:
    """Cut from the marker (byte index found in the lower-cased text, as Go does)."""
    lower = to_lower(text).encode("utf-8", "surrogatepass")
    idx = lower.find(marker.encode("utf-8"))
    if idx < 0:
        return text
    raw = text.encode("utf-8", "surrogatepass")
    trimmed = trim_space(raw[idx:].decode("utf-8", "replace"))
    for sep in ("：", ":", "-", "—"):
        prefix = marker + sep
        if trimmed.startswith(prefix):
            trimmed = trimmed[len(prefix):]
    return trim_space(trimmed)


def extract_memory_statement(content: str) -> tuple[str, str]:
    """Reasonix ``extractMemoryStatement``: ``(statement, reason)`` or ``("", "")``."""
    text = one_line(content)
    if len(text) < 8 or len(text) > 420:
        return "", ""
    lower = to_lower(text)
    for marker, reason in MEMORY_MARKERS:
        if marker in lower:
            return _trim_memory_lead(text, marker), reason
    return "", ""


def infer_memory_type(statement: str) -> str:
    """Reasonix ``inferMemoryType`` (substring tests, first match wins)."""
    lower = to_lower(statement)
    if "http://" in lower or "https://" in lower or "github.com/" in lower:
        return "reference"
    if _has_any(lower, ("反馈", "回复", "回答", "不要", "always", "never", "始终", "总是")):
        return "feedback"
    if _has_any(lower, ("项目", "分支", "pr", "pull request", "仓库", "repo", "约定")):
        return "project"
    return "user"


def _title(s: str, fallback: str) -> str:
    t = _truncate(one_line(s), 64)
    return t if t else fallback


def session_evidence(session_id: str, path: str, text: str) -> str:
    """``<sessionID>: <one-lined text, 160 runes>`` (basename when the id is empty)."""
    label = session_id or os.path.basename(path)
    return label + ": " + _truncate(one_line(text), 160)


def memory_candidate_body(statement: str, reason: str, session_id: str) -> str:
    """Reasonix ``memoryCandidateBody``."""
    out = trim_space(statement) + "\n\n**Why:** Suggested from recent local history"
    if reason:
        out += " (" + reason + ")"
    out += ".\n"
    out += "**How to apply:** Treat this as durable guidance only after the user confirms it still applies.\n"
    if session_id:
        out += "\nEvidence: [" + session_id + "] " + _truncate(statement, 180)
    return out


def _go_title(s: str) -> str:
    """``cases.Title(language.Und)`` for the ASCII category names."""
    return " ".join(w[:1].upper() + w[1:].lower() for w in s.split(" "))


def skill_candidate_body(cat: WorkflowCategory, evidence: Sequence[str]) -> str:
    """Reasonix ``skillCandidateBody``."""
    title = cat.name.replace("-", " ")
    if title.startswith("reasonix "):
        title = title[len("reasonix "):]
    out = "# " + _go_title(title) + "\n\n"
    out += "Use this skill when the user asks for this repeated Reasonix workflow.\n\n"
    out += "## Evidence\n\n"
    for ev in evidence:
        out += "- " + ev + "\n"
    out += "\n## Workflow\n\n"
    for i, step in enumerate(cat.steps, 1):
        out += f"{i}. {step}\n"
    out += "\n## Stop Condition\n\n"
    out += "Finish only after the requested change is implemented, verified, and any requested PR or UI update is delivered.\n"
    return out


def existing_covers(existing: Sequence[str], key: str) -> bool:
    """Covered when some non-empty existing text contains the key, or the key contains it."""
    if not key:
        return True
    return any(text and (key in text or text in key) for text in existing)


# --------------------------------------------------------------------------------------
# What already exists


def existing_memory_texts(layout: Layout, store: Any = None) -> list[str]:
    """Normalised instruction bodies plus ``name title description body`` of every active
    fact in both scopes (Reasonix ``existingMemoryText``)."""
    out: list[str] = []
    for body in _instruction_bodies(layout):
        out.append(normalize_suggestion_key(body))
    for fact in _facts(layout, store):
        out.append(normalize_suggestion_key(" ".join((fact.name, fact.title, fact.description, fact.body))))
    return out


def _instruction_bodies(layout: Layout) -> list[str]:
    try:
        from .instructions import nearest_git_root, resolve
    except ImportError:  # pragma: no cover - the module ships with the package
        return _instruction_bodies_minimal(layout)
    ws = str(layout.workspace)
    try:
        res = resolve(ws, str(layout.root), workspace_root=nearest_git_root(ws) or ws)
    except Exception:  # noqa: BLE001 - suggestions must survive a broken instruction tree
        return _instruction_bodies_minimal(layout)
    return [d.body for d in res.docs]


def _instruction_bodies_minimal(layout: Layout) -> list[str]:
    out = []
    for d in (layout.root, layout.workspace):
        for name in ("REASONIX.md", "AGENTS.md", "CLAUDE.md", "REASONIX.local.md", "AGENTS.local.md", "CLAUDE.local.md"):
            try:
                text = trim_space(read_text(Path(d) / name).text)
            except OSError:
                continue
            if text:
                out.append(text)
    return out


def _facts(layout: Layout, store: Any) -> list[Any]:
    if store is None:
        from .store.store import Store

        store = Store(layout)
    try:
        return list(store.list_all())
    except StoreError:
        return []


# --------------------------------------------------------------------------------------
# Sessions


def load_suggestion_sessions(layout: Layout, limit: int = SUGGESTION_SESSION_LIMIT, include_claude: bool = True) -> list[SuggestionSession]:
    """The most recently active sessions of this workspace (at most ``limit``).

    Reasonix ``ListSessions`` order (branch-meta ``updated_at`` or mtime, newest first,
    then path), hidden sessions and sessions without a user-authored turn skipped,
    unreadable files skipped without counting. Only the files needed are read.
    """
    candidates: list[tuple[Timestamp, str, str]] = []

    def add_dir(directory: Path, fmt: str, workspace_filter: str = "") -> None:
        visible = is_visible_session if fmt == FORMAT_REASONIX else None
        for path, st in list_transcripts(directory, visible):
            if workspace_filter and _meta_workspace(path) != workspace_filter:
                continue
            updated = branch_meta_updated(path) if fmt == FORMAT_REASONIX else None
            candidates.append((updated or Timestamp(st.st_mtime_ns), path, fmt))

    add_dir(layout.project_sessions_dir, FORMAT_REASONIX)
    if abs_clean(str(layout.global_sessions_dir)) != abs_clean(str(layout.project_sessions_dir)):
        add_dir(layout.global_sessions_dir, FORMAT_REASONIX, abs_clean(str(layout.workspace)))
    if include_claude:
        cdir = claude_project_dir(layout.workspace)
        if cdir is not None:
            add_dir(cdir, FORMAT_CLAUDE)
    candidates.sort(key=lambda c: (-c[0].ns, c[1]))
    out: list[SuggestionSession] = []
    for last, path, fmt in candidates:
        if len(out) >= limit:
            break
        t = read_transcript(path, fmt)
        if not t.ok or not any(is_user_authored_turn_message(m) for m in t.messages):
            continue
        out.append(SuggestionSession(path, session_id_of(path), last, t.messages, fmt))
    return out


def _meta_workspace(session_path: str) -> str:
    try:
        meta = json.loads(read_text(session_path + ".meta").text)
    except (OSError, ValueError):
        return ""
    root = meta.get("workspace_root") if isinstance(meta, dict) else None
    return abs_clean(root) if isinstance(root, str) and trim_space(root) else ""


def _session_source(sess: SuggestionSession) -> str:
    return "claude-session" if sess.format == FORMAT_CLAUDE else "session"


# --------------------------------------------------------------------------------------
# Candidates


def suggest_memories(
    sessions: Sequence[SuggestionSession], existing: Sequence[str], seen: set[str] | None = None
) -> list[MemorySuggestion]:
    """Reasonix ``suggestMemories`` (§C.2), exact, with structured evidence added."""
    seen = set() if seen is None else seen
    out: list[MemorySuggestion] = []
    for sess in sessions:
        for index, msg in enumerate(sess.messages):
            if not is_user_authored_turn_message(msg):
                continue
            statement, reason = extract_memory_statement(user_message_text(msg))
            if not statement:
                continue
            key = normalize_suggestion_key(statement)
            if not key or key in seen or existing_covers(existing, key):
                continue
            seen.add(key)
            name = stable_suggestion_name(statement, "memory-candidate")
            out.append(
                MemorySuggestion(
                    id="memory-" + name,
                    name=name,
                    title=_title(statement, "Memory candidate"),
                    description=one_line(statement),
                    type=infer_memory_type(statement),
                    scope="project",
                    body=memory_candidate_body(statement, reason, sess.id),
                    reason=reason,
                    evidence=(session_evidence(sess.id, sess.path, statement),),
                    origin="history",
                    sources=(
                        Evidence(_session_source(sess), sess.id, one_line(statement), msg.created_at or sess.last_seen, sess.path, index),
                    ),
                )
            )
            if len(out) >= MEMORY_SUGGESTION_LIMIT:
                return out
    return out


def _existing_skill_keys(layout: Layout) -> set[str]:
    home = Path(os.environ.get("HOME") or os.path.expanduser("~"))
    roots = [layout.workspace / d / "skills" for d in (".reasonix", ".agents", ".agent", ".claude")]
    roots += [layout.root / "skills"] + [home / d / "skills" for d in (".agents", ".agent", ".claude")]
    keys: set[str] = set()
    for root in roots:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for e in entries:
            name = e.name
            if e.is_dir() and os.path.isfile(os.path.join(e.path, "SKILL.md")):
                keys.add(_skill_name_key(name))
            elif name.endswith(".md") and e.is_file():
                keys.add(_skill_name_key(name[:-3]))
    keys.discard("")
    return keys


_VALID_SKILL_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$")


def _skill_name_key(name: str) -> str:
    """Reasonix ``config.SkillNameKey`` (lower-cased on Windows only)."""
    name = trim_space(name)
    if not _VALID_SKILL_NAME.match(name):
        return ""
    return name.lower() if os.name == "nt" else name


def suggest_skills(layout: Layout, sessions: Sequence[SuggestionSession], existing_keys: set[str] | None = None) -> list[SkillSuggestion]:
    """Reasonix ``suggestSkills`` (§C.3), exact, with structured evidence added."""
    if not sessions:
        return []
    existing_keys = _existing_skill_keys(layout) if existing_keys is None else existing_keys
    scope = "project" if trim_space(str(layout.workspace)) else "global"
    out: list[SkillSuggestion] = []
    for cat in WORKFLOW_CATEGORIES:
        if _skill_name_key(cat.name) in existing_keys:
            continue
        evidence: list[str] = []
        sources: list[Evidence] = []
        seen_sessions: set[str] = set()
        for sess in sessions:
            for index, msg in enumerate(sess.messages):
                if not is_user_authored_turn_message(msg):
                    continue
                text = one_line(user_message_text(msg))
                if not text or not _has_any(to_lower(text), cat.keywords):
                    continue
                if sess.id in seen_sessions:
                    continue
                seen_sessions.add(sess.id)
                evidence.append(session_evidence(sess.id, sess.path, text))
                sources.append(Evidence(_session_source(sess), sess.id, text, msg.created_at or sess.last_seen, sess.path, index))
                break
        if len(evidence) < 2:
            continue
        evidence, sources = evidence[:4], sources[:4]
        out.append(
            SkillSuggestion(
                id="skill-" + cat.name,
                name=cat.name,
                description=cat.description,
                scope=scope,
                body=skill_candidate_body(cat, evidence),
                reason=cat.reason,
                evidence=tuple(evidence),
                sources=tuple(sources),
            )
        )
    return out


def _read_misses(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        with io.TextIOWrapper(open_read(path), encoding="utf-8", errors="replace") as fh:
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


def suggest_wanted(layout: Layout, existing: Sequence[str], seen: set[str] | None = None) -> list[MemorySuggestion]:
    """"Memory wanted": queries searched at least twice in this workspace without a result."""
    from .history import misses_path
    from .tokenize import query_terms

    seen = set() if seen is None else seen
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
    ranked = sorted(
        ((k, v) for k, v in groups.items() if len(v) >= WANTED_MIN_MISSES),
        key=lambda kv: (-len(kv[1]), -max((parse_rfc3339(r.get("at")) or Timestamp(0)).ns for r in kv[1]), kv[0]),
    )
    out: list[MemorySuggestion] = []
    for key, recs in ranked:
        query = display[key]
        norm = normalize_suggestion_key(query)
        if not norm or norm in seen or existing_covers(existing, norm):
            continue
        seen.add(norm)
        name = stable_suggestion_name(query, "memory-wanted")
        times = [parse_rfc3339(r.get("at")) for r in recs]
        last = max((t for t in times if t is not None), default=None)
        n = len(recs)
        description = f"Answer for: {query}"
        body = (
            f"{query}\n\n"
            f"**Why:** Searched {n} times in session history without a result"
            + (f" (last {last.rfc3339()})" if last else "")
            + ".\n"
            "**How to apply:** Replace this draft with the answer before saving.\n"
        )
        out.append(
            MemorySuggestion(
                id="wanted-" + name,
                name=name,
                title=_title("Memory wanted: " + query, "Memory wanted"),
                description=description,
                type=infer_memory_type(query),
                scope="project",
                body=body,
                reason=f"searched {n} times without a result",
                evidence=tuple(f"history search ({r.get('via') or 'unknown'}, {r.get('at') or 'unknown'}): {_truncate(one_line(r['query']), 160)}" for r in recs[-4:]),
                origin="memory-wanted",
                sources=tuple(
                    Evidence("history-miss", str(r.get("via") or ""), one_line(r["query"]), parse_rfc3339(r.get("at")), misses_path(layout))
                    for r in recs[-4:]
                ),
                needs_edit=True,
            )
        )
        if len(out) >= WANTED_LIMIT:
            break
    return out


def _file_time(path: Path) -> Timestamp | None:
    try:
        return Timestamp(path.stat().st_mtime_ns)
    except OSError:
        return None


def _import_body(statement: str, label: str, line: int) -> str:
    where = f"{label}:{line}" if line else label
    return (
        trim_space(statement)
        + f"\n\n**Why:** Imported from {label}.\n"
        + "**How to apply:** Treat this as durable guidance only after the user confirms it still applies.\n"
        + f"\nEvidence: [{where}] "
        + _truncate(statement, 180)
    )


def _home_label(path: Path) -> str:
    home = os.environ.get("HOME") or os.path.expanduser("~")
    p = str(path)
    if home and (p == home or p.startswith(home.rstrip(os.sep) + os.sep)):
        return "~" + p[len(home.rstrip(os.sep)):]
    return p


_MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")


def suggest_claude_memories(layout: Layout, existing: Sequence[str], seen: set[str] | None = None) -> list[MemorySuggestion]:
    """The workspace's Claude Code auto-memory (topic files, plus MEMORY.md bullets that do
    not just link a topic file), as candidates with the file as evidence."""
    seen = set() if seen is None else seen
    cdir = claude_project_dir(layout.workspace)
    if cdir is None:
        return []
    mdir = cdir / "memory"
    try:
        files = sorted(p for p in mdir.iterdir() if p.suffix == ".md" and p.is_file())
    except OSError:
        return []
    out: list[MemorySuggestion] = []
    for path in files:
        label = _home_label(path)
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
                cand = _note_candidate(m.group(1), label, lineno, path, "claude-memory", existing, seen, "project")
                if cand is not None:
                    out.append(cand)
                    count += 1
                    if count >= IMPORT_LIMIT_PER_SOURCE:
                        break
            continue
        raw_yaml, body = split_frontmatter(text)
        meta: dict[str, Any] = {}
        if raw_yaml is not None:
            try:
                loaded = yaml.safe_load(raw_yaml)
                meta = loaded if isinstance(loaded, dict) else {}
            except yaml.YAMLError:
                meta = {}
        body = trim_space(body)
        description = one_line(str(meta.get("description") or "")) or one_line(body.split("\n", 1)[0] if body else "")
        if not body or not description:
            continue
        key = normalize_suggestion_key(body)
        if key in seen or existing_covers(existing, key) or existing_covers(existing, normalize_suggestion_key(description)):
            continue
        seen.add(key)
        raw_name = str(meta.get("name") or path.stem)
        name = slug(raw_name) if is_well_formed_slug(slug(raw_name)) else stable_suggestion_name(raw_name or description)
        title = one_line(str(meta.get("title") or meta.get("name") or "")) or _title(description, "Claude memory")
        type_ = normalize_type(str(meta.get("type") or "")) if meta.get("type") else infer_memory_type(body)
        out.append(
            MemorySuggestion(
                id="claude-" + name,
                name=name,
                title=title,
                description=description,
                type=type_,
                scope="project",
                body=body,
                reason="Claude Code auto-memory",
                evidence=(label + ": " + _truncate(description, 160),),
                origin="claude-memory",
                sources=(Evidence("claude-memory", label, description, _file_time(path), str(path), 0),),
            )
        )
        if len(out) >= IMPORT_LIMIT_PER_SOURCE * 2:
            break
    return out


def _note_candidate(
    text: str, label: str, lineno: int, path: Path, origin: str, existing: Sequence[str], seen: set[str], scope: str
) -> MemorySuggestion | None:
    statement = one_line(text)
    if len(statement) < 8 or len(statement) > 420:
        return None
    key = normalize_suggestion_key(statement)
    if not key or key in seen or existing_covers(existing, key):
        return None
    seen.add(key)
    name = stable_suggestion_name(statement, "memory-candidate")
    prefix = "claude-" if origin == "claude-memory" else "notes-"
    return MemorySuggestion(
        id=prefix + name,
        name=name,
        title=_title(statement, "Imported note"),
        description=statement,
        type=infer_memory_type(statement),
        scope=scope,
        body=_import_body(statement, label, lineno),
        reason="Claude Code auto-memory" if origin == "claude-memory" else f"note in {os.path.basename(label)}",
        evidence=(f"{label}:{lineno}: " + _truncate(statement, 160),),
        origin=origin,
        sources=(Evidence(origin, label, statement, _file_time(path), str(path), lineno),),
    )


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
                candidates += [(p, "project") for p in sorted(d.iterdir()) if p.suffix in (".md", ".mdc") and p.is_file()]
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


def suggest_agent_notes(layout: Layout, existing: Sequence[str], seen: set[str] | None = None) -> list[MemorySuggestion]:
    """Bullet notes (or, without bullets, plain lines) of other agents' instruction files."""
    seen = set() if seen is None else seen
    out: list[MemorySuggestion] = []
    for path, scope in agent_note_files(layout):
        try:
            text = read_text(path).text
        except OSError:
            continue
        _, body = split_frontmatter(text)
        offset = text.replace("\r\n", "\n").count("\n") - body.count("\n")
        label = _home_label(path) if scope == "global" else os.path.relpath(path, layout.workspace)
        lines = body.splitlines()
        in_fence = False
        items: list[tuple[int, str]] = []
        plain: list[tuple[int, str]] = []
        for i, line in enumerate(lines, 1 + offset):
            stripped = line.strip()
            if stripped.startswith("```") or stripped.startswith("~~~"):
                in_fence = not in_fence
                continue
            if in_fence or not stripped or stripped.startswith("#") or stripped.startswith("<!--"):
                continue
            m = _BULLET.match(line)
            if m:
                items.append((i, m.group(1)))
            elif not stripped.startswith(("|", ">", "---")):
                plain.append((i, stripped))
        count = 0
        for lineno, item in items or plain:
            cand = _note_candidate(item, label, lineno, path, "agent-notes", existing, seen, scope)
            if cand is None:
                continue
            out.append(cand)
            count += 1
            if count >= IMPORT_LIMIT_PER_SOURCE:
                break
    return out


# --------------------------------------------------------------------------------------
# State (dismissed / accepted)


def state_path(layout: Layout) -> Path:
    """``<root>/reasonix-tui/suggestions.json``."""
    return layout.tui_dir / "suggestions.json"


def _load_state(layout: Layout) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(read_regular(state_path(layout)))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    for key in ("dismissed", "accepted"):
        if not isinstance(data.get(key), dict):
            data[key] = {}
    return data


def _save_state(layout: Layout, data: dict[str, Any]) -> None:
    atomic_write(state_path(layout), json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", 0o600)


# --------------------------------------------------------------------------------------
# The pane's API


def list_suggestions(
    layout: Layout,
    store: Any = None,
    *,
    include_hidden: bool = False,
    include_claude: bool = True,
    now: Timestamp | None = None,
) -> SuggestionsView:
    """Every candidate for the workspace, newest evidence first within each source.

    Read-only. Dismissed and accepted candidates are left out unless ``include_hidden``.
    """
    generated = now or Timestamp.now()
    if load_settings(layout.root).no_memory:
        return SuggestionsView(generated_at=generated, available=False)
    existing = existing_memory_texts(layout, store)
    sessions = load_suggestion_sessions(layout, include_claude=include_claude)
    seen: set[str] = set()
    memories: list[MemorySuggestion] = []
    memories += suggest_memories(sessions, existing, seen)
    if include_claude:
        memories += suggest_claude_memories(layout, existing, seen)
    memories += suggest_agent_notes(layout, existing, seen)
    memories += suggest_wanted(layout, existing, seen)
    skills = suggest_skills(layout, sessions)
    # One id per candidate (imports can collide with history on the same text).
    unique: dict[str, MemorySuggestion] = {}
    for m in memories:
        unique.setdefault(m.id, m)
    memories = list(unique.values())
    state = _load_state(layout)
    hidden_ids = set(state["dismissed"]) | set(state["accepted"])
    hidden = 0
    dismissed: frozenset[str] = frozenset()
    accepted: frozenset[str] = frozenset()
    if not include_hidden:
        before = len(memories) + len(skills)
        memories = [m for m in memories if m.id not in hidden_ids]
        skills = [s for s in skills if s.id not in hidden_ids]
        hidden = before - len(memories) - len(skills)
    else:
        shown = {m.id for m in memories} | {s.id for s in skills}
        dismissed = frozenset(shown & set(state["dismissed"]))
        accepted = frozenset(shown & set(state["accepted"])) - dismissed
    return SuggestionsView(
        memories=tuple(memories),
        skills=tuple(skills),
        generated_at=generated,
        available=True,
        source="local-history",
        sessions=len(sessions),
        hidden=hidden,
        dismissed=dismissed,
        accepted=accepted,
    )


def find_suggestion(layout: Layout, suggestion_id: str, store: Any = None, include_hidden: bool = True) -> Suggestion:
    """The current candidate with this id (``NotFound`` otherwise)."""
    sid = trim_space(suggestion_id)
    view = list_suggestions(layout, store, include_hidden=include_hidden)
    for s in view.all():
        if s.id == sid:
            return s
    raise NotFound(f'suggestion "{sid}" not found')


def render_skill_file(name: str, description: str, body: str) -> str:
    """``SKILL.md``: frontmatter ``name`` and ``description`` (YAML-escaped), then the body."""
    return (
        "---\n"
        f"name: {yaml_scalar(name)}\n"
        f"description: {yaml_scalar(description)}\n"
        "---\n\n"
        + body.rstrip(" \t\r\n")
        + "\n"
    )


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
    with that name); skills become ``SKILL.md`` files created without overwriting.
    """
    sug = find_suggestion(layout, suggestion, store) if isinstance(suggestion, str) else suggestion
    e = edits or SuggestionEdits()
    if isinstance(sug, SkillSuggestion):
        result = _accept_skill(layout, sug, e)
    else:
        result = _accept_memory(layout, sug, e, store, actor)
    state = _load_state(layout)
    state["accepted"][sug.id] = {"at": Timestamp.now().rfc3339(), "path": result.path, "kind": result.kind}
    state["dismissed"].pop(sug.id, None)
    _save_state(layout, state)
    return result


def _pick(value: str | None, default: str) -> str:
    return default if value is None else value


def _accept_memory(layout: Layout, sug: MemorySuggestion, e: SuggestionEdits, store: Any, actor: str) -> AcceptResult:
    from .store.store import SaveRequest, Store

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
    """Hide a candidate for good. Dismissing an already dismissed id is a no-op."""
    sid = trim_space(suggestion_id)
    state = _load_state(layout)
    if sid in state["dismissed"]:
        return None
    sug = find_suggestion(layout, sid, store)
    state["dismissed"][sid] = {"at": Timestamp.now().rfc3339(), "title": sug.title, "note": note}
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

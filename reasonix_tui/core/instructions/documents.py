"""Standing instruction resolution: which REASONIX.md / AGENTS.md / CLAUDE.md apply, and how.

Spec: instructions-history-suggestions §A (Reasonix ``internal/instruction``: ``resolver.go``
and ``render.go``). Everything here is plain Python and byte-compatible with Reasonix where
the spec pins literals (diagnostic messages, import markers, the provider-visible block).

What is resolved
----------------
* **User level** (``user_dir`` = the Reasonix state root): ``REASONIX.md``, ``AGENTS.md``,
  ``CLAUDE.md``; scope ``user``, depth -1, priority 0. The ``.local.md`` variants are *not*
  read there.
* **Directory chain** from the workspace root down to the target, inclusive. At chain index
  ``d``: the three names (scope ``project`` at the root, ``ancestor`` below it, priority
  ``10 + 2d``), then the three ``.local.md`` names (scope ``local``, priority ``11 + 2d``).
  Siblings off the chain and directories above the root are never read.
* The workspace root is the nearest ancestor of the target (inclusive) holding a ``.git``
  entry of any type, else the target. A target outside an explicit root gives
  ``target_outside_workspace`` and the root is used instead.
* Each file is decoded like Reasonix (:func:`~reasonix_tui.core.compat.encoding.decode_bytes`),
  trimmed, and skipped silently when missing, unreadable or empty. Documents are confined to
  ``realpath(root)`` (``realpath(user_dir)`` for user documents): a document that is a symlink
  resolving outside is dropped with ``document_symlink_escape``.
* ``@path`` lines are expanded (:func:`parse_import_target`), to at most five nested levels;
  a directive at the limit stays literal with no diagnostic. Imports are recorded post-order
  (as Reasonix's ``Imports``) *and* kept as a tree (:attr:`InstructionDoc.imports`) for the UI.
* Documents with identical expanded bodies (SHA-256) are deduplicated: the highest priority
  wins (the first collected on a tie), and each winner keeps its own position.

Import policy (``policy=``)
---------------------------
``"v2"`` is pure upstream (Reasonix V2, "boundary confinement"): imports of project,
ancestor and local documents may use any path, ``~`` and absolute ones included, as long as
it lands inside the workspace root; user documents may import from the user dir and the
trusted home roots ``~/.reasonix``, ``~/.agents``, ``~/.agent``, ``~/.claude`` (labels of the
latter are prefixed with the root's basename, e.g. ``.agents/AGENTS.md``).

``"brief"`` (the default) keeps all of that for *user* documents but applies the product
brief's stricter rule to project, ancestor and local documents, which is Reasonix V1
("source-dir confinement"): absolute and ``~`` imports are rejected with
``import_outside_source``, and a relative import must stay inside the directory the top-level
document was discovered in (``services/AGENTS.md`` may not import ``@../shared.md``, even
though that file is inside the workspace). Labels are then relative to that directory. The
reason: a repository's instruction file is content you did not necessarily write (a clone, a
vendored subtree), and the brief promises that such a file can only pull in text from the
subtree it governs. Everything a ``"brief"`` resolution loads, ``"v2"`` would load too; the
two differ only in which imports are rejected.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..compat.encoding import decode_bytes
from ..compat.gostr import go_quote, html_escape, one_line, trim_space
from ..store.safeio import read_regular

__all__ = [
    "DOCUMENT_NAMES",
    "LOCAL_DOCUMENT_NAMES",
    "MAX_IMPORT_DEPTH",
    "POLICIES",
    "SCOPES",
    "BLOCK_PREAMBLE",
    "Import",
    "Diagnostic",
    "InstructionDoc",
    "Resolution",
    "resolve",
    "parse_import_target",
    "nearest_git_root",
    "instruction_block",
    "render_report",
    "report_json",
]

DOCUMENT_NAMES = ("REASONIX.md", "AGENTS.md", "CLAUDE.md")
"""Instruction file names, in precedence order within one directory."""
LOCAL_DOCUMENT_NAMES = ("REASONIX.local.md", "AGENTS.local.md", "CLAUDE.local.md")
"""Personal (uncommitted) variants, read after the normal names; never at user level."""
MAX_IMPORT_DEPTH = 5
"""Imports nest at most this many levels below a top-level document."""
POLICIES = ("brief", "v2")
"""Import policies: the product brief's stricter rule (default) or pure upstream V2."""
SCOPES = ("user", "project", "ancestor", "local")
"""Document scopes."""
TRUSTED_USER_ROOTS = (".reasonix", ".agents", ".agent", ".claude")
"""Home directories user documents may import from (besides the user dir itself)."""

BLOCK_PREAMBLE = (
    "Standing guidance resolved for this workspace and target path. Later entries are more "
    "specific and take precedence when rules conflict; the current user request still has "
    "highest priority."
)
"""The fixed paragraph under ``# Instructions`` in the provider-visible block."""


# ---------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True, slots=True)
class Import:
    """One ``@path`` directive found while expanding a document, as a tree node.

    Reasonix records only successful expansions (``status == "loaded"``), post-order; that
    list is :attr:`InstructionDoc.flat_imports`. The tree also keeps the directives that were
    skipped or rejected so the UI can show them where they occur.
    """

    target: str
    """The raw token after ``@``."""
    path: str
    """The resolved absolute path ("" when the token was rejected before resolving)."""
    source_path: str
    """The file containing the directive."""
    line: int
    """1-based line of the directive in the (trimmed) text of ``source_path``."""
    level: int
    """Nesting level: 1 for a directive in the top-level document, up to 5."""
    status: str
    """``loaded``, ``duplicate`` (already expanded in this document), ``cycle``,
    ``rejected`` (see :attr:`code`) or ``unreadable``."""
    label: str = ""
    """The provider-visible label (``<instruction-import path="…">``) when loaded."""
    code: str = ""
    """Diagnostic code for ``rejected``, ``unreadable`` and ``cycle``."""
    children: tuple[Import, ...] = ()
    """Directives inside the imported file, in line order (loaded imports only)."""

    def to_json(self) -> dict[str, Any]:
        """JSON form (recursive)."""
        return {
            "target": self.target,
            "path": self.path,
            "source_path": self.source_path,
            "line": self.line,
            "level": self.level,
            "status": self.status,
            "label": self.label,
            "code": self.code,
            "children": [child.to_json() for child in self.children],
        }


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A host-side problem found while resolving; never part of the provider-visible block."""

    code: str
    """``target_outside_workspace``, ``document_symlink_escape``, ``import_outside_source``,
    ``import_symlink_escape``, ``import_unreadable`` or ``import_cycle``."""
    path: str
    """The target, document, raw import token or resolved import path (see spec table)."""
    source_path: str = ""
    """The importing file (imports only)."""
    line: int = 0
    """1-based line in the importing text; 0 when not applicable."""
    message: str = ""
    """Reasonix's exact message."""

    @property
    def location(self) -> str:
        """``source`` (or ``path``) with ``:line`` appended when known, as the report shows it."""
        where = self.source_path or self.path
        return f"{where}:{self.line}" if self.line > 0 else where

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "code": self.code,
            "path": self.path,
            "source_path": self.source_path,
            "line": self.line,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class InstructionDoc:
    """One resolved instruction document, in its final position."""

    path: str
    """Absolute path of the file as discovered (not symlink-resolved)."""
    scope: str
    """``user``, ``project``, ``ancestor`` or ``local``."""
    directory: str
    """The directory it was discovered in (the user dir for user documents)."""
    body: str
    """Decoded, trimmed text with imports expanded: what the agent sees."""
    imports: tuple[Import, ...]
    """Import tree: the directives of the top-level document, in line order."""
    depth: int
    """-1 for user documents, else the index in the root → target chain."""
    order: int
    """Final 0-based position (low → high precedence)."""
    priority: int
    """0 for user, ``10 + 2·depth`` for project/ancestor, ``11 + 2·depth`` for local."""
    label: str = ""
    """Provider-visible label: ``user/AGENTS.md``, ``workspace/services/api/AGENTS.local.md``."""
    dir_label: str = ""
    """Provider-visible directory: ``workspace``, ``workspace/services/api``; ``user`` for
    user documents (the block never prints it for them)."""

    @property
    def flat_imports(self) -> tuple[Import, ...]:
        """Loaded imports in Reasonix's order (post-order: nested imports first)."""
        return tuple(_post_order(self.imports))

    @property
    def sha256(self) -> str:
        """Hex digest of :attr:`body` (the dedup key)."""
        return hashlib.sha256(self.body.encode("utf-8", "surrogatepass")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        """JSON form (``precedence`` is 1-based, as in the text report)."""
        return {
            "precedence": self.order + 1,
            "order": self.order,
            "scope": self.scope,
            "label": self.label,
            "dir_label": self.dir_label,
            "path": self.path,
            "directory": self.directory,
            "depth": self.depth,
            "priority": self.priority,
            "sha256": self.sha256,
            "body": self.body,
            "imports": [node.to_json() for node in self.imports],
            "flat_imports": [{"path": i.path, "source_path": i.source_path} for i in self.flat_imports],
        }


@dataclass(frozen=True, slots=True)
class Resolution:
    """The result of :func:`resolve`."""

    docs: tuple[InstructionDoc, ...]
    """Surviving documents, low → high precedence."""
    diagnostics: tuple[Diagnostic, ...]
    """Every diagnostic, in the order found (dedup losers' import diagnostics included)."""
    target: str
    """The effective target (the root when the requested target was outside it)."""
    root: str
    """The workspace root."""
    user_dir: str
    """The user-level instruction directory ("" when none)."""
    policy: str = "brief"
    """The import policy used."""
    requested_target: str = ""
    """The target as asked for (absolute, cleaned)."""

    @property
    def empty(self) -> bool:
        """No documents and no diagnostics."""
        return not self.docs and not self.diagnostics


def _post_order(nodes: tuple[Import, ...]) -> Iterator[Import]:
    for node in nodes:
        yield from _post_order(node.children)
        if node.status == "loaded":
            yield node


# ---------------------------------------------------------------------------------------
# Go path semantics


def _clean(path: str) -> str:
    """Go ``filepath.Clean`` for an already joined path."""
    cleaned = os.path.normpath(path)
    if os.sep == "/" and cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")
    return cleaned


def _abs(path: str | os.PathLike[str] | None) -> str:
    """Reasonix ``absolutePath``: "" for blank input, else absolute and cleaned."""
    if path is None:
        return ""
    text = os.fspath(path)
    if trim_space(text) == "":
        return ""
    return _clean(os.path.abspath(text))


def _join(*parts: str) -> str:
    """Go ``filepath.Join``: skip empty parts, join with the separator, clean."""
    kept = [p for p in parts if p]
    if not kept:
        return ""
    return _clean(os.sep.join(kept))


def _rel(base: str, target: str) -> str | None:
    """Go ``filepath.Rel`` (lexical); None when no relative path exists."""
    try:
        return os.path.relpath(target, base)
    except ValueError:
        return None


def _within(path: str, root: str) -> bool:
    """Reasonix ``pathWithin``: lexical, no symlinks."""
    path, root = _abs(path), _abs(root)
    if not path or not root:
        return False
    rel = _rel(root, path)
    return rel is not None and rel != ".." and not rel.startswith(".." + os.sep)


def _is_local(rel: str) -> bool:
    """Go ``filepath.IsLocal`` for a relative path."""
    if not rel or os.path.isabs(rel):
        return False
    cleaned = _clean(rel)
    return cleaned != ".." and not cleaned.startswith(".." + os.sep)


def _eval_symlinks(path: str) -> str | None:
    """Go ``filepath.EvalSymlinks``: the realpath, or None when any part is missing."""
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, RuntimeError, ValueError):
        return None


def _real_dir(path: str) -> str:
    """Reasonix ``realDirectory``."""
    real = _eval_symlinks(path)
    return real if real is not None else _abs(path)


def _identity(path: str) -> str:
    """Reasonix ``physicalIdentity``: the realpath, else the absolute path."""
    real = _eval_symlinks(path)
    return _abs(real) if real is not None else _abs(path)


def _to_slash(path: str) -> str:
    return path.replace(os.sep, "/") if os.sep != "/" else path


def _from_slash(path: str) -> str:
    return path.replace("/", os.sep) if os.sep != "/" else path


def _user_home() -> str:
    """Go ``os.UserHomeDir`` ("" when unknown)."""
    if os.name == "nt":
        return os.environ.get("USERPROFILE", "")
    return os.environ.get("HOME", "")


def nearest_git_root(directory: str | os.PathLike[str]) -> str:
    """The nearest ancestor of ``directory`` (inclusive) holding a ``.git`` entry; "" if none."""
    current = _abs(directory)
    while current:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return ""
        current = parent
    return ""


def _directory_chain(root: str, target: str) -> list[str]:
    if not _within(target, root):
        return [root]
    rel = _rel(root, target)
    if rel is None or rel == ".":
        return [root]
    chain = [root]
    current = root
    for part in rel.split(os.sep):
        if part in ("", "."):
            continue
        current = _join(current, part)
        chain.append(current)
    return chain


# ---------------------------------------------------------------------------------------
# Reading


_ESCAPED = "escaped"


def _read_confined(path: str, boundary: str) -> tuple[str | None, str]:
    """Read ``path`` if its realpath lies inside ``realpath(boundary)``.

    Returns ``(body, "")`` for a readable non-empty file, ``(None, "")`` when the file is
    missing, unreadable or empty, and ``(None, "escaped")`` when it resolves outside the
    boundary (Reasonix opens through an ``os.Root`` bound to the boundary; the effect is the
    same: only files whose real location is inside can be read).
    """
    real_boundary = _real_dir(boundary)
    real = _eval_symlinks(path)
    if real is None:
        return None, ""
    if not _within(real, real_boundary):
        return None, _ESCAPED
    try:
        data = read_regular(real)  # a FIFO named like an instruction file never blocks
    except (OSError, ValueError):
        return None, ""
    body = trim_space(decode_bytes(data).text)
    return (body or None), ""


# ---------------------------------------------------------------------------------------
# Imports


def parse_import_target(line: str) -> str | None:
    """The token of a whole-line ``@path`` directive, or None.

    The trimmed line must start with ``@``, be longer than one character, contain no space or
    tab, and the rest must contain ``/``, ``\\`` or ``.``: ``@docs/setup.md``, ``@./notes.txt``
    and ``@/abs/path.md`` are directives; ``@mention``, ``@`` and ``@a/b and more`` are not.
    """
    t = trim_space(line)
    if not t.startswith("@") or len(t) == 1 or " " in t or "\t" in t:
        return None
    rest = t[1:]
    if "/" not in rest and "\\" not in rest and "." not in rest:
        return None
    return rest


@dataclass(frozen=True, slots=True)
class _ImportRules:
    boundaries: tuple[str, ...]
    """Absolute boundaries; the first is the primary one (labels unprefixed)."""
    strict: bool
    """V1 / brief rule: no absolute or ``~`` targets; one boundary (the document's dir)."""


@dataclass
class _ImportState:
    active: set[str]
    expanded: set[str] = field(default_factory=set)


def _confined_import_path(target: str, source_dir: str, rules: _ImportRules) -> tuple[str, str, str]:
    """``(path, boundary, code)``; ``code`` is "" on success. ``path`` is filled when known."""
    if rules.strict:
        boundary = rules.boundaries[0]
        if os.path.isabs(target) or target.startswith("~"):
            return "", "", "import_outside_source"
        path = _clean(_join(source_dir, _from_slash(target)))
        if not _within(path, boundary):
            return path, "", "import_outside_source"
        real = _eval_symlinks(path)
        if real is not None and not _within(real, _real_dir(boundary)):
            return path, "", "import_symlink_escape"
        return path, boundary, ""

    path_target = target
    if target == "~" or target.startswith(("~/", "~\\")):
        home = _user_home()
        if trim_space(home) == "":
            return "", "", "import_outside_source"
        path_target = _join(home, _from_slash(target[1:].lstrip("/\\")))
    elif target.startswith("~"):
        return "", "", "import_outside_source"
    path = _clean(_from_slash(path_target))
    if not os.path.isabs(path):
        path = _clean(_join(source_dir, path))
    boundary = next((_abs(b) for b in rules.boundaries if _within(path, b)), "")
    if not boundary:
        return path, "", "import_outside_source"
    real = _eval_symlinks(path)
    if real is not None and not _within(real, _real_dir(boundary)):
        return path, "", "import_symlink_escape"
    return path, boundary, ""


def _import_label(resolved: str, boundary: str, rules: _ImportRules) -> str:
    rel = _rel(boundary, resolved)
    if rel is None:
        rel = resolved
    if rules.boundaries and _abs(boundary) != _abs(rules.boundaries[0]):
        rel = _join(os.path.basename(boundary), rel)
    return html_escape(_to_slash(rel))


def _expand(
    body: str,
    source_path: str,
    rules: _ImportRules,
    depth: int,
    state: _ImportState,
    diagnostics: list[Diagnostic],
) -> tuple[str, tuple[Import, ...]]:
    """Reasonix ``resolveDocumentImports``; also returns the import tree of this level."""
    if depth >= MAX_IMPORT_DEPTH:
        return body, ()
    lines = body.split("\n")
    nodes: list[Import] = []
    level = depth + 1
    for i, line in enumerate(lines):
        target = parse_import_target(line)
        if target is None:
            continue
        lineno = i + 1
        resolved, boundary, code = _confined_import_path(target, os.path.dirname(source_path), rules)
        if code:
            diagnostics.append(
                Diagnostic(
                    code,
                    target,
                    source_path,
                    lineno,
                    f"rejected instruction import {go_quote(target)} from {go_quote(source_path)}",
                )
            )
            lines[i] = f"{line}  <!-- rejected: {code} -->"
            nodes.append(Import(target, resolved, source_path, lineno, level, "rejected", code=code))
            continue
        content, read_code = _read_confined(resolved, boundary)
        if read_code:
            code = "import_symlink_escape"
            diagnostics.append(
                Diagnostic(
                    code,
                    resolved,
                    source_path,
                    lineno,
                    f"rejected instruction import {go_quote(resolved)} from {go_quote(source_path)}",
                )
            )
            lines[i] = f"{line}  <!-- rejected: {code} -->"
            nodes.append(Import(target, resolved, source_path, lineno, level, "rejected", code=code))
            continue
        if content is None:
            diagnostics.append(
                Diagnostic(
                    "import_unreadable",
                    resolved,
                    source_path,
                    lineno,
                    f"instruction import {go_quote(resolved)} could not be read",
                )
            )
            nodes.append(Import(target, resolved, source_path, lineno, level, "unreadable", code="import_unreadable"))
            continue
        identity = _identity(resolved)
        if identity in state.active:
            diagnostics.append(
                Diagnostic(
                    "import_cycle",
                    resolved,
                    source_path,
                    lineno,
                    f"instruction import cycle from {go_quote(source_path)} to {go_quote(resolved)}",
                )
            )
            lines[i] = f"{line}  <!-- skipped: import cycle -->"
            nodes.append(Import(target, resolved, source_path, lineno, level, "cycle", code="import_cycle"))
            continue
        if identity in state.expanded:
            lines[i] = f"{line}  <!-- skipped: duplicate import -->"
            nodes.append(Import(target, resolved, source_path, lineno, level, "duplicate"))
            continue
        state.active.add(identity)
        expanded, children = _expand(content, resolved, rules, depth + 1, state, diagnostics)
        state.active.discard(identity)
        state.expanded.add(identity)
        label = _import_label(resolved, boundary, rules)
        nodes.append(Import(target, resolved, source_path, lineno, level, "loaded", label=label, children=children))
        lines[i] = f'<instruction-import path="{label}">\n{expanded}\n</instruction-import>'
    return "\n".join(lines), tuple(nodes)


def _user_import_roots(user_dir: str) -> tuple[str, ...]:
    roots = [_abs(user_dir)]
    home = _user_home()
    if trim_space(home) != "":
        roots.extend(_abs(os.path.join(home, name)) for name in TRUSTED_USER_ROOTS)
    out: list[str] = []
    for root in roots:
        if root and root not in out:
            out.append(root)
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Resolve


@dataclass
class _Candidate:
    path: str
    scope: str
    directory: str
    body: str
    imports: tuple[Import, ...]
    depth: int
    priority: int


def resolve(
    target_dir: str | os.PathLike[str] | None,
    user_dir: str | os.PathLike[str] | None,
    workspace_root: str | os.PathLike[str] | None = None,
    policy: str = "brief",
) -> Resolution:
    """Resolve the standing instructions that apply to ``target_dir``.

    ``user_dir`` is the Reasonix state root (``Layout.root``); None or "" skips user
    documents. ``workspace_root`` defaults to the nearest ancestor of the target with a
    ``.git`` entry, else the target. ``policy`` is ``"brief"`` or ``"v2"`` (module docstring).
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown instruction import policy {policy!r} (want one of {', '.join(POLICIES)})")
    target = _abs(target_dir) or _abs(".")
    requested = target
    root = _abs(workspace_root)
    if not root:
        root = nearest_git_root(target) or target

    diagnostics: list[Diagnostic] = []
    if not _within(target, root):
        diagnostics.append(
            Diagnostic(
                "target_outside_workspace",
                target,
                message=f"instruction target {go_quote(target)} is outside workspace {go_quote(root)}",
            )
        )
        target = root

    candidates: list[_Candidate] = []

    def append_dir(
        directory: str,
        boundary: str,
        rules: _ImportRules,
        names: tuple[str, ...],
        scope: str,
        depth: int,
        priority: int,
    ) -> None:
        for name in names:
            path = _join(directory, name)
            body, code = _read_confined(path, boundary)
            if code:
                diagnostics.append(
                    Diagnostic(
                        "document_symlink_escape",
                        path,
                        message=f"rejected instruction document {go_quote(path)} outside boundary {go_quote(boundary)}",
                    )
                )
                continue
            if body is None:
                continue
            state = _ImportState(active={_identity(path)})
            expanded, tree = _expand(body, path, rules, 0, state, diagnostics)
            candidates.append(_Candidate(path, scope, directory, expanded, tree, depth, priority))

    user = _abs(user_dir)
    if user:
        append_dir(user, user, _ImportRules(_user_import_roots(user), False), DOCUMENT_NAMES, "user", -1, 0)
    for depth, directory in enumerate(_directory_chain(root, target)):
        scope = "project" if depth == 0 else "ancestor"
        if policy == "v2":
            rules = _ImportRules((root,), False)
        else:
            rules = _ImportRules((directory,), True)
        append_dir(directory, root, rules, DOCUMENT_NAMES, scope, depth, 10 + depth * 2)
        append_dir(directory, root, rules, LOCAL_DOCUMENT_NAMES, "local", depth, 11 + depth * 2)

    winner: dict[bytes, int] = {}
    digests: list[bytes] = []
    for i, cand in enumerate(candidates):
        digest = hashlib.sha256(cand.body.encode("utf-8", "surrogatepass")).digest()
        digests.append(digest)
        previous = winner.get(digest)
        if previous is None or cand.priority > candidates[previous].priority:
            winner[digest] = i
    kept = [cand for i, cand in enumerate(candidates) if winner[digests[i]] == i]

    ws_root = _provider_workspace_root([(c.scope, c.depth, c.directory) for c in kept])
    docs = tuple(
        InstructionDoc(
            path=c.path,
            scope=c.scope,
            directory=c.directory,
            body=c.body,
            imports=c.imports,
            depth=c.depth,
            order=order,
            priority=c.priority,
            label=_provider_document_path(c.scope, c.path, ws_root),
            dir_label="user" if c.scope == "user" else _provider_directory_path(c.directory, ws_root),
        )
        for order, c in enumerate(kept)
    )
    return Resolution(
        docs=docs,
        diagnostics=tuple(diagnostics),
        target=target,
        root=root,
        user_dir=user,
        policy=policy,
        requested_target=requested,
    )


# ---------------------------------------------------------------------------------------
# Provider-visible block (A.5)


def _provider_workspace_root(docs: list[tuple[str, int, str]]) -> str:
    for scope, depth, directory in docs:
        if scope == "user" or depth < 0 or trim_space(directory) == "":
            continue
        root = _abs(directory)
        for _ in range(depth):
            root = os.path.dirname(root)
        return root
    return ""


def _provider_document_path(scope: str, path: str, workspace_root: str) -> str:
    if scope == "user":
        return _to_slash(_join("user", os.path.basename(path)))
    if workspace_root:
        rel = _rel(workspace_root, _abs(path))
        if rel is not None and _is_local(rel):
            return _to_slash(_join("workspace", rel))
    return _to_slash(_join(scope or "workspace", os.path.basename(path)))


def _provider_directory_path(directory: str, workspace_root: str) -> str:
    if workspace_root:
        rel = _rel(workspace_root, _abs(directory))
        if rel is not None and _is_local(rel):
            return "workspace" if rel == "." else _to_slash(_join("workspace", rel))
    return "workspace"


def instruction_block(resolution: Resolution) -> str:
    """The provider-visible ``# Instructions`` block (Reasonix ``instruction.Block``).

    Byte-stable across machines: labels are ``user/…`` and ``workspace/…``, never absolute
    paths. Diagnostics never appear here. Empty when there are no documents.
    """
    docs = resolution.docs
    if not docs:
        return ""
    parts = ["# Instructions\n\n", BLOCK_PREAMBLE, "\n"]
    for doc in docs:
        parts.append(f"\n## {doc.label} ({doc.scope}")
        if doc.scope != "user" and trim_space(doc.directory) != "":
            parts.append(f", applies to {doc.dir_label}")
        parts.append(")\n\n")
        parts.append(trim_space(doc.body))
        parts.append("\n")
    return trim_space("".join(parts))


# ---------------------------------------------------------------------------------------
# /memory instructions (A.6)


def render_report(resolution: Resolution, enabled: bool = True) -> str:
    """The ``/memory instructions`` text (absolute host paths; no trailing newline).

    ``enabled=False`` (memory turned off) prints ``instructions: none`` like Reasonix.
    """
    if not enabled or resolution.empty:
        return "instructions: none"
    out = ["instructions (low -> high precedence)\n"]
    for index, doc in enumerate(resolution.docs):
        out.append(f"  precedence={index + 1} scope={doc.scope} path={doc.path}\n")
        if trim_space(doc.directory) != "":
            out.append(f"    directory={doc.directory}\n")
        for imported in doc.flat_imports:
            out.append(f"    import={imported.path} source={imported.source_path}\n")
    if resolution.diagnostics:
        out.append("diagnostics\n")
        for diag in resolution.diagnostics:
            out.append(f"  code={diag.code} source={diag.location} path={diag.path} message={one_line(diag.message)}\n")
    return "".join(out).rstrip("\n")


def report_json(resolution: Resolution, enabled: bool = True) -> dict[str, Any]:
    """Machine-readable report: documents (precedence, scope, label, path, directory, import
    tree), diagnostics and the provider-visible block.

    With ``enabled=False`` the documents, diagnostics and block are empty, as the agent sees
    nothing when memory is off.
    """
    docs = resolution.docs if enabled else ()
    diagnostics = resolution.diagnostics if enabled else ()
    return {
        "enabled": enabled,
        "policy": resolution.policy,
        "target": resolution.target,
        "requested_target": resolution.requested_target,
        "root": resolution.root,
        "user_dir": resolution.user_dir,
        "documents": [doc.to_json() for doc in docs],
        "diagnostics": [diag.to_json() for diag in diagnostics],
        "block": instruction_block(resolution) if enabled else "",
    }

"""``@path`` imports inside instruction documents: parsing, confinement, expansion.

A whole-line directive is expanded in place, to at most :data:`~.documents.MAX_IMPORT_DEPTH`
nested levels; where an import may land depends on the policy (see :mod:`.resolver`).
Cycles, missing files and escapes become diagnostics and literal markers, as in Reasonix.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..compat.gostr import go_quote, html_escape, trim_space
from .documents import MAX_IMPORT_DEPTH, TRUSTED_USER_ROOTS, Diagnostic, Import
from .locations import (
    absolute_path,
    eval_symlinks,
    from_slash,
    go_clean,
    go_join,
    go_rel,
    path_within,
    physical_identity,
    read_confined,
    real_dir,
    to_slash,
    user_home,
)

__all__ = ["parse_import_target"]


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
class ImportRules:
    boundaries: tuple[str, ...]
    """Absolute boundaries; the first is the primary one (labels unprefixed)."""
    strict: bool
    """V1 / brief rule: no absolute or ``~`` targets; one boundary (the document's dir)."""


@dataclass
class ImportState:
    active: set[str]
    expanded: set[str] = field(default_factory=set)


def confined_import_path(target: str, source_dir: str, rules: ImportRules) -> tuple[str, str, str]:
    """``(path, boundary, code)``; ``code`` is "" on success. ``path`` is filled when known."""
    if rules.strict:
        boundary = rules.boundaries[0]
        if os.path.isabs(target) or target.startswith("~"):
            return "", "", "import_outside_source"
        path = go_clean(go_join(source_dir, from_slash(target)))
        if not path_within(path, boundary):
            return path, "", "import_outside_source"
        real = eval_symlinks(path)
        if real is not None and not path_within(real, real_dir(boundary)):
            return path, "", "import_symlink_escape"
        return path, boundary, ""

    path_target = target
    if target == "~" or target.startswith(("~/", "~\\")):
        home = user_home()
        if trim_space(home) == "":
            return "", "", "import_outside_source"
        path_target = go_join(home, from_slash(target[1:].lstrip("/\\")))
    elif target.startswith("~"):
        return "", "", "import_outside_source"
    path = go_clean(from_slash(path_target))
    if not os.path.isabs(path):
        path = go_clean(go_join(source_dir, path))
    boundary = next((absolute_path(b) for b in rules.boundaries if path_within(path, b)), "")
    if not boundary:
        return path, "", "import_outside_source"
    real = eval_symlinks(path)
    if real is not None and not path_within(real, real_dir(boundary)):
        return path, "", "import_symlink_escape"
    return path, boundary, ""


def import_label(resolved: str, boundary: str, rules: ImportRules) -> str:
    rel = go_rel(boundary, resolved)
    if rel is None:
        rel = resolved
    if rules.boundaries and absolute_path(boundary) != absolute_path(rules.boundaries[0]):
        rel = go_join(os.path.basename(boundary), rel)
    return html_escape(to_slash(rel))


def expand_imports(
    body: str,
    source_path: str,
    rules: ImportRules,
    depth: int,
    state: ImportState,
    diagnostics: list[Diagnostic],
) -> tuple[str, tuple[Import, ...]]:
    """Reasonix ``resolveDocumentImports``; also returns the import tree of this level."""
    if depth >= MAX_IMPORT_DEPTH:
        return body, ()
    lines = body.split("\n")
    nodes: list[Import] = []
    for i, line in enumerate(lines):
        target = parse_import_target(line)
        if target is None:
            continue
        lines[i], node = _expand_line(line, target, i + 1, source_path, rules, depth, state, diagnostics)
        nodes.append(node)
    return "\n".join(lines), tuple(nodes)


def _expand_line(
    line: str,
    target: str,
    lineno: int,
    source_path: str,
    rules: ImportRules,
    depth: int,
    state: ImportState,
    diagnostics: list[Diagnostic],
) -> tuple[str, Import]:
    """One ``@path`` directive: the text that replaces its line, and its import node."""
    level = depth + 1

    def node(resolved: str, status: str, **extra: Any) -> Import:
        return Import(target, resolved, source_path, lineno, level, status, **extra)

    def report(code: str, path: str, message: str) -> None:
        diagnostics.append(Diagnostic(code, path, source_path, lineno, message))

    resolved, boundary, code = confined_import_path(target, os.path.dirname(source_path), rules)
    if code:
        report(code, target, f"rejected instruction import {go_quote(target)} from {go_quote(source_path)}")
        return f"{line}  <!-- rejected: {code} -->", node(resolved, "rejected", code=code)
    content, read_code = read_confined(resolved, boundary)
    if read_code:
        code = "import_symlink_escape"
        report(code, resolved, f"rejected instruction import {go_quote(resolved)} from {go_quote(source_path)}")
        return f"{line}  <!-- rejected: {code} -->", node(resolved, "rejected", code=code)
    if content is None:
        report("import_unreadable", resolved, f"instruction import {go_quote(resolved)} could not be read")
        return line, node(resolved, "unreadable", code="import_unreadable")
    identity = physical_identity(resolved)
    if identity in state.active:
        report(
            "import_cycle",
            resolved,
            f"instruction import cycle from {go_quote(source_path)} to {go_quote(resolved)}",
        )
        return f"{line}  <!-- skipped: import cycle -->", node(resolved, "cycle", code="import_cycle")
    if identity in state.expanded:
        return f"{line}  <!-- skipped: duplicate import -->", node(resolved, "duplicate")
    state.active.add(identity)
    expanded, children = expand_imports(content, resolved, rules, depth + 1, state, diagnostics)
    state.active.discard(identity)
    state.expanded.add(identity)
    label = import_label(resolved, boundary, rules)
    loaded = node(resolved, "loaded", label=label, children=children)
    return f'<instruction-import path="{label}">\n{expanded}\n</instruction-import>', loaded


def user_import_roots(user_dir: str) -> tuple[str, ...]:
    roots = [absolute_path(user_dir)]
    home = user_home()
    if trim_space(home) != "":
        roots.extend(absolute_path(os.path.join(home, name)) for name in TRUSTED_USER_ROOTS)
    out: list[str] = []
    for root in roots:
        if root and root not in out:
            out.append(root)
    return tuple(out)

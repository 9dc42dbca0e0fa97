"""Standing instruction documents: the names, scopes and policies, and what a resolution holds.

:class:`InstructionDoc` (one applied document with its import tree), :class:`Import`,
:class:`Diagnostic` and :class:`Resolution`; :func:`~.resolver.resolve` builds them (the rules
are in that module's docstring) and :mod:`.render` renders them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

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


# ---------------------------------------------------------------------------------------
# Reading


# ---------------------------------------------------------------------------------------
# Imports


# ---------------------------------------------------------------------------------------
# Resolve


# ---------------------------------------------------------------------------------------
# Provider-visible block (A.5)


# ---------------------------------------------------------------------------------------
# /memory instructions (A.6)

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
from dataclasses import dataclass

from ..compat.gostr import go_quote
from .documents import DOCUMENT_NAMES, LOCAL_DOCUMENT_NAMES, POLICIES, Diagnostic, Import, InstructionDoc, Resolution
from .imports import ImportRules, ImportState, expand_imports, user_import_roots
from .locations import (
    absolute_path,
    directory_chain,
    go_join,
    nearest_git_root,
    path_within,
    physical_identity,
    read_confined,
)
from .render import provider_directory_path, provider_document_path, provider_workspace_root

__all__ = ["resolve"]


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
    target = absolute_path(target_dir) or absolute_path(".")
    requested = target
    root = absolute_path(workspace_root)
    if not root:
        root = nearest_git_root(target) or target

    diagnostics: list[Diagnostic] = []
    if not path_within(target, root):
        diagnostics.append(
            Diagnostic(
                "target_outside_workspace",
                target,
                message=f"instruction target {go_quote(target)} is outside workspace {go_quote(root)}",
            )
        )
        target = root

    user = absolute_path(user_dir)
    candidates = _collect(user, root, target, policy, diagnostics)
    return Resolution(
        docs=_documents(_deduplicated(candidates)),
        diagnostics=tuple(diagnostics),
        target=target,
        root=root,
        user_dir=user,
        policy=policy,
        requested_target=requested,
    )


def _collect(user: str, root: str, target: str, policy: str, diagnostics: list[Diagnostic]) -> list[_Candidate]:
    """Every document that exists, in precedence order: the user level, then the directory
    chain from the root down to the target (the normal names, then the local ones)."""
    candidates: list[_Candidate] = []

    def append_dir(
        directory: str,
        boundary: str,
        rules: ImportRules,
        names: tuple[str, ...],
        scope: str,
        depth: int,
        priority: int,
    ) -> None:
        for name in names:
            path = go_join(directory, name)
            body, code = read_confined(path, boundary)
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
            state = ImportState(active={physical_identity(path)})
            expanded, tree = expand_imports(body, path, rules, 0, state, diagnostics)
            candidates.append(_Candidate(path, scope, directory, expanded, tree, depth, priority))

    if user:
        append_dir(user, user, ImportRules(user_import_roots(user), False), DOCUMENT_NAMES, "user", -1, 0)
    for depth, directory in enumerate(directory_chain(root, target)):
        scope = "project" if depth == 0 else "ancestor"
        if policy == "v2":
            rules = ImportRules((root,), False)
        else:
            rules = ImportRules((directory,), True)
        append_dir(directory, root, rules, DOCUMENT_NAMES, scope, depth, 10 + depth * 2)
        append_dir(directory, root, rules, LOCAL_DOCUMENT_NAMES, "local", depth, 11 + depth * 2)
    return candidates


def _deduplicated(candidates: list[_Candidate]) -> list[_Candidate]:
    """Documents with identical expanded bodies: the highest priority wins (the first
    collected on a tie), and each winner keeps its own position."""
    winner: dict[bytes, int] = {}
    digests: list[bytes] = []
    for i, cand in enumerate(candidates):
        digest = hashlib.sha256(cand.body.encode("utf-8", "surrogatepass")).digest()
        digests.append(digest)
        previous = winner.get(digest)
        if previous is None or cand.priority > candidates[previous].priority:
            winner[digest] = i
    return [cand for i, cand in enumerate(candidates) if winner[digests[i]] == i]


def _documents(kept: list[_Candidate]) -> tuple[InstructionDoc, ...]:
    """The kept documents in order, labelled as the provider-visible block names them."""
    ws_root = provider_workspace_root([(c.scope, c.depth, c.directory) for c in kept])
    return tuple(
        InstructionDoc(
            path=c.path,
            scope=c.scope,
            directory=c.directory,
            body=c.body,
            imports=c.imports,
            depth=c.depth,
            order=order,
            priority=c.priority,
            label=provider_document_path(c.scope, c.path, ws_root),
            dir_label="user" if c.scope == "user" else provider_directory_path(c.directory, ws_root),
        )
        for order, c in enumerate(kept)
    )

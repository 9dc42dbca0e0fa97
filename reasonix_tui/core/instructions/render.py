"""Rendering a resolution: the provider-visible block, the report, and its JSON.

The ``# Instructions`` block is byte-compatible with Reasonix's ``render.go``; paths in it
are relative to the workspace root where they can be.
"""

from __future__ import annotations

import os
from typing import Any

from ..compat.gostr import one_line, trim_space
from .documents import BLOCK_PREAMBLE, Resolution
from .locations import (
    absolute_path,
    go_join,
    go_rel,
    is_local_path,
    to_slash,
)

__all__ = ["instruction_block", "render_report", "report_json"]


def provider_workspace_root(docs: list[tuple[str, int, str]]) -> str:
    for scope, depth, directory in docs:
        if scope == "user" or depth < 0 or trim_space(directory) == "":
            continue
        root = absolute_path(directory)
        for _ in range(depth):
            root = os.path.dirname(root)
        return root
    return ""


def provider_document_path(scope: str, path: str, workspace_root: str) -> str:
    if scope == "user":
        return to_slash(go_join("user", os.path.basename(path)))
    if workspace_root:
        rel = go_rel(workspace_root, absolute_path(path))
        if rel is not None and is_local_path(rel):
            return to_slash(go_join("workspace", rel))
    return to_slash(go_join(scope or "workspace", os.path.basename(path)))


def provider_directory_path(directory: str, workspace_root: str) -> str:
    if workspace_root:
        rel = go_rel(workspace_root, absolute_path(directory))
        if rel is not None and is_local_path(rel):
            return "workspace" if rel == "." else to_slash(go_join("workspace", rel))
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

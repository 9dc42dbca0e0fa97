"""Findings about what a file holds or whether it reads: secrets, oversized bodies,
unreadable fact files, instruction diagnostics."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ..compat.gostr import trim_space, truncate_runes
from ..instructions.documents import Diagnostic
from ..store.model import Fact
from .base import (
    FactScan,
    archive_fix,
    edit_fix,
    make_finding,
    num,
    scan_key,
)
from .model import INFO, PROBLEM, WARNING, FactRef, Finding, Fix

__all__ = ["OVERSIZED_RUNES", "check_secrets", "check_unreadable", "check_instructions", "check_oversized"]

OVERSIZED_RUNES = 6000
"""A body longer than this is oversized: the write policy's automatic-write budget
(``MAX_AUTO_BODY_RUNES``); recall only ever shows a snippet of it."""

# --------------------------------------------------------------------------- secrets


def check_secrets(facts: Sequence[Fact], scans: Mapping[str, FactScan]) -> list[Finding]:
    """Facts whose text holds something the write policy's secret detector flags
    (an e-mail address alone is a warning; anything else a problem)."""
    out: list[Finding] = []
    for f in facts:
        scan = scans.get(scan_key(f))
        if scan is None or not scan.secrets:
            continue
        only_email = all(s.kind == "email" for s in scan.secrets)
        labels = sorted({s.label for s in scan.secrets})
        evidence = [f"{s.field} line {s.line}: {s.preview} ({s.label})" for s in scan.secrets[:8]]
        if len(scan.secrets) > 8:
            evidence.append(f"… and {len(scan.secrets) - 8} more")
        evidence.append(
            "it reaches the agent whenever the fact is recalled; editing it out leaves the old text in the "
            "fact's revisions (.revisions/) and archiving keeps it in .archive/"
        )
        title = f"{f.display_title} holds {labels[0]}" + (f" and {len(labels) - 1} more" if len(labels) > 1 else "")
        fixes = [edit_fix(f), archive_fix(f, "")]
        extra = "\0".join(f"{s.field}:{s.kind}:{s.line}" for s in scan.secrets)
        out.append(
            make_finding(
                "secret", WARNING if only_email else PROBLEM, title, [FactRef.of(f)], evidence, fixes, extra=extra
            )
        )
    return out


# --------------------------------------------------------------------------- files


def check_unreadable(errors: Sequence[tuple[str, str, str, str]]) -> list[Finding]:
    """Files in a fact folder that could not be read or parsed."""
    out: list[Finding] = []
    for path, scope, message, signature in errors:
        name = os.path.basename(path)
        if message.startswith("frontmatter could not be parsed"):
            why = (
                "its frontmatter is treated as empty: the agent reads only the body, without its title, "
                "description, type, scope or activation, and a migration would drop them"
            )
        elif "UTF-8" in message:
            why = "it is read with replacement characters; a rewrite would lose the original bytes"
        else:
            why = "it is not loaded at all: the agent never sees it"
        evidence = [f"a file in the {scope} fact folder: {message}", why]
        fixes = [Fix("edit", f"open {name} in the editor", path=path)]
        out.append(
            make_finding(
                "unreadable",
                PROBLEM,
                f"{name}: {truncate_runes(message, 80)}",
                (),
                evidence,
                fixes,
                extra=signature + "\0" + message,
                path=path,
            )
        )
    return out


_DIAGNOSTIC_SEVERITY = {
    "import_unreadable": PROBLEM,
    "import_outside_source": PROBLEM,
    "import_symlink_escape": PROBLEM,
    "document_symlink_escape": PROBLEM,
    "import_cycle": WARNING,
    "target_outside_workspace": INFO,
}
_DIAGNOSTIC_WORDS = {
    "import_unreadable": "an import is missing or unreadable: its text never reaches the agent",
    "import_outside_source": "an import was rejected (outside the document's folder): its text never reaches the agent",
    "import_symlink_escape": "an import was rejected (a symlink leading outside): its text never reaches the agent",
    "document_symlink_escape": "a document was dropped (a symlink leading outside the workspace)",
    "import_cycle": "documents import each other (a cycle); the repeated import is skipped",
    "target_outside_workspace": "the target is outside the workspace; the workspace root was used",
}


def check_instructions(diagnostics: Sequence[Diagnostic], workspace: str = "") -> list[Finding]:
    """Instruction diagnostics: import cycles, missing or rejected imports, escapes (titles
    name files relative to ``workspace``)."""

    def shown(path: str) -> str:
        if workspace and path.startswith(workspace.rstrip(os.sep) + os.sep):
            return os.path.relpath(path, workspace)
        return os.path.basename(path)

    out: list[Finding] = []
    for d in diagnostics:
        severity = _DIAGNOSTIC_SEVERITY.get(d.code, WARNING)
        where = d.location
        evidence = [_DIAGNOSTIC_WORDS.get(d.code, d.code), f"{d.code} at {where}"]
        if d.message:
            evidence.append(d.message)
        if d.path and d.path != d.source_path:
            evidence.append(f"target: {d.path}")
        editable = d.source_path or d.path
        fixes = [Fix("edit", f"open {shown(editable)} in the editor", path=editable)] if editable else []
        title = f"{d.code.replace('_', ' ')}: {shown(d.source_path or d.path)}" + (f":{d.line}" if d.line else "")
        out.append(
            make_finding(
                "instruction",
                severity,
                title,
                (),
                evidence,
                fixes,
                extra=f"{d.code}\0{d.path}\0{d.line}",
                path=d.source_path or d.path,
            )
        )
    return out


# --------------------------------------------------------------------------- size


def check_oversized(facts: Sequence[Fact], scans: Mapping[str, FactScan]) -> list[Finding]:
    """Facts whose body is longer than :data:`OVERSIZED_RUNES`."""
    out: list[Finding] = []
    for f in facts:
        scan = scans.get(scan_key(f))
        runes = scan.body_runes if scan is not None else len(trim_space(f.body))
        if runes <= OVERSIZED_RUNES:
            continue
        evidence = [
            f"body is {num(runes)} chars; an agent may write at most {num(OVERSIZED_RUNES)} unasked, and recall "
            "only ever shows a snippet of it",
            "split it into facts of one subject each, or move standing rules into AGENTS.md",
        ]
        out.append(
            make_finding(
                "oversized",
                WARNING,
                f"{f.display_title}: {num(runes)} chars",
                [FactRef.of(f)],
                evidence,
                [edit_fix(f)],
                data={"chars": runes},
            )
        )
    return out

"""Memory health: what is wrong in memory, with its evidence and a fix for each.

Plain Python (no textual, no mcp), shared by ``reasonix-tui memory health`` and the
Context Center's Health pane:

* :mod:`.model` — :class:`Finding` (kind, severity, the facts involved with their
  revisions, evidence, fixes, a fingerprint for dismissals), :class:`HealthReport`;
* the checks, one pure function per kind of finding, by family: :mod:`.pairs` (same-subject
  conflicts, topic supersessions and overrides, from the recall's resolver,
  :mod:`reasonix_tui.core.resolve`), :mod:`.duplicates`, :mod:`.files` (secrets, size,
  unreadable files, instructions), :mod:`.usage` (pinned budget, recall traces),
  :mod:`.freshness`; :mod:`.base` holds what they share;
* :mod:`.similar` — near-duplicates by the recall's meaning channel, kept incrementally;
* :mod:`.compare` — two facts side by side, the differing words marked;
* :mod:`.checker` — :class:`HealthChecker` (work kept per fact and per store, in memory
  and on disk, so a run after one write or in a new process redoes only what changed),
  :func:`health_report`; :mod:`.state` — fact keys and findings as plain data;
* :mod:`.quick` — a one-shot call on an unchanged store answers from the last report;
* :mod:`.inputs` — :func:`gather` (the inputs);
* :mod:`.dismissals` — dismissed fingerprints in the state root;
* :mod:`.fixes` — what a fix does, through the store's own operations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import FactScan, HealthContext, SecretHit
from .dismissals import Dismissals
from .model import (
    FIX_ACTIONS,
    INFO,
    KIND_LABELS,
    KINDS,
    PROBLEM,
    SEVERITIES,
    WARNING,
    FactRef,
    Finding,
    Fix,
    HealthReport,
    TraceSpan,
)

if TYPE_CHECKING:
    from .checker import HealthChecker, health_report, memo_path, run_checks, scan_fact
    from .inputs import gather

_LAZY = {
    "HealthChecker": "checker",
    "health_report": "checker",
    "memo_path": "checker",
    "run_checks": "checker",
    "scan_fact": "checker",
    "gather": "inputs",
}
"""Names imported when first used: the checker needs numpy and the resolver, which a
one-shot ``memory health`` on an unchanged store never loads (:mod:`.quick`)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "HealthChecker",
    "gather",
    "health_report",
    "memo_path",
    "run_checks",
    "scan_fact",
    "FactScan",
    "HealthContext",
    "SecretHit",
    "Dismissals",
    "FIX_ACTIONS",
    "INFO",
    "KIND_LABELS",
    "KINDS",
    "PROBLEM",
    "SEVERITIES",
    "WARNING",
    "FactRef",
    "Finding",
    "Fix",
    "HealthReport",
    "TraceSpan",
]

"""One run of the Context Center's health worker, and its first answer in a new process.

The worker holds one :class:`~.checker.HealthChecker` for the app's life. Its first run
would read the checker's whole saved state and decode every per-fact finding; when the
store, the traces, the settings and the code are those of the last full run (a one-shot
``memory health`` or an earlier Context Center), :func:`first_answer` gives the last
report instead (:mod:`.quick`: a stat of every fact file and one sealed file read). The
worker shows it, then runs the checks from the saved state as before — in the background,
so the first write after start is incremental — and shows that report only if it differs
(it never should: both equal a run from scratch). Every full run (:func:`run`) keeps its
findings for the next process's first answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..compat.gotime import Timestamp
from ..paths import Layout
from ..settings import Settings
from ..store.model import Fact
from ..store.sealed import collector_paused
from .dismissals import Dismissals
from .freshness import valid_until
from .inputs import gather
from .model import HealthReport
from .quick import quick_path, quick_report, save_quick, validation_key

if TYPE_CHECKING:
    from ..store.store import Store
    from .checker import HealthChecker

__all__ = ["first_answer", "run"]


def first_answer(layout: Layout, settings: Settings, store: Store | None, *, now: Timestamp) -> HealthReport | None:
    """The last full run's report when nothing it was computed from changed, else ``None``."""
    with collector_paused():
        return quick_report(layout, settings, store, now=now)


def run(
    checker: HealthChecker,
    layout: Layout,
    settings: Settings,
    store: Store | None,
    *,
    now: Timestamp,
    budget_s: float | None = None,
) -> tuple[HealthReport, Sequence[Fact]]:
    """Every finding of the store now (dismissals applied), the checker's state saved and,
    for a complete run, the report kept for :func:`first_answer`. Returns the report and
    the facts it was computed from (for :meth:`~.checker.HealthChecker.prime`)."""
    key = validation_key(layout, settings, store)  # before the snapshot: a later change misses
    ctx = gather(layout, settings, store, now=now)
    report = checker.report(ctx, Dismissals(layout).fingerprints(), budget_s=budget_s)
    checker.save()
    if not any(p.startswith("secrets:") for p in report.partial):
        with collector_paused():
            save_quick(
                quick_path(layout), key, checker.last_findings, report, valid_until(ctx.facts, ctx.now), checker.encoded
            )
    return report, ctx.facts

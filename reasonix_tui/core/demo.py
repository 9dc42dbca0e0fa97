"""A generated demo home, so a new user sees every Context Center pane populated.

Everything is written through the public APIs of the core modules (the store for facts,
revisions and the archive; ``recall.run_recall`` for traces, with prompts a person would
type; the approval queue for the pending proposal) — only the instruction documents and
session transcripts, which are the user's and the agent's own files, are written as plain
files in their documented formats. What the home holds is declared in :mod:`.demo_data`;
:func:`build_demo_home` writes it and returns what it made.

Plain Python: no textual import (the firewall test imports this module).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .agent import approvals, policy, proposals
from .compat.gotime import DAY_NS, Timestamp
from .demo_data import (
    APPROVAL_ARGUMENTS,
    ARCHIVED,
    BROKEN_NOTE,
    FACT_ACTORS,
    FACT_EXPIRY_DAYS,
    FACTS,
    HEALTH_FACTS,
    INSTRUCTION_FILES,
    RECALL_QUERIES,
    REFUSED_SECOND_HOLDER,
    REVISIONS,
    SESSIONS,
    SYNCED_SECOND_HOLDER,
    SYNCED_SUBJECT,
    VERIFIED,
    DemoWrite,
)
from .paths import Layout
from .recall import run_recall
from .settings import Settings

__all__ = ["DemoReport", "build_demo_home", "DEMO_NOW", "demo_facts"]

DEMO_NOW = Timestamp(1_785_000_000 * 1_000_000_000)
"""A fixed "now" for snapshot tests (2026-07-25T17:20:00Z); real runs use the real time."""

_FACT_FIELDS = (
    "name",
    "title",
    "description",
    "type",
    "scope",
    "activation",
    "volatility",
    "subject_key",
    "keywords",
    "age_days",
    "body",
)
"""The order of a :data:`~.demo_data.FACTS` row."""


@dataclass
class DemoReport:
    """What the generator made."""

    root: Path
    """The state root."""
    workspace: Path
    """The workspace directory."""
    facts: int = 0
    """Active facts written."""
    archived: int = 0
    """Facts archived."""
    revisions: int = 0
    """Extra revisions written."""
    traces: int = 0
    """Recall traces recorded."""
    sessions: int = 0
    """Session transcripts written."""
    approvals: int = 0
    """Pending proposals queued."""
    skipped: list[str] = field(default_factory=list)
    """Optional parts that failed (the demo still opens without them)."""


def demo_facts() -> tuple[tuple[Any, ...], ...]:
    """The demo facts' raw fields (for tests)."""
    return FACTS


def _write_instructions(root: Path, workspace: Path) -> None:
    (workspace / ".git").mkdir(parents=True, exist_ok=True)
    for base, rel, text in INSTRUCTION_FILES:
        path = (root if base == "root" else workspace) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _write_sessions(layout: Layout, now: Timestamp) -> int:
    sessions = layout.project_sessions_dir
    sessions.mkdir(parents=True, exist_ok=True)
    count = 0
    for i, (name, messages) in enumerate(SESSIONS):
        base_ms = (now.ns - (5 - i) * DAY_NS) // 1_000_000
        lines = [json.dumps({"schema_version": 1})]
        for j, (role, content) in enumerate(messages):
            lines.append(
                json.dumps({"role": role, "content": content, "createdAt": base_ms + j * 60_000}, ensure_ascii=False)
            )
        (sessions / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        count += 1
    return count


class _DemoWriter:
    """Writes the demo's history through stores whose clocks are set back to each write's day."""

    def __init__(self, layout: Layout, settings: Settings, now: Timestamp, report: DemoReport) -> None:
        self.layout = layout
        self.settings = settings
        self.now = now
        self.report = report

    def store_at(self, days_ago: float, actor: str = "cli") -> Any:
        """A store whose clock reads ``days_ago`` before now."""
        from .store.store import Store

        ts = Timestamp(self.now.ns - int(days_ago * DAY_NS))
        clock: Callable[[], Timestamp] = lambda: ts  # noqa: E731
        return Store(self.layout, settings=self.settings, actor=actor, clock=clock, use_cache=False)

    def save(self, write: DemoWrite) -> Any:
        """One declared save; returns the store's result."""
        from .store.requests import SaveRequest

        store = self.store_at(write.days_ago, write.actor)
        if write.create:
            return store.save(SaveRequest(**write.fields), require_create=True)
        return store.save(SaveRequest(**write.fields))

    def refused(self, write: DemoWrite) -> None:
        """A save the store refuses (the refusal is audited; nothing is written)."""
        from .store.model import StoreError

        try:
            self.save(write)
        except StoreError:
            pass

    def verify(self, days_ago: float, ref: str) -> None:
        """A person verified a fact ``days_ago``."""
        self.store_at(days_ago).verify(ref)

    def archive(self, name: str, scope: str) -> None:
        """Archive a fact 15 days ago."""
        self.store_at(15).archive(f"{scope}/{name}.md")
        self.report.archived += 1

    def fact_write(self, row: tuple[Any, ...]) -> DemoWrite:
        """The create of one :data:`~.demo_data.FACTS` row."""
        values = dict(zip(_FACT_FIELDS, row, strict=True))
        age = values.pop("age_days")
        days = FACT_EXPIRY_DAYS.get(values["name"])
        values["expires_at"] = Timestamp(self.now.ns + days * DAY_NS) if days is not None else None
        return DemoWrite(age, values, actor=FACT_ACTORS.get(values["name"], "cli"), create=True)

    def history(self) -> list[tuple[float, Callable[[], object]]]:
        """Every write of the history with its day, in declaration order."""
        history: list[tuple[float, Callable[[], object]]] = []
        for row in FACTS:
            write = self.fact_write(row)
            history.append((write.days_ago, partial(self.save, write)))
        for write in (*HEALTH_FACTS, *REVISIONS):
            history.append((write.days_ago, partial(self.save, write)))
        days, ref = VERIFIED
        history.append((days, partial(self.verify, days, ref)))
        history.append((REFUSED_SECOND_HOLDER.days_ago, partial(self.refused, REFUSED_SECOND_HOLDER)))
        for name, title, scope, body in ARCHIVED:
            fields = {"name": name, "title": title, "description": title, "type": "project", "scope": scope}
            history.append((50, partial(self.save, DemoWrite(50, {**fields, "body": body}, create=True))))
            history.append((15, partial(self.archive, name, scope)))
        return history

    def write_history(self) -> None:
        """The history oldest first (writes of the same day in declaration order), so the
        audit log is chronological like a real one."""
        for _days_ago, write in sorted(self.history(), key=lambda item: -item[0]):
            write()
        self.report.facts += len(FACTS) + len(HEALTH_FACTS)
        self.report.revisions = len(REVISIONS)

    def write_synced_holder(self) -> None:
        """The second holder of a subject, rewritten as a sync would have written it."""
        path = Path(self.save(SYNCED_SECOND_HOLDER).fact.path)
        path.write_text(path.read_text(encoding="utf-8").replace(*SYNCED_SUBJECT), encoding="utf-8")
        os.utime(path, ns=(self.now.ns - DAY_NS, self.now.ns - DAY_NS))
        self.report.facts += 1

    def write_broken_note(self) -> None:
        """A file Reasonix cannot parse, written an hour ago."""
        name, text = BROKEN_NOTE
        broken = self.layout.project_dir / name
        broken.write_text(text, encoding="utf-8")
        hour_ago = self.now.ns - 3600 * 1_000_000_000
        os.utime(broken, ns=(hour_ago, hour_ago))

    def record_traces(self) -> None:
        """Recall traces of the declared prompts, oldest first."""
        for query, minutes_ago in RECALL_QUERIES:
            when = Timestamp(self.now.ns - minutes_ago * 60 * 1_000_000_000)
            try:
                run_recall(self.layout, query, settings=self.settings, source="demo", now=when, store=self.store_at(0))
            except Exception as exc:  # the demo never fails because of one optional part
                self.report.skipped.append(f"recall trace {query!r}: {type(exc).__name__}: {exc}")
                break
            self.report.traces += 1

    def queue_proposal(self) -> None:
        """The pending proposal, as the agent's ``remember`` call queues it."""
        from .store.store import Store

        arguments = dict(APPROVAL_ARGUMENTS)
        store = Store(self.layout, settings=self.settings, actor="agent-auto", use_cache=False)
        assessment = policy.assess_remember(arguments, store)
        requester = proposals.Requester(pid=4242, agent="claude-code", source="mcp", host="demo")
        approvals.ApprovalQueue(self.layout).propose("remember", arguments, assessment, store, requester)
        self.report.approvals = 1


def build_demo_home(
    root: str | Path,
    workspace: str | Path | None = None,
    *,
    now: Timestamp | None = None,
    reset: bool = False,
    with_approval: bool = True,
) -> DemoReport:
    """Generate a demo home at ``root`` (with a workspace, by default ``root/workspace/acme-api``).

    ``now`` fixes the clock (tests and screenshots); ``reset`` deletes an earlier demo
    home at ``root`` first.
    """
    root = Path(root)
    workspace = Path(workspace) if workspace is not None else root / "workspace" / "acme-api"
    if reset and root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    workspace.mkdir(parents=True, exist_ok=True)
    now = now or Timestamp.now()
    layout = Layout.resolve(home=root, workspace=workspace)
    report = DemoReport(root=root, workspace=workspace)
    _write_instructions(root, workspace)
    writer = _DemoWriter(layout, Settings(pinned_budget_chars=1500), now, report)
    writer.write_history()
    writer.write_synced_holder()
    writer.write_broken_note()
    report.sessions = _write_sessions(layout, now)
    writer.record_traces()
    if with_approval:
        writer.queue_proposal()
    return report

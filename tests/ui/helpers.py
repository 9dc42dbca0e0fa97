"""Shared helpers for the Context Center's Pilot and snapshot tests."""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path
from typing import Any

import pytest

from reasonix_tui.core.agent import stamps
from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.demo import DEMO_NOW, build_demo_home
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import Settings

NOW: Timestamp = DEMO_NOW
"""The frozen "now" of every UI test."""

SIZE = (120, 36)
"""Terminal size of every Pilot and snapshot test (80x24 has its own test)."""


def deterministic_ids(monkeypatch: pytest.MonkeyPatch, freeze_time: bool = False) -> None:
    """Fact ids and proposal ids that are the same on every run (and proposal times with
    ``freeze_time``; not for live tests: the presence heartbeat uses the same clock)."""
    counter = itertools.count(1)
    monkeypatch.setattr("reasonix_tui.core.store.writing.new_memory_id", lambda: f"mem-{next(counter):032x}")
    pcount = itertools.count(1)
    monkeypatch.setattr(stamps, "new_id", lambda prefix: f"{prefix}-{next(pcount):08d}")
    if freeze_time:
        monkeypatch.setattr(stamps, "now", lambda: NOW.rfc3339())


def build_demo(
    root: Path, monkeypatch: pytest.MonkeyPatch, *, with_approval: bool = False, freeze_time: bool = False
) -> Layout:
    """A demo home at ``root`` with the frozen clock and deterministic ids."""
    deterministic_ids(monkeypatch, freeze_time)
    workspace = root / "work" / "acme-api"
    build_demo_home(root / "home", workspace, now=NOW, with_approval=with_approval)
    layout = Layout.resolve(home=root / "home", workspace=workspace)
    broken = layout.project_dir / "broken-note.md"
    if broken.exists():
        os.utime(broken, ns=(NOW.ns - 3600 * 10**9, NOW.ns - 3600 * 10**9))
    return layout


def settings() -> Settings:
    """The settings of every UI test (the brief's 1,500-char pinned budget; times in UTC so
    screens do not depend on the machine's zone)."""
    return Settings(pinned_budget_chars=1500, time_zone="utc")


def make(layout: Layout, **kwargs: Any) -> Any:
    """The production factory with no watcher and the frozen clock."""
    from reasonix_tui.tui.app import make_app

    return make_app(layout, kwargs.pop("settings", settings()), watch=False, clock=lambda: NOW, **kwargs)


async def settle(pilot: Any) -> None:
    """Wait until workers are done and the screen has caught up."""
    app = pilot.app
    for _ in range(3):
        await pilot.pause()
        await wait_for_workers(app)
    await pilot.pause()


async def wait_for_workers(app: Any) -> None:
    """``app.workers.wait_for_complete()``, except that a worker cancelled because a newer one
    replaced it (an exclusive group, a Markdown update) counts as done: waiting for it
    raised ``WorkerCancelled`` whenever the test caught it still running. A failed worker
    still raises (after every other worker finished)."""
    from textual.worker import WorkerCancelled

    results = await asyncio.gather(*(worker.wait() for worker in list(app.workers)), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, WorkerCancelled):
            raise result


def store(layout: Layout, actor: str = "cli") -> Any:
    """A store on the same layout (for outside writes in tests)."""
    from reasonix_tui.core.store.store import Store

    return Store(layout, settings=settings(), actor=actor)


def plain(widget: Any) -> str:
    """The text a Static (or Label) shows, without styles (tables and markup included)."""
    import io

    from rich.console import Console
    from textual.content import Content

    content = getattr(widget, "content", None)
    if content is None:
        content = widget.render()
    if isinstance(content, str):
        return Content.from_markup(content).plain
    if isinstance(content, Content):
        return content.plain
    console = Console(width=240, record=True, file=io.StringIO(), color_system=None)
    console.print(content)
    return console.export_text()


def facts_table_app() -> Any:
    """An app that holds one ``FactsTable`` (id ``t``) and nothing else, for tests of the
    table on its own."""
    from textual.app import App, ComposeResult

    from reasonix_tui.tui.widgets.facts_table import FactsTable

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield FactsTable(id="t")

    return Host()

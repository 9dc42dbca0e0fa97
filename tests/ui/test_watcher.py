"""Integration: the real watchfiles watcher, an outside edit, and an agent's
``reasonix-tui remember`` from another process answered in the Context Center.

Bounded waits only (no timing assertions): each loop gives up after a few seconds.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest

from .helpers import NOW, SIZE, settings, store


async def wait_until(pilot: Any, predicate: Any, timeout: float = 10.0) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return predicate()


async def test_watcher_sees_outside_changes(demo: Layout) -> None:
    from reasonix_tui.tui.app import make_app

    app = make_app(demo, settings(), watch=True, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_until(pilot, lambda: app.loaded)
        await asyncio.sleep(0.3)  # the watcher is running
        # An outside process saves a new fact and edits another.
        outside = store(demo)
        created = outside.save(
            SaveRequest(
                name="from-outside",
                description="Written by another process",
                body="Hello.",
                type="project",
                scope="project",
            )
        )
        assert await wait_until(pilot, lambda: str(created.fact.id) in app.snapshot.facts)
        rota = outside.get("project/oncall-rota.md")
        outside.save(SaveRequest.from_fact(rota, title="Rota (edited outside)"))
        assert await wait_until(pilot, lambda: app.snapshot.rows[str(rota.id)].title == "Rota (edited outside)")
        # A file that fails to parse shows up as an error row, and nothing crashes.
        (demo.project_dir / "garbage.md").write_bytes(b"---\nx: [\n---\n\xff\xfe body")
        assert await wait_until(
            pilot, lambda: any(r.error and r.ref.endswith("garbage.md") for r in app.snapshot.rows.values())
        )
        outside.archive("project/from-outside.md")
        assert await wait_until(pilot, lambda: str(created.fact.id) not in app.snapshot.facts)
        assert await wait_until(pilot, lambda: any(a.fact.id == created.fact.id for a in app.snapshot.archived))


async def test_agent_remember_answered_in_the_context_center(demo: Layout) -> None:
    from reasonix_tui.tui.app import make_app
    from reasonix_tui.tui.screens.approval import ApprovalScreen

    app = make_app(demo, settings(), watch=True, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_until(pilot, lambda: app.loaded)
        await asyncio.sleep(0.3)
        env = {**os.environ, "REASONIX_TUI_DEBUG": ""}
        cmd = [
            sys.executable,
            "-m",
            "reasonix_tui",
            "--home",
            str(demo.root),
            "--workspace",
            str(demo.workspace),
            "remember",
            "--name",
            "global/cache-backend",
            "--scope",
            "global",
            "--type",
            "project",
            "--description",
            "The HTTP cache lives in Redis",
            "--body",
            "Redis db 2.",
            "--wait",
            "30",
        ]
        agent = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=20)
            assert app.screen.view.name.endswith("cache-backend")
            await pilot.press("y")
            out, err = await asyncio.to_thread(agent.communicate, timeout=30)
        finally:
            if agent.poll() is None:
                agent.kill()
        assert agent.returncode == 0, (out, err)
        assert store(demo).find("global/cache-backend.md") is not None
        assert await wait_until(pilot, lambda: app.snapshot.find("global/cache-backend.md") is not None)


async def test_recall_trace_appears_live(demo: Layout) -> None:
    from textual.widgets import Static

    from reasonix_tui.core import recall
    from reasonix_tui.tui.app import make_app

    from .helpers import plain

    app = make_app(demo, settings(), watch=True, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_until(pilot, lambda: app.loaded)
        await pilot.press("5")
        assert await wait_until(pilot, lambda: bool(app.screen.query("#recall-view")))
        await asyncio.sleep(0.3)
        # The agent's hook records a trace in another process; here, the same API in-process.
        await asyncio.to_thread(recall.run_recall, demo, "how do we run the tests", settings=settings(), source="hook")

        def shown() -> bool:
            view = app.screen.query("#recall-view")
            return bool(view) and "how do we run the tests" in plain(view.first(Static))

        assert await wait_until(pilot, shown)

"""The approved fact is on screen without ctrl+r (issue 10, point 4).

The race: the reload worker built each batch on ``app.snapshot``, the snapshot the
*screen* had taken. Under load the screen can lag the worker: a second batch (the
``MEMORY.md`` rewrite right after an approved fact's file, say) was then read on top of
the snapshot from before the first batch, and replaced it, so the new fact vanished
from the screen until the next full reload. Each batch now builds on the newest
snapshot *read*. This test holds the worker's results back from the screen, as a busy
event loop does, and checks nothing is lost.
"""

from __future__ import annotations

from typing import Any

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.tui.messages import StoreReloaded

from .helpers import SIZE, make, settle, store


async def test_a_batch_read_before_the_screen_took_the_last_one_loses_nothing(demo: Layout) -> None:
    app = make(demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        held: list[StoreReloaded] = []
        deliver = app.post_message

        def busy_screen(message: Any) -> bool:
            if isinstance(message, StoreReloaded):
                held.append(message)  # read, but not on screen yet
                return True
            return deliver(message)

        app.post_message = busy_screen  # type: ignore[method-assign]
        try:
            first = store(demo).save(SaveRequest(name="approved-fact", description="a", body="a", type="project")).fact
            app.reload_store([first.path])
            await app.workers.wait_for_complete()
            second = store(demo).save(SaveRequest(name="next-fact", description="b", body="b", type="project")).fact
            app.reload_store([second.path])
            await app.workers.wait_for_complete()
        finally:
            del app.post_message
        assert len(held) == 2
        for message in held:
            app.post_message(message)
        await settle(pilot)
        assert str(first.id) in app.snapshot.rows, "the first batch's fact was lost"
        assert str(second.id) in app.snapshot.rows
        table = app.screen.query_one("#facts-table")
        assert str(first.id) in table.rows and str(second.id) in table.rows

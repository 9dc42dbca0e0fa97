"""LiveStore: reads that follow file-system events give what a fresh full scan gives."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.journal import generation_path
from reasonix_tui.core.store.live import LiveStore
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.results import Snapshot
from reasonix_tui.core.store.store import Store

WAIT_S = 10.0


def seed(layout: Layout, n: int = 12) -> Store:
    store = Store(layout)
    for i in range(n):
        store.save(SaveRequest(name=f"fact-{i:02d}", type="project", description=f"fact {i}", body=f"body {i}"))
    store.save(SaveRequest(name="shared-rule", scope="global", type="user", description="global", body="g"))
    return store


def view(snapshot: Snapshot) -> tuple[object, ...]:
    """What a reader sees: every fact's identity and content, and the error rows."""
    return (
        tuple((f.id, f.name, f.scope, f.revision, f.description, f.body, f.path) for f in snapshot.facts),
        tuple((e.path, e.scope, e.message) for e in snapshot.errors),
    )


def until(live: LiveStore, seen: Callable[[Snapshot], bool]) -> Snapshot:
    """The first snapshot for which ``seen`` holds (bounded; the event may be in flight)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        snap = live.snapshot()
        if seen(snap) or time.monotonic() > deadline:
            return snap
        time.sleep(0.01)


def ready(live: LiveStore) -> None:
    """Wait until the watcher is in place and trusted (the next reads are event-fed)."""
    live.snapshot()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        w = live._watcher
        if w is not None and w.ready.is_set():
            live.snapshot()  # the full validation that starts trusting events
            if live._trusted:
                return
        time.sleep(0.01)
    pytest.fail("the watcher never became ready")


def test_unchanged_store_costs_no_revalidation(layout: Layout) -> None:
    seed(layout)
    live = LiveStore(layout)
    try:
        ready(live)
        before = live.full_validations
        first = live.snapshot()
        for _ in range(20):
            assert live.snapshot() is first  # the same object: the recall index is found by identity
            assert live.find("fact-03") is not None
        assert live.full_validations == before
    finally:
        live.close()


def test_outside_edit_delete_create_and_rename_reach_the_next_read(layout: Layout) -> None:
    seed(layout)
    live = LiveStore(layout)
    try:
        ready(live)
        before = live.snapshot()
        edited = layout.project_dir / "fact-03.md"
        # an in-place edit moves no folder timestamp: only its event can bring it
        with open(edited, "a", encoding="utf-8") as fh:
            fh.write("edited in place\n")
        snap = until(live, lambda s: any("edited in place" in f.body for f in s.facts))
        assert any("edited in place" in f.body for f in snap.facts)
        # unchanged facts are the same objects as before (their tokens and index entries are reused)
        kept = {f.id: f for f in before.facts}
        assert sum(kept.get(f.id) is f for f in snap.facts) == len(before.facts) - 1

        (layout.project_dir / "fact-04.md").unlink()
        snap = until(live, lambda s: all(f.name != "fact-04" for f in s.facts))
        assert all(f.name != "fact-04" for f in snap.facts)

        (layout.project_dir / "brand-new.md").write_text(
            "---\nname: brand-new\ndescription: made by an editor\n---\n\nnew body\n", encoding="utf-8"
        )
        snap = until(live, lambda s: any(f.name == "brand-new" for f in s.facts))
        assert any(f.name == "brand-new" for f in snap.facts)

        os.rename(layout.project_dir / "fact-05.md", layout.project_dir / "fact-05-renamed.md")
        (layout.project_dir / "notes.txt").write_text("not a fact", encoding="utf-8")
        (layout.project_dir / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n", encoding="utf-8")
        snap = until(
            live,
            lambda s: any(e.path.endswith("broken.md") for e in s.errors)
            and any(f.path.endswith("fact-05-renamed.md") for f in s.facts),
        )
        assert view(snap) == view(Store(layout).snapshot())
    finally:
        live.close()


def test_our_own_write_is_read_back_at_once(layout: Layout) -> None:
    seed(layout)
    live = LiveStore(layout)
    try:
        ready(live)
        live.save(SaveRequest(name="fact-07", type="project", description="rewritten", body="new body 7"))
        assert live.get("fact-07").description == "rewritten"  # no waiting for the event
        assert any(f.description == "rewritten" for f in live.snapshot().facts)
        live.archive("fact-08")
        assert all(f.name != "fact-08" for f in live.snapshot().facts)
        assert view(live.snapshot()) == view(Store(layout).snapshot())
    finally:
        live.close()


def test_missed_events_fall_back_to_a_full_validation(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(layout)
    live = LiveStore(layout)
    try:
        ready(live)
        monkeypatch.setattr(live, "_events", lambda paths: None)  # every event is lost from now on
        # another writer (a CLI process): the folder's timestamp and the generation move
        Store(layout).save(SaveRequest(name="from-cli", type="project", description="cli", body="written elsewhere"))
        assert any(f.name == "from-cli" for f in live.snapshot().facts)
        # an outside deletion: the folder's timestamp moves
        (layout.project_dir / "fact-01.md").unlink()
        assert all(f.name != "fact-01" for f in live.snapshot().facts)
        # an in-place edit with its event lost: caught by the periodic full validation
        with open(layout.project_dir / "fact-02.md", "a", encoding="utf-8") as fh:
            fh.write("lost edit\n")
        live._full_at = 0.0
        live._tick()
        assert any("lost edit" in f.body for f in live.snapshot().facts)
        assert view(live.snapshot()) == view(Store(layout).snapshot())
    finally:
        live.close()


def test_without_a_watcher_every_read_is_a_full_validation(layout: Layout) -> None:
    seed(layout)
    live = LiveStore(layout, watch=False)
    live.snapshot()
    with open(layout.project_dir / "fact-02.md", "a", encoding="utf-8") as fh:
        fh.write("seen without events\n")
    assert any("seen without events" in f.body for f in live.snapshot().facts)
    assert view(live.snapshot()) == view(Store(layout).snapshot())


def test_folders_that_appear_later_are_watched(layout: Layout) -> None:
    live = LiveStore(layout)
    try:
        assert live.snapshot().facts == ()
        seed(layout, 2)  # creates both fact folders
        snap = until(live, lambda s: len(s.facts) == 3)
        assert len(snap.facts) == 3
        ready(live)
        with open(layout.project_dir / "fact-00.md", "a", encoding="utf-8") as fh:
            fh.write("after the folder appeared\n")
        snap = until(live, lambda s: any("after the folder appeared" in f.body for f in s.facts))
        assert any("after the folder appeared" in f.body for f in snap.facts)
    finally:
        live.close()


def test_every_committed_change_bumps_the_generation(layout: Layout) -> None:
    store = seed(layout, 1)
    path = Path(generation_path(layout.root))
    first = path.read_text()
    store.save(SaveRequest(name="fact-00", type="project", description="again", body="b"))
    assert int(path.read_text()) == int(first) + 1
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_an_earlier_event_does_not_hide_a_later_change_whose_event_is_lost(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(layout)
    live = LiveStore(layout)
    try:
        ready(live)
        with open(layout.project_dir / "fact-03.md", "a", encoding="utf-8") as fh:
            fh.write("first change\n")
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and not live._pending:
            time.sleep(0.01)
        assert live._pending  # the first change's event arrived (not yet read)
        monkeypatch.setattr(live, "_events", lambda paths: None)  # the next events are lost
        (layout.project_dir / "later.md").write_text("---\nname: later\ndescription: d\n---\n\nb\n", encoding="utf-8")
        os.rename(layout.project_dir / "fact-06.md", layout.project_dir / "fact-06-moved.md")
        snap = live.snapshot()
        assert any("first change" in f.body for f in snap.facts)
        assert view(snap) == view(Store(layout).snapshot())
    finally:
        live.close()

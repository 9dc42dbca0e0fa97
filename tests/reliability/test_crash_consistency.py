"""Crash-consistent store operations: a process killed at any moment leaves nothing
half-done for long. The next writer finishes the journaled change and adds its audit line
(marked recovered), a fact is never active and archived at once, MEMORY.md is repaired
from the folder, and stale temporary files are removed."""

from __future__ import annotations

import json
import os
import random
import signal
import time

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store import index_md, journal, safeio
from reasonix_tui.core.store.fileformat import parse_fact_bytes
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

from .support import req, seeded

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

KILLS = 40


def _audit(layout: Layout) -> list[dict]:
    try:
        return [json.loads(x) for x in layout.audit_log.read_text().splitlines() if x.strip()]
    except FileNotFoundError:
        return []


def _archived_ids(layout: Layout) -> dict[str, str]:
    out: dict[str, str] = {}
    archive = layout.project_dir / ".archive"
    for p in archive.glob("*.md") if archive.is_dir() else []:
        fact = parse_fact_bytes(p.read_bytes(), path=str(p), dir_scope="project")
        out[fact.id] = str(p)
    return out


def _check(layout: Layout) -> None:
    """What must hold once the next writer has run."""
    store = Store(layout)
    active = store.list_all()
    archived = _archived_ids(layout)
    both = [f.name for f in active if f.id in archived]
    assert not both, f"active and archived at once: {both}"
    entries = _audit(layout)
    logged = {(e["id"], e["rev_after"]) for e in entries if e.get("ok") and e.get("rev_after")}
    for f in active:
        assert (f.id, f.revision) in logged, f"{f.name} revision {f.revision} has no audit line"
    stems = set(index_md.managed_stems(index_md.read_index(str(layout.project_dir))))
    assert stems == {f.stem for f in active}, (stems, {f.stem for f in active})
    leftovers = [str(p.relative_to(layout.project_dir)) for p in layout.project_dir.rglob(".atomic-*.tmp")]
    assert not leftovers, leftovers
    assert not journal.pending(layout.root)


def _worker(layout: Layout, seed: int) -> None:
    """Runs in a forked child until killed: saves, updates, forgets and recovers."""
    rnd = random.Random(seed)
    store = Store(layout, actor="cli")
    i = 0
    while True:
        i += 1
        name = f"f{rnd.randrange(6)}"
        fact = store.find(name)
        try:
            if fact is None:
                archived = [a for a in store.list_archived() if a.fact.name == name]
                if archived and rnd.random() < 0.6:
                    store.recover(archived[0].path)
                else:
                    store.save(req(name, body=f"{name} body {i}"))
            elif rnd.random() < 0.35:
                store.archive(name)
            else:
                store.save(SaveRequest.from_fact(fact, body=f"{name} body {i}"), expected_revision=fact.revision)
        except Exception:  # noqa: BLE001 - conflicts are fine; only crashes matter here
            pass


def _next_writer(layout: Layout) -> None:
    safeio._SWEPT.clear()  # a new process: its first write into a folder sweeps it
    Store(layout).save(req("probe", body=f"probe {time.monotonic_ns()}"))


def test_kill_loop(layout: Layout) -> None:
    seeded(layout, "f0")
    rnd = random.Random(1234)
    for k in range(KILLS):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child is killed
            try:
                _worker(layout, k)
            finally:
                os._exit(0)
        time.sleep(rnd.uniform(0.005, 0.06))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _next_writer(layout)
        _check(layout)
    # some kills did land inside a change and were finished by the next writer
    assert any(e.get("detail", {}).get("recovered") for e in _audit(layout)) or len(_audit(layout)) > KILLS


def _crash_inside_commit(layout: Layout, after_steps: int, action) -> None:
    """Fork a child that dies (SIGKILL-like ``os._exit``) after ``after_steps`` renames of its change."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            done = {"n": 0}
            real = journal.Change._apply

            def apply(self, step, dirs):  # type: ignore[no-untyped-def]
                if done["n"] >= after_steps:
                    os._exit(9)
                real(self, step, dirs)
                done["n"] += 1

            journal.Change._apply = apply  # type: ignore[method-assign]
            action(Store(layout))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 9


def test_update_killed_after_the_snapshot_is_finished_and_logged(layout: Layout) -> None:
    seeded(layout, "billing")
    fact = Store(layout).get("billing")
    _crash_inside_commit(layout, 1, lambda s: s.save(SaveRequest.from_fact(fact, body="new body"), expected_revision=1))
    assert journal.pending(layout.root)  # the change is journaled, half applied
    Store(layout).save(req("other"))  # the next writer
    now = Store(layout).get("billing")
    assert now.revision == 2 and now.body == "new body"
    recovered = [e for e in _audit(layout) if e.get("detail", {}).get("recovered")]
    assert [(e["op"], e["rev_after"]) for e in recovered] == [("update", 2)]
    _check(layout)


def test_forget_killed_before_memory_md_is_finished(layout: Layout) -> None:
    seeded(layout, "billing", "deploy")
    _crash_inside_commit(layout, 1, lambda s: s.archive("billing"))
    assert "billing" in index_md.read_index(str(layout.project_dir))  # out of step for now
    Store(layout).save(req("other"))
    assert Store(layout).find("billing") is None
    assert "billing" not in index_md.read_index(str(layout.project_dir))
    assert [e["op"] for e in _audit(layout) if e.get("detail", {}).get("recovered")] == ["forget"]
    _check(layout)


def test_recover_killed_midway_is_never_active_and_archived(layout: Layout) -> None:
    store = seeded(layout, "billing")
    path = store.archive("billing").path
    _crash_inside_commit(layout, 2, lambda s: s.recover(path))  # snapshot and rewrite done, rename not
    assert Store(layout).find("billing") is None and os.path.exists(path)  # still only archived
    Store(layout).save(req("other"))
    assert Store(layout).find("billing") is not None and not os.path.exists(path)
    _check(layout)


def test_memory_md_is_repaired_from_the_folder(layout: Layout) -> None:
    store = seeded(layout, "billing", "deploy")
    index = layout.project_dir / "MEMORY.md"
    # A crash of another writer (or a hand edit) left it out of step: deploy's line gone.
    index.write_text("# Memory\n\nMy own note.\n\n" + index.read_text().splitlines()[2] + "\n")
    store.save(req("third"))
    text = index.read_text()
    assert "My own note." in text
    assert set(index_md.managed_stems(text)) == {"billing", "deploy", "third"}


def test_stale_temp_files_are_removed_by_the_next_writer(layout: Layout) -> None:
    seeded(layout, "billing")
    dead = layout.project_dir / ".atomic-999999999-0123456789ab.tmp"
    dead.write_text("half")
    old_foreign = layout.project_dir / ".atomic-0123456789ab.tmp"
    old_foreign.write_text("half")
    os.utime(old_foreign, (time.time() - 3600, time.time() - 3600))
    fresh_foreign = layout.project_dir / ".atomic-ba9876543210.tmp"  # maybe Reasonix writing right now
    fresh_foreign.write_text("half")
    _next_writer(layout)
    assert not dead.exists() and not old_foreign.exists()
    assert fresh_foreign.exists()

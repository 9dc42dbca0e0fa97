"""No write leaves the state root: a symlink planted inside the store (at a folder or at
a file name) never sends a write to an outside path, and recover/restore read through the
descriptor they checked, so an outside file's content never enters the store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall.service import run_recall
from reasonix_tui.core.store import safeio
from reasonix_tui.core.store.journal import StorageError
from reasonix_tui.core.store.model import NotFound
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

from .support import outside_tree, req, seeded, tree_snapshot


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    return outside_tree(tmp_path)


def _update(store: Store, name: str) -> None:
    fact = store.get(name)
    store.save(SaveRequest.from_fact(fact, body=fact.body + " (changed)"), expected_revision=fact.revision)


def test_symlinked_revisions_folder(layout: Layout, outside: Path) -> None:
    store = seeded(layout, "billing")
    (layout.project_dir / ".revisions").symlink_to(outside, target_is_directory=True)
    before = tree_snapshot(outside)
    with pytest.raises(StorageError, match="symlink"):
        _update(store, "billing")
    assert tree_snapshot(outside) == before
    assert store.get("billing").revision == 1  # nothing landed


def test_symlinked_revisions_id_folder(layout: Layout, outside: Path) -> None:
    store = seeded(layout, "billing")
    fact = store.get("billing")
    (layout.project_dir / ".revisions").mkdir()
    (layout.project_dir / ".revisions" / fact.id).symlink_to(outside, target_is_directory=True)
    before = tree_snapshot(outside)
    with pytest.raises(StorageError):
        _update(store, "billing")
    assert tree_snapshot(outside) == before


@pytest.mark.parametrize(("which", "error"), [("audit", "symlink"), ("lock", "store")])
def test_symlinked_audit_log_or_lock_is_never_written(layout: Layout, outside: Path, which: str, error: str) -> None:
    store = seeded(layout, "billing")
    planted = layout.audit_log if which == "audit" else layout.lock_file
    planted.unlink()
    planted.symlink_to(outside / "victim.txt")
    with pytest.raises(Exception, match=error):
        store.save(req("second"))
    assert (outside / "victim.txt").read_text() == "untouched\n"  # never appended to or truncated
    assert Store(layout).find("second") is None  # undone: no change without its audit line


def test_symlinked_memory_md_is_replaced_not_followed(layout: Layout, outside: Path) -> None:
    store = seeded(layout, "billing")
    index = layout.project_dir / "MEMORY.md"
    index.unlink()
    index.symlink_to(outside / "victim.txt")
    store.save(req("second"))
    assert (outside / "victim.txt").read_text() == "untouched\n"
    assert not index.is_symlink() and "second" in index.read_text()


def test_symlinked_recall_folder(layout: Layout, outside: Path) -> None:
    seeded(layout, "billing")
    layout.project_base.mkdir(parents=True, exist_ok=True)
    layout.recall_dir.symlink_to(outside, target_is_directory=True)
    before = tree_snapshot(outside)
    trace = run_recall(layout, "how does billing deploy")
    assert trace.hits  # the recall itself is not lost
    assert any("not recorded" in n for n in trace.notes)
    assert tree_snapshot(outside) == before


def test_symlinked_cache_folder(layout: Layout, outside: Path) -> None:
    seeded(layout, "billing")
    layout.tui_dir.mkdir(parents=True, exist_ok=True)
    import shutil

    shutil.rmtree(layout.cache_dir, ignore_errors=True)
    layout.cache_dir.symlink_to(outside, target_is_directory=True)
    before = tree_snapshot(outside)
    assert [f.name for f in Store(layout).list_all()] == ["billing"]
    assert tree_snapshot(outside) == before


def test_symlinked_archive_folder(layout: Layout, outside: Path) -> None:
    store = seeded(layout, "billing")
    (layout.project_dir / ".archive").symlink_to(outside, target_is_directory=True)
    before = tree_snapshot(outside)
    with pytest.raises(Exception, match="symlink"):
        store.archive("billing")
    assert tree_snapshot(outside) == before
    assert store.find("billing") is not None


def test_recover_never_reads_an_outside_file(layout: Layout, outside: Path) -> None:
    store = seeded(layout, "billing")
    archived = store.archive("billing").path
    secret = outside / "secret.md"
    secret.write_text("---\nid: mem-outside\nrevision: 1\nname: stolen\n---\noutside content\n")
    os.unlink(archived)
    os.symlink(secret, archived)  # swapped for a symlink after `memory archived` listed it
    with pytest.raises(NotFound):
        store.recover(archived)
    assert store.find("stolen") is None
    assert all("outside content" not in f.body for f in store.list_all())


def test_restore_never_reads_an_outside_revision(layout: Layout, outside: Path) -> None:
    store = seeded(layout, "billing")
    _update(store, "billing")
    fact = store.get("billing")
    rev1 = layout.project_dir / ".revisions" / fact.id / f"{1:09d}.md"
    (outside / "r.md").write_text(f"---\nid: {fact.id}\nrevision: 1\nname: billing\n---\noutside content\n")
    rev1.unlink()
    rev1.symlink_to(outside / "r.md")
    with pytest.raises(NotFound):
        store.restore("billing", 1)
    assert "outside content" not in store.get("billing").body


def test_confined_writes_refuse_every_symlinked_folder(layout: Layout, outside: Path) -> None:
    layout.tui_dir.mkdir(parents=True)
    (layout.tui_dir / "sessions").symlink_to(outside, target_is_directory=True)
    with pytest.raises(safeio.EscapesRoot):
        safeio.write_atomic(layout.tui_dir / "sessions" / "x.json", b"{}")
    with pytest.raises(safeio.EscapesRoot):
        safeio.append_bytes(layout.tui_dir / "sessions" / "x.log", b"line\n")
    assert tree_snapshot(outside) == {"victim.txt": b"untouched\n"}

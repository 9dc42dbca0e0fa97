"""The fact-file listing the on-disk indexes are checked against: the same paths, order,
scopes and stat keys as a plain ``scandir`` + ``lstat`` of each name, and ``None`` where
the store's own rules must decide."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall.listing import list_fact_files
from reasonix_tui.core.store.index_md import INDEX_NAME
from reasonix_tui.core.store.store import Store


def _reference(store: Store) -> tuple[list[str], list[str], list[tuple[int, int, int, int]]] | None:
    paths, scopes, keys = [], [], []
    for scope, directory in store._dirs():  # noqa: SLF001
        try:
            entries = list(os.scandir(directory))
        except FileNotFoundError:
            continue
        found = sorted(
            (e for e in entries if e.name.endswith(".md") and e.name != INDEX_NAME),
            key=lambda e: e.name.encode("utf-8", "surrogateescape"),
        )
        for e in found:
            st = e.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                continue
            if not stat.S_ISREG(st.st_mode):
                return None
            paths.append(e.path)
            scopes.append(scope)
            keys.append((st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns))
    return paths, scopes, keys


@pytest.fixture
def store(tmp_path: Path) -> Store:
    ws = tmp_path / "ws"
    ws.mkdir()
    return Store(Layout.resolve(home=tmp_path / "home", workspace=ws))


def _folders(store: Store) -> list[Path]:
    return [Path(d) for _s, d in store._dirs()]  # noqa: SLF001


def test_listing_matches_a_plain_scan(store: Store) -> None:
    assert list_fact_files(store) is not None and list_fact_files(store).paths == []  # type: ignore[union-attr]
    first, second = _folders(store)
    first.mkdir(parents=True)
    for name in ("b.md", "a.md", "Z.md", "é.md", "日本.md", INDEX_NAME, "notes.txt", "c.md~"):
        (first / name).write_text(name, encoding="utf-8")
    (first / "folder.md").mkdir()
    got = list_fact_files(store)
    assert got is not None and (got.paths, got.scopes, got.keys) == _reference(store)
    assert [Path(p).name for p in got.paths] == ["Z.md", "a.md", "b.md", "é.md", "日本.md"]
    second.mkdir(parents=True)
    (second / "p.md").write_text("x", encoding="utf-8")
    got = list_fact_files(store)
    assert got is not None and (got.paths, got.scopes, got.keys) == _reference(store)
    assert len(set(got.scopes)) == 2 and got.paths[-1] == str(second / "p.md")


def test_names_that_are_not_utf8_sort_by_their_bytes(store: Store) -> None:
    first = _folders(store)[0]
    first.mkdir(parents=True)
    for raw in (b"\xff-x.md", b"a.md", b"\xc3\xa9.md"):
        with open(os.path.join(os.fsencode(first), raw), "wb") as f:
            f.write(b"x")
    got = list_fact_files(store)
    assert got is not None and (got.paths, got.scopes, got.keys) == _reference(store)
    assert [os.fsencode(Path(p).name) for p in got.paths] == [b"a.md", b"\xc3\xa9.md", b"\xff-x.md"]


def test_a_symlink_or_special_file_leaves_it_to_the_store(store: Store) -> None:
    first = _folders(store)[0]
    first.mkdir(parents=True)
    (first / "a.md").write_text("x", encoding="utf-8")
    (first / "link.md").symlink_to(first / "a.md")
    assert list_fact_files(store) is None
    (first / "link.md").unlink()
    os.mkfifo(first / "pipe.md")
    assert list_fact_files(store) is None
    (first / "pipe.md").unlink()
    assert list_fact_files(store) is not None


def test_a_file_gone_before_its_stat_is_not_a_missing_folder(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _folders(store)[0]
    first.mkdir(parents=True)
    (first / "a.md").write_text("x", encoding="utf-8")
    real = os.stat

    def gone(path: object, *args: object, **kw: object) -> os.stat_result:
        if path == "a.md" or str(path).endswith("a.md"):
            raise FileNotFoundError(path)
        return real(path, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", gone)
    assert list_fact_files(store) is None  # not an empty listing: the store decides
    monkeypatch.setattr(os, "supports_dir_fd", os.supports_dir_fd | {gone})
    assert list_fact_files(store) is None  # the same when each stat is relative to the folder

"""A fact file that does not parse is never rewritten by a side action (issue 10, point 5):
pin, unpin and verify refuse, in the store, the CLI and the Context Center, say how to fix
it, and leave the file's bytes as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.model import StoreError
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations.cli import main

BROKEN = b"---\ntitle: [unclosed\nactivation: relevant\n---\nA note with broken frontmatter, kept as typed.\n"


@pytest.fixture
def broken(layout: Layout) -> Path:
    layout.project_dir.mkdir(parents=True, exist_ok=True)
    path = layout.project_dir / "broken-note.md"
    path.write_bytes(BROKEN)
    return path


@pytest.mark.parametrize("action", ["pin", "unpin", "verify"])
def test_the_store_refuses_and_keeps_the_bytes(layout: Layout, broken: Path, action: str) -> None:
    store = Store(layout)
    with pytest.raises(StoreError) as caught:
        if action == "verify":
            store.verify("broken-note")
        else:
            store.set_activation("broken-note", "pinned" if action == "pin" else "relevant")
    message = str(caught.value)
    assert "frontmatter could not be parsed" in message and "editor" in message and str(broken) in message
    assert broken.read_bytes() == BROKEN
    assert not (layout.project_dir / ".revisions").exists()
    assert [e.ok for e in store.audit.read(5) if e.op == action] == [False]


@pytest.mark.parametrize("verb", ["pin", "unpin", "verify"])
def test_the_cli_refuses_with_one_line(
    layout: Layout, broken: Path, verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--home", str(layout.root), "--workspace", str(layout.workspace), "memory", verb, "broken-note"])
    err = capsys.readouterr().err
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and "Fix it in an editor first" in err
    assert broken.read_bytes() == BROKEN


async def test_the_context_center_refuses_p_and_v_on_an_error_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.notifications import Notify
    from ui.helpers import SIZE, build_demo, make, settle

    layout = build_demo(tmp_path / "demo", monkeypatch)
    path = layout.project_dir / "broken-note.md"
    before = path.read_bytes()
    messages: list[object] = []
    app = make(layout)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(pilot)
        key = next(k for k, row in app.snapshot.rows.items() if row.ref.endswith("broken-note.md"))
        assert app.snapshot.rows[key].error
        app.screen.query_one("#facts-table").move_to_key(key)
        await pilot.pause(0.1)
        for keys in ("p", "v"):
            await pilot.press(keys)
            await settle(pilot)
        toasts = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert sum("Press E to fix the file" in t for t in toasts) == 2
    assert path.read_bytes() == before

"""Outside changes reach the next answer of a running MCP server and warm hook server.

Both servers keep their store current from file-system events (``LiveStore``): an edit, a
deletion and a new file made by someone else (an editor, ``git checkout``) must show in
the next answer after the event, without a restart. Each wait is bounded: the event may
still be in flight when the file has just been written.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from test_hooks import context_of, hook, prompt_payload
from test_mcp_server import session, text

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall.disk_index import index_for
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations import hook_client
from reasonix_tui.integrations.hook_sessions import SessionState, session_path

WAIT_S = 15.0


def seed(layout: Layout) -> Store:
    store = Store(layout)
    store.save(
        SaveRequest(
            name="pkg-manager",
            title="Package manager",
            type="project",
            description="Package manager is pnpm",
            body="Use pnpm install, never npm install.",
        )
    )
    store.save(
        SaveRequest(
            name="deploy-target",
            title="Deploy target",
            type="reference",
            description="Deploys go to k8s-stage-2",
            body="helm upgrade --install app deploy/chart",
        )
    )
    return store


def edit_in_place(path: Path, old: str, new: str) -> None:
    """As an editor that writes in place: same file, same inode (no folder timestamp moves)."""
    data = path.read_text(encoding="utf-8").replace(old, new)
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(data)
        fh.truncate()


def new_fact_file(layout: Layout) -> None:
    (layout.project_dir / "canary-rollout.md").write_text(
        "---\nname: canary-rollout\ntitle: Canary rollout\ndescription: Canary rollouts use flagger on k8s-stage-2\n"
        "metadata:\n  type: project\n---\n\nflagger canary with 10% steps\n",
        encoding="utf-8",
    )


async def eventually(ask: Callable[[], Awaitable[str]], seen: Callable[[str], bool]) -> str:
    """The first answer ``seen`` accepts, or the last one after :data:`WAIT_S`."""
    deadline = time.monotonic() + WAIT_S
    while True:
        answer = await ask()
        if seen(answer) or time.monotonic() > deadline:
            return answer
        time.sleep(0.05)


def eventually_sync(ask: Callable[[], str], seen: Callable[[str], bool]) -> str:
    """:func:`eventually` for a blocking ``ask``."""
    deadline = time.monotonic() + WAIT_S
    while True:
        answer = ask()
        if seen(answer) or time.monotonic() > deadline:
            return answer
        time.sleep(0.05)


@pytest.mark.parametrize("rows", [False, True], ids=["analysed", "from-disk-rows"])
async def test_outside_changes_reach_the_next_mcp_answer(layout: Layout, rows: bool) -> None:
    seed(layout)
    if rows:  # the server's warm-up starts from the on-disk recall rows a one-shot run left
        index_for(Store(layout))
    async with session(layout) as s:

        async def search(query: str) -> str:
            return text(await s.call_tool("memory", {"op": "search", "query": query}))

        assert "deploy-target" in await search("helm chart")
        edit_in_place(layout.project_dir / "pkg-manager.md", "never npm install.", "never npm install. zyxquux")
        answer = await eventually(lambda: search("zyxquux"), lambda a: "pkg-manager" in a)
        assert "pkg-manager" in answer

        (layout.project_dir / "deploy-target.md").unlink()
        answer = await eventually(lambda: search("helm chart"), lambda a: "deploy-target" not in a)
        assert "deploy-target" not in answer
        read = text(await s.call_tool("memory", {"op": "read", "name": "deploy-target"}))
        assert "not found" in read.lower()

        new_fact_file(layout)
        answer = await eventually(lambda: search("flagger canary"), lambda a: "canary-rollout" in a)
        assert "canary-rollout" in answer
        read = text(await s.call_tool("memory", {"op": "read", "name": "canary-rollout"}))
        assert "flagger canary with 10% steps" in read


@pytest.mark.skipif(not hook_client.enabled({}), reason="no Unix sockets")
def test_outside_changes_reach_the_next_warm_hook_answer(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(layout)
    index_for(Store(layout))  # the server's warm-up starts from the on-disk recall rows
    monkeypatch.setenv("REASONIX_TUI_HOOK_DAEMON", "1")
    root = str(layout.root)

    def ask(prompt: str) -> str:
        proc = hook(layout, "user-prompt-submit", prompt_payload(layout, prompt, session="live"), daemon=True)
        assert proc.returncode == 0, proc.stderr
        return context_of(proc, "UserPromptSubmit") if proc.stdout.strip() else ""

    def served(answer: str) -> bool:
        # On a loaded machine the server can miss the client's one-second budget: the hook
        # then answers in-process (the product's fallback) and that answer proves nothing
        # about the server, so it is asked again.
        return SessionState.load(session_path(layout, "live"), "live").handled_by == pid

    def until(prompt: str, seen: Callable[[str], bool]) -> str:
        return eventually_sync(lambda: ask(prompt), lambda a: seen(a) and served(a))

    try:
        ask("how do we deploy to the k8s-stage-2 cluster with helm?")  # starts the server
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not hook_client.status(root):
            time.sleep(0.1)
        pid = hook_client.status(root)["pid"]  # type: ignore[index]
        answer = until("how do we deploy to the k8s-stage-2 cluster with helm?", lambda a: "k8s-stage-2" in a)
        assert "Deploys go to k8s-stage-2" in answer

        edit_in_place(layout.project_dir / "deploy-target.md", "Deploys go to k8s-stage-2", "Deploys go to k8s-stage-7")
        answer = until("how do we deploy to the k8s cluster with helm?", lambda a: "k8s-stage-7" in a)
        assert "k8s-stage-7" in answer

        new_fact_file(layout)
        answer = until("how do canary rollouts work with flagger?", lambda a: "canary-rollout" in a)
        assert "canary-rollout" in answer

        (layout.project_dir / "canary-rollout.md").unlink()
        answer = until("how do canary rollouts work with flagger?", lambda a: "canary-rollout" not in a)
        assert "canary-rollout" not in answer

        # every answer above came from the same running server (no restart)
        assert hook_client.status(root)["pid"] == pid  # type: ignore[index]
        state = SessionState.load(session_path(layout, "live"), "live")
        assert state.handled_by == pid
    finally:
        hook_client.shutdown(root)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and hook_client.status(root):
            time.sleep(0.1)


def test_server_stores_are_live_and_one_shot_stores_are_not(layout: Layout) -> None:
    from reasonix_tui.core.recall import service
    from reasonix_tui.core.store.live import LiveStore

    seed(layout)
    try:
        assert not isinstance(service.store_for(layout), LiveStore)
        service._STORES.clear()
        service.serve_live()
        live = service.store_for(layout)
        assert isinstance(live, LiveStore)
        live.close()
    finally:
        service.serve_live(False)
        service._STORES.clear()


def test_the_context_center_reads_a_live_store(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from reasonix_tui.core.recall import service
    from reasonix_tui.core.store.live import LiveStore
    from reasonix_tui.integrations import open_app
    from reasonix_tui.tui import app as tui_app

    seed(layout)
    seen: dict[str, object] = {}

    class FakeApp:
        return_code = 0

        def run(self) -> None:
            seen["store"] = service.store_for(layout)

    monkeypatch.setattr(open_app, "interactive_terminal", lambda: True)
    monkeypatch.setattr(tui_app, "make_app", lambda *a, **k: FakeApp())
    try:
        service._STORES.clear()
        args = argparse.Namespace(home=str(layout.root), workspace=str(layout.workspace), demo=False, no_watch=False)
        assert open_app.open_context_center(args) == 0
        assert isinstance(seen["store"], LiveStore)
        seen["store"].close()  # type: ignore[attr-defined]
    finally:
        service.serve_live(False)
        service._STORES.clear()

"""``reasonix-tui mcp`` driven through the MCP SDK's own stdio client (a real subprocess)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from reasonix_tui.core.agent.approvals import ApprovalQueue
from reasonix_tui.core.agent.presence import PresenceMarker
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

NEEDS_PERSON = {
    "name": "prefers-tabs",
    "description": "Indentation preference",
    "type": "user",
    "body": "The user wants tabs, not spaces.",
}
LOW_RISK = {
    "name": "ci-runner",
    "description": "CI runs on buildkite linux-large agents",
    "type": "project",
    "body": "The CI pipeline runs on buildkite agents labelled linux-large.",
}


def _command() -> tuple[str, list[str]]:
    script = Path(sys.executable).parent / "reasonix-tui"
    if script.exists():
        return str(script), []
    return sys.executable, ["-m", "reasonix_tui"]


@asynccontextmanager
async def session(
    layout: Layout, *args: str, workspace: bool = True, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    command, prefix = _command()
    argv = [*prefix, "--home", str(layout.root), "mcp", *args]
    if workspace:
        argv += ["--workspace", str(layout.workspace)]
    e = {"HOME": os.environ["HOME"], "REASONIX_HOME": str(layout.root), **(env or {})}
    params = StdioServerParameters(command=command, args=argv, env=e, cwd=str(layout.workspace.parent))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s


def text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.fixture
def store(layout: Layout) -> Store:
    s = Store(layout)
    s.save(
        SaveRequest(
            name="pkg-manager",
            title="Package manager",
            type="project",
            description="Package manager is pnpm",
            body="Use pnpm install, never npm install.",
        )
    )
    s.save(
        SaveRequest(
            name="deploy-target",
            title="Deploy target",
            type="reference",
            description="Deploys go to k8s-stage-2",
            body="helm upgrade --install app deploy/chart",
        )
    )
    return s


@pytest.fixture
def presence(layout: Layout) -> Any:
    marker = PresenceMarker(layout).start()
    yield marker
    marker.stop()


async def test_tools_and_their_rules(layout: Layout, store: Store) -> None:
    async with session(layout) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
    assert {"memory", "remember", "forget", "approval_status"} <= set(tools)
    assert "low-authority" in (tools["memory"].description or "")
    assert "approval" in (tools["remember"].description or "") and "pending" in (tools["remember"].description or "")
    assert "approval" in (tools["forget"].description or "")
    props = tools["memory"].input_schema["properties"]
    assert {"op", "query", "name", "type", "limit"} <= set(props)
    assert tools["memory"].annotations.read_only_hint is True
    assert set(tools["remember"].input_schema["required"]) == {"description", "body"}
    try:
        from reasonix_tui.core.sessions.history_tool import history_tool_call  # noqa: F401
    except ImportError:
        assert "history" not in tools
    else:
        assert {"op", "query", "session_path", "message_index"} <= set(tools["history"].input_schema["properties"])


async def test_memory_search_read_list(layout: Layout, store: Store) -> None:
    fact = store.get("pkg-manager")
    async with session(layout) as s:
        found = await s.call_tool("memory", {"op": "search", "query": "pnpm install"})
        read = await s.call_tool("memory", {"op": "read", "name": "pkg-manager"})
        listed = await s.call_tool("memory", {"op": "list"})
        filtered = await s.call_tool("memory", {"op": "list", "type": "reference"})
        bad = await s.call_tool("memory", {"op": "shred"})
        missing = await s.call_tool("memory", {"op": "read", "name": "nope"})
    assert not found.is_error and text(found).startswith('Memory search results for "pnpm install":')
    assert f"id={fact.id}" in text(found) and "deploy-target" not in text(found)
    assert "Use pnpm install, never npm install." in text(read)
    assert "pkg-manager" in text(listed) and "deploy-target" in text(listed)
    assert "deploy-target" in text(filtered) and "pkg-manager" not in text(filtered)
    assert bad.is_error and 'unknown operation "shred"' in text(bad)
    assert missing.is_error and "not found" in text(missing)


async def test_auto_allowed_remember_lands(layout: Layout, store: Store) -> None:
    async with session(layout) as s:
        result = await s.call_tool("remember", LOW_RISK)
    fact = Store(layout).get("ci-runner")
    assert not result.is_error
    assert text(result).startswith(f"Saved memory id={fact.id} revision=1 (project background) as project/ci-runner.md")
    assert result.structured_content["status"] == "saved"
    audit = Store(layout).audit.read()[0]
    assert audit.actor == "agent-auto"
    assert ApprovalQueue(layout).pending() == []


async def test_remember_needing_a_person_returns_pending_after_the_bound(
    layout: Layout, store: Store, presence: Any
) -> None:
    async with session(layout) as s:
        result = await s.call_tool("remember", {**NEEDS_PERSON, "wait_seconds": 0.5})
    assert not result.is_error
    data = result.structured_content
    assert data["status"] == "pending" and data["context_center_open"] is True
    assert "Still waiting for the user's approval after 0.5s" in text(result)
    assert f"proposal_id={data['proposal_id']}" in text(result)
    pending = ApprovalQueue(layout).pending()
    assert [(p.id, p.tool, p.requester.source) for p in pending] == [(data["proposal_id"], "remember", "mcp")]
    assert Store(layout).find("prefers-tabs") is None


async def test_wait_is_capped_by_max_wait(layout: Layout, store: Store, presence: Any) -> None:
    async with session(layout, "--max-wait", "0.3") as s:
        result = await s.call_tool("remember", {**NEEDS_PERSON, "wait_seconds": 600})
    assert result.structured_content["status"] == "pending"
    assert "after 0.3s" in text(result)


async def test_pending_at_once_without_a_context_center(layout: Layout, store: Store) -> None:
    async with session(layout) as s:
        result = await s.call_tool("remember", NEEDS_PERSON)
    assert result.structured_content["status"] == "pending"
    assert result.structured_content["context_center_open"] is False
    assert "No Context Center is open" in text(result)
    pid = result.structured_content["proposal_id"]
    # over MCP the model is pointed at the tool, not at a shell command it may not have
    assert f'check with: the approval_status tool (proposal_id="{pid}", wait_seconds=60)' in text(result)
    assert "reasonix-tui approval-status" not in text(result)
    assert "reasonix-tui approval-status" not in result.structured_content["message"]


async def test_forget_is_always_a_proposal(layout: Layout, store: Store, presence: Any) -> None:
    async with session(layout) as s:
        result = await s.call_tool("forget", {"ref": "pkg-manager", "wait_seconds": 0.3})
    data = result.structured_content
    assert data["status"] == "pending" and data["tool"] == "forget"
    assert Store(layout).find("pkg-manager") is not None
    assert [p.tool for p in ApprovalQueue(layout).pending()] == ["forget"]


async def test_approval_while_the_call_waits(layout: Layout, store: Store, presence: Any) -> None:
    queue = ApprovalQueue(layout)
    async with session(layout) as s:
        call = asyncio.create_task(s.call_tool("remember", {**NEEDS_PERSON, "wait_seconds": 40}))
        proposal = None
        for _ in range(400):
            pending = queue.pending()
            if pending:
                proposal = pending[0]
                break
            await asyncio.sleep(0.05)
        assert proposal is not None and not call.done()
        decided = await asyncio.to_thread(queue.apply, proposal, "approve", None, Store(layout))
        assert decided.state == "approved"
        result = await asyncio.wait_for(call, 30)
        status = await s.call_tool("approval_status", {"proposal_id": proposal.id})
    fact = Store(layout).get("prefers-tabs")
    assert not result.is_error
    assert result.structured_content["status"] == "approved"
    assert result.structured_content["fact_id"] == fact.id
    assert text(result).startswith(f"Saved memory id={fact.id} revision=1") and "The user approved it." in text(result)
    assert status.structured_content["status"] == "approved"


async def test_denied_forget_reports_denied(layout: Layout, store: Store, presence: Any) -> None:
    queue = ApprovalQueue(layout)
    async with session(layout) as s:
        call = asyncio.create_task(s.call_tool("forget", {"ref": "deploy-target", "wait_seconds": 40}))
        for _ in range(400):
            if queue.pending():
                break
            await asyncio.sleep(0.05)
        await asyncio.to_thread(queue.apply, queue.pending()[0], "deny", None, Store(layout), "keep it")
        result = await asyncio.wait_for(call, 30)
    assert result.structured_content["status"] == "denied"
    assert "The user said: keep it" in text(result)
    assert Store(layout).find("deploy-target") is not None


async def test_invalid_remember_is_a_tool_error(layout: Layout, store: Store) -> None:
    async with session(layout) as s:
        result = await s.call_tool("remember", {"description": "x", "body": ""})
    assert result.is_error and "description and body are required" in text(result)


async def test_workspace_from_claude_project_dir(layout: Layout, store: Store) -> None:
    async with session(layout, workspace=False, env={"CLAUDE_PROJECT_DIR": str(layout.workspace)}) as s:
        result = await s.call_tool("memory", {"op": "list"})
    assert "pkg-manager" in text(result)


async def test_unexpanded_placeholder_falls_back(layout: Layout, store: Store) -> None:
    async with session(
        layout, "--workspace", "${workspaceFolder}", workspace=False, env={"CLAUDE_PROJECT_DIR": str(layout.workspace)}
    ) as s:
        result = await s.call_tool("memory", {"op": "list"})
    assert "pkg-manager" in text(result)


async def test_history_tool_answers(layout: Layout, store: Store) -> None:
    pytest.importorskip("reasonix_tui.core.sessions.history")
    async with session(layout) as s:
        result = await s.call_tool("history", {"op": "search", "query": "flaky redis queue"})
        bad = await s.call_tool("history", {"op": "rewind"})
    assert not result.is_error and "0 results does not prove the event never happened" in text(result)
    assert bad.is_error

"""``reasonix-tui mcp``: the memory store as an MCP stdio server (official ``mcp`` SDK).

Tools (names as the client shows them: ``mcp__reasonix-tui__<tool>`` in Claude Code):

* ``memory`` — ``op`` ``search`` | ``read`` | ``list`` over the active facts
  (store-format §6.8, through :func:`reasonix_tui.core.recall.memory_tool_call`);
* ``remember`` — the CLI's arguments; a low-risk write lands at once, anything else
  becomes a proposal that waits (bounded) for a person's decision in the Context Center
  and otherwise reports ``pending`` with the proposal id
  (:mod:`reasonix_tui.core.agent.writes`, shared with the CLI verbs);
* ``forget`` — always a proposal;
* ``approval_status`` — check on (or wait a little longer for) a pending proposal;
* ``history`` — ``op`` ``search`` | ``around`` over saved sessions, registered when
  :mod:`reasonix_tui.core.sessions.history_tool` provides ``history_tool_call``.

stdout is the JSON-RPC channel: nothing else is ever printed there (the SDK logs to
stderr; our own errors go to ``<root>/reasonix-tui/mcp.log``).

The workspace is ``--workspace``, else ``$CLAUDE_PROJECT_DIR``, else the working
directory. Waits are capped (:data:`DEFAULT_MAX_WAIT`, ``--max-wait``) below the
clients' tool-call timeouts (Codex's default is 60 s).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ..core.agent.proposals import Requester
from ..core.agent.writes import AgentWriteOutcome, agent_forget, agent_remember, await_proposal
from ..core.paths import Layout
from ..core.settings import Settings, load_settings
from ..core.store.model import StoreError
from . import mcp_tools

if TYPE_CHECKING:
    from ..core.store.store import Store

__all__ = [
    "SERVER_NAME",
    "DEFAULT_MAX_WAIT",
    "INSTRUCTIONS",
    "TOOLS",
    "resolve_workspace",
    "build_server",
    "run",
    "serve_pipes",
]

SERVER_NAME = mcp_tools.SERVER_NAME
DEFAULT_MAX_WAIT = 45.0
"""Longest a ``remember``/``forget`` call waits for a person (the client must not time out first)."""

INSTRUCTIONS = mcp_tools.INSTRUCTIONS

_log = logging.getLogger("reasonix_tui.mcp")


def resolve_workspace(explicit: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """``--workspace``, else ``$CLAUDE_PROJECT_DIR`` (``$CURSOR_PROJECT_DIR``), else the
    working directory.

    A value that is still an unexpanded ``${...}`` placeholder (a client that does not
    interpolate its config) is ignored.
    """
    env = os.environ if env is None else env
    for value in (explicit, env.get("CLAUDE_PROJECT_DIR"), env.get("CURSOR_PROJECT_DIR")):
        v = (value or "").strip()
        if v and "${" not in v:
            return v
    return os.getcwd()


def _session_id(env: Mapping[str, str]) -> str:
    for key in ("REASONIX_TUI_SESSION", "CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID"):
        if env.get(key, "").strip():
            return env[key].strip()
    return ""


MAX_QUERY_CHARS = 4096
"""Longest search query taken (a longer one is refused, never echoed back)."""


def _text(message: str, *, error: bool = False, structured: dict[str, Any] | None = None) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=message)], is_error=error, structured_content=structured
    )


def _for_mcp(outcome: AgentWriteOutcome) -> AgentWriteOutcome:
    """The core's messages name the shell verb; over MCP the model has the ``approval_status`` tool."""
    if not outcome.proposal_id:
        return outcome
    shell = f"reasonix-tui approval-status {outcome.proposal_id} --wait 60"
    tool = f'the approval_status tool (proposal_id="{outcome.proposal_id}", wait_seconds=60)'
    return dataclasses.replace(outcome, message=outcome.message.replace(shell, tool))


def _outcome(outcome: AgentWriteOutcome) -> CallToolResult:
    outcome = _for_mcp(outcome)
    data = outcome.to_dict()
    lines = [outcome.message]
    if outcome.status == "pending" and outcome.proposal_id:
        lines.append(f"status=pending proposal_id={outcome.proposal_id}")
    elif outcome.fact_id:
        lines.append(f"status={outcome.status} id={outcome.fact_id} revision={outcome.revision} ref={outcome.ref}")
    else:
        lines.append(f"status={outcome.status}")
    return _text("\n".join(lines), error=outcome.status in ("invalid", "conflict", "error", "missing"), structured=data)


class _Context:
    """The server's state: one layout, one store, settings, the wait cap."""

    def __init__(self, layout: Layout, settings: Settings, max_wait: float, env: Mapping[str, str]) -> None:
        self.layout = layout
        self.settings = settings
        self.max_wait = max(0.0, max_wait)
        self.requester = Requester.current(source="mcp", agent=_agent(env), session=_session_id(env))
        self._store: Store | None = None
        self._store_lock = threading.Lock()

    @property
    def store(self) -> Store:
        """A :class:`~reasonix_tui.core.store.live.LiveStore`: the server lives as long as the
        client's session, so its reads follow file-system events instead of re-validating
        every fact file on every call."""
        with self._store_lock:  # the prewarm thread and the first tool call may both ask
            if self._store is None:
                from ..core.store.live import LiveStore

                self._store = LiveStore(self.layout, settings=self.settings, actor="agent-auto")
            return self._store

    def wait(self, requested: float | None) -> float:
        base = self.settings.approval_wait_seconds if requested is None else max(float(requested), 0.0)
        return min(base, self.max_wait)

    def log_error(self, where: str) -> None:
        try:
            from ..core.store.safeio import append_bytes

            text = f"{where}\n{traceback.format_exc()}\n"
            append_bytes(self.layout.tui_dir / "mcp.log", text.encode("utf-8", "backslashreplace"), 0o600)
        except OSError:
            pass


def _agent(env: Mapping[str, str]) -> str:
    from .commands.agent import detect_agent

    return detect_agent(dict(env))


def _guard(ctx: _Context, name: str, fn: Callable[[], CallToolResult]) -> CallToolResult:
    try:
        return fn()
    except StoreError as exc:
        return _text(str(exc), error=True)
    except Exception as exc:  # a tool error, never a crashed server
        ctx.log_error(f"tool {name} failed")
        return _text(f"internal error in {name}: {type(exc).__name__}: {exc}", error=True)


def build_server(
    workspace: str | None = None,
    home: str | None = None,
    *,
    max_wait: float = DEFAULT_MAX_WAIT,
    env: Mapping[str, str] | None = None,
    prewarm: bool = False,
) -> MCPServer:
    """The configured :class:`MCPServer` (not started): every tool of :data:`TOOLS`, and
    ``history`` when the sessions engine provides it.

    ``prewarm`` reads the store and readies the memory search (from the on-disk search
    index when it is current) and builds the history index in a background thread, so the
    first ``memory`` and ``history`` calls do not pay for them.
    """
    env = dict(os.environ if env is None else env)
    layout = Layout.resolve(home=home, workspace=resolve_workspace(workspace, env), env=env)
    settings = load_settings(layout.root, env)
    ctx = _Context(layout, settings, max_wait, env)
    from .. import __version__

    server = MCPServer(name=SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    for name, make_tool in TOOLS:
        _add_tool(server, name, make_tool(ctx))
    history_call = _history_tool()
    if history_call is not None:
        _add_tool(server, "history", _history(ctx, history_call))
    if prewarm:
        _start_prewarm(ctx, history=history_call is not None)
    return server


def _add_tool(server: MCPServer, name: str, fn: Callable[..., CallToolResult]) -> None:
    """Register ``fn`` as tool ``name`` with its declared title, description and hints
    (:data:`.mcp_tools.TOOL_SPECS`)."""
    _, title, description, annotations, _ = mcp_tools.TOOL_SPECS[name]
    server.add_tool(
        fn,
        name=name,
        title=title,
        description=description,
        annotations=ToolAnnotations(**annotations),  # type: ignore[arg-type]  # the hint booleans only
        structured_output=False,
    )


def _given(args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments the client gave (``None`` means left out)."""
    return {k: v for k, v in args.items() if v is not None}


def _query_too_long(query: str | None, what: str, hint: str = "") -> CallToolResult | None:
    """The refusal of a query over :data:`MAX_QUERY_CHARS` (the query is never echoed back)."""
    if query is None or len(query) <= MAX_QUERY_CHARS:
        return None
    return _text(f"query is {len(query)} characters long; {what} takes at most {MAX_QUERY_CHARS}{hint}", error=True)


def _memory(ctx: _Context) -> Callable[..., CallToolResult]:
    """The ``memory`` tool: search, read and list the active facts."""

    def memory(
        op: Annotated[str, Field(description=mcp_tools.arg("memory", "op"))] = "",
        query: Annotated[str | None, Field(description=mcp_tools.arg("memory", "query"))] = None,
        name: Annotated[str | None, Field(description=mcp_tools.arg("memory", "name"))] = None,
        type: Annotated[str | None, Field(description=mcp_tools.arg("memory", "type"))] = None,
        scope: Annotated[str | None, Field(description=mcp_tools.arg("memory", "scope"))] = None,
        limit: Annotated[int | None, Field(description=mcp_tools.arg("memory", "limit"))] = None,
        operation: Annotated[str | None, Field(description=mcp_tools.arg("memory", "operation"))] = None,
    ) -> CallToolResult:
        from ..core.recall import memory_tool_call

        args = {
            "operation": op or operation or "",
            "query": query,
            "name": name,
            "type": type,
            "scope": scope,
            "limit": limit,
        }
        refused = _query_too_long(query, "a memory search", " (use 1-3 distinctive terms)")
        if refused is not None:
            return refused
        return _guard(ctx, "memory", lambda: _text(memory_tool_call(ctx.store, _given(args))))

    return memory


def _remember(ctx: _Context) -> Callable[..., CallToolResult]:
    """The ``remember`` tool: save a fact now, or propose it and wait for a person."""

    def remember(
        description: Annotated[str, Field(description=mcp_tools.arg("remember", "description"))],
        body: Annotated[str, Field(description=mcp_tools.arg("remember", "body"))],
        name: Annotated[str | None, Field(description=mcp_tools.arg("remember", "name"))] = None,
        title: Annotated[str | None, Field(description=mcp_tools.arg("remember", "title"))] = None,
        type: Annotated[str | None, Field(description=mcp_tools.arg("remember", "type"))] = None,
        scope: Annotated[str | None, Field(description=mcp_tools.arg("remember", "scope"))] = None,
        keywords: Annotated[str | None, Field(description=mcp_tools.arg("remember", "keywords"))] = None,
        subject_key: Annotated[str | None, Field(description=mcp_tools.arg("remember", "subject_key"))] = None,
        activation: Annotated[str | None, Field(description=mcp_tools.arg("remember", "activation"))] = None,
        volatility: Annotated[str | None, Field(description=mcp_tools.arg("remember", "volatility"))] = None,
        expires_at: Annotated[str | None, Field(description=mcp_tools.arg("remember", "expires_at"))] = None,
        verified: Annotated[bool | None, Field(description=mcp_tools.arg("remember", "verified"))] = None,
        id: Annotated[str | None, Field(description=mcp_tools.arg("remember", "id"))] = None,
        expected_revision: Annotated[
            int | None, Field(description=mcp_tools.arg("remember", "expected_revision"))
        ] = None,
        supersedes: Annotated[list[str] | None, Field(description=mcp_tools.arg("remember", "supersedes"))] = None,
        wait_seconds: Annotated[float | None, Field(description=mcp_tools.arg("remember", "wait_seconds"))] = None,
    ) -> CallToolResult:
        arguments: dict[str, Any] = {"description": description, "body": body}
        arguments |= _given(
            {
                "name": name,
                "title": title,
                "type": type,
                "scope": scope,
                "keywords": keywords,
                "subject_key": subject_key,
                "activation": activation,
                "volatility": volatility,
                "expires_at": expires_at,
                "id": id,
                "expected_revision": expected_revision,
            }
        )
        if verified:
            arguments["verified"] = True
        if supersedes:
            arguments["supersedes"] = list(supersedes)
        return _guard(
            ctx,
            "remember",
            lambda: _outcome(
                agent_remember(arguments, ctx.store, requester=ctx.requester, wait=ctx.wait(wait_seconds))
            ),
        )

    return remember


def _forget(ctx: _Context) -> Callable[..., CallToolResult]:
    """The ``forget`` tool: always a proposal."""

    def forget(
        ref: Annotated[str, Field(description=mcp_tools.arg("forget", "ref"))],
        wait_seconds: Annotated[float | None, Field(description=mcp_tools.arg("forget", "wait_seconds"))] = None,
    ) -> CallToolResult:
        return _guard(
            ctx,
            "forget",
            lambda: _outcome(agent_forget(ref, ctx.store, requester=ctx.requester, wait=ctx.wait(wait_seconds))),
        )

    return forget


def _approval_status(ctx: _Context) -> Callable[..., CallToolResult]:
    """The ``approval_status`` tool: check on (or wait a little longer for) a proposal."""

    def approval_status(
        proposal_id: Annotated[str, Field(description=mcp_tools.arg("approval_status", "proposal_id"))],
        wait_seconds: Annotated[float | None, Field(description=mcp_tools.arg("approval_status", "wait_seconds"))] = 0,
    ) -> CallToolResult:
        return _guard(
            ctx,
            "approval_status",
            lambda: _outcome(await_proposal(proposal_id, ctx.store, wait=ctx.wait(wait_seconds))),
        )

    return approval_status


TOOLS: tuple[tuple[str, Callable[[_Context], Callable[..., CallToolResult]]], ...] = (
    ("memory", _memory),
    ("remember", _remember),
    ("forget", _forget),
    ("approval_status", _approval_status),
)
"""The tools every server has, in registration order (``history`` follows when available)."""


def _history(ctx: _Context, call: Callable[[Layout, Any], str]) -> Callable[..., CallToolResult]:
    """The ``history`` tool over saved sessions (``call``: the engine's ``history_tool_call``)."""

    def history(
        op: Annotated[str, Field(description=mcp_tools.arg("history", "op"))] = "",
        query: Annotated[str | None, Field(description=mcp_tools.arg("history", "query"))] = None,
        scope: Annotated[str | None, Field(description=mcp_tools.arg("history", "scope"))] = None,
        kind: Annotated[list[str] | None, Field(description=mcp_tools.arg("history", "kind"))] = None,
        tool_name: Annotated[str | None, Field(description=mcp_tools.arg("history", "tool_name"))] = None,
        limit: Annotated[int | None, Field(description=mcp_tools.arg("history", "limit"))] = None,
        session_path: Annotated[str | None, Field(description=mcp_tools.arg("history", "session_path"))] = None,
        message_index: Annotated[int | None, Field(description=mcp_tools.arg("history", "message_index"))] = None,
        before: Annotated[int | None, Field(description=mcp_tools.arg("history", "before"))] = None,
        after: Annotated[int | None, Field(description=mcp_tools.arg("history", "after"))] = None,
        operation: Annotated[str | None, Field(description=mcp_tools.arg("history", "operation"))] = None,
    ) -> CallToolResult:
        args = {
            "operation": op or operation or "",
            "query": query,
            "scope": scope,
            "kind": kind,
            "tool_name": tool_name,
            "limit": limit,
            "session_path": session_path,
            "message_index": message_index,
            "before": before,
            "after": after,
        }
        refused = _query_too_long(query, "a history search")
        if refused is not None:
            return refused
        return _guard(ctx, "history", lambda: _text(call(ctx.layout, _given(args))))

    return history


def _start_prewarm(ctx: _Context, history: bool = True) -> None:
    import threading

    def work() -> None:
        try:  # the store and the memory search, from the on-disk index when it is current
            from ..core.recall.search_index import seed_from_disk
            from ..core.recall.term_matrix import warm_search

            if not ctx.settings.no_memory:
                if not seed_from_disk(ctx.store):  # type: ignore[arg-type]  # the live store is a Store
                    warm_search(ctx.store.snapshot().facts)
        except Exception:
            ctx.log_error("memory prewarm failed")
        if not history:
            return
        try:
            from ..core.sessions.history import prewarm as history_prewarm

            history_prewarm(ctx.layout)
        except Exception:
            ctx.log_error("history prewarm failed")

    threading.Thread(target=work, name="reasonix-tui-prewarm", daemon=True).start()


def _history_tool() -> Callable[[Layout, Any], str] | None:
    """``history_tool_call`` when the sessions engine is installed (its description is
    :data:`mcp_tools.HISTORY_DESCRIPTION`, checked against the engine's by a test)."""
    try:
        from ..core.sessions import history_tool
    except ImportError:
        return None
    return getattr(history_tool, "history_tool_call", None)


def run(workspace: str | None = None, home: str | None = None, *, max_wait: float = DEFAULT_MAX_WAIT) -> int:
    """Serve on stdio until the client disconnects."""
    server = build_server(workspace, home, max_wait=max_wait, prewarm=True)
    server.run("stdio")
    return 0


def serve_pipes(server: MCPServer, in_fd: int, out_fd: int) -> None:
    """Serve ``server`` over two file descriptors (newline-delimited JSON-RPC) until
    ``in_fd`` reaches end of file: the static front's backend (:mod:`.mcp_front`)."""
    import io

    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        reader = io.TextIOWrapper(os.fdopen(in_fd, "rb", buffering=0), encoding="utf-8", errors="replace")
        writer = io.TextIOWrapper(
            os.fdopen(out_fd, "wb", buffering=0), encoding="utf-8", newline="\n", write_through=True
        )
        async with stdio_server(stdin=anyio.wrap_file(reader), stdout=anyio.wrap_file(writer)) as (read, write):
            # the lines MCPServer.run_stdio_async runs, on our streams
            lowlevel = server._lowlevel_server  # noqa: SLF001
            await lowlevel.run(read, write, lowlevel.create_initialization_options())
        writer.close()

    anyio.run(main)

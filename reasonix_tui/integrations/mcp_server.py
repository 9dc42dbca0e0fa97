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
import inspect
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


def _add_tool(server: MCPServer, name: str, fn: Callable[[dict[str, Any]], CallToolResult]) -> None:
    """Register ``fn`` (called with every argument by name, ``None`` or the default when left
    out) as tool ``name`` with its declared title, description, hints and arguments
    (:data:`.mcp_tools.TOOL_SPECS`)."""
    function, title, description, annotations, _ = mcp_tools.TOOL_SPECS[name]
    server.add_tool(
        _with_signature(fn, function, _signature(name)),
        name=name,
        title=title,
        description=description,
        annotations=ToolAnnotations(**annotations),  # type: ignore[arg-type]  # the hint booleans only
        structured_output=False,
    )


_PYTHON_TYPES: dict[str, Any] = {
    "string": str,
    "string!": str,
    "integer": int,
    "boolean": bool,
    "number": float,
    "string[]": list[str],
}


def _signature(name: str) -> inspect.Signature:
    """Tool ``name``'s arguments as a Python signature (what the SDK builds the tool's input
    schema and its argument check from): each declared type, ``None`` allowed unless the
    argument is required or a non-null string, and its description."""
    parameters = []
    for arg, kind, text, default in mcp_tools.TOOL_SPECS[name][4]:
        required = default is mcp_tools.REQUIRED
        kind_type = _PYTHON_TYPES[kind]
        annotation = kind_type if required or kind.endswith("!") else kind_type | None
        parameters.append(
            inspect.Parameter(
                arg,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if required else default,
                annotation=Annotated[annotation, Field(description=text)],
            )
        )
    return inspect.Signature(parameters, return_annotation=CallToolResult)


def _with_signature(
    fn: Callable[[dict[str, Any]], CallToolResult], function: str, signature: inspect.Signature
) -> Callable[..., CallToolResult]:
    """A tool function called ``function`` with ``signature`` that hands its arguments to ``fn``."""

    def tool(**arguments: Any) -> CallToolResult:
        return fn(arguments)

    tool.__name__ = tool.__qualname__ = function
    tool.__signature__ = signature  # type: ignore[attr-defined]  # inspect.signature reads it
    return tool


def _given(args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments the client gave (``None`` means left out)."""
    return {k: v for k, v in args.items() if v is not None}


def _operation(args: Mapping[str, Any]) -> dict[str, Any]:
    """``op`` (else its alias ``operation``) as ``operation``, then the other arguments."""
    rest = {k: v for k, v in args.items() if k not in ("op", "operation")}
    return {"operation": args["op"] or args["operation"] or "", **rest}


def _query_too_long(query: str | None, what: str, hint: str = "") -> CallToolResult | None:
    """The refusal of a query over :data:`MAX_QUERY_CHARS` (the query is never echoed back)."""
    if query is None or len(query) <= MAX_QUERY_CHARS:
        return None
    return _text(f"query is {len(query)} characters long; {what} takes at most {MAX_QUERY_CHARS}{hint}", error=True)


def _memory(ctx: _Context) -> Callable[[dict[str, Any]], CallToolResult]:
    """The ``memory`` tool: search, read and list the active facts."""

    def memory(args: dict[str, Any]) -> CallToolResult:
        from ..core.recall import memory_tool_call

        refused = _query_too_long(args["query"], "a memory search", " (use 1-3 distinctive terms)")
        if refused is not None:
            return refused
        return _guard(ctx, "memory", lambda: _text(memory_tool_call(ctx.store, _given(_operation(args)))))

    return memory


def _remember(ctx: _Context) -> Callable[[dict[str, Any]], CallToolResult]:
    """The ``remember`` tool: save a fact now, or propose it and wait for a person. Its
    arguments are the declared ``remember`` arguments
    (:data:`~reasonix_tui.core.agent.remember_args.REMEMBER_ARGUMENTS`) and ``wait_seconds``;
    the ones left out, ``false`` and an empty list are not passed on."""

    def remember(args: dict[str, Any]) -> CallToolResult:
        wait_seconds = args.pop("wait_seconds")
        arguments = {k: v for k, v in args.items() if v is not None and v is not False and v != []}
        return _guard(
            ctx,
            "remember",
            lambda: _outcome(
                agent_remember(arguments, ctx.store, requester=ctx.requester, wait=ctx.wait(wait_seconds))
            ),
        )

    return remember


def _forget(ctx: _Context) -> Callable[[dict[str, Any]], CallToolResult]:
    """The ``forget`` tool: always a proposal."""

    def forget(args: dict[str, Any]) -> CallToolResult:
        return _guard(
            ctx,
            "forget",
            lambda: _outcome(
                agent_forget(args["ref"], ctx.store, requester=ctx.requester, wait=ctx.wait(args["wait_seconds"]))
            ),
        )

    return forget


def _approval_status(ctx: _Context) -> Callable[[dict[str, Any]], CallToolResult]:
    """The ``approval_status`` tool: check on (or wait a little longer for) a proposal."""

    def approval_status(args: dict[str, Any]) -> CallToolResult:
        return _guard(
            ctx,
            "approval_status",
            lambda: _outcome(await_proposal(args["proposal_id"], ctx.store, wait=ctx.wait(args["wait_seconds"]))),
        )

    return approval_status


TOOLS: tuple[tuple[str, Callable[[_Context], Callable[[dict[str, Any]], CallToolResult]]], ...] = (
    ("memory", _memory),
    ("remember", _remember),
    ("forget", _forget),
    ("approval_status", _approval_status),
)
"""The tools every server has, in registration order (``history`` follows when available)."""


def _history(ctx: _Context, call: Callable[[Layout, Any], str]) -> Callable[[dict[str, Any]], CallToolResult]:
    """The ``history`` tool over saved sessions (``call``: the engine's ``history_tool_call``)."""

    def history(args: dict[str, Any]) -> CallToolResult:
        refused = _query_too_long(args["query"], "a history search")
        if refused is not None:
            return refused
        return _guard(ctx, "history", lambda: _text(call(ctx.layout, _given(_operation(args)))))

    return history


def _start_prewarm(ctx: _Context, history: bool = True) -> None:
    import threading

    def work() -> None:
        try:  # the store and the memory search, from the on-disk index when it is current
            from ..core.recall.search_index import seed_from_disk
            from ..core.recall.term_matrix import warm_resolution, warm_search
            from ..core.recall.warm_rows import seed_from_rows

            if not ctx.settings.no_memory:
                # the resolver's per-fact inputs from the on-disk recall rows (only changed facts analysed)
                seed_from_rows(ctx.store, recall=False)
                if not seed_from_disk(ctx.store):  # type: ignore[arg-type]  # the live store is a Store
                    warm_search(ctx.store.snapshot().facts)
                if ctx.settings.recall_mode != "reasonix-exact":  # a search labels superseded hits
                    warm_resolution(ctx.store.snapshot().facts)
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

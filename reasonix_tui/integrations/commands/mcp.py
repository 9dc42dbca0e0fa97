"""``reasonix-tui mcp``: run the MCP stdio server (see :mod:`reasonix_tui.integrations.mcp_server`)."""

from __future__ import annotations

import argparse

from ..cli import CliContext, Registry

__all__ = ["register"]

DEFAULT_MAX_WAIT = 45.0
"""Same as ``mcp_server.DEFAULT_MAX_WAIT`` (kept here so ``--help`` does not import the SDK)."""


def _mcp(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..mcp_front import run

    return run(args.mcp_workspace or args.workspace, args.home, max_wait=args.max_wait)


def register(reg: Registry) -> None:
    """Add ``mcp``."""
    p = reg.add_top(
        "mcp",
        help="run the MCP server on stdio (tools: memory, remember, forget, approval_status, history)",
        description="Serve the memory store to an agent over MCP (stdio). stdout carries JSON-RPC only. "
        "Workspace: --workspace, else $CLAUDE_PROJECT_DIR, else the current directory.",
    )
    p.add_argument("--workspace", dest="mcp_workspace", metavar="DIR", help="the project directory")
    p.add_argument(
        "--max-wait",
        type=float,
        default=DEFAULT_MAX_WAIT,
        metavar="SECONDS",
        help=f"longest a remember/forget call waits for the user (default {DEFAULT_MAX_WAIT:g})",
    )
    p.set_defaults(func=_mcp)

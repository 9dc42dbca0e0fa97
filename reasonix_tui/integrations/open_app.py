"""``reasonix-tui`` with no subcommand: open the Context Center.

The layout comes from ``--home`` / ``--workspace`` (else the environment and the current
directory). ``--demo``, or a state root with no store in it at all, opens a generated demo
home instead (under ``<tmp>/reasonix-tui-demo-<user>``), so a new user sees every pane
populated on a fresh machine; the status line says "demo home".
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from ..core.paths import Layout
from ..core.settings import load_settings

__all__ = ["open_context_center", "has_real_store", "demo_root", "demo_layout"]


def has_real_store(layout: Layout) -> bool:
    """True when the state root holds any fact directory, approvals or instructions."""
    root = layout.root
    if not root.is_dir():
        return False
    probes = [
        root / "memory",
        root / "projects",
        root / "approvals",
        root / "REASONIX.md",
        root / "AGENTS.md",
        root / "CLAUDE.md",
    ]
    return any(p.exists() for p in probes)


def demo_root() -> Path:
    """Where the demo home is generated."""
    user = os.environ.get("USER") or os.environ.get("USERNAME") or str(os.getuid() if hasattr(os, "getuid") else "user")
    return Path(tempfile.gettempdir()) / f"reasonix-tui-demo-{user}"


def demo_layout(*, reset: bool) -> Layout:
    """The demo home's layout, generated when ``reset`` or when it does not exist yet.

    The Context Center regenerates it on every ``--demo`` start; a CLI command run with
    ``--demo`` reuses the one there (so ``suggest dismiss`` then ``suggest`` agree).
    """
    from ..core.demo import build_demo_home

    root = demo_root()
    workspace = root / "workspace" / "acme-api"
    layout = Layout.resolve(home=root, workspace=workspace)
    if reset or not (has_real_store(layout) and workspace.is_dir()):
        build_demo_home(root, workspace, reset=True)
    return layout


NO_TERMINAL = (
    "reasonix-tui: the Context Center is a full-screen app and needs an interactive terminal "
    "(standard input and output are not both a terminal here). From a script or an agent's shell, "
    "use the commands instead: `reasonix-tui memory list`, `reasonix-tui recall QUERY`, "
    "`reasonix-tui remember …`, `reasonix-tui --help`.\n"
)
"""What ``reasonix-tui`` without a command says when it is not run in a terminal."""


def interactive_terminal() -> bool:
    """True when standard input and output are both terminals (the app can take keys and draw)."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def open_context_center(args: argparse.Namespace) -> int:
    """Resolve the layout, maybe build the demo home, and run the app.

    Without a terminal (a pipe, an agent's shell tool, cron) the app would draw escape codes
    into the pipe and wait for keys forever: say what to use instead and exit 2.
    """
    layout = Layout.resolve(home=getattr(args, "home", None), workspace=getattr(args, "workspace", None))
    demo = bool(getattr(args, "demo", False))
    if not demo and layout.root.exists() and not layout.root.is_dir():
        sys.stderr.write(
            f"reasonix-tui: the state root {layout.root} is not a directory (check --home, "
            "REASONIX_STATE_HOME and REASONIX_HOME)\n"
        )
        return 2
    if not interactive_terminal():
        sys.stderr.write(NO_TERMINAL)
        return 2
    if not demo and not has_real_store(layout) and not getattr(args, "home", None):
        demo = True
        sys.stderr.write(
            f"reasonix-tui: no store at {layout.root}; opening a demo home (use --home to choose a store)\n"
        )
    if demo:
        layout = demo_layout(reset=True)
    settings = load_settings(layout.root)
    from ..tui.app import make_app

    watch = not getattr(args, "no_watch", False)
    if watch:
        from ..core.recall.service import serve_live

        serve_live()  # the Recall pane's queries read a store that follows events, as the table does
    app = make_app(layout, settings, watch=watch, demo=demo)
    app.run()
    return int(app.return_code or 0)

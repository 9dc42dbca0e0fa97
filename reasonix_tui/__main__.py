"""``python -m reasonix_tui`` and the ``reasonix-tui`` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point: dispatch to the CLI (which opens the Context Center without a subcommand)."""
    args = sys.argv[1:] if argv is None else argv
    if "pre-tool-use" in args:  # the shell guard runs before every shell command: nothing else is imported
        from .integrations.shell_guard import fast_main as guard_main

        handled = guard_main(args)
        if handled is not None:
            return handled
    if "hook" in args:  # hooks skip the full parser (speed)
        from .integrations.hooks import fast_main

        handled = fast_main(args)
        if handled is not None:
            return handled
    if "mcp" in args:  # so does the MCP server: the client's handshake must not wait for imports
        from .integrations.mcp_front import fast_main as mcp_main

        handled = mcp_main(args)
        if handled is not None:
            return handled
    if "suggest" in args:  # listing skips the full parser too
        from .integrations.commands.suggest import fast_main as suggest_main

        handled = suggest_main(args)
        if handled is not None:
            return handled
    from .integrations.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())

"""``python -m reasonix_tui`` and the ``reasonix-tui`` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point: dispatch to the CLI (which opens the Context Center without a subcommand)."""
    from .integrations.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())

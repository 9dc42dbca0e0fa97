"""``python -m reasonix_tui`` and the ``reasonix-tui`` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point: dispatch to the CLI (which opens the Context Center without a subcommand)."""
    from .integrations.hooks import fast_main

    handled = fast_main(sys.argv[1:] if argv is None else argv)  # hooks skip the full parser (speed)
    if handled is not None:
        return handled
    from .integrations.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())

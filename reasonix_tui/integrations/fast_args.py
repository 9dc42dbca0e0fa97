"""The global options (``--home``, ``--workspace``) read by the fast paths.

The fast paths (``suggest``, ``mcp``) answer before the full argument parser is built;
they read the global options that stand before the command word with
:func:`leading_globals`, so both forms (``--home H`` and ``--home=H``) are read one way.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["GLOBAL_OPTIONS", "leading_globals"]

GLOBAL_OPTIONS = ("--home", "--workspace")
"""The options every command takes before its command word."""


def _global_option(args: Sequence[str], i: int) -> tuple[str, str, int] | None:
    """The global option at ``args[i]``: ``(option, value, tokens used)``, or ``None``
    when ``args[i]`` is none (or ``--home`` is the last token, with no value)."""
    a = args[i]
    if a in GLOBAL_OPTIONS and i + 1 < len(args):
        return a, args[i + 1], 2
    if a.startswith(tuple(f"{o}=" for o in GLOBAL_OPTIONS)):
        key, value = a.split("=", 1)
        return key, value, 1
    return None


def leading_globals(args: Sequence[str]) -> tuple[str | None, str | None, int]:
    """``(home, workspace, i)``: the global options at the start of ``args`` (the last
    one of each wins, as with argparse) and the index of the first token after them."""
    home: str | None = None
    workspace: str | None = None
    i = 0
    while i < len(args) and (option := _global_option(args, i)) is not None:
        key, value, used = option
        home, workspace = (value, workspace) if key == "--home" else (home, value)
        i += used
    return home, workspace, i

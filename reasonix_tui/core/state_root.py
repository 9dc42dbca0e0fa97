"""The state root from ``--home`` and the environment, as a string.

It imports nothing but :mod:`os`: the hook client (a fresh process per prompt, see
:mod:`reasonix_tui.integrations.hook_client`) needs the root to find the warm hook server
and nothing else of :mod:`reasonix_tui.core.paths`, which re-exports these names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["StateRootUnavailable", "state_root", "expand"]


class StateRootUnavailable(RuntimeError):
    """No state root could be resolved (no home directory)."""


def expand(value: str) -> str:
    """``~`` and ``$VARS`` expanded, made absolute and cleaned lexically."""
    value = os.path.expandvars(os.path.expanduser(value))
    return os.path.normpath(os.path.abspath(value))


def state_root(home: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> str:
    """``--home``, then ``REASONIX_STATE_HOME``, then ``REASONIX_HOME``, then ``~/.reasonix``."""
    environ: Mapping[str, str] = os.environ if env is None else env
    if home:
        return expand(os.fspath(home))
    for key in ("REASONIX_STATE_HOME", "REASONIX_HOME"):
        value = environ.get(key, "").strip()
        if value:
            return expand(value)
    user_home = environ.get("HOME") or os.path.expanduser("~")
    if not user_home or user_home == "~":
        raise StateRootUnavailable("memory store unavailable (no user config dir)")
    return os.path.normpath(os.path.join(user_home, ".reasonix"))

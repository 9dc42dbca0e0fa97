"""How tests run reasonix-tui as a client does: the installed console script (``exe``)
and the interpreter behind it (``exe_python``)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def exe() -> list[str]:
    """The ``reasonix-tui`` console script next to this interpreter, else the one on PATH,
    else ``python -m reasonix_tui``."""
    script = Path(sys.executable).parent / "reasonix-tui"
    if script.exists():
        return [str(script)]
    found = shutil.which("reasonix-tui")
    return [found] if found else [sys.executable, "-m", "reasonix_tui"]


def exe_python() -> list[str]:
    """The interpreter behind :func:`exe` (its console script's shebang)."""
    first = exe()
    if len(first) > 1:
        return [first[0]]
    line = Path(first[0]).read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
    return [line[2:].strip()] if line.startswith("#!") and " " not in line[2:].strip() else [sys.executable]

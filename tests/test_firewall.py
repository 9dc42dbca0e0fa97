"""The core never imports textual or mcp (DESIGN: one direction of imports)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import reasonix_tui.core


def _core_modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(reasonix_tui.core.__path__, "reasonix_tui.core.")]


def test_core_imports_no_ui_or_mcp() -> None:
    modules = _core_modules()
    assert "reasonix_tui.core.store.model" in modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('textual', 'mcp'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core imported: {out.stdout.strip()}"

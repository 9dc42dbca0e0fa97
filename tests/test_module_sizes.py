"""Rooms a reader can hold in their head: in the split parts of the code (sessions, history,
suggestions, instructions, the demo home, the Textual app, its widgets and panes, the
integrations) a module stays under about 600 lines and a function
under about 80."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "reasonix_tui" / "core"
ROOMS = [CORE / "sessions", CORE / "instructions", CORE / "demo.py", CORE / "demo_data.py"]
# The app and its parts, the widgets, the panes (Health's aside), the integrations (CLI,
# hooks, MCP server, setup; the health command aside).
UI = CORE.parent / "tui"
INTEGRATIONS = CORE.parent / "integrations"
ROOMS += [
    *sorted(UI.glob("app*.py")),
    UI / "widgets",
    *sorted(p for p in (UI / "panes").glob("*.py") if p.name != "health.py"),
    *sorted(INTEGRATIONS.glob("*.py")),
    *sorted(p for p in (INTEGRATIONS / "commands").glob("*.py") if p.name != "health.py"),
]
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def _modules() -> list[Path]:
    out: list[Path] = []
    for room in ROOMS:
        out.extend([room] if room.is_file() else sorted(room.rglob("*.py")))
    return out


def _rel(path: Path) -> str:
    return path.relative_to(CORE.parent).as_posix()


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_module_and_functions_are_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_MODULE_LINES, f"{_rel(path)} has {len(text.splitlines())} lines"
    long = [
        f"{node.name} ({(node.end_lineno or node.lineno) - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (node.end_lineno or node.lineno) - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, f"{_rel(path)}: functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_the_rooms_are_there() -> None:
    assert len(_modules()) > 30  # the check above is not vacuous

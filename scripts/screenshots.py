"""Screenshots of every Context Center pane from the demo home.

Writes ``screenshots/<name>.svg`` (Textual's ``export_screenshot``) and, when
``rsvg-convert`` (Debian ``librsvg2-bin``) or ``cairosvg`` is available, a PNG beside each.
The demo home is generated with a fixed clock, so the images are the same on every run.

Usage: ``python scripts/screenshots.py [--out screenshots] [--size 120x36]``
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from reasonix_tui.core.demo import DEMO_NOW, build_demo_home
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import Settings

Step = Callable[[Any], Awaitable[None]]


async def settle(pilot: Any) -> None:
    async def workers_done() -> None:
        # Every worker but the file watcher, which runs for the life of the app (an empty
        # list would mean "all of them").
        busy = [w for w in pilot.app.workers if w.group != "store-watcher"]
        if busy:
            await pilot.app.workers.wait_for_complete(busy)

    for _ in range(3):
        await pilot.pause()
        await workers_done()
    await pilot.pause(0.3)
    await workers_done()
    await pilot.pause(0.3)  # tables lay out their columns on idle: let a second refresh land


def keys(*names: str) -> Step:
    async def run(pilot: Any) -> None:
        await pilot.press(*names)
        await settle(pilot)

    return run


def goto(ref: str) -> Step:
    async def run(pilot: Any) -> None:
        fact = pilot.app.snapshot.find(ref)
        pilot.app.screen.query_one("#facts-table").move_to_key(str(fact.id))
        await pilot.pause(0.2)
        await settle(pilot)

    return run


SHOTS: list[tuple[str, str, bool, list[Step]]] = [
    (
        "01-facts",
        "Facts: every fact of both scopes, with the detail of a suppressed global fact",
        False,
        [goto("global/deploy-target-global.md")],
    ),
    (
        "02-revisions",
        "Revisions: history and a diff against the current revision",
        False,
        [goto("project/deploy-target.md"), keys("2")],
    ),
    ("03-archive", "Archive: forgotten facts of both scopes, preview, recover", False, [keys("3")]),
    (
        "04-instructions",
        "Instructions: documents in precedence order, import tree, a diagnostic",
        False,
        [keys("4", "t", *"services/billing", "enter")],
    ),
    ("05-recall", "Recall: the last trace, hits, budget and the candidates that lost", False, [keys("5")]),
    ("06-suggestions", "Suggestions: candidates from recent sessions with evidence", False, [keys("6")]),
    ("07-activity", "Activity: the audit log, newest first", False, [keys("7")]),
    ("08-approval", "Approval: an agent proposal with its diff, waiting for y / n / e", True, []),
    (
        "09-edit-form",
        "Edit: the fact form (saved with the expected revision)",
        False,
        [goto("project/oncall-rota.md"), keys("e")],
    ),
    ("10-narrow-80x24", "The facts pane in an 80x24 terminal", False, [goto("project/package-manager.md")]),
    ("11-health", "Health: what is wrong in memory, the evidence side by side, fixes in one key", False, [keys("8")]),
]
"""name, caption, with a pending approval, steps."""


def to_png(svg: Path) -> Path | None:
    """Convert with rsvg-convert or cairosvg (whitespace preserved); None when neither is there."""
    png = svg.with_suffix(".png")
    text = svg.read_text(encoding="utf-8").replace("<svg ", '<svg xml:space="preserve" ', 1)
    with tempfile.NamedTemporaryFile("w", suffix=".svg", delete=False, encoding="utf-8") as fh:
        fh.write(text)
        tmp = fh.name
    try:
        if shutil.which("rsvg-convert"):
            subprocess.run(["rsvg-convert", "--zoom", "1.25", tmp, "-o", str(png)], check=True)
            return png
        try:
            import cairosvg  # type: ignore[import-not-found]
        except ImportError:
            return None
        cairosvg.svg2png(url=tmp, write_to=str(png), scale=1.25)
        return png
    finally:
        Path(tmp).unlink(missing_ok=True)


async def shoot(
    out: Path, name: str, with_approval: bool, steps: list[Step], size: tuple[int, int], work: Path
) -> Path:
    from reasonix_tui.tui.app import make_app

    root = work / name
    build_demo_home(root / "home", root / "work" / "acme-api", now=DEMO_NOW, with_approval=with_approval)
    layout = Layout.resolve(home=root / "home", workspace=root / "work" / "acme-api")
    # Watching, as a person sees it (nothing changes the files while the shots are taken).
    app = make_app(
        layout, Settings(pinned_budget_chars=1500, time_zone="utc"), watch=True, clock=lambda: DEMO_NOW, demo=True
    )
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for step in steps:
            await step(pilot)
        await settle(pilot)
        svg = out / f"{name}.svg"
        text = app.export_screenshot()
        # Textual names the SVG's classes with a random prefix: make it stable.
        prefixes = sorted(set(re.findall(r"terminal-(\d+)", text)))
        for i, prefix in enumerate(prefixes):
            text = text.replace(f"terminal-{prefix}", f"terminal-{i}")
        svg.write_text(text, encoding="utf-8")
    return svg


def _freeze() -> None:
    """Stable images: no blinking cursors, proposals carry the demo's fixed time, ids count up.

    Audit lines need nothing: the demo's stores stamp them with the demo's own clock.
    """
    import itertools

    from textual.widgets import Input, TextArea

    import reasonix_tui.core.agent.stamps as stamps
    import reasonix_tui.core.store.writing as store_module

    Input._toggle_cursor = lambda self: None  # type: ignore[method-assign]  # no blinking cursor
    TextArea._toggle_cursor_blink_visible = lambda self: None  # type: ignore[method-assign]
    ids = itertools.count(0x5EED0000)
    store_module.new_memory_id = lambda: f"mem-{next(ids):032x}"  # type: ignore[assignment]
    pids = itertools.count(1)
    stamps.now = lambda: DEMO_NOW.rfc3339()
    stamps.new_id = lambda prefix: f"{prefix}-demo-{next(pids):04d}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "screenshots"))
    parser.add_argument("--size", default="120x36")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    width, height = (int(v) for v in args.size.split("x"))
    work = Path(tempfile.gettempdir()) / "reasonix-tui-screenshots"  # fixed: paths are on screen
    shutil.rmtree(work, ignore_errors=True)
    _freeze()
    lines = [
        "# Screenshots",
        "",
        "Generated by `python scripts/screenshots.py` from the demo home (`reasonix-tui --demo`).",
        "",
    ]
    try:
        for name, caption, with_approval, steps in SHOTS:
            size = (80, 24) if "80x24" in name else (width, height)
            svg = asyncio.run(shoot(out, name, with_approval, steps, size, work))
            png = to_png(svg)
            shown = png.name if png else svg.name
            print(f"{svg}" + (f"  {png.name}" if png else ""))
            lines += [f"## {caption}", "", f"![{caption}]({shown})", ""]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (out / "README.md").write_text("\n".join(lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

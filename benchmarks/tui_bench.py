"""Context Center start time: headless ``run_test`` until the facts table is interactive.

Builds stores of 10k and 100k facts (written once with the file-format renderer, kept
under ``--dir`` between runs), then for an empty store, 10k and 100k measures, in one run:

* **start → interactive**: from ``make_app`` to the facts table showing rows, having the
  focus and answering a key press (``down`` moves the cursor), and **(all)**: to every row
  on screen (a big first start shows rows while it reads the rest), three ways: *cold* (no cache
  at all: every file's YAML is parsed), *1st open* (the Context Center's row cache is
  missing but the store's parse cache is warm, as after using the CLI or the agent) and
  *warm* (every later start);
* **key → redraw** on the full table (cursor down, page down, end, filter, sort);
* **outside change → table updated**: one fact file rewritten on disk, reload by diff.

Targets (DESIGN.md): 10k ≤ 1.5 s, 100k ≤ 5 s.

Every wait has a deadline (``TUI_BENCH_TIMEOUT`` seconds, default 120): a start that never
becomes interactive is printed as ``FAILED`` with what it waited for, and the exit code is 1.

Usage: ``python benchmarks/tui_bench.py [--sizes 0,10000,100000] [--dir /tmp/rt-bench]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.fileformat import render_fact
from reasonix_tui.core.store.model import Fact, FactId

NOW = Timestamp(1_785_000_000 * 1_000_000_000)
TYPES = ("project", "reference", "user", "feedback")
WORDS = "deploy build test cache queue billing invoice auth token schema index retry timeout region replica".split()


def build_store(root: Path, n: int) -> Layout:
    """Write ``n`` facts (90% project, 10% global) unless the store is already there."""
    workspace = root / "ws"
    layout = Layout.resolve(home=root / "home", workspace=workspace)
    marker = root / f".built-{n}"
    if marker.exists():
        return layout
    if root.exists():
        shutil.rmtree(root)
    workspace.mkdir(parents=True)
    layout.project_dir.mkdir(parents=True)
    layout.global_dir.mkdir(parents=True)
    for i in range(n):
        scope = "global" if i % 10 == 0 else "project"
        w = [WORDS[(i * k) % len(WORDS)] for k in (1, 3, 7)]
        name = f"fact-{i:06d}-{w[0]}"
        ts = Timestamp(NOW.ns - (i % 400) * DAY_NS)
        fact = Fact(
            id=FactId(f"mem-{i:032x}"),
            revision=1 + i % 3,
            created_at=ts,
            updated_at=ts,
            name=name,
            title=f"{w[0].title()} {w[1]} note {i}",
            description=f"How {w[0]} relates to {w[1]} and {w[2]}",
            keywords=" ".join(w),
            activation="pinned" if i % 997 == 0 else "",
            type=TYPES[i % 4],
            scope=scope,
            subject_key=f"project.{w[0]}_{i}" if i % 5 == 0 else "",
            body=f"Fact {i}: when {w[0]} fails, check {w[1]} then {w[2]}.\n\nMore text about {w[1]}.",
        )
        directory = layout.global_dir if scope == "global" else layout.project_dir
        (directory / f"{name}.md").write_text(render_fact(fact), encoding="utf-8")
    marker.write_text("ok")
    return layout


POLL_S = 0.002

TIMEOUT_S = float(os.environ.get("TUI_BENCH_TIMEOUT", "120"))
"""No wait in a measurement lasts longer than this: a stuck start is reported, not waited on forever."""


class BenchTimeout(Exception):
    """A measurement waited for something that never happened."""


async def until(cond: Callable[[], bool], what: str, app: Any, timeout: float = TIMEOUT_S) -> None:
    """Poll ``cond`` until true; after ``timeout`` seconds raise :class:`BenchTimeout` naming
    ``what`` and the focused widget (the usual reason a key press changed nothing)."""
    t = time.perf_counter()
    while not cond():
        if time.perf_counter() - t > timeout:
            raise BenchTimeout(f"{what} after {timeout:.0f} s (focused: {type(app.focused).__name__})")
        await asyncio.sleep(POLL_S)


async def measure(
    layout: Layout, expected: int, watch: bool = False, only: bool = False, linger: float = 0.0
) -> dict[str, float]:
    """One headless start; returns timings in seconds (``watch``: also time an outside change;
    ``only``: just the start, with its CPU time and the load average, then ``linger`` seconds)."""
    from textual import events

    from reasonix_tui.tui.app import make_app
    from reasonix_tui.tui.widgets.facts_table import FactsTable

    out: dict[str, float] = {}
    t0 = time.perf_counter()
    c0 = time.process_time()
    app = make_app(layout, Settings(), watch=watch, clock=lambda: NOW)
    async with app.run_test(size=(140, 40)) as pilot:
        table = app.screen.query_one("#facts-table", FactsTable)
        # Interactive: rows on screen (on a big first start, the first part of them while
        # the rest is read) and a key press moves the cursor.
        await until(lambda: app.loaded and table.row_count >= min(expected, 2), "no rows on screen", app)
        await until(lambda: app.focused is table, "the facts table never took the focus", app)
        before = table.cursor_row
        # The key goes in as the terminal driver sends it (``pilot.press`` would also wait
        # for the whole process to fall idle, i.e. for the rest of a first start's reading).
        key = events.Key("down", None)
        key.set_sender(app)
        app._driver.send_message(key)
        await until(lambda: expected <= 1 or table.cursor_row != before, "the cursor did not move on 'down'", app)
        out["interactive"] = time.perf_counter() - t0
        out["interactive_cpu"] = time.process_time() - c0  # this process, every thread
        await until(lambda: app.complete and table.row_count >= expected, f"table not filled ({expected} rows)", app)
        out["loaded"] = time.perf_counter() - t0
        if only:
            # What runs after the table is full (language resources, memory health, the
            # row cache write) counts for the peak memory of a start: let it run.
            await asyncio.sleep(linger)
            out["load"] = os.getloadavg()[0]
            await until(lambda: not app._reload_running, "row cache write still running", app)
            return out

        await pilot.pause(0.3)

        async def timed(name: str, action: str) -> None:
            # The action a key runs, then one screen refresh (pilot.press adds ~90 ms of its own waiting).
            t = time.perf_counter()
            getattr(table, f"action_{action}")()
            await pilot.pause()
            out[name] = time.perf_counter() - t

        await timed("key_down", "cursor_down")
        await timed("key_pagedown", "page_down")
        await timed("key_end", "last")
        t = time.perf_counter()
        table.sort_by("updated")
        await pilot.pause()
        out["sort"] = time.perf_counter() - t
        t = time.perf_counter()
        table.set_filter("billing")
        await pilot.pause()
        out["filter"] = time.perf_counter() - t
        table.set_filter("")
        if expected and watch:
            # An outside edit (as another process would make it), seen by the real watcher,
            # once the start's background work (row cache, identity index) is done.
            await until(lambda: not app._reload_running, "background reload still running", app)
            await asyncio.sleep(0.5)
            target = next(iter(app.snapshot.facts.values()))
            path = Path(target.path)
            text = path.read_text(encoding="utf-8").replace("title: ", "title: Changed ", 1)
            key = str(target.id)
            t = time.perf_counter()
            path.write_text(text, encoding="utf-8")
            await until(lambda: app.snapshot.rows[key].title.startswith("Changed"), "outside change not shown", app)
            await pilot.pause()
            out["change_to_screen"] = time.perf_counter() - t
            path.write_text(text.replace("title: Changed ", "title: ", 1), encoding="utf-8")
        # let the row cache be written before the app closes
        await until(lambda: not app._reload_running, "row cache write still running", app)
    return out


def only_starts(base: Path, sizes: list[int], kind: str, repeat: int, linger: float = 0.0) -> int:
    """``--only KIND``: starts of one kind, each with wall and CPU time (this process, all
    threads) to an interactive table and to every row, the load average and the peak RSS
    of the process so far (a cold start: the caches are removed first). ``linger``: seconds
    the app stays open after every row is shown, so its background work counts for the peak."""
    import resource

    from reasonix_tui.tui.model.loader import row_cache_path

    print(f"Context Center {kind} start, headless run_test 140x40, Python {sys.version.split()[0]}")
    for n in sizes:
        layout = build_store(base / f"s{n}", n)
        for _ in range(repeat):
            if kind == "cold" and layout.cache_dir.exists():
                shutil.rmtree(layout.cache_dir)
            elif kind == "first":
                row_cache_path(layout).unlink(missing_ok=True)
            try:
                m = asyncio.run(measure(layout, n, only=True, linger=linger))
            except BenchTimeout as exc:
                print(f"{n:>8,} FAILED: {exc}")
                return 1
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(
                f"{n:>8,} interactive {m['interactive']:6.2f} s wall {m['interactive_cpu']:6.2f} s CPU   "
                f"all rows {m['loaded']:6.2f} s   load {m['load']:4.1f}   peak RSS {peak:6.0f} MiB",
                flush=True,
            )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="0,10000,100000")
    parser.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "reasonix-tui-bench"))
    parser.add_argument(
        "--only",
        choices=("cold", "first", "warm"),
        help="one start of this kind per size (with its CPU time, peak RSS and the load), nothing else",
    )
    parser.add_argument("--repeat", type=int, default=1, help="with --only: starts per size")
    parser.add_argument("--linger", type=float, default=0.0, help="with --only: seconds to stay open after the start")
    args = parser.parse_args()
    if args.only:
        return only_starts(
            Path(args.dir), [int(s) for s in args.sizes.split(",") if s.strip()], args.only, args.repeat, args.linger
        )
    base = Path(args.dir)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"Context Center start, headless run_test 140x40, Python {sys.version.split()[0]}")
    print(
        f"{'facts':>8} {'cold':>8} {'(all)':>7} {'1st open':>9} {'(all)':>7} {'warm':>8} {'down':>7} {'pgdn':>7} {'end':>7} "
        f"{'sort':>7} {'filter':>7} {'change→screen':>14}"
    )
    failed = False
    for n in sizes:
        t = time.perf_counter()
        fresh = not (base / f"s{n}" / f".built-{n}").exists()
        layout = build_store(base / f"s{n}", n)
        build = time.perf_counter() - t
        cache = layout.cache_dir
        if cache.exists():
            shutil.rmtree(cache)  # the "cold" start parses every file
        try:
            cold = asyncio.run(measure(layout, n))
            from reasonix_tui.tui.model.loader import row_cache_path

            row_cache_path(layout).unlink(missing_ok=True)  # the store's cache stays warm
            first = asyncio.run(measure(layout, n))
            warm = asyncio.run(measure(layout, n, watch=True))
        except BenchTimeout as exc:
            print(f"{n:>8,} FAILED: {exc}")
            failed = True
            continue
        print(
            f"{n:>8,} {cold['interactive']:>7.2f}s {cold['loaded']:>6.2f}s {first['interactive']:>8.2f}s "
            f"{first['loaded']:>6.2f}s {warm['interactive']:>7.2f}s "
            f"{warm['key_down'] * 1000:>6.0f}ms {warm['key_pagedown'] * 1000:>5.0f}ms {warm['key_end'] * 1000:>5.0f}ms "
            f"{warm['sort'] * 1000:>5.0f}ms {warm['filter'] * 1000:>5.0f}ms "
            f"{warm.get('change_to_screen', 0) * 1000:>12.0f}ms"
            + (f"   (store written in {build:.1f}s)" if fresh else "")
        )
    print("targets: 10k ≤ 1.5 s, 100k ≤ 5 s to an interactive facts table; outside change ≤ 0.5 s")
    print("(all): every row on screen; a first start shows rows and takes keys while it reads the rest")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Approval latency: an agent's proposal → the modal on screen → ``y`` → the agent unblocked.

Runs the Context Center headless (``run_test``) with its real file watcher on a store of
``--facts`` facts, then, ``--runs`` times, starts ``reasonix-tui remember`` (a global
preference, which always needs a person) as a separate process and measures:

* **proposal → modal**: from the proposal file appearing under ``approvals/`` to the
  approval dialog being the active screen;
* **key → agent unblocked**: from ``y`` (sent as the terminal driver sends keys) to the
  ``remember`` process having exited 0 with the fact written.

Baseline in the same run: a bare interpreter start and exit (``python -c pass``), the floor
of any process round trip. Target (DESIGN.md): ≤ 0.5 s each.

Usage: ``python benchmarks/approval_bench.py [--facts 1000] [--runs 10] [--dir /tmp/rt-approval]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_bench import NOW, build_store  # noqa: E402

TIMEOUT_S = float(os.environ.get("APPROVAL_BENCH_TIMEOUT", "60"))
POLL_S = 0.005
"""How often the benchmark looks (a tighter loop would compete with the app for the GIL)."""


async def until(cond: Callable[[], bool], what: str) -> float:
    """Poll ``cond`` every :data:`POLL_S`; the time it became true (``perf_counter``)."""
    start = time.perf_counter()
    while not cond():
        if time.perf_counter() - start > TIMEOUT_S:
            raise TimeoutError(what)
        await asyncio.sleep(POLL_S)
    return time.perf_counter()


def _agent_cmd(root: Path, workspace: Path, i: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "reasonix_tui",
        "--home",
        str(root),
        "--workspace",
        str(workspace),
        "remember",
        "--name",
        f"bench-pref-{i}",
        "--description",
        f"Benchmark preference {i}",
        "--type",
        "user",
        "--scope",
        "global",
        "--activation",
        "relevant",
        "--body",
        f"Preference number {i} for the benchmark.",
        "--wait",
        "30",
    ]


async def measure(root_dir: Path, facts: int, runs: int) -> dict[str, list[float]]:
    from textual import events

    from reasonix_tui.core.agent.approvals import ApprovalQueue
    from reasonix_tui.core.settings import Settings
    from reasonix_tui.core.store.store import Store
    from reasonix_tui.tui.app import make_app
    from reasonix_tui.tui.screens.approval import ApprovalScreen

    layout = build_store(root_dir, facts)
    queue = ApprovalQueue(layout)
    env = {**os.environ, "REASONIX_TUI_HOOK_DAEMON": "0"}
    out: dict[str, list[float]] = {"modal": [], "unblocked": [], "decided": []}
    app = make_app(layout, Settings(), watch=True, clock=lambda: NOW)
    async with app.run_test(size=(140, 40)):
        await until(lambda: app.complete, "store not loaded")
        await asyncio.sleep(1.0)  # the watcher is up and the start's background work is done
        for i in range(runs):
            before = {p.name for p in queue.proposals_dir.glob("*.json")} if queue.proposals_dir.exists() else set()
            proc = subprocess.Popen(
                _agent_cmd(layout.root, layout.workspace, i), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )

            def appeared() -> bool:
                return queue.proposals_dir.exists() and bool(
                    {p.name for p in queue.proposals_dir.glob("*.json")} - before
                )

            t_written = await until(appeared, "no proposal file")
            t_modal = await until(lambda: isinstance(app.screen, ApprovalScreen), "the modal did not open")
            # A person reads it (not measured); the dialog takes no decision key before its pause.
            await asyncio.sleep(ApprovalScreen.GUARD_SECONDS + 0.05)
            # On a loaded machine the dialog can mount (and re-arm its pause) after it became the
            # screen: a key sent while it is paused is dropped, so wait for the pause to end.
            await until(
                lambda: isinstance(app.screen, ApprovalScreen) and not app.screen.paused, "the dialog stayed paused"
            )
            key = events.Key("y", "y")
            key.set_sender(app)
            t_key = time.perf_counter()
            app._driver.send_message(key)
            proposal_id = next(
                iter({p.stem for p in queue.proposals_dir.glob("*.json")} - {Path(b).stem for b in before}), ""
            )
            t_result = await until(
                lambda: queue.read_result(proposal_id) is not None if proposal_id else True, "no result"
            )
            t_exit = await until(lambda: proc.poll() is not None, "the agent did not finish")
            stdout, stderr = proc.communicate()
            if proc.returncode != 0 or Store(layout).find(f"global/bench-pref-{i}.md") is None:
                raise RuntimeError(f"run {i}: exit {proc.returncode}: {stdout.decode()} {stderr.decode()}")
            out["modal"].append(t_modal - t_written)
            out["unblocked"].append(t_exit - t_key)
            out["decided"].append(t_result - t_key)
            await until(lambda: not isinstance(app.screen, ApprovalScreen), "the modal did not close")
            await asyncio.sleep(0.2)
    return out


async def measure_large(root_dir: Path, size_mb: float) -> dict[str, float]:
    """A big proposal (``size_mb`` of body) against a 1 KB one in the same run: proposal
    written → dialog on screen (the view is computed in a worker and what is drawn is
    bounded), and the longest the event loop stalled meanwhile (keys wait that long)."""
    from reasonix_tui.core.agent.approvals import ApprovalQueue
    from reasonix_tui.core.agent.policy import assess_remember
    from reasonix_tui.core.agent.proposals import Requester
    from reasonix_tui.core.settings import Settings
    from reasonix_tui.core.store.store import Store
    from reasonix_tui.tui.app import make_app
    from reasonix_tui.tui.screens.approval import ApprovalScreen

    layout = build_store(root_dir, 100)
    queue = ApprovalQueue(layout)
    out: dict[str, float] = {}
    app = make_app(layout, Settings(), watch=True, clock=lambda: NOW)
    async with app.run_test(size=(140, 40)):
        await until(lambda: app.complete, "store not loaded")
        await asyncio.sleep(1.0)
        for label, size in (("small", 1024), ("large", int(size_mb * 1024 * 1024))):
            line = "Use the staging database for integration tests, never production. "
            args = {
                "name": f"bench-{label}",
                "description": f"A {label} proposal",
                "type": "user",
                "scope": "global",
                "body": (line * (size // len(line) + 1))[:size],
            }
            st = Store(layout, actor="agent-auto")
            stall = [0.0]
            stop = asyncio.Event()

            async def ticker() -> None:
                last = time.perf_counter()
                while not stop.is_set():
                    await asyncio.sleep(0.01)
                    now = time.perf_counter()
                    stall[0] = max(stall[0], now - last - 0.01)
                    last = now

            assessment = assess_remember(args, st)  # the agent's side, in its own process
            tick = asyncio.create_task(ticker())
            t0 = time.perf_counter()
            proposal = queue.propose("remember", args, assessment, st, Requester(pid=1, source="cli"))
            await until(
                lambda: isinstance(app.screen, ApprovalScreen) and app.screen.is_mounted, "the modal did not open"
            )
            await asyncio.sleep(0)  # one more turn: the dialog has drawn
            out[f"{label}_modal"] = time.perf_counter() - t0
            stop.set()
            await tick
            out[f"{label}_stall"] = stall[0]
            queue.apply(proposal, "deny", store=st)
            await until(lambda: not isinstance(app.screen, ApprovalScreen), "the modal did not close")
            await asyncio.sleep(0.3)
    return out


def bare_interpreter(n: int = 10) -> list[float]:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - t)
    return times


def _fmt(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"median {statistics.median(values) * 1000:6.0f} ms   p95 {p95 * 1000:6.0f} ms   max {max(values) * 1000:6.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "reasonix-tui-approval-bench"))
    parser.add_argument("--large-mb", type=float, default=5.0, help="size of the big proposal (0: skip)")
    args = parser.parse_args(argv)
    root = Path(args.dir) / f"s{args.facts}"
    # a fresh approvals folder each run (the facts are kept between runs)
    shutil.rmtree(root / "home" / "approvals", ignore_errors=True)
    for leftover in (root / "home" / "memory" / "global").glob("bench-pref-*.md"):
        leftover.unlink()
    try:
        res = asyncio.run(measure(root, args.facts, args.runs))
    except (TimeoutError, RuntimeError) as exc:
        print(f"FAILED: {exc}")
        return 1
    bare = bare_interpreter()
    print(f"approval round trip, Context Center headless with its watcher, {args.facts:,} facts, {args.runs} runs")
    print(f"  proposal written → modal on screen    {_fmt(res['modal'])}")
    print(f"  key y → agent process exited, written {_fmt(res['unblocked'])}")
    print(f"    of which key y → decision on disk   {_fmt(res['decided'])}")
    print(f"  baseline: bare interpreter start+exit {_fmt(bare)}")
    worst = max(statistics.median(res["modal"]), statistics.median(res["unblocked"]))
    print(f"target ≤ 500 ms each (median): {'met' if worst <= 0.5 else 'NOT met'}")
    if args.large_mb > 0:
        shutil.rmtree(root.parent / "large" / "home" / "approvals", ignore_errors=True)
        big = asyncio.run(measure_large(root.parent / "large", args.large_mb))
        print(
            f"a {args.large_mb:g} MB proposal: written → dialog on screen {big['large_modal'] * 1000:6.0f} ms, "
            f"longest event-loop stall meanwhile {big['large_stall'] * 1000:4.0f} ms"
        )
        print(
            f"  baseline, a 1 KB proposal in the same run: {big['small_modal'] * 1000:6.0f} ms, "
            f"stall {big['small_stall'] * 1000:4.0f} ms (ratio {big['large_modal'] / big['small_modal']:.1f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One-shot ``reasonix-tui recall`` processes: wall time from spawn to exit, this code beside
another checkout of the project (``--baseline``, e.g. a worktree of main), in the same run.

    python benchmarks/recall_oneshot_bench.py --facts 10000 --baseline ../main

A state root of generated facts (``hook_bench.build``) is written once and copied for the
baseline, its project folder renamed after the copy's workspace (before that rename the
baseline read only the store's global facts, a fifth of them). Each code keeps its own
on-disk recall memo, so neither pays for the other's cache. One warm-up run per arm builds
that memo; then the arms take turns query by query (``--runs`` rounds over the queries), so
machine load falls on both alike. The baseline runs with ``PYTHONPATH`` set to its
checkout; both use this interpreter and its packages, and may write bytecode caches
(``PYTHONDONTWRITEBYTECODE`` is dropped: a fresh checkout would compile its modules in
every run). Prints median and p95 per arm and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hook_bench import build, p95  # noqa: E402

from reasonix_tui.core.paths import Layout  # noqa: E402

QUERIES = (
    "when do driver payments go out?",
    "which service renders the bills we send to clients?",
    "how do we bump the node libraries?",
    "where are passwords and API tokens stored?",
    "how long do we retain the compiled executables we ship?",
    "fix the flaky redis test before the release",
    "数据库迁移在预发环境超时了怎么处理",
    "thanks",
)


def _cmd(state: Path, workspace: Path, query: str) -> list[str]:
    return [sys.executable, "-m", "reasonix_tui", "--home", str(state), "--workspace", str(workspace), "recall", query]


def _slug(root: Path) -> str:
    return Layout.resolve(home=root / "state", workspace=root / "ws").slug


def _run(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env, check=False)
    took = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-2000:]}")
    return took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3, help="rounds over the queries")
    ap.add_argument("--baseline", type=Path, required=True, help="another checkout of the project")
    ns = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rx-oneshot-") as tmp:
        here, there = Path(tmp) / "this", Path(tmp) / "baseline"
        build(here, ns.facts)
        shutil.copytree(here, there, symlinks=True)
        # the project's facts sit under a folder named after the workspace's path: moved to
        # the name the copy's workspace resolves to (else the baseline sees only global facts)
        (there / "state" / "projects" / _slug(here)).rename(there / "state" / "projects" / _slug(there))
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
        arms = {
            "this code": (here, {**env, "PYTHONPATH": str(ROOT)}),
            "baseline": (there, {**env, "PYTHONPATH": str(ns.baseline.resolve())}),
        }
        load = os.getloadavg()[0]
        for _name, (root, arm_env) in arms.items():  # builds each arm's on-disk recall memo
            _run(_cmd(root / "state", root / "ws", "warm up the recall memo"), arm_env)
        times: dict[str, list[float]] = {name: [] for name in arms}
        for _ in range(ns.runs):
            for q in QUERIES:
                for name, (root, arm_env) in arms.items():
                    times[name].append(_run(_cmd(root / "state", root / "ws", q), arm_env))
        after = os.getloadavg()[0]
    print(
        f"one-shot `reasonix-tui recall`, {ns.facts} facts, {len(QUERIES)} queries × {ns.runs} rounds, arms interleaved"
    )
    for name, ts in times.items():
        print(f"  {name:10}  median {statistics.median(ts) * 1000:7.0f} ms   p95 {p95(ts) * 1000:7.0f} ms")
    print(f"  load average {load:.1f} → {after:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

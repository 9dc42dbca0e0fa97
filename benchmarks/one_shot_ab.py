"""One-shot ``recall`` (or ``memory search``: ``--command search``) of this checkout against
the code before, interleaved: CPU and wall time per process, the machine's load, and whether
every query printed the same block.

Each side runs on its own copy of the same store (the on-disk recall index is versioned with
the code that writes it, so the two cannot share one; the search index likewise): ``--home`` for this checkout,
``--baseline-home`` for ``--baseline-src`` (a source tree of the code before, e.g.
``git archive main reasonix_tui | tar -x -C DIR``; run through ``PYTHONPATH``). Both homes
must hold the same facts for the same ``--workspace``; ``--copy`` makes the baseline's home
from ``--home`` (caches left out). The first run of each side writes its index (minutes at
100k facts) and is not timed.

    nice -n 10 python benchmarks/one_shot_ab.py --home S/root --baseline-home S/root-before \\
        --workspace S/ws --baseline-src /tmp/main-src --runs 12

A store of generated facts: ``python benchmarks/query_cost_bench.py --store DIR --sizes N
--one-shot-only --runs 1`` leaves one under ``DIR/sN`` (``root``, ``ws``).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_bench import make_queries  # noqa: E402


def run(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, bytes]:
    """``(CPU seconds, wall seconds, stdout)`` of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:4]} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-1500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", required=True, help="the state root this checkout reads")
    ap.add_argument("--baseline-home", required=True, help="the baseline's own copy of the store")
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--baseline-src", required=True, help="source tree of the code before (PYTHONPATH)")
    ap.add_argument("--runs", type=int, default=12, help="runs of each side (one query each, in turn)")
    ap.add_argument("--queries", type=int, default=12)
    ap.add_argument("--copy", action="store_true", help="make --baseline-home from --home first")
    ap.add_argument("--dry-run", action="store_true", help="record no trace (recall --dry-run)")
    ap.add_argument("--command", choices=("recall", "search"), default="recall", help="recall or memory search")
    ns = ap.parse_args(argv)
    if ns.copy:
        shutil.rmtree(ns.baseline_home, ignore_errors=True)
        shutil.copytree(ns.home, ns.baseline_home, symlinks=True, ignore=shutil.ignore_patterns("cache"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REASONIX", "CLAUDE", "CURSOR"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["REASONIX_TUI_HOOK_DAEMON"] = "0"
    old_env = {**env, "PYTHONPATH": ns.baseline_src}
    extra = ["--dry-run"] if ns.dry_run else []
    queries = make_queries(ns.queries)

    def cmd(home: str, q: str) -> list[str]:
        what = ["recall", *extra] if ns.command == "recall" else ["memory", "search"]
        return [sys.executable, "-m", "reasonix_tui", "--home", home, "--workspace", ns.workspace, *what, q]

    sides = {"this checkout": (ns.home, env), "the code before": (ns.baseline_home, old_env)}
    for home, e in sides.values():  # write each side's index (and caches): not timed
        run(cmd(home, queries[0]), e, ns.workspace)
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in sides}
    bare: list[tuple[float, float]] = []
    outs: dict[str, set[bytes]] = {}
    loads = []
    for i in range(ns.runs):
        q = queries[i % len(queries)]
        cpu, wall, _ = run([sys.executable, "-c", "pass"], env, ns.workspace)
        bare.append((cpu, wall))
        order = list(sides) if i % 2 == 0 else list(reversed(sides))
        for name in order:
            home, e = sides[name]
            cpu, wall, out = run(cmd(home, q), e, ns.workspace)
            got[name].append((cpu, wall))
            outs.setdefault(q, set()).add(out)
        loads.append(os.getloadavg()[0])

    def row(label: str, samples: list[tuple[float, float]]) -> str:
        cpu = statistics.median(c for c, _ in samples) * 1e3
        wall = statistics.median(w for _, w in samples) * 1e3
        lo, hi = min(c for c, _ in samples) * 1e3, max(c for c, _ in samples) * 1e3
        return f"  {label:<18} CPU median {cpu:6.0f} ms ({lo:.0f}–{hi:.0f})   wall median {wall:6.0f} ms"

    label = "recall" if ns.command == "recall" else "memory search"
    print(f"one-shot {label}, {ns.runs} runs each, interleaved; load {min(loads):.1f}–{max(loads):.1f}")
    for name, samples in got.items():
        print(row(name, samples))
    print(row("python -c pass", bare))
    same = all(len(v) == 1 for v in outs.values())
    print(f"  identical output for every query: {'yes' if same else 'NO'} ({len(outs)} queries)")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Store benchmark: cold load, cached load, save, archive and recover at 1k and 10k facts.

The floor is the raw read of the same files (open + read, no parsing) measured in the
same run, so the figures can be read as ratios on any machine.

    python benchmarks/store_bench.py            # 1k and 10k
    python benchmarks/store_bench.py --sizes 1000
    python benchmarks/store_bench.py --sizes 10000 --against DIR   # A/B of the cached load

``--against DIR``: an interleaved A/B of the cached load on one store of each size, this
checkout against the ``reasonix_tui`` package found in ``DIR`` (for instance
``git archive main reasonix_tui | tar -x -C DIR``), each measured in a fresh process
(``--rounds`` times each, alternating), with its own raw read of the same files beside it.

Targets (DESIGN.md): 10k facts cold ≤ 1.5 s, with the parse cache ≤ 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.fileformat import render_fact
from reasonix_tui.core.store.model import Fact, new_memory_id
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

WORDS = (
    "pnpm npm cache build deploy release branch staging database migration token api endpoint "
    "retry timeout flaky test lint format review commit docker compose kubernetes redis postgres "
    "queue worker cron schedule feature flag rollout canary metric alert oncall runbook incident"
).split()


def make_fact(i: int, rng: random.Random, now: Timestamp) -> Fact:
    scope = "global" if i % 5 == 0 else "project"
    type_ = ("user", "feedback", "project", "reference")[i % 4]
    words = " ".join(rng.choice(WORDS) for _ in range(60))
    return Fact(
        id=new_memory_id(),
        revision=1 + i % 3,
        created_at=now,
        updated_at=now,
        name=f"fact-{i:06d}",
        title=f"Fact {i} about {rng.choice(WORDS)}",
        description=" ".join(rng.choice(WORDS) for _ in range(8)),
        keywords=" ".join(rng.choice(WORDS) for _ in range(3)),
        activation="relevant",
        type=type_,
        scope=scope,
        subject_key=f"bench.s{i}" if i % 10 == 0 else "",
        body=words,
    )


def build(root: Path, n: int) -> Layout:
    layout = Layout.resolve(home=root, workspace=root / "ws")
    rng = random.Random(n)
    now = Timestamp.now()
    layout.project_dir.mkdir(parents=True)
    layout.global_dir.mkdir(parents=True)
    for i in range(n):
        f = make_fact(i, rng, now)
        (layout.dir_for(f.scope) / f"{f.name}.md").write_text(render_fact(f))
    return layout


CPU: dict[int, float] = {}
"""Best CPU time of the last :func:`timed` call of each function (by ``id``): on a loaded
machine the wall time waits for a core, the CPU time does not."""


def timed(fn, repeat: int = 3) -> float:
    best = best_cpu = float("inf")
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - c)
    CPU[id(fn)] = best_cpu
    return best


def raw_read(layout: Layout) -> None:
    for d in (layout.project_dir, layout.global_dir):
        for entry in os.scandir(d):
            if entry.name.endswith(".md") and entry.name != "MEMORY.md":
                with open(entry.path, "rb") as fh:
                    fh.read()


def raw_and_cached(layout: Layout, repeat: int = 5) -> tuple[float, float, float, float]:
    """Best wall and CPU time of the raw read and of the cached load (``list_all`` of a new
    :class:`Store`), sampled alternately so that both see the same moments of a shared
    machine: ``(raw wall, cached wall, raw CPU, cached CPU)``."""
    raw_fn = lambda: raw_read(layout)  # noqa: E731
    cached_fn = lambda: Store(layout, settings=Settings()).list_all()  # noqa: E731
    raw = cached = raw_cpu = cached_cpu = float("inf")
    for _ in range(repeat):
        raw = min(raw, timed(raw_fn, repeat=1))
        raw_cpu = min(raw_cpu, CPU[id(raw_fn)])
        cached = min(cached, timed(cached_fn, repeat=1))
        cached_cpu = min(cached_cpu, CPU[id(cached_fn)])
    return raw, cached, raw_cpu, cached_cpu


def load_only(root: Path) -> None:
    """Print the raw read and the cached load of the store built under ``root`` (JSON)."""
    layout = Layout.resolve(home=root, workspace=root / "ws")
    Store(layout, settings=Settings()).list_all()  # the parse cache as this code writes it
    raw, cached, raw_cpu, cached_cpu = raw_and_cached(layout)
    print(json.dumps({"raw": raw, "cached": cached, "raw_cpu": raw_cpu, "cached_cpu": cached_cpu}))


def against(n: int, other: Path, rounds: int) -> None:
    """Interleaved A/B of the cached load at ``n`` facts: this checkout, then the package in
    ``other``, each in a fresh process on the same store, ``rounds`` times."""
    here = Path(__file__).resolve().parent.parent
    print(f"cached load at {n} facts, this checkout (A) against {other} (B), CPU time, fresh process each")
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp), n)
        for r in range(rounds):
            for label, src in (("A", here), ("B", other.resolve())):
                env = dict(os.environ, PYTHONPATH=str(src))
                out = subprocess.run(
                    [sys.executable, __file__, "--load-only", tmp], env=env, capture_output=True, text=True, check=True
                )
                m = json.loads(out.stdout.strip().splitlines()[-1])
                print(
                    f"  round {r + 1} {label}: raw read {m['raw_cpu'] * 1000:.0f} ms, cached {m['cached_cpu'] * 1000:.0f} ms "
                    f"= {m['cached_cpu'] / m['raw_cpu']:.2f}x the raw read (wall {m['cached'] * 1000:.0f} ms); "
                    f"load {os.getloadavg()[0]:.1f}"
                )


def clear_parse_cache(layout: Layout) -> int:
    """Delete every parse-cache file (``facts-*.cache``), so the next load parses YAML."""
    removed = 0
    if layout.cache_dir.exists():
        for f in layout.cache_dir.iterdir():
            if f.is_file():
                f.unlink()
                removed += 1
    return removed


def run(n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        layout = build(Path(tmp), n)
        raw_read(layout)  # the files in the page cache, as for every later read

        def cold() -> None:
            clear_parse_cache(layout)
            assert len(Store(layout, settings=Settings()).list_all()) == n

        cold_s = timed(cold)
        Store(layout, settings=Settings()).list_all()  # warm the parse cache on disk
        floor, cached_s, raw_cpu, cached_cpu = raw_and_cached(layout)
        nocache_s = timed(lambda: Store(layout, settings=Settings(), use_cache=False).list_all(), repeat=1)

        store = Store(layout, settings=Settings())
        store.list_all()
        saves = []
        for i in range(20):
            t = time.perf_counter()
            store.save(SaveRequest(name=f"fact-{i:06d}", description="updated", body=f"updated body {i}"))
            saves.append(time.perf_counter() - t)
        creates = []
        for i in range(20):
            t = time.perf_counter()
            store.save(SaveRequest(name=f"new-fact-{i}", description=f"new {i}", body="b"))
            creates.append(time.perf_counter() - t)
        archives, recovers = [], []
        for i in range(10):
            t = time.perf_counter()
            res = store.archive(f"new-fact-{i}")
            archives.append(time.perf_counter() - t)
            t = time.perf_counter()
            store.recover(res.path)
            recovers.append(time.perf_counter() - t)
        return {
            "raw_read": floor,
            "raw_cpu": raw_cpu,
            "cached_cpu": cached_cpu,
            "cold": cold_s,
            "cached": cached_s,
            "no_cache": nocache_s,
            "update_median": statistics.median(saves),
            "create_median": statistics.median(creates),
            "archive_median": statistics.median(archives),
            "recover_median": statistics.median(recovers),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--against", type=Path, help="A/B the cached load against the reasonix_tui package in DIR")
    parser.add_argument("--rounds", type=int, default=3, help="A/B rounds (with --against)")
    parser.add_argument("--load-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_only is not None:
        load_only(args.load_only)
        return
    if args.against is not None:
        if not (args.against / "reasonix_tui").is_dir():
            parser.error(f"{args.against} holds no reasonix_tui package")
        for n in args.sizes:
            against(n, args.against, args.rounds)
        return
    print(
        f"{'facts':>7} {'raw read':>9} {'cold':>8} {'cached':>8} {'cold/raw':>9} {'cached/raw':>10} "
        f"{'update':>8} {'create':>8} {'archive':>8} {'recover':>8}"
    )
    for n in args.sizes:
        r = run(n)
        print(
            f"{n:>7} {r['raw_read']*1000:>7.0f}ms {r['cold']*1000:>6.0f}ms {r['cached']*1000:>6.0f}ms "
            f"{r['cold']/r['raw_read']:>8.1f}x {r['cached']/r['raw_read']:>9.1f}x "
            f"{r['update_median']*1000:>6.1f}ms {r['create_median']*1000:>6.1f}ms "
            f"{r['archive_median']*1000:>6.1f}ms {r['recover_median']*1000:>6.1f}ms"
        )
        print(
            f"{'':>7} CPU time: raw read {r['raw_cpu']*1000:.0f} ms, cached {r['cached_cpu']*1000:.0f} ms "
            f"({r['cached_cpu']/r['raw_cpu']:.1f}x the raw read); load {os.getloadavg()[0]:.1f}"
        )
    print("targets: 10k cold <= 1500 ms, cached <= 300 ms; cached <= 2x the raw read (issue 16)")


if __name__ == "__main__":
    main()

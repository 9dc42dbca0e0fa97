"""Store benchmark: cold load, cached load, save, archive and recover at 1k and 10k facts.

The floor is the raw read of the same files (open + read, no parsing) measured in the
same run, so the figures can be read as ratios on any machine.

    python benchmarks/store_bench.py            # 1k and 10k
    python benchmarks/store_bench.py --sizes 1000

Targets (DESIGN.md): 10k facts cold ≤ 1.5 s, with the parse cache ≤ 0.3 s.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
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
        raw_fn = lambda: raw_read(layout)  # noqa: E731
        floor = timed(raw_fn)

        def cold() -> None:
            clear_parse_cache(layout)
            assert len(Store(layout, settings=Settings()).list_all()) == n

        cold_s = timed(cold)
        Store(layout, settings=Settings()).list_all()  # warm the parse cache on disk
        cached_fn = lambda: Store(layout, settings=Settings()).list_all()  # noqa: E731
        cached_s = timed(cached_fn)
        raw_cpu, cached_cpu = CPU[id(raw_fn)], CPU[id(cached_fn)]
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
    args = parser.parse_args()
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

"""Memory health at 1k and 10k facts: from scratch, from a warm memo, and after one write.

A store of generated facts (agent-memory style; some pinned, some stale or expiring, a few
duplicates, two facts on one subject, a few secrets) with a recorded recall history of
``--traces`` turns is checked four ways, in the same process:

* **from scratch** — a new store object and a new :class:`HealthChecker` with no memo:
  every fact is read (through the store's parse cache) and every text scanned. This is
  the baseline: what a first ``memory health`` ever pays.
* **warm memo** — a new process's view: a new store and checker, the checker's scans
  read from the disk memo that the first run wrote (what every later ``memory health``
  pays).
* **after one write** — what the Context Center's worker does after a write: the same
  long-lived store and checker, one fact saved, then the snapshot, the inputs and every
  check again (only the changed fact is scanned). Split into the snapshot and the checks.
* **after one write, checks only** — the same without re-reading the store (the worker
  is handed the new snapshot by the reload).

Each figure is the best of ``--reps`` runs; the load average is printed with them.
Target (issue 15): ≤ 1 s at 10k facts after a write, in a worker.

Usage: ``python benchmarks/health_bench.py [--sizes 1000 10000] [--traces 200] [--reps 3]``
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (str(ROOT), str(ROOT / "benchmarks")):
    if p not in sys.path:
        sys.path.insert(0, p)

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp  # noqa: E402
from reasonix_tui.core.compat.tokenize import query_terms  # noqa: E402
from reasonix_tui.core.health import HealthChecker, gather  # noqa: E402
from reasonix_tui.core.health.checker import memo_path  # noqa: E402
from reasonix_tui.core.paths import Layout  # noqa: E402
from reasonix_tui.core.recall.trace import RecallTrace, TraceHit, TraceStore  # noqa: E402
from reasonix_tui.core.settings import Settings  # noqa: E402
from reasonix_tui.core.store.fileformat import render_fact  # noqa: E402
from reasonix_tui.core.store.model import Fact, new_memory_id  # noqa: E402
from reasonix_tui.core.store.requests import SaveRequest  # noqa: E402
from reasonix_tui.core.store.store import Store  # noqa: E402

NOW = Timestamp.now()
SETTINGS = Settings(pinned_budget_chars=1500)


def pinned(i: int, n: int) -> bool:
    """Six facts of any store are pinned."""
    return i % max(n // 6, 1) == 0


def make_facts(n: int) -> list[Fact]:
    """The recall benchmark's generated facts (agent-memory style, a long tail of rare
    words, symbols, some Chinese), ages 0-400 days, plus what health looks for: six
    pinned, every 500th holding a secret, every 50th expiring in three days, every 400th
    a copy of another's description, two on one subject key."""
    from recall_bench import make_facts as recall_facts

    rng = random.Random(n)
    out = []
    for i, f in enumerate(recall_facts(n)):
        body = f.body
        if i % 500 == 1:
            body += "\naws key AKIA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
        ts = Timestamp(NOW.ns - (NOW.ns - f.updated_at.ns) % (400 * DAY_NS)) if f.updated_at else NOW
        out.append(
            replace(
                f,
                id=new_memory_id(),
                created_at=ts,
                updated_at=ts,
                body=body,
                file_scope=f.scope,
                description="the shared description of a duplicated fact" if i % 400 == 2 else f.description,
                activation="pinned" if pinned(i, n) else "relevant",
                subject_key="bench.shared" if i in (3, 4) else (f"bench.s{i}" if i % 10 == 0 else ""),
                expires_at=Timestamp(NOW.ns + 3 * DAY_NS) if i % 50 == 0 else None,
                scope="project" if i in (3, 4) else f.scope,
            )
        )
    return out


def build(root: Path, n: int, traces: int) -> tuple[Layout, list[Fact]]:
    """Write ``n`` fact files and ``traces`` recorded turns."""
    layout = Layout.resolve(home=root, workspace=root / "ws")
    (root / "ws").mkdir(parents=True)
    rng = random.Random(n)
    layout.project_dir.mkdir(parents=True)
    layout.global_dir.mkdir(parents=True)
    facts = make_facts(n)
    for f in facts:
        f = replace(f, file_scope=f.scope)
        (layout.dir_for(f.scope) / f"{f.name}.md").write_text(render_fact(f))
    from recall_bench import make_queries

    queries = make_queries(max(traces, 1))
    store = TraceStore(layout, keep=max(traces, 1))
    for t in range(traces):
        at = Timestamp(NOW.ns - (traces - t) * 600 * 1_000_000_000)
        picked = rng.sample(facts[: max(1, n // 3)], 3)
        hits = tuple(
            TraceHit(
                id=str(f.id),
                ref=f.ref,
                name=f.name,
                title=f.title,
                revision=f.revision,
                scope=f.scope,
                type=f.type,
                freshness="fresh",
                score=1.0,
                reason="matched",
                snippet="",
            )
            for f in picked
        )
        q = queries[t]
        store.record(RecallTrace(query=q, at=at.rfc3339(), hits=hits, terms=tuple(query_terms(q))))
    return layout, facts


def best(fn, reps: int) -> tuple[float, object]:
    out: object = None
    b = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        b = min(b, time.perf_counter() - t)
    return b, out


def run(n: int, traces: int, reps: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        layout, facts = build(Path(tmp), n, traces)
        names = [f.name for f in facts]
        Store(layout, settings=SETTINGS).list_all()  # the parse cache on disk, as after any CLI call
        memo = memo_path(layout)

        def scratch():
            if os.path.exists(memo):
                os.unlink(memo)
            checker = HealthChecker(memo)
            r = checker.report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS)))
            checker.save()
            return r

        scratch_s, rep = best(scratch, 1)  # the secret scan of every fact: once is plenty
        assert rep.facts == n  # type: ignore[attr-defined]

        def warm_memo():
            checker = HealthChecker(memo)
            return checker.report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS)))

        warm_s, rep2 = best(warm_memo, reps)
        store = Store(layout, settings=SETTINGS)
        checker = HealthChecker()
        checker.report(gather(layout, SETTINGS, store))
        rng = random.Random(1)
        writes: list[tuple[float, float, float]] = []
        for k in range(reps):
            i = rng.randrange(n)
            while pinned(i, n) or i in (3, 4):
                i = rng.randrange(n)
            store.save(SaveRequest(name=names[i], description=f"changed {k}", body=f"new body {k} " * 20))
            t0 = time.perf_counter()
            ctx = gather(layout, SETTINGS, store)
            t1 = time.perf_counter()
            r = checker.report(ctx)
            t2 = time.perf_counter()
            assert checker.scanned == 1, checker.scanned
            writes.append((t2 - t0, t1 - t0, t2 - t1))
        after, snap, checks_only = min(writes)
        counts = r.counts()
        return {
            "scratch": scratch_s,
            "warm": warm_s,
            "after": after,
            "snapshot": snap,
            "checks": checks_only,
            "findings": len(r.findings),
            "problems": counts["problem"],
            "warnings": counts["warning"],
            "info": counts["info"],
            "same": float(len(rep2.findings) == len(rep.findings)),
        }  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--traces", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    print(
        f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
        f"{args.traces} recorded turns"
    )
    print(
        f"{'facts':>7} {'from scratch':>13} {'warm memo':>10} {'after 1 write':>14} {'(snapshot':>10} "
        f"{'+ checks)':>10} {'scratch/after':>14} {'findings':>9}"
    )
    ok = True
    for n in args.sizes:
        r = run(n, args.traces, args.reps)
        ratio = r["scratch"] / r["after"] if r["after"] else float("inf")
        print(
            f"{n:>7,} {r['scratch']:>12.2f}s {r['warm']:>9.2f}s {r['after']:>13.3f}s {r['snapshot']:>9.3f}s "
            f"{r['checks']:>9.3f}s {ratio:>13.1f}× {int(r['findings']):>9,}"
            f"  ({int(r['problems'])} problems, {int(r['warnings'])} warnings, {int(r['info'])} info)"
        )
        if n >= 10_000:
            met = r["after"] <= 1.0
            ok = ok and met
            print(f"        target ≤ 1 s after one write at {n:,} facts: {'met' if met else 'NOT met'}")
        if not r["same"]:
            print("        warning: the warm-memo run found a different number of findings")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

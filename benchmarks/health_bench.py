"""Memory health at 1k and 10k facts: from scratch, from the persisted state, after one write.

A store of generated facts (agent-memory style; some pinned, some stale or expiring, a few
duplicates, two facts on one subject, a few secrets) with a recorded recall history of
``--traces`` turns is checked these ways, in one run:

* **from scratch** — the baseline: a new store and checker, no health memo, the recall's
  per-fact memo emptied: every text scanned, every meaning vector built, the resolver's
  topic pairs and the near-duplicate search done. What a first ``memory health`` pays.
* **one-shot CLI** — ``reasonix-tui memory health`` in a new process with the state the
  previous run left (wall time and the child's CPU time): what every later call pays.
* **first report in a process** — what the Context Center's first Health run pays: its
  worker answers from the last full run's report when nothing changed (a new store and
  :func:`~reasonix_tui.core.health.worker.first_answer`), then runs the checks from the
  saved state in the background (**first full run**, printed beside it).
* **after one write** — what the Context Center's worker does after a write: the same
  long-lived store and checker, one fact saved, then the snapshot, the inputs and every
  check again (only the changed fact is scanned). Split into the snapshot and the checks.
* **one-shot CLI after one write** — a new process after a fact was written elsewhere: the
  per-fact work and the near-duplicate search come from the state, only what the write
  changed is redone (the resolver's topic pairs are still computed for the whole store).
  Each rep writes one more fact; a one-shot run does not write the state back for a few
  new facts, so rep *k* redoes *k* facts (the best of the reps is printed).
* **--json** — ``memory health --json`` piped (compact, one finding a line), its size.

Every warm answer (the first run in a process, the worker after its writes and after a
write elsewhere, a new process after that write) is compared with a from-scratch
computation of the same store (all findings, field by field): ``same`` says whether they
are equal. Each figure is the best of ``--reps`` runs; the load average is printed before
and after. Target (issue 15): ≤ 1 s at 10k facts on every path a person waits on, judged
by CPU seconds (the wall time on a shared machine is printed beside them).

Usage: ``python benchmarks/health_bench.py [--sizes 1000 10000] [--traces 200] [--reps 3]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
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
from reasonix_tui.core.health import HealthChecker, gather, memo_path  # noqa: E402
from reasonix_tui.core.health.worker import first_answer  # noqa: E402
from reasonix_tui.core.paths import Layout  # noqa: E402
from reasonix_tui.core.recall.memo import FACT_MEMO  # noqa: E402
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
    store = TraceStore(layout, keep=max(traces, 1))
    for trace in make_traces(facts, traces, rng):
        store.record(trace)
    return layout, facts


def make_traces(facts: list[Fact], traces: int, rng: random.Random) -> list[RecallTrace]:
    """``traces`` recorded turns, ten minutes apart, each recalling three of the first third."""
    from recall_bench import make_queries

    n = len(facts)
    queries = make_queries(max(traces, 1))
    out = []
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
        out.append(RecallTrace(query=q, at=at.rfc3339(), hits=hits, terms=tuple(query_terms(q))))
    return out


def best(fn, reps: int) -> tuple[float, float, object]:
    """Best wall and CPU seconds of ``fn()`` over ``reps`` runs, and its last answer."""
    out: object = None
    wall = cpu = float("inf")
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    return wall, cpu, out


_PEAK_WRAPPER = """
import atexit, sys

def _peak():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                sys.stderr.write("\\nVmHWM " + line.split()[1] + "\\n")

atexit.register(_peak)
from reasonix_tui.__main__ import main
sys.exit(main())
"""
"""Runs the CLI and, at exit, writes its own peak resident memory (``VmHWM``, kB) to
stderr: the child's ``ru_maxrss`` would count this benchmark's memory (a forked child
starts with the parent's resident pages)."""


def one_shot(layout: Layout, reps: int, *args: str, before=None) -> tuple[float, float, str, float]:
    """Best wall and CPU seconds of ``reasonix-tui memory health ARGS`` in a new process
    (its output piped, as in CI), its output and its largest peak resident memory (MB,
    0 where ``/proc`` is missing); ``before()`` runs before each."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cmd = [sys.executable, "-c", _PEAK_WRAPPER, "--home", str(layout.root), "memory", "health", *args]
    wall = cpu = float("inf")
    out = ""
    peak = 0.0
    for _ in range(reps):
        if before is not None:
            before()
        t = time.perf_counter()
        with tempfile.TemporaryFile() as sink, tempfile.TemporaryFile() as errors:
            proc = subprocess.Popen(cmd, cwd=layout.workspace, env=env, stdout=sink, stderr=errors)
            _, _, usage = os.wait4(proc.pid, 0)
            proc.returncode = 0  # reaped here (wait4 gives this child's own CPU time)
            wall = min(wall, time.perf_counter() - t)
            sink.seek(0)
            out = sink.read().decode()
            errors.seek(0)
            marks = [ln for ln in errors.read().decode(errors="replace").splitlines() if ln.startswith("VmHWM ")]
        cpu = min(cpu, usage.ru_utime + usage.ru_stime)
        if marks:
            peak = max(peak, int(marks[-1].split()[1]) / 1024)
    return wall, cpu, out, peak


def forget_everything(layout: Layout) -> None:
    """Remove what earlier runs kept (the health state, the last report, the recall memo)."""
    from reasonix_tui.core.health.quick import quick_path
    from reasonix_tui.core.recall.memo import memo_path as recall_memo_path

    for path in (memo_path(layout), quick_path(layout), recall_memo_path(layout.cache_dir)):
        try:
            os.unlink(path)
        except OSError:
            pass


def from_scratch(layout: Layout):
    """Findings computed with nothing kept (no memo file, the recall memo emptied)."""
    FACT_MEMO.clear()
    return HealthChecker().report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS)))


def same(a, b) -> bool:
    return a.findings == b.findings and a.dismissed == b.dismissed


def run(n: int, traces: int, reps: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        layout, facts = build(Path(tmp), n, traces)
        names = [f.name for f in facts]
        Store(layout, settings=SETTINGS).list_all()  # the parse cache on disk, as after any CLI call
        memo = memo_path(layout)

        t, c = time.perf_counter(), time.process_time()
        scratch = from_scratch(layout)
        scratch_s, scratch_cpu = time.perf_counter() - t, time.process_time() - c
        assert scratch.facts == n
        # a first `memory health` from nothing, in a new process (what it leaves on disk is
        # what the later calls start from)
        cold_s, cold_cpu, _, cold_peak = one_shot(layout, 1, before=lambda: forget_everything(layout))
        cli_s, cli_cpu, cli_out, cli_peak = one_shot(layout, reps)
        json_s, json_cpu, json_out, json_peak = one_shot(layout, reps, "--json")
        assert json.loads(json_out) is not None and json_out.count("\n") == len(scratch.findings)

        def first_run():
            FACT_MEMO.clear()
            store = Store(layout, settings=SETTINGS)
            return first_answer(layout, SETTINGS, store, now=store.clock())

        def first_full():
            FACT_MEMO.clear()
            return HealthChecker(memo).report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS)))

        first_s, first_cpu, first = best(first_run, reps)
        full_s, full_cpu, full = best(first_full, reps)
        ok = first is not None and same(first, scratch) and same(full, scratch) and f"{n:,} facts" in cli_out
        store = Store(layout, settings=SETTINGS)
        checker = HealthChecker(memo)
        ctx = gather(layout, SETTINGS, store)
        checker.report(ctx)
        checker.prime(ctx.facts)  # as the Context Center's worker does once the first report is shown
        rng = random.Random(1)
        picked: set[int] = set()

        def pick() -> str:
            i = rng.randrange(n)
            while pinned(i, n) or i in (3, 4) or i in picked:
                i = rng.randrange(n)
            picked.add(i)
            return names[i]

        writes: list[tuple[float, float, float, float]] = []
        for k in range(reps):
            store.save(SaveRequest(name=pick(), description=f"changed {k}", body=f"new body {k} " * 20))
            t0, c0 = time.perf_counter(), time.process_time()
            ctx = gather(layout, SETTINGS, store)
            t1 = time.perf_counter()
            r = checker.report(ctx)
            t2 = time.perf_counter()
            assert checker.scanned == 1, checker.scanned
            writes.append((t2 - t0, t1 - t0, t2 - t1, time.process_time() - c0))
        checker.save()
        after, snap, checks_only, after_cpu = min(writes)

        # writes by another process, each followed by a one-shot call (from the state before it)
        def write_elsewhere() -> None:
            Store(layout, settings=SETTINGS).save(
                SaveRequest(name=pick(), description="changed elsewhere", body="x " * 30)
            )

        cli_w_s, cli_w_cpu, _, cli_w_peak = one_shot(layout, reps, before=write_elsewhere)
        write_elsewhere()
        FACT_MEMO.clear()
        cold = HealthChecker(memo).report(gather(layout, SETTINGS, Store(layout, settings=SETTINGS)))
        r = checker.report(gather(layout, SETTINGS, store))  # the worker sees the write too
        truth = from_scratch(layout)
        ok = ok and same(r, truth) and same(cold, truth)
        counts = r.counts()
        return {
            "scratch": scratch_s,
            "scratch_cpu": scratch_cpu,
            "cold": cold_s,
            "cold_cpu": cold_cpu,
            "cold_peak": cold_peak,
            "cli": cli_s,
            "cli_cpu": cli_cpu,
            "cli_peak": cli_peak,
            "json": json_s,
            "json_cpu": json_cpu,
            "json_peak": json_peak,
            "json_mb": len(json_out.encode()) / 1e6,
            "first": first_s,
            "first_cpu": first_cpu,
            "first_full": full_s,
            "first_full_cpu": full_cpu,
            "after": after,
            "after_cpu": after_cpu,
            "snapshot": snap,
            "checks": checks_only,
            "cli_write": cli_w_s,
            "cli_write_cpu": cli_w_cpu,
            "cli_write_peak": cli_w_peak,
            "findings": len(r.findings),
            "problems": counts["problem"],
            "warnings": counts["warning"],
            "info": counts["info"],
            "same": float(ok),
        }


def own_peak(n: int, traces: int) -> dict[str, float]:
    """Health's own time and memory at ``n`` facts, in this process (run it in a child, with
    a cap: ``prlimit --as=8000000000 python benchmarks/health_bench.py --own-peak 100000``).

    The facts are made in memory (no files, no store snapshot) and the resolver's topic
    pairs are left out (core/resolve.py, measured by its own benchmark): what is left is
    the checks themselves — the scans, the near-duplicate search (vectors, neighbour
    rows, pairs), the word test of the open pairs, every finding. Peak resident memory is
    read after the facts are made, after their meaning vectors (the recall's memo, shared
    with recall), after a run from scratch and after one run after a write."""
    from reasonix_tui.core import resolve as resolver
    from reasonix_tui.core.health import checker as checker_module
    from reasonix_tui.core.health.base import HealthContext
    from reasonix_tui.core.health.inputs import function_words
    from reasonix_tui.core.recall.fields import fact_vectors

    def peak() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    out: dict[str, float] = {"start": peak()}
    facts = make_facts(n)
    recorded = make_traces(facts, traces, random.Random(n))
    out["facts"] = peak()
    t, c = time.perf_counter(), time.process_time()
    fact_vectors(facts)
    out["vectors_s"], out["vectors_cpu"], out["vectors"] = time.perf_counter() - t, time.process_time() - c, peak()
    kept = checker_module.resolve
    checker_module.resolve = lambda fs, **_: resolver.Resolution(tuple(resolver.resolve_subjects(fs)))  # type: ignore[assignment]
    try:
        ctx = HealthContext(
            facts=facts, scans={}, now=NOW, pinned_budget=1500, traces=recorded, function_words=function_words()
        )
        checker = HealthChecker()
        t, c = time.perf_counter(), time.process_time()
        report = checker.report(ctx)
        out["scratch_s"], out["scratch_cpu"], out["scratch"] = time.perf_counter() - t, time.process_time() - c, peak()
        out["findings"] = len(report.findings)
        meaning = checker._meaning_pairs
        out["pairs"] = len(meaning.pairs)
        matrix = meaning._matrix
        out["vectors_mb"] = 0.0 if matrix is None else matrix.nbytes / 1e6
        changed = list(facts)
        changed[n // 2] = replace(facts[n // 2], body="a new body " * 20, revision=facts[n // 2].revision + 1)
        t, c = time.perf_counter(), time.process_time()
        checker.report(replace(ctx, facts=changed))
        out["write_s"], out["write_cpu"], out["write"] = time.perf_counter() - t, time.process_time() - c, peak()
    finally:
        checker_module.resolve = kept
    return out


def print_own_peak(n: int, r: dict[str, float]) -> None:
    print(
        f"{n:>7,} facts, health's own part (in memory, resolver's topic pairs left out): from scratch "
        f"{r['scratch_s']:.1f}s ({r['scratch_cpu']:.1f}s CPU), after one write {r['write_s']:.2f}s "
        f"({r['write_cpu']:.2f}s CPU); {int(r['findings']):,} findings, {int(r['pairs']):,} candidate pairs"
    )
    print(
        f"        peak resident memory (MB): facts made {r['facts']:.0f} | + meaning vectors (recall's memo) "
        f"{r['vectors']:.0f} | + checks from scratch {r['scratch']:.0f} (health's own: "
        f"{r['scratch'] - r['vectors']:.0f}; vector matrix {r['vectors_mb']:.0f}) | after a write {r['write']:.0f}"
    )


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


PATHS = (
    ("(a) in a worker after one write", "after"),
    ("(b) one-shot CLI after a write elsewhere", "cli_write"),
    ("(c) one-shot CLI, store unchanged", "cli"),
    ("(c) first report in a process", "first"),
    ("(d) one-shot CLI --json, piped", "json"),
)
"""What a person waits on, each against the issue's target of 1 s at 10k facts."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--traces", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--own-peak", type=int, metavar="N", help="only health's own time and memory at N facts (see own_peak)"
    )
    args = parser.parse_args(argv)
    print(f"load average: {load()} on {os.cpu_count()} cores; {args.traces} recorded turns")
    if args.own_peak:
        print_own_peak(args.own_peak, own_peak(args.own_peak, args.traces))
        print(f"load average after: {load()}")
        return 0
    print("wall seconds (CPU seconds of the process in brackets); best of --reps")
    ok = True
    for n in args.sizes:
        r = run(n, args.traces, args.reps)
        print(
            f"{n:>7,} facts: from scratch {r['scratch']:.2f}s ({r['scratch_cpu']:.2f}s) | (a) after 1 write {r['after']:.3f}s "
            f"({r['after_cpu']:.3f}s; snapshot {r['snapshot']:.3f}s + checks {r['checks']:.3f}s) | "
            f"(b) CLI after write {r['cli_write']:.2f}s ({r['cli_write_cpu']:.2f}s) | (c) one-shot CLI {r['cli']:.2f}s "
            f"({r['cli_cpu']:.2f}s), first report {r['first']:.2f}s ({r['first_cpu']:.2f}s; first full run "
            f"{r['first_full']:.2f}s ({r['first_full_cpu']:.2f}s)) | (d) --json "
            f"{r['json']:.2f}s ({r['json_cpu']:.2f}s, {r['json_mb']:.1f} MB) | same {'yes' if r['same'] else 'NO'} | "
            f"{int(r['findings']):,} findings ({int(r['problems'])} problems, {int(r['warnings'])} warnings, "
            f"{int(r['info'])} info)"
        )
        ratio = r["scratch"] / r["after"] if r["after"] else float("inf")
        print(f"        from scratch / after one write: {ratio:.0f}×")
        print(
            f"        baseline from scratch (this run) {r['scratch_cpu']:.2f}s CPU | (b) a new process after a write "
            f"elsewhere {r['cli_write_cpu']:.2f}s CPU: {r['scratch_cpu'] / max(r['cli_write_cpu'], 1e-9):.0f}× less"
        )
        print(
            f"        one-shot CLI from nothing {r['cold']:.2f}s ({r['cold_cpu']:.2f}s CPU) vs store unchanged "
            f"{r['cli']:.2f}s ({r['cli_cpu']:.2f}s CPU): {r['cold_cpu'] / max(r['cli_cpu'], 1e-9):.0f}× less CPU"
        )
        print(
            f"        peak memory (whole process, MB): CLI from nothing {r['cold_peak']:.0f} | unchanged "
            f"{r['cli_peak']:.0f} | --json {r['json_peak']:.0f} | after a write elsewhere {r['cli_write_peak']:.0f}"
        )
        ok = ok and bool(r["same"])
        if n >= 10_000:
            for label, key in PATHS:
                cpu = r[key + "_cpu"]
                met = cpu <= 1.0
                print(
                    f"        target ≤ 1 s {label}: {'met' if met else 'NOT met'} ({cpu:.2f} s CPU, {r[key]:.2f} s wall)"
                )
    print(f"load average after: {load()}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

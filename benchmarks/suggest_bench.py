"""``reasonix-tui suggest`` start to exit on a history of 2,000 sessions (target ≤ 0.5 s).

Builds a workspace history in the real on-disk formats (``benchmarks/suggestions/render.py``):
Claude Code transcripts and Reasonix sessions in a 60/40 mix, each a realistic working
session — requests, tool calls with their output, questions, pastes, one-off scoping —
with names, hosts and numbers varied per session. About a third of the sessions also
state something durable (a rule from a pool the project keeps repeating in other words,
or a new fact of its own), and a release procedure recurs. ``--dense`` puts three durable
statements, all distinct, in every session (6,000 candidates to merge: the worst case).
All sessions are inside the window.

Then it times the real command as a fresh process, each several times (median):

* **unchanged history** — nothing changed since the last listing (the usual case);
* **after 1 new session** / **after 10 new sessions** — sessions were added since the last
  listing (each run adds more): only they are mined and merged into the kept clusters;
* **from scratch** — no cache at all: every transcript is read, mined and merged;
* baselines in the same run: a bare interpreter, and ``reasonix-tui --version`` (each
  figure is also printed as a multiple of it).

Modules run from cached bytecode, as an installed package does (``PYTHONDONTWRITEBYTECODE``
is dropped for the timed processes and the package is byte-compiled first).

Usage::

    python benchmarks/suggest_bench.py [--sessions 2000] [--runs 5] [--dense] [--scratch-runs 1] [--keep DIR]
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "suggestions"))
sys.path.insert(0, str(HERE.parent))

from render import claude_slug, reasonix_slug, render_claude, render_reasonix  # noqa: E402

TARGET = 0.5

_TOPICS = ["cart", "checkout", "search", "auth", "billing", "export", "ingest", "profile", "orders", "invoices"]


_RULES = [
    "From now on run `pnpm lint` before every commit.",
    "Remember: run pnpm lint before you commit anything.",
    "we deploy through ArgoCD, never kubectl apply by hand",
    "以后部署都走 ArgoCD，不要手动 kubectl apply。",
    "Keep answers short, no summaries at the end.",
    "回答简短一点，不用总结。",
    "Don't touch anything under vendor/, it is generated.",
    "PRs go to develop as usual, main only gets release merges.",
    "money is always integer cents in this codebase, never floats",
    "The staging API lives at api.stg.shop.internal.",
]


def session(i: int, day: int, dense: bool = False) -> dict:
    """One synthetic but realistic working session (varied per ``i``)."""
    t = _TOPICS[i % len(_TOPICS)]
    host = f"{t}-db-{i % 13}.internal"
    opening = [
        {"user": f"The {t} page is slow when the list has more than {100 + i % 400} rows, can you look at it?"},
        {
            "tool": "read",
            "input": {"path": f"src/{t}/List.tsx"},
            "output": "\n".join(f"{n:6}→  const row{n} = useRow({n}); // always memoised" for n in range(1, 40)),
        },
        {"assistant": f"The list re-renders every row on each keystroke; I'll memoise the rows in `src/{t}/List.tsx`."},
        {
            "tool": "edit",
            "input": {"path": f"src/{t}/List.tsx", "old_string": "useRow(", "new_string": "useMemoRow("},
            "output": "The file has been updated.",
        },
    ]
    tests = {
        "tool": "bash",
        "input": {"command": f"pnpm test:unit {t}"},
        "output": "\n".join(f"  ✓ {t} case {n} (3 ms)" for n in range(30)),
    }
    noise = [
        {"user": f"why does {t} never show the empty state?"},
        {"assistant": "Because the empty branch checks `rows === undefined`, not an empty array."},
        {
            "user": "here's the old helper, keep it as is:\n```ts\n// never throws\nexport const safe = (f) => { try { return f() } catch { return null } }\n```"
        },
        {"user": f"for this PR only, skip the {t} snapshot tests"},
    ]
    commit = {
        "tool": "bash",
        "input": {"command": f"git commit -am 'perf({t}): memoise rows' && git push"},
        "output": f"[feat/{t}-{i} 1a2b3c] perf({t}): memoise rows",
    }
    if dense:  # three distinct durable statements in every session
        turns = opening + [
            {
                "tool": "bash",
                "input": {"command": f"npm test -- {t}"},
                "error": True,
                "output": "Exit code 1\n" + "\n".join(f"  ✕ {t} case {n} (12 ms)" for n in range(8)),
            },
            {"user": f"no, use `pnpm test:unit {t}` here, the npm script needs the {t}-svc-{i % 97} container"},
            tests,
            *noise[:2],
            {"user": f"From now on the {t} service talks to {host} on port {5400 + i % 90}, the old host is gone."},
            *noise[2:],
            commit,
            {"user": f"以后 {t} 相关的改动都先跑 pnpm lint:{t}，不要直接提交。"},
            {"assistant": "好的。"},
        ]
        every = 25
    else:
        turns = opening + [
            tests,
            *noise,
            {"user": f"nice. now add a loading skeleton to the {t} list"},
            commit,
            {"user": "不要紧，先这样吧"},
        ]
        if i % 3 == 0:
            turns.insert(5, {"user": _RULES[(i // 3) % len(_RULES)]})
        if i % 7 == 0:
            turns.insert(
                6, {"user": f"FYI the {t} service talks to {host} on port {5400 + i % 90} now, the old host is gone."}
            )
        every = 40
    if i % every == 0:
        turns += [
            {"user": f"cut the 3.{i}.0 release"},
            {"tool": "bash", "input": {"command": "pnpm changeset version"}, "output": "ok"},
            {"tool": "bash", "input": {"command": f"git tag v3.{i}.0 && git push --tags"}, "output": "ok"},
            {"tool": "bash", "input": {"command": "pnpm -r publish"}, "output": "ok"},
        ]
    hour = 8 + i % 10
    return {
        "key": f"S{i}",
        "start": f"2026-07-{1 + day:02d}T{hour:02d}:{i % 60:02d}:00Z",
        "turns": turns,
        "format": "claude" if i % 5 < 3 else "reasonix",
    }


def build(base: Path, n: int, dense: bool = False) -> tuple[Path, Path, Path]:
    """A home with ``n`` sessions of one workspace; ``(state root, claude home, workspace)``."""
    root, claude, ws = base / "home" / ".reasonix", base / "home" / ".claude", base / "work" / "shop"
    (ws / ".git").mkdir(parents=True)
    root.mkdir(parents=True)
    cdir = claude / "projects" / claude_slug(str(ws))
    rdir = root / "projects" / reasonix_slug(str(ws)) / "sessions"
    for i in range(n):
        s = session(i, day=(i * 28) // max(n, 1), dense=dense)
        if s["format"] == "claude":
            render_claude(s, str(ws), cdir)
        else:
            render_reasonix(s, str(ws), rdir, cli=False)
    return root, claude, ws


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return elapsed


def median(cmd: list[str], env: dict[str, str], runs: int) -> float:
    return statistics.median(timed(cmd, env) for _ in range(runs))


def main(argv: list[str] | None = None) -> int:
    """Build, time, print."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="build the history here and keep it")
    ap.add_argument(
        "--dense", action="store_true", help="three distinct durable statements in every session (worst case)"
    )
    ap.add_argument(
        "--scratch-runs", type=int, default=1, help="listings from scratch to time (each re-mines everything)"
    )
    args = ap.parse_args(argv)
    base = args.keep or Path(tempfile.mkdtemp(prefix="suggest-bench-"))
    try:
        t = time.perf_counter()
        root, claude, ws = build(base, args.sessions, args.dense)
        size = sum(p.stat().st_size for p in base.rglob("*.jsonl"))
        print(f"history: {args.sessions} sessions ({size / 1e6:.1f} MB) built in {time.perf_counter() - t:.1f} s")
        env = {**os.environ, "HOME": str(base / "home"), "CLAUDE_CONFIG_DIR": str(claude), "REASONIX_HOME": str(root)}
        env.pop("REASONIX_STATE_HOME", None)
        # as installed: modules run from cached bytecode (pip compiles a wheel's modules), not
        # compiled from source on every start because the shell asked not to write bytecode
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(HERE.parent / "reasonix_tui")],
            env=env,
            stdout=subprocess.DEVNULL,
            check=False,
        )
        exe = [sys.executable, "-m", "reasonix_tui", "--home", str(root), "--workspace", str(ws), "suggest"]
        sessions_dir = root / "projects" / reasonix_slug(str(ws)) / "sessions"
        added = args.sessions

        def add(n: int) -> None:
            nonlocal added
            for _ in range(n):
                render_reasonix(session(added, day=28, dense=args.dense), str(ws), sessions_dir, cli=False)
                added += 1

        def after_new(n: int) -> float:
            times = []
            for _ in range(args.runs):
                add(n)
                times.append(timed(exe, env))
            return statistics.median(times)

        scratch = []
        for _ in range(max(1, args.scratch_runs)):
            shutil.rmtree(root / "reasonix-tui" / "cache", ignore_errors=True)
            scratch.append(timed(exe, env))
        first = statistics.median(scratch)
        rows = [
            ("unchanged history", median(exe, env, args.runs)),
            ("after 1 new session", after_new(1)),
            ("after 10 new sessions", after_new(10)),
            ("from scratch (no cache)", first),
        ]
        bare = median([sys.executable, "-c", "pass"], env, args.runs)
        version = median([sys.executable, "-m", "reasonix_tui", "--version"], env, args.runs)
        out = subprocess.run(exe + ["--json"], env=env, stdout=subprocess.PIPE, text=True).stdout
        import json

        view = json.loads(out)
        print(
            f"listing: {len(view['memories'])} memories, {len(view['skills'])} skills shown from {view['sessions']} sessions"
            f" ({view['more']} more past the cap)"
        )
        print(f"baseline (same run): bare interpreter {bare:.3f} s, `reasonix-tui --version` {version:.3f} s")
        print(f"{'':26} {'median':>8}  {'× --version':>11}  target {TARGET} s")
        for label, value in rows:
            verdict = ("met" if value <= TARGET else "NOT met") if not label.startswith("from scratch") else "-"
            print(f"{label:26} {value:7.3f} s  {value / version:10.2f}×  {verdict}")
        print(
            f"(medians of {args.runs}; from scratch: median of {len(scratch)}; "
            f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

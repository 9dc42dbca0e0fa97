"""Hook benchmark: ``reasonix-tui hook user-prompt-submit`` end to end at 1k facts.

Builds a store of ``--facts`` facts (a fifth of them global, a few pinned) in a
temporary state root, then runs the hook as a subprocess — exactly as Claude Code does:
a JSON payload on stdin, the output read from stdout — ``--runs`` times, and a bare
``python -c pass`` start the same number of times in the same run, so the figures can be
read against the interpreter's own start-up on any machine.

The first call finds no warm hook server (``reasonix_tui.integrations.hookd``, reached through ``hook_client``): it
answers in-process and starts one; the timed runs then go through the server, as every
call but the first does in real use. The in-process path is timed too
(``REASONIX_TUI_HOOK_DAEMON=0``): from the on-disk recall index, and right after an outside
edit, when that index is built again from the store (the cost of every in-process call
before it existed). The server is stopped at the end.

    python benchmarks/hook_bench.py              # 1k facts, 20 runs
    python benchmarks/hook_bench.py --facts 10000 --runs 10

Target: hook process, start to output, 1k facts ≤ 0.15 s through the warm server (every
recall channel on). The server's resident memory (with the language resources and the
meaning model loaded) is printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.fileformat import render_fact
from reasonix_tui.core.store.model import Fact, new_memory_id
from reasonix_tui.integrations import hook_client

TOPICS = (
    "pnpm npm yarn cache build deploy release branch staging database migration token api endpoint retry "
    "timeout flaky test lint format review commit docker compose kubernetes redis postgres queue worker cron "
    "schedule feature flag rollout canary metric alert oncall runbook incident helm terraform vault grafana "
    "prometheus sentry webpack vite eslint prettier pytest mypy ruff poetry uvicorn fastapi django celery kafka"
).split()
FILLER = (
    "the a we use for with when after before should never always prefer our team project service it this "
    "that on in by from run check keep make sure only"
).split()

PROMPTS = (
    "why does the pytest run time out on the staging database migration?",
    "set up the helm chart for the canary rollout of the worker service",
    "fix the flaky redis queue test",
    "数据库迁移在预发环境超时了怎么处理",
    "which package manager do we use for the frontend build, pnpm or npm?",
    "thanks",
)


def make_fact(i: int, rng: random.Random, now: Timestamp) -> Fact:
    """One synthetic fact (deterministic for a given ``rng``)."""
    scope = "global" if i % 5 == 0 else "project"
    type_ = ("user", "feedback", "project", "reference")[i % 4]
    topic = rng.sample(TOPICS, 3)
    body = " ".join(rng.choice(FILLER) if rng.random() < 0.6 else rng.choice(TOPICS) for _ in range(70))
    return Fact(
        id=new_memory_id(),
        revision=1,
        created_at=now,
        updated_at=now,
        name=f"{topic[0]}-{topic[1]}-{i:05d}",
        title=f"{topic[0]} {topic[1]} note {i}",
        description=f"How we handle {topic[0]} with {topic[1]} and {topic[2]}",
        keywords=" ".join(topic),
        activation="pinned" if i % 250 == 1 else "relevant",
        type=type_,
        scope=scope,
        body=body,
    )


def build(root: Path, n: int) -> Layout:
    """A state root with ``n`` facts for workspace ``<root>/ws``."""
    workspace = root / "ws"
    workspace.mkdir(parents=True)
    layout = Layout.resolve(home=root / "state", workspace=workspace)
    rng = random.Random(n)
    now = Timestamp.now()
    layout.project_dir.mkdir(parents=True)
    layout.global_dir.mkdir(parents=True)
    for i in range(n):
        f = make_fact(i, rng, now)
        (layout.dir_for(f.scope) / f"{f.name}.md").write_text(render_fact(f), encoding="utf-8")
    return layout


def _exe() -> list[str]:
    found = shutil.which("reasonix-tui")
    if found:
        return [found]
    return [sys.executable, "-m", "reasonix_tui"]


def time_runs(cmd: list[str], payloads: list[bytes], env: dict[str, str]) -> tuple[list[float], list[str]]:
    """Wall time of each run (spawn to exit, output read) and the outputs."""
    times: list[float] = []
    outputs: list[str] = []
    for payload in payloads:
        t = time.perf_counter()
        proc = subprocess.run(cmd, input=payload, capture_output=True, env=env, check=False)
        times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
        outputs.append(proc.stdout.decode("utf-8", errors="replace"))
    return times, outputs


def p95(values: list[float]) -> float:
    """95th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(0.95 * len(ordered)) - 1))]


def main() -> int:
    """Build the store, time the hook and a bare interpreter, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument(
        "--store",
        default="",
        help="keep the generated store under this folder and reuse it (written once, as <dir>/h<facts>)",
    )
    ap.add_argument(
        "--warm-only",
        action="store_true",
        help="only the warm server (no in-process rows): its warm-up time and CPU, then the warm runs",
    )
    ap.add_argument(
        "--no-index",
        action="store_true",
        help="with --warm-only: do not run the in-process hook first (the server then warms up without an on-disk recall index unless one is there)",
    )
    ap.add_argument(
        "--mcp-first",
        action="store_true",
        help="with --warm-only: also start `reasonix-tui mcp` on the same store and time its first `memory` search",
    )
    ns = ap.parse_args()
    if ns.warm_only:
        return warm_only(ns)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        layout = build(root, ns.facts)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("REASONIX", "CLAUDE"))}
        env["HOME"] = str(root / "home")
        hook = [*_exe(), "--home", str(layout.root), "hook", "user-prompt-submit"]
        payloads = [
            json.dumps(
                {
                    "session_id": "bench-session",
                    "transcript_path": str(root / "t.jsonl"),
                    "cwd": str(layout.workspace),
                    "permission_mode": "default",
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": PROMPTS[i % len(PROMPTS)],
                }
            ).encode()
            for i in range(ns.runs)
        ]
        no_server = {**env, "REASONIX_TUI_HOOK_DAEMON": "0"}
        compile_bytecode()
        try:
            # First call: no parse cache, no server. It answers in-process and starts the server.
            cold, _ = time_runs(hook, payloads[:1], env)
            if not _wait_for_server(str(layout.root)):
                print("  (the warm hook server did not start; figures below are in-process)")
            time_runs(hook, payloads[:2], env)  # let the server build its enhanced structures
            bare, _ = time_runs([sys.executable, "-c", "pass"], [b""] * ns.runs, env)
            warm, outputs = time_runs(hook, payloads, env)
            rss = server_rss(layout.root)
            inproc, _ = time_runs(hook, payloads[: max(3, ns.runs // 4)], no_server)
            # The same right after an outside edit: the on-disk recall index cannot vouch and is
            # built again from the store (per-fact memo) — what every in-process call cost before.
            edited = []
            files = sorted(layout.project_dir.glob("*.md"))
            for i in range(3):
                with open(files[(i * 7919) % len(files)], "a", encoding="utf-8") as fh:
                    fh.write(f"\noutside edit {i}\n")
                edited += time_runs(hook, payloads[i : i + 1], no_server)[0]
        finally:
            hook_client.shutdown(str(layout.root))
        injected = sum(1 for o in outputs if o.strip())
        sizes = [len(json.loads(o)["hookSpecificOutput"]["additionalContext"]) for o in outputs if o.strip()]
        med, hi = statistics.median(warm), p95(warm)
        bare_med = statistics.median(bare)
        print(f"hook user-prompt-submit, {ns.facts} facts, {ns.runs} runs (subprocess, stdin → stdout)")
        print(f"  hook (warm server)  median {med * 1000:7.1f} ms   p95 {hi * 1000:7.1f} ms")
        print(
            f"  bare interpreter    median {bare_med * 1000:7.1f} ms   p95 {p95(bare) * 1000:7.1f} ms   (python -c pass)"
        )
        print(f"  hook − bare interpreter: {(med - bare_med) * 1000:7.1f} ms median")
        print(f"  first call (no parse cache, no server; answers in-process): {cold[0] * 1000:7.1f} ms")
        print(
            f"  in-process (REASONIX_TUI_HOOK_DAEMON=0), {len(inproc)} runs: median "
            f"{statistics.median(inproc) * 1000:7.1f} ms (from the on-disk recall index)"
        )
        print(
            f"    after an outside edit, 3 runs: median {statistics.median(edited) * 1000:7.1f} ms "
            "(the index built again from the store: what every in-process call cost before)"
        )
        print(f"  outputs with context: {injected}/{ns.runs}, largest additionalContext {max(sizes, default=0)} chars")
        print(
            f"  warm server memory (RSS, language resources and meaning model loaded): " f"{rss / 2**20:.0f} MiB"
            if rss
            else "  warm server memory: not measured"
        )
        verdict = "meets" if med <= 0.15 else "MISSES"
        print(f"  target ≤ 150 ms end to end at 1k facts: {verdict} (warm median)")
    return 0


def warm_only(ns: argparse.Namespace) -> int:
    """``--warm-only``: a server started as the first hook call starts it, its warm-up (wall
    and server CPU until its ping says it is done), then ``--runs`` warm calls beside a bare
    interpreter, with the server's CPU per call and its memory."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(ns.store) / f"h{ns.facts}" if ns.store else Path(tmp)
        marker = root / ".built"
        t = time.perf_counter()
        if not marker.exists():
            if root.exists():
                shutil.rmtree(root)
            build(root, ns.facts)
            marker.write_text("ok")
            print(f"store of {ns.facts} facts written in {time.perf_counter() - t:.0f} s")
        layout = Layout.resolve(home=root / "state", workspace=root / "ws")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("REASONIX", "CLAUDE"))}
        env["HOME"] = str(root / "home")
        hook = [*_exe(), "--home", str(layout.root), "hook", "user-prompt-submit"]
        payloads = [_payload(root, layout, PROMPTS[i % len(PROMPTS)]) for i in range(ns.runs)]
        hook_client.shutdown(str(layout.root))
        compile_bytecode()
        if not ns.no_index:
            # What the first hook call does in real use: answer in-process from the on-disk
            # recall index (built, or patched, and written when it is not current).
            kids = resource.getrusage(resource.RUSAGE_CHILDREN)
            first, _ = time_runs(hook, payloads[:1], {**env, "REASONIX_TUI_HOOK_DAEMON": "0"})
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - kids.ru_utime - kids.ru_stime
            print(
                f"  in-process hook first (on-disk recall index current or written): {first[0]:.1f} s wall, {cpu:.1f} s CPU"
            )
        try:
            t = time.perf_counter()
            # The server as the first hook call starts it (that call answers in-process meanwhile).
            subprocess.Popen(
                [*_exe(), "--home", str(layout.root), "hook", "serve", "--warm", str(layout.workspace)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            if not _wait_for_server(str(layout.root), timeout=900, warm=True):
                print("  the warm hook server did not start or finish its warm-up in 900 s")
                return 1
            ready = time.perf_counter() - t
            settle_cpu(layout.root)  # what the warm-up left running (the segmenter's dictionary)
            second, _ = time_runs(hook, payloads[1:2], env)
            warm_cpu = server_cpu(layout.root)
            bare, _ = time_runs([sys.executable, "-c", "pass"], [b""] * ns.runs, env)
            cpu0 = server_cpu(layout.root)
            kids = resource.getrusage(resource.RUSAGE_CHILDREN)
            warm, outputs = time_runs(hook, payloads, env)
            per_call = (server_cpu(layout.root) - cpu0) / len(warm)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            client_cpu = (after.ru_utime + after.ru_stime - kids.ru_utime - kids.ru_stime) / len(warm)
            kids = after
            time_runs([sys.executable, "-c", "pass"], [b""] * ns.runs, env)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            bare_cpu = (after.ru_utime + after.ru_stime - kids.ru_utime - kids.ru_stime) / ns.runs
            rss = server_rss(layout.root)
            peak = server_rss(layout.root, "VmHWM")
        finally:
            hook_client.shutdown(str(layout.root))
        med, bare_med = statistics.median(warm), statistics.median(bare)
        print(f"hook user-prompt-submit, {ns.facts} facts, warm server, {ns.runs} runs, load {os.getloadavg()[0]:.1f}")
        print(f"  hook (warm server)  median {med * 1000:7.1f} ms   p95 {p95(warm) * 1000:7.1f} ms")
        print(f"  bare interpreter    median {bare_med * 1000:7.1f} ms   (python -c pass)")
        print(
            f"  CPU per call: hook process {client_cpu * 1000:.1f} ms (bare interpreter {bare_cpu * 1000:.1f} ms) "
            f"+ server {per_call * 1000:.1f} ms = {(client_cpu + per_call) * 1000:.1f} ms"
        )
        print(
            f"  server started, warm-up done after {ready:.0f} s wall, {warm_cpu:.0f} s server CPU; "
            f"the first call after it {second[0] * 1000:.0f} ms"
        )
        print(f"  outputs with context: {sum(1 for o in outputs if o.strip())}/{ns.runs}")
        print(
            f"  warm server memory (RSS): {rss / 2**20:.0f} MiB, peak {peak / 2**20:.0f} MiB"
            if rss
            else "  warm server memory: not measured"
        )
        if ns.mcp_first:
            import asyncio

            wall, first, cpu = asyncio.run(mcp_first(layout, env))
            print(
                f"  MCP server: first `memory` search answered {first:.1f} s after start "
                f"(the server process's CPU until then and through exit: {cpu:.1f} s; the whole session {wall:.1f} s)"
            )
    return 0


async def mcp_first(layout: Layout, env: dict[str, str]) -> tuple[float, float, float]:
    """``(session wall, first search answered after start, CPU of the server's processes)``
    of `reasonix-tui mcp` on this store, through a real stdio client (a search with hits, so
    superseded hits are labelled: the subject/topic resolver over every fact runs first)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    exe = _exe()
    params = StdioServerParameters(
        command=exe[0],
        args=[*exe[1:], "--home", str(layout.root), "mcp", "--workspace", str(layout.workspace)],
        env=env,
        cwd=str(layout.workspace),
    )
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=900) as session:
                await session.initialize()
                await session.call_tool("memory", {"op": "search", "query": "flaky redis queue test"})
                first = time.perf_counter() - t
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, first, after.ru_utime + after.ru_stime - kids.ru_utime - kids.ru_stime


def compile_bytecode() -> None:
    """Compile the package's bytecode, as an install does: with ``PYTHONDONTWRITEBYTECODE``
    set, a changed module is otherwise compiled again by every hook process."""
    import compileall

    import reasonix_tui

    compileall.compile_dir(os.path.dirname(reasonix_tui.__file__), quiet=1)


def _payload(root: Path, layout: Layout, prompt: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench-session",
            "transcript_path": str(root / "t.jsonl"),
            "cwd": str(layout.workspace),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    ).encode()


def settle_cpu(root: Path, timeout: float = 120.0) -> None:
    """Wait (at most ``timeout`` s) until the server uses under 5% of a core for a second."""
    deadline = time.monotonic() + timeout
    last = server_cpu(root)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = server_cpu(root)
        if now - last < 0.05:
            return
        last = now


def server_cpu(root: Path) -> float:
    """CPU seconds (user + system) of the warm hook server so far (Linux ``/proc``; 0 when unknown)."""
    try:
        pid = json.loads((hook_client.run_dir(str(root)) / "hookd.json").read_text())["pid"]
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, KeyError, IndexError):
        return 0.0


def server_rss(root: Path, field: str = "VmRSS") -> int:
    """Resident memory of the warm hook server, in bytes (Linux ``/proc``; 0 when unknown;
    ``field="VmHWM"``: its peak)."""
    try:
        pid = json.loads((hook_client.run_dir(str(root)) / "hookd.json").read_text())["pid"]
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, KeyError, IndexError):
        pass
    return 0


def _wait_for_server(root: str, timeout: float = 60.0, warm: bool = False) -> bool:
    """A server answers a ping (``warm``: and has finished its warm-up) within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = hook_client.status(root)
        if reply and not (warm and reply.get("warming")):
            return True
        time.sleep(0.1)
    return False


if __name__ == "__main__":
    raise SystemExit(main())

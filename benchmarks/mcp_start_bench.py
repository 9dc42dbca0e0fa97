"""MCP start benchmark: process start → ``initialize`` reply → ``tools/list`` reply.

Clients start ``reasonix-tui mcp`` at the beginning of a session and do not wait long:
Codex sent its first model request without the memory tools when the server took two
seconds to answer. This starts the server as a client does (the console script, JSON-RPC
over stdin/stdout) ``--runs`` times on a store of ``--facts`` facts and times, from the
moment the process is spawned:

* the ``initialize`` reply and the ``tools/list`` reply (the static front);
* the first ``tools/call`` reply (the MCP SDK server, imported in the background);

beside, in the same run, a bare interpreter that echoes one line (``python -c``: the
floor for any Python server) and the SDK server alone (``REASONIX_TUI_MCP_FRONT=0``, the
old start).

    python benchmarks/mcp_start_bench.py            # 15 runs, 1k facts
    python benchmarks/mcp_start_bench.py --runs 30

Target (issue 13): ``tools/list`` answered within 0.5 s of process start (median).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory", "arguments": {"op": "list"}}}


def _exe() -> list[str]:
    script = Path(sys.executable).parent / "reasonix-tui"
    if script.exists():
        return [str(script)]
    found = shutil.which("reasonix-tui")
    return [found] if found else [sys.executable, "-m", "reasonix_tui"]


def _line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def one_server(cmd: list[str], env: dict[str, str], call: bool) -> tuple[float, float, float]:
    """``(initialize, tools/list, tools/call)`` seconds from spawn (call 0 when skipped)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_line(INIT))
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        t_init = time.perf_counter() - start
        proc.stdin.write(_line(INITIALIZED) + _line(LIST))
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        assert reply["id"] == 1 and reply["result"]["tools"], reply
        t_list = time.perf_counter() - start
        t_call = 0.0
        if call:
            proc.stdin.write(_line(CALL))
            proc.stdin.flush()
            while json.loads(proc.stdout.readline()).get("id") != 2:
                pass
            t_call = time.perf_counter() - start
        return t_init, t_list, t_call
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bare(runs: int) -> list[float]:
    """A bare interpreter that echoes one line: spawn → reply."""
    out = []
    code = "import sys; sys.stdout.write(sys.stdin.readline()); sys.stdout.flush()"
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(_line(INIT))
        proc.stdin.flush()
        proc.stdout.readline()
        out.append(time.perf_counter() - start)
        proc.stdin.close()
        proc.wait()
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    """Build a store, time the MCP start, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sdk-runs", type=int, default=5, help="runs of the SDK server alone (slow)")
    ap.add_argument("--facts", type=int, default=1000)
    ns = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="mcp-bench-"))
    try:
        root, ws = tmp / "root", tmp / "ws"
        ws.mkdir(parents=True)
        store = Store(Layout.resolve(home=root, workspace=ws))
        for i in range(ns.facts):
            store.save(
                SaveRequest(
                    name=f"fact-{i}",
                    type="project",
                    description=f"fact number {i} about topic {i % 37}",
                    body=f"Body of fact {i}: deploy notes, cluster k8s-{i % 11}, owner team-{i % 7}.",
                )
            )
        env = dict(os.environ, HOME=str(tmp), REASONIX_TUI_HOOK_DAEMON="0")
        cmd = [*_exe(), "--home", str(root), "mcp", "--workspace", str(ws)]
        one_server(cmd, env, call=True)  # warm the OS file cache and the parse cache
        front = [one_server(cmd, env, call=True) for _ in range(ns.runs)]
        sdk = [one_server(cmd, {**env, "REASONIX_TUI_MCP_FRONT": "0"}, call=False) for _ in range(ns.sdk_runs)]
        floor = bare(ns.runs)
        init = [f[0] for f in front]
        lst = [f[1] for f in front]
        call = [f[2] for f in front]
        print(f"reasonix-tui mcp start, {ns.facts} facts, {ns.runs} runs (spawn → reply, JSON-RPC over stdio)")
        print(
            f"  initialize reply        median {statistics.median(init) * 1000:7.1f} ms   p95 {p95(init) * 1000:7.1f} ms"
        )
        print(
            f"  tools/list reply        median {statistics.median(lst) * 1000:7.1f} ms   p95 {p95(lst) * 1000:7.1f} ms"
        )
        print(
            f"  first tools/call reply  median {statistics.median(call) * 1000:7.1f} ms   p95 {p95(call) * 1000:7.1f} ms"
            "   (the SDK server, loaded in the background)"
        )
        print(
            f"  bare interpreter echo   median {statistics.median(floor) * 1000:7.1f} ms   p95 {p95(floor) * 1000:7.1f} ms"
            "   (python -c, one line in, one line out)"
        )
        sdk_list = [s[1] for s in sdk]
        print(
            f"  SDK server alone ({ns.sdk_runs} runs, REASONIX_TUI_MCP_FRONT=0): tools/list median "
            f"{statistics.median(sdk_list) * 1000:7.1f} ms"
        )
        ratio = statistics.median(lst) / statistics.median(floor)
        print(
            f"  tools/list / bare interpreter: {ratio:.1f}x; SDK alone / front: "
            f"{statistics.median(sdk_list) / statistics.median(lst):.1f}x"
        )
        verdict = "met" if statistics.median(lst) <= 0.5 else "NOT met"
        print(f"  target tools/list ≤ 500 ms after process start: {verdict} (median)")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""Peer benchmark: basic-memory and reasonix-tui side by side on the same generated corpus.

basic-memory (SQLite FTS5, the agent-memory tool people reach for today) and reasonix-tui
get the same facts — :func:`recall_bench.make_facts`, written once with reasonix-tui's
file-format renderer; basic-memory indexes a copy of the very same files — and the same
queries (:func:`recall_bench.make_queries`). Every row runs the two tools interleaved
(one basic-memory measurement, then one reasonix-tui measurement, and again), so load on
a shared machine hits both alike. Rows, per corpus size:

* **load from scratch** — process start to exit, no index or cache on disk:
  ``basic-memory project add`` (it indexes the files before it returns) against
  ``reasonix-tui memory search`` (it reads and parses every file and builds its index
  before it answers);
* **load, nothing changed** — the same with the index or cache of the previous run in
  place: ``basic-memory reindex --search`` (its incremental pass) against
  ``reasonix-tui memory search`` (every one-shot command validates the store first);
* **in-process search** — one long-lived process per tool, warm, the MCP tool function
  called directly (no transport): basic-memory's ``search_notes`` against reasonix-tui's
  ``memory`` tool (:func:`~reasonix_tui.core.recall.memory_tool_call` on a long-lived
  store);
* **MCP over stdio** — both servers started as a client starts them
  (``basic-memory mcp``, ``reasonix-tui mcp``) and driven by the same real MCP client
  (the ``mcp`` SDK's stdio client), warm: ``search_notes`` against ``memory``
  ``op=search``;
* **CLI search** — process start to exit: ``basic-memory tool search-notes`` against
  ``reasonix-tui memory search``.

Each row prints both medians, the ratio basic-memory / reasonix-tui, and the machine's
load average when the row was measured. Search rows also print the p95. basic-memory is
asked for keyword search (``search_type=text``, 8 results, as reasonix-tui's default
limit). Where its sqlite-vec extension cannot load (this Python build, or no way to
fetch its embedding model) basic-memory runs keyword-only anyway; the header says which.

basic-memory is not a dependency of this project and needs Python ≥ 3.12. Make its own
virtualenv, outside this repository:

    python3.12 -m venv /path/to/bm-venv
    /path/to/bm-venv/bin/pip install basic-memory==0.24.1

then pass it with ``--bm-venv /path/to/bm-venv`` (or ``BASIC_MEMORY_VENV``). Without it
the script says so and exits 0. basic-memory runs with its own ``HOME`` and
``BASIC_MEMORY_CONFIG_DIR`` under a temporary folder (nothing in the real home is read
or written) and its automatic update check turned off.

    python benchmarks/peer_bench.py --bm-venv ../bm-venv                 # 1k and 10k
    python benchmarks/peer_bench.py --bm-venv ../bm-venv --sizes 200 --queries 10 --cli-runs 2

Target (issue 16): reasonix-tui ≥ 10× basic-memory on every row at 1k and 10k facts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

from recall_bench import make_facts, make_queries  # noqa: E402

from reasonix_tui.core.paths import Layout  # noqa: E402
from reasonix_tui.core.store.fileformat import render_fact  # noqa: E402

VENV_ENV = "BASIC_MEMORY_VENV"
PROJECT = "bench"
LIMIT = 8
"""Results asked of both tools (reasonix-tui's default search limit)."""
TARGET = 10.0

# The basic-memory side of "in-process search": one long-lived process in basic-memory's
# own venv, calling its MCP tool function as its CLI does, timing each call itself.
# One JSON query per stdin line, one "@@ {...}" reply line per query on stdout.
BM_DRIVER = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from basic_memory.mcp.tools import search_notes

    async def main():
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return
            query = json.loads(line)
            t = time.perf_counter()
            try:
                r = await search_notes(query=query, project=%(project)r, search_type="text",
                                       output_format="json", page_size=%(limit)d)
                err = "" if isinstance(r, dict) else str(r)[:300]
                n = len(r.get("results") or []) if isinstance(r, dict) else 0
            except Exception as exc:
                err, n = f"{type(exc).__name__}: {exc}"[:300], 0
            dt = time.perf_counter() - t
            sys.stdout.write("@@ " + json.dumps({"t": dt, "n": n, "err": err}) + "\\n")
            sys.stdout.flush()

    asyncio.run(main())
    """
) % {"project": PROJECT, "limit": LIMIT}

BM_PROBE = textwrap.dedent(
    """
    import importlib.metadata as m, json
    out = {"version": m.version("basic-memory")}
    try:
        from basic_memory.repository.semantic_runtime import sqlite_vector_runtime_available
        out["vectors"] = bool(sqlite_vector_runtime_available())
    except Exception as exc:
        out["vectors"] = None
    print(json.dumps(out))
    """
)


# --------------------------------------------------------------------------- figures


def p95(values: Sequence[float]) -> float:
    """95th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(0.95 * len(ordered)) - 1))]


def load_average() -> str:
    """The 1-minute load average (``-`` where the platform has none)."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except (AttributeError, OSError):
        return "-"


@dataclass
class Row:
    """One measure: both tools' samples (seconds) and the load seen while measuring."""

    size: int
    measure: str
    bm: list[float] = field(default_factory=list)
    rx: list[float] = field(default_factory=list)
    loads: list[str] = field(default_factory=list)
    show_p95: bool = False
    note: str = ""

    def ratio(self) -> float:
        return statistics.median(self.bm) / statistics.median(self.rx)

    def cell(self, samples: list[float]) -> str:
        if not samples:
            return "-"
        med = statistics.median(samples)
        text = _fmt(med)
        if self.show_p95:
            text += f" / {_fmt(p95(samples))}"
        return text


def _fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds * 1000:.0f} ms"


def print_rows(rows: list[Row]) -> None:
    """The table: measure, basic-memory, reasonix-tui, ratio, load."""
    head = f"{'facts':>6}  {'measure':<34} {'basic-memory':>22} {'reasonix-tui':>22} {'ratio':>8}  {'load':>9}"
    print(head)
    print("-" * len(head))
    for r in rows:
        ratio = f"{r.ratio():.1f}×" if r.bm and r.rx else "-"
        loads = f"{min(r.loads)}–{max(r.loads)}" if len(set(r.loads)) > 1 else (r.loads[0] if r.loads else "-")
        print(f"{r.size:>6}  {r.measure:<34} {r.cell(r.bm):>22} {r.cell(r.rx):>22} {ratio:>8}  {loads:>9}")
        if r.note:
            print(f"{'':>8}{r.note}")


# --------------------------------------------------------------------------- the two tools


def rx_exe() -> list[str]:
    """reasonix-tui's console script of this interpreter's environment."""
    script = Path(sys.executable).parent / "reasonix-tui"
    if script.exists():
        return [str(script)]
    found = shutil.which("reasonix-tui")
    return [found] if found else [sys.executable, "-m", "reasonix_tui"]


@dataclass
class Corpus:
    """One generated corpus on disk, in both tools' places."""

    tmp: Path
    size: int
    layout: Layout
    notes: Path
    """basic-memory's project folder: the same files, ``project/`` and ``global/``."""

    @classmethod
    def build(cls, tmp: Path, size: int) -> Corpus:
        ws = tmp / "ws"
        ws.mkdir(parents=True)
        layout = Layout.resolve(home=tmp / "rx-root", workspace=ws)
        notes = tmp / "bm-notes"
        for d in (layout.project_dir, layout.global_dir, notes / "project", notes / "global"):
            d.mkdir(parents=True)
        for fact in make_facts(size):
            data = render_fact(fact).encode("utf-8")
            name = f"{fact.name}.md"
            (layout.dir_for(fact.scope) / name).write_bytes(data)
            (notes / ("global" if fact.scope == "global" else "project") / name).write_bytes(data)
        return cls(tmp, size, layout, notes)


class Peer:
    """basic-memory in its own virtualenv, isolated under ``<tmp>/bm-home``."""

    def __init__(self, venv: Path, corpus: Corpus) -> None:
        self.python = venv / "bin" / "python"
        self.script = venv / "bin" / "basic-memory"
        self.corpus = corpus
        self.home = corpus.tmp / "bm-home"
        self.config_dir = self.home / ".basic-memory"
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "BASIC_MEMORY_CONFIG_DIR": str(self.config_dir),
            "HF_HUB_OFFLINE": "1",
            "NO_COLOR": "1",
            "COLUMNS": "120",
            "LANG": os.environ.get("LANG", "C.UTF-8"),
        }

    def fresh(self, with_project: bool) -> None:
        """A config folder with no database, its update check off; the bench project
        registered or not."""
        shutil.rmtree(self.home, ignore_errors=True)
        self.config_dir.mkdir(parents=True)
        config: dict[str, Any] = {
            "env": "dev",
            "projects": {},
            "auto_update": False,
            "log_level": "WARNING",
            "default_search_type": "text",
        }
        if with_project:
            config["projects"] = {PROJECT: {"path": str(self.corpus.notes), "mode": "local"}}
            config["default_project"] = PROJECT
        (self.config_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")

    def cmd(self, *args: str) -> list[str]:
        return [str(self.script), *args]


class Ours:
    """reasonix-tui on the corpus's state root and workspace."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        layout = corpus.layout
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("REASONIX", "CLAUDE", "CURSOR"))}
        self.env.update(HOME=str(corpus.tmp / "rx-home"), REASONIX_TUI_HOOK_DAEMON="0")
        self.base = [*rx_exe(), "--home", str(layout.root)]

    def clear_caches(self) -> None:
        """Every cache and index reasonix-tui keeps for this root (a load from scratch)."""
        shutil.rmtree(self.corpus.layout.cache_dir, ignore_errors=True)

    def search_cmd(self, query: str) -> list[str]:
        return [*self.base, "memory", "search", query, "--json", "--limit", str(LIMIT)]


def run_timed(cmd: list[str], env: dict[str, str], cwd: Path, check_json: bool = False, timeout: float = 7200) -> float:
    """Wall time from spawn to exit; raises with the tool's own words on a failure."""
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=timeout, check=False)
    dt = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd[:4])} … exited {proc.returncode}:\n"
            f"{proc.stderr.decode(errors='replace')[-2000:]}{proc.stdout.decode(errors='replace')[-1000:]}"
        )
    if check_json:
        json.loads(proc.stdout)  # an answer, not an error message
    return dt


# --------------------------------------------------------------------------- rows


def loads_rows(bm: Peer, rx: Ours, queries: list[str], scratch_runs: int, runs: int) -> list[Row]:
    """Load from scratch, then with nothing changed (processes, interleaved)."""
    size, ws = bm.corpus.size, rx.corpus.layout.workspace
    scratch = Row(size, "load from scratch (process)")
    for i in range(scratch_runs):
        bm.fresh(with_project=False)
        scratch.loads.append(load_average())
        scratch.bm.append(
            run_timed(bm.cmd("project", "add", PROJECT, str(bm.corpus.notes), "--default"), bm.env, bm.corpus.tmp)
        )
        rx.clear_caches()
        scratch.rx.append(run_timed(rx.search_cmd(queries[i % len(queries)]), rx.env, ws, check_json=True))
    again = Row(size, "load, nothing changed (process)")
    for i in range(runs):
        again.loads.append(load_average())
        again.bm.append(run_timed(bm.cmd("reindex", "--search", "-p", PROJECT), bm.env, bm.corpus.tmp))
        again.rx.append(run_timed(rx.search_cmd(queries[i % len(queries)]), rx.env, ws, check_json=True))
    again.note = (
        "basic-memory: `reindex --search` (its incremental pass); reasonix-tui: `memory search` "
        "(a one-shot command checks the store itself)"
    )
    return [scratch, again]


def inprocess_row(bm: Peer, rx: Ours, queries: list[str], warmup: int) -> Row:
    """Warm in-process MCP tool calls, interleaved query by query."""
    from reasonix_tui.core.recall import memory_tool_call
    from reasonix_tui.core.settings import load_settings
    from reasonix_tui.core.store.live import LiveStore

    layout = rx.corpus.layout
    # what the MCP server holds: a store kept current from file-system events
    store = LiveStore(layout, settings=load_settings(layout.root), actor="agent-auto")
    proc = subprocess.Popen(
        [str(bm.python), "-c", BM_DRIVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=bm.env,
        cwd=bm.corpus.tmp,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def bm_call(query: str) -> tuple[float, int, str]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(query) + "\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit("basic-memory's in-process driver exited")
            if line.startswith("@@ "):
                reply = json.loads(line[3:])
                return reply["t"], reply["n"], reply["err"]

    def rx_call(query: str) -> float:
        t = time.perf_counter()
        memory_tool_call(store, {"operation": "search", "query": query})
        return time.perf_counter() - t

    row = Row(bm.corpus.size, "in-process search (warm)", show_p95=True)
    errors = 0
    try:
        for q in queries[:warmup]:
            bm_call(q)
            rx_call(q)
        row.loads.append(load_average())
        for q in queries[warmup:]:
            dt, _, err = bm_call(q)
            errors += bool(err)
            row.bm.append(dt)
            row.rx.append(rx_call(q))
        row.loads.append(load_average())
    finally:
        store.close()
        proc.stdin.close()
        proc.wait(timeout=120)
    row.note = "the MCP tool function called directly: search_notes / memory_tool_call (LiveStore)"
    if errors:
        row.note += f"; basic-memory answered {errors} of {len(queries) - warmup} queries with an error"
    return row


def mcp_row(bm: Peer, rx: Ours, queries: list[str], warmup: int) -> Row:
    """Warm MCP tool calls over stdio from one real client, interleaved query by query."""
    return asyncio.run(_mcp_row(bm, rx, queries, warmup))


async def _mcp_row(bm: Peer, rx: Ours, queries: list[str], warmup: int) -> Row:
    from contextlib import AsyncExitStack

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    layout = rx.corpus.layout
    row = Row(bm.corpus.size, "MCP search over stdio (warm)", show_p95=True)
    errors = {"bm": 0, "rx": 0}
    async with AsyncExitStack() as stack:
        devnull = stack.enter_context(open(os.devnull, "w"))

        async def open_session(command: str, args: list[str], env: dict[str, str], cwd: Path) -> ClientSession:
            params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))
            read, write = await stack.enter_async_context(stdio_client(params, errlog=devnull))
            session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=600))
            await session.initialize()
            return session

        bm_s = await open_session(str(bm.script), ["mcp", "--project", PROJECT], bm.env, bm.corpus.tmp)
        rx_s = await open_session(
            rx.base[0], [*rx.base[1:], "mcp", "--workspace", str(layout.workspace)], rx.env, layout.workspace
        )

        async def bm_call(q: str) -> float:
            t = time.perf_counter()
            res = await bm_s.call_tool(
                "search_notes", {"query": q, "search_type": "text", "page_size": LIMIT, "project": PROJECT}
            )
            dt = time.perf_counter() - t
            errors["bm"] += bool(getattr(res, "is_error", False))
            return dt

        async def rx_call(q: str) -> float:
            t = time.perf_counter()
            res = await rx_s.call_tool("memory", {"op": "search", "query": q})
            dt = time.perf_counter() - t
            errors["rx"] += bool(getattr(res, "is_error", False))
            return dt

        for q in queries[:warmup]:
            await bm_call(q)
            await rx_call(q)
        errors = {"bm": 0, "rx": 0}
        row.loads.append(load_average())
        for q in queries[warmup:]:
            row.bm.append(await bm_call(q))
            row.rx.append(await rx_call(q))
        row.loads.append(load_average())
    row.note = "one mcp SDK stdio client; search_notes (search_type=text) / memory op=search"
    if errors["bm"] or errors["rx"]:
        row.note += f"; tool errors: basic-memory {errors['bm']}, reasonix-tui {errors['rx']}"
    return row


def cli_row(bm: Peer, rx: Ours, queries: list[str], runs: int) -> Row:
    """CLI search, process start to exit, interleaved."""
    row = Row(bm.corpus.size, "CLI search (process)")
    for i in range(runs):
        q = queries[i % len(queries)]
        row.loads.append(load_average())
        row.bm.append(
            run_timed(
                bm.cmd("tool", "search-notes", q, "--json", "--page-size", str(LIMIT), "--project", PROJECT),
                bm.env,
                bm.corpus.tmp,
                check_json=True,
            )
        )
        row.rx.append(run_timed(rx.search_cmd(q), rx.env, rx.corpus.layout.workspace, check_json=True))
    row.note = "basic-memory tool search-notes --json / reasonix-tui memory search --json"
    return row


def bare_row(bm: Peer, runs: int, size: int) -> Row:
    """Each interpreter's own start (``python -c pass``), for reading the process rows."""
    row = Row(size, "bare interpreter (python -c pass)")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for _ in range(runs):
        row.bm.append(run_timed([str(bm.python), "-c", "pass"], env, bm.corpus.tmp))
        row.rx.append(run_timed([sys.executable, "-c", "pass"], env, bm.corpus.tmp))
    row.loads.append(load_average())
    row.note = "the floor of every process row (not a comparison)"
    return row


# --------------------------------------------------------------------------- main


def find_venv(explicit: str | None) -> tuple[Path | None, str]:
    """basic-memory's venv, or ``None`` and why not."""
    raw = explicit or os.environ.get(VENV_ENV, "")
    if not raw:
        return None, f"no basic-memory virtualenv given (--bm-venv or ${VENV_ENV})"
    venv = Path(raw).expanduser()
    if not (venv / "bin" / "python").exists():
        return None, f"{venv} is not a virtualenv (no bin/python)"
    if not (venv / "bin" / "basic-memory").exists():
        return None, f"basic-memory is not installed in {venv} (no bin/basic-memory)"
    return venv, ""


HOW_TO = (
    "make one outside this repository with:\n"
    "    python3.12 -m venv /path/to/bm-venv\n"
    "    /path/to/bm-venv/bin/pip install basic-memory==0.24.1\n"
    f"then pass --bm-venv /path/to/bm-venv (or set {VENV_ENV})."
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="basic-memory's virtualenv: " + HOW_TO,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--bm-venv", help=f"basic-memory's virtualenv (default ${VENV_ENV})")
    ap.add_argument("--sizes", default="1000,10000", help="corpus sizes, comma-separated")
    ap.add_argument("--queries", type=int, default=50, help="queries per search row")
    ap.add_argument("--warmup", type=int, default=5, help="untimed queries before each search row")
    ap.add_argument("--cli-runs", type=int, default=5, help="process runs per process row")
    ap.add_argument(
        "--scratch-runs",
        type=int,
        default=1,
        help="loads from scratch per size (basic-memory takes minutes per 1k facts)",
    )
    ap.add_argument(
        "--rows", default="load,inprocess,mcp,cli", help="which rows: load, inprocess, mcp, cli (comma-separated)"
    )
    ns = ap.parse_args(argv)

    venv, why = find_venv(ns.bm_venv)
    if venv is None:
        print(f"peer_bench: skipped — {why}.\nbasic-memory needs Python ≥ 3.12 in its own virtualenv; {HOW_TO}")
        return 0
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c", BM_PROBE],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "HOME": tempfile.gettempdir()},
        check=False,
    )
    if probe.returncode != 0:
        print(f"peer_bench: skipped — basic-memory does not import in {venv}:\n{probe.stderr[-1500:]}")
        return 0
    info = json.loads(probe.stdout.strip().splitlines()[-1])
    from reasonix_tui import __version__

    rows_wanted = {r.strip() for r in ns.rows.split(",") if r.strip()}
    queries = make_queries(ns.queries + ns.warmup)
    warm, timed = queries[: ns.warmup], queries[ns.warmup :]
    vectors = {
        True: "its vector channel can load here: its loads include embeddings",
        False: "its vector channel cannot load here: keyword-only (FTS5)",
        None: "vector channel unknown",
    }[info.get("vectors")]
    print(f"peer benchmark: basic-memory {info['version']} ({vectors}) vs reasonix-tui {__version__}")
    if info["version"] != "0.24.1":
        print("  note: the figures in the README were measured against basic-memory 0.24.1")
    print(
        f"  {ns.queries} queries per search row (+{ns.warmup} warm-up), {ns.cli_runs} runs per process row, "
        f"{ns.scratch_runs} load(s) from scratch; times are medians (search rows: median / p95); "
        "ratio = basic-memory / reasonix-tui; load = 1-min load average while measured\n"
    )
    rows: list[Row] = []
    ok = True
    for size in [int(s) for s in ns.sizes.split(",") if s.strip()]:
        with tempfile.TemporaryDirectory(prefix="peer-bench-") as tmp:
            corpus = Corpus.build(Path(tmp), size)
            bm, rx = Peer(venv, corpus), Ours(corpus)
            size_rows: list[Row] = [bare_row(bm, ns.cli_runs, size)]
            if "load" in rows_wanted:
                size_rows += loads_rows(bm, rx, timed, ns.scratch_runs, ns.cli_runs)
            else:
                bm.fresh(with_project=False)
                run_timed(bm.cmd("project", "add", PROJECT, str(corpus.notes), "--default"), bm.env, corpus.tmp)
            if "inprocess" in rows_wanted:
                size_rows.append(inprocess_row(bm, rx, warm + timed, len(warm)))
            if "mcp" in rows_wanted:
                size_rows.append(mcp_row(bm, rx, warm + timed, len(warm)))
            if "cli" in rows_wanted:
                size_rows.append(cli_row(bm, rx, timed, ns.cli_runs))
            print_rows(size_rows)
            print()
            rows += size_rows
            if size in (1000, 10000):
                ok = ok and all(r.ratio() >= TARGET for r in size_rows[1:])
    measured = [r.size for r in rows]
    if not {1000, 10000} & set(measured):
        print("target (≥ 10× on every row at 1k and 10k facts): not measured (no size 1000 or 10000)")
    else:
        print(f"target (≥ 10× on every row at 1k and 10k facts): {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

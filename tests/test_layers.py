"""Layer rules and repository hygiene, checked from the source tree.

* The import contracts in ``pyproject.toml`` (``[tool.importlinter]``) hold: ``core``
  imports neither textual nor mcp nor the integrations nor the TUI; the TUI never imports
  the integrations; the integrations reach the TUI only through the one launcher.
* No two modules of the package import each other, directly or through others.
* Every ``# type: ignore`` names its error code and says why.
* BM25 is written once, in core/bm25.py.
* No tracked text file carries an absolute path of a development machine.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[1]

# Import cycles still to be broken, each named with its members (a shrinking list; a new
# cycle fails the test).
KNOWN_CYCLES: list[frozenset[str]] = []


def test_import_contracts_hold() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; " "sys.exit(lint_imports_command())",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "BROKEN" not in out.stdout and out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count(" KEPT") >= 3


def _cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members: set[str] = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    members.add(top)
                    if top == node:
                        break
                if len(members) > 1:
                    found.append(frozenset(members))
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(edges) == [frozenset("abc")]


def test_no_import_cycles() -> None:
    graph = grimp.build_graph("reasonix_tui")
    edges = {
        m: {i for i in graph.find_modules_directly_imported_by(m) if i.startswith("reasonix_tui")}
        for m in graph.modules
    }
    new = [sorted(c) for c in _cycles(edges) if c not in KNOWN_CYCLES]
    assert not new, f"modules that import each other: {new}"


# An absolute path of a development machine: a home or a checkout at the top of the file
# system (``work``, ``root``) or in a user's home (placeholder users of the examples and
# tests are allowed), and this very checkout's own location.
PLACEHOLDER_USERS = {"you", "user", "u", "me", "x", "alice", "bob", "carol"}
MACHINE_PATH = re.compile(r"(?<![\w.;/&-])/(?:work|root|home/(?P<user>[A-Za-z0-9_.-]+))/")


def _tracked_text_files() -> list[Path]:
    try:
        names = subprocess.run(
            ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, timeout=60
        ).stdout.split(b"\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    out: list[Path] = []
    for name in names:
        path = REPO / name.decode("utf-8", "surrogateescape")
        if name and path.is_file():
            data = path.read_bytes()
            if b"\0" not in data[:8192]:
                out.append(path)
    return out


def machine_paths(text: str, checkout: str = "") -> list[str]:
    """The absolute machine paths in ``text``."""
    found = [
        m.group(0)
        for m in MACHINE_PATH.finditer(text)
        if m.group("user") not in PLACEHOLDER_USERS or m.group("user") is None
    ]
    if checkout and checkout in text:
        found.append(checkout)
    return found


def test_machine_path_check_catches_examples() -> None:
    work, root, dev = "/" + "work/", "/" + "root/", "/" + "home/devbox/"  # spelt apart: this file is checked too
    assert machine_paths(f"venv: {work}main/.venv") == [work]
    assert machine_paths(f"see {root}notes and {dev}x") == [root, dev]
    assert machine_paths("hook: /home/you/.local/bin/reasonix-tui; /tmp/snap/work/acme") == []
    assert machine_paths("clone at /srv/ci/checkout/x", "/srv/ci/checkout") == ["/srv/ci/checkout"]


def test_no_tracked_file_carries_a_machine_path() -> None:
    files = _tracked_text_files()
    assert any(p.name == "README.md" for p in files)
    bad: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for hit in machine_paths(text, str(REPO)):
            bad.append(f"{path.relative_to(REPO)}: {hit}")
    assert not bad, "absolute machine paths in tracked files:\n" + "\n".join(bad)


TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore(?P<code>\[[^\]]+\])?(?P<rest>.*)$")


def test_every_type_ignore_has_a_code_and_a_reason() -> None:
    bad: list[str] = []
    for path in sorted((REPO / "reasonix_tui").rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = TYPE_IGNORE.search(line)
            if m and (not m.group("code") or not m.group("rest").strip().lstrip("#").strip()):
                bad.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not bad, "a type: ignore without its code or a reason:\n" + "\n".join(bad)


BM25_FORMULA = re.compile(r"math\.log\(1(\.0)?\s*\+|\*\s*2\.2\b|\(\s*1\s*-\s*B\s*\)|K1\s*\+\s*1\b|_bm25\.")


def test_one_bm25_formula() -> None:
    """The idf, the length normalisation and a term's score are written once, in core/bm25.py;
    nothing reaches into rank-bm25's object from outside it."""
    assert BM25_FORMULA.search("idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))")
    bad = [
        f"{path.relative_to(REPO)}:{n}: {line.strip()}"
        for path in sorted((REPO / "reasonix_tui").rglob("*.py"))
        if path.name != "bm25.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if BM25_FORMULA.search(line)
    ]
    assert not bad, "BM25 spelt outside core/bm25.py:\n" + "\n".join(bad)

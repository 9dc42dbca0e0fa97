"""Helpers of the reliability tests (issue: the store in a hostile or broken environment)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from cli_exe import exe  # tests/ is on sys.path (tests/reliability is a package)

from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

__all__ = ["exe", "cli", "hook", "req", "seeded", "outside_tree", "tree_snapshot", "run_main"]


def cli(
    layout: Layout, *argv: str, stdin: bytes | str | None = None, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """Run ``reasonix-tui --home ROOT --workspace WS ARGV`` in a subprocess.

    ``timeout`` only guards against a hang (a hang is the failure these tests look for)."""
    e = dict(os.environ)
    e["REASONIX_TUI_HOOK_DAEMON"] = "0"
    e.update(env or {})
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    return subprocess.run(
        [*exe(), "--home", str(layout.root), "--workspace", str(layout.workspace), *argv],
        input=data if data is not None else b"",
        capture_output=True,
        env=e,
        timeout=timeout,
        check=False,
    )


def hook(layout: Layout, prompt: str, *, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """The user-prompt-submit hook as Claude Code runs it."""
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s-1",
        "cwd": str(layout.workspace),
        "prompt": prompt,
    }
    return cli(layout, "hook", "user-prompt-submit", stdin=json.dumps(payload), timeout=timeout)


def req(name: str, **kw: Any) -> SaveRequest:
    """A project fact request."""
    base: dict[str, Any] = {
        "name": name,
        "description": f"{name} description",
        "body": f"{name} body text",
        "type": "project",
    }
    base.update(kw)
    return SaveRequest(**base)


def seeded(layout: Layout, *names: str) -> Store:
    """A store holding one project fact per name."""
    store = Store(layout)
    for n in names:
        store.save(req(n, description=f"how the {n} service deploys", body=f"The {n} service deploys nightly."))
    return store


def outside_tree(tmp_path: Path) -> Path:
    """A folder outside the state root whose content must never change."""
    out = tmp_path / "outside"
    out.mkdir(exist_ok=True)
    (out / "victim.txt").write_text("untouched\n")
    return out


def tree_snapshot(path: Path) -> dict[str, bytes]:
    """Every regular file under ``path`` with its bytes."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def run_main(layout: Layout, *argv: str) -> tuple[int, str, str]:
    """``reasonix-tui ARGV`` in this process: ``(exit code, stdout, stderr)``."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from reasonix_tui.integrations import cli as cli_module

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_module.main(["--home", str(layout.root), "--workspace", str(layout.workspace), *argv])
    return code, out.getvalue(), err.getvalue()

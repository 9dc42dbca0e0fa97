"""Drive the real Claude Code and Codex CLIs against reasonix-tui, without an API key.

Not part of the test suite: it needs ``claude`` and ``codex`` (``npm install -g
@anthropic-ai/claude-code @openai/codex``, or ``--npm-prefix DIR`` for a private
install). Everything happens in a throwaway HOME under a temporary directory: the real
``~/.claude``, ``~/.codex`` and ``~/.reasonix`` are never read or written.

For each client it runs ``reasonix-tui setup <client> --yes``, points the client at a
loopback stand-in for the model API (``scripts/fake_model.py``: every request logged, the
replies scripted), and runs one non-interactive turn (``claude -p`` / ``codex exec``) in
which the scripted "model":

1. calls the shell with the agent's own verb and global options first,
   ``reasonix-tui --workspace P remember --body "run make setup before deploy" …``
   (must run: a proposal is queued);
2. calls the shell with a person-only subcommand behind global options,
   ``reasonix-tui --workspace P memory forget deploy-target`` (must be denied by the
   PreToolUse guard; the fact stays);
3. (Claude Code) calls ``reasonix-tui memory save …`` plainly (denied by a rule);
4. calls the ``memory`` MCP tool (must answer);

then checks what reached the model: the memory tools in the *first* request, the
session-start block and the recall block in the prompt, and the tool results. It also
runs ``claude mcp list`` and ``codex mcp list``. Prints one line per check; exits 1 when
one fails.

    python scripts/real_clients_check.py
    python scripts/real_clients_check.py --npm-prefix /tmp/npm --keep
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_model import FakeModel  # noqa: E402

from reasonix_tui.core.agent.approvals import ApprovalQueue  # noqa: E402
from reasonix_tui.core.paths import Layout  # noqa: E402
from reasonix_tui.core.store.requests import SaveRequest  # noqa: E402
from reasonix_tui.core.store.store import Store

RESULTS: list[tuple[str, bool, str]] = []


def check(name: str, ok: bool, detail: str = "") -> bool:
    """Record and print one check."""
    detail = " ".join(detail.split())
    RESULTS.append((name, ok, detail))
    print(f"  [{'ok' if ok else 'FAIL'}] {name}" + (f" - {detail}" if detail else ""))
    return ok


def our_exe() -> str:
    script = Path(sys.executable).parent / "reasonix-tui"
    return str(script) if script.exists() else (shutil.which("reasonix-tui") or "reasonix-tui")


def prepare(base: Path) -> tuple[Path, Path, Path]:
    """A throwaway HOME, a project (git repo) and a state root with a pinned and a recallable fact."""
    home, project = base / "home", base / "project"
    home.mkdir(parents=True)
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    root = home / ".reasonix"
    store = Store(Layout.resolve(home=root, workspace=project))
    store.save(
        SaveRequest(
            name="deploy-target",
            title="Deploy target",
            type="project",
            description="Deploys go to the k8s-stage-2 cluster with helm",
            body="helm upgrade --install app deploy/chart on k8s-stage-2; prod needs sign-off.",
        )
    )
    store.save(
        SaveRequest(
            name="pkg-manager",
            title="Package manager",
            type="project",
            activation="pinned",
            description="Package manager is pnpm",
            body="Use pnpm install, never npm install.",
        )
    )
    return home, project, root


EXTRA_ENV: dict[str, str] = {}
"""``--env KEY=VALUE``: added to the clients' environment (e.g. ``REASONIX_TUI_MCP_FRONT=0``
to see the SDK server's slow start)."""


def client_env(home: Path, extra: dict[str, str], npm_bin: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (npm_bin, str(Path(our_exe()).parent), "/usr/local/bin", "/usr/bin", "/bin") if p)
    return {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb", **EXTRA_ENV, **extra}


def texts(value: Any) -> str:
    """Every string inside a request body, joined (to look for what reached the model)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(texts(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(texts(v) for v in value.values())
    return ""


def main_requests(model: FakeModel) -> list[dict[str, Any]]:
    return [r["body"] for r in model.requests if isinstance(r["body"], dict) and r["body"].get("tools")]


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers the model."""
    return [str(t.get("name") or t.get("type")) for t in body.get("tools", [])]


def start_client(name: str, client: str, npm_bin: str, base: Path, install: str) -> tuple[str, Path, Path, Path] | None:
    """Find the client, make its throwaway home and project, run ``setup <name> --yes``."""
    print({"claude-code": "Claude Code", "codex": "Codex"}[name])
    program = shutil.which(client, path=npm_bin or None) or shutil.which(client)
    if not program:
        check(f"{client} is installed", False, f"not found (npm install -g {install})")
        return None
    home, project, root = prepare(base / client)
    env_setup = {**os.environ, "HOME": str(home), "REASONIX_TUI_HOOK_DAEMON": "1"}
    proc = subprocess.run(
        [our_exe(), "--home", str(root), "--workspace", str(project), "setup", name, "--yes", "--command", our_exe()],
        capture_output=True,
        text=True,
        env=env_setup,
        check=False,
    )
    check(f"setup {name} --yes", proc.returncode == 0, proc.stderr.strip()[:200])
    version = subprocess.run([program, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"  ({version})")
    return program, home, project, root


def finish(model: FakeModel, home: Path, root: Path) -> None:
    """Stop the model stand-in and the hook server; keep the request log beside the home."""
    model.stop()
    (home.parent / "requests.json").write_text(json.dumps(model.requests, indent=1))
    subprocess.run(
        [our_exe(), "--home", str(root), "hook", "stop"],
        capture_output=True,
        check=False,
        env={**os.environ, "HOME": str(home)},
    )


def run_claude(base: Path, npm_bin: str) -> None:
    started = start_client("claude-code", "claude", npm_bin, base, "@anthropic-ai/claude-code")
    if started is None:
        return
    claude, home, project, root = started
    # The person trusts the workspace and approves the project's MCP server once (what answering
    # Claude Code's two prompts records); until then it ignores the project's allow rules.
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
    script = [
        {
            "tool": "Bash",
            "input": {
                "command": f"reasonix-tui --workspace {project} remember --description "
                "'deploy steps' --body 'run make setup before deploy' --wait 0",
                "description": "remember a fact",
            },
        },
        {
            "tool": "Bash",
            "input": {
                "command": f"reasonix-tui --workspace {project} memory forget deploy-target",
                "description": "forget a fact as the user",
            },
        },
        {
            "tool": "Bash",
            "input": {
                "command": "reasonix-tui memory save --name x --description d --body b",
                "description": "save as the user",
            },
        },
        {"tool": "mcp__reasonix-tui__memory", "input": {"op": "search", "query": "deploy cluster"}},
    ]
    model = FakeModel(script).start()
    try:
        env = client_env(
            home,
            {
                "ANTHROPIC_BASE_URL": model.url,
                "ANTHROPIC_API_KEY": "sk-ant-loopback",
                "DISABLE_TELEMETRY": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
            },
            npm_bin,
        )
        start = time.monotonic()
        proc = subprocess.run(
            [
                claude,
                "-p",
                "How do we deploy to the k8s-stage-2 cluster with helm?",
                "--output-format",
                "json",
                "--allowedTools",
                "Bash",
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        took = time.monotonic() - start
        check("claude -p finished", proc.returncode == 0, f"{took:.1f}s; {proc.stderr.strip()[:400]}")
        bodies = main_requests(model)
        if not check("the model was asked", bool(bodies)):
            return
        first = bodies[0]
        mcp_tools = [n for n in tool_names(first) if n.startswith("mcp__reasonix-tui__")]
        check(
            "first model request carries the memory tools",
            {"mcp__reasonix-tui__memory", "mcp__reasonix-tui__remember"} <= set(mcp_tools),
            ", ".join(mcp_tools),
        )
        first_text = texts(first.get("system")) + texts(first.get("messages"))
        check(
            "session start block reached the model",
            "## Pinned preferences and feedback" in first_text and "Use pnpm install" in first_text,
        )
        check("recall block reached the model", "<memory-recall>" in first_text and "k8s-stage-2" in first_text)
        last = texts(bodies[-1].get("messages"))
        queue = ApprovalQueue(Layout.resolve(home=root, workspace=project))
        pending = [p for p in queue.pending() if "make setup" in json.dumps(p.arguments)]
        check(
            "agent verb with --workspace and 'setup' in its body ran",
            bool(pending),
            "proposal queued" if pending else last[-300:],
        )
        check(
            "person-only subcommand behind --workspace denied by the guard",
            "acts as the user, without approval" in last
            and Store(Layout.resolve(home=root, workspace=project)).find("deploy-target") is not None,
        )
        check("plain person-only subcommand denied", "memory save" in last and "denied" in last.lower())
        check(
            "memory MCP tool answered",
            "deploy-target" in last and "Memory search results" in last,
            "" if "Memory search results" in last else last[-300:],
        )
        listing = subprocess.run(
            [claude, "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        line = next((ln for ln in listing.stdout.splitlines() if "reasonix-tui" in ln), listing.stdout.strip()[:200])
        check("claude mcp list: connected", "Connected" in line or "✓" in line, line.strip())
    finally:
        finish(model, home, root)


def run_codex(base: Path, npm_bin: str) -> None:
    started = start_client("codex", "codex", npm_bin, base, "@openai/codex")
    if started is None:
        return
    codex, home, project, root = started
    exe = our_exe()  # Codex's shell starts from a login PATH: the absolute path, as setup writes it
    script: list[dict[str, Any]] = [
        {
            "tool": "exec_command",
            "input": {
                "cmd": f"{exe} --workspace {project} remember --description "
                "'deploy steps' --body 'run make setup before deploy' --wait 0"
            },
        },
        {"tool": "exec_command", "input": {"cmd": f"{exe} --workspace {project} memory forget deploy-target"}},
    ]
    model = FakeModel(script).start()
    try:
        config = home / ".codex" / "config.toml"
        config.write_text(
            'model = "fake-model"\nmodel_provider = "loopback"\n\n[model_providers.loopback]\nname = "loopback"\n'
            f'base_url = "{model.url}/v1"\nwire_api = "responses"\nenv_key = "LOOPBACK_API_KEY"\n\n'
            + config.read_text()
        )
        env = client_env(home, {"LOOPBACK_API_KEY": "sk-loopback"}, npm_bin)
        start = time.monotonic()
        proc = subprocess.run(
            [
                codex,
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-hook-trust",
                "--dangerously-bypass-approvals-and-sandbox",
                "How do we deploy to the k8s-stage-2 cluster with helm?",
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        took = time.monotonic() - start
        check("codex exec finished", proc.returncode == 0, f"{took:.1f}s; {proc.stderr.strip()[-200:]}")
        bodies = main_requests(model)
        if not check("the model was asked", bool(bodies)):
            return
        first = bodies[0]
        # Codex 0.171 offers an MCP server's tools as one "namespace" tool holding functions.
        inner = [
            f"{t.get('name')}.{f.get('name')}"
            for t in first.get("tools", [])
            if "reasonix" in str(t.get("name"))
            for f in (t.get("tools") or [t])
        ]
        check(
            "first model request carries the memory tools",
            any(n.endswith(".memory") for n in inner) and any(n.endswith(".remember") for n in inner),
            ", ".join(inner),
        )
        first_text = texts(first.get("input")) + texts(first.get("instructions"))
        check("session start block reached the model", "## Pinned preferences and feedback" in first_text)
        check("recall block reached the model", "<memory-recall>" in first_text and "k8s-stage-2" in first_text)
        last = texts(bodies[-1].get("input"))
        queue = ApprovalQueue(Layout.resolve(home=root, workspace=project))
        pending = [p for p in queue.pending() if "make setup" in json.dumps(p.arguments)]
        check(
            "agent verb with --workspace and 'setup' in its body ran",
            bool(pending),
            "proposal queued" if pending else last[-300:],
        )
        check(
            "person-only subcommand behind --workspace denied by the guard",
            "acts as the user, without approval" in last
            and Store(Layout.resolve(home=root, workspace=project)).find("deploy-target") is not None,
            last[-200:] if "acts as the user" not in last else "",
        )
        listing = subprocess.run(
            [codex, "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        line = next((ln for ln in listing.stdout.splitlines() if "reasonix-tui" in ln), listing.stdout.strip()[:200])
        check("codex mcp list: enabled", "enabled" in line, line.strip())
    finally:
        finish(model, home, root)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--npm-prefix", help="where the clients were installed with npm --prefix (uses DIR/node_modules/.bin)"
    )
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory and print its path")
    ap.add_argument("--only", choices=["claude", "codex"], help="run one client")
    ap.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="add to the clients' environment (REASONIX_TUI_MCP_FRONT=0: the SDK server's old start)",
    )
    ns = ap.parse_args()
    EXTRA_ENV.update(item.split("=", 1) for item in ns.env if "=" in item)
    npm_bin = str(Path(ns.npm_prefix) / "node_modules" / ".bin") if ns.npm_prefix else ""
    base = Path(tempfile.mkdtemp(prefix="reasonix-real-clients-"))
    try:
        if ns.only in (None, "claude"):
            run_claude(base, npm_bin)
        if ns.only in (None, "codex"):
            run_codex(base, npm_bin)
    finally:
        if ns.keep:
            print(f"(kept {base})")
        else:
            shutil.rmtree(base, ignore_errors=True)
    failed = [name for name, ok, _ in RESULTS if not ok]
    print(f"{len(RESULTS) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

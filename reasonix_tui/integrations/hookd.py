"""A warm hook server, so ``reasonix-tui hook …`` answers in tens of milliseconds.

A hook is a fresh process per prompt. Importing the recall engine alone (numpy,
rank-bm25, the YAML stack) takes longer than the 0.3 s budget on a modest machine, and
building the recall index for 1k facts takes longer still. So the hook process is a thin
client: it forwards the payload over a Unix socket to a per-state-root server that keeps
the store, its parse cache and the warm recall index in memory, and prints the answer.

* The first hook call finds no server: it starts one in the background
  (``reasonix-tui --home ROOT hook serve``), detached from the agent, with no inherited
  pipes, and answers in-process (same code, slower).
* The server answers one request at a time, with exactly :func:`hooks.run_hook`; it
  exits after :data:`IDLE_SECONDS` without requests, when asked to (``shutdown``), or
  when the installed code changed (the client sends a stamp of the code it runs; a
  server with another stamp replies ``stale`` and exits, and the client answers
  in-process and starts a fresh one).
* Only one server runs per state root (an exclusive lock on ``run/hookd.lock``). The
  socket lives in ``<root>/reasonix-tui/run/`` (mode 0700; socket 0600), or under
  ``$TMPDIR/reasonix-tui-<uid>/`` when that path is too long for a Unix socket.
* ``REASONIX_TUI_HOOK_DAEMON=0`` turns it off (every call in-process). Platforms
  without Unix sockets always answer in-process.

The client imports nothing heavy: ``json``, ``socket``, ``os``, ``hashlib``.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "IDLE_SECONDS",
    "enabled",
    "run_dir",
    "socket_path",
    "code_stamp",
    "request",
    "spawn",
    "serve",
    "status",
    "shutdown",
    "forwarded_env",
]

IDLE_SECONDS = 1800.0
"""A server with no request for this long exits."""

CLIENT_TIMEOUT = 8.0
"""How long a hook waits for the server before answering in-process instead."""

PROTOCOL = 1
_MAX_REQUEST = 8 * 1024 * 1024
_ENV_PREFIXES = ("REASONIX_", "CLAUDE_PROJECT_DIR", "HOME", "USERPROFILE", "XDG_")
_PKG = Path(__file__).resolve().parent.parent
_STAMPED_DIRS = ("core", "core/recall", "core/store", "integrations")


def enabled(env: Mapping[str, str] | None = None) -> bool:
    """True unless ``REASONIX_TUI_HOOK_DAEMON`` is ``0``/``false``/``off`` or Unix sockets are missing."""
    env = os.environ if env is None else env
    if env.get("REASONIX_TUI_HOOK_DAEMON", "").strip().lower() in ("0", "false", "off", "no"):
        return False
    return hasattr(socket, "AF_UNIX") and os.name != "nt"


def run_dir(root: str | os.PathLike[str]) -> Path:
    """``<root>/reasonix-tui/run`` (lock, pid file and, when short enough, the socket)."""
    return Path(root) / "reasonix-tui" / "run"


def socket_path(root: str | os.PathLike[str]) -> str:
    """Where the server for ``root`` listens."""
    path = str(run_dir(root) / "hookd.sock")
    if len(path.encode()) <= 100:
        return path
    digest = hashlib.sha256(os.path.abspath(os.fspath(root)).encode("utf-8", "surrogatepass")).hexdigest()[:20]
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"reasonix-tui-{uid}", f"{digest}.sock")


def code_stamp() -> str:
    """A cheap fingerprint of the installed code (version + newest source mtime)."""
    newest = 0
    count = 0
    for sub in _STAMPED_DIRS:
        try:
            with os.scandir(_PKG / sub) as it:
                for entry in it:
                    if entry.name.endswith(".py"):
                        count += 1
                        newest = max(newest, entry.stat().st_mtime_ns)
        except OSError:
            continue
    from .. import __version__

    return f"{__version__}:{count}:{newest}"


def forwarded_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment variables that change what a hook answers."""
    env = os.environ if env is None else env
    return {k: v for k, v in env.items() if k.startswith(_ENV_PREFIXES)}


def _private_dir(directory: str) -> bool:
    """True when ``directory`` is ours and closed to others (no one else can plant a socket)."""
    try:
        st = os.lstat(directory)
    except OSError:
        return False
    import stat

    if not stat.S_ISDIR(st.st_mode):
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False
    return not st.st_mode & 0o022


# --------------------------------------------------------------------------- client


def _exchange(path: str, message: Mapping[str, Any], timeout: float) -> dict[str, Any] | None:
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
        chunks: list[bytes] = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            if chunk.endswith(b"\n"):
                break
        data = json.loads(b"".join(chunks).decode("utf-8"))
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


def request(root: str, message: Mapping[str, Any], timeout: float = CLIENT_TIMEOUT) -> dict[str, Any] | None:
    """Send one request to the server for ``root``; ``None`` when none answers."""
    if not enabled():
        return None
    path = socket_path(root)
    if not _private_dir(os.path.dirname(path)):
        return None
    return _exchange(path, {"v": PROTOCOL, **message}, timeout)


def status(root: str) -> dict[str, Any] | None:
    """``{"ok": true, "pid": …, "stamp": …}`` from a running server, else ``None``."""
    return request(root, {"op": "ping"}, timeout=2.0)


def shutdown(root: str) -> bool:
    """Ask the server for ``root`` to exit; True when one answered."""
    reply = request(root, {"op": "shutdown"}, timeout=2.0)
    return bool(reply and reply.get("ok"))


def spawn(root: str, workspace: str = "") -> None:
    """Start a server for ``root`` in the background (no-op when disabled; never raises)."""
    if not enabled():
        return
    try:
        import subprocess

        rd = run_dir(root)
        rd.mkdir(parents=True, exist_ok=True, mode=0o700)
        cmd = [sys.executable, "-m", "reasonix_tui", "--home", str(root), "hook", "serve"]
        if workspace:
            cmd += ["--warm", workspace]
        # The server must import the very copy of the package this client runs (a source
        # checkout, an editable or a regular install), or its code stamp differs and it
        # answers "stale" forever.
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_PKG.parent), env.get("PYTHONPATH", "")) if p)
        with open(rd / "hookd.out", "ab") as log:
            subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=True, start_new_session=True,
                cwd=str(rd), env=env,
            )
    except Exception:
        pass


# --------------------------------------------------------------------------- server


def _lock(path: Path) -> Any:
    import fcntl

    fh = open(path, "a+")  # noqa: SIM115 - held for the server's lifetime
    deadline = time.monotonic() + 2.0
    while True:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fh
        except OSError:
            if time.monotonic() >= deadline:
                fh.close()
                return None
            time.sleep(0.05)


def _read_request(conn: socket.socket) -> dict[str, Any] | None:
    conn.settimeout(5.0)
    buf = bytearray()
    while not buf.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        buf += chunk
        if len(buf) > _MAX_REQUEST:
            return None
    try:
        data = json.loads(buf.decode("utf-8"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _reply(conn: socket.socket, message: Mapping[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
    except OSError:
        pass


def serve(root: str, *, idle_seconds: float = IDLE_SECONDS, warm_workspace: str = "") -> int:
    """Run the server for ``root`` until idle, stale or asked to stop. Returns an exit code."""
    from .hooks import _log, run_hook, warm

    root = os.path.abspath(root)
    rd = run_dir(root)
    rd.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = _lock(rd / "hookd.lock")
    if lock is None:
        return 0  # another server holds the root
    path = socket_path(root)
    Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not _private_dir(os.path.dirname(path)):
        lock.close()
        return 1  # someone else's (or a world-writable) directory: never listen there
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        srv.bind(path)
    finally:
        os.umask(old_umask)
    srv.listen(16)
    srv.settimeout(1.0)
    stamp = code_stamp()
    pid_file = rd / "hookd.json"
    pid_file.write_text(json.dumps({"pid": os.getpid(), "stamp": stamp, "socket": path,
                                    "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}) + "\n")
    if warm_workspace:
        warm(root, warm_workspace)
    last = time.monotonic()
    try:
        while True:
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                if time.monotonic() - last > idle_seconds:
                    return 0
                continue
            except OSError:
                continue
            last = time.monotonic()
            with conn:
                try:
                    req = _read_request(conn)
                except OSError:
                    continue
                if req is None or req.get("v") != PROTOCOL:
                    _reply(conn, {"ok": False, "error": "bad request"})
                    continue
                op = req.get("op")
                if op == "ping":
                    _reply(conn, {"ok": True, "pid": os.getpid(), "stamp": stamp, "root": root})
                elif op == "shutdown":
                    _reply(conn, {"ok": True, "pid": os.getpid()})
                    return 0
                elif op == "hook":
                    if req.get("stamp") != stamp or os.path.abspath(str(req.get("root", ""))) != root:
                        _reply(conn, {"ok": False, "error": "stale"})
                        return 0
                    raw_env = req.get("env")
                    env: dict[str, Any] = raw_env if isinstance(raw_env, dict) else {}
                    out = run_hook(
                        str(req.get("event", "")), str(req.get("stdin", "")), home=root,
                        workspace=req.get("workspace") or None, env={str(k): str(v) for k, v in env.items()},
                        cwd=str(req.get("cwd") or "") or None,
                    )
                    _reply(conn, {"ok": True, "output": out})
                else:
                    _reply(conn, {"ok": False, "error": f"unknown op {op!r}"})
    except Exception as exc:  # pragma: no cover - logged, the next hook call answers in-process
        import traceback

        from ..core.paths import Layout

        _log(Layout.resolve(home=root, workspace=root), f"hook server failed: {exc}\n{traceback.format_exc()}")
        return 1
    finally:
        srv.close()
        try:
            if Path(path).exists():
                os.unlink(path)
        except OSError:
            pass
        try:
            pid_file.unlink()
        except OSError:
            pass
        lock.close()

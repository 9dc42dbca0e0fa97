"""A warm hook server, so ``reasonix-tui hook …`` answers in tens of milliseconds.

A hook is a fresh process per prompt. Importing the recall engine alone (numpy,
rank-bm25, the YAML stack) takes longer than the 0.3 s budget on a modest machine, and
building the recall index for 1k facts takes longer still. So the hook process is a thin
client: it forwards the payload over a Unix socket to a per-state-root server that keeps
the store, its parse cache and the warm recall index in memory, and prints the answer.

* The first hook call finds no server: it starts one in the background
  (``reasonix-tui --home ROOT hook serve``), detached from the agent, with no inherited
  pipes and an **allow-list environment** (:func:`server_env`: what it needs to find
  Python, the store and the settings — never API keys, tokens, the client's sockets or
  its project directory), and answers in-process (same code, slower).
* Each request carries, as data, the few variables that change an answer
  (:func:`request_env`: ``CLAUDE_PROJECT_DIR``, ``CURSOR_PROJECT_DIR``, the
  ``REASONIX_*`` settings…), the client's working directory and which client it is; the
  in-process path answers from the very same view, so both give the same answer.
* Connections are served concurrently (one short-lived thread each, at most
  :data:`MAX_WORKERS`): a slow or silent peer only holds its own thread, for at most
  :data:`READ_DEADLINE` seconds. Answers are computed one at a time (the store and the
  recall index are shared).
* The client never waits more than :data:`CLIENT_TIMEOUT` (about a second) in total on
  a dead, wedged or foreign listener; it reads at most :data:`MAX_REPLY` bytes and
  accepts only a reply that echoes its nonce (the caller then checks the output's shape).
* The server exits after :data:`IDLE_SECONDS` without requests, when asked to
  (``shutdown``), when the installed code changed (the client sends a stamp of the code
  it runs; a server with another stamp replies ``stale`` and exits), when its socket or
  its state root disappears, on ``SIGTERM``/``SIGINT``/``SIGHUP``, and when one answer
  has been computing for :data:`WEDGED_SECONDS` (it cannot be healed from inside). It
  removes its socket and ``hookd.json`` on the way out.
* Only one server runs per state root (an exclusive lock on ``run/hookd.lock``). The
  socket lives in ``<root>/reasonix-tui/run/`` (mode 0700; socket and run files 0600),
  or under ``$TMPDIR/reasonix-tui-<uid>/`` when that path is too long for a Unix socket.
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
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "IDLE_SECONDS",
    "CLIENT_TIMEOUT",
    "READ_DEADLINE",
    "MAX_REPLY",
    "enabled",
    "run_dir",
    "socket_path",
    "code_stamp",
    "request",
    "spawn",
    "serve",
    "status",
    "shutdown",
    "request_env",
    "server_env",
]

IDLE_SECONDS = 1800.0
"""A server with no request for this long exits."""

CLIENT_TIMEOUT = 1.0
"""The longest a hook waits, in total, for the server before answering in-process."""

CONNECT_TIMEOUT = 0.3
"""Of which at most this long for the connection itself."""

READ_DEADLINE = 2.0
"""How long the server gives one connection to deliver its request, in total."""

WEDGED_SECONDS = 30.0
"""An answer still computing after this long means the server is stuck: it exits."""

MAX_WORKERS = 16
"""Connections served at once; more are closed at once (the client answers in-process)."""

MAX_REPLY = 512 * 1024
"""Most bytes a client reads from the socket (our answers stay under 40 KB)."""

PROTOCOL = 2
_MAX_REQUEST = 8 * 1024 * 1024
_TICK = 0.25
_PKG = Path(__file__).resolve().parent.parent
_STAMPED_DIRS = ("core", "core/recall", "core/store", "integrations")

REQUEST_ENV_NAMES = (
    "HOME",
    "USERPROFILE",
    "XDG_CONFIG_HOME",
    "CLAUDE_PROJECT_DIR",
    "CURSOR_PROJECT_DIR",
    "CLAUDE_CONFIG_DIR",
    "REASONIX_HOME",
    "REASONIX_STATE_HOME",
    "REASONIX_EXPERIMENT_NO_MEMORY",
)
"""Variables (besides ``REASONIX_TUI_*``) that can change a hook's answer; a request
carries exactly these, as data."""

SERVER_ENV_NAMES = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "REASONIX_HOME",
    "REASONIX_STATE_HOME",
    "SYSTEMROOT",
)
"""The hook server's whole environment (plus ``LC_*`` and the numeric libraries'
thread and CPU settings): no API keys, tokens, client sockets or project directories."""

_SERVER_ENV_PREFIXES = ("LC_", "OPENBLAS_", "OMP_", "MKL_")


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


def request_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables that change what a hook answers (:data:`REQUEST_ENV_NAMES` and
    ``REASONIX_TUI_*``), sent with each request; the in-process path uses the same view."""
    env = os.environ if env is None else env
    return {k: v for k, v in env.items()
            if k in REQUEST_ENV_NAMES or (k.startswith("REASONIX_TUI_") and k != "REASONIX_TUI_HOOK_DAEMON")}


def server_env(env: Mapping[str, str] | None = None, pythonpath: str = "") -> dict[str, str]:
    """The hook server's environment: an allow-list (:data:`SERVER_ENV_NAMES`), plus a
    ``PYTHONPATH`` that points at this copy of the package."""
    env = os.environ if env is None else env
    out = {k: v for k, v in env.items() if k in SERVER_ENV_NAMES or k.startswith(_SERVER_ENV_PREFIXES)}
    if pythonpath:
        out["PYTHONPATH"] = pythonpath
    return out


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


def _our_socket(path: str) -> bool:
    """True when ``path`` is a socket owned by this user."""
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISSOCK(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == os.getuid())


# --------------------------------------------------------------------------- client


def _exchange(path: str, message: Mapping[str, Any], timeout: float) -> dict[str, Any] | None:
    """One request/reply within ``timeout`` seconds in total; ``None`` on any failure,
    an oversized reply, or a reply that is not a JSON object."""
    deadline = time.monotonic() + timeout
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        sock.settimeout(min(CONNECT_TIMEOUT, timeout))
        sock.connect(path)
        payload = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        sock.settimeout(left)
        sock.sendall(payload)
        buf = bytearray()
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            sock.settimeout(left)
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf += chunk
            if len(buf) > MAX_REPLY:
                return None
        data = json.loads(buf.decode("utf-8"))
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


def request(root: str, message: Mapping[str, Any], timeout: float = CLIENT_TIMEOUT) -> dict[str, Any] | None:
    """Send one request to the server for ``root``; ``None`` when none answers in time,
    or when the listener is not one of ours (wrong owner, no echo of our nonce)."""
    if not enabled():
        return None
    path = socket_path(root)
    if not _private_dir(os.path.dirname(path)) or not _our_socket(path):
        return None
    nonce = os.urandom(8).hex()
    reply = _exchange(path, {**message, "v": PROTOCOL, "nonce": nonce}, timeout)
    if reply is None or reply.get("nonce") != nonce or not isinstance(reply.get("ok"), bool):
        return None
    return reply


ADMIN_TIMEOUT = 3.0
"""How long ``hook stop`` and status checks (a person's commands, not a hook) wait."""


def status(root: str, timeout: float = ADMIN_TIMEOUT) -> dict[str, Any] | None:
    """``{"ok": true, "pid": …, "stamp": …}`` from a running server, else ``None``."""
    return request(root, {"op": "ping"}, timeout)


def shutdown(root: str, timeout: float = ADMIN_TIMEOUT) -> bool:
    """Ask the server for ``root`` to exit; True when one answered."""
    reply = request(root, {"op": "shutdown"}, timeout)
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
        pythonpath = os.pathsep.join(p for p in (str(_PKG.parent), os.environ.get("PYTHONPATH", "")) if p)
        fd = os.open(rd / "hookd.out", os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with open(fd, "ab") as log:
            subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=True, start_new_session=True,
                cwd=str(rd), env=server_env(pythonpath=pythonpath),
            )
    except Exception:
        pass


# --------------------------------------------------------------------------- server


def _lock(path: Path) -> Any:
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    fh = open(fd, "a+")  # noqa: SIM115 - held for the server's lifetime
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


def _read_request(conn: socket.socket, deadline: float) -> dict[str, Any] | None:
    """The request line, read within ``deadline`` (``time.monotonic()``); ``None`` when it
    is late, oversized or not a JSON object."""
    buf = bytearray()
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            break
        buf += chunk
        if len(buf) > _MAX_REQUEST:
            return None
    try:
        data = json.loads(buf.decode("utf-8", "surrogatepass"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _reply(conn: socket.socket, message: Mapping[str, Any]) -> None:
    try:
        conn.settimeout(READ_DEADLINE)
        conn.sendall(json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")
    except OSError:
        pass


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class _Server:
    """One hook server: the accept loop, the worker threads and the exit conditions."""

    def __init__(self, root: str, idle_seconds: float) -> None:
        self.root = root
        self.idle_seconds = idle_seconds
        self.rd = run_dir(root)
        self.path = socket_path(root)
        self.pid_file = self.rd / "hookd.json"
        self.stamp = code_stamp()
        self.stop = threading.Event()
        self.reason = ""
        self.compute = threading.Lock()
        self.busy_since = 0.0
        self.last = time.monotonic()
        self.workers = threading.BoundedSemaphore(MAX_WORKERS)
        self.root_id = _identity(root)
        self.sock_id: tuple[int, int] | None = None
        self.srv: socket.socket | None = None

    # -- lifecycle ------------------------------------------------------------

    def bind(self) -> bool:
        Path(self.path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not _private_dir(os.path.dirname(self.path)):
            return False  # someone else's (or a world-writable) directory: never listen there
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            srv.bind(self.path)
        finally:
            os.umask(old_umask)
        srv.listen(64)
        srv.settimeout(_TICK)
        self.srv = srv
        self.sock_id = _identity(self.path)
        from ..core.store.atomic import atomic_write

        atomic_write(self.pid_file, json.dumps({
            "pid": os.getpid(), "stamp": self.stamp, "socket": self.path,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}) + "\n", mode=0o600, durable=False)
        return True

    def cleanup(self) -> None:
        """Close the socket; remove it and ``hookd.json`` when they are still ours."""
        if self.srv is not None:
            self.srv.close()
        if self.sock_id is not None and _identity(self.path) == self.sock_id:
            try:
                os.unlink(self.path)
            except OSError:
                pass
        try:
            data = json.loads(self.pid_file.read_text(encoding="utf-8"))
            if isinstance(data, dict) and data.get("pid") == os.getpid():
                self.pid_file.unlink()
        except (OSError, ValueError):
            pass

    def end(self, reason: str) -> None:
        if not self.reason:
            self.reason = reason
        self.stop.set()

    def gone(self) -> str:
        """Why the server can no longer be reached or serve its root ("" while it can)."""
        if _identity(self.root) != self.root_id:
            return "state root removed"
        if _identity(self.path) != self.sock_id:
            return "socket removed"
        return ""

    # -- serving --------------------------------------------------------------

    def loop(self) -> None:
        assert self.srv is not None
        while not self.stop.is_set():
            busy = self.busy_since
            if busy and time.monotonic() - busy > WEDGED_SECONDS:
                self.wedged()
            try:
                conn, _ = self.srv.accept()
            except (TimeoutError, socket.timeout):
                if not self.busy_since and time.monotonic() - self.last > self.idle_seconds:
                    self.end("idle")
                elif why := self.gone():
                    self.end(why)
                continue
            except OSError:
                if why := self.gone():
                    self.end(why)
                continue
            self.last = time.monotonic()
            if not self.workers.acquire(blocking=False):
                conn.close()  # too many at once: the client answers in-process
                continue
            threading.Thread(target=self.handle, args=(conn,), daemon=True, name="hookd-conn").start()

    def wedged(self) -> None:
        from ..core.paths import Layout
        from .hooks import _log

        try:
            _log(Layout.resolve(home=self.root, workspace=self.root),
                 f"hook server: an answer has been computing for over {WEDGED_SECONDS:g}s; exiting")
        except Exception:
            pass
        self.cleanup()
        os._exit(3)

    def handle(self, conn: socket.socket) -> None:
        try:
            with conn:
                self.serve_one(conn)
        except Exception:
            pass
        finally:
            self.last = time.monotonic()
            self.workers.release()

    def serve_one(self, conn: socket.socket) -> None:
        try:
            req = _read_request(conn, time.monotonic() + READ_DEADLINE)
        except OSError:
            return
        if req is None or req.get("v") != PROTOCOL:
            _reply(conn, {"ok": False, "error": "bad request"})
            return
        base = {"nonce": req.get("nonce")}
        op = req.get("op")
        if op == "ping":
            _reply(conn, {**base, "ok": True, "pid": os.getpid(), "stamp": self.stamp, "root": self.root})
        elif op == "shutdown":
            _reply(conn, {**base, "ok": True, "pid": os.getpid()})
            self.end("asked to stop")
        elif op == "hook":
            if req.get("stamp") != self.stamp or os.path.abspath(str(req.get("root", ""))) != self.root:
                _reply(conn, {**base, "ok": False, "error": "stale"})
                self.end("stale")
                return
            _reply(conn, {**base, "ok": True, "output": self.answer(req)})
        else:
            _reply(conn, {**base, "ok": False, "error": f"unknown op {op!r}"})

    def answer(self, req: Mapping[str, Any]) -> str:
        from .hooks import run_hook

        raw_env = req.get("env")
        env = {str(k): str(v) for k, v in raw_env.items()} if isinstance(raw_env, dict) else {}
        with self.compute:
            self.busy_since = time.monotonic()
            try:
                return run_hook(
                    str(req.get("event", "")), str(req.get("stdin", "")), home=self.root,
                    workspace=req.get("workspace") or None, env=env, cwd=str(req.get("cwd") or "") or None,
                    client=str(req.get("client") or ""),
                )
            finally:
                self.busy_since = 0.0


def serve(root: str, *, idle_seconds: float = IDLE_SECONDS, warm_workspace: str = "") -> int:
    """Run the server for ``root`` until idle, stale, asked to stop, or cut off from its
    socket or root. Returns an exit code."""
    from ..core.recall.service import serve_live
    from .hooks import _log, warm

    serve_live()  # this process answers many hooks: its stores follow file-system events
    root = os.path.abspath(root)
    server = _Server(root, idle_seconds)
    server.rd.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = _lock(server.rd / "hookd.lock")
    if lock is None:
        return 0  # another server holds the root
    previous: dict[int, Any] = {}
    try:
        if not server.bind():
            return 1
        if threading.current_thread() is threading.main_thread():
            import signal

            for name in ("SIGTERM", "SIGINT", "SIGHUP"):
                sig = getattr(signal, name, None)
                if sig is not None:
                    previous[sig] = signal.signal(sig, lambda signum, frame: server.end(f"signal {signum}"))
        if warm_workspace:
            def warm_up() -> None:
                with server.compute:  # a request that comes meanwhile waits, or answers in-process
                    warm(root, warm_workspace)

            threading.Thread(target=warm_up, daemon=True, name="hookd-warm").start()
        server.loop()
        return 0
    except Exception as exc:  # pragma: no cover - logged, the next hook call answers in-process
        import traceback

        from ..core.paths import Layout

        _log(Layout.resolve(home=root, workspace=root), f"hook server failed: {exc}\n{traceback.format_exc()}")
        return 1
    finally:
        server.cleanup()
        if previous:
            import signal

            for sig, handler in previous.items():
                signal.signal(sig, handler)
        lock.close()

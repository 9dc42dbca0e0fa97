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

The client side lives in :mod:`.hook_client` (it imports nothing heavy). This module is
the server; what it answers is injected (:func:`serve`'s ``answer``, ``log`` and
``warm``), so it never imports the hook module that uses it.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .hook_client import (
    IDLE_SECONDS,
    MAX_REQUEST,
    MAX_WORKERS,
    POLL_TICK,
    PROTOCOL,
    READ_DEADLINE,
    WEDGED_SECONDS,
    code_stamp,
    private_dir,
    read_json_line,
    run_dir,
    socket_path,
)

__all__ = ["serve", "Answer", "Log"]

Answer = Callable[[Mapping[str, Any]], str]
"""Computes a hook request's output (the request as the client sent it); never raises."""
Log = Callable[[str], None]
"""Writes one line to the hook log."""

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

    def __init__(self, root: str, idle_seconds: float, answer: Answer, log: Log) -> None:
        self.root = root
        self.answer_request = answer
        self.log = log
        self.idle_seconds = idle_seconds
        self.rd = run_dir(root)
        self.path = socket_path(root)
        self.pid_file = self.rd / "hookd.json"
        self.stamp = code_stamp()
        self.stop = threading.Event()
        self.reason = ""
        self.compute = threading.Lock()
        self.busy_since = 0.0
        self.warming = False
        """The warm-up runs (a ping says so: ``"warming": true``)."""
        self.last = time.monotonic()
        self.workers = threading.BoundedSemaphore(MAX_WORKERS)
        self.root_id = _identity(root)
        self.sock_id: tuple[int, int] | None = None
        self.srv: socket.socket | None = None

    # -- lifecycle ------------------------------------------------------------

    def bind(self) -> bool:
        Path(self.path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not private_dir(os.path.dirname(self.path)):
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
        srv.settimeout(POLL_TICK)
        self.srv = srv
        self.sock_id = _identity(self.path)
        from ..core.store.atomic import atomic_write

        atomic_write(
            self.pid_file,
            json.dumps(
                {
                    "pid": os.getpid(),
                    "stamp": self.stamp,
                    "socket": self.path,
                    "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
            )
            + "\n",
            mode=0o600,
            durable=False,
        )
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
            except TimeoutError:
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
        try:
            self.log(f"hook server: an answer has been computing for over {WEDGED_SECONDS:g}s; exiting")
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
            req = read_json_line(conn, time.monotonic() + READ_DEADLINE, MAX_REQUEST, surrogates=True)
        except OSError:
            return
        if req is None or req.get("v") != PROTOCOL:
            _reply(conn, {"ok": False, "error": "bad request"})
            return
        base = {"nonce": req.get("nonce")}
        op = req.get("op")
        if op == "ping":
            reply = {"ok": True, "pid": os.getpid(), "stamp": self.stamp, "root": self.root, "warming": self.warming}
            _reply(conn, {**base, **reply})
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
        with self.compute:
            self.busy_since = time.monotonic()
            try:
                return self.answer_request(req)
            finally:
                self.busy_since = 0.0


def serve(
    root: str, answer: Answer, log: Log, *, warm: Callable[[], None] | None = None, idle_seconds: float = IDLE_SECONDS
) -> int:
    """Run the server for ``root`` until idle, stale, asked to stop, or cut off from its
    socket or root, answering each hook request with ``answer`` (one at a time) after
    ``warm`` (if given) ran. Returns an exit code."""
    root = os.path.abspath(root)
    server = _Server(root, idle_seconds, answer, log)
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
        if warm is not None:

            def warm_up() -> None:
                with server.compute:  # a request that comes meanwhile waits, or answers in-process
                    try:
                        warm()
                    finally:
                        server.warming = False

            server.warming = True

            threading.Thread(target=warm_up, daemon=True, name="hookd-warm").start()
        server.loop()
        return 0
    except Exception as exc:  # pragma: no cover - logged, the next hook call answers in-process
        import traceback

        log(f"hook server failed: {exc}\n{traceback.format_exc()}")
        return 1
    finally:
        server.cleanup()
        if previous:
            import signal

            for sig, handler in previous.items():
                signal.signal(sig, handler)
        lock.close()

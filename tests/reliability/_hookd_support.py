"""Helpers for the hook server's reliability tests (``test_hookd_*.py``): start a real
``reasonix-tui hook serve`` process on a temporary state root, stand up a foreign
listener at its socket path, and wait for things without timed assertions."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from cli_exe import exe

from reasonix_tui.integrations import hook_client


def wait_for(check: Callable[[], object], seconds: float = 60.0, step: float = 0.05) -> object:
    """Poll ``check`` until it returns something truthy (bounded); returns the last value."""
    deadline = time.monotonic() + seconds
    value = check()
    while not value and time.monotonic() < deadline:
        time.sleep(step)
        value = check()
    return value


@contextmanager
def running_server(root: Path, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A real hook server for ``root`` (``REASONIX_TUI_HOOK_DAEMON`` must be on in this
    process for :mod:`hook_client`'s client calls); stopped and reaped on exit."""
    e = dict(os.environ if env is None else env)
    e["REASONIX_TUI_HOOK_DAEMON"] = "1"
    proc = subprocess.Popen(
        [*exe(), "--home", str(root), "hook", "serve"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=e,
        start_new_session=True,
    )
    try:
        assert wait_for(lambda: hook_client.status(str(root)) or proc.poll() is not None), "the server did not start"
        assert proc.poll() is None, "the server exited at start"
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


class Peer(threading.Thread):
    """A client that connects and then trickles bytes (never a newline) for at most
    ``seconds``: a slow or stuck same-user peer. ``cut_off`` tells whether the other side
    closed the connection on it first."""

    def __init__(self, path: str, seconds: float = 60.0) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.seconds = seconds
        self.stop = threading.Event()
        self.connected = threading.Event()
        self.cut_off = False

    def run(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.path)
            self.connected.set()
            deadline = time.monotonic() + self.seconds
            while not self.stop.is_set() and time.monotonic() < deadline:
                try:
                    sock.sendall(b" ")
                    sock.settimeout(0.05)
                    try:
                        sock.recv(1 << 16)  # a reply or EOF: the server is done with this connection
                        self.cut_off = True
                        return
                    except TimeoutError:
                        pass
                except OSError:
                    self.cut_off = True
                    return
        finally:
            sock.close()


class Listener(threading.Thread):
    """A foreign listener bound at ``path``: for each connection it reads the request line
    and answers with ``reply(request_bytes)`` (``None``: never answers, holds the
    connection until stopped)."""

    def __init__(self, path: str, reply: Callable[[bytes], bytes | None]) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.reply = reply
        self.stop = threading.Event()
        self.requests: list[bytes] = []
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self.sock.bind(path)
        finally:
            os.umask(old)
        self.sock.listen(8)
        self.sock.settimeout(0.1)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                try:
                    conn, _ = self.sock.accept()
                except TimeoutError:
                    continue
                with conn:
                    conn.settimeout(5)
                    data = b""
                    try:
                        while not data.endswith(b"\n"):
                            chunk = conn.recv(65536)
                            if not chunk:
                                break
                            data += chunk
                    except OSError:
                        continue
                    self.requests.append(data)
                    answer = self.reply(data)
                    if answer is None:
                        self.stop.wait(60)
                        continue
                    try:
                        conn.sendall(answer)
                    except OSError:
                        pass
        finally:
            self.sock.close()
            try:
                os.unlink(self.path)
            except OSError:
                pass

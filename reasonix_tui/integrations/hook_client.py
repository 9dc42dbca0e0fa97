"""The hook client's side of the warm hook server (:mod:`.hookd`): find it, ask it, start it.

A hook is a fresh process per prompt, so it must import nothing heavy: this module uses
``json``, ``socket`` and ``os`` (``hashlib`` and ``pathlib`` only when asked for a long
socket path or the run folder: not on a warm hook's path). It sends a request over the server's
Unix socket and waits at most :data:`CLIENT_TIMEOUT` in total; without an answer the
caller answers in-process and :func:`spawn` starts a server for the next prompt.
Requests carry, as data, the few variables that change an answer (:func:`request_env`);
the server starts with an allow-list environment (:func:`server_env`).
``REASONIX_TUI_HOOK_DAEMON=0`` turns the server off.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

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
    "status",
    "shutdown",
    "request_env",
    "server_env",
    "read_json_line",
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
MAX_REQUEST = 8 * 1024 * 1024
"""Largest request line the server reads (bytes)."""
POLL_TICK = 0.25
"""How often the server's accept loop looks at its exit conditions (seconds)."""
_PKG = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
_STAMPED_DIRS = ("core", "integrations")
"""Folders whose ``.py`` files (sub-folders included) make the code stamp."""

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
    from pathlib import Path  # not at import: a hook's warm path needs only strings

    return Path(root) / "reasonix-tui" / "run"


def socket_path(root: str | os.PathLike[str]) -> str:
    """Where the server for ``root`` listens."""
    path = os.path.join(os.fspath(root), "reasonix-tui", "run", "hookd.sock")
    if len(path.encode()) <= 100:
        return path
    import hashlib

    digest = hashlib.sha256(os.path.abspath(os.fspath(root)).encode("utf-8", "surrogatepass")).hexdigest()[:20]
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"reasonix-tui-{uid}", f"{digest}.sock")


def code_stamp() -> str:
    """A cheap fingerprint of the installed code (version + newest source mtime)."""
    newest = 0
    count = 0
    pending = [os.path.join(_PKG, sub) for sub in _STAMPED_DIRS]
    while pending:
        try:
            with os.scandir(pending.pop()) as it:
                for entry in it:
                    if entry.name.endswith(".py"):
                        count += 1
                        newest = max(newest, entry.stat().st_mtime_ns)
                    elif entry.name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
        except OSError:
            continue
    from .. import __version__

    return f"{__version__}:{count}:{newest}"


def request_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables that change what a hook answers (:data:`REQUEST_ENV_NAMES` and
    ``REASONIX_TUI_*``), sent with each request; the in-process path uses the same view."""
    env = os.environ if env is None else env
    return {
        k: v
        for k, v in env.items()
        if k in REQUEST_ENV_NAMES or (k.startswith("REASONIX_TUI_") and k != "REASONIX_TUI_HOOK_DAEMON")
    }


def server_env(env: Mapping[str, str] | None = None, pythonpath: str = "") -> dict[str, str]:
    """The hook server's environment: an allow-list (:data:`SERVER_ENV_NAMES`), plus a
    ``PYTHONPATH`` that points at this copy of the package."""
    env = os.environ if env is None else env
    out = {k: v for k, v in env.items() if k in SERVER_ENV_NAMES or k.startswith(_SERVER_ENV_PREFIXES)}
    if pythonpath:
        out["PYTHONPATH"] = pythonpath
    return out


def private_dir(directory: str) -> bool:
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
        return read_json_line(sock, deadline, MAX_REPLY)
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


def read_json_line(
    sock: socket.socket, deadline: float, limit: int, *, surrogates: bool = False
) -> dict[str, Any] | None:
    """One JSON object on one line, read within ``deadline`` (``time.monotonic()``); ``None``
    when it is late, longer than ``limit`` bytes or not a JSON object (``OSError`` passes)."""
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
        if len(buf) > limit:
            return None
    try:
        data = json.loads(buf.decode("utf-8", "surrogatepass" if surrogates else "strict"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def request(root: str, message: Mapping[str, Any], timeout: float = CLIENT_TIMEOUT) -> dict[str, Any] | None:
    """Send one request to the server for ``root``; ``None`` when none answers in time,
    or when the listener is not one of ours (wrong owner, no echo of our nonce)."""
    if not enabled():
        return None
    path = socket_path(root)
    if not private_dir(os.path.dirname(path)) or not _our_socket(path):
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
        pythonpath = os.pathsep.join(p for p in (os.path.dirname(_PKG), os.environ.get("PYTHONPATH", "")) if p)
        fd = os.open(rd / "hookd.out", os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with open(fd, "ab") as log:
            subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                close_fds=True,
                start_new_session=True,
                cwd=str(rd),
                env=server_env(pythonpath=pythonpath),
            )
    except Exception:
        pass

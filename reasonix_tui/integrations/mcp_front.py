"""``reasonix-tui mcp``: a thin stdio front that is ready on the client's first turn.

Importing the MCP SDK's server modules takes about two seconds on a modest machine, and
clients do not wait for it: Codex's first model request went out without the memory
tools, and Claude Code's discovery probe timed out and retried. So the process answers
the handshake itself, from static data (:mod:`.mcp_tools`), in milliseconds:

* ``initialize`` (protocol negotiated as the SDK does), ``ping``, ``tools/list``,
  ``prompts/list``, ``resources/list`` and ``resources/templates/list``;
* a line that is not JSON gets a JSON-RPC parse error; lone UTF-16 surrogates
  (``"\\ud800"``) in a message are replaced with U+FFFD before it goes further.

Meanwhile a background thread imports the SDK and starts the real server
(:mod:`.mcp_server`) on a pair of pipes. The front replays the client's own
``initialize`` to it (under an id of its own, whose reply it drops), then relays every
other message (tool calls, notifications, cancellations, replies to the server's
requests) both ways, unchanged. A client whose first message is not ``initialize`` (for
example the stateless ``server/discover`` era) is relayed to the SDK from the start.

stdout is the JSON-RPC channel: at start, fd 1 is pointed at stderr and fd 0 at the null
device, so a stray print or a child process cannot corrupt or steal the channel.

``REASONIX_TUI_MCP_FRONT=0`` runs the SDK server directly (the old, slow start).
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from collections.abc import Sequence
from typing import IO, Any

from . import mcp_tools
from .fast_args import leading_globals

__all__ = ["STATIC_METHODS", "Front", "run", "fast_main", "scrub"]

STATIC_METHODS = ("initialize", "ping", "tools/list", "prompts/list", "resources/list", "resources/templates/list")
"""Requests the front answers itself."""

_REPLAY_ID = "reasonix-tui-front-initialize"
_LONE = __import__("re").compile("[\ud800-\udfff]")


def scrub(value: Any) -> Any:
    """``value`` with lone surrogates in every string replaced by U+FFFD (JSON allows
    ``"\\ud800"``; nothing downstream can encode it)."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value) if _LONE.search(value) else value
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    return value


def _version() -> str:
    from .. import __version__

    return __version__


class Front:
    """The stdio front: reads the client, answers the handshake, relays the rest."""

    def __init__(
        self, workspace: str | None, home: str | None, max_wait: float, stdin: IO[bytes], stdout: IO[bytes]
    ) -> None:
        self.workspace = workspace
        self.home = home
        self.max_wait = max_wait
        self.stdin = stdin
        self.stdout = stdout
        self.out_lock = threading.Lock()
        self.to_backend: queue.Queue[bytes | None] = queue.Queue()
        self.relay_all = False
        """Every message goes to the SDK (the client did not start with ``initialize``)."""
        self.first = True
        self.backend_failed = ""
        self.backend_done = threading.Event()
        self.pending_ids: set[Any] = set()
        """Requests relayed to the SDK and not yet answered (answered with an error if it fails)."""
        self.pending_lock = threading.Lock()

    # -- output ---------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        self.write_line(json.dumps(message, ensure_ascii=False).encode("utf-8"))

    def write_line(self, line: bytes) -> None:
        with self.out_lock:
            try:
                self.stdout.write(line.rstrip(b"\n") + b"\n")
                self.stdout.flush()
            except (OSError, ValueError):
                pass

    def error(self, msg_id: Any, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

    # -- the client -----------------------------------------------------------

    def serve(self) -> int:
        backend = threading.Thread(target=self.backend_main, name="mcp-backend", daemon=True)
        backend.start()
        try:
            while True:
                line = self.stdin.readline()
                if not line:
                    break
                if line.strip():
                    self.handle(line)
        finally:
            self.to_backend.put(None)  # EOF for the SDK server
        with self.pending_lock:
            waiting = bool(self.pending_ids)
        if waiting:  # let relayed requests finish (the SDK exits at the end of its input)
            self.backend_done.wait(60)
        return 0

    def handle(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self.error(None, -32700, "Parse error")
            return
        if isinstance(message, dict):
            cleaned = scrub(message)
            if cleaned != message or _LONE.search(line.decode("utf-8", "replace")):
                line = json.dumps(cleaned, ensure_ascii=False).encode("utf-8")
            message = cleaned
        method = message.get("method") if isinstance(message, dict) else None
        msg_id = message.get("id") if isinstance(message, dict) else None
        is_request = isinstance(method, str) and msg_id is not None
        if self.first:
            self.first = False
            # Not the legacy handshake (e.g. the stateless `server/discover` era): the SDK handles it all.
            self.relay_all = not (is_request and method == "initialize")
        if not self.relay_all and is_request and method in STATIC_METHODS:
            if method == "initialize":
                params = message.get("params") if isinstance(message.get("params"), dict) else {}
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": msg_id,
                        "result": mcp_tools.initialize_result(params.get("protocolVersion"), _version()),
                    }
                )
                replay = {"jsonrpc": "2.0", "id": _REPLAY_ID, "method": "initialize", "params": params}
                self.to_backend.put(json.dumps(replay, ensure_ascii=False).encode("utf-8"))
                return
            self.send({"jsonrpc": "2.0", "id": msg_id, "result": self.static_result(method)})
            return
        if self.backend_failed:
            if is_request:
                self.error(msg_id, -32603, self.backend_failed)
            return
        if is_request:
            with self.pending_lock:
                self.pending_ids.add(msg_id)
        self.to_backend.put(line)

    @staticmethod
    def static_result(method: str) -> dict[str, Any]:
        if method == "tools/list":
            return {"tools": mcp_tools.tools()}
        if method == "prompts/list":
            return {"prompts": []}
        if method == "resources/list":
            return {"resources": []}
        if method == "resources/templates/list":
            return {"resourceTemplates": []}
        return {}

    # -- the SDK server ---------------------------------------------------------

    def backend_main(self) -> None:
        """Import the SDK, then serve it the messages the front relays, on two pipes."""
        try:
            from . import mcp_server

            server = mcp_server.build_server(self.workspace, self.home, max_wait=self.max_wait, prewarm=True)
            in_r, in_w = os.pipe()
            out_r, out_w = os.pipe()
            threading.Thread(target=self.feed, args=(in_w,), name="mcp-feed", daemon=True).start()
            threading.Thread(target=self.pump, args=(out_r,), name="mcp-pump", daemon=True).start()
            mcp_server.serve_pipes(server, in_r, out_w)
        except BaseException as exc:  # noqa: BLE001 - reported to the client, never a silent hang
            self.fail(f"reasonix-tui MCP server could not start: {type(exc).__name__}: {exc}")
        finally:
            self.backend_done.set()

    def fail(self, message: str) -> None:
        self.backend_failed = message
        with self.pending_lock:
            ids, self.pending_ids = list(self.pending_ids), set()
        for msg_id in ids:
            self.error(msg_id, -32603, message)
        while True:  # whatever was queued and not yet relayed
            try:
                line = self.to_backend.get_nowait()
            except queue.Empty:
                break
            if line is None:
                continue
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") not in (None, _REPLAY_ID) and message.get("method"):
                self.error(message["id"], -32603, self.backend_failed)

    def feed(self, fd: int) -> None:
        """Front → SDK: queued lines into the SDK's stdin pipe (blocking is fine here)."""
        with os.fdopen(fd, "wb", buffering=0) as pipe:
            while True:
                line = self.to_backend.get()
                if line is None:
                    return
                try:
                    pipe.write(line.rstrip(b"\n") + b"\n")
                except OSError:
                    return

    def pump(self, fd: int) -> None:
        """SDK → client: every line, except the reply to the replayed ``initialize``."""
        with os.fdopen(fd, "rb") as pipe:
            for line in pipe:
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if isinstance(message, dict):
                    if message.get("id") == _REPLAY_ID:
                        continue
                    if "method" not in message:
                        with self.pending_lock:
                            self.pending_ids.discard(message.get("id"))
                self.write_line(line)


def _claim_stdio() -> tuple[IO[bytes], IO[bytes]]:
    """Private handles on the real stdin/stdout; fd 0 becomes the null device and fd 1
    stderr, so nothing else can read the client's messages or write onto the channel."""
    sys.stdout.flush()
    real_in = os.dup(0)
    real_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(real_in, "rb", buffering=0), os.fdopen(real_out, "wb", buffering=0)


def run(workspace: str | None = None, home: str | None = None, *, max_wait: float = 45.0) -> int:
    """Serve on stdio until the client disconnects."""
    if os.environ.get("REASONIX_TUI_MCP_FRONT", "").strip().lower() in ("0", "false", "off", "no"):
        from .mcp_server import run as sdk_run

        return sdk_run(workspace, home, max_wait=max_wait)
    stdin, stdout = _claim_stdio()
    return Front(workspace, home, max_wait, stdin, stdout).serve()


def fast_main(argv: Sequence[str]) -> int | None:
    """``[--home H] [--workspace W] mcp [--workspace W] [--max-wait S]`` without the full
    CLI (which imports the store); ``None`` for anything else, so the caller falls back."""
    mcp_workspace: str | None = None
    max_wait = 45.0
    args = list(argv)
    home, workspace, i = leading_globals(args)
    if args[i : i + 1] != ["mcp"]:
        return None
    i += 1
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help", "--version", "--demo"):
            return None
        if a in ("--workspace", "--max-wait") and i + 1 < len(args):
            if a == "--workspace":
                mcp_workspace = args[i + 1]
            else:
                try:
                    max_wait = float(args[i + 1])
                except ValueError:
                    return None
            i += 2
            continue
        elif a.startswith(("--workspace=", "--max-wait=")):
            key, value = a.split("=", 1)
            if key == "--workspace":
                mcp_workspace = value
            else:
                try:
                    max_wait = float(value)
                except ValueError:
                    return None
        else:
            return None
        i += 1
    return run(mcp_workspace or workspace, home, max_wait=max_wait)

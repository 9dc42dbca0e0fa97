"""A loopback stand-in for a model API, for driving the real Claude Code and Codex CLIs
without an API key (used by ``scripts/real_clients_check.py``).

It speaks just enough of Anthropic's Messages API (``POST /v1/messages``, streamed or
not) and OpenAI's Responses API (``POST /v1/responses``, streamed) for a client to run
one turn: every request is logged as JSON (method, path, body), and the reply follows a
script — a list of actions popped by the client's *main* requests (the ones that offer
tools): ``{"tool": NAME, "input": {...}}`` makes the model call that tool, anything else
(or an empty script) ends the turn with a short text. Side requests (titles, quota
probes: no tools offered) get a plain text reply.

Loopback only (127.0.0.1); it stops with :meth:`FakeModel.stop`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeModel"]

_ids = itertools.count(1)


class FakeModel:
    """A scripted model server on ``127.0.0.1:<port>``."""

    def __init__(self, script: Iterable[dict[str, Any]] = (), final_text: str = "Done.") -> None:
        self.script: list[dict[str, Any]] = list(script)
        self.final_text = final_text
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                owner._log(self, None)
                if self.path.rstrip("/").endswith("/models"):
                    self._json({"data": [{"id": "fake-model", "object": "model"}], "models": []})
                else:
                    self._json({})

            def do_HEAD(self) -> None:  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                owner._log(self, body)
                path = self.path.split("?", 1)[0]
                if path.endswith("/messages/count_tokens"):
                    self._json({"input_tokens": 10})
                elif path.endswith("/messages"):
                    owner._anthropic(self, body)
                elif path.endswith("/responses"):
                    owner._openai(self, body)
                else:
                    self._json({})

            def _json(self, data: Any, status: int = 200) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._handler = Handler
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, name="fake-model", daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeModel:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------------ internals

    def _log(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        with self._lock:
            self.requests.append({"method": handler.command, "path": handler.path, "body": body})

    def _next_action(self, body: dict[str, Any]) -> dict[str, Any] | None:
        if not body.get("tools"):
            return None
        with self._lock:
            return self.script.pop(0) if self.script else None

    @staticmethod
    def _sse(handler: BaseHTTPRequestHandler, events: list[tuple[str | None, dict[str, Any]]]) -> None:
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        payload = "".join(chunks).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _anthropic(self, handler: Any, body: dict[str, Any]) -> None:
        action = self._next_action(body)
        msg_id = f"msg_{next(_ids)}"
        model = body.get("model", "fake-model")
        if action and action.get("tool"):
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_{next(_ids):04d}",
                "name": action["tool"],
                "input": action.get("input", {}),
            }
            stop = "tool_use"
        else:
            text = (action or {}).get("text") or (self.final_text if body.get("tools") else "ok")
            block = {"type": "text", "text": text}
            stop = "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream"):
            handler._json(
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [block],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                }
            )
            return
        start_block = dict(block, input={}) if block["type"] == "tool_use" else dict(block, text="")
        delta = (
            {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            if block["type"] == "tool_use"
            else {"type": "text_delta", "text": block["text"]}
        )
        self._sse(
            handler,
            [
                (
                    "message_start",
                    {
                        "type": "message_start",
                        "message": {
                            "id": msg_id,
                            "type": "message",
                            "role": "assistant",
                            "model": model,
                            "content": [],
                            "stop_reason": None,
                            "stop_sequence": None,
                            "usage": usage,
                        },
                    },
                ),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start_block}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ],
        )

    def _openai(self, handler: Any, body: dict[str, Any]) -> None:
        action = self._next_action(body)
        resp_id = f"resp_{next(_ids)}"
        if action and action.get("tool"):
            item: dict[str, Any] = {
                "type": "function_call",
                "id": f"fc_{next(_ids)}",
                "call_id": f"call_{next(_ids)}",
                "name": action["tool"],
                "arguments": json.dumps(action.get("input", {})),
                "status": "completed",
            }
        else:
            text = (action or {}).get("text") or self.final_text
            item = {
                "type": "message",
                "id": f"msg_{next(_ids)}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        response = {
            "id": resp_id,
            "object": "response",
            "status": "completed",
            "model": body.get("model", "fake"),
            "output": [item],
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "total_tokens": 15,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }
        events: list[tuple[str | None, dict[str, Any]]] = [
            (
                "response.created",
                {"type": "response.created", "response": dict(response, status="in_progress", output=[])},
            ),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
        ]
        if item["type"] == "message":
            events.append(
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": 0,
                        "content_index": 0,
                        "delta": item["content"][0]["text"],
                    },
                )
            )
        events += [
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": response}),
        ]
        self._sse(handler, events)

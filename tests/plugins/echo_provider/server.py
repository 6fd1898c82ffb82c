"""EchoServer: the echo provider's loopback backend, played from Reply / Fault script steps.

The echo wire ("echo/1"), a toy HTTP/JSON dialect:

* ``POST /v1/echo:stream`` with JSON ``{"model", "system", "history", "tools",
  "tool_choice", "max_tokens", "thinking", "format"}`` and ``Authorization: Bearer KEY``;
* success: HTTP 200, chunked ``application/x-ndjson``, one JSON event per line:
  ``begin`` (``usage.prompt`` = ALL prompt tokens, ``usage.cached``), ``thought`` pieces
  and one ``thought_seal``, ``text`` pieces, ``call_start`` / ``call_args`` pieces per tool
  call, ``finish`` (``stop`` and the final ``usage`` with ``completion`` / ``reasoning``);
* failure before the stream: an HTTP status with ``{"error": {"code", "message"}}`` and a
  ``Retry-After`` header; mid-stream: an ``error`` event, or the connection cut;
* a request whose tool results answer no call of the previous assistant turn gets a 400
  without consuming a script step.

A stdlib ``ThreadingHTTPServer`` on 127.0.0.1 in a daemon thread: nothing here depends on
the toolkit's own emulator.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from doc_processing_toolkit.testing.script import Fault, Reply, ScriptStep

__all__ = ["STREAM_PATH", "EchoServer", "RecordedEchoRequest"]

STREAM_PATH = "/v1/echo:stream"

_CODES = {400: "bad_request", 401: "unauthenticated", 404: "not_found", 429: "rate_limited"}


def _code(status: int) -> str:
    return _CODES.get(status, "unavailable" if status >= 500 else "bad_request")


def _id(prefix: str) -> str:
    return prefix + secrets.token_hex(8)


class RecordedEchoRequest:
    """One request the server received."""

    __slots__ = ("body", "headers", "path")

    def __init__(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> None:
        self.path = path
        self.headers = headers
        self.body = body


def _pieces(text: str, size: int) -> Iterator[str]:
    size = max(size, 1)
    for start in range(0, len(text), size):
        yield text[start : start + size]


def reply_events(reply: Reply, model: str) -> Iterator[dict[str, Any]]:
    """The echo events of one scripted reply."""
    prompt = reply.input_tokens + reply.cache_read_tokens
    yield {
        "event": "begin",
        "id": _id("echo_"),
        "model": reply.model or model,
        "usage": {"prompt": prompt, "cached": reply.cache_read_tokens},
    }
    for block in reply.thinking:
        for piece in _pieces(block.text, reply.chunk_size):
            yield {"event": "thought", "text": piece}
        yield {"event": "thought_seal", "seal": block.signature or _id("seal_")}
    for piece in _pieces(reply.text, reply.chunk_size):
        yield {"event": "text", "text": piece}
    for call in reply.tool_calls:
        call_id = call.id or _id("call_")
        yield {"event": "call_start", "id": call_id, "name": call.name}
        for piece in _pieces(json.dumps(call.arguments), max(reply.chunk_size, 4)):
            yield {"event": "call_args", "id": call_id, "delta": piece}
    stop = reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")
    yield {
        "event": "finish",
        "stop": stop,
        "usage": {
            "prompt": prompt,
            "cached": reply.cache_read_tokens,
            "completion": reply.output_tokens,
            "reasoning": reply.reasoning_tokens,
        },
    }


def validate(body: dict[str, Any]) -> str | None:
    """Why the echo API refuses ``body`` (None: it does not)."""
    history = body.get("history")
    if not isinstance(body.get("model"), str) or not isinstance(history, list) or not history:
        return "model and a non-empty history are required"
    for index, message in enumerate(history):
        items = message.get("items") if isinstance(message, dict) else None
        if not isinstance(items, list):
            return f"history.{index}: items must be a list"
        answered = [i["result"]["call_id"] for i in items if isinstance(i, dict) and "result" in i]
        if answered:
            previous = history[index - 1].get("items", []) if index else []
            calls = {i["call"]["id"] for i in previous if isinstance(i, dict) and "call" in i}
            if set(answered) - calls:
                return f"history.{index}: results answer no call of the previous turn"
    return None


class EchoServer:
    """The echo provider on loopback; use as ``with EchoServer() as server``."""

    def __init__(self, script: Sequence[ScriptStep] = ()) -> None:
        self._lock = threading.Lock()
        self._script: deque[ScriptStep] = deque(script)
        self._requests: list[RecordedEchoRequest] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Self:
        """Serve on a free 127.0.0.1 port (idempotent)."""
        if self._httpd is None:
            httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
            httpd.daemon_threads = True
            self._httpd = httpd
            self._thread = threading.Thread(
                target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        httpd, thread = self._httpd, self._thread
        self._httpd = self._thread = None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self._httpd is None:
            raise RuntimeError("the echo server is not running")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    # -- script and log ------------------------------------------------------------------

    def reset(self, script: Sequence[ScriptStep] = ()) -> None:
        """Replace the script and forget recorded requests."""
        with self._lock:
            self._script = deque(script)
            self._requests.clear()

    def push(self, *steps: ScriptStep) -> None:
        """Append steps."""
        with self._lock:
            self._script.extend(steps)

    @property
    def requests(self) -> list[RecordedEchoRequest]:
        """Requests received since the last reset."""
        with self._lock:
            return list(self._requests)

    def _record(self, request: RecordedEchoRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_step(self) -> ScriptStep | None:
        with self._lock:
            return self._script.popleft() if self._script else None


def _handler_for(server: EchoServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_EchoHandler):
        echo = server

    return Handler


class _EchoHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    echo: EchoServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.echo._record(RecordedEchoRequest(self.path, headers, body))
        if self.path != STREAM_PATH:
            self._error(404, "no such route")
            return
        problem = validate(body)
        if problem is not None:
            self._error(400, problem)
            return
        step = self.echo._next_step()
        if step is None:
            self._error(500, "echo script exhausted")
        elif isinstance(step, Fault):
            self._fault(step, str(body["model"]))
        else:
            self._stream(reply_events(step, str(body["model"])))

    # -- responses -----------------------------------------------------------------------

    def _error(self, status: int, message: str, retry_after: float | None = None) -> None:
        payload = json.dumps({"error": {"code": _code(status), "message": message}}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.send_header("x-echo-request-id", _id("req_"))
        self.send_header("connection", "close")
        if retry_after is not None:
            self.send_header("retry-after", f"{retry_after:g}")
        self.end_headers()
        self.wfile.write(payload)
        self.close_connection = True

    def _begin_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/x-ndjson")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("x-echo-request-id", _id("req_"))
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

    def _chunk(self, event: dict[str, Any]) -> None:
        data = (json.dumps(event) + "\n").encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _stream(self, events: Iterator[dict[str, Any]]) -> None:
        self._begin_stream()
        for event in events:
            self._chunk(event)
        self.wfile.write(b"0\r\n\r\n")

    def _fault(self, fault: Fault, model: str) -> None:
        if fault.kind == "status":
            retry = fault.retry_after
            if retry is None and fault.retry_after_ms is not None:
                retry = fault.retry_after_ms / 1000
            self._error(fault.status, fault.message, retry)
            return
        self._begin_stream()
        partial = Reply(fault.partial_text, input_tokens=fault.input_tokens)
        for event in reply_events(partial, model):
            if event["event"] == "finish":
                break
            self._chunk(event)
        if fault.kind == "disconnect":
            self.wfile.write(b'ff\r\n{"event": "te')  # half a chunk, then the cut
            self.wfile.flush()
            return
        code = fault.error_type or "overloaded"
        self._chunk({"event": "error", "error": {"code": code, "message": fault.message}})
        self.wfile.write(b"0\r\n\r\n")

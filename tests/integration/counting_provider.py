"""An independent fake Anthropic Messages API for the fleet crash tests: a small loopback
HTTP server (the standard library's, in a thread) that counts every request it receives
and every answer it finishes, and serves each one an Anthropic-shaped SSE stream.

It shares no code with the toolkit (not the ProviderEmulator, not the ledger), so what it
counts is what a provider would bill. ``on_answer(n, job)`` runs after the n-th answer
has been written and flushed (a test kills its worker there: between a provider's answer
and the worker's checkpoint of it).
"""

from __future__ import annotations

import collections
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_JOB = re.compile(r"job ([\w-]+)")

INPUT_TOKENS = 120
OUTPUT_TOKENS = 15


def _events(job: str) -> bytes:
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": f"msg_{job}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-5-5",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": f"Done: {job}."},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": OUTPUT_TOKENS},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()


class CountingProvider:
    """The fake provider (a context manager: started on enter, stopped on exit)."""

    def __init__(
        self,
        *,
        answer_delay: float = 0.0,
        on_answer: Callable[[int, str], None] | None = None,
    ) -> None:
        self.answer_delay = answer_delay
        self.on_answer = on_answer
        self.received: list[str] = []
        """The job of every request received, in arrival order."""
        self.answered: list[str] = []
        """The job of every answer written in full."""
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def per_job(self) -> collections.Counter[str]:
        """Requests received per job."""
        with self._lock:
            return collections.Counter(self.received)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def handle(self) -> None:
                try:
                    super().handle()
                except ConnectionError:  # the worker was killed mid-request
                    pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                found = _JOB.search(json.dumps(body.get("messages")))
                job = found.group(1) if found else "?"
                with provider._lock:
                    provider.received.append(job)
                    provider.in_flight += 1
                    provider.max_in_flight = max(provider.max_in_flight, provider.in_flight)
                try:
                    if provider.answer_delay:
                        time.sleep(provider.answer_delay)
                    data = _events(job)
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                finally:
                    with provider._lock:
                        provider.in_flight -= 1
                with provider._lock:
                    provider.answered.append(job)
                    count = len(provider.answered)
                if provider.on_answer is not None:
                    provider.on_answer(count, job)

        return Handler

    def __enter__(self) -> CountingProvider:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

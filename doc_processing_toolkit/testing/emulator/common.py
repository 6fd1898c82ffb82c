"""What every wire dialect of the emulator shares: the script, the request log, ids, SSE.

A dialect is a set of routes (`DialectRoute`) whose handlers take an
`EmulatorCall` and return a starlette response built from the next script step.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import string
import threading
import time
from collections import deque
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from doc_processing_toolkit.testing.emulator.batch_store import BatchStore
from doc_processing_toolkit.testing.emulator.files_store import FileStore
from doc_processing_toolkit.testing.script import Fault, Reply, ScriptStep

__all__ = [
    "EXHAUSTED_MESSAGE",
    "MALFORMED_LINE",
    "MID_STREAM_TAILS",
    "DeliberateDisconnect",
    "DialectRoute",
    "EmulatorCall",
    "EmulatorState",
    "Handler",
    "RecordedRequest",
    "StreamRecord",
    "chunk_text",
    "epoch_iso_z",
    "fault_tail",
    "install_disconnect_log_filter",
    "iso_z",
    "new_id",
    "sse_event",
    "without_key",
]

EXHAUSTED_MESSAGE = "emulator script exhausted: push() more steps or give the emulator a default"

_ALPHABET = string.ascii_letters + string.digits


def new_id(prefix: str, length: int = 24) -> str:
    """A provider-looking id: ``toolu_...``, ``msg_...``, ``req_...``."""
    return prefix + "".join(secrets.choice(_ALPHABET) for _ in range(length))


def chunk_text(text: str, size: int) -> Iterator[str]:
    """``text`` in pieces of ``size`` characters (at least one character each)."""
    size = max(size, 1)
    for start in range(0, len(text), size):
        yield text[start : start + size]


def sse_event(event: str | None, data: Mapping[str, Any] | str) -> bytes:
    """One server-sent event; ``event`` None gives a data-only event."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {payload}\n\n".encode()


MALFORMED_LINE = (
    b"event: content_block_delta\n"
    b'data: {"type": "content_block_delta", "delta": {"text": "unterminated\n\n'
)
"""A data line whose JSON does not parse (the ``malformed`` fault)."""

MID_STREAM_TAILS = frozenset({"disconnect", "malformed", "stall", "truncate"})
"""Fault kinds that end a started 200 stream without the dialect's error event."""


async def fault_tail(fault: Fault, keepalive: bytes) -> AsyncIterator[bytes]:
    """How a started 200 stream ends for a mid-stream ``fault`` (after the partial text).

    ``disconnect`` cuts the connection; ``malformed`` sends `MALFORMED_LINE` and
    ends; ``stall`` sends nothing but ``keepalive`` every ``fault.keepalive_interval``
    seconds (nothing at all when None) for ``fault.stall_seconds``, then cuts the
    connection; ``truncate`` ends cleanly with no terminal event. ``stream_error``
    yields nothing (the dialect sends its error event).
    """
    if fault.kind == "disconnect":
        raise DeliberateDisconnect("scripted disconnect")
    if fault.kind == "malformed":
        yield MALFORMED_LINE
    elif fault.kind == "stall":
        deadline = time.monotonic() + fault.stall_seconds
        step = fault.keepalive_interval
        while (left := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(left, step) if step else left)
            if step and deadline - time.monotonic() > 0:
                yield keepalive
        raise DeliberateDisconnect("scripted stall ended")


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the emulator received."""

    dialect: str
    """The wire dialect that served it (``anthropic``, ...)."""
    path: str
    """The URL path."""
    headers: dict[str, str]
    """Request headers, names lower-cased."""
    body: dict[str, Any]
    """The decoded JSON body ({} when there was none)."""
    client_port: int | None = None
    """The client's TCP port: requests on one kept-alive connection share it."""


@dataclass(slots=True)
class StreamRecord:
    """How one streamed response went (mutable: the server thread updates it)."""

    path: str
    """The URL path of the request."""
    chunks_sent: int = 0
    """Body chunks (SSE events) handed to the connection."""
    completed: bool = False
    """The body ran to its end."""
    closed_by_client: bool = False
    """The client went away (closed the connection) before the body ended."""


class EmulatorState:
    """The script and the request log, shared between the server thread and the test."""

    def __init__(self, script: Sequence[ScriptStep] = (), default: Reply | None = None) -> None:
        self._lock = threading.Lock()
        self._script: deque[ScriptStep] = deque(script)
        self._requests: list[RecordedRequest] = []
        self._streams: list[StreamRecord] = []
        self.default = default
        self.responder: Callable[[dict[str, Any]], ScriptStep | None] | None = None
        """Answers a request from its JSON body before the script is consulted (None from
        it: the script answers). Requests of many concurrent runs get their own reply."""
        self.files = FileStore()
        """The Files API store (uploads outlive `reset`)."""
        self.skills: dict[str, list[tuple[str, bytes]]] = {}
        """Custom skills created (``POST /v1/skills``): id -> the uploaded files."""
        self.batches = BatchStore()
        """The provider batches (they outlive `reset`)."""

    def next_step(self, body: dict[str, Any] | None = None) -> ScriptStep | None:
        """The responder's step for ``body``, else consume the next step; the default reply
        when the script is exhausted, else None."""
        responder = self.responder
        if responder is not None and body is not None:
            step = responder(body)
            if step is not None:
                return step
        with self._lock:
            if self._script:
                return self._script.popleft()
            return self.default

    def push(self, *steps: ScriptStep) -> None:
        """Append steps to the script."""
        with self._lock:
            self._script.extend(steps)

    def record(self, request: RecordedRequest) -> None:
        """Log one received request."""
        with self._lock:
            self._requests.append(request)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the request log."""
        with self._lock:
            return list(self._requests)

    def track(self, path: str, body: AsyncIterable[Any]) -> AsyncIterator[Any]:
        """Wrap a streaming body so its fate lands in `streams`."""
        record = StreamRecord(path)
        with self._lock:
            self._streams.append(record)

        async def tracked() -> AsyncIterator[Any]:
            try:
                async for chunk in body:
                    with self._lock:
                        record.chunks_sent += 1
                    yield chunk
            except (GeneratorExit, asyncio.CancelledError, OSError):
                with self._lock:
                    record.closed_by_client = True
                raise
            with self._lock:
                record.completed = True

        return tracked()

    @property
    def streams(self) -> list[StreamRecord]:
        """Every streamed response so far, in order (copies)."""
        with self._lock:
            return [replace(r) for r in self._streams]

    @property
    def remaining(self) -> int:
        """Script steps not yet consumed."""
        with self._lock:
            return len(self._script)

    def reset(self, script: Sequence[ScriptStep] = ()) -> None:
        """Forget the log and replace the script."""
        with self._lock:
            self._script = deque(script)
            self._requests.clear()
            self._streams.clear()


@dataclass(frozen=True, slots=True)
class EmulatorCall:
    """One request as a dialect handler sees it."""

    request: Request
    """The starlette request."""
    body: dict[str, Any]
    """The decoded JSON body."""
    state: EmulatorState
    """The shared script (call `next_step` to consume a step)."""
    path_params: dict[str, Any] = field(default_factory=dict)
    """Route parameters (e.g. a Gemini model name)."""

    def next_step(self) -> ScriptStep | None:
        """The step answering this request (None: the script is exhausted, no default)."""
        return self.state.next_step(self.body)


Handler = Callable[[EmulatorCall], Awaitable[Response]]
"""A dialect's route handler."""


@dataclass(frozen=True, slots=True)
class DialectRoute:
    """A route of one wire dialect."""

    dialect: str
    """The dialect name recorded on each request."""
    handler: Handler
    """Builds the response."""
    methods: tuple[str, ...] = ("POST",)
    dialect_of: Callable[[Request], str] | None = None
    """The dialect of one request, for a path several dialects share (the Files APIs);
    None: always `dialect`."""


class DeliberateDisconnect(Exception):
    """Raised inside a streaming body to cut the connection (a scripted disconnect)."""


def _is_deliberate(exc: BaseException | None) -> bool:
    if isinstance(exc, DeliberateDisconnect):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_deliberate(inner) for inner in exc.exceptions)
    return False


class _DropDeliberateDisconnects(logging.Filter):
    """Keeps uvicorn from logging a scripted disconnect as an application error."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not _is_deliberate(exc)


_FILTER = _DropDeliberateDisconnects()


def install_disconnect_log_filter() -> None:
    """Install the filter on ``uvicorn.error`` (idempotent)."""
    logger = logging.getLogger("uvicorn.error")
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)


def iso_z(when: datetime) -> str:
    """``when`` (UTC) as the services write times (RFC 3339 with ``Z``):
    ``2026-12-01T00:00:00.123456Z``."""
    return when.isoformat().replace("+00:00", "Z")


def epoch_iso_z(stamp: float | None) -> str | None:
    """A ``time.time()`` stamp as `iso_z` writes it (None stays None)."""
    return None if stamp is None else iso_z(datetime.fromtimestamp(stamp, UTC))


def without_key(value: Any, key: str) -> Any:
    """``value`` (JSON data) with ``key`` dropped from every object in it, at any depth."""
    if isinstance(value, dict):
        return {k: without_key(v, key) for k, v in value.items() if k != key}
    if isinstance(value, list):
        return [without_key(item, key) for item in value]
    return value

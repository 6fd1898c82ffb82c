"""Server-sent events read off the HTTP response an SDK opened, as the API's dicts.

The ``anthropic`` and ``openai`` SDK streams build a pydantic model for every event, and
the adapters then turned each one back into a dict (``to_dict``): the largest share of
the client CPU the adapters could cut. The Anthropic SDK's own decoder (``SSEDecoder``,
behind ``AsyncStream.raw_events``) costs as much again: two async generators, a
``decode`` call per line and an object per event.

`SseDecoder` splits the response's bytes (``httpx2.Response.aiter_bytes``, public)
into events as the SSE specification and the SDKs' decoder do (``\n``, ``\r\n`` and
``\r`` line ends; comments and ``id`` / ``retry`` fields skipped; the ``data`` lines of
one event joined by ``\n``), one split per chunk and one decode per event. The Anthropic
adapter's ``RawEvents`` reads through it.

`OpenAIRawEvents` (OpenAI Responses, Fireworks) reads the response line by line
(``httpx2.Response.aiter_lines``) and decodes the events as the SDK's decoder does. It
raises what the SDK's stream raises: ``APIError`` for an in-band ``{"error": ...}``,
``APITimeoutError`` / ``APIConnectionError`` for a read that timed out or broke, and
``json.JSONDecodeError`` (a ``ValueError``, mapped by the stream guard) for a line that is
not JSON. ``[DONE]`` ends the stream; on HTTP/1.1 the rest of the body is read first, so
the connection can be reused. (A bytes reader over `SseDecoder` failed a Fireworks
reliability test, ``async generator already executing``, and was not kept.)

The request, its headers, auth, the status check and the errors before the stream are
still the SDK's.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["OpenAIRawEvents", "SseDecoder", "SseEvent"]

SseEvent = tuple[str | None, str]
"""One server-sent event: its ``event`` name (None: none given) and its data."""


def _parse(block: bytes) -> SseEvent | None:
    """The event of one block of lines (None: only comments and other fields)."""
    text = block.decode("utf-8")
    # The shapes the APIs send, without a split: "event: x\ndata: {...}" and "data: {...}".
    if text.startswith("event: "):
        end = text.find("\n")
        if end > 0 and text.startswith("data: ", end + 1) and text.find("\n", end + 1) < 0:
            return text[7:end] or None, text[end + 7 :]
    elif text.startswith("data: ") and "\n" not in text:
        return None, text[6:]
    return _parse_lines(text)


def _parse_lines(text: str) -> SseEvent | None:
    """The event of one block of lines, field by field."""
    event: str | None = None
    data: list[str] = []
    for line in text.split("\n"):
        if not line or line[0] == ":":
            continue  # a blank line left by a run of blank lines, or a comment
        name, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value or None
    if event is None and not data:
        return None
    return event, data[0] if len(data) == 1 else "\n".join(data)


class SseDecoder:
    """Splits a stream of byte chunks into `SseEvent` values, chunk by chunk."""

    __slots__ = ("_held_cr", "_pending")

    def __init__(self) -> None:
        self._pending: list[bytes] = []
        """The bytes after the last complete event, as they came (joined once an event
        ends there: a long event arriving in many chunks is copied once, not per chunk)."""
        self._held_cr = False
        """The last chunk ended in ``\\r``: it may be the first half of a ``\\r\\n``."""

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """The events that ``chunk`` completes, in order."""
        if self._held_cr or b"\r" in chunk:
            chunk = self._newlines(chunk)
        pending = self._pending
        if b"\n\n" not in chunk and not (
            pending and chunk[:1] == b"\n" and pending[-1][-1:] == b"\n"
        ):
            if chunk:
                pending.append(chunk)
            return []
        buffer = b"".join([*pending, chunk]) if pending else chunk
        pending.clear()
        *blocks, rest = buffer.split(b"\n\n")
        if rest:
            pending.append(rest)
        return [event for block in blocks if (event := _parse(block)) is not None]

    def end(self) -> tuple[list[SseEvent], SseEvent | None]:
        """At the end of the body: the events a held ``\\r`` completes, and the last
        event if the body ended without the blank line after it (the SSE specification
        drops that one; the ``openai`` SDK's decoder keeps it)."""
        events = []
        if self._held_cr:  # a body that ends in "\r" ended its last line
            self._held_cr = False
            events = self.feed(b"\n")
        rest = b"".join(self._pending)
        self._pending.clear()
        return events, _parse(rest.rstrip(b"\n")) if rest.strip() else None

    def _newlines(self, chunk: bytes) -> bytes:
        """``chunk`` with ``\\r\\n`` and ``\\r`` as ``\\n`` (a trailing ``\\r`` is held
        back until the next chunk shows whether a ``\\n`` follows it)."""
        if self._held_cr:
            chunk = b"\r" + chunk
        self._held_cr = chunk.endswith(b"\r") and bool(chunk)
        if self._held_cr:
            chunk = chunk[:-1]
        return chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


class OpenAIRawEvents:
    """The events of an ``openai`` SDK stream's response, as dicts (see the module)."""

    __slots__ = ("_lines", "_sdk", "response")

    def __init__(self, sdk: Any, response: Any) -> None:
        self._sdk = sdk
        self.response = response
        """The HTTP response (the stream guard closes it when the stream stalls)."""
        self._lines = response.aiter_lines().__aiter__()

    def __aiter__(self) -> OpenAIRawEvents:
        return self

    async def __anext__(self) -> dict[str, Any]:
        while True:
            data = await self._next_data()
            if data.startswith("[DONE]"):
                if self.response.http_version == "HTTP/1.1":
                    async for _ in self._lines:
                        pass
                raise StopAsyncIteration
            event = json.loads(data)
            if not isinstance(event, dict):
                raise json.JSONDecodeError("a stream event is not a JSON object", data, 0)
            error = event.get("error")
            if error:
                message = error.get("message") if isinstance(error, dict) else None
                if not message or not isinstance(message, str):
                    message = "An error occurred during streaming"
                raise self._sdk.APIError(message=message, request=self.response.request, body=error)
            return event

    async def _next_data(self) -> str:
        """The data of the next event that has any (comments and bare fields skipped)."""
        import httpx2

        data: list[str] = []
        try:
            async for line in self._lines:
                if not line:
                    if data:
                        return "\n".join(data)
                    continue
                if line.startswith(":"):
                    continue  # a comment (a keep-alive)
                name, _, value = line.partition(":")
                if name == "data":
                    data.append(value[1:] if value.startswith(" ") else value)
        except httpx2.TimeoutException as exc:
            raise self._sdk.APITimeoutError(request=self.response.request) from exc
        except httpx2.RequestError as exc:
            raise self._sdk.APIConnectionError(request=self.response.request) from exc
        if data:  # the body ended without the blank line after the last event
            return "\n".join(data)
        raise StopAsyncIteration

"""What guards every provider stream: the idle timer, parse errors, and the SDK timeouts.

`GuardedEvents` wraps the event iterator an SDK hands back. Each ``__anext__`` is
bounded by ``stream_idle_timeout``: the SDKs drop pings and keep-alive comments before
they yield, so only content events reset the timer, and a stream that stalls (with or
without keep-alives) fails as `StreamIdleTimeoutError` within the bound. Where the
stream's HTTP response is at hand (the ``anthropic`` / ``openai`` SDK streams), a
watchdog timer closes it when the bound passes, so the SDK's pending read fails inside its
own generators and they unwind on their own (google-genai's response is handed over by
the `remember_response` hook on its HTTP client); the read is cancelled only when
there is no response to close (google-genai over aiohttp) or the close does not end it. A line
the SDK cannot parse (``json.JSONDecodeError``, Gemini's ``UnknownApiResponseError``, a
chunk that fails the SDK's pydantic model — all ``ValueError``) becomes a
`StreamInterruptedError` carrying the usage reported so far, so the retry layer
retries it while no delta reached the caller. The cause kept on either error is a
redacted summary of the SDK exception (`redacted_summary`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from doc_processing_toolkit._redaction import redact_text, redacted_summary
from doc_processing_toolkit.domain.errors import (
    ProviderError,
    StreamIdleTimeoutError,
    StreamInterruptedError,
)

__all__ = [
    "CLOSE_GRACE_S",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "GuardedEvents",
    "remember_response",
    "sdk_timeout",
]

DEFAULT_CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection when ``connect_timeout`` is not set (the SDKs' default)."""
DEFAULT_REQUEST_TIMEOUT = 600.0
"""Seconds for one read / request when ``request_timeout`` is not set (the SDKs' default)."""

CLOSE_GRACE_S = 1.0
"""Seconds the watchdog's close of an idle stream's response may take to end the read
before the read is cancelled instead."""

InterruptedFactory = Callable[..., ProviderError]
"""``(text, cls=StreamInterruptedError) -> error`` with the stream's partial usage."""


def sdk_timeout(request_timeout: float | None, connect_timeout: float | None) -> Any:
    """An ``httpx2.Timeout`` for the ``anthropic`` / ``openai`` SDKs (None: both unset)."""
    if request_timeout is None and connect_timeout is None:
        return None
    import httpx2

    return httpx2.Timeout(
        request_timeout if request_timeout is not None else DEFAULT_REQUEST_TIMEOUT,
        connect=connect_timeout if connect_timeout is not None else DEFAULT_CONNECT_TIMEOUT,
    )


_IDLE = object()
"""What `GuardedEvents._watched` returns when the idle timer fired."""


class GuardedEvents:
    """An SDK event iterator with the idle timer and parse-error mapping (see the module).

    The watchdog is one timer per stream, not one per event: ``__anext__`` notes when it
    started waiting (one ``time.monotonic()`` read per event) and the timer, when it
    fires, either re-arms itself for what is left of the bound, stops (the consumer is
    busy between events; the next ``__anext__`` arms it again), or closes the response.
    """

    __slots__ = (
        "__weakref__",
        "_cancelled",
        "_close",
        "_closing",
        "_grace",
        "_handle",
        "_idle",
        "_interrupted",
        "_it",
        "_loop_is_asyncio",
        "_provider",
        "_reader",
        "_since",
        "_waiting_for_request",
    )

    def __init__(
        self,
        events: Any,
        *,
        provider: str,
        idle_timeout: float | None,
        interrupted: InterruptedFactory,
        lazy_request: bool = False,
        close: Callable[[], Awaitable[Any]] | None = None,
    ) -> None:
        self._it = events.__aiter__()
        self._waiting_for_request = lazy_request
        """The SDK sends the request on the first ``__anext__`` (google-genai): that wait
        is the request's (``request_timeout``), not the stream's idle time."""
        self._provider = provider
        self._idle = idle_timeout
        self._interrupted = interrupted
        self._close = close
        """Closes the stream's HTTP response (the watchdog's way to end an idle read)."""
        self._closing: asyncio.Task[Any] | None = None
        self._handle: asyncio.TimerHandle | None = None
        """The stream's watchdog timer, while armed."""
        self._grace: asyncio.TimerHandle | None = None
        """Cancels the read should the close not end it within `CLOSE_GRACE_S`."""
        self._since: float | None = None
        """``time.monotonic()`` when the pending ``__anext__`` started waiting (None: none)."""
        self._reader: asyncio.Task[Any] | None = None
        self._loop_is_asyncio: bool | None = None
        self._cancelled: int | None = None
        """Set when the grace timer cancelled the read: the reader's ``cancelling()``
        count before (that cancellation is the watchdog's own, undone when it arrives)."""

    def __aiter__(self) -> GuardedEvents:
        return self

    def _asyncio(self) -> bool:
        """Whether the stream is read on an asyncio loop (asked once per stream)."""
        on = self._loop_is_asyncio
        if on is None:
            on = self._loop_is_asyncio = _on_asyncio()
        return on

    async def __anext__(self) -> Any:
        try:
            if self._idle is None or self._waiting_for_request:
                self._waiting_for_request = False
                return await self._first_event()
            on_asyncio = self._loop_is_asyncio  # read inline: this runs once per event
            if on_asyncio is None:
                on_asyncio = self._asyncio()
            if self._close is not None and on_asyncio:
                event = await self._watched(self._idle)
                if event is not _IDLE:
                    return event
            else:
                with anyio.move_on_after(self._idle):
                    return await self._it.__anext__()
        except ValueError as exc:  # JSONDecodeError and the SDKs' own parse errors
            error = self._interrupted(
                redact_text(
                    f"{self._provider}: a stream event could not be parsed: "
                    f"{type(exc).__name__}: {str(exc)[:200]}"
                ),
                cls=StreamInterruptedError,
            )
            raise error from redacted_summary(exc)
        raise self._interrupted(
            f"{self._provider}: no stream event for {self._idle:g} s (stream_idle_timeout; "
            "pings and keep-alives do not count)",
            cls=StreamIdleTimeoutError,
        ) from None

    async def _first_event(self) -> Any:
        """The first event; a response the SDK's HTTP client reports meanwhile
        (`remember_response`) becomes the one the watchdog closes."""
        if self._close is not None:
            return await self._it.__anext__()
        slot: list[Any] = []
        token = _RESPONSE_SLOT.set(slot)
        try:
            return await self._it.__anext__()
        finally:
            _RESPONSE_SLOT.reset(token)
            if slot:
                self._close = slot[0].aclose

    async def _watched(self, idle: float) -> Any:
        """The next event, watched by the stream's timer, which closes the HTTP response
        when none comes within ``idle`` seconds: the SDK's read then fails inside its own
        generator, which unwinds normally (nothing cancels it mid-step). Should the close
        not end the read within `CLOSE_GRACE_S`, the read is cancelled after all."""
        self._since = time.monotonic()
        if self._handle is None:
            self._reader = asyncio.current_task()
            self._handle = asyncio.get_running_loop().call_later(idle, _fire, weakref.ref(self))
        try:
            event = await self._it.__anext__()
            if self._closing is None:
                self._since = None
                return event
        except asyncio.CancelledError:
            self._stop()
            if self._cancelled is None:
                raise
        except Exception:  # StopAsyncIteration included
            self._stop()
            if self._closing is None:
                raise
        self._stop()
        cancelled, self._cancelled = self._cancelled, None
        if cancelled is not None and self._reader is not None:
            if self._reader.uncancel() > cancelled:  # the grace timer's own ends here
                raise asyncio.CancelledError  # a cancellation from outside came as well
        await self._settle_close()
        return _IDLE

    def _expired(self) -> None:
        """The timer fired: re-arm for the rest of the bound, stop, or close the response."""
        self._handle = None
        if self._since is None or self._closing is not None:
            return  # the consumer is busy between events: the next __anext__ re-arms
        loop = asyncio.get_running_loop()
        left = self._idle - (time.monotonic() - self._since) if self._idle is not None else 0.0
        if left > 0:
            self._handle = loop.call_later(left, _fire, weakref.ref(self))
            return
        close = self._close
        assert close is not None

        async def closed() -> None:
            await close()

        self._closing = loop.create_task(closed())
        self._grace = loop.call_later(CLOSE_GRACE_S, _cancel_read, weakref.ref(self))

    def _cancel_read(self) -> None:
        """The close did not end the read within the grace: cancel the read."""
        self._grace = None
        if self._since is not None and self._reader is not None and not self._reader.done():
            self._cancelled = self._reader.cancelling()
            self._reader.cancel()

    def _stop(self) -> None:
        """The read is over (ended, failed or idle): no timer stays armed."""
        self._since = None
        for handle in (self._handle, self._grace):
            if handle is not None:
                handle.cancel()
        self._handle = self._grace = None

    async def _settle_close(self) -> None:
        """Wait for the watchdog's close (its failure is the stream's, already reported)."""
        closing, self._closing = self._closing, None
        if closing is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(closing)


def _fire(ref: weakref.ref[GuardedEvents]) -> None:
    """The watchdog timer's callback (a weak reference: an abandoned stream is not kept)."""
    guarded = ref()
    if guarded is not None:
        guarded._expired()


def _cancel_read(ref: weakref.ref[GuardedEvents]) -> None:
    guarded = ref()
    if guarded is not None:
        guarded._cancel_read()


_RESPONSE_SLOT: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "dpt_stream_response", default=None
)


async def remember_response(response: Any) -> None:
    """An ``httpx2`` response event hook: hands the response of a lazily sent streaming
    request (google-genai sends it on the first ``__anext__``) to the `GuardedEvents`
    awaiting it, so its watchdog can close it."""
    slot = _RESPONSE_SLOT.get()
    if slot is not None and not slot:
        slot.append(response)


def _on_asyncio() -> bool:
    """Whether the running event loop is asyncio's (the watchdog's timer needs it)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True

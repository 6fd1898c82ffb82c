"""What guards every provider stream: the idle timer, parse errors, and the SDK timeouts.

:class:`GuardedEvents` wraps the event iterator an SDK hands back. Each ``__anext__`` is
bounded by ``stream_idle_timeout``: the SDKs drop pings and keep-alive comments before
they yield, so only content events reset the timer, and a stream that stalls (with or
without keep-alives) fails as :class:`StreamIdleTimeoutError` within the bound. A line
the SDK cannot parse (``json.JSONDecodeError``, Gemini's ``UnknownApiResponseError``, a
chunk that fails the SDK's pydantic model — all ``ValueError``) becomes a
:class:`StreamInterruptedError` carrying the usage reported so far, so the retry layer
retries it while no delta reached the caller. The cause kept on either error is a
redacted summary of the SDK exception (:func:`~doc_processing_toolkit._redaction.redacted_summary`).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

import anyio

from doc_processing_toolkit._redaction import redact_text, redacted_summary
from doc_processing_toolkit.domain.errors import (
    ProviderError,
    StreamIdleTimeoutError,
    StreamInterruptedError,
)

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "GuardedEvents",
    "sdk_timeout",
]

DEFAULT_CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection when ``connect_timeout`` is not set (the SDKs' default)."""
DEFAULT_REQUEST_TIMEOUT = 600.0
"""Seconds for one read / request when ``request_timeout`` is not set (the SDKs' default)."""

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


def _on_timer(ref: weakref.ref[GuardedEvents]) -> None:
    guard = ref()
    if guard is not None:
        guard._on_timer()


_IDLE = object()
"""What :meth:`GuardedEvents._next_timed` returns when the idle timer fired."""


class GuardedEvents:
    """An SDK event iterator with the idle timer and parse-error mapping (see the module)."""

    __slots__ = (
        "__weakref__",
        "_deadline",
        "_fired",
        "_idle",
        "_interrupted",
        "_it",
        "_loop",
        "_provider",
        "_task",
        "_timer",
        "_waiting",
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
    ) -> None:
        self._it = events.__aiter__()
        self._waiting_for_request = lazy_request
        """The SDK sends the request on the first ``__anext__`` (google-genai): that wait
        is the request's (``request_timeout``), not the stream's idle time."""
        self._provider = provider
        self._idle = idle_timeout
        self._interrupted = interrupted
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # anyio on trio: a cancel scope per event instead
            self._loop = None
        self._task: asyncio.Task[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._deadline = 0.0
        self._waiting = False
        self._fired = False

    def __aiter__(self) -> GuardedEvents:
        return self

    def __del__(self) -> None:
        # An abandoned stream drops its timer with it (the timer holds only a weakref).
        timer = self._timer
        if timer is not None:
            timer.cancel()

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = loop.call_at(self._deadline, _on_timer, weakref.ref(self))

    def _on_timer(self) -> None:
        """The stream's one idle timer: re-armed to the current wait's deadline, and only
        a wait inside ``__anext__`` that outlived it is cancelled (never the consumer)."""
        self._timer = None
        if not self._waiting or self._loop is None or self._task is None:
            return  # between events (or done): the next __anext__ arms it again
        if self._loop.time() < self._deadline:
            self._arm(self._loop)
            return
        self._fired = True
        self._task.cancel()

    def _stop_timer(self) -> None:
        self._waiting = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _next_timed(self, idle: float) -> Any:
        """The next event within ``idle`` seconds (asyncio): one timer per stream, re-armed
        lazily, so an event costs a clock read, not a timer (or a cancel scope)."""
        loop = self._loop
        assert loop is not None
        if self._task is None:
            self._task = asyncio.current_task()
        self._deadline = loop.time() + idle
        self._waiting = True
        if self._timer is None:
            self._arm(loop)
        try:
            item = await self._it.__anext__()
        except asyncio.CancelledError:
            if not self._fired:
                self._stop_timer()
                raise
            self._fired = False
            self._stop_timer()
            task = self._task
            if task is not None and task.uncancel() > 0:
                raise  # cancelled from outside as well: that cancellation wins
            return _IDLE
        except BaseException:
            self._stop_timer()
            raise
        self._waiting = False
        return item

    async def __anext__(self) -> Any:
        try:
            if self._idle is None or self._waiting_for_request:
                self._waiting_for_request = False
                return await self._it.__anext__()
            if self._loop is not None:
                item = await self._next_timed(self._idle)
                if item is not _IDLE:
                    return item
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

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


class GuardedEvents:
    """An SDK event iterator with the idle timer and parse-error mapping (see the module)."""

    __slots__ = ("_asyncio", "_idle", "_interrupted", "_it", "_provider", "_waiting_for_request")

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
            asyncio.get_running_loop()
            self._asyncio = True
        except RuntimeError:  # anyio on trio
            self._asyncio = False

    def __aiter__(self) -> GuardedEvents:
        return self

    async def __anext__(self) -> Any:
        try:
            if self._idle is None or self._waiting_for_request:
                self._waiting_for_request = False
                return await self._it.__anext__()
            if self._asyncio:
                # One asyncio timer per event: a fraction of an anyio cancel scope's cost.
                timer = asyncio.timeout(self._idle)
                try:
                    async with timer:
                        return await self._it.__anext__()
                except TimeoutError:
                    if not timer.expired():
                        raise  # not our timer: the SDK's own
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

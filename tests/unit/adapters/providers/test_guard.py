"""The stream watchdog (adapters/providers/_guard.py): one timer per stream, re-armed
lazily, that closes an idle stream's response, falls back to cancelling the read, and
counts only the time spent waiting for an event (fakes, no network, fractions of a second)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from doc_processing_toolkit.adapters.providers import _guard
from doc_processing_toolkit.adapters.providers._guard import GuardedEvents
from doc_processing_toolkit.domain.errors import StreamIdleTimeoutError, StreamInterruptedError


def _interrupted(text: str, cls: type[StreamInterruptedError] = StreamInterruptedError) -> Any:
    return cls(text, provider="fake")


class _Events:
    """An SDK-like event stream: ``gaps`` seconds before each event, then a stall that
    only a close ends (or nothing ends, with ``close_ends_read=False``)."""

    def __init__(self, gaps: list[float], *, close_ends_read: bool = True) -> None:
        self._gaps = list(gaps)
        self._closed = asyncio.Event()
        self._close_ends_read = close_ends_read
        self.closes = 0
        self.cancelled = False

    def __aiter__(self) -> _Events:
        return self

    async def __anext__(self) -> str:
        if self._gaps:
            await asyncio.sleep(self._gaps.pop(0))
            return "event"
        try:
            if self._close_ends_read:
                await self._closed.wait()
                raise ConnectionError("response closed")
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        raise StopAsyncIteration

    async def close(self) -> None:
        self.closes += 1
        self._closed.set()


def _guarded(events: _Events, idle: float) -> GuardedEvents:
    return GuardedEvents(
        events, provider="fake", idle_timeout=idle, interrupted=_interrupted, close=events.close
    )


async def _drain(guarded: GuardedEvents, busy: float = 0.0) -> int:
    count = 0
    async for _ in guarded:
        count += 1
        if busy:
            await asyncio.sleep(busy)  # the consumer's time between events
    return count


def test_events_under_the_bound_pass_though_the_stream_outlasts_it() -> None:
    async def main() -> tuple[int, int]:
        events = _Events([0.04] * 8)  # 0.32 s in all, each gap under 0.15 s
        with pytest.raises(StreamIdleTimeoutError):
            await _drain(_guarded(events, 0.15))
        return events.closes, len(events._gaps)

    closes, left = asyncio.run(main())
    assert left == 0  # every event arrived before the stall was called idle
    assert closes == 1  # the stall itself closed the response once


def test_the_consumers_time_between_events_does_not_count() -> None:
    async def main() -> int:
        events = _Events([0.0] * 4 + [60.0])
        guarded = _guarded(events, 0.1)
        seen = 0
        with pytest.raises(StreamIdleTimeoutError):
            async for _ in guarded:
                seen += 1
                await asyncio.sleep(0.15)  # busier than the bound, while not waiting
        return seen

    assert asyncio.run(main()) == 4


def test_an_idle_stream_closes_its_response_and_fails_as_idle() -> None:
    async def main() -> tuple[int, bool]:
        events = _Events([0.0])
        with pytest.raises(StreamIdleTimeoutError, match=r"no stream event for 0\.1 s"):
            await _drain(_guarded(events, 0.1))
        return events.closes, events.cancelled

    assert asyncio.run(main()) == (1, False)  # closed, never cancelled mid-read


def test_a_close_that_does_not_end_the_read_cancels_it_and_the_task_lives_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_guard, "CLOSE_GRACE_S", 0.05)

    async def main() -> tuple[int, bool, int]:
        events = _Events([], close_ends_read=False)
        with pytest.raises(StreamIdleTimeoutError):
            await _drain(_guarded(events, 0.1))
        task = asyncio.current_task()
        assert task is not None
        await asyncio.sleep(0)  # the watchdog's cancellation did not leak into the task
        return events.closes, events.cancelled, task.cancelling()

    assert asyncio.run(main()) == (1, True, 0)


def test_a_cancellation_from_outside_still_propagates() -> None:
    async def main() -> bool:
        events = _Events([], close_ends_read=False)
        task = asyncio.ensure_future(_drain(_guarded(events, 5.0)))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return events.cancelled

    assert asyncio.run(main()) is True

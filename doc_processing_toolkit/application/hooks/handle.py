"""RunHandle: the host's control of one running (possibly paused) run, from any thread.

A handle is bound to its run's event loop when the run starts. ``pause`` / ``resume`` /
``abort`` flip flags under a ``threading.Lock``; the loop reads them at its next safe point.
A wake-up of a parked run is marshalled onto the run's loop with ``call_soon_threadsafe``:
a bare ``asyncio.Event.set`` from a foreign thread would leave the loop asleep in its
selector, and the run would stay paused.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Protocol

from doc_processing_toolkit.domain.errors import AgentAborted, ConfigurationError, StateError

__all__ = ["InjectionQueue", "RunHandle"]


def _cancel_on(future: asyncio.Future[Any], loop: asyncio.AbstractEventLoop | None) -> None:
    """Cancel ``future`` from any thread (marshalled onto ``loop`` from a foreign one)."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if loop is None or running is loop:
        future.cancel()
        return
    try:
        loop.call_soon_threadsafe(future.cancel)
    except RuntimeError:  # the loop closed meanwhile: nothing is waiting any more
        pass


class InjectionQueue(Protocol):
    """The run's queue of user-role texts (the HookRunner)."""

    def queue_injection(self, text: str) -> bool:
        """Queue ``text``; False once the run's end-of-run capture took the queue."""
        ...


class _EndedQueue:
    """The queue of a run that has ended: it refuses every text."""

    def queue_injection(self, text: str) -> bool:
        return False


_ENDED = _EndedQueue()


class RunHandle:
    """Handle for controlling a running (possibly paused) agent run.

    Exposed as ``Agent.run_handle`` for the duration of a run. `resume`,
    `abort` and `inject` may be called from any thread.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paused = False
        self._abort_requested = False
        self._abort_reason: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._queue: InjectionQueue | None = None
        self._parked = False
        self._pending: set[asyncio.Future[Any]] = set()

    # ------------------------------------------------------------------ binding
    def bind(self, queue: InjectionQueue) -> None:
        """Attach the run's injection queue and the running loop (called in the run)."""
        with self._lock:
            self._queue = queue
            self._loop = asyncio.get_running_loop()
            self._wake = None  # made at the first pause (most runs never pause)

    def release(self) -> None:
        """The run has ended: drop the run's loop and queue (a later `inject` is
        refused as after the end). The handle no longer keeps the run's runner alive, so
        neither waits for the garbage collector."""
        with self._lock:
            self._queue = _ENDED
            self._loop = None
            self._wake = None

    # ------------------------------------------------------------------ host side
    @property
    def paused(self) -> bool:
        """True while the run is paused (from `pause` until `resume`)."""
        with self._lock:
            return self._paused

    @property
    def parked(self) -> bool:
        """True while the run is actually stopped at a safe point, waiting to resume."""
        with self._lock:
            return self._parked

    @property
    def abort_requested(self) -> bool:
        """True once `abort` was called."""
        with self._lock:
            return self._abort_requested

    def pause(self) -> None:
        """Pause the run at its next safe point.

        A request, not an interrupt: a tool that is already executing runs to completion
        and its result is delivered before the loop stops.
        """
        with self._lock:
            self._paused = True

    def resume(self) -> None:
        """Resume a paused run (safe to call from any thread)."""
        with self._lock:
            self._paused = False
        self._signal()

    def abort(self, reason: str | None = None) -> None:
        """Request a clean abort at the next safe point (also unblocks a pause; any thread).

        Like `pause`, this cannot pre-empt a tool that is already executing: that
        tool finishes and its result is delivered first. No provider call is cut off
        mid-request and no tool call is left without its result. A hook the run is
        waiting on is cancelled (a synchronous one is left to finish on its thread).
        """
        with self._lock:
            if not self._abort_requested:
                self._abort_requested = True
                self._abort_reason = reason
            pending, loop = list(self._pending), self._loop
        self._signal()
        for future in pending:
            _cancel_on(future, loop)

    def track_hook(self, future: asyncio.Future[Any]) -> bool:
        """Have `abort` cancel ``future`` (a pending hook call) until
        `untrack_hook`; False (nothing tracked) when an abort was already requested."""
        with self._lock:
            if self._abort_requested:
                return False
            self._pending.add(future)
            return True

    def untrack_hook(self, future: asyncio.Future[Any]) -> None:
        """Stop tracking ``future`` (it ended)."""
        with self._lock:
            self._pending.discard(future)

    def inject(self, text: str) -> None:
        """Queue a user-role message for the run's next turn boundary (any thread).

        Raises:
            ValueError: If text is not a non-empty string.
            RuntimeError: If this handle is not bound to a run, or the run has ended.
        """
        if not isinstance(text, str) or not text.strip():
            raise ConfigurationError("RunHandle.inject() needs a non-empty string")
        with self._lock:
            queue = self._queue
        if queue is None:
            raise StateError("this RunHandle is not bound to a run")
        if not queue.queue_injection(text):
            raise StateError(
                "the run has already ended: the message would never be seen; send it as "
                "the next turn's user message"
            )

    # ------------------------------------------------------------------ run side
    def _signal(self) -> None:
        with self._lock:
            loop, wake = self._loop, self._wake
        if loop is None or wake is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            wake.set()
            return
        try:
            loop.call_soon_threadsafe(wake.set)
        except RuntimeError:  # the loop closed between the check and the call
            pass

    def abort_reason(self) -> str | None:
        """The reason given to `abort` (None when none was, or no abort)."""
        with self._lock:
            return self._abort_reason

    def abort_error(self, partial: dict[str, object] | None = None) -> AgentAborted | None:
        """The AgentAborted to raise when an abort was requested, else None."""
        with self._lock:
            if not self._abort_requested:
                return None
            reason = self._abort_reason
        return AgentAborted(reason, dict(partial) if partial is not None else None)

    async def wait_while_paused(self, partial: dict[str, object] | None = None) -> None:
        """At a safe point: raise a requested abort, or park until resumed.

        Raises:
            AgentAborted: when an abort was requested (before or during the pause).
        """
        if not (self._paused or self._abort_requested):  # the common case, lock-free:
            return  # a pause or abort set after this read is seen at the next safe point
        while True:
            error = self.abort_error(partial)
            if error is not None:
                raise error
            with self._lock:
                if not self._paused or self._loop is None:
                    self._parked = False
                    return
                if self._wake is None:
                    self._wake = asyncio.Event()
                wake = self._wake
                wake.clear()
                self._parked = True
            try:
                await wake.wait()
            finally:
                with self._lock:
                    self._parked = False

    def __repr__(self) -> str:
        return f"RunHandle(paused={self.paused}, abort_requested={self.abort_requested})"

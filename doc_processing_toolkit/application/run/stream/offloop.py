"""Off-loop provider calls for a streamed run without local tools.

`OffLoopModelClient` makes each provider call on the stream worker: one daemon
thread per process running its own event loop. The items are handed back to the run's
loop with ``call_soon_threadsafe``, so the deltas reach the stream as the provider
generates them even when the host's loop is busy. Closing the stream cancels the
worker's call at once (within one chunk). The worker runs in a copy of the caller's
context. ``DPT_STREAM_STRUCTURED_OFFLOOP=off`` keeps the call on the run's loop.

The worker's loop lives as long as the process (it is made again in a forked child), so
the SDK clients an adapter caches on it, and their connection pools, serve every later
stream, as they do on a long-lived host loop. Before, each call had a thread and a loop of
its own and built, then closed, a new SDK client: ~25 ms of CPU per streamed call on
Anthropic (TLS context and all), against ~1.5 ms for the call itself. An Agent's own
clients there are closed by ``Agent.close()`` (``LoopClientCache.close_every_loop``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.step_scope import current_scope
from doc_processing_toolkit.application.tools.tool_set import ToolSet
from doc_processing_toolkit.domain.requests import ModelRequest, StreamItem
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["OffLoopModelClient", "client_for_run", "offloop_enabled", "stream_worker_loop"]

_START_TIMEOUT_S = 5.0


def offloop_enabled() -> bool:
    """False when DPT_STREAM_STRUCTURED_OFFLOOP=off."""
    return environment.stream_structured_offloop()


async def client_for_run(client: ModelClient, tools: ToolSet, *, streamed: bool) -> ModelClient:
    """``client`` itself, or off-loop for a streamed run that has no local tools; inside a
    `run_scope`, the scope's
    client (a fleet job's durable one)."""
    scope = current_scope()
    if scope is not None:
        return scope.model_client(client)
    if streamed and offloop_enabled() and not await tools.specs():
        return OffLoopModelClient(client)
    return client


class _StreamWorker:
    """The process's stream worker: a daemon thread serving one event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        """The worker's running loop (the thread is started on first use, or again if
        it has died)."""
        with self._lock:
            thread, loop = self._thread, self._loop
            if loop is None or thread is None or not thread.is_alive():
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                thread = threading.Thread(target=serve, name="dpt-offloop-stream", daemon=True)
                thread.start()
                ready.wait(_START_TIMEOUT_S)
                self._loop, self._thread = loop, thread
            return loop

    def current(self) -> asyncio.AbstractEventLoop | None:
        """The worker's loop if it was started, else None."""
        return self._loop

    def forget(self) -> None:
        """In a forked child: the parent's thread is gone, so the worker starts anew."""
        self._lock = threading.Lock()
        self._loop = self._thread = None


_WORKER = _StreamWorker()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WORKER.forget)


def stream_worker_loop() -> asyncio.AbstractEventLoop | None:
    """The stream worker's event loop, or None while no streamed call has started it."""
    return _WORKER.current()


class OffLoopModelClient:
    """A ModelClient whose calls run on a worker thread's own event loop."""

    def __init__(self, inner: ModelClient) -> None:
        """Args:
        inner: The client that makes the call (on the worker's loop).
        """
        self._inner = inner
        self.provider = inner.provider

    async def aclose(self) -> None:
        await self._inner.aclose()

    @property
    def count_tokens(self) -> Callable[[ModelRequest], Awaitable[int]] | None:
        """The inner client's token-counting call (on this loop), or None without one."""
        count = getattr(self._inner, "count_tokens", None)
        return count if callable(count) else None

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Stream ``request`` on the worker; yields exactly what ``inner`` yields."""
        handoff = _Handoff(asyncio.get_running_loop())

        async def pump() -> None:
            try:
                async for item in self._inner.stream(request):
                    handoff.put(item)
            except asyncio.CancelledError:
                pass  # the consumer went away
            except BaseException as exc:
                handoff.put(_Failed(exc))
            finally:
                handoff.put(_END)

        call = asyncio.run_coroutine_threadsafe(pump(), _WORKER.loop())
        finished = False
        try:
            while True:
                for item in await handoff.take():
                    if item is _END:
                        finished = True
                        return
                    if isinstance(item, _Failed):
                        finished = True
                        raise item.error
                    yield item
        finally:
            if not finished:
                call.cancel()  # cancels the worker's task, on its loop


class _Failed:
    """The worker's call raised ``error`` (raised again on the run's loop)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


_END = object()
"""The worker's call ended (after its last item)."""


class _Handoff:
    """What the worker streams, handed to the run's loop as it is (no wrapper per item):
    one wake-up of that loop per batch of items, not one per item (the worker often reads
    several events at once)."""

    def __init__(self, home: asyncio.AbstractEventLoop) -> None:
        self._home = home
        self._lock = threading.Lock()
        self._items: list[Any] = []
        self._wake_pending = False
        self._ready = asyncio.Event()

    def put(self, item: Any) -> None:
        """Queue one item (on the worker's thread); wake the run's loop unless a wake-up
        is already on its way."""
        with self._lock:
            self._items.append(item)
            if self._wake_pending:
                return
            self._wake_pending = True
        with contextlib.suppress(RuntimeError):  # the run's loop is gone
            self._home.call_soon_threadsafe(self._ready.set)

    async def take(self) -> list[Any]:
        """Every item queued so far, in order (on the run's loop; waits for one)."""
        while True:
            with self._lock:
                self._ready.clear()  # a wake-up for items already taken is stale
                if self._items:
                    items, self._items = self._items, []
                    self._wake_pending = False
                    return items
            await self._ready.wait()

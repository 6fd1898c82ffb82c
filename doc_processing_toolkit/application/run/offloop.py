"""Off-loop provider calls for a streamed run without local tools.

:class:`OffLoopModelClient` makes each provider call on a private event loop in a worker
thread and hands its items back to the run's loop with ``call_soon_threadsafe``, so the
deltas reach the stream as the provider generates them even when the host's loop is busy.
Closing the stream cancels the worker's call at once (within one chunk). The worker
loop's SDK clients are released when its call ends. ``DPT_STREAM_STRUCTURED_OFFLOOP=off``
keeps the call on the run's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.application.run.step_scope import current_scope
from doc_processing_toolkit.application.tools.tool_set import ToolSet
from doc_processing_toolkit.domain.requests import ModelRequest, StreamItem
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["OffLoopModelClient", "client_for_run", "offloop_enabled"]

_START_TIMEOUT_S = 5.0


def offloop_enabled() -> bool:
    """False when DPT_STREAM_STRUCTURED_OFFLOOP=off."""
    value = os.environ.get("DPT_STREAM_STRUCTURED_OFFLOOP", "").strip().lower()
    return value not in ("off", "0")


async def client_for_run(
    client: ModelClient, tools: ToolSet, deps: AgentDeps, *, streamed: bool
) -> ModelClient:
    """``client`` itself, or off-loop for a streamed run that has no local tools; inside a
    :func:`~doc_processing_toolkit.application.run.step_scope.run_scope`, the scope's
    client (a fleet job's durable one)."""
    scope = current_scope()
    if scope is not None:
        return scope.model_client(client)
    if streamed and offloop_enabled() and not await tools.specs():
        return OffLoopModelClient(client, deps.release_loop_resources)
    return client


class OffLoopModelClient:
    """A ModelClient whose calls run on a worker thread's own event loop."""

    def __init__(self, inner: ModelClient, release: Callable[[], Awaitable[None]]) -> None:
        """Args:
        inner: The client that makes the call (on the worker's loop).
        release: Closes the provider clients bound to the running (worker) loop.
        """
        self._inner = inner
        self._release = release
        self.provider = inner.provider

    async def aclose(self) -> None:
        await self._inner.aclose()

    @property
    def count_tokens(self) -> Callable[[ModelRequest], Awaitable[int]] | None:
        """The inner client's token-counting call (on this loop), or None without one."""
        count = getattr(self._inner, "count_tokens", None)
        return count if callable(count) else None

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Stream ``request`` from a worker thread; yields exactly what ``inner`` yields."""
        home = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        started = threading.Event()
        worker: dict[str, Any] = {}

        def put(kind: str, value: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the run's loop is gone
                home.call_soon_threadsafe(queue.put_nowait, (kind, value))

        async def pump() -> None:
            worker["loop"] = asyncio.get_running_loop()
            worker["task"] = asyncio.current_task()
            started.set()
            try:
                async for item in self._inner.stream(request):
                    put("item", item)
            except asyncio.CancelledError:
                pass  # the consumer went away
            except BaseException as exc:
                put("error", exc)
            finally:
                with contextlib.suppress(Exception):
                    await self._release()
                put("end", None)

        thread = threading.Thread(
            target=lambda: asyncio.run(pump()), name="dpt-offloop-stream", daemon=True
        )
        thread.start()
        finished = False
        try:
            while True:
                kind, value = await queue.get()
                if kind == "item":
                    yield value
                elif kind == "error":
                    finished = True
                    raise value
                else:
                    finished = True
                    return
        finally:
            if not finished:
                _cancel_worker(started, worker)


def _cancel_worker(started: threading.Event, worker: dict[str, Any]) -> None:
    if not started.wait(_START_TIMEOUT_S):
        return
    loop, task = worker.get("loop"), worker.get("task")
    if loop is None or task is None:
        return
    with contextlib.suppress(RuntimeError):  # the worker's loop already finished
        loop.call_soon_threadsafe(task.cancel)

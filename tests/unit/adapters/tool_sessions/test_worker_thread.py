"""The sync-tool worker pool: one hop to a worker thread and back, on the caller's loop."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from doc_processing_toolkit.adapters.tool_sessions import worker_thread
from doc_processing_toolkit.adapters.tool_sessions.worker_thread import (
    MAX_WORKERS,
    run_in_worker_thread,
)
from tests.waiting import wait_until

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


@pytest.fixture
def fresh_pool() -> object:
    """A pool of this test's own (the module's pool is made again on first use)."""
    worker_thread._forget_pool()
    yield
    worker_thread._forget_pool()


@pytest.mark.anyio
async def test_the_call_runs_on_a_worker_thread_in_the_callers_context(fresh_pool: object) -> None:
    REQUEST_ID.set("doc-7")
    seen = await run_in_worker_thread(lambda: (threading.current_thread(), REQUEST_ID.get()))
    thread, request_id = seen
    assert thread is not threading.current_thread()
    assert thread.name.startswith("dpt-tool_")
    assert thread.daemon
    assert request_id == "doc-7"


@pytest.mark.anyio
async def test_sequential_calls_reuse_one_thread(fresh_pool: object) -> None:
    names = {await run_in_worker_thread(lambda: threading.current_thread().name) for _ in range(20)}
    assert names == {"dpt-tool_0"}


@pytest.mark.anyio
async def test_what_the_call_raises_reaches_the_caller(fresh_pool: object) -> None:
    def fails() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError, match="missing"):
        await run_in_worker_thread(fails)

    def stops() -> None:
        raise StopIteration

    with pytest.raises(RuntimeError, match="StopIteration"):
        await run_in_worker_thread(stops)
    assert await run_in_worker_thread(lambda: "still works") == "still works"


@pytest.mark.anyio
async def test_a_cancelled_caller_stops_waiting_and_the_thread_finishes_alone(
    fresh_pool: object,
) -> None:
    release, finished = threading.Event(), threading.Event()

    def blocks() -> str:
        release.wait(10)
        finished.set()
        return "late"

    with pytest.raises(TimeoutError):
        await asyncio.wait_for(run_in_worker_thread(blocks), 0.05)
    release.set()
    wait_until(finished.is_set, "the abandoned call to finish")
    await asyncio.sleep(0.01)  # the dropped result is delivered (and ignored) on this loop
    assert await run_in_worker_thread(lambda: "next") == "next"


@pytest.mark.anyio
async def test_at_most_max_workers_run_at_once_and_the_rest_wait(fresh_pool: object) -> None:
    release = threading.Event()
    running: list[int] = []
    lock = threading.Lock()

    def blocks(i: int) -> int:
        with lock:
            running.append(i)
        release.wait(10)
        return i

    calls = [
        asyncio.ensure_future(run_in_worker_thread(lambda i=i: blocks(i)))  # type: ignore[misc]
        for i in range(MAX_WORKERS + 5)
    ]
    await asyncio.sleep(0)
    wait_until(lambda: len(running) == MAX_WORKERS, "every worker to be busy")
    await asyncio.sleep(0.05)
    assert len(running) == MAX_WORKERS  # five wait for a free thread
    release.set()
    assert await asyncio.gather(*calls) == list(range(MAX_WORKERS + 5))
    workers = {t.name for t in threading.enumerate() if t.name.startswith("dpt-tool_")}
    assert len(workers) >= MAX_WORKERS


def test_a_result_for_a_closed_loop_is_dropped(fresh_pool: object) -> None:
    release, delivered = threading.Event(), threading.Event()

    def blocks() -> str:
        release.wait(10)
        return "nobody waits"

    async def start() -> None:
        waiting = asyncio.ensure_future(run_in_worker_thread(blocks))
        await asyncio.sleep(0.01)
        waiting.cancel()
        await asyncio.sleep(0)

    loop = asyncio.new_event_loop()
    loop.run_until_complete(start())
    loop.close()
    release.set()

    async def after() -> None:
        assert await run_in_worker_thread(lambda: "ok") == "ok"
        delivered.set()

    asyncio.run(after())  # the worker survived the closed loop and takes the next call
    assert delivered.is_set()

"""The plumbing of ``Agent.stream()``: a run's events through a queue, never raising.

A failed run yields ``error`` and then ``complete``; ``complete`` comes exactly once.
Closing the generator early cancels the run (waiting at most
`STREAM_CANCEL_WAIT_SECONDS`) and hands what it had spent to ``on_abandoned``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from pydantic import BaseModel

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.config.log_setup import handled, redact
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.loop.events import EventSink
from doc_processing_toolkit.application.run.loop.loop import RunLoop
from doc_processing_toolkit.application.run.results.result_builder import failure_metadata
from doc_processing_toolkit.application.telemetry.runtime import finish_run
from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError, StateError
from doc_processing_toolkit.domain.events import AgentStreamEvent
from doc_processing_toolkit.ports.telemetry import NO_SPAN, RunSpan

T = TypeVar("T")

__all__ = [
    "STREAM_CANCEL_WAIT_SECONDS",
    "RunExecutor",
    "check_no_client_session",
    "check_run_inputs",
    "log_run_end",
    "run_blocking",
    "stream_run",
]

STREAM_CANCEL_WAIT_SECONDS = 5.0
"""How long closing a stream() generator waits for the cancelled run to unwind."""

_DETACHED: set[asyncio.Task[None]] = set()
"""Runs left going after their stream closed (DPT_STREAM_CANCEL_ON_CLOSE=off)."""


def cancel_on_close() -> bool:
    """False when DPT_STREAM_CANCEL_ON_CLOSE=off (a closed stream's run goes on, unbanked)."""
    return environment.stream_cancel_on_close()


RunExecutor = Callable[
    [EventSink, Callable[[RunLoop], None]],
    Awaitable[tuple[AgentResult, BaseException | None]],
]
"""Runs one turn with a stream sink and a callback receiving the live RunLoop."""


async def stream_run(
    execute: RunExecutor,
    *,
    structured: bool,
    on_abandoned: Callable[[RunLoop | None], Awaitable[None]],
    check: Callable[[], None] | None = None,
) -> AsyncGenerator[AgentStreamEvent, None]:
    """Yield the events of ``execute``'s run as they come; never raise.

    Args:
        structured: The run has an output_schema (``complete`` then carries ``output``).
        on_abandoned: Receives the live RunLoop (None: the run had not reached the loop)
            when the consumer closed the stream while the run was still going, after the
            run was cancelled (not under DPT_STREAM_CANCEL_ON_CLOSE=off).
        check: Argument checks run inside the run (a failure is ``error`` + ``complete``).
    """
    queue: asyncio.Queue[AgentStreamEvent | None] = asyncio.Queue()
    holder: dict[str, RunLoop] = {}

    async def sink(event: AgentStreamEvent) -> None:
        await queue.put(event)

    async def produce() -> None:
        try:
            if check is not None:
                check()
            result, error = await execute(sink, lambda loop: holder.__setitem__("loop", loop))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # bad arguments: still error + complete
            result, error = AgentResult(error=redact(str(exc))), exc
        if error is not None:
            await queue.put(
                AgentStreamEvent("error", result.error, failure_metadata(result, error))
            )
        complete = result.to_dict()
        if result.output is not None and structured:
            complete["output"] = result.output
        await queue.put(AgentStreamEvent("complete", None, complete))
        await queue.put(None)

    task = asyncio.create_task(produce())
    finished = False
    try:
        while True:
            event = await queue.get()
            if event is None:
                finished = True
                break
            yield event
    finally:
        if not finished and not task.done() and not cancel_on_close():
            _DETACHED.add(task)
            task.add_done_callback(_DETACHED.discard)
        elif not finished and not task.done():
            task.cancel()
            try:
                await asyncio.wait_for(
                    asyncio.shield(asyncio.gather(task, return_exceptions=True)),
                    STREAM_CANCEL_WAIT_SECONDS,
                )
            except (TimeoutError, asyncio.CancelledError):
                pass
            await on_abandoned(holder.get("loop"))


def check_no_client_session(server_configs: Any) -> None:
    """run_sync() refuses a pre-built MCP session: it belongs to the loop it was opened on.

    Raises:
        StateError: a tools entry is a pre-built session (``{'session': ...}``).
    """
    if any(c.format == "client_session" for c in server_configs):
        raise StateError(
            "run_sync() cannot use a pre-built session ({'session': ...}): it belongs to "
            "the loop it was opened on. Use await agent.run(...), or let the toolkit own "
            "the connection with {'type': 'mcp_remote_client', ...}"
        )


def run_blocking(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``factory()`` to completion from synchronous code: on a fresh event loop, or,
    when this thread already runs one (Jupyter), on a private loop in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, factory()).result()


def check_run_inputs(message: Any, output_schema: Any) -> None:
    """The two arguments every run takes, checked before anything is sent.

    Raises:
        TypeError: a message that is not a string, or an output_schema that is not a
            pydantic model class.
    """
    if not isinstance(message, str):
        raise InvalidArgumentTypeError(f"message must be a string, got {type(message).__name__}")
    if output_schema is not None and not (
        isinstance(output_schema, type) and issubclass(output_schema, BaseModel)
    ):
        raise InvalidArgumentTypeError("output_schema must be a pydantic BaseModel subclass")


def log_run_end(
    logger: logging.Logger,
    run_id: str,
    result: AgentResult,
    error: BaseException | None,
    span: RunSpan = NO_SPAN,
) -> None:
    """The run's last log line: ERROR naming the failure, else INFO with its totals; and
    the run's totals on its telemetry span."""
    finish_run(span, result, error)
    if error is not None:
        logger.error("run %s failed: %s: %s", run_id, type(error).__name__, result.error)
        return
    if not handled(logger, logging.INFO):
        return  # console-only at WARNING: no record is built for a line nobody sees
    logger.info(
        "run %s finished: iterations=%d tokens=%d cost=%.6f",
        run_id,
        result.iterations,
        result.total_tokens,
        result.cost,
    )

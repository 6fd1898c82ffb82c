"""The hook channel of one run, as the Agent wires it: handle, runner, request_start.

`RunControl` builds the per-run pieces and folds what they recorded into the
result (``injected_messages``, ``undelivered_injections``, an AgentAborted's partial
spend). `RunHandles` is what ``Agent.run_handle`` reads: each active run's
handle, the calling run's own first (a ContextVar), else the newest active run's.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, Self

from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.hooks.handle import RunHandle
from doc_processing_toolkit.application.hooks.request_start import RequestStartEmitter
from doc_processing_toolkit.application.hooks.runner import HookRunner
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.loop.events import EventSink
from doc_processing_toolkit.application.run.loop.loop import RunLoop
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.application.run.stream.streaming import STREAM_CANCEL_WAIT_SECONDS
from doc_processing_toolkit.domain.errors import AgentAborted
from doc_processing_toolkit.domain.events import AgentStreamEvent, EventType

__all__ = ["RunControl", "RunHandles", "report_abandoned"]


class RunHandles:
    """The run handles of one Agent's active runs (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active: list[RunHandle] = []
        self._current: ContextVar[RunHandle | None] = ContextVar("dpt_run_handle", default=None)

    @property
    def current(self) -> RunHandle | None:
        """The calling run's handle, else the newest active run's; None between runs."""
        own = self._current.get()
        with self._lock:
            if own is not None and own in self._active:
                return own
            return self._active[-1] if self._active else None

    @contextlib.contextmanager
    def active(self, handle: RunHandle) -> Iterator[RunHandle]:
        """Register ``handle`` for the duration of the block."""
        token = self._current.set(handle)
        with self._lock:
            self._active.append(handle)
        try:
            yield handle
        finally:
            with self._lock:
                self._active.remove(handle)
            self._current.reset(token)


class RunControl:
    """The handle, hook runner and request_start emitter of one run."""

    def __init__(
        self,
        *,
        hooks: Any | None,
        emit_request_start: bool,
        model: str,
        provider: str,
        sink: EventSink | None,
        logger: Any = None,
    ) -> None:
        self.handle = RunHandle()
        self.runner = HookRunner(hooks, handle=self.handle, logger=logger)
        self.request_start: RequestStartEmitter | None = None
        if emit_request_start:
            self.request_start = RequestStartEmitter(
                model=model,
                provider=provider,
                stream_callback=_tap(sink) if sink is not None else None,
                hooks_runner=self.runner,
            )

    @classmethod
    def start(cls, settings: AgentSettings, *, provider: str, sink: EventSink | None) -> Self:
        """The control of a run starting now, bound to the running loop."""
        control = cls(
            hooks=settings.hooks.handlers,
            emit_request_start=settings.hooks.emit_request_start,
            model=settings.model,
            provider=provider,
            sink=sink,
        )
        control.runner.bind()
        return control

    def close(self) -> None:
        """End of the run however it ended: the queue refuses further injections."""
        self.runner.close_injections()
        self.handle.release()

    def finish(self, result: AgentResult, error: BaseException | None) -> None:
        """Fold the injections into ``result`` (and an abort's partial state into the error);
        closes the queue, so a late ``RunHandle.inject`` is refused."""
        result.injected_messages = list(self.runner.consumed_injections)
        result.undelivered_injections = self.runner.take_undelivered()
        if isinstance(error, AgentAborted):
            error.partial = {
                "input_tokens": result.input_tokens,
                "output_tokens": result.output_tokens,
                "cost": result.cost,
                "iterations": result.iterations,
            }
            error.undelivered_injections = list(result.undelivered_injections)


async def report_abandoned(
    loop: RunLoop | None, result_of: Callable[[RunOutcome, str], AgentResult]
) -> dict[str, Any]:
    """The complete-style record (``"abandoned": True``) of a run whose stream was closed,
    also delivered to its hooks as an observation-only ``run_end`` (bounded wait)."""
    if loop is None or loop.outcome is None:  # closed before the loop began
        return {**AgentResult().to_dict(), "abandoned": True}
    result = result_of(loop.outcome, "abandoned")
    runner = loop.hooks if isinstance(loop.hooks, HookRunner) else None  # RunControl's
    if runner is not None:
        result.injected_messages = list(runner.consumed_injections)
        result.undelivered_injections = list(runner.undelivered)
    spent = {**result.to_dict(), "abandoned": True}
    if runner is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                runner.observe(AgentStreamEvent("run_end", None, dict(spent))),
                STREAM_CANCEL_WAIT_SECONDS,
            )
    return spent


def _tap(sink: EventSink) -> Any:
    def tap(event_type: EventType, content: Any, metadata: dict[str, Any] | None = None) -> Any:
        return sink(AgentStreamEvent(event_type, content, metadata))

    return tap

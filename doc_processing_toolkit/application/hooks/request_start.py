"""RequestStartEmitter: the opt-in ``request_start`` event at every real provider send.

One instance per run, built only when ``Agent(emit_request_start=True)``; with the switch
off no emitter exists and the event stream is unchanged. Views made by
`RequestStartEmitter.for_purpose` share one counter, so ``request_index`` is
monotonic across the whole run (compaction's summarisation calls included).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.hooks.messages import stream_callback_accepts_metadata
from doc_processing_toolkit.application.hooks.runner import HookRunner
from doc_processing_toolkit.domain.costs.ledger import RetryAccumulator
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.events import REQUEST_PURPOSES

__all__ = ["RequestStartEmitter"]

log = get_logger(__name__)


class RequestStartEmitter:
    """Emits the opt-in request_start event at each real provider send.

    Attributes:
        model: The model id the run was started with.
        provider: The provider name.
        purpose: The default purpose stamped on payloads from this view.
    """

    def __init__(
        self,
        *,
        model: str,
        provider: str,
        stream_callback: Callable[..., Any] | None = None,
        hooks_runner: HookRunner | None = None,
        retry_accumulator: RetryAccumulator | None = None,
        purpose: str = "generation",
        _counter: list[int] | None = None,
    ) -> None:
        """Build an emitter for one run.

        Args:
            model: The model id, echoed on every payload.
            provider: The provider name, echoed on every payload.
            stream_callback: The run's streaming tap, ``cb(event_type, content[, metadata])``
                (an awaitable it returns is awaited by `emit`).
            hooks_runner: The run's hook channel (tool-calling path only).
            retry_accumulator: The run's RetryAccumulator (derives ``attempt``).
            purpose: Default purpose for payloads from this view.
            _counter: Internal — the shared one-element request counter.
        """
        _check_purpose(purpose)
        self.model = model
        self.provider = provider
        self.purpose = purpose
        self._callback = stream_callback
        self._with_metadata = stream_callback_accepts_metadata(stream_callback)
        self._hooks = hooks_runner
        self._retry = retry_accumulator
        self._counter = _counter if _counter is not None else [0]

    @property
    def request_count(self) -> int:
        """How many provider sends this run has announced so far (shared by all views)."""
        return self._counter[0]

    def bind_retry_accumulator(self, retry_accumulator: RetryAccumulator) -> None:
        """Attach the run's RetryAccumulator so ``attempt`` can be derived."""
        self._retry = retry_accumulator

    def for_purpose(self, purpose: str) -> RequestStartEmitter:
        """A view with another default purpose, sharing this one's counter and channels."""
        return RequestStartEmitter(
            model=self.model,
            provider=self.provider,
            stream_callback=self._callback,
            hooks_runner=self._hooks,
            retry_accumulator=self._retry,
            purpose=purpose,
            _counter=self._counter,
        )

    def _payload(self, iteration: int, attempt: int | None, purpose: str | None) -> dict[str, Any]:
        chosen = purpose if purpose is not None else self.purpose
        _check_purpose(chosen)
        self._counter[0] += 1
        if attempt is None:
            attempt = len(self._retry.attempts) + 1 if self._retry is not None else 1
        return {
            "request_index": self._counter[0],
            "iteration": iteration,
            "attempt": attempt,
            "purpose": chosen,
            "model": self.model,
            "provider": self.provider,
        }

    def _tap(self, payload: dict[str, Any]) -> Any:
        if self._callback is None:
            return None
        if self._with_metadata:
            return self._callback("request_start", None, payload)
        return self._callback("request_start", None)

    async def emit(
        self, *, iteration: int = 1, attempt: int | None = None, purpose: str | None = None
    ) -> None:
        """Announce a send from an asynchronous loop: stream_callback first, then hooks
        (where the event is observation-only)."""
        payload = self._payload(iteration, attempt, purpose)
        value = self._tap(payload)
        if inspect.isawaitable(value):
            await value
        if self._hooks is not None:
            await self._hooks.emit("request_start", None, dict(payload))

    def emit_sync(
        self, *, iteration: int = 1, attempt: int | None = None, purpose: str | None = None
    ) -> None:
        """Announce a send from a synchronous path: stream_callback only."""
        payload = self._payload(iteration, attempt, purpose)
        value = self._tap(payload)
        if inspect.iscoroutine(value):
            value.close()
            log.warning("request_start: an async stream_callback cannot be awaited by emit_sync")

    def __repr__(self) -> str:
        return (
            f"RequestStartEmitter(model={self.model!r}, provider={self.provider!r}, "
            f"purpose={self.purpose!r}, request_count={self.request_count})"
        )


def _check_purpose(purpose: str) -> None:
    if purpose not in REQUEST_PURPOSES:
        raise ConfigurationError(
            f"request purpose {purpose!r} is not one of {', '.join(REQUEST_PURPOSES)}"
        )

"""The one retry layer: every provider request goes through `stream_with_retry`.

SDK retries are off (``max_retries=0`` in every adapter), so a failure is retried here
exactly once per attempt and every failed attempt is costed once:

* retried: 408, 409, 429, 5xx, 529, connection errors, and a stream that broke —
  but a mid-stream failure only while no delta has reached the caller;
* waits honour ``retry-after`` / ``retry-after-ms`` (capped), else exponential backoff
  with jitter;
* attempts = 1 + ``max_retries``, plus at most one re-send of a changed request when
  ``rebind`` returns one for a failure (the prefix-binding 400): not waited for, and
  costed like any failed attempt;
* each failed attempt becomes a ``RetryAttemptCost`` on the run's ``RetryAccumulator``;
  an attempt the provider refused before streaming (``rejected_before_stream``) costs 0.

The first attempt is a plain call: tenacity is imported and entered only after a failure
it would retry, which it then sees as its attempt 1 (so nothing else changes).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit._redaction import scrub_exception_chain
from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.telemetry import runtime as telemetry
from doc_processing_toolkit.domain.costs.ledger import RetryAccumulator, RetryAttemptCost
from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse, StreamDelta, Usage
from doc_processing_toolkit.ports.model_client import ModelClient

if TYPE_CHECKING:
    from tenacity import RetryCallState

__all__ = ["RetryPolicy", "stream_with_retry"]

log = get_logger(__name__)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How failed provider requests are retried."""

    max_retries: int = 3
    """Retries after the first attempt (attempts = 1 + max_retries)."""
    retry_after_cap: float = 30.0
    """The longest server-requested wait honoured, in seconds."""
    backoff_initial: float = 0.5
    backoff_max: float = 8.0

    @classmethod
    def from_env(cls) -> RetryPolicy:
        """Defaults, overridden by DPT_MAX_RETRIES / DPT_RETRY_AFTER_CAP_S /
        DPT_RETRY_BACKOFF_S (the first backoff step, seconds)."""
        return _policy_for(*environment.retry_values())


@functools.lru_cache(maxsize=8)
def _policy_for(retries: str | None, cap: str | None, backoff: str | None) -> RetryPolicy:
    """The policy of these environment values (built once per distinct set: a request
    reads three variables, not a new object)."""
    return RetryPolicy(
        max_retries=int(retries) if retries and retries.isdigit() else 3,
        retry_after_cap=float(cap) if cap else 30.0,
        backoff_initial=float(backoff) if backoff else 0.5,
    )


def _should_retry(exc: BaseException) -> bool:
    return isinstance(exc, ProviderError) and exc.retryable and not exc.deltas_emitted


class _Wait:
    """retry-after when the provider sent one (capped), else jittered exponential backoff;
    none before a rebound re-send."""

    def __init__(self, policy: RetryPolicy, rebound: list[BaseException] | None = None) -> None:
        from tenacity import wait_random_exponential  # lazily: not at package import

        self._policy = policy
        self._rebound = rebound if rebound is not None else []
        self._backoff = wait_random_exponential(
            multiplier=policy.backoff_initial, max=policy.backoff_max
        )

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if exc is not None and any(exc is r for r in self._rebound):
            return 0.0
        if isinstance(exc, ProviderError) and exc.retry_after is not None:
            return max(0.0, min(exc.retry_after, self._policy.retry_after_cap))
        return float(self._backoff(state))


def _attempt_cost(
    exc: ProviderError,
    attempt_number: int,
    duration_ms: int,
    price: Callable[[Usage], tuple[float, bool]],
) -> RetryAttemptCost:
    usage = exc.partial_usage
    if exc.before_stream or usage is None:
        source = "rejected_before_stream" if exc.before_stream else "no_charge"
        return RetryAttemptCost(
            attempt_number=attempt_number,
            input_tokens=0,
            output_tokens=0,
            reasoning_tokens=0,
            cached_input_tokens=0,
            cost=0.0,
            token_source=source,
            error=str(exc),
            duration_ms=duration_ms,
            cost_estimated=False,
        )
    cost, estimated = price(usage)
    return RetryAttemptCost(
        attempt_number=attempt_number,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        cost=cost,
        token_source="stream_partial",
        error=str(exc),
        duration_ms=duration_ms,
        cost_estimated=estimated,
    )


async def stream_with_retry(
    client: ModelClient,
    request: ModelRequest,
    *,
    on_delta: Callable[[StreamDelta], Awaitable[None]] | None,
    accumulator: RetryAccumulator,
    price: Callable[[Usage], tuple[float, bool]],
    policy: RetryPolicy | None = None,
    before_send: Callable[[int], Awaitable[None]] | None = None,
    rebind: Callable[[ProviderError, ModelRequest], ModelRequest | None] | None = None,
) -> ModelResponse:
    """Stream ``request`` through ``client``, retrying per ``policy``.

    Args:
        on_delta: receives every delta of the attempt that streams; once one was
            delivered, a failure of that attempt is no longer retried. None when
            nothing takes the deltas (a run without a stream consumer).
        accumulator: collects one RetryAttemptCost per failed attempt.
        price: prices a partial Usage as (cost, estimated).
        before_send: awaited with the 1-based attempt number before each send
            (the request_start event).
        rebind: asked once about a failure the policy would not retry; a request it
            returns is sent next, once per call (the prefix-binding re-send).

    Raises:
        ProviderError: the last failure, when attempts are exhausted or it is not retryable.
    """
    policy = policy or RetryPolicy.from_env()
    response: ModelResponse | None = None
    rebound: list[BaseException] = []

    def should_retry(exc: BaseException) -> bool:
        return _should_retry(exc) or any(exc is r for r in rebound)

    async def send(number: int) -> None:
        """One attempt: its deltas to ``on_delta``, its response to ``response``; a failure
        is costed (when it will be retried), logged and raised."""
        nonlocal request, response
        if before_send is not None:
            await before_send(number)
        started = time.monotonic()
        emitted = False
        streamed_chars = 0  # text and reasoning: the output estimate of a usage-less failure
        span = telemetry.attempt_started(client.provider, request, number)
        try:
            async for item in client.stream(request):
                if isinstance(item, ModelResponse):
                    response = item
                else:
                    emitted = True
                    streamed_chars += len(getattr(item, "text", ""))
                    if on_delta is not None:
                        await on_delta(item)
            if response is None:
                raise ProviderError(
                    f"{client.provider} stream ended without a response",
                    provider=client.provider,
                )
            telemetry.request_answered(span, response)
        except BaseException as exc:
            if not isinstance(exc, ProviderError):  # cancelled, a hook's abort, a bug
                telemetry.attempt_failed(span, exc, None, retried=False)
                raise
            scrub_exception_chain(exc)  # no SDK body (and no echoed key) in the chain
            exc.streamed_chars = streamed_chars
            exc.deltas_emitted = exc.deltas_emitted or emitted
            will_retry = _should_retry(exc) and number <= policy.max_retries + len(rebound)
            if not will_retry and rebind is not None and not rebound:
                changed = rebind(exc, request)
                if changed is not None:
                    request, will_retry = changed, True
                    rebound.append(exc)
            attempt_cost = None
            if will_retry:
                # Only failed-AND-retried attempts go on the accumulator; the final
                # failure's partial usage travels on the exception to the run's error.
                duration_ms = int((time.monotonic() - started) * 1000)
                attempt_cost = _attempt_cost(exc, number, duration_ms, price)
                accumulator.add_attempt(attempt_cost)
            telemetry.attempt_failed(span, exc, attempt_cost, retried=will_retry)
            log.warning(
                "provider request failed",
                provider=client.provider,
                model=request.model,
                attempt=number,
                status_code=exc.status_code,
                error_type=type(exc).__name__,
                retry_after=exc.retry_after,
                will_retry=will_retry,
            )
            raise

    # The first attempt is a plain call: tenacity only once it failed retryably.
    try:
        await send(1)
    except ProviderError as exc:
        if not should_retry(exc):
            raise
        first: ProviderError | None = exc
    else:
        assert response is not None
        return response

    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

    async for attempt in AsyncRetrying(
        stop=lambda state: stop_after_attempt(policy.max_retries + 1 + len(rebound))(state),
        wait=_Wait(policy, rebound),
        retry=retry_if_exception(should_retry),
        reraise=True,
    ):
        with attempt:
            if first is not None:  # attempt 1 is the plain call's: its failure decides
                failed, first = first, None
                raise failed
            await send(attempt.retry_state.attempt_number)
    assert response is not None
    return response

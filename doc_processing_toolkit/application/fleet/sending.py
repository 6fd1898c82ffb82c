"""A fleet job's model client: every request a checkpointed step behind a rate permit.

`JobModelClient` is what the run loop of a fleet job talks to (installed through
the run scope, see `step_scope`). Each
attempt at a request is: a permit on the provider's lane (the fleet-wide rate limit,
when one is set), then one durable step that sends the request and returns its
`ModelResponse`. A resumed job gets completed steps back from the checkpoint, so a
completed request is never sent again and its usage (hence its cost) is the recorded one.
The step is a *marked* one: its start is recorded before the request goes out, so a
request in flight when the worker died (maybe answered and billed, never checkpointed)
is counted in the job's ``unrecorded_requests`` when the job resumes and sends it again.

A 429 does not fail the job: the step returns a `Throttled` marker, the worker's
`ProviderGate` pauses every send to that provider (exponential, or the server's
``retry-after``), and the request tries again with a fresh permit. So a rate-limit storm
slows the fleet down instead of failing jobs; only a storm longer than
``storm_seconds`` for one request ends in the RateLimitError.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import anyio

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.errors import ProviderError, RateLimitError
from doc_processing_toolkit.domain.fleet import RateLimit
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse, StreamItem
from doc_processing_toolkit.ports.durable import DurableSteps
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["JobModelClient", "ProviderGate", "Throttled", "collect_response"]

log = get_logger(__name__)

Send = Callable[[ModelRequest], Awaitable[ModelResponse]]
"""Sends one request and returns its response (interactive, or through a batch)."""


@dataclass(frozen=True, slots=True)
class Throttled:
    """A step's output when the provider answered 429 (checkpointed like a response)."""

    retry_after: float | None
    message: str


async def collect_response(client: ModelClient, request: ModelRequest) -> ModelResponse:
    """Drain ``client.stream(request)`` and return its final ModelResponse."""
    response: ModelResponse | None = None
    async for item in client.stream(request):
        if isinstance(item, ModelResponse):
            response = item
    if response is None:  # pragma: no cover - a broken adapter
        raise ProviderError(
            f"{client.provider} client ended its stream without a response",
            provider=client.provider,
        )
    return response


class ProviderGate:
    """One worker's view of one provider: the 429 pause and the token budget.

    Shared by every job of the worker, so one job's 429 slows all of them.
    """

    def __init__(
        self,
        provider: str,
        limit: RateLimit | None = None,
        *,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.provider = provider
        self._limit = limit
        self._initial = backoff_initial
        self._max = backoff_max
        self._backoff = backoff_initial
        self._clock = clock
        self._paused_until = 0.0
        self._tokens: deque[tuple[float, int]] = deque()
        self.throttled = 0
        """429s seen by this worker for this provider."""

    async def before_send(self) -> None:
        """Wait out a 429 pause and, with a token limit, until the window has room."""
        while True:
            now = self._clock()
            wait = self._paused_until - now
            if wait <= 0 and self._over_tokens(now):
                wait = self._tokens[0][0] + self._period - now
            if wait <= 0:
                return
            await anyio.sleep(min(wait, 1.0))

    @property
    def _period(self) -> float:
        return self._limit.period_seconds if self._limit is not None else 60.0

    def _over_tokens(self, now: float) -> bool:
        if self._limit is None or self._limit.tokens is None:
            return False
        while self._tokens and self._tokens[0][0] <= now - self._period:
            self._tokens.popleft()
        return bool(self._tokens) and sum(n for _, n in self._tokens) >= self._limit.tokens

    def rate_limited(self, retry_after: float | None) -> float:
        """A 429 came back: pause every send; returns the pause in seconds."""
        self.throttled += 1
        pause = retry_after if retry_after is not None and retry_after > 0 else self._backoff
        self._backoff = min(self._backoff * 2, self._max)
        self._paused_until = max(self._paused_until, self._clock() + pause)
        if self.throttled == 1 or self.throttled % 50 == 0:
            log.warning(
                "rate limited (429): the fleet slows down instead of failing jobs",
                provider=self.provider,
                pause_seconds=round(pause, 3),
                throttled=self.throttled,
            )
        return pause

    def succeeded(self, tokens: int) -> None:
        """A request went through: the backoff resets; its tokens count in the window."""
        self._backoff = self._initial
        if self._limit is not None and self._limit.tokens is not None:
            self._tokens.append((self._clock(), tokens))


class JobModelClient:
    """The ModelClient of one fleet job (see the module docstring)."""

    def __init__(
        self,
        inner: ModelClient,
        steps: DurableSteps,
        gate: ProviderGate,
        *,
        send: Send | None = None,
        lane: str | None = None,
        storm_seconds: float = 900.0,
        answered: Callable[[], None] | None = None,
    ) -> None:
        """Args:
        inner: The Agent's client (the one that sends, unless ``send`` is given).
        steps: The job's checkpoints.
        gate: The worker's gate for this provider.
        send: Sends one request (a batching client's ``send``); default: ``inner``.
        lane: The rate-limited lane to take a permit on before each attempt (None: no
            fleet-wide rate limit).
        storm_seconds: How long one request may keep meeting 429s before it fails.
        answered: Called once per response the job gets (live or from the checkpoint).
        """
        self._inner = inner
        self._steps = steps
        self._gate = gate
        self._send = send
        self._lane = lane
        self._storm_seconds = storm_seconds
        self._answered = answered
        self.provider = inner.provider

    async def aclose(self) -> None:
        """The Agent owns (and closes) the inner client."""

    async def _attempt(self, request: ModelRequest) -> ModelResponse | Throttled:
        await self._gate.before_send()
        try:
            if self._send is not None:
                response = await self._send(request)
            else:
                response = await collect_response(self._inner, request)
        except RateLimitError as exc:
            return Throttled(exc.retry_after, exc.message)
        usage = response.usage
        self._gate.succeeded(usage.input_tokens + usage.output_tokens)
        return response

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """One request as checkpointed attempts; yields its ModelResponse only."""
        storm_started: float | None = None
        while True:
            if self._lane is not None:
                await self._steps.rate_permit(self._lane)

            async def attempt() -> ModelResponse | Throttled:
                return await self._attempt(request)

            outcome = await self._steps.marked_step(f"model:{request.purpose}", attempt)
            if isinstance(outcome, ModelResponse):
                if self._answered is not None:
                    self._answered()
                yield outcome
                return
            now = time.monotonic()
            storm_started = now if storm_started is None else storm_started
            if now - storm_started > self._storm_seconds:
                raise RateLimitError(
                    f"{self.provider} kept answering 429 for {self._storm_seconds:g} s: "
                    f"{outcome.message}",
                    provider=self.provider,
                    status_code=429,
                    retry_after=outcome.retry_after,
                    before_stream=True,
                )
            self._gate.rate_limited(outcome.retry_after)

"""Batch mode: the next model request of every running job goes out in one provider batch.

A `RoundBatcher` serves one provider on one worker. Every job that runs joins it;
each job's request waits in the batcher (``send``) until every joined job is waiting (the
round is complete) and nothing has changed for ``settle_seconds``, or until the first
request of the round has waited ``window_seconds``. Then one
`run_batch` carries them all, and
each job gets its own `ModelResponse` back (priced at the row's batch price: the
responses say ``served_tier="batch"``) or its own ProviderError, which the run loop's
retry layer handles as for any request. The run loop does not know it was batched.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse
from doc_processing_toolkit.ports.batch import BatchClient

__all__ = ["RoundBatcher"]

log = get_logger(__name__)


class RoundBatcher:
    """Collects one round of requests from the running jobs into one batch."""

    def __init__(
        self,
        client: BatchClient,
        *,
        settle_seconds: float = 0.2,
        window_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._settle = settle_seconds
        self._window = window_seconds
        self._clock = clock
        self._active = 0
        self._serial = 0
        self._pending: dict[str, tuple[ModelRequest, asyncio.Future[ModelResponse]]] = {}
        self._changed = clock()
        self._round: asyncio.Task[None] | None = None
        self.batches_sent = 0
        """Batches submitted so far."""

    @property
    def provider(self) -> str:
        """The provider of the batch client."""
        return self._client.provider

    def join(self) -> None:
        """A job starts on this worker."""
        self._active += 1
        self._changed = self._clock()

    def leave(self) -> None:
        """A job ends (done or failed): the round no longer waits for it."""
        self._active = max(0, self._active - 1)
        self._changed = self._clock()

    async def send(self, request: ModelRequest) -> ModelResponse:
        """Queue ``request`` for the current round and wait for its outcome."""
        self._serial += 1
        key = f"r{self._serial}"
        future: asyncio.Future[ModelResponse] = asyncio.get_running_loop().create_future()
        self._pending[key] = (request, future)
        self._changed = self._clock()
        if self._round is None or self._round.done():
            self._round = asyncio.get_running_loop().create_task(self._run_round())
        return await future

    def _ready(self, started: float) -> bool:
        now = self._clock()
        if now - started >= self._window:
            return True
        return len(self._pending) >= self._active and now - self._changed >= self._settle

    async def _run_round(self) -> None:
        try:
            await self._one_round()
        finally:
            if self._pending:  # requests that came while the batch ran: the next round
                self._round = asyncio.get_running_loop().create_task(self._run_round())

    async def _one_round(self) -> None:
        started = self._clock()
        while self._pending and not self._ready(started):  # noqa: ASYNC110 (a timed poll)
            await asyncio.sleep(max(self._settle / 4, 0.005))
        batch, self._pending = self._pending, {}
        if not batch:
            return
        self.batches_sent += 1
        log.info(
            "batch round submitted",
            provider=self.provider,
            requests=len(batch),
            batch=self.batches_sent,
        )
        try:
            outcomes = await self._client.run_batch({k: r for k, (r, _) in batch.items()})
        except BaseException as exc:
            for _, future in batch.values():
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        for key, (_, future) in batch.items():
            if future.done():
                continue
            outcome = outcomes.get(key)
            if isinstance(outcome, ModelResponse):
                future.set_result(outcome)
            elif isinstance(outcome, ProviderError):
                future.set_exception(outcome)
            else:
                future.set_exception(
                    ProviderError(
                        f"the {self.provider} batch returned no outcome for request {key}",
                        provider=self.provider,
                    )
                )

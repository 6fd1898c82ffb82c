"""The summarisation call: one request through a ModelClient and the one retry layer,
costed as its own record with purpose ``compaction_summary``."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from doc_processing_toolkit.application.run.policy.retry import RetryPolicy, stream_with_retry
from doc_processing_toolkit.domain.compaction.strategies import transcript
from doc_processing_toolkit.domain.costs.ledger import CostRecord, RetryAccumulator, price_request
from doc_processing_toolkit.domain.messages import Message, user_text
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, StreamDelta, Usage
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["SUMMARY_PURPOSE", "SummaryCall", "SummaryOutcome", "request_summary"]

SUMMARY_PURPOSE = "compaction_summary"
"""The purpose of a summarisation request (request_start, cost records)."""


@dataclass(frozen=True, slots=True)
class SummaryOutcome:
    """What a summarisation request produced and cost."""

    text: str
    record: CostRecord
    duration_ms: int
    stop_reason: str
    retries_before: int


@dataclass(frozen=True, slots=True)
class SummaryCall:
    """Everything a summarisation request needs besides the messages."""

    client: ModelClient
    model: str
    row: ModelInfo | None
    prompt: str
    max_tokens: int
    accumulator: RetryAccumulator
    """Receives the failed-and-retried attempts (the run's, in a run)."""
    before_send: Callable[[int], Awaitable[None]] | None = None
    """Awaited with the attempt number before each send (request_start)."""
    policy: RetryPolicy | None = None
    iteration: int = 0
    request_index: int = 1
    max_transcript_chars: int = 400_000


async def request_summary(call: SummaryCall, head: Sequence[Message]) -> SummaryOutcome:
    """Summarise ``head``.

    Raises:
        ProviderError: the request failed after the retry layer's attempts.
    """
    text = transcript(head)
    if len(text) > call.max_transcript_chars:  # keep the newest part of a huge transcript
        text = "[...]\n" + text[-call.max_transcript_chars :]
    request = ModelRequest(
        model=call.model,
        messages=(user_text(f"Summarise this conversation transcript:\n\n{text}"),),
        system=call.prompt,
        max_tokens=call.max_tokens,
        purpose=SUMMARY_PURPOSE,
    )

    async def ignore(_: StreamDelta) -> None:
        return None

    def price(usage: Usage) -> tuple[float, bool]:
        record = price_request(usage, call.row)
        return record.cost, record.cost_estimated

    retries_before = len(call.accumulator.attempts)
    started = time.monotonic()
    response = await stream_with_retry(
        call.client,
        request,
        on_delta=ignore,
        accumulator=call.accumulator,
        price=price,
        policy=call.policy,
        before_send=call.before_send,
    )
    record = price_request(
        response.usage,
        call.row,
        served_tier=response.served_tier,
        served_model=response.model,
        purpose=SUMMARY_PURPOSE,
        iteration=call.iteration,
        request_index=call.request_index,
    )
    return SummaryOutcome(
        text=response.message.text,
        record=record,
        duration_ms=int((time.monotonic() - started) * 1000),
        stop_reason=response.stop_reason,
        retries_before=retries_before,
    )

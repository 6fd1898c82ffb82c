"""Deltas skip the event channel without a consumer, and still end retries."""

from __future__ import annotations

import asyncio

import pytest

from doc_processing_toolkit.testing import FakeModel, reply
from tests.unit.application.support import agent_with_add as _agent


def test_deltas_skip_the_channel_without_a_consumer_and_still_end_retries() -> None:
    """Without a stream consumer the loop hands no delta to the event channel, yet a
    stream that failed after its first delta is still not retried (its text may have
    reached someone on the streamed path), on run() as on stream()."""
    from doc_processing_toolkit import ProviderError
    from doc_processing_toolkit.testing import Fault

    def fake() -> FakeModel:
        return FakeModel([Fault("disconnect", partial_text="half an answer"), reply("again")])

    quiet = fake()
    with pytest.raises(ProviderError):
        _agent(quiet).run_sync("go")
    assert len(quiet.requests) == 1  # not retried: a delta had streamed

    loud = fake()

    async def streamed() -> tuple[str, list[str]]:
        agent = _agent(loud)
        texts, kinds = [], []
        async for event in agent.stream("go"):
            kinds.append(event.event_type)
            if event.event_type == "text_delta":
                texts.append(event.content)
        return "".join(texts), kinds

    text, kinds = asyncio.run(streamed())
    assert text == "half an answer" and "error" in kinds
    assert len(loud.requests) == 1

"""A request refused before streaming says so on the run's cost record."""

from __future__ import annotations

import asyncio

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.domain.errors import BadRequestError, RateLimitError
from doc_processing_toolkit.testing import FakeModel, Fault, tool_call


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_a_request_refused_before_streaming_reports_rejected_before_stream() -> None:
    agent = Agent("claude-sonnet-4-5", client=FakeModel([Fault(status=400)]), log_to_file=False)
    with pytest.raises(BadRequestError):
        agent.run_sync("hi")

    async def drain(agent: Agent) -> dict[str, object]:
        events = [e async for e in agent.stream("hi")]
        assert events[-1].metadata is not None
        return events[-1].metadata

    rejected = Agent(
        "claude-sonnet-4-5",
        client=FakeModel([Fault(status=429, retry_after=0.0)] * 4),
        log_to_file=False,
    )
    complete = asyncio.run(drain(rejected))
    assert complete["token_source"] == "rejected_before_stream"
    assert complete["retry_count"] == 3 and complete["cost"] == 0.0
    with pytest.raises(RateLimitError):
        Agent(
            "claude-sonnet-4-5",
            client=FakeModel([Fault(status=429, retry_after=0.0)] * 4),
            log_to_file=False,
        ).run_sync("hi")
    bad = Agent("claude-sonnet-4-5", client=FakeModel([Fault(status=400)]), log_to_file=False)
    assert asyncio.run(drain(bad))["token_source"] == "rejected_before_stream"
    # a failure after a successful request keeps the provider-reported source
    later = Agent(
        "claude-sonnet-4-5",
        tools=[calculate],
        client=FakeModel([tool_call("calculate", {"a": 1, "b": 2}), Fault(status=400)]),
        log_to_file=False,
    )
    assert asyncio.run(drain(later))["token_source"] == "api_response"

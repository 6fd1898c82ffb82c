"""Three run defects, fixed: one price warning per Agent, tools_used lists what executed
in call order, and a request refused before streaming says so on the run's cost record."""

from __future__ import annotations

import asyncio
import logging

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.domain.errors import BadRequestError, RateLimitError
from doc_processing_toolkit.testing import FakeModel, Fault, Reply, ToolCall, reply, tool_call


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_an_unknown_model_warns_about_its_price_once_per_agent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = FakeModel(
        [tool_call("calculate", {"a": 1, "b": 1}), reply("2"), reply("again")],
        provider="fireworks",
    )
    with caplog.at_level(logging.WARNING):
        agent = Agent("kimi-k3", tools=[calculate], client=fake, log_to_file=False)
        first = agent.run_sync("1+1")
        second = agent.run_sync("and again")
    assert first.cost_estimated and second.cost_estimated
    price = [r for r in caplog.records if "price" in r.getMessage()]
    assert len(price) == 1, [r.getMessage() for r in price]
    other = Agent("kimi-k3", client=FakeModel([reply("x")], provider="fireworks"))
    with caplog.at_level(logging.WARNING):
        other.run_sync("hi")
    assert len([r for r in caplog.records if "no known price" in r.getMessage()]) == 2


@pytest.mark.anyio
async def test_tools_used_lists_executed_tools_in_call_order() -> None:
    @tool
    async def slow() -> str:
        """Finishes last."""
        await asyncio.sleep(0.05)
        return "slow"

    @tool
    async def fast() -> str:
        """Finishes first."""
        return "fast"

    fake = FakeModel(
        [
            Reply(tool_calls=(ToolCall("slow"), ToolCall("no_such_tool"), ToolCall("fast"))),
            reply("done"),
        ]
    )
    agent = Agent("claude-sonnet-4-5", tools=[slow, fast], client=fake, log_to_file=False)
    result = await agent.run("go")
    assert result.tools_used == ["slow", "fast"]  # call order; the unknown name is not used
    unknown = fake.requests[1].messages[-1].parts[1]
    assert unknown.is_error  # type: ignore[union-attr]


def test_a_tool_hidden_by_allowed_tools_is_not_listed_as_used() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
    from http_mcp_server import load_fixture

    server = load_fixture("sample_mcp_server").build_server("calculator")
    entry = {"type": "fastmcp", "server": server, "allowed_tools": ["add"]}
    fake = FakeModel(
        [
            Reply(tool_calls=(ToolCall("echo", {"text": "x"}), ToolCall("add", {"a": 1, "b": 2}))),
            reply("3"),
        ]
    )
    result = Agent("claude-sonnet-4-5", tools=[entry], client=fake).run_sync("1+2")
    assert result.tools_used == ["add"]


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

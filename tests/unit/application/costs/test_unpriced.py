"""A model with no known price: cost 0.0, estimated, and one warning per Agent."""

from __future__ import annotations

import logging

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import (
    FakeModel,
    reply,
    tool_call,
)


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


def test_unknown_price_costs_zero_estimated_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 1}), reply("2")], provider="fireworks")
    agent = Agent("kimi-k3", tools=[calculate], client=fake)
    with caplog.at_level(logging.WARNING):
        result = agent.run_sync("1+1")
    assert result.cost == 0.0
    assert result.cost_estimated is True
    assert len(result.request_cost_records) == 2
    warnings = [r for r in caplog.records if "no known price" in r.getMessage()]
    assert len(warnings) == 1

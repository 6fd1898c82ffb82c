"""Every class of failure a run can meet after it started raises an error that carries
the run's partial result: tokens, cost, retry cost and the per-request records."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from doc_processing_toolkit import (
    Agent,
    AgentResult,
    ConfigurationError,
    DocProcessingToolkitError,
    ProviderError,
    ServerError,
    StreamIdleTimeoutError,
    StreamInterruptedError,
    StructuredOutputError,
    tool,
)
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Fault, ScriptStep, reply, tool_call

pytestmark = pytest.mark.anyio


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


class Answer(BaseModel):
    number: int


FIRST_ROUND: list[ScriptStep] = [tool_call("lookup", {"key": "a"}, id="toolu_1")]
"""A completed request (a tool round) before the failure, so the partial has a record."""
CASES: dict[str, tuple[list[ScriptStep], type[DocProcessingToolkitError], dict[str, Any]]] = {
    "server errors after retries": (
        [Fault("status", status=500, retry_after=0)] * 4,
        ServerError,
        {},
    ),
    "a broken stream before any text, after retries": (
        [Fault("malformed", input_tokens=300)] * 4,
        StreamInterruptedError,
        {},
    ),
    "a stream that broke after text": (
        [Fault("disconnect", partial_text="Half an ans", input_tokens=200)],
        StreamInterruptedError,
        {},
    ),
    "an idle stream after text": (
        [Fault("stall", partial_text="Wait", stall_seconds=5, keepalive_interval=0.1)],
        StreamIdleTimeoutError,
        {"stream_idle_timeout": 0.5},
    ),
    "structured output that does not validate": (
        [reply('{"number": "not a number"}')],
        StructuredOutputError,
        {},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_a_failed_run_carries_its_partial_result(
    name: str, emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")
    monkeypatch.setenv("DPT_RETRY_AFTER_CAP_S", "0")
    steps, expected, kwargs = CASES[name]
    emu.reset([*FIRST_ROUND, *steps])
    agent = Agent(
        "claude-sonnet-5-5",
        api_key="offline-test-key",
        base_url=emu.anthropic_base_url,
        tools=[lookup],
        **kwargs,
    )
    structured = expected is StructuredOutputError
    with pytest.raises(expected) as info:
        await agent.run("go", output_schema=Answer if structured else None)
    await agent.close()

    partial = info.value.partial_result
    assert isinstance(partial, AgentResult)
    assert not partial.success and partial.error
    assert partial.tools_used == ["lookup"]
    records = partial.request_cost_records
    assert len(records) >= 1  # the tool round's request at least
    assert partial.input_tokens >= records[0]["input_tokens"] > 0
    assert partial.cost >= sum(r["cost"] for r in records) > 0
    retried = 3 if len(steps) == 4 else 0
    assert partial.retry_count == retried
    assert emu.request_count == len(FIRST_ROUND) + len(steps)
    if isinstance(info.value, ProviderError) and info.value.partial_usage is not None:
        # what the failed stream reported is in the spend (the retried attempts' too)
        assert partial.input_tokens > records[0]["input_tokens"]
        assert partial.cost > sum(r["cost"] for r in records)
    if name == "a broken stream before any text, after retries":
        assert partial.retry_input_tokens == 3 * 300
        assert partial.retry_cost > 0


async def test_a_run_that_fails_before_its_first_request_carries_an_empty_partial_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    agent = Agent("claude-sonnet-5-5", log_to_file=False)
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY") as info:
        await agent.run("go")
    await agent.close()
    partial = info.value.partial_result
    assert isinstance(partial, AgentResult)
    assert partial.cost == 0.0 and partial.request_cost_records == [] and partial.input_tokens == 0
    assert partial.error is not None and "ANTHROPIC_API_KEY" in partial.error

"""Tool-call arguments that are not valid JSON, through the real SDKs against the
emulator: the call is answered with an error result that says so and quotes the first
200 characters, and the tool does not run (Gemini's ``args`` is an object on the wire, so
only the three dialects with argument text can send such a call)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.domain.messages import ToolResultPart
from doc_processing_toolkit.domain.tools.specs import ToolOutcome
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply, ToolCall, reply

MODELS = {"anthropic": "claude-sonnet-5-5", "openai": "gpt-4o", "fireworks": "kimi-k2p6"}
BROKEN = '{"city": "Paris", "days": 3' + ", " * 150 + '"unit": '
"""Cut-off arguments, longer than the 200 characters the error quotes."""


def weather_tool(calls: list[dict[str, Any]]) -> Any:
    @tool
    def weather(city: str, days: int = 1) -> str:
        """The forecast for a city."""
        calls.append({"city": city, "days": days})
        return f"sunny in {city}"

    return weather


@pytest.mark.anyio
@pytest.mark.parametrize("provider", list(MODELS))
async def test_invalid_json_arguments_get_an_error_result_and_the_tool_does_not_run(
    provider: str, emu: ProviderEmulator
) -> None:
    calls: list[dict[str, Any]] = []
    emu.reset(
        [
            Reply(tool_calls=(ToolCall("weather", raw_arguments=BROKEN),)),
            Reply(tool_calls=(ToolCall("weather", {"city": "Oslo"}),)),
            reply("done"),
        ]
    )
    agent = Agent(
        MODELS[provider],
        api_key="offline-test-key",
        base_url=getattr(emu, f"{provider}_base_url"),
        tools=[weather_tool(calls)],
    )
    result = await agent.run("weather?")
    await agent.close()

    assert result.output == "done"
    assert calls == [{"city": "Oslo", "days": 1}]  # the broken call never ran
    assert result.tools_used == ["weather"]
    told = ToolOutcome.invalid_arguments("weather", BROKEN).text
    assert told.startswith("Error: the arguments for tool weather were not valid JSON")
    assert told.endswith(f"(first 200 of {len(BROKEN)} characters): {BROKEN[:200]}")
    assert json.dumps(told)[1:-1] in json.dumps(emu.requests[1].body)  # the model was told


@pytest.mark.anyio
async def test_the_error_result_quotes_the_arguments_in_the_run_history() -> None:
    calls: list[dict[str, Any]] = []
    model = FakeModel(
        [
            Reply(tool_calls=(ToolCall("weather", raw_arguments="{city: Paris}", id="c1"),)),
            reply("ok"),
        ]
    )
    agent = Agent("claude-sonnet-5-5", client=model, tools=[weather_tool(calls)])
    result = await agent.run("weather?")

    assert calls == []
    assert result.tools_used == []
    (answer,) = [
        part
        for message in model.requests[1].messages
        for part in message.parts
        if isinstance(part, ToolResultPart)
    ]
    assert answer.is_error and answer.call_id == "c1"
    text = answer.content[0].text  # type: ignore[union-attr]
    assert "were not valid JSON, so the tool was not run" in text
    assert text.endswith("The arguments sent: {city: Paris}")
    assert result.output == "ok"

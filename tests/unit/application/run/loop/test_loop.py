"""The run loop's tool rounds: tools_used lists what executed, in call order; a failing
tool session fails the run alike for one call or several."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.tools.tool_set import ToolSet
from doc_processing_toolkit.testing import FakeModel, Reply, ToolCall, reply
from tests.unit.application.support import agent_with_add as _agent


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

    sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "fixtures"))
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


@pytest.mark.parametrize("calls", [1, 2])
def test_a_failing_tool_session_fails_the_run_alike_for_one_call_or_two(
    monkeypatch: pytest.MonkeyPatch, calls: int
) -> None:
    async def broken(self: ToolSet, name: str, arguments: dict[str, Any], **keywords: Any) -> Any:
        raise RuntimeError("the transport is gone")

    monkeypatch.setattr(ToolSet, "call", broken)
    first = Reply(
        tool_calls=tuple(ToolCall(name="add", arguments={"a": 1, "b": i}) for i in range(calls))
    )
    with pytest.raises(ExceptionGroup) as info:
        _agent(FakeModel([first, reply("never")])).run_sync("go")
    assert [type(e) for e in info.value.exceptions] == [RuntimeError] * calls

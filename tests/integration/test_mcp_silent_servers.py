"""An MCP server that answers ``initialize`` and then never answers a request does not
hold a run: ``tools/list`` is bounded (``MCPTimeoutError`` naming the server) and a tool
call is bounded (an error result the model reads). Real stdio servers, short timeouts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent, MCPConnectionError, MCPTimeoutError
from doc_processing_toolkit.adapters.mcp import timeouts
from doc_processing_toolkit.adapters.mcp.stdio import StdioMCPSession
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply, tool_call

SCRIPT = str(Path(__file__).resolve().parents[1] / "fixtures" / "silent_mcp_server.py")
BOUND_S = 30.0
"""How long a test waits before it calls the run hung (never reached when it passes)."""
pytestmark = pytest.mark.anyio


def _silent(mode: str, **extra: object) -> dict[str, object]:
    return {
        "type": "mcp_script",
        "path": SCRIPT,
        "args": [mode],
        "name": f"silent-{mode}",
        "timeout": 0.5,
        **extra,
    }


async def test_a_server_that_never_answers_tools_list_ends_the_run_typed() -> None:
    agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("never")]), tools=[_silent("list")])
    try:
        with pytest.raises(MCPTimeoutError) as caught:
            await asyncio.wait_for(agent.run("hello"), BOUND_S)
    finally:
        await agent.close()
    assert isinstance(caught.value, MCPConnectionError)
    assert isinstance(caught.value, TimeoutError)
    assert caught.value.server == "silent-list"
    assert "'silent-list'" in str(caught.value) and "tools/list" in str(caught.value)


async def test_the_stdio_session_bounds_tools_list_by_its_timeout() -> None:
    session = StdioMCPSession.from_config(_silent("list"))
    try:
        await asyncio.wait_for(session.connect(), BOUND_S)
        with pytest.raises(MCPTimeoutError, match="'silent-list'"):
            await asyncio.wait_for(session.list_tools(), BOUND_S)
    finally:
        await session.aclose()


async def test_a_server_that_never_answers_a_call_gives_the_model_an_error_result() -> None:
    model = FakeModel([tool_call("wait"), reply("the tool timed out")])
    agent = Agent("claude-sonnet-5-5", client=model, tools=[_silent("call")])
    try:
        result = await asyncio.wait_for(agent.run("wait"), BOUND_S)
    finally:
        await agent.close()
    assert result.output == "the tool timed out"
    seen = model.requests[-1].messages[-1].parts
    texts = " ".join(str(getattr(part, "content", "")) for part in seen)
    assert "no answer from MCP server 'silent-call' within 0.5s" in texts


async def test_a_server_that_never_initializes_ends_the_run_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timeouts, "STDIO_CONNECT_S", 0.5)
    script = tmp_path / "mute.py"
    script.write_text("import sys\nfor _ in sys.stdin:\n    pass\n")
    agent = Agent(
        "claude-sonnet-5-5",
        client=FakeModel([reply("never")]),
        tools=[{"type": "mcp_script", "path": str(script), "name": "mute"}],
    )
    try:
        with pytest.raises(MCPTimeoutError) as caught:
            await asyncio.wait_for(agent.run("hello"), BOUND_S)
    finally:
        await agent.close()
    assert caught.value.server == "mute" and "'mute'" in str(caught.value)

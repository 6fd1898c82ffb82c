"""A crashed or dropped MCP session is reconnected: on the next run (the Agent's pool
checks its sessions before it reuses them), and once within a run for ``tools/list``;
a WARNING names the server. A tool call is never repeated."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.mcp.remote_client import RemoteMCPClientSession
from doc_processing_toolkit.adapters.mcp.stdio import StdioMCPSession
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply, tool_call

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from http_mcp_server import HttpMCPServer

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = str(ROOT / "tests/fixtures/sample_mcp_server.py")
TOKEN = "reconnect-token-5b7c9d"
pytestmark = pytest.mark.anyio


def reconnect_warnings(caplog: pytest.LogCaptureFixture, server: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING
        and f"MCP server '{server}' lost its connection; reconnecting" in r.getMessage()
    ]


async def test_a_crashed_stdio_server_is_restarted_on_the_next_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = FakeModel(
        [
            tool_call("crash"),
            reply("it crashed"),
            tool_call("add", {"a": 2, "b": 3}),
            reply("five"),
        ]
    )
    agent = Agent(
        "claude-sonnet-5-5",
        client=model,
        tools=[{"type": "mcp_script", "path": SCRIPT, "name": "calculator"}],
    )
    try:
        first = await agent.run("crash it")
        assert first.output == "it crashed"
        assert not reconnect_warnings(caplog, "calculator")

        second = await agent.run("add")
        assert second.output == "five"
        assert second.tools_used == ["add"]
        answers = [str(m.parts) for m in model.requests[3].messages]
        assert any("'5'" in a or "text='5'" in a for a in answers)  # the restarted server ran it
        assert len(reconnect_warnings(caplog, "calculator")) == 1
    finally:
        await agent.close()


async def test_list_tools_reconnects_once_within_a_run_and_calls_are_not_repeated(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session = StdioMCPSession.from_config({"type": "mcp_script", "path": SCRIPT, "name": "lister"})
    await session.connect()
    try:
        crashed = await session.call_tool("crash", {})
        assert crashed.is_error and "reconnected on the next run" in crashed.text
        assert session.connection_lost
        again = await session.call_tool("add", {"a": 1, "b": 1})  # not restarted mid-run
        assert again.is_error
        specs = await session.list_tools()  # idempotent: reconnected once and listed
        assert "add" in {s.name for s in specs}
        assert not session.connection_lost
        assert (await session.call_tool("add", {"a": 1, "b": 1})).text == "2"
        assert len(reconnect_warnings(caplog, "lister")) == 1
    finally:
        await session.aclose()


@pytest.fixture
def http_server() -> Iterator[HttpMCPServer]:
    server = HttpMCPServer(TOKEN).start()
    yield server
    server.stop()


async def test_a_dropped_remote_session_is_reopened(
    http_server: HttpMCPServer, caplog: pytest.LogCaptureFixture
) -> None:
    session = RemoteMCPClientSession(
        url=http_server.url, name="remote", authorization_token=TOKEN, timeout=5
    )
    await session.connect()
    try:
        assert (await session.call_tool("add", {"a": 2, "b": 2})).text == "4"
        port = http_server.port
        http_server.stop()  # the server goes away, and comes back without our session
        restarted = HttpMCPServer(TOKEN).start(port=port)
        try:
            lost = await session.call_tool("add", {"a": 2, "b": 2})
            assert lost.is_error
            assert session.connection_lost
            await session.connect()  # what the Agent's pool does on the next run
            assert (await session.call_tool("add", {"a": 3, "b": 4})).text == "7"
            assert len(reconnect_warnings(caplog, "remote")) == 1
            assert TOKEN not in caplog.text
        finally:
            await session.aclose()
            restarted.stop()
    finally:
        await session.aclose()

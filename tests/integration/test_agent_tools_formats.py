"""Each of the nine tool formats drives a tool round of an Agent (FakeModel, real MCP
servers: in-process MCPServer, stdio subprocesses, Streamable HTTP on loopback)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.domain.messages import ToolResultPart
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply, tool_call

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
sys.path.insert(0, str(FIXTURES))
from http_mcp_server import HttpMCPServer, load_fixture  # noqa: E402

TOKEN = "agent-tools-token-51c0"
MODEL = "claude-sonnet-4-5"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def script() -> FakeModel:
    return FakeModel([tool_call("add", {"a": 2, "b": 3}), reply("The sum is 5.")])


def fed_back(fake: FakeModel) -> ToolResultPart:
    """The tool result the second request carried back to the model."""
    (part,) = fake.requests[1].messages[-1].parts
    assert isinstance(part, ToolResultPart)
    return part


def check_round(fake: FakeModel, result: Any, server: str | None) -> None:
    assert result.output == "The sum is 5."
    assert result.tools_used == ["add"]
    part = fed_back(fake)
    assert part.content[0].text == "5" and not part.is_error  # type: ignore[union-attr]
    spec = next(s for s in fake.requests[0].tools if s.name == "add")
    assert spec.server_name == server


@pytest.fixture(scope="module")
def http_server() -> Iterator[HttpMCPServer]:
    server = HttpMCPServer(TOKEN).start()
    try:
        yield server
    finally:
        server.stop()


def test_format_1_tool_function() -> None:
    fake = script()
    check_round(fake, Agent(MODEL, tools=[add], client=fake).run_sync("2+3?"), None)


def test_format_2_and_3_file_and_directory(tmp_path: Path) -> None:
    source = textwrap.dedent(
        '''
        from doc_processing_toolkit import tool

        @tool
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b
        '''
    )
    (tmp_path / "math_tools.py").write_text(source)
    for entry in (str(tmp_path / "math_tools.py"), str(tmp_path)):
        fake = script()
        check_round(fake, Agent(MODEL, tools=[entry], client=fake).run_sync("2+3?"), None)


def test_format_4_in_process_server_bare_and_dict() -> None:
    server = load_fixture("sample_mcp_server").build_server("calculator")
    fake = script()
    check_round(fake, Agent(MODEL, tools=[server], client=fake).run_sync("2+3?"), "calculator")
    assert len(fake.requests[0].tools) > 5  # every tool of the server

    fake = script()
    entry = {"type": "fastmcp", "server": server, "allowed_tools": ["add", "echo"]}
    check_round(fake, Agent(MODEL, tools=[entry], client=fake).run_sync("2+3?"), "calculator")
    assert [s.name for s in fake.requests[0].tools] == ["add", "echo"]


def test_format_5_mcp_script() -> None:
    fake = script()
    entry = {"type": "mcp_script", "path": "tests/fixtures/sample_mcp_server.py", "name": "calc"}
    check_round(fake, Agent(MODEL, tools=[entry], client=fake).run_sync("2+3?"), "calc")


def test_format_6_mcp_command() -> None:
    fake = script()
    entry = {
        "type": "mcp_command",
        "command": sys.executable,
        "args": ["-m", "tests.fixtures.sample_mcp_server"],
        "name": "command-server",
        "cwd": str(ROOT),
        "allowed_tools": ["add"],
    }
    check_round(fake, Agent(MODEL, tools=[entry], client=fake).run_sync("2+3?"), "command-server")
    assert [s.name for s in fake.requests[0].tools] == ["add"]


def test_format_7_provider_run_remote_mcp_goes_to_the_request() -> None:
    remote = {"type": "mcp", "server_label": "wiki", "server_url": "https://mcp.example.com/mcp"}
    fake = FakeModel([reply("From the wiki.")])
    agent = Agent(MODEL, tools=[add, remote], client=fake)
    assert agent._tool_loader.get_remote_mcp_configs() == [remote]
    result = agent.run_sync("What does the wiki say?")
    assert result.output == "From the wiki."
    request = fake.requests[0]
    assert [s.name for s in request.tools] == ["add"]  # the remote server is not run here
    assert request.remote_mcp_servers and request.remote_mcp_servers[0]["server_label"] == "wiki"


@pytest.mark.anyio
async def test_format_8_prebuilt_session() -> None:
    from mcp import Client

    server = load_fixture("sample_mcp_server").build_server("calculator")
    async with Client(server) as client:
        fake = script()
        agent = Agent(
            MODEL,
            tools=[{"session": client.session, "name": "calculator", "allowed_tools": ["add"]}],
            client=fake,
        )
        check_round(fake, await agent.run("2+3?"), "calculator")
        with pytest.raises(RuntimeError, match="pre-built session"):
            agent.run_sync("again")
        await agent.close()
        # the user's session is theirs: still open after the Agent closed
        assert (await client.session.call_tool("echo", {"text": "hi"})).content[0].text == "hi"


def test_format_9_remote_client(http_server: HttpMCPServer) -> None:
    fake = script()
    entry = {
        "type": "mcp_remote_client",
        "url": http_server.url,
        "name": "remote-calc",
        "authorization_token": TOKEN,
        "allowed_tools": ["add"],
    }
    check_round(fake, Agent(MODEL, tools=[entry], client=fake).run_sync("2+3?"), "remote-calc")


def test_all_formats_together_and_concurrent_calls(tmp_path: Path) -> None:
    """One round calling three tools from three formats: run concurrently, results in order."""

    @tool
    def explode() -> str:
        """Always fails."""
        raise RuntimeError("kaboom")

    server = load_fixture("sample_mcp_server").build_server("calc")
    fake = FakeModel(
        [
            reply(
                tool_calls=(
                    _call("echo", {"text": "first"}),
                    _call("explode", {}),
                    _call("add", {"a": 1, "b": 1}),
                )
            ),
            reply("done"),
        ]
    )
    agent = Agent(
        MODEL,
        tools=[explode, {"type": "fastmcp", "server": server, "allowed_tools": ["echo", "add"]}],
        client=fake,
    )
    result = agent.run_sync("go")
    assert result.output == "done"
    parts = fake.requests[1].messages[-1].parts
    texts = [p.content[0].text for p in parts]  # type: ignore[union-attr]
    assert texts[0] == "first" and texts[2] == "2"
    assert "kaboom" in texts[1] and parts[1].is_error  # type: ignore[union-attr]


def _call(name: str, arguments: dict[str, Any]) -> Any:
    from doc_processing_toolkit.testing import ToolCall

    return ToolCall(name, arguments)


def test_bad_entries_fail_when_the_agent_is_built(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Agent(MODEL, tools=[str(tmp_path / "missing.py")])
    with pytest.raises(TypeError, match="list of tool names"):
        Agent(MODEL, tools=[{"type": "mcp_script", "path": "x.py", "allowed_tools": "add"}])
    with pytest.raises(ValueError, match="None"):
        Agent(MODEL, tools=[{"type": "mcp_command", "command": "srv", "env": {"KEY": None}}])
    with pytest.raises(ValueError, match="credentials"):
        Agent(MODEL, tools=[{"type": "mcp_remote_client", "url": "https://u:p@example.com/m"}])
    with pytest.raises(TypeError, match="unknown tool config"):
        Agent(MODEL, tools=[{"type": "bogus"}])

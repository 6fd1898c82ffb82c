"""A third-party provider through the entry-point group, end to end: Agent -> container ->
entry point -> EchoModelClient -> httpx2 -> the echo server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from echo_provider import EchoModelClient, EchoServer
from echo_provider.registry import ECHO_MODEL

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.container import (
    ENTRY_POINT_GROUP,
    build_model_client,
    default_container,
)
from doc_processing_toolkit.domain.errors import BadRequestError
from doc_processing_toolkit.testing import Fault, Reply, StaticRegistry, ToolCall

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.fixture(scope="module")
def server() -> Iterator[EchoServer]:
    with EchoServer() as running:
        yield running


@pytest.fixture
def echo(server: EchoServer) -> EchoServer:
    server.reset()
    return server


def test_the_entry_point_resolves_to_the_factory(
    echo_plugin_installed: Path, echo: EchoServer
) -> None:
    (ep,) = [e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name == "echo"]
    assert ep.load() is EchoModelClient
    assert ep.dist is not None and ep.dist.name == "echo-provider"
    client = build_model_client(default_container(), "echo", base_url=echo.url)
    assert isinstance(client, EchoModelClient) and client.provider == "echo"


def test_without_the_distribution_the_provider_is_unknown() -> None:
    assert not [e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name == "echo-missing"]
    with pytest.raises(ValueError, match="entry-point group"):
        build_model_client(default_container(), "echo-missing")


async def test_agent_runs_a_tool_round_through_the_plugin(
    echo_plugin_installed: Path, echo_registry: StaticRegistry, echo: EchoServer
) -> None:
    echo.reset(
        [
            Reply(tool_calls=(ToolCall("add", {"a": 2, "b": 3}),), input_tokens=50),
            Reply("2 + 3 = 5", input_tokens=60, output_tokens=12, cache_read_tokens=20),
        ]
    )
    secret = "echo-secret-key-123"
    async with Agent(
        ECHO_MODEL, "You add.", tools=[add], base_url=echo.url, api_key=secret
    ) as agent:
        assert agent.provider == "echo"
        result = await agent.run("What is 2 + 3?")

    assert result.output == "2 + 3 = 5"
    assert result.tools_used == ["add"]
    assert result.iterations == 2
    first, second = (r.body for r in echo.requests)
    assert first["model"] == ECHO_MODEL and first["system"] == "You add."
    assert [t["name"] for t in first["tools"]] == ["add"]
    assert echo.requests[0].headers["authorization"] == f"Bearer {secret}"
    call = second["history"][1]["items"][0]["call"]
    assert call["name"] == "add" and call["args"] == {"a": 2, "b": 3}
    answer = second["history"][2]
    assert answer["role"] == "tool"
    assert answer["items"][0]["result"]["call_id"] == call["id"]
    assert answer["items"][0]["result"]["output"] == [{"text": "5"}]

    records = result.request_cost_records
    assert len(records) == 2
    # echo-1: $1 in, $0.10 cache reads, $2 out per million tokens (the StaticRegistry row)
    assert records[0]["cost"] == pytest.approx((50 * 1.0 + 5 * 2.0) / 1e6)
    assert records[1]["cost"] == pytest.approx((60 * 1.0 + 20 * 0.1 + 12 * 2.0) / 1e6)
    assert result.cost == pytest.approx(records[0]["cost"] + records[1]["cost"])
    assert result.input_tokens == 50 + 80 and result.cached_input_tokens == 20


async def test_agent_retries_a_rate_limited_plugin_request(
    echo_plugin_installed: Path, echo_registry: StaticRegistry, echo: EchoServer
) -> None:
    echo.reset([Fault(status=429, retry_after=0.01), Reply("after the retry")])
    async with Agent(ECHO_MODEL, base_url=echo.url) as agent:
        result = await agent.run("hi")
    assert result.output == "after the retry"
    assert result.retry_count == 1
    assert len(echo.requests) == 2


async def test_a_bad_request_from_the_plugin_is_not_retried(
    echo_plugin_installed: Path, echo_registry: StaticRegistry, echo: EchoServer
) -> None:
    echo.reset([Fault(status=400, message="no such thing")])
    async with Agent(ECHO_MODEL, base_url=echo.url) as agent:
        with pytest.raises(BadRequestError, match="no such thing"):
            await agent.run("hi")
    assert len(echo.requests) == 1

"""PrebuiltSession over a user's open mcp ClientSession, and the allowed_tools filter."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit.adapters.mcp.factory import mcp_session_for
from doc_processing_toolkit.adapters.mcp.filtered import AllowedToolsSession
from doc_processing_toolkit.adapters.mcp.prebuilt import PrebuiltSession
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from http_mcp_server import load_fixture


@pytest.mark.anyio
async def test_prebuilt_session_follows_pagination_and_stays_open() -> None:
    from mcp import Client

    paginated = load_fixture("paginating_mcp_server").build_server()
    async with Client(paginated) as client:
        session = mcp_session_for(
            {"session": client.session, "name": "paged", "allowed_tools": ["delta"]}
        )
        assert isinstance(session, AllowedToolsSession)
        assert isinstance(session.inner, PrebuiltSession)
        await session.connect()
        specs = await session.list_tools()
        assert [(s.name, s.server_name) for s in specs] == [("delta", "paged")]
        assert (await session.call_tool("delta", {"x": 2})).text == "delta:2"
        await session.aclose()  # not ours to close: the user's session keeps working
        assert (await client.session.call_tool("alpha", {"x": 1})).content[0].text == "alpha:1"
        everything = PrebuiltSession(client.session, name="paged")
        assert len(await everything.list_tools()) == 5


class CountingSession:
    """A real in-memory ToolSession that counts the calls reaching it."""

    name = "counting"

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.connected = 0
        self.closed = 0

    async def connect(self) -> None:
        self.connected += 1

    async def aclose(self) -> None:
        self.closed += 1

    async def list_tools(self) -> list[ToolSpec]:
        return [ToolSpec(n, "", {"type": "object", "properties": {}}) for n in ("a", "b", "c")]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        self.calls.append(name)
        return ToolOutcome.error("boom") if name == "c" else ToolOutcome.error("unused")


@pytest.mark.anyio
async def test_hidden_tool_never_reaches_the_server() -> None:
    inner = CountingSession()
    session = AllowedToolsSession(inner, ("a", "c"))
    await session.connect()
    assert [s.name for s in await session.list_tools()] == ["a", "c"]
    hidden = await session.call_tool("b", {})
    assert hidden.is_error and "'b'" in hidden.text and "counting" in hidden.text
    assert inner.calls == []
    await session.call_tool("c", {})
    assert inner.calls == ["c"]
    await session.aclose()
    assert (inner.connected, inner.closed) == (1, 1)
    assert session.allowed_tools == ("a", "c")


@pytest.mark.parametrize("bad", ["a", b"a", {"a"}, ["a", 1], None])
def test_allowed_tools_must_be_a_list_of_names(bad: Any) -> None:
    with pytest.raises(TypeError, match="counting"):
        AllowedToolsSession(CountingSession(), bad)


def test_prebuilt_config_checks() -> None:
    with pytest.raises(ValueError):
        mcp_session_for({"session": None, "name": "x"})
    with pytest.raises(TypeError, match="list_tools"):
        mcp_session_for({"session": object(), "name": "x"})
    with pytest.raises(TypeError, match="'x'"):
        mcp_session_for({"session": CountingSession(), "name": "x", "allowed_tools": "a"})
    with pytest.raises(ValueError):
        mcp_session_for({"type": "mcp"})

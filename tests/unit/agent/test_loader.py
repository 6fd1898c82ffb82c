"""The documented Tool Loader surface: LocalFunctionSession as an MCP-compatible session."""

from __future__ import annotations

import pytest

from doc_processing_toolkit import tool
from doc_processing_toolkit.agent.loader import (
    LoadedTool,
    LocalFunctionSession,
    MCPCallToolResult,
    MCPToolsResponse,
)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


@tool
def boom() -> str:
    """Fail."""
    raise RuntimeError("no luck")


def _loaded(func: object) -> LoadedTool:
    meta = func._tool_metadata  # type: ignore[attr-defined]
    return LoadedTool(meta["name"], meta["description"], meta["parameters"], function=func)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_local_function_session_speaks_mcp_shapes() -> None:
    session = LocalFunctionSession()
    assert session.name == "local-functions"
    session.add_tool(_loaded(add))
    session.add_tool(_loaded(boom))
    listing = await session.list_tools()
    assert isinstance(listing, MCPToolsResponse)
    assert [t.name for t in listing.tools] == ["add", "boom"]
    assert listing.tools[0].inputSchema["required"] == ["a", "b"]
    result = await session.call_tool("add", {"a": 2, "b": 3})
    assert isinstance(result, MCPCallToolResult)
    assert result.isError is False and result.content[0]["text"] == "5"
    failed = await session.call_tool("boom", {})
    assert failed.isError is True and "no luck" in failed.content[0]["text"]


def test_add_tool_needs_a_function() -> None:
    with pytest.raises(ValueError, match="no function"):
        LocalFunctionSession("x").add_tool(LoadedTool("t", "d", {"type": "object"}))

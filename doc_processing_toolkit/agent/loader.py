"""ToolLoader class for loading tools from various formats (documented import path).

The ToolLoader handles all 9 supported tool input formats; ``ToolLoader()`` uses the
process default container's session adapters. ``FastMCPSession`` is the in-process
session (``InProcessMCPSession``) under its documented name.
"""

from typing import Any

from doc_processing_toolkit.adapters.mcp._sdk import env_switch
from doc_processing_toolkit.adapters.mcp.in_process import (
    SYNC_OFFLOOP_ENV,
    VALIDATED_CALL_ENV,
    InProcessMCPSession,
)
from doc_processing_toolkit.adapters.mcp.local_functions import (
    LocalFunctionSession as _PortLocalFunctionSession,
)
from doc_processing_toolkit.adapters.mcp.truncated_results import TruncatedResultSession
from doc_processing_toolkit.application.tools.formats import LoadedTool
from doc_processing_toolkit.application.tools.loader import ToolLoader
from doc_processing_toolkit.application.tools.mcp_shapes import (
    MCPCallToolResult,
    MCPToolSchema,
    MCPToolsResponse,
    to_mcp_call_result,
    to_mcp_tools_response,
)

__all__ = [
    "FastMCPSession",
    "LoadedTool",
    "LocalFunctionSession",
    "MCPCallToolResult",
    "MCPToolSchema",
    "MCPToolsResponse",
    "ToolLoader",
    "TruncatedResultSession",
    "fastmcp_sync_tools_offloop_enabled",
    "fastmcp_validated_call_enabled",
]


class LocalFunctionSession:
    """MCP-compatible session wrapper for local @tool decorated functions.

    The same interface as an MCP ClientSession (``list_tools()`` -> MCPToolsResponse,
    ``call_tool(name, arguments)`` -> MCPCallToolResult) over local functions. Calls run
    exactly as in an Agent run: arguments validated, sync functions on a worker thread,
    a raised exception returned as an error result.
    """

    def __init__(self, name: str = "local-functions") -> None:
        self.name = name
        self._functions: list[Any] = []
        self._session: _PortLocalFunctionSession | None = None

    def add_tool(self, loaded_tool: LoadedTool) -> None:
        """Add a LoadedTool (one built from a @tool function) to this session.

        Raises:
            ValueError: when the LoadedTool carries no function.
        """
        if loaded_tool.function is None:
            raise ValueError(
                f"LoadedTool {loaded_tool.name!r} has no function: only @tool functions can "
                "be served by a LocalFunctionSession"
            )
        self._functions.append(loaded_tool.function)
        self._session = None

    def _inner(self) -> _PortLocalFunctionSession:
        if self._session is None:
            self._session = _PortLocalFunctionSession(self._functions, name=self.name)
        return self._session

    async def list_tools(self) -> MCPToolsResponse:
        """List all tools in this session (MCP-compatible interface)."""
        return to_mcp_tools_response(await self._inner().list_tools())

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> MCPCallToolResult:
        """Call a tool by name with given arguments (MCP-compatible interface)."""
        return to_mcp_call_result(await self._inner().call_tool(name, arguments))


FastMCPSession = InProcessMCPSession
"""MCP-compatible session wrapper for in-process server objects (format 4)."""


def fastmcp_validated_call_enabled() -> bool:
    """Whether an in-process registry tool is called through its own run
    (``DPT_FASTMCP_VALIDATED_CALL``, default on)."""
    return env_switch(VALIDATED_CALL_ENV)


def fastmcp_sync_tools_offloop_enabled() -> bool:
    """Whether a synchronous in-process tool runs on a worker thread
    (``DPT_FASTMCP_SYNC_TOOLS_OFFLOOP``, default on)."""
    return env_switch(SYNC_OFFLOOP_ENV)

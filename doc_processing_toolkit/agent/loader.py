"""ToolLoader class for loading tools from various formats (documented import path).

The ToolLoader handles all 9 supported tool input formats; ``ToolLoader()`` and
``LocalFunctionSession()`` are handed the composition root's session adapters (the
container is built on that first use). ``FastMCPSession`` is the in-process
session (``InProcessMCPSession``) under its documented name.
"""

from doc_processing_toolkit.adapters.mcp.in_process import (
    InProcessMCPSession,
    fastmcp_sync_tools_offloop_enabled,
    fastmcp_validated_call_enabled,
)
from doc_processing_toolkit.adapters.tool_sessions.truncated_results import TruncatedResultSession
from doc_processing_toolkit.application.deps import LocalSessionFactory, ToolWiring
from doc_processing_toolkit.application.tools.formats import LoadedTool
from doc_processing_toolkit.application.tools.loader import ToolLoader as ApplicationToolLoader
from doc_processing_toolkit.application.tools.local_session import (
    LocalFunctionSession as ApplicationLocalFunctionSession,
)
from doc_processing_toolkit.application.tools.mcp_shapes import (
    MCPCallToolResult,
    MCPToolSchema,
    MCPToolsResponse,
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

FastMCPSession = InProcessMCPSession
"""MCP-compatible session wrapper for in-process server objects (format 4)."""


def _container_wiring() -> ToolWiring:
    from doc_processing_toolkit.application.container import default_container, tool_loader_wiring

    return tool_loader_wiring(default_container())


def _container_local_factory() -> LocalSessionFactory:
    return _container_wiring().local_session_factory


class ToolLoader(ApplicationToolLoader):
    """Loader for converting various tool formats into a unified representation."""

    _default_wiring = staticmethod(_container_wiring)


class LocalFunctionSession(ApplicationLocalFunctionSession):
    """MCP-compatible session wrapper for local @tool decorated functions.

    The same interface as an MCP ClientSession (``list_tools()`` -> MCPToolsResponse,
    ``call_tool(name, arguments)`` -> MCPCallToolResult) over local functions. Calls run
    exactly as in an Agent run: arguments validated, sync functions on a worker thread,
    a raised exception returned as an error result.
    """

    _default_factory = staticmethod(_container_local_factory)

"""ToolLoader class for loading tools from various formats (documented import path).

The ToolLoader handles all 9 supported tool input formats; ``ToolLoader()`` uses the
process default AgentDeps' session adapters. ``FastMCPSession`` is the in-process
session (``InProcessMCPSession``) under its documented name.
"""

from doc_processing_toolkit.adapters.mcp.in_process import (
    InProcessMCPSession,
    fastmcp_sync_tools_offloop_enabled,
    fastmcp_validated_call_enabled,
)
from doc_processing_toolkit.adapters.tool_sessions.truncated_results import TruncatedResultSession
from doc_processing_toolkit.application.tools.formats import LoadedTool
from doc_processing_toolkit.application.tools.loader import ToolLoader
from doc_processing_toolkit.application.tools.local_session import LocalFunctionSession
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

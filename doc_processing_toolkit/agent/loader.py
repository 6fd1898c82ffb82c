"""ToolLoader class for loading tools from various formats (documented import path).

The ToolLoader handles all 9 supported tool input formats; ``ToolLoader()`` uses the
process default container's session adapters. ``FastMCPSession`` is the in-process
session (``InProcessMCPSession``) under its documented name.
"""

from doc_processing_toolkit.adapters.mcp._sdk import env_switch
from doc_processing_toolkit.adapters.mcp.in_process import (
    SYNC_OFFLOOP_ENV,
    VALIDATED_CALL_ENV,
    InProcessMCPSession,
)
from doc_processing_toolkit.adapters.mcp.local_functions import LocalFunctionSession
from doc_processing_toolkit.adapters.mcp.truncated_results import TruncatedResultSession
from doc_processing_toolkit.application.tool_conversion import (
    MCPCallToolResult,
    MCPToolSchema,
    MCPToolsResponse,
)
from doc_processing_toolkit.application.tool_formats import LoadedTool
from doc_processing_toolkit.application.tool_loader import ToolLoader

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


def fastmcp_validated_call_enabled() -> bool:
    """Whether an in-process registry tool is called through its own run
    (``DPT_FASTMCP_VALIDATED_CALL``, default on)."""
    return env_switch(VALIDATED_CALL_ENV)


def fastmcp_sync_tools_offloop_enabled() -> bool:
    """Whether a synchronous in-process tool runs on a worker thread
    (``DPT_FASTMCP_SYNC_TOOLS_OFFLOOP``, default on)."""
    return env_switch(SYNC_OFFLOOP_ENV)

"""ToolLoader class for loading tools from various formats (documented import path).

The ToolLoader handles all 9 supported tool input formats; ``ToolLoader()`` uses the
process default container's session adapters.
"""

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
    "LoadedTool",
    "LocalFunctionSession",
    "MCPCallToolResult",
    "MCPToolSchema",
    "MCPToolsResponse",
    "ToolLoader",
    "TruncatedResultSession",
]

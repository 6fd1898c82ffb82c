"""@tool decorator for defining tool functions (documented import path)."""

from doc_processing_toolkit.domain.tools.schema import get_tool_metadata, is_tool, tool

__all__ = ["get_tool_metadata", "is_tool", "tool"]

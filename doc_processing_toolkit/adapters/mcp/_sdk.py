"""Lazy imports of the MCP SDKs, and detection of a server object without importing them.

``mcp`` and ``fastmcp`` are imported inside the adapters' methods, never at module import
time. Importing ``fastmcp`` patches the ``mcp`` types process-wide (camelCase shims), so
it is imported only when the user handed us a fastmcp object — and even then only its
public server methods are called, which needs no import at all.
"""

from __future__ import annotations

from typing import Any, Literal

from doc_processing_toolkit.adapters import _environment
from doc_processing_toolkit.domain.errors import MissingDependencyError

__all__ = [
    "MCP_EXTRA_HINT",
    "env_switch",
    "import_mcp",
    "server_kind",
]

MCP_EXTRA_HINT = "pip install 'doc-processing-toolkit[mcp]'"
"""The extra that installs the MCP SDKs."""


def import_mcp() -> Any:
    """Import the ``mcp`` SDK, or raise an ImportError naming the pip extra."""
    try:
        import mcp
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(f"MCP tools need the mcp SDK: {MCP_EXTRA_HINT}") from exc
    return mcp


def _module_names(obj: Any) -> list[str]:
    return [getattr(cls, "__module__", "") or "" for cls in type(obj).__mro__]


def server_kind(obj: Any) -> Literal["mcpserver", "fastmcp", "public", "none"]:
    """What kind of in-process MCP server ``obj`` is, judged without importing any SDK.

    ``"mcpserver"``: the mcp SDK's ``mcp.server.mcpserver.MCPServer`` (or a subclass).
    ``"fastmcp"``: standalone ``fastmcp`` (its classes live in ``fastmcp.*``).
    ``"public"``: some other object with async ``list_tools()`` and ``call_tool()``.
    ``"none"``: none of these.
    """
    modules = _module_names(obj)
    if any(m.startswith("mcp.server.mcpserver") for m in modules):
        return "mcpserver"
    if any(m == "fastmcp" or m.startswith("fastmcp.") for m in modules):
        return "fastmcp"
    if callable(getattr(obj, "list_tools", None)) and callable(getattr(obj, "call_tool", None)):
        return "public"
    return "none"


def env_switch(name: str, default: bool = True) -> bool:
    """An on/off environment switch: ``0``, ``false``, ``no`` or ``off`` turn it off."""
    return _environment.switch(name, default)

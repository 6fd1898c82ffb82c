"""One entry point from a tool input (formats 4, 5, 6, 8, 9) to its MCP session.

`mcp_session_for` validates the input, builds the session and, when the input
carries ``allowed_tools``, wraps it in `AllowedToolsSession`. It starts nothing:
``connect()`` does. Every error a bad config can raise is raised here, so calling it
when the Agent is built makes ``Agent(...)`` fail on a bad config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.mcp._sdk import server_kind
from doc_processing_toolkit.adapters.mcp.config import (
    validate_allowed_tools,
    validate_prebuilt_config,
    validate_remote_config,
    validate_stdio_config,
)
from doc_processing_toolkit.adapters.mcp.filtered import AllowedToolsSession
from doc_processing_toolkit.adapters.mcp.in_process import InProcessMCPSession
from doc_processing_toolkit.adapters.mcp.prebuilt import PrebuiltSession
from doc_processing_toolkit.adapters.mcp.remote_client import RemoteMCPClientSession
from doc_processing_toolkit.adapters.mcp.stdio import StdioMCPSession
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.ports.tool_session import ManagedToolSession

__all__ = ["is_mcp_server_object", "mcp_session_for"]


def is_mcp_server_object(value: Any) -> bool:
    """Whether ``value`` is an in-process MCP server object (format 4, bare).

    Recognises ``MCPServer`` and fastmcp servers by their class's module, without
    importing either SDK.
    """
    return not isinstance(value, Mapping) and server_kind(value) in ("mcpserver", "fastmcp")


def _wrap(session: ManagedToolSession, allowed: tuple[str, ...] | None) -> ManagedToolSession:
    return session if allowed is None else AllowedToolsSession(session, allowed)


def mcp_session_for(value: Any) -> ManagedToolSession:
    """The (unconnected) session for one MCP tool input.

    Accepts a bare server object, ``{"type": "fastmcp", "server": ...}``,
    ``{"type": "mcp_script" | "mcp_command", ...}``, ``{"type": "mcp_remote_client", ...}``
    and ``{"session": ..., "name": ...}``.

    Raises:
        ValueError / TypeError: the config is invalid (see `config`).
    """
    if not isinstance(value, Mapping):
        if server_kind(value) == "none":
            raise InvalidArgumentTypeError(f"{type(value).__name__} is not an MCP server object")
        return InProcessMCPSession(value)
    kind = value.get("type")
    if kind == "fastmcp":
        session = InProcessMCPSession.from_config(value)
        return _wrap(session, validate_allowed_tools(value.get("allowed_tools"), session.name))
    if kind in ("mcp_script", "mcp_command"):
        checked = validate_stdio_config(value)
        return _wrap(StdioMCPSession.from_config(value), checked["allowed_tools"])
    if kind == "mcp_remote_client":
        checked = validate_remote_config(value)
        return _wrap(RemoteMCPClientSession.from_config(value), checked["allowed_tools"])
    if "session" in value:
        checked = validate_prebuilt_config(value)
        return _wrap(PrebuiltSession.from_config(value), checked["allowed_tools"])
    raise ConfigurationError(f"not an MCP tool config the toolkit runs: type={kind!r}")

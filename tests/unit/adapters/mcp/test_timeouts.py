"""The MCP timeouts come from one module: its defaults, and what a server entry's keys
make of them, are what the sessions use."""

from __future__ import annotations

from doc_processing_toolkit.adapters.mcp import timeouts
from doc_processing_toolkit.adapters.mcp.config import validate_remote_config
from doc_processing_toolkit.adapters.mcp.remote_client import RemoteMCPClientSession
from doc_processing_toolkit.adapters.mcp.stdio import StdioMCPSession


def test_stdio_limits_default_and_follow_the_entry_timeout() -> None:
    assert timeouts.stdio_timeouts(None) == timeouts.MCPTimeouts(
        connect=timeouts.STDIO_CONNECT_S, call=timeouts.STDIO_CALL_S, list=timeouts.STDIO_CONNECT_S
    )
    assert timeouts.stdio_timeouts(7).call == 7
    assert timeouts.stdio_timeouts(7).list == 7
    session = StdioMCPSession.from_config({"type": "mcp_command", "command": "true", "timeout": 7})
    assert (session._call_timeout, session._connect_timeout) == (7, timeouts.STDIO_CONNECT_S)


def test_remote_limits_derive_from_timeout_and_sse_read_timeout() -> None:
    limits = timeouts.remote_timeouts(10, 120)
    assert limits == timeouts.MCPTimeouts(
        connect=2 * 10 + timeouts.REMOTE_MARGIN_S,
        call=10 + timeouts.REMOTE_MARGIN_S,
        read=120,
        request=10,
        list=10 + timeouts.REMOTE_MARGIN_S,
    )
    checked = validate_remote_config({"type": "mcp_remote_client", "url": "http://h/mcp"})
    assert (checked["timeout"], checked["sse_read_timeout"]) == (
        timeouts.REMOTE_TIMEOUT_S,
        timeouts.REMOTE_SSE_READ_S,
    )
    session = RemoteMCPClientSession(url="http://h/mcp", timeout=10, sse_read_timeout=120)
    assert session._limits == limits

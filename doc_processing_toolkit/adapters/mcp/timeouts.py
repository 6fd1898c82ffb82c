"""Every MCP timeout, in one place: the defaults and how a server entry's keys set them.

The tool formats that hold an MCP session in this process read their limits from here
and nowhere else (a server entry's ``timeout`` / ``sse_read_timeout`` keys set them):

* ``mcp_script`` / ``mcp_command`` (stdio): start + ``initialize`` within
  `STDIO_CONNECT_S`; one tool call within the entry's ``timeout`` (default
  `STDIO_CALL_S`); one ``tools/list`` page within the entry's ``timeout`` (default
  `STDIO_CONNECT_S`).
* ``mcp_remote_client``: ``timeout`` (default `REMOTE_TIMEOUT_S`) bounds the HTTP
  connect and each MCP request; connecting within 2 x ``timeout`` + `REMOTE_MARGIN_S`;
  one tool call, and one ``tools/list`` page, within ``timeout`` + `REMOTE_MARGIN_S`;
  an event stream may stay quiet for ``sse_read_timeout`` (default
  `REMOTE_SSE_READ_S`).
* a pre-built ``ClientSession``: the caller opened it; one call, and one ``tools/list``
  page, within `PREBUILT_CALL_S`.
* an in-process ``MCPServer``: no limit (its tools run in this process, like a ``@tool``
  function without ``tool_timeout``).

A call that outlasts its limit is an error result the model reads (``no answer from MCP
server 'x' within 300s``); a connect or a ``tools/list`` that outlasts it raises
``MCPTimeoutError`` (an ``MCPConnectionError``) naming the server.
Provider-run MCP (``{"type": "mcp", ...}``) runs on the provider's side and has none.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "PREBUILT_CALL_S",
    "REMOTE_MARGIN_S",
    "REMOTE_SSE_READ_S",
    "REMOTE_TIMEOUT_S",
    "STDIO_CALL_S",
    "STDIO_CONNECT_S",
    "MCPTimeouts",
    "remote_timeouts",
    "stdio_timeouts",
]

STDIO_CONNECT_S = 60.0
"""Seconds a stdio server may take to start and answer ``initialize``."""
STDIO_CALL_S = 300.0
"""Seconds one stdio tool call may take when the entry sets no ``timeout``."""
REMOTE_TIMEOUT_S = 30.0
"""A remote server's ``timeout`` (HTTP connect / request, one MCP request) by default."""
REMOTE_SSE_READ_S = 300.0
"""A remote server's ``sse_read_timeout`` (a quiet event stream) by default."""
REMOTE_MARGIN_S = 5.0
"""Added to a remote call's bound, so the SDK's own ``timeout`` fires first and names it."""
PREBUILT_CALL_S = 300.0
"""Seconds one call on a pre-built ``ClientSession`` may take."""


@dataclass(frozen=True, slots=True)
class MCPTimeouts:
    """The limits of one MCP session, in seconds (None: no limit)."""

    connect: float | None
    """Opening the connection: start, handshake, ``initialize``."""
    call: float | None
    """One ``tools/call``, answered or not."""
    read: float | None = None
    """How long an event stream may stay quiet (remote transports)."""
    request: float | None = None
    """One HTTP request / MCP request (remote transports)."""
    list: float | None = None
    """One ``tools/list`` request (each page), answered or not."""


def stdio_timeouts(timeout: float | None) -> MCPTimeouts:
    """The limits of a stdio server whose entry sets ``timeout`` (None: the default)."""
    return MCPTimeouts(
        connect=STDIO_CONNECT_S, call=timeout or STDIO_CALL_S, list=timeout or STDIO_CONNECT_S
    )


def remote_timeouts(timeout: float, sse_read_timeout: float) -> MCPTimeouts:
    """The limits of a remote server from its (validated) ``timeout`` and
    ``sse_read_timeout``."""
    return MCPTimeouts(
        connect=timeout * 2 + REMOTE_MARGIN_S,
        call=timeout + REMOTE_MARGIN_S,
        read=sse_read_timeout,
        request=timeout,
        list=timeout + REMOTE_MARGIN_S,
    )

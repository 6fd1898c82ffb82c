"""ToolSession: a source of tools the toolkit executes (local functions or an MCP server)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = ["ManagedToolSession", "ReconnectingToolSession", "ToolSession"]


@runtime_checkable
class ToolSession(Protocol):
    """Lists tools and calls them."""

    name: str
    """The server name (used in logs and ``LoadedTool.server_name``)."""

    async def list_tools(self) -> list[ToolSpec]:
        """Every tool this session exposes (after any allowed_tools filter)."""
        ...

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Run one tool; a tool failure is an error outcome, not an exception."""
        ...


@runtime_checkable
class ManagedToolSession(ToolSession, Protocol):
    """A ToolSession with a connection to open and close (MCP servers).

    ``connect`` is called once per Agent per event loop; ``aclose`` only from that loop.
    """

    async def connect(self) -> None:
        """Open the connection (start the process, initialise the MCP session)."""
        ...

    async def aclose(self) -> None:
        """Close the connection; idempotent."""
        ...


@runtime_checkable
class ReconnectingToolSession(ManagedToolSession, Protocol):
    """A ManagedToolSession that notices a lost connection (a crashed server process, a
    dropped HTTP session) and can open it again."""

    @property
    def connection_lost(self) -> bool:
        """True when the session was connected and its connection is gone."""
        ...

    async def reconnect(self, reason: str) -> None:
        """Close what is left of the connection and open it again (a WARNING names the
        server and ``reason``)."""
        ...

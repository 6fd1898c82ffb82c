"""AllowedToolsSession: the allowed_tools filter on a session the toolkit runs.

The filter sits on the session the provider is given, so every provider lists only the
allowed tools, and a call to any other name (from a replayed history, say) gets an error
result without reaching the server. The listing follows pagination to the end first, so
an allowed tool on a later page is shown. A listed name the server does not offer logs
one WARNING naming the server and what it does offer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters.mcp.config import validate_allowed_tools
from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec
from doc_processing_toolkit.ports.tool_session import (
    ManagedToolSession,
    ReconnectingToolSession,
    ToolSession,
)

__all__ = ["AllowedToolsSession"]

log = get_logger(__name__)


class AllowedToolsSession:
    """Exposes only ``allowed_tools`` of ``inner`` (a ManagedToolSession or ToolSession)."""

    def __init__(self, inner: ToolSession, allowed_tools: Sequence[str]) -> None:
        """Wrap ``inner``.

        Raises:
            TypeError: ``allowed_tools`` is a bare string or not a list/tuple of str (the
                message names the server).
        """
        checked = validate_allowed_tools(allowed_tools, inner.name)
        if checked is None:
            raise InvalidArgumentTypeError(
                f"allowed_tools of MCP server {inner.name!r} must be a list of tool names, "
                "not None (leave the session unwrapped to expose every tool)"
            )
        self.name = inner.name
        self._inner = inner
        self._allowed = checked
        self._allowed_set = frozenset(checked)
        self._warned = False

    @property
    def inner(self) -> ToolSession:
        """The wrapped session."""
        return self._inner

    @property
    def allowed_tools(self) -> tuple[str, ...]:
        """The names this session exposes (when the server offers them)."""
        return self._allowed

    def __repr__(self) -> str:
        return f"AllowedToolsSession({self._inner!r}, allowed_tools={list(self._allowed)!r})"

    async def connect(self) -> None:
        """Connect the wrapped session (if it has a connection)."""
        if isinstance(self._inner, ManagedToolSession):
            await self._inner.connect()

    async def aclose(self) -> None:
        """Close the wrapped session (if it has a connection); idempotent."""
        if isinstance(self._inner, ManagedToolSession):
            await self._inner.aclose()

    @property
    def connection_lost(self) -> bool:
        """Whether the wrapped session lost its connection (False when it cannot tell)."""
        return isinstance(self._inner, ReconnectingToolSession) and self._inner.connection_lost

    async def reconnect(self, reason: str) -> None:
        """Reconnect the wrapped session (when it can)."""
        if isinstance(self._inner, ReconnectingToolSession):
            await self._inner.reconnect(reason)

    async def list_tools(self) -> list[ToolSpec]:
        """The allowed tools, in the server's order."""
        offered = await self._inner.list_tools()
        names = {spec.name for spec in offered}
        missing = [n for n in self._allowed if n not in names]
        if missing and not self._warned:
            self._warned = True
            log.warning(
                "allowed_tools names tools the MCP server does not offer",
                server_name=self.name,
                missing=", ".join(missing),
                offered=", ".join(sorted(names)) or "none",
            )
        return [spec for spec in offered if spec.name in self._allowed_set]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call an allowed tool; any other name is an error outcome, the server untouched."""
        if name not in self._allowed_set:
            allowed = ", ".join(self._allowed) or "none"
            return ToolOutcome.error(
                f"Tool {name!r} is not available on MCP server {self.name!r} "
                f"(allowed tools: {allowed})."
            )
        return await self._inner.call_tool(name, arguments)

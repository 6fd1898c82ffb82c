"""TimeLimitedSession: the ``tool_timeout`` of an Agent's local ``@tool`` functions.

A call that runs longer than the limit is abandoned (a sync function's worker thread is
left to finish on its own; its result is discarded) and answered with an error result
that names the limit, so a hanging tool never hangs the run. MCP servers keep their own
per-server ``timeout``.
"""

from __future__ import annotations

from typing import Any

import anyio

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec
from doc_processing_toolkit.ports.tool_session import ToolSession

__all__ = ["TimeLimitedSession"]

log = get_logger(__name__)


class TimeLimitedSession:
    """A ToolSession whose calls are bounded by ``timeout`` seconds."""

    def __init__(self, inner: ToolSession, timeout: float) -> None:
        self._inner = inner
        self.timeout = timeout
        self.name = inner.name

    def __repr__(self) -> str:
        return f"TimeLimitedSession({self._inner!r}, timeout={self.timeout:g})"

    async def list_tools(self) -> list[ToolSpec]:
        """The inner session's tools."""
        return await self._inner.list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """The inner call, or an error result when it outlasts the limit."""
        with anyio.move_on_after(self.timeout):
            return await self._inner.call_tool(name, arguments)
        log.warning("tool timed out", tool_name=name, tool_timeout=self.timeout)
        return ToolOutcome.error(
            f"Error executing tool {name}: it did not finish within tool_timeout="
            f"{self.timeout:g} s and was abandoned"
        )

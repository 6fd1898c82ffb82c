"""LocalFunctionSession: ``@tool`` functions behind the MCP ClientSession interface.

The documented ``agent.loader.LocalFunctionSession``: ``list_tools()`` answers an
`MCPToolsResponse` and ``call_tool`` an
`MCPCallToolResult`, over the toolkit's own ``@tool`` session (which
it is handed as a factory, so this room imports no adapter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doc_processing_toolkit.application.deps import LocalSessionFactory, no_default_deps
from doc_processing_toolkit.application.tools.formats import LoadedTool
from doc_processing_toolkit.application.tools.mcp_shapes import (
    MCPCallToolResult,
    MCPToolsResponse,
    to_mcp_call_result,
    to_mcp_tools_response,
)
from doc_processing_toolkit.domain.errors import ToolDefinitionError
from doc_processing_toolkit.ports.tool_session import ToolSession

__all__ = ["LocalFunctionSession"]


class LocalFunctionSession:
    """MCP-compatible session wrapper for local @tool decorated functions.

    The same interface as an MCP ClientSession (``list_tools()`` -> MCPToolsResponse,
    ``call_tool(name, arguments)`` -> MCPCallToolResult) over local functions. Calls run
    exactly as in an Agent run: arguments validated, sync functions on a worker thread,
    a raised exception returned as an error result.
    """

    @staticmethod
    def _default_factory() -> LocalSessionFactory:
        """The ``@tool`` session factory when none was given (none here; the documented
        ``agent.loader.LocalFunctionSession`` passes the composition root's)."""
        return no_default_deps().tools.local_session_factory

    def __init__(
        self,
        name: str = "local-functions",
        *,
        session_factory: LocalSessionFactory | None = None,
    ) -> None:
        """Args:
        name: The session's name.
        session_factory: Builds the ``@tool`` session; None takes the composition
            root's (on first use; the documented class passes it in).
        """
        self.name = name
        self._factory = session_factory
        self._functions: list[Callable[..., Any]] = []
        self._session: ToolSession | None = None

    def add_tool(self, loaded_tool: LoadedTool) -> None:
        """Add a LoadedTool (one built from a @tool function) to this session.

        Raises:
            ValueError: when the LoadedTool carries no function.
        """
        if loaded_tool.function is None:
            raise ToolDefinitionError(
                f"LoadedTool {loaded_tool.name!r} has no function: only @tool functions can "
                "be served by a LocalFunctionSession"
            )
        self._functions.append(loaded_tool.function)
        self._session = None

    def _inner(self) -> ToolSession:
        if self._session is None:
            factory = self._factory or self._default_factory()
            self._session = factory(list(self._functions), name=self.name)
        return self._session

    async def list_tools(self) -> MCPToolsResponse:
        """List all tools in this session (MCP-compatible interface)."""
        return to_mcp_tools_response(await self._inner().list_tools())

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> MCPCallToolResult:
        """Call a tool by name with given arguments (MCP-compatible interface)."""
        return to_mcp_call_result(await self._inner().call_tool(name, arguments))

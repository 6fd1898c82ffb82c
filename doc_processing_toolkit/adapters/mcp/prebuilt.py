"""PrebuiltSession: a ``ClientSession`` the user opened and initialised (format 8).

``{"session": existing_session, "name": "calculator", "allowed_tools": [...]}``. The
session belongs to the task and loop that opened it, so it stays async-only: the
toolkit lists and calls its tools but never opens or closes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.mcp._client import call_client_tool, list_all_tools
from doc_processing_toolkit.adapters.mcp.config import validate_prebuilt_config
from doc_processing_toolkit.adapters.mcp.timeouts import PREBUILT_CALL_S
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = ["PrebuiltSession"]


class PrebuiltSession:
    """A `ManagedToolSession` over a
    session the user owns: ``connect()`` and ``aclose()`` do nothing to it."""

    def __init__(
        self,
        session: Any,
        *,
        name: str = "client-session",
        call_timeout: float | None = PREBUILT_CALL_S,
    ) -> None:
        """Wrap ``session`` (an initialised ``mcp.ClientSession`` or anything with async
        ``list_tools()`` / ``call_tool(name, arguments)``)."""
        self.name = name
        self._session = session
        self._call_timeout = call_timeout

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> PrebuiltSession:
        """Build from ``{"session": ..., "name": ...}`` (allowed_tools is applied by
        `AllowedToolsSession`)."""
        checked = validate_prebuilt_config(config)
        return cls(checked["session"], name=checked["name"])

    @property
    def session(self) -> Any:
        """The wrapped session."""
        return self._session

    def __repr__(self) -> str:
        return f"PrebuiltSession(name={self.name!r}, session={type(self._session).__name__})"

    async def connect(self) -> None:
        """Nothing to open: the session is the user's, already initialised."""

    async def aclose(self) -> None:
        """Nothing to close: the user closes their own session."""

    async def list_tools(self) -> list[ToolSpec]:
        """Every tool the session lists (all pages, each within the call bound)."""
        return await list_all_tools(self._session, self.name, self._call_timeout)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call one tool; any failure is an error outcome."""
        return await call_client_tool(self._session, self.name, name, arguments, self._call_timeout)

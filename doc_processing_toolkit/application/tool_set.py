"""ToolSet: the tools one run offers, gathered from its ToolSessions.

The run loop asks a ToolSet for the specs to send and routes each call to the session
that owns the tool. Names are unique across sessions: a duplicate is a
ToolDefinitionError naming both sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doc_processing_toolkit.domain.errors import ToolDefinitionError
from doc_processing_toolkit.domain.tools import ToolOutcome, ToolSpec
from doc_processing_toolkit.ports.tool_session import ToolSession

__all__ = ["ToolSet"]


class ToolSet:
    """Specs and call routing over a fixed list of sessions."""

    def __init__(self, sessions: Sequence[ToolSession] = ()) -> None:
        self._sessions = list(sessions)
        self._owner: dict[str, ToolSession] = {}
        self._specs: list[ToolSpec] | None = None

    @property
    def sessions(self) -> list[ToolSession]:
        """The sessions, in the order given."""
        return list(self._sessions)

    def __bool__(self) -> bool:
        return bool(self._sessions)

    async def specs(self) -> list[ToolSpec]:
        """Every tool of every session, listed once and cached for the run."""
        if self._specs is None:
            specs: list[ToolSpec] = []
            owner: dict[str, ToolSession] = {}
            for session in self._sessions:
                for spec in await session.list_tools():
                    if spec.name in owner:
                        raise ToolDefinitionError(
                            f"tool name {spec.name!r} is offered by both "
                            f"{owner[spec.name].name!r} and {session.name!r}; tool names "
                            "must be unique"
                        )
                    owner[spec.name] = session
                    specs.append(spec)
            self._specs, self._owner = specs, owner
        return list(self._specs)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Run one tool; an unknown name is an error outcome the model can read."""
        if self._specs is None:
            await self.specs()
        session = self._owner.get(name)
        if session is None:
            known = ", ".join(sorted(self._owner)) or "none"
            return ToolOutcome.error(f"Unknown tool {name!r}. Available tools: {known}.")
        return await session.call_tool(name, arguments)

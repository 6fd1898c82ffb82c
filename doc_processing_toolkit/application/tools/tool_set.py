"""ToolSet: the tools one run offers, gathered from its ToolSessions.

The run loop asks a ToolSet for the specs to send and routes each call to the session
that owns the tool. Names are unique across sessions: a duplicate is a
ToolDefinitionError naming both sources. The ToolLoader builds a run's set with
`ToolSet.from_entries` from the tools it registered when it connected, so a run
does not list every server again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doc_processing_toolkit.application.step_scope import current_scope
from doc_processing_toolkit.application.telemetry.runtime import tool_done, tool_span
from doc_processing_toolkit.domain.errors import ToolDefinitionError
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec
from doc_processing_toolkit.ports.tool_session import ToolSession

__all__ = ["ToolSet"]


class ToolSet:
    """Specs and call routing over a fixed list of sessions."""

    def __init__(self, sessions: Sequence[ToolSession] = ()) -> None:
        self._sessions = list(sessions)
        self._owner: dict[str, ToolSession] = {}
        self._specs: list[ToolSpec] | None = None
        self._listed: list[tuple[ToolSpec, ToolSession]] = []
        self._extra: list[ToolSession] = []

    @classmethod
    def from_entries(
        cls,
        entries: Sequence[tuple[ToolSpec, ToolSession]],
        *,
        extra: Sequence[ToolSession] = (),
    ) -> ToolSet:
        """A set over tools already listed (``entries``), plus sessions listed on first use."""
        sessions: dict[ToolSession, None] = {}  # each once, in order (a loop: every run)
        for _, session in entries:
            sessions[session] = None
        tool_set = cls([*sessions, *extra])
        tool_set._listed = list(entries)
        tool_set._extra = list(extra)
        return tool_set

    def with_specs(self, specs: Sequence[ToolSpec]) -> ToolSet:
        """A copy offering ``specs`` (a subset of this set's tools, possibly re-stamped)."""
        owners = {spec.name: self._owner[spec.name] for spec in specs}
        copy = ToolSet(list(dict.fromkeys(owners.values())))
        copy._specs = list(specs)
        copy._owner = owners
        return copy

    def server_of(self, name: str) -> str | None:
        """The name of the session that serves ``name`` (after `specs`)."""
        session = self._owner.get(name)
        return session.name if session is not None else None

    def offers(self, name: str) -> bool:
        """Whether ``name`` is one of the tools this set offers (after `specs`);
        a tool hidden by ``allowed_tools`` or by the run's planning is not."""
        return name in self._owner

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
            listed = list(self._listed)
            sources = self._extra if self._listed else self._sessions
            for session in sources:
                listed.extend((spec, session) for spec in await session.list_tools())
            for spec, session in listed:
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

    async def call(
        self, name: str, arguments: dict[str, Any], *, call_id: str | None = None
    ) -> ToolOutcome:
        """Run one tool; an unknown name is an error outcome the model can read. Inside a
        run scope (a fleet job) the call is the scope's checkpointed step (``call_id``,
        the model's id for the call, goes into its idempotency key)."""
        if self._specs is None:
            await self.specs()
        session = self._owner.get(name)
        if session is None:
            known = ", ".join(sorted(self._owner)) or "none"
            return ToolOutcome.error(f"Unknown tool {name!r}. Available tools: {known}.")
        with tool_span(name, arguments, call_id=call_id, server=session.name) as span:
            scope = current_scope()
            if scope is not None:
                outcome = await scope.call_tool(
                    name, arguments, lambda: session.call_tool(name, arguments), call_id=call_id
                )
            else:
                outcome = await session.call_tool(name, arguments)
            tool_done(span, outcome.text, is_error=outcome.is_error)
        return outcome

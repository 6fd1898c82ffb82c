"""TruncatedResultSession: the built-in ``read_truncated_result`` tool.

The Agent adds one to a run's tools when ``truncated_result_read_chars`` is set, from
the first request, so the tool list never changes mid-run. It reads from the run's (or
the session's) `TruncatedResultStore`,
which the run loop's size cap fills.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.domain.messages import TextPart
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec
from doc_processing_toolkit.domain.tools.truncated import (
    READ_TRUNCATED_RESULT_TOOL,
    TRUNCATED_RESULTS_SERVER,
    TruncatedResultStore,
)

__all__ = ["READ_TRUNCATED_RESULT_SPEC", "TruncatedResultSession"]

READ_TRUNCATED_RESULT_SPEC = ToolSpec(
    name=READ_TRUNCATED_RESULT_TOOL,
    description=(
        "Read more of a tool result that was cut short. Use it only on a result whose text "
        "ends with a [truncated: ...] marker naming read_truncated_result, with the "
        "tool_call_id and offset that marker gives; each answer says where to continue. "
        "Never call it for a result that was not truncated."
    ),
    parameters={
        "type": "object",
        "properties": {
            "tool_call_id": {
                "type": "string",
                "description": "The tool_call_id named in the [truncated: ...] marker.",
            },
            "offset": {
                "type": "integer",
                "description": "The character offset to read from, as the marker gives it.",
            },
        },
        "required": ["tool_call_id", "offset"],
        "additionalProperties": False,
    },
    server_name=TRUNCATED_RESULTS_SERVER,
)


class TruncatedResultSession:
    """A `ManagedToolSession` serving
    ``read_truncated_result`` over a store (connect and aclose are no-ops)."""

    def __init__(self, store: TruncatedResultStore) -> None:
        """Create the session over the run's or the session's store."""
        self.name = TRUNCATED_RESULTS_SERVER
        self.store = store

    def __repr__(self) -> str:
        return f"TruncatedResultSession(store={self.store!r})"

    async def connect(self) -> None:
        """Nothing to open."""

    async def aclose(self) -> None:
        """Nothing to close (the store belongs to the run or the session)."""

    async def list_tools(self) -> list[ToolSpec]:
        """The one tool."""
        return [READ_TRUNCATED_RESULT_SPEC]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """The next slice of a truncated result, or a refusal the model can read."""
        if name != READ_TRUNCATED_RESULT_TOOL:
            return ToolOutcome.error(
                f"Unknown tool {name!r}. Available tools: {READ_TRUNCATED_RESULT_TOOL}."
            )
        args = arguments if isinstance(arguments, dict) else {}
        read = self.store.read(args.get("tool_call_id"), args.get("offset"))
        return ToolOutcome(
            content=(TextPart(read.text),),
            is_error=read.is_error,
            meta={"read_chars": read.chars},
        )

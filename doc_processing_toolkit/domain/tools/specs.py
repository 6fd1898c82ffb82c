"""Tools as data: ToolSpec (what the model is shown), ToolOutcome (what a call returned),
and the normalised tool_choice.

The JSON schema of a ``@tool`` function is built here from its signature and docstring
(see `doc_processing_toolkit.domain.tools.schema`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.messages import ContentPart, TextPart

__all__ = [
    "INVALID_ARGUMENTS_QUOTE",
    "ForcedTool",
    "ToolChoice",
    "ToolOutcome",
    "ToolSpec",
    "normalize_tool_choice",
]

INVALID_ARGUMENTS_QUOTE = 200
"""How many characters of unparseable tool-call arguments the error result quotes."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A client-side tool as the model is shown it."""

    name: str
    """Unique tool name."""
    description: str
    """What the tool does (from the docstring)."""
    parameters: dict[str, Any]
    """JSON schema of the arguments (an ``object`` schema)."""
    server_name: str | None = None
    """The MCP server the tool came from (None for a local function)."""
    strict: bool = False
    """Send with strict schema validation (decided by the strict budgeter)."""
    defer_loading: bool = False
    """Hide behind the provider's tool search."""


@dataclass(frozen=True, slots=True)
class ForcedTool:
    """tool_choice that forces one named tool (or, on Google, one of an allow-list)."""

    name: str | tuple[str, ...]
    kind: Literal["tool"] = "tool"


ToolChoice: TypeAlias = Literal["auto", "required", "none", "validated"] | ForcedTool
"""The normalised tool_choice: ``"any"`` becomes ``"required"``."""


def normalize_tool_choice(value: Any) -> ToolChoice:
    """Normalise the user's tool_choice into `ToolChoice`.

    Accepts ``"auto"``, ``"any"``, ``"required"``, ``"none"``, ``"validated"``, a bare tool
    name, or ``{"type": "tool", "name": str | list[str]}``.

    Raises:
        ValueError: for anything else, naming the value.
    """
    if value is None:
        return "auto"
    if isinstance(value, ForcedTool):
        return value
    if isinstance(value, str):
        lowered = value.strip()
        if lowered == "any":
            return "required"
        if lowered in ("auto", "required", "none", "validated"):
            return lowered  # type: ignore[return-value]
        if not lowered:
            raise ConfigurationError("tool_choice must not be an empty string")
        return ForcedTool(name=lowered)
    if isinstance(value, dict):
        kind = value.get("type")
        if kind in ("auto", "any", "required", "none", "validated") and set(value) <= {"type"}:
            return normalize_tool_choice(kind)
        name = value.get("name")
        if kind == "tool" and isinstance(name, str) and name:
            return ForcedTool(name=name)
        if kind == "tool" and isinstance(name, list | tuple) and name:
            if not all(isinstance(n, str) and n for n in name):
                raise ConfigurationError(
                    f"tool_choice name list must hold tool names, got {name!r}"
                )
            return ForcedTool(name=tuple(name))
    raise ConfigurationError(
        f"tool_choice {value!r} is not one of 'auto', 'any', 'required', 'none', 'validated', "
        "a tool name, or {'type': 'tool', 'name': ...}"
    )


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What one tool call produced, before the result cap."""

    content: tuple[ContentPart, ...]
    """Text and media items."""
    is_error: bool = False
    """True when the tool raised or refused."""
    data: Any = None
    """The raw return value as JSON data, when there is one (``result_data``)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Side information (e.g. the ``_dpt_spend`` marker a tool reported)."""

    @classmethod
    def error(cls, message: str) -> ToolOutcome:
        """An error result carrying ``message``."""
        return cls(content=(TextPart(message),), is_error=True)

    @classmethod
    def invalid_arguments(cls, tool_name: str, raw: str) -> ToolOutcome:
        """The error result for a call whose arguments were not valid JSON (the tool did not
        run): it says so and quotes the first `INVALID_ARGUMENTS_QUOTE` characters."""
        quoted = raw[:INVALID_ARGUMENTS_QUOTE]
        cut = f" (first {len(quoted)} of {len(raw)} characters)" if raw != quoted else ""
        return cls.error(
            f"Error: the arguments for tool {tool_name} were not valid JSON, so the tool was "
            f"not run. Call it again with its arguments as one JSON object. The arguments "
            f"sent{cut}: {quoted}"
        )

    @property
    def text(self) -> str:
        """All text items joined with newlines."""
        texts = []
        for part in self.content:  # docs/performance.md: loops
            if isinstance(part, TextPart):
                texts.append(part.text)
        return "\n".join(texts)

"""Tool definitions in each provider's own shape, and the MCP-compatible result types.

`convert_to_provider_format` is what ``ToolLoader.convert_to_provider_format``
returns: plain dicts in the shape each provider's API takes. The adapters build their
wire requests themselves; this is the documented view of the same conversion for
callers that talk to a provider directly.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.messages import MediaPart, TextPart
from doc_processing_toolkit.domain.registry import PROVIDERS
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = [
    "PROVIDERS",
    "MCPCallToolResult",
    "MCPToolSchema",
    "MCPToolsResponse",
    "convert_to_provider_format",
    "openai_strict_schema",
    "to_mcp_call_result",
    "to_mcp_tools_response",
]


@dataclass(frozen=True, slots=True)
class MCPToolSchema:
    """MCP-compatible tool schema representation."""

    name: str
    description: str
    inputSchema: dict[str, Any]  # the MCP wire spelling


@dataclass(frozen=True, slots=True)
class MCPToolsResponse:
    """MCP-compatible tools list response."""

    tools: list[MCPToolSchema] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class MCPCallToolResult:
    """MCP-compatible tool call result: content items as MCP dicts."""

    content: list[dict[str, Any]] = field(default_factory=list)
    isError: bool = False  # the MCP wire spelling
    structuredContent: Any = None  # the MCP wire spelling


def to_mcp_tools_response(specs: list[ToolSpec]) -> MCPToolsResponse:
    """Tool specs as an MCP ``tools/list`` answer."""
    return MCPToolsResponse([MCPToolSchema(s.name, s.description, s.parameters) for s in specs])


def to_mcp_call_result(outcome: ToolOutcome) -> MCPCallToolResult:
    """A tool outcome as an MCP ``tools/call`` answer (media as base64 image items)."""
    import base64

    items: list[dict[str, Any]] = []
    for part in outcome.content:
        if isinstance(part, TextPart):
            items.append({"type": "text", "text": part.text})
        elif isinstance(part, MediaPart) and part.data is not None:
            kind = "audio" if part.mime_type.startswith("audio/") else "image"
            items.append(
                {
                    "type": kind,
                    "data": base64.b64encode(part.data).decode("ascii"),
                    "mimeType": part.mime_type,
                }
            )
        elif isinstance(part, MediaPart):
            items.append(
                {"type": "resource_link", "uri": part.url or part.file_uri or "", "name": ""}
            )
    structured = outcome.data if isinstance(outcome.data, dict) else None
    return MCPCallToolResult(items, outcome.is_error, structured)


def _strict_object(schema: dict[str, Any]) -> None:
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        schema["required"] = list(properties)
        schema["additionalProperties"] = False
    for key in ("properties", "$defs", "definitions"):
        for sub in (schema.get(key) or {}).values():
            if isinstance(sub, dict):
                _strict_object(sub)
    for key in ("items", "not"):
        if isinstance(schema.get(key), dict):
            _strict_object(schema[key])
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or []:
            if isinstance(sub, dict):
                _strict_object(sub)


def openai_strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` fit for OpenAI strict mode: every object lists all of its
    properties in ``required`` and sets ``additionalProperties: false``."""
    strict = copy.deepcopy(schema) if schema else {"type": "object", "properties": {}}
    strict.setdefault("type", "object")
    strict.setdefault("properties", {})
    _strict_object(strict)
    return strict


def convert_to_provider_format(
    specs: list[ToolSpec], provider: str, *, strict: bool = True
) -> list[dict[str, Any]]:
    """Tool definitions in the provider's expected format.

    anthropic: ``{"name", "description", "input_schema"}`` (plus ``strict`` /
    ``defer_loading`` when the spec says so); openai (Responses): ``{"type": "function",
    "name", "description", "parameters", "strict"}``, with every property required under
    strict mode; google: ``{"name", "description", "parameters_json_schema"}``;
    fireworks (chat completions): ``{"type": "function", "function": {...}}``.

    Raises:
        ValueError: an unsupported provider.
    """
    name = provider.lower().strip()
    if name not in PROVIDERS:
        raise ConfigurationError(
            f"unsupported provider {provider!r}: expected one of {list(PROVIDERS)}"
        )
    out: list[dict[str, Any]] = []
    for spec in specs:
        schema = copy.deepcopy(spec.parameters) or {"type": "object", "properties": {}}
        if name == "anthropic":
            entry: dict[str, Any] = {
                "name": spec.name,
                "description": spec.description,
                "input_schema": schema,
            }
            if spec.strict:
                entry["strict"] = True
            if spec.defer_loading:
                entry["defer_loading"] = True
        elif name == "openai":
            entry = {
                "type": "function",
                "name": spec.name,
                "description": spec.description,
                "parameters": openai_strict_schema(schema) if strict else schema,
                "strict": strict,
            }
            if spec.defer_loading:
                entry["defer_loading"] = True
        elif name == "google":
            entry = {
                "name": spec.name,
                "description": spec.description,
                "parameters_json_schema": schema,
            }
        else:
            entry = {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": schema,
                },
            }
        out.append(entry)
    return out

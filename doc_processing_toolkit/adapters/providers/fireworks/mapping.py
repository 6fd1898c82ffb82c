"""Pure IR <-> Fireworks chat-completions mapping: the shared chat-completions mapping
(``openai_compatible/mapping.py``) with Fireworks' profile and codec.

Nothing here does I/O, logs, or imports the SDK: `build_request` returns the
keyword arguments for ``client.chat.completions.create`` plus the facts the client must
log or report (a forced tool choice on a model that may ignore it, dropped parts,
thinking warnings, what went through ``extra_body``).
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.adapters.providers.fireworks.dialect import (
    LABEL,
    PROVIDER,
    DroppedPart,
    FireworksHistoryCodec,
)
from doc_processing_toolkit.adapters.providers.fireworks.profile import FIREWORKS_PROFILE
from doc_processing_toolkit.adapters.providers.openai_compatible import mapping as _chat
from doc_processing_toolkit.adapters.providers.openai_compatible.mapping import (
    ChatCompletionsWireRequest,
    map_stop_reason,
    parse_usage,
)
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.domain.tools.specs import ToolChoice

__all__ = [
    "MAX_DEFAULT_MAX_TOKENS",
    "STRUCTURED_OUTPUT_NAME",
    "FireworksWireRequest",
    "build_request",
    "dropped_part_records",
    "map_stop_reason",
    "map_tool_choice",
    "parse_usage",
]

MAX_DEFAULT_MAX_TOKENS = FIREWORKS_PROFILE.max_default_max_tokens
"""The registry's max_output_tokens is capped to this when used as a default."""

STRUCTURED_OUTPUT_NAME = FIREWORKS_PROFILE.structured_output_name
"""The ``json_schema.name`` sent with a native structured-output schema."""

FireworksWireRequest = ChatCompletionsWireRequest
"""What `build_request` produced (the shared chat-completions wire request)."""

_CODEC = FireworksHistoryCodec()


def map_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    """The wire tool_choice.

    Raises:
        ValueError: for a forced choice of several tools (only Google takes a list).
    """
    return _chat.map_tool_choice(choice, LABEL)


def build_request(request: ModelRequest, *, row: ModelInfo | None = None) -> FireworksWireRequest:
    """Map a `ModelRequest` to ``chat.completions.create`` keyword arguments.

    Raises:
        ValueError: for an enabled built-in tool (Fireworks has none), a forced choice of
            several tools, or a provider-run MCP server with ``allowed_tools`` (Fireworks
            ignores the filter).
    """
    return _chat.build_request(request, profile=FIREWORKS_PROFILE, codec=_CODEC, row=row)


def dropped_part_records(dropped: tuple[DroppedPart, ...], *, model: str) -> list[dict[str, Any]]:
    """Dropped parts as ``AgentResult.dropped_parts`` entries (see the shared mapping)."""
    return _chat.dropped_part_records(dropped, model=model, provider=PROVIDER)

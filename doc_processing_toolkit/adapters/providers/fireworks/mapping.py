"""Pure IR <-> Fireworks chat-completions mapping: request parameters, usage, stop reasons.

Nothing here does I/O, logs, or imports the SDK: `build_request` returns the
keyword arguments for ``client.chat.completions.create`` plus the facts the client must
log or report (a forced tool choice on a model that may ignore it, dropped parts,
thinking warnings, what went through ``extra_body``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.adapters.providers._wire import WireRequest
from doc_processing_toolkit.adapters.providers.fireworks.dialect import (
    PROVIDER,
    DroppedPart,
    FireworksHistoryCodec,
)
from doc_processing_toolkit.adapters.providers.fireworks.options import FIREWORKS_OPTIONS
from doc_processing_toolkit.domain.errors import CompatibilityError, ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, StopReason, Usage
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolChoice, ToolSpec

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

MAX_DEFAULT_MAX_TOKENS = 32_000
"""The registry's max_output_tokens is capped to this when used as a default."""

STRUCTURED_OUTPUT_NAME = "structured_output"
"""The ``json_schema.name`` sent with a native structured-output schema."""

_TYPED_OPTIONS = frozenset(
    {
        "top_p",
        "stop",
        "seed",
        "n",
        "presence_penalty",
        "frequency_penalty",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "parallel_tool_calls",
        "user",
        "prompt_cache_key",
        "metadata",
    }
)
"""provider_options keys that are typed ``chat.completions.create`` keywords."""

_LOOP_OPTIONS = frozenset({"max_pause_turn_iterations"})
"""provider_options keys the run loop consumes; never sent."""

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
}

_CODEC = FireworksHistoryCodec()


@dataclass(frozen=True, slots=True)
class FireworksWireRequest(WireRequest):
    """What `build_request` produced for ``client.chat.completions.create``.

    The shared `WireRequest`
    (``params`` without ``stream``; ``extra_body`` holds the Fireworks-only options) plus
    what this adapter reports about a request.
    """

    unconfirmed_forced_tool: str | None = None
    """The forced tool sent to a model whose row says it may ignore a forced choice."""
    dropped: tuple[DroppedPart, ...] = ()
    """Parts of this request's new turns (after the last assistant message) that could not
    be sent: media other than images, blocks of another provider."""
    dropped_earlier: int = 0
    """Parts of earlier turns not sent either (already reported when they were new)."""


def map_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    """The wire tool_choice.

    Raises:
        ValueError: for a forced choice of several tools (only Google takes a list).
    """
    match choice:
        case "auto" | "validated":
            return "auto"
        case "none":
            return "none"
        case "required":
            return "required"
        case ForcedTool(name=str() as name):
            return {"type": "function", "function": {"name": name}}
        case ForcedTool(name=names):
            raise CompatibilityError(
                f"tool_choice forcing several tools {list(names)!r} is Google-only; "
                "Fireworks forces one tool by name"
            )
        case _:
            raise ConfigurationError(f"unknown tool_choice {choice!r}")


def _tool_param(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        },
    }


def _max_tokens(requested: int | None, row: ModelInfo | None) -> int | None:
    if requested is not None:
        return requested
    if row is not None and row.max_output_tokens:
        return min(row.max_output_tokens, MAX_DEFAULT_MAX_TOKENS)
    return None


def build_request(request: ModelRequest, *, row: ModelInfo | None = None) -> FireworksWireRequest:
    """Map a `ModelRequest` to ``chat.completions.create`` keyword arguments.

    Raises:
        ValueError: for an enabled built-in tool (Fireworks has none), a forced choice of
            several tools, or a provider-run MCP server with ``allowed_tools`` (Fireworks
            ignores the filter).
    """
    # Fireworks has no built-in tools: this raises for any enabled one (tool_search warns).
    built_ins = FIREWORKS_OPTIONS.map_built_in_tools(request.built_in_tools, row)
    notes: list[str] = []
    warnings: list[str] = list(built_ins.warnings)
    extra_body: dict[str, Any] = {}
    extra_headers: dict[str, str] = {}

    history, drops = _CODEC.render_with_drops(list(request.messages))
    first_new = _first_new_turn(request)
    dropped = [d for d in drops if d.message_index >= first_new]
    messages = [{"role": "system", "content": request.system}] if request.system else []
    messages.extend(history)
    model = row.api_model if row is not None and row.api_model else request.model
    params: dict[str, Any] = {"model": model, "messages": messages}
    max_tokens = _max_tokens(request.max_tokens, row)
    if max_tokens is not None:
        params["max_tokens"] = max_tokens

    tools = [_tool_param(spec) for spec in request.tools]
    if request.remote_mcp_servers:
        tools.extend(FIREWORKS_OPTIONS.remote_mcp_servers(list(request.remote_mcp_servers)))
        notes.append(f"{len(request.remote_mcp_servers)} provider-run MCP server(s) in tools")
    unconfirmed = None
    choice = map_tool_choice(request.tool_choice)
    if tools:
        params["tools"] = tools
        if choice != "auto":
            params["tool_choice"] = choice
        if (
            isinstance(request.tool_choice, ForcedTool)
            and row is not None
            and not row.supports_forced_tool_choice
        ):
            unconfirmed = str(request.tool_choice.name)

    thinking = FIREWORKS_OPTIONS.transform_thinking(request.thinking, row)
    params.update(thinking.as_params())
    warnings.extend(thinking.warnings)

    if request.output_schema is not None:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": STRUCTURED_OUTPUT_NAME, "schema": request.output_schema},
        }
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.service_tier is not None:
        params["service_tier"] = request.service_tier
    if request.prompt_caching is not None:
        notes.append("prompt_caching ignored: Fireworks caches prompts server-side")

    for key, value in request.provider_options.items():
        if key in _TYPED_OPTIONS:
            params[key] = value
        elif key == "extra_headers" and isinstance(value, Mapping):
            extra_headers.update({str(k): str(v) for k, v in value.items()})
        elif key == "extra_body" and isinstance(value, Mapping):
            extra_body.update(value)
        elif key in _LOOP_OPTIONS:
            continue
        else:
            extra_body[key] = value
            notes.append(f"provider option {key!r} sent through extra_body")

    return FireworksWireRequest(
        params=params,
        extra_body=extra_body,
        extra_headers=extra_headers,
        unconfirmed_forced_tool=unconfirmed,
        dropped=tuple(dropped),
        dropped_earlier=len(drops) - len(dropped),
        warnings=tuple(warnings),
        notes=tuple(notes),
    )


def _first_new_turn(request: ModelRequest) -> int:
    """Index of the first message after the last assistant turn (what this request adds)."""
    for index in range(len(request.messages) - 1, -1, -1):
        if request.messages[index].role == "assistant":
            return index + 1
    return 0


def dropped_part_records(dropped: tuple[DroppedPart, ...], *, model: str) -> list[dict[str, Any]]:
    """Dropped parts as ``AgentResult.dropped_parts`` entries.

    ``index`` is the part's position in its message and ``message_index`` the message's
    position in the request's history.
    """
    return [
        {
            "kind": drop.kind,
            "index": drop.part_index,
            "message_index": drop.message_index,
            "reason": drop.reason,
            "provider": PROVIDER,
            "model": model,
        }
        for drop in dropped
    ]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def parse_usage(usage: Mapping[str, Any] | None) -> Usage:
    """Wire usage -> `Usage` on the toolkit convention.

    input = prompt_tokens (cached tokens included); cached = prompt_tokens_details.
    cached_tokens; output = completion_tokens, of which completion_tokens_details.
    reasoning_tokens are reasoning. Fireworks reports no cache writes.
    """
    if not usage:
        return Usage()
    prompt_details = usage.get("prompt_tokens_details")
    completion_details = usage.get("completion_tokens_details")
    cached = _int(prompt_details.get("cached_tokens")) if isinstance(prompt_details, Mapping) else 0
    reasoning = (
        _int(completion_details.get("reasoning_tokens"))
        if isinstance(completion_details, Mapping)
        else 0
    )
    return Usage(
        input_tokens=_int(usage.get("prompt_tokens")),
        output_tokens=_int(usage.get("completion_tokens")),
        reasoning_tokens=reasoning,
        cached_input_tokens=cached,
    )


def map_stop_reason(reason: str | None, *, has_tool_calls: bool = False) -> StopReason:
    """A wire finish_reason as the normalised `StopReason` ("other" when unknown).

    A response that made tool calls but says ``stop`` (some models do) is ``tool_use``.
    """
    if reason is None:
        return "other"
    mapped = _STOP_REASONS.get(reason, "other")
    if has_tool_calls and mapped == "end_turn":
        return "tool_use"
    return mapped

"""Pure IR <-> chat-completions mapping: request parameters, usage, stop reasons.

The mapping every OpenAI-compatible vendor shares; what differs between vendors comes
from its `ChatCompletionsProfile` (label, option rules, output cap, notes) and its codec.
Nothing here does I/O, logs, or imports the SDK: `build_request` returns the keyword
arguments for ``client.chat.completions.create`` plus the facts the client must log or
report (a forced tool choice on a model that may ignore it, dropped parts, thinking
warnings, what went through ``extra_body``). It is one short function calling one
builder per section of the request, in the order the keywords are sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.adapters.providers._wire import (
    RequestDraft,
    WireRequest,
    wire_int,
    wire_model,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.codec import (
    ChatCompletionsCodec,
    DroppedPart,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.options import (
    ChatCompletionsOptions,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.profile import (
    ChatCompletionsProfile,
)
from doc_processing_toolkit.domain.errors import CompatibilityError, ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, StopReason, Usage
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolChoice, ToolSpec

__all__ = [
    "ChatCompletionsWireRequest",
    "build_request",
    "dropped_part_records",
    "map_stop_reason",
    "map_tool_choice",
    "parse_usage",
]

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
}


@dataclass(frozen=True, slots=True)
class ChatCompletionsWireRequest(WireRequest):
    """What `build_request` produced for ``client.chat.completions.create``.

    The shared `WireRequest` (``params`` without ``stream``; ``extra_body`` holds the
    vendor-only options) plus what the adapter reports about a request.
    """

    unconfirmed_forced_tool: str | None = None
    """The forced tool sent to a model whose row says it may ignore a forced choice."""
    dropped: tuple[DroppedPart, ...] = ()
    """Parts of this request's new turns (after the last assistant message) that could not
    be sent: media other than images, blocks of another provider."""
    dropped_earlier: int = 0
    """Parts of earlier turns not sent either (already reported when they were new)."""


def map_tool_choice(choice: ToolChoice, label: str = "the provider") -> str | dict[str, Any]:
    """The wire tool_choice (``label`` names the vendor in the error).

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
                f"{label} forces one tool by name"
            )
        case _:
            raise ConfigurationError(f"unknown tool_choice {choice!r}")


def build_request(
    request: ModelRequest,
    *,
    profile: ChatCompletionsProfile,
    codec: ChatCompletionsCodec,
    row: ModelInfo | None = None,
) -> ChatCompletionsWireRequest:
    """Map a `ModelRequest` to ``chat.completions.create`` keyword arguments.

    Raises:
        ValueError: for an enabled built-in tool (chat completions have none), a forced
            choice of several tools, or a provider-run MCP server the vendor refuses.
    """
    rules = profile.rules()
    # No built-in tools: this raises for any enabled one (tool_search warns).
    built_ins = rules.map_built_in_tools(request.built_in_tools, row)
    draft = RequestDraft(params={"model": wire_model(request, row)})
    draft.warnings.extend(built_ins.warnings)
    dropped, dropped_earlier = _messages(draft, request, codec)
    _output_cap(draft, request.max_tokens, row, profile.max_default_max_tokens)
    unconfirmed = _tools(draft, request, row, rules, profile.label)
    _thinking(draft, request, row, rules)
    _output_format(draft, request, profile.structured_output_name)
    _sampling(draft, request, profile.prompt_caching_note)
    for key, value in request.provider_options.items():
        draft.route_option(key, value, rules)
    return draft.wire(
        ChatCompletionsWireRequest,
        unconfirmed_forced_tool=unconfirmed,
        dropped=dropped,
        dropped_earlier=dropped_earlier,
    )


# -- the sections of a request -------------------------------------------------------------


def _messages(
    draft: RequestDraft, request: ModelRequest, codec: ChatCompletionsCodec
) -> tuple[tuple[DroppedPart, ...], int]:
    """``messages`` (the system prompt first); the new turns' drops and the earlier count."""
    history, drops = codec.render_with_drops(list(request.messages))
    first_new = _first_new_turn(request)
    dropped = tuple(d for d in drops if d.message_index >= first_new)
    messages = [{"role": "system", "content": request.system}] if request.system else []
    messages.extend(history)
    draft.params["messages"] = messages
    return dropped, len(drops) - len(dropped)


def _output_cap(
    draft: RequestDraft, requested: int | None, row: ModelInfo | None, cap: int
) -> None:
    """``max_tokens``: the request's, else the row's capped at ``cap``, else none."""
    if requested is None and row is not None and row.max_output_tokens:
        requested = min(row.max_output_tokens, cap)
    if requested is not None:
        draft.params["max_tokens"] = requested


def _tool_param(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        },
    }


def _tools(
    draft: RequestDraft,
    request: ModelRequest,
    row: ModelInfo | None,
    rules: ChatCompletionsOptions,
    label: str,
) -> str | None:
    """``tools`` (functions, then provider-run MCP entries) and ``tool_choice``; returns
    the forced tool a model may ignore (its row says so)."""
    tools = [_tool_param(spec) for spec in request.tools]
    if request.remote_mcp_servers:
        tools.extend(rules.remote_mcp_servers(list(request.remote_mcp_servers)))
        draft.notes.append(f"{len(request.remote_mcp_servers)} provider-run MCP server(s) in tools")
    choice = map_tool_choice(request.tool_choice, label)
    if not tools:
        return None
    draft.params["tools"] = tools
    if choice != "auto":
        draft.params["tool_choice"] = choice
    if (
        isinstance(request.tool_choice, ForcedTool)
        and row is not None
        and not row.supports_forced_tool_choice
    ):
        return str(request.tool_choice.name)
    return None


def _thinking(
    draft: RequestDraft, request: ModelRequest, row: ModelInfo | None, rules: ChatCompletionsOptions
) -> None:
    """``reasoning_effort`` (or the vendor's thinking keyword)."""
    thinking = rules.transform_thinking(request.thinking, row)
    draft.params.update(thinking.as_params())
    draft.warnings.extend(thinking.warnings)


def _output_format(draft: RequestDraft, request: ModelRequest, schema_name: str) -> None:
    """``response_format`` for a native structured-output schema."""
    if request.output_schema is not None:
        draft.params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "schema": request.output_schema},
        }


def _sampling(draft: RequestDraft, request: ModelRequest, prompt_caching_note: str) -> None:
    """``temperature`` and ``service_tier``; prompt caching has no switch (a note)."""
    if request.temperature is not None:
        draft.params["temperature"] = request.temperature
    if request.service_tier is not None:
        draft.params["service_tier"] = request.service_tier
    if request.prompt_caching is not None:
        draft.notes.append(prompt_caching_note)


def _first_new_turn(request: ModelRequest) -> int:
    """Index of the first message after the last assistant turn (what this request adds)."""
    for index in range(len(request.messages) - 1, -1, -1):
        if request.messages[index].role == "assistant":
            return index + 1
    return 0


# -- the response --------------------------------------------------------------------------


def dropped_part_records(
    dropped: tuple[DroppedPart, ...], *, model: str, provider: str
) -> list[dict[str, Any]]:
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
            "provider": provider,
            "model": model,
        }
        for drop in dropped
    ]


def parse_usage(usage: Mapping[str, Any] | None) -> Usage:
    """Wire usage -> `Usage` on the toolkit convention.

    input = prompt_tokens (cached tokens included); cached = prompt_tokens_details.
    cached_tokens; output = completion_tokens, of which completion_tokens_details.
    reasoning_tokens are reasoning. Chat completions report no cache writes.
    """
    if not usage:
        return Usage()
    prompt_details = usage.get("prompt_tokens_details")
    completion_details = usage.get("completion_tokens_details")
    cached = (
        wire_int(prompt_details.get("cached_tokens")) if isinstance(prompt_details, Mapping) else 0
    )
    reasoning = (
        wire_int(completion_details.get("reasoning_tokens"))
        if isinstance(completion_details, Mapping)
        else 0
    )
    return Usage(
        input_tokens=wire_int(usage.get("prompt_tokens")),
        output_tokens=wire_int(usage.get("completion_tokens")),
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

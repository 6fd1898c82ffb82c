"""Pure IR <-> Anthropic wire mapping: request parameters, usage and stop reasons.

Nothing here does I/O, logs, or imports the SDK: `build_request` returns the
keyword arguments for ``client.messages.create`` plus the facts the client must log
(a downgraded tool_choice, what went through ``extra_body``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from doc_processing_toolkit.adapters.providers._wire import RequestDraft, WireRequest, wire_int
from doc_processing_toolkit.adapters.providers.anthropic.binding import (
    apply_binding,
    without_block_binding,
)
from doc_processing_toolkit.adapters.providers.anthropic.citations import (
    enable_document_citations,
)
from doc_processing_toolkit.adapters.providers.anthropic.dialect import AnthropicHistoryCodec
from doc_processing_toolkit.adapters.providers.anthropic.options import (
    ANTHROPIC_MCP_BETA,
    ANTHROPIC_OPTIONS,
    anthropic_mcp_connector,
)
from doc_processing_toolkit.adapters.providers.anthropic.skills import apply_skills
from doc_processing_toolkit.domain.errors import CompatibilityError, ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, StopReason, Usage
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolChoice, ToolSpec

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "MAX_DEFAULT_MAX_TOKENS",
    "WireRequest",
    "build_request",
    "map_stop_reason",
    "map_thinking",
    "map_tool_choice",
    "merge_usage",
    "parse_usage",
    "resolve_max_tokens",
]

DEFAULT_MAX_TOKENS = 8192
"""Output cap when neither the request nor the registry row gives one."""

MAX_DEFAULT_MAX_TOKENS = 32_000
"""The registry's max_output_tokens is capped to this when used as a default."""

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "pause_turn": "pause_turn",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
}

_CODEC = AnthropicHistoryCodec()


def resolve_max_tokens(requested: int | None, row_max_output_tokens: int | None) -> int:
    """The request's cap, else the row's (capped at `MAX_DEFAULT_MAX_TOKENS`), else 8192."""
    if requested is not None:
        return requested
    if row_max_output_tokens:
        return min(row_max_output_tokens, MAX_DEFAULT_MAX_TOKENS)
    return DEFAULT_MAX_TOKENS


def map_tool_choice(
    choice: ToolChoice, *, supports_forced_tool_choice: bool = True
) -> tuple[dict[str, Any], str | None]:
    """The wire tool_choice and, when a forced choice was downgraded, what was asked.

    Raises:
        ValueError: for a forced choice of several tools (only Google takes a list).
    """
    wire: dict[str, Any]
    match choice:
        case "auto" | "validated":
            return {"type": "auto"}, None
        case "none":
            return {"type": "none"}, None
        case "required":
            wire = {"type": "any"}
        case ForcedTool(name=str() as name):
            wire = {"type": "tool", "name": name}
        case ForcedTool(name=names):
            raise CompatibilityError(
                f"tool_choice forcing several tools {list(names)!r} is Google-only; "
                "Anthropic forces one tool by name"
            )
        case _:
            raise ConfigurationError(f"unknown tool_choice {choice!r}")
    if not supports_forced_tool_choice:
        return {"type": "auto"}, str(wire.get("name", "any"))
    return wire, None


def map_thinking(
    thinking: Mapping[str, Any] | None,
    row: ModelInfo | None = None,
    *,
    effort: str | None = None,
) -> dict[str, Any] | None:
    """The Agent's thinking setting as the wire ``thinking`` object (None: not sent).

    Delegates to `options.AnthropicOptions.transform_thinking`; use that for the
    interleaved flag, the betas and the warnings.
    """
    value = ANTHROPIC_OPTIONS.transform_thinking(thinking, row, effort=effort).value
    return dict(value) if value is not None else None


def _tool_param(spec: ToolSpec) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.parameters,
    }
    if spec.strict:
        tool["strict"] = True
    if spec.defer_loading:
        tool["defer_loading"] = True
    return tool


def _cache_control(prompt_caching: Mapping[str, Any]) -> dict[str, Any]:
    ttl = prompt_caching.get("ttl")
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}


def _mark_last_turn(messages: list[dict[str, Any]], cache_control: dict[str, Any]) -> bool:
    """Put a cache breakpoint on the last cacheable block of the last message (in place)."""
    if not messages:
        return False
    last = messages[-1]
    content = last["content"]
    if isinstance(content, str):
        last["content"] = [{"type": "text", "text": content, "cache_control": cache_control}]
        return True
    for block in reversed(content):
        if block.get("type") not in ("thinking", "redacted_thinking"):
            block["cache_control"] = cache_control
            return True
    return False


def _merge_betas(headers: dict[str, str], betas: list[str]) -> None:
    """Add ``betas`` to the ``anthropic-beta`` header (comma-separated, no duplicates)."""
    if not betas:
        return
    present = [b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
    headers["anthropic-beta"] = ",".join(dict.fromkeys([*present, *betas]))


def build_request(
    request: ModelRequest,
    *,
    max_tokens: int,
    supports_forced_tool_choice: bool = True,
    row: ModelInfo | None = None,
) -> WireRequest:
    """Map a `ModelRequest` to ``messages.create`` keyword arguments (without stream).

    ``row`` (the model's registry row) decides the thinking-off value and which
    built-in tools the model offers; None maps the request unchecked. One builder per
    section of the request, in the order its keywords are sent.

    Raises:
        ValueError: for a built-in tool the row does not offer, or a remote MCP server
            config the connector cannot take.
        TypeError: for a remote MCP server's allowed_tools that is not a list of names.
    """
    draft = RequestDraft(params={"model": request.model, "max_tokens": max_tokens})
    betas: list[str] = []
    _messages(draft, request)
    downgraded = _tools(draft, request, row, betas, supports_forced_tool_choice)
    _thinking(draft, request, row, betas, max_tokens)
    output_config = _output_format(draft, request)
    _provider_options(draft, request, output_config, betas)
    if output_config:
        draft.params["output_config"] = output_config
    _merge_betas(draft.extra_headers, betas)
    return draft.wire(WireRequest, downgraded_tool_choice=downgraded)


def _messages(draft: RequestDraft, request: ModelRequest) -> None:
    """``messages`` and ``system``, with cache breakpoints when prompt caching is on."""
    cited = request.cited_documents
    if cited and request.output_schema is not None:
        # The API refuses citations together with JSON outputs (a 400): not asked for.
        draft.warnings.append(
            "document citations are not asked for in a structured-output request "
            "(Anthropic does not combine citations with JSON outputs)"
        )
        cited = False
    messages = enable_document_citations(_CODEC.render(list(request.messages)), cited)
    system: str | list[dict[str, Any]] | None = request.system or None
    if request.prompt_caching is not None:
        cache_control = _cache_control(request.prompt_caching)
        messages = copy.deepcopy(messages)
        if system:
            system = [{"type": "text", "text": system, "cache_control": cache_control}]
        if _mark_last_turn(messages, cache_control):
            draft.notes.append("prompt caching: breakpoints on the system block and the last turn")
    draft.params["messages"] = messages
    if system:
        draft.params["system"] = system


def _tools(
    draft: RequestDraft,
    request: ModelRequest,
    row: ModelInfo | None,
    betas: list[str],
    supports_forced_tool_choice: bool,
) -> str | None:
    """``tool_choice``, ``tools`` (functions, server tools, MCP toolsets) and the MCP
    connector's ``mcp_servers``; returns a downgraded forced choice."""
    params = draft.params
    downgraded = None
    tools: list[dict[str, Any]] = [_tool_param(spec) for spec in request.tools]
    if request.tools:
        choice, downgraded = map_tool_choice(
            request.tool_choice, supports_forced_tool_choice=supports_forced_tool_choice
        )
        if choice != {"type": "auto"}:
            params["tool_choice"] = choice
    elif request.tool_choice == "none":
        params["tool_choice"] = {"type": "none"}
    if request.built_in_tools:
        built_in = ANTHROPIC_OPTIONS.map_built_in_tools(request.built_in_tools, row)
        tools.extend(built_in.tools)
        params.update(built_in.params)
        draft.warnings.extend(built_in.warnings)
    remote = [*request.remote_mcp_servers, *request.provider_options.get("mcp_remote_servers", ())]
    if remote:
        servers, toolsets = anthropic_mcp_connector(remote)
        draft.extra_body["mcp_servers"] = servers
        tools.extend(toolsets)
        betas.append(ANTHROPIC_MCP_BETA)
        draft.notes.append("remote MCP servers sent through extra_body with the MCP connector beta")
    if tools:
        params["tools"] = tools
    return downgraded


def _thinking(
    draft: RequestDraft,
    request: ModelRequest,
    row: ModelInfo | None,
    betas: list[str],
    max_tokens: int,
) -> None:
    """``thinking`` (``max_tokens`` raised above a budget) and the thinking binding."""
    params = draft.params
    effort = request.provider_options.get("effort_config")
    transform = ANTHROPIC_OPTIONS.transform_thinking(
        without_block_binding(request.thinking),
        row,
        effort=effort if isinstance(effort, str) else None,
    )
    draft.warnings.extend(transform.warnings)
    betas.extend(transform.betas)
    if transform.value is not None:
        thinking = dict(transform.value)
        params["thinking"] = thinking
        budget = thinking.get("budget_tokens")
        if isinstance(budget, int) and budget >= max_tokens:
            params["max_tokens"] = budget + DEFAULT_MAX_TOKENS
            draft.notes.append(
                f"max_tokens raised to {params['max_tokens']} above the thinking budget"
            )
    draft.notes.extend(apply_binding(params, betas, request, thinking_on=transform.thinking_on))


def _output_format(draft: RequestDraft, request: ModelRequest) -> dict[str, Any]:
    """The ``output_config`` so far (its schema ``format``); ``service_tier``, and
    ``temperature`` through ``extra_body``."""
    output_config: dict[str, Any] = {}
    if request.output_schema is not None:
        output_config["format"] = {"type": "json_schema", "schema": request.output_schema}
    if request.service_tier is not None:
        draft.params["service_tier"] = request.service_tier
    if request.temperature is not None:
        draft.extra_body["temperature"] = request.temperature
        draft.notes.append("temperature sent through extra_body (not in the typed signature)")
    return output_config


def _provider_options(
    draft: RequestDraft, request: ModelRequest, output_config: dict[str, Any], betas: list[str]
) -> None:
    """The ``provider_options``: ``effort_config`` and ``skills``, then the shared routing."""
    for key, value in request.provider_options.items():
        if key == "effort_config":
            output_config["effort"] = value
        elif key == "skills":
            betas.extend(apply_skills(draft.params, value))
        else:
            draft.route_option(key, value, ANTHROPIC_OPTIONS)


_TOP_LEVEL_ITERATIONS = frozenset({"message"})
"""The ``usage.iterations`` entry types the top-level usage sums (the sampling passes of
the serving model); every other entry (``compaction``, ``advisor_message``, a fallback's
hops) is billed beside it and left out of the top level."""


def parse_usage(usage: Mapping[str, Any] | None) -> Usage:
    """Wire usage -> the billed `Usage` on the toolkit convention.

    input = input_tokens + cache_read_input_tokens (all prompt tokens but cache writes,
    which Anthropic bills on top); cached = cache reads; cache_write = cache creation.

    When the API ran several steps for one request it lists each in ``usage.iterations``
    (``message``, server-side ``compaction``, ``advisor_message``, a fallback's
    ``fallback_message``), each with its own token and cache figures, and the top level
    leaves some of them out although all are billed. The billed usage is then the sum of
    the entries, each counted exactly once; the top level is not added on top (it is the
    sum of the ``message`` entries, or the serving ``fallback_message`` one). Should the
    top level report more than the entries cover, it counts, plus the entries outside it.
    """
    if not usage:
        return Usage()
    top = _usage_of(usage)
    iterations = usage.get("iterations")
    if not isinstance(iterations, list):
        return top
    entries = [e for e in iterations if isinstance(e, Mapping)]
    if not entries:
        return top
    billed = Usage()
    for entry in entries:
        billed = billed + _usage_of(entry)
    if billed.input_tokens < top.input_tokens or billed.output_tokens < top.output_tokens:
        billed = top
        for entry in entries:
            if entry.get("type") not in _TOP_LEVEL_ITERATIONS:
                billed = billed + _usage_of(entry)
    # thinking is reported on the top level only (a share of the output, not more of it)
    reasoning = max(billed.reasoning_tokens, top.reasoning_tokens)
    return replace(billed, reasoning_tokens=min(reasoning, billed.output_tokens))


def _usage_of(usage: Mapping[str, Any]) -> Usage:
    """One usage object (the top level or one iteration entry) as `Usage`."""
    cache_read = wire_int(usage.get("cache_read_input_tokens"))
    cache_write = wire_int(usage.get("cache_creation_input_tokens"))
    # `type(x) is dict` first: the wire's JSON is dicts, and an ABC check is a Python call.
    creation = usage.get("cache_creation")
    write_1h = 0
    if creation is not None and (type(creation) is dict or isinstance(creation, Mapping)):
        write_1h = wire_int(creation.get("ephemeral_1h_input_tokens"))
    details = usage.get("output_tokens_details")
    reasoning = 0
    if details is not None and (type(details) is dict or isinstance(details, Mapping)):
        reasoning = wire_int(details.get("thinking_tokens"))
    return Usage(
        input_tokens=wire_int(usage.get("input_tokens")) + cache_read,
        output_tokens=wire_int(usage.get("output_tokens")),
        reasoning_tokens=reasoning,
        cached_input_tokens=cache_read,
        cache_write_tokens=cache_write,
        cache_write_1h_tokens=write_1h,
    )


def merge_usage(base: Mapping[str, Any] | None, update: Mapping[str, Any] | None) -> dict[str, Any]:
    """message_start usage updated by a message_delta's (cumulative) non-null fields."""
    merged = dict(base or {})
    for key, value in (update or {}).items():
        if value is not None:
            merged[key] = value
    return merged


def map_stop_reason(reason: str | None) -> StopReason:
    """A wire stop_reason as the normalised `StopReason` ("other" when unknown)."""
    if reason is None:
        return "other"
    return _STOP_REASONS.get(reason, "other")

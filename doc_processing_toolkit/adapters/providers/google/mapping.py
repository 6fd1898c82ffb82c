"""Pure IR <-> Gemini wire mapping: the request config, tool_config, usage, stop reasons,
served tiers and retry hints.

Nothing here does I/O, logs, or imports the SDK: `build_request` returns the
``generate_content_stream`` arguments (``config`` as a plain dict the SDK validates) plus
the facts the client must log (the ToolConfig sent, warnings, notes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.adapters.providers._wire import RequestDraft, wire_int, wire_model
from doc_processing_toolkit.adapters.providers.google.dialect import GoogleHistoryCodec
from doc_processing_toolkit.adapters.providers.google.options import GOOGLE_OPTIONS
from doc_processing_toolkit.adapters.providers.google.part_options import apply_part_options
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, StopReason, Usage
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolChoice, ToolSpec

__all__ = [
    "SERVED_TIER_HEADER",
    "GoogleWireRequest",
    "ToolConfigChoice",
    "build_request",
    "map_stop_reason",
    "map_tool_choice",
    "normalize_tier",
    "parse_usage",
    "resolve_served_tier",
    "retry_delay_from_error",
]

SERVED_TIER_HEADER = "x-gemini-service-tier"
"""The response header that says which tier served a request (Google's priority-inference
guide checks ``response.sdk_http_response.headers["x-gemini-service-tier"]``)."""

_CONTENT_FILTER = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
    }
)

_CODEC = GoogleHistoryCodec()


@dataclass(frozen=True, slots=True)
class ToolConfigChoice:
    """The function-calling mode a tool_choice becomes."""

    mode: str | None
    """AUTO / ANY / NONE / VALIDATED; None: no ToolConfig is sent."""
    allowed_function_names: tuple[str, ...] | None = None
    """The ANY allow-list (a forced tool or list of tools)."""
    warnings: tuple[str, ...] = ()
    """A tool_choice naming nothing usable (logged at WARNING)."""


@dataclass(frozen=True, slots=True)
class GoogleWireRequest:
    """What `build_request` produced for ``models.generate_content_stream``."""

    model: str
    """The model id sent on the wire."""
    contents: list[dict[str, Any]]
    """The conversation as Gemini contents."""
    config: dict[str, Any]
    """``GenerateContentConfig`` fields as a dict."""
    tool_config: ToolConfigChoice | None = None
    """The ToolConfig sent (None when the request has no function tools)."""
    built_in_tools: tuple[str, ...] = ()
    """Neutral names of the built-in tools sent (web_search, code_execution)."""
    warnings: tuple[str, ...] = ()
    """What the client logs at WARNING."""
    notes: tuple[str, ...] = ()
    """What the mapping did that a reader of the DEBUG log should know."""
    ignored_options: tuple[str, ...] = ()
    """provider_options keys this adapter does not send."""
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Top-level request body keys sent through ``HttpOptions.extra_body``."""
    extra_headers: dict[str, str] = field(default_factory=dict)
    """Headers the request adds."""


def map_tool_choice(choice: ToolChoice, tool_names: tuple[str, ...]) -> ToolConfigChoice:
    """The Gemini function-calling mode for ``choice`` given the offered function names.

    ``"auto"`` -> AUTO, ``"required"`` -> ANY, ``"none"`` -> NONE, ``"validated"`` ->
    VALIDATED, a forced tool (one name or an allow-list) -> ANY restricted to the names.
    Names the request does not offer are dropped with a warning; when nothing usable is
    left the mode falls back to AUTO, also with a warning.
    """
    if not tool_names:
        if choice in ("auto", "none"):
            return ToolConfigChoice(None)
        return ToolConfigChoice(
            None,
            warnings=(
                f"tool_choice {_show(choice)} names nothing usable: the request offers no "
                "function tools; no ToolConfig sent",
            ),
        )
    match choice:
        case "auto":
            return ToolConfigChoice("AUTO")
        case "none":
            return ToolConfigChoice("NONE")
        case "required":
            return ToolConfigChoice("ANY")
        case "validated":
            return ToolConfigChoice("VALIDATED")
        case ForcedTool(name=name):
            requested = (name,) if isinstance(name, str) else tuple(name)
            usable = tuple(dict.fromkeys(n for n in requested if n in tool_names))
            unknown = [n for n in requested if n not in tool_names]
            warnings: list[str] = []
            if unknown:
                warnings.append(
                    f"tool_choice names tools the request does not offer: {unknown}; "
                    f"offered: {list(tool_names)}"
                )
            if not usable:
                warnings.append(
                    f"tool_choice {_show(choice)} names nothing usable; sending mode=AUTO"
                )
                return ToolConfigChoice("AUTO", warnings=tuple(warnings))
            return ToolConfigChoice("ANY", usable, tuple(warnings))
        case _:
            raise ConfigurationError(f"unknown tool_choice {choice!r}")


def _show(choice: ToolChoice) -> str:
    if isinstance(choice, ForcedTool):
        return repr(choice.name if isinstance(choice.name, str) else list(choice.name))
    return repr(choice)


def _declaration(spec: ToolSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "description": spec.description,
        "parameters_json_schema": spec.parameters,
    }


def build_request(request: ModelRequest, row: ModelInfo | None = None) -> GoogleWireRequest:
    """Map a `ModelRequest` to ``generate_content_stream`` arguments.

    The SDK's automatic function calling and automatic continuation are turned off:
    the run loop runs tools, and one request is one HTTP request. One builder per section
    of the config, in the order its fields are set.

    Raises:
        ValueError: for provider-run (remote) MCP servers (Google has none: use
            ``{"type": "mcp_remote_client", ...}``), a built-in tool the row does not
            offer, or Google thinking given both budget_tokens and level.
    """
    remote = [*request.remote_mcp_servers, *request.provider_options.get("mcp_remote_servers", ())]
    if remote:
        GOOGLE_OPTIONS.remote_mcp_servers(remote)  # raises: no provider-run MCP
    draft = RequestDraft(
        params={"automatic_function_calling": {"disable": True}, "automatic_continuation": False}
    )
    if request.system:
        draft.params["system_instruction"] = request.system
    built_in_names, choice = _tools(draft, request, row)
    _thinking(draft, request, row)
    _output_format(draft, request)
    _sampling(draft, request)
    for key, value in request.provider_options.items():
        draft.route_option(key, value, GOOGLE_OPTIONS)
    return GoogleWireRequest(
        model=wire_model(request, row),
        contents=apply_part_options(
            _CODEC.render(list(request.messages)),
            request.provider_options.get("video_metadata"),
            request.media_resolutions,
            draft.warnings,
        ),
        config=draft.params,
        tool_config=choice if choice.mode is not None else None,
        built_in_tools=built_in_names,
        warnings=tuple(draft.warnings),
        notes=tuple(draft.notes),
        ignored_options=tuple(draft.ignored),
        extra_body=draft.extra_body,
        extra_headers=draft.extra_headers,
    )


def _tools(
    draft: RequestDraft, request: ModelRequest, row: ModelInfo | None
) -> tuple[tuple[str, ...], ToolConfigChoice]:
    """``tools`` (function declarations, built-in tools) and ``tool_config``; returns the
    built-in tool names sent and the function-calling choice."""
    config = draft.params
    tools: list[dict[str, Any]] = []
    names = tuple(spec.name for spec in request.tools)
    if request.tools:
        tools.append({"function_declarations": [_declaration(s) for s in request.tools]})
    built_in_names: tuple[str, ...] = ()
    if request.built_in_tools:
        built_in = GOOGLE_OPTIONS.map_built_in_tools(request.built_in_tools, row)
        tools.extend(built_in.tools)
        built_in_names = built_in.names
        draft.warnings.extend(built_in.warnings)
    if tools:
        config["tools"] = tools
    choice = map_tool_choice(request.tool_choice, names)
    draft.warnings.extend(choice.warnings)
    if choice.mode is not None:
        calling: dict[str, Any] = {"mode": choice.mode}
        if choice.allowed_function_names is not None:
            calling["allowed_function_names"] = list(choice.allowed_function_names)
        config["tool_config"] = {"function_calling_config": calling}
    return built_in_names, choice


def _thinking(draft: RequestDraft, request: ModelRequest, row: ModelInfo | None) -> None:
    """``thinking_config``."""
    thinking = GOOGLE_OPTIONS.transform_thinking(request.thinking, row)
    draft.warnings.extend(thinking.warnings)
    if thinking.value is not None:
        draft.params["thinking_config"] = dict(thinking.value)


def _output_format(draft: RequestDraft, request: ModelRequest) -> None:
    """``response_mime_type`` and ``response_json_schema`` for a structured-output schema."""
    if request.output_schema is not None:
        draft.params["response_mime_type"] = "application/json"
        draft.params["response_json_schema"] = request.output_schema


def _sampling(draft: RequestDraft, request: ModelRequest) -> None:
    """``max_output_tokens``, ``temperature`` and ``service_tier``; prompt caching is
    implicit (a note)."""
    config = draft.params
    if request.max_tokens is not None:
        config["max_output_tokens"] = request.max_tokens
    if request.temperature is not None:
        config["temperature"] = request.temperature
    if request.service_tier is not None:
        config["service_tier"] = request.service_tier.strip().lower()
    if request.prompt_caching is not None:
        draft.notes.append("prompt_caching ignored: Gemini caches prompt prefixes implicitly")


def parse_usage(usage: Mapping[str, Any] | None) -> Usage:
    """``usage_metadata`` -> `Usage` on the toolkit convention.

    input = prompt_token_count (cached content included) + tool_use_prompt_token_count;
    cached = cached_content_token_count; output = candidates_token_count +
    thoughts_token_count (Gemini reports thoughts apart; they are billed as output);
    reasoning = thoughts_token_count.
    """
    if not usage:
        return Usage()
    thoughts = wire_int(usage.get("thoughts_token_count"))
    return Usage(
        input_tokens=wire_int(usage.get("prompt_token_count"))
        + wire_int(usage.get("tool_use_prompt_token_count")),
        output_tokens=wire_int(usage.get("candidates_token_count")) + thoughts,
        reasoning_tokens=thoughts,
        cached_input_tokens=wire_int(usage.get("cached_content_token_count")),
    )


def map_stop_reason(
    finish_reason: str | None, *, has_tool_calls: bool, blocked: bool = False
) -> StopReason:
    """A Gemini finish reason as the normalised `StopReason`.

    Gemini ends a function-calling turn with STOP; the calls make it ``tool_use``.
    A blocked prompt (``prompt_feedback.block_reason``, no candidate) is ``content_filter``.
    """
    if blocked:
        return "content_filter"
    reason = (finish_reason or "").upper()
    if reason in _CONTENT_FILTER:
        return "content_filter"
    if reason == "MAX_TOKENS":
        return "max_tokens"
    if has_tool_calls:
        return "tool_use"
    if reason == "STOP":
        return "end_turn"
    return "other"


def normalize_tier(value: Any) -> str | None:
    """A served-tier value (``priority``, ``SERVICE_TIER_PRIORITY``, an enum) in the
    registry's vocabulary; ``unspecified`` is standard; None when empty."""
    if value is None:
        return None
    raw = getattr(value, "value", value)
    name = str(raw).strip().lower().removeprefix("service_tier_")
    if not name:
        return None
    return "standard" if name == "unspecified" else name


def resolve_served_tier(
    body_tier: Any, header_tier: Any, requested_tier: str | None
) -> tuple[str | None, str]:
    """(served tier, source): the response body's tier, else the response header's, else
    ``"unverifiable"`` when a tier was requested (None when not), with source ``"none"``."""
    tier = normalize_tier(body_tier)
    if tier is not None:
        return tier, "body"
    tier = normalize_tier(header_tier)
    if tier is not None:
        return tier, "header"
    return ("unverifiable" if requested_tier else None), "none"


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def retry_delay_from_error(details: Any) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` ``retryDelay`` (``"37s"``) in an error body."""
    error = details.get("error", details) if isinstance(details, Mapping) else None
    entries = error.get("details") if isinstance(error, Mapping) else None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        if str(entry.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DURATION.match(str(entry.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None

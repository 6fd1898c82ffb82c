"""Pure IR <-> OpenAI Responses wire mapping: request parameters, usage, stop reasons, tiers.

Nothing here does I/O, logs, or imports the SDK: `build_request` returns the
keyword arguments for ``client.responses.create`` plus the facts the client must log
(warnings, a downgraded tool_choice, what went through ``extra_body``).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers._options import BuiltInToolsWire
from doc_processing_toolkit.adapters.providers._wire import (
    RequestDraft,
    WireRequest,
    wire_int,
    wire_model,
)
from doc_processing_toolkit.adapters.providers.openai.dialect import OpenAIHistoryCodec
from doc_processing_toolkit.adapters.providers.openai.options import (
    IMAGE_DETAILS,
    OPENAI_OPTIONS,
    VERBOSITIES,
)
from doc_processing_toolkit.domain.errors import CompatibilityError, ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, StopReason, Usage
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolChoice, ToolSpec

__all__ = [
    "ENCRYPTED_REASONING",
    "WireRequest",
    "build_request",
    "built_in_evidence",
    "map_request_tier",
    "map_stop_reason",
    "map_tool_choice",
    "parse_usage",
    "served_tier",
    "strict_schema",
    "web_search_urls",
]

ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""The ``include`` value that returns reasoning items replayable with ``store=False``."""

_BUILT_IN_ITEMS = {
    "web_search_call": "web_search",
    "code_interpreter_call": "code_execution",
    "tool_search_call": "tool_search",
}
"""Output item types that prove a built-in tool ran -> the neutral tool name."""

_CODEC = OpenAIHistoryCodec()
_SCHEMA_NAME = re.compile(r"[^a-zA-Z0-9_-]+")


# -- tools ---------------------------------------------------------------------------------

_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions")


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """``schema`` made valid for OpenAI strict mode, or None when it cannot be.

    Every object lists all its properties in ``required`` and says
    ``"additionalProperties": false``, nested objects and ``$defs`` included; ``default``
    (not permitted under strict mode) is removed. An object whose extra keys are a schema
    (a ``dict[str, X]`` parameter) or that has no ``properties`` cannot be strict.
    """
    out = copy.deepcopy(dict(schema))
    return out if _make_strict(out) else None


def _make_strict(node: dict[str, Any]) -> bool:
    node.pop("default", None)
    kind = node.get("type")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
    if is_object or "properties" in node:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            return False
        if node.get("additionalProperties") not in (None, False):
            return False
        node["required"] = list(properties)
        node["additionalProperties"] = False
    for key in _SUBSCHEMA_MAPS:
        children = node.get(key)
        if isinstance(children, dict):
            for child in children.values():
                if isinstance(child, dict) and not _make_strict(child):
                    return False
    for key in _SUBSCHEMA_LISTS:
        children = node.get(key)
        if isinstance(children, list):
            for child in children:
                if isinstance(child, dict) and not _make_strict(child):
                    return False
    items = node.get("items")
    if isinstance(items, dict) and not _make_strict(items):
        return False
    return True


def _function_tool(spec: ToolSpec, *, tool_search: bool, notes: list[str]) -> dict[str, Any]:
    parameters: dict[str, Any] = dict(spec.parameters)
    strict = False
    if spec.strict:
        converted = strict_schema(spec.parameters)
        if converted is None:
            notes.append(f"tool {spec.name!r} sent without strict mode (schema cannot be strict)")
        else:
            parameters, strict = converted, True
    tool: dict[str, Any] = {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": parameters,
        "strict": strict,
    }
    if spec.defer_loading and tool_search:
        tool["defer_loading"] = True
    return tool


def map_tool_choice(
    choice: ToolChoice, *, supports_forced_tool_choice: bool = True
) -> tuple[str | dict[str, Any], str | None]:
    """The wire tool_choice and, when a forced choice was downgraded, what was asked.

    Raises:
        ValueError: for a forced choice of several tools (only Google takes a list).
    """
    wire: str | dict[str, Any]
    match choice:
        case "auto" | "validated":
            return "auto", None
        case "none":
            return "none", None
        case "required":
            wire = "required"
        case ForcedTool(name=str() as name):
            wire = {"type": "function", "name": name}
        case ForcedTool(name=names):
            raise CompatibilityError(
                f"tool_choice forcing several tools {list(names)!r} is Google-only; "
                "OpenAI forces one function by name"
            )
        case _:
            raise ConfigurationError(f"unknown tool_choice {choice!r}")
    if not supports_forced_tool_choice:
        return "auto", wire if isinstance(wire, str) else str(wire["name"])
    return wire, None


# -- the request ---------------------------------------------------------------------------


def map_request_tier(tier: str | None) -> str | None:
    """The wire ``service_tier`` for a requested tier ("standard" is OpenAI's "default")."""
    if tier is None:
        return None
    return "default" if tier == "standard" else tier


def _schema_name(schema: Mapping[str, Any]) -> str:
    title = schema.get("title")
    name = _SCHEMA_NAME.sub("_", title).strip("_") if isinstance(title, str) else ""
    return name[:64] or "final_result"


def _apply_image_detail(items: list[dict[str, Any]], detail: str) -> None:
    """Set ``detail`` on every input image of the request (in place)."""
    for item in items:
        for key in ("content", "output"):
            entries = item.get(key)
            if isinstance(entries, list):
                for entry in entries:
                    if isinstance(entry, dict) and entry.get("type") == "input_image":
                        entry["detail"] = detail


def _add_container_files(
    tools: list[dict[str, Any]], file_ids: tuple[str, ...], notes: list[str]
) -> None:
    """Name the uploaded ``tool_files`` in the code_interpreter's automatic container."""
    for tool in tools:
        container = tool.get("container") if tool.get("type") == "code_interpreter" else None
        if isinstance(container, dict):
            ids = list(container.get("file_ids") or [])
            container["file_ids"] = [*ids, *(i for i in file_ids if i not in ids)]
            return
        if isinstance(container, str):
            notes.append("tool_files not attached: code_interpreter names an explicit container")
            return


def _replayable(items: list[dict[str, Any]], notes: list[str]) -> list[dict[str, Any]]:
    """Without server-side storage a reasoning item replays only with its encrypted content."""
    kept = [
        item
        for item in items
        if item.get("type") != "reasoning" or isinstance(item.get("encrypted_content"), str)
    ]
    if len(kept) != len(items):
        notes.append(
            f"{len(items) - len(kept)} reasoning item(s) without encrypted content dropped"
        )
    return kept


def build_request(request: ModelRequest, row: ModelInfo | None = None) -> WireRequest:
    """Map a `ModelRequest` to ``responses.create`` keyword arguments (without stream).

    One builder per section of the request, in the order its keywords are sent.
    """
    draft = RequestDraft(params={"model": wire_model(request, row)})
    if request.prompt_caching is not None:
        draft.notes.append("prompt_caching ignored: OpenAI caches prompt prefixes automatically")
    _sampling(draft, request)
    include = _thinking(draft, request, row)
    built_in, downgraded = _tools(draft, request, row)
    text = _output_format(draft, request)
    image_detail = _provider_options(draft, request, text, include)
    _input(draft, request, image_detail)
    if include:
        draft.params["include"] = list(dict.fromkeys(include))
    if text:
        draft.params["text"] = text
    return draft.wire(WireRequest, downgraded_tool_choice=downgraded, built_in_tools=built_in.names)


def _sampling(draft: RequestDraft, request: ModelRequest) -> None:
    """``instructions``, ``max_output_tokens``, ``temperature`` and ``service_tier``."""
    params = draft.params
    if request.system:
        params["instructions"] = request.system
    if request.max_tokens is not None:
        params["max_output_tokens"] = request.max_tokens
    if request.temperature is not None:
        params["temperature"] = request.temperature
    tier = map_request_tier(request.service_tier)
    if tier is not None:
        params["service_tier"] = tier


def _thinking(draft: RequestDraft, request: ModelRequest, row: ModelInfo | None) -> list[str]:
    """``reasoning``; returns the ``include`` list (encrypted reasoning when it may think)."""
    thinking = OPENAI_OPTIONS.transform_thinking(request.thinking, row)
    draft.warnings.extend(thinking.warnings)
    draft.params.update(thinking.as_params())
    if thinking.thinking_on or (row is not None and row.supports_thinking):
        return [ENCRYPTED_REASONING]
    return []


def _tools(
    draft: RequestDraft, request: ModelRequest, row: ModelInfo | None
) -> tuple[BuiltInToolsWire, str | None]:
    """``tools`` (functions, hosted tools, provider-run MCP) and ``tool_choice``; returns
    the built-in tools sent and a downgraded forced choice."""
    built_in = OPENAI_OPTIONS.map_built_in_tools(request.built_in_tools, row)
    draft.warnings.extend(built_in.warnings)
    tools = [
        _function_tool(spec, tool_search=built_in.tool_search, notes=draft.notes)
        for spec in request.tools
    ]
    tools.extend(copy.deepcopy(list(built_in.tools)))
    if request.code_execution_file_ids:
        _add_container_files(tools, request.code_execution_file_ids, draft.notes)
    if request.remote_mcp_servers:
        tools.extend(OPENAI_OPTIONS.remote_mcp_servers(request.remote_mcp_servers))
    draft.params.update(built_in.params)
    downgraded = None
    if tools:
        draft.params["tools"] = tools
        supports_forced = row.supports_forced_tool_choice if row else True
        choice, downgraded = map_tool_choice(
            request.tool_choice, supports_forced_tool_choice=supports_forced
        )
        if choice != "auto":
            draft.params["tool_choice"] = choice
    return built_in, downgraded


def _output_format(draft: RequestDraft, request: ModelRequest) -> dict[str, Any]:
    """The ``text`` object so far: its ``format`` for a structured-output schema."""
    text: dict[str, Any] = {}
    if request.output_schema is not None:
        schema = strict_schema(request.output_schema)
        text["format"] = {
            "type": "json_schema",
            "name": _schema_name(request.output_schema),
            "schema": schema if schema is not None else dict(request.output_schema),
            "strict": schema is not None,
        }
        if schema is None:
            draft.notes.append("output schema sent without strict mode (it cannot be strict)")
    return text


def _provider_options(
    draft: RequestDraft, request: ModelRequest, text: dict[str, Any], include: list[str]
) -> str | None:
    """The ``provider_options``: OpenAI's own (verbosity, parallel calls, image detail,
    include), then the shared routing; returns the image detail to set."""
    image_detail: str | None = None
    for key, value in request.provider_options.items():
        if key == "verbosity_config":
            if value in VERBOSITIES:
                text["verbosity"] = value
            else:
                draft.warnings.append(f"verbosity_config {value!r} is not one of low, medium, high")
        elif key == "parallel_tool_calls":
            draft.params["parallel_tool_calls"] = bool(value)
        elif key == "image_detail":
            if value in IMAGE_DETAILS:
                image_detail = str(value)
            else:
                draft.warnings.append(
                    f"image_detail {value!r} is not one of low, high, auto, original"
                )
        elif key == "include" and isinstance(value, list | tuple):
            include.extend(str(v) for v in value if str(v) not in include)
        else:
            draft.route_option(key, value, OPENAI_OPTIONS)
    return image_detail


def _input(draft: RequestDraft, request: ModelRequest, image_detail: str | None) -> None:
    """``store`` (False unless given) and ``input``, the rendered history."""
    params = draft.params
    params.setdefault("store", False)
    items = _CODEC.render(list(request.messages))
    if params["store"] is False:
        items = _replayable(items, draft.notes)
    if image_detail is not None:
        items = copy.deepcopy(items)
        _apply_image_detail(items, image_detail)
    params["input"] = items


# -- the response --------------------------------------------------------------------------


def parse_usage(usage: Mapping[str, Any] | None) -> Usage:
    """Wire usage -> `Usage` on the toolkit convention.

    OpenAI's ``input_tokens`` already holds every prompt token: cache reads
    (``input_tokens_details.cached_tokens``) and cache writes (``.cache_write_tokens``)
    are both subsets of it. ``reasoning_tokens`` is a subset of ``output_tokens``.
    """
    if not usage:
        return Usage()
    inputs = usage.get("input_tokens_details")
    outputs = usage.get("output_tokens_details")
    inputs = inputs if isinstance(inputs, Mapping) else {}
    outputs = outputs if isinstance(outputs, Mapping) else {}
    return Usage(
        input_tokens=wire_int(usage.get("input_tokens")),
        output_tokens=wire_int(usage.get("output_tokens")),
        reasoning_tokens=wire_int(outputs.get("reasoning_tokens")),
        cached_input_tokens=wire_int(inputs.get("cached_tokens")),
        cache_write_tokens=wire_int(inputs.get("cache_write_tokens")),
    )


def served_tier(response: Mapping[str, Any]) -> str | None:
    """The tier that served the response, from its body ("default" reads "standard")."""
    tier = response.get("service_tier")
    if not isinstance(tier, str) or not tier:
        return None
    return "standard" if tier == "default" else tier


def _has_refusal(output: list[Any]) -> bool:
    for item in output:
        if isinstance(item, Mapping) and item.get("type") == "message":
            content = item.get("content")
            if isinstance(content, list) and any(
                isinstance(c, Mapping) and c.get("type") == "refusal" for c in content
            ):
                return True
    return False


def map_stop_reason(response: Mapping[str, Any]) -> StopReason:
    """The normalised stop reason of a final response object."""
    status = response.get("status")
    output = response.get("output")
    output = output if isinstance(output, list) else []
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        if reason == "max_output_tokens":
            return "max_tokens"
        if reason == "content_filter":
            return "content_filter"
        return "other"
    if status not in ("completed", None):
        return "other"
    if any(isinstance(i, Mapping) and i.get("type") == "function_call" for i in output):
        return "tool_use"
    if _has_refusal(output):
        return "refusal"
    return "end_turn"


def built_in_evidence(output: list[Any]) -> tuple[str, ...]:
    """Neutral names of the built-in tools the output items prove ran (MCP: name + remote_mcp)."""
    names: list[str] = []
    for item in output:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind in _BUILT_IN_ITEMS:
            names.append(_BUILT_IN_ITEMS[str(kind)])
        elif kind == "mcp_call":
            if isinstance(item.get("name"), str):
                names.append(item["name"])
            names.append("remote_mcp")
    return tuple(dict.fromkeys(names))


def web_search_urls(output: list[Any]) -> list[str]:
    """Distinct URLs of web search sources and URL citations, in order of appearance."""
    urls: list[str] = []
    for item in output:
        if not isinstance(item, Mapping):
            continue
        action = item.get("action")
        if item.get("type") == "web_search_call" and isinstance(action, Mapping):
            for source in action.get("sources") or []:
                if isinstance(source, Mapping) and isinstance(source.get("url"), str):
                    urls.append(source["url"])
        content = item.get("content")
        if item.get("type") == "message" and isinstance(content, list):
            for entry in content:
                for note in (entry.get("annotations") or []) if isinstance(entry, Mapping) else []:
                    if isinstance(note, Mapping) and note.get("type") == "url_citation":
                        if isinstance(note.get("url"), str):
                            urls.append(note["url"])
    return list(dict.fromkeys(urls))

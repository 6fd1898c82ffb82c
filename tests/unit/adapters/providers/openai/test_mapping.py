"""OpenAI mapping (request, usage, stop reasons, tiers, evidence) and the stream assembler."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.adapters.providers.openai.mapping import (
    ENCRYPTED_REASONING,
    build_request,
    built_in_evidence,
    map_request_tier,
    map_stop_reason,
    map_tool_choice,
    parse_usage,
    served_tier,
    strict_schema,
    web_search_urls,
)
from doc_processing_toolkit.adapters.providers.openai.stream import StreamAssembler
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    user_text,
)
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import (
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolSpec

REASONING_ROW = ModelInfo(
    model="gpt-test",
    provider="openai",
    supports_thinking=True,
    supported_reasoning_values=("low", "medium", "high"),
    built_in_tools=("web_search", "code_execution", "tool_search"),
    api_model="gpt-test-2026",
)
PLAIN_ROW = ModelInfo(model="gpt-plain", provider="openai")


def _request(**kwargs: Any) -> ModelRequest:
    kwargs.setdefault("messages", (user_text("hi"),))
    return ModelRequest(model="gpt-test", **kwargs)


# -- strict schemas ------------------------------------------------------------------------------


def test_strict_schema_requires_every_property_nested_and_in_defs() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "default": 3},
            "opts": {
                "type": "object",
                "properties": {"unit": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
            },
            "stops": {"type": "array", "items": {"$ref": "#/$defs/Stop"}},
        },
        "required": ["city"],
        "$defs": {"Stop": {"type": "object", "properties": {"name": {"type": "string"}}}},
    }
    out = strict_schema(schema)
    assert out is not None
    assert out["required"] == ["city", "days", "opts", "stops"]
    assert out["additionalProperties"] is False
    assert "default" not in out["properties"]["days"]
    assert out["properties"]["opts"]["required"] == ["unit"]
    assert out["properties"]["opts"]["additionalProperties"] is False
    assert out["$defs"]["Stop"] == {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": False,
    }
    assert schema["required"] == ["city"]  # the input is not modified


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {}}}},
        {"type": "object", "properties": {"m": {"type": "object"}}},
    ],
)
def test_schemas_that_cannot_be_strict(schema: dict[str, Any]) -> None:
    assert strict_schema(schema) is None


_leaf = st.sampled_from([{"type": "string"}, {"type": "integer", "default": 1}, {"type": "null"}])
_schemas = st.recursive(
    _leaf,
    lambda inner: (
        st.builds(
            lambda props: {"type": "object", "properties": props},
            st.dictionaries(st.text("abc", min_size=1, max_size=3), inner, max_size=3),
        )
        | st.builds(lambda item: {"type": "array", "items": item}, inner)
        | st.builds(lambda a, b: {"anyOf": [a, b]}, inner, inner)
    ),
    max_leaves=8,
)


def _every_object_is_strict(node: Any) -> bool:
    if isinstance(node, dict):
        if "properties" in node:
            if node.get("required") != list(node["properties"]):
                return False
            if node.get("additionalProperties") is not False:
                return False
        if "default" in node:
            return False
        return all(_every_object_is_strict(v) for v in node.values())
    if isinstance(node, list):
        return all(_every_object_is_strict(v) for v in node)
    return True


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text("xyz", min_size=1, max_size=3), _schemas, max_size=4))
def test_strict_schema_property(properties: dict[str, Any]) -> None:
    out = strict_schema({"type": "object", "properties": properties})
    assert out is not None and _every_object_is_strict(out)


# -- tools and tool_choice -----------------------------------------------------------------------


def test_function_tools_strict_and_not() -> None:
    params = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": []}
    wire = build_request(
        _request(
            tools=(
                ToolSpec("strict_one", "d1", params, strict=True),
                ToolSpec("loose_one", "d2", params),
                ToolSpec("dict_one", "d3", {"type": "object"}, strict=True),
            )
        )
    )
    tools = wire.params["tools"]
    assert tools[0] == {
        "type": "function",
        "name": "strict_one",
        "description": "d1",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "required": ["a"],
            "additionalProperties": False,
        },
        "strict": True,
    }
    assert tools[1]["strict"] is False and tools[1]["parameters"] == params
    assert tools[2]["strict"] is False
    assert any("dict_one" in note for note in wire.notes)
    assert "tool_choice" not in wire.params


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("validated", "auto"),
        ("none", "none"),
        ("required", "required"),
        (ForcedTool("f"), {"type": "function", "name": "f"}),
    ],
)
def test_tool_choice(choice: Any, wire: Any) -> None:
    assert map_tool_choice(choice) == (wire, None)


def test_tool_choice_list_is_google_only() -> None:
    with pytest.raises(ValueError, match="Google-only"):
        map_tool_choice(ForcedTool(("a", "b")))


def test_forced_tool_choice_downgrade() -> None:
    assert map_tool_choice(ForcedTool("f"), supports_forced_tool_choice=False) == ("auto", "f")
    assert map_tool_choice("required", supports_forced_tool_choice=False) == ("auto", "required")


def test_forced_tool_choice_is_sent() -> None:
    spec = ToolSpec("f", "d", {"type": "object", "properties": {}})
    wire = build_request(_request(tools=(spec,), tool_choice=ForcedTool("f")))
    assert wire.params["tool_choice"] == {"type": "function", "name": "f"}


def test_built_in_tools_and_remote_mcp() -> None:
    spec = ToolSpec("big", "d", {"type": "object", "properties": {}}, defer_loading=True)
    wire = build_request(
        _request(
            tools=(spec,),
            built_in_tools={
                "web_search": {"enabled": True},
                "tool_search": {"enabled": True},
                "code_execution": {"enabled": False},
            },
            remote_mcp_servers=(
                {"type": "mcp", "server_url": "https://mcp.test/mcp", "name": "docs"},
            ),
        ),
        REASONING_ROW,
    )
    tools = wire.params["tools"]
    assert tools[0]["name"] == "big" and tools[0]["defer_loading"] is True
    assert {"type": "web_search"} in tools and {"type": "tool_search"} in tools
    mcp = tools[-1]
    assert mcp["type"] == "mcp" and mcp["server_label"] == "docs"
    assert mcp["server_url"] == "https://mcp.test/mcp"
    assert wire.built_in_tools == ("web_search", "tool_search")


def test_defer_loading_needs_tool_search() -> None:
    spec = ToolSpec("big", "d", {"type": "object", "properties": {}}, defer_loading=True)
    wire = build_request(_request(tools=(spec,)))
    assert "defer_loading" not in wire.params["tools"][0]


# -- the request ---------------------------------------------------------------------------------


def test_minimal_request() -> None:
    wire = build_request(_request(system="Be brief.", max_tokens=100, temperature=0.2))
    assert wire.params == {
        "model": "gpt-test",
        "instructions": "Be brief.",
        "max_output_tokens": 100,
        "temperature": 0.2,
        "store": False,
        "input": [{"role": "user", "content": "hi"}],
    }


def test_thinking_requests_summary_and_encrypted_reasoning() -> None:
    wire = build_request(_request(thinking={"effort": "high"}), REASONING_ROW)
    assert wire.params["model"] == "gpt-test-2026"
    assert wire.params["reasoning"] == {"effort": "high", "summary": "auto"}
    assert wire.params["include"] == [ENCRYPTED_REASONING]
    assert wire.params["store"] is False


def test_reasoning_row_without_thinking_still_keeps_encrypted_reasoning() -> None:
    wire = build_request(_request(), REASONING_ROW)
    assert "reasoning" not in wire.params
    assert wire.params["include"] == [ENCRYPTED_REASONING]


def test_non_reasoning_row_asks_for_nothing() -> None:
    wire = build_request(_request(thinking={"effort": "low"}), PLAIN_ROW)
    assert "reasoning" not in wire.params and "include" not in wire.params
    assert any("does not support thinking" in w for w in wire.warnings)


def test_unlisted_effort_is_dropped_with_a_warning() -> None:
    wire = build_request(_request(thinking={"effort": "max"}), REASONING_ROW)
    assert wire.params["reasoning"] == {"summary": "auto"}
    assert wire.warnings


def test_reasoning_without_encrypted_content_is_not_replayed_with_store_false() -> None:
    opaque = {"id": "rs_1", "type": "reasoning", "summary": []}
    sealed = {"id": "rs_2", "type": "reasoning", "summary": [], "encrypted_content": "e"}
    history = (
        user_text("hi"),
        Message(
            "assistant",
            (
                ReasoningPart("", "openai", {"item": opaque}),
                ReasoningPart("", "openai", {"item": sealed}),
                TextPart("a"),
            ),
        ),
        user_text("again"),
    )
    wire = build_request(_request(messages=history))
    assert [i.get("id") for i in wire.params["input"]] == [None, "rs_2", None, None]
    assert any("without encrypted content" in note for note in wire.notes)
    stored = build_request(_request(messages=history, provider_options={"store": True}))
    assert [i.get("id") for i in stored.params["input"]] == [None, "rs_1", "rs_2", None, None]


def test_structured_output_path_a() -> None:
    schema = {
        "title": "Weather Report",
        "type": "object",
        "properties": {"temp": {"type": "number"}, "note": {"type": "string", "default": ""}},
        "required": ["temp"],
    }
    wire = build_request(_request(output_schema=schema))
    fmt = wire.params["text"]["format"]
    assert fmt["type"] == "json_schema" and fmt["name"] == "Weather_Report"
    assert fmt["strict"] is True
    assert fmt["schema"]["required"] == ["temp", "note"]
    assert fmt["schema"]["additionalProperties"] is False


def test_service_tier_vocabulary() -> None:
    assert map_request_tier("standard") == "default"
    assert map_request_tier("priority") == "priority"
    assert map_request_tier(None) is None
    assert build_request(_request(service_tier="flex")).params["service_tier"] == "flex"


def test_provider_options() -> None:
    image = MediaPart("image/png", url="https://x.test/i.png")
    wire = build_request(
        _request(
            messages=(Message("user", (TextPart("see"), image)),),
            provider_options={
                "verbosity_config": "low",
                "parallel_tool_calls": False,
                "image_detail": "high",
                "prompt_cache_key": "k1",
                "include": ["web_search_call.action.sources"],
                "extra_headers": {"x-trace": "1"},
                "extra_body": {"experimental": True},
                "mystery": 1,
                "openai_transport": "websocket",
                "max_pause_turn_iterations": 3,
            },
        ),
        REASONING_ROW,
    )
    assert wire.params["text"] == {"verbosity": "low"}
    assert wire.params["parallel_tool_calls"] is False
    assert wire.params["prompt_cache_key"] == "k1"
    assert wire.params["include"] == [ENCRYPTED_REASONING, "web_search_call.action.sources"]
    assert wire.params["input"][0]["content"][1]["detail"] == "high"
    assert wire.extra_headers == {"x-trace": "1"}
    assert wire.extra_body == {"experimental": True, "mystery": 1}
    assert wire.ignored_options == ("openai_transport",)


def test_bad_option_values_warn() -> None:
    wire = build_request(_request(provider_options={"verbosity_config": "loud", "image_detail": 9}))
    assert "text" not in wire.params
    assert len(wire.warnings) == 2


# -- usage, stop reasons, tiers, evidence -------------------------------------------------------


def test_parse_usage_keeps_cache_and_reasoning_as_subsets() -> None:
    usage = {
        "input_tokens": 1000,
        "input_tokens_details": {"cached_tokens": 600, "cache_write_tokens": 300},
        "output_tokens": 50,
        "output_tokens_details": {"reasoning_tokens": 20},
        "total_tokens": 1050,
    }
    assert parse_usage(usage) == Usage(
        input_tokens=1000,
        output_tokens=50,
        reasoning_tokens=20,
        cached_input_tokens=600,
        cache_write_tokens=300,
    )
    assert parse_usage(None) == Usage()
    assert parse_usage({"input_tokens": 3, "input_tokens_details": None}) == Usage(input_tokens=3)


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        ({"status": "completed", "output": []}, "end_turn"),
        ({"status": "completed", "output": [{"type": "function_call"}]}, "tool_use"),
        (
            {
                "status": "completed",
                "output": [{"type": "message", "content": [{"type": "refusal", "refusal": "no"}]}],
            },
            "refusal",
        ),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            "max_tokens",
        ),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}},
            "content_filter",
        ),
        ({"status": "incomplete"}, "other"),
        ({"status": "cancelled"}, "other"),
    ],
)
def test_stop_reasons(response: dict[str, Any], reason: str) -> None:
    assert map_stop_reason(response) == reason


def test_served_tier() -> None:
    assert served_tier({"service_tier": "default"}) == "standard"
    assert served_tier({"service_tier": "priority"}) == "priority"
    assert served_tier({"service_tier": None}) is None
    assert served_tier({}) is None


def test_built_in_evidence_and_urls() -> None:
    output = [
        {
            "type": "web_search_call",
            "action": {"type": "search", "sources": [{"url": "https://a.test"}]},
        },
        {"type": "code_interpreter_call"},
        {"type": "mcp_call", "name": "search_docs", "server_label": "docs"},
        {"type": "web_search_call"},
        {
            "type": "message",
            "content": [
                {
                    "type": "output_text",
                    "text": "x",
                    "annotations": [
                        {"type": "url_citation", "url": "https://b.test"},
                        {"type": "url_citation", "url": "https://a.test"},
                    ],
                }
            ],
        },
    ]
    assert built_in_evidence(output) == (
        "web_search",
        "code_execution",
        "search_docs",
        "remote_mcp",
    )
    assert web_search_urls(output) == ["https://a.test", "https://b.test"]


# -- the stream assembler -------------------------------------------------------------------------


def _events(*events: dict[str, Any]) -> tuple[StreamAssembler, list[Any]]:
    assembler = StreamAssembler()
    deltas = [d for e in events for d in assembler.feed(e)]
    return assembler, deltas


def test_assembler_without_item_done_events_rebuilds_items() -> None:
    assembler, deltas = _events(
        {"type": "response.created", "response": {"id": "r", "model": "gpt-x", "usage": None}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "m", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "delta": "He",
        },
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "y"},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"type": "function_call", "id": "fc", "call_id": "c1", "name": "f"},
        },
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": '{"a":'},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "1}"},
        {"type": "response.completed", "response": {"id": "r", "status": "completed"}},
    )
    assert deltas == [TextDelta("He"), TextDelta("y"), ToolCallDelta("c1", "f")]
    response = assembler.response(requested_model="req", request_id=None)
    assert response.message.text == "Hey"
    assert response.message.tool_calls[0].arguments == {"a": 1}
    assert response.stop_reason == "tool_use" and response.model == "req"
    assert response.usage == Usage() and response.served_tier is None


def test_assembler_summary_parts_and_invalid_arguments(caplog: pytest.LogCaptureFixture) -> None:
    item = {"id": "rs", "type": "reasoning", "summary": []}
    bad = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{oops"}
    assembler, deltas = _events(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.reasoning_summary_part.added", "output_index": 0, "summary_index": 0},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "one"},
        {"type": "response.reasoning_summary_part.added", "output_index": 0, "summary_index": 1},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "two"},
        {"type": "response.output_item.done", "output_index": 1, "item": bad},
        {"type": "response.completed", "response": {"status": "completed"}},
    )
    assert deltas == [ThinkingDelta("one"), ThinkingDelta("\n\n"), ThinkingDelta("two")]
    message = assembler.message()
    call = message.parts[-1]
    assert isinstance(call, ToolCallPart) and call.arguments == {}


def test_assembler_records_in_band_failures() -> None:
    assembler, _ = _events(
        {"type": "response.created", "response": {"usage": None}},
        {"type": "error", "code": "rate_limit_exceeded", "message": "slow down"},
        {
            "type": "response.failed",
            "response": {
                "status": "failed",
                "error": {"code": "rate_limit_exceeded", "message": "slow down"},
                "usage": {"input_tokens": 7, "output_tokens": 1},
            },
        },
    )
    assert assembler.failure is not None
    assert assembler.failure.code == "rate_limit_exceeded"
    assert assembler.failure.source == "response.failed"
    assert assembler.partial_usage() == Usage(input_tokens=7, output_tokens=1)
    assert not assembler.complete


def test_assembler_response_carries_tier_evidence_and_urls() -> None:
    search = {
        "type": "web_search_call",
        "id": "ws",
        "action": {"type": "search", "sources": [{"url": "https://a.test"}]},
    }
    assembler, _ = _events(
        {"type": "response.output_item.done", "output_index": 0, "item": search},
        {
            "type": "response.completed",
            "response": {"status": "completed", "service_tier": "default", "model": "gpt-x"},
        },
    )
    response = assembler.response(requested_model="req", request_id="req_1")
    assert response.served_tier == "standard" and response.served_tier_source == "body"
    assert response.built_in_tools_invoked == ("web_search",)
    assert response.metadata == {"distinct_urls": ["https://a.test"]}
    assert response.message.parts[0].kind == "provider"
    assert response.request_id == "req_1" and response.model == "gpt-x"


def test_prompt_caching_is_ignored_with_a_note() -> None:
    from doc_processing_toolkit.adapters.providers.openai.mapping import build_request as build
    from doc_processing_toolkit.domain.messages import user_text as text
    from doc_processing_toolkit.domain.requests import ModelRequest as Request

    wire = build(Request(model="gpt-4o", messages=(text("hi"),), prompt_caching={"ttl": "5m"}))
    assert any("prompt_caching ignored" in note for note in wire.notes)
    assert "cache_control" not in str(wire.params)


def test_an_output_index_gap_does_not_repeat_a_streamed_message() -> None:
    # recorded (vercel/ai openai-phase.1.chunks.txt): the messages come at output_index 0
    # and 2, the final response lists just the two; the answer was given twice
    def message(item_id: str, text: str, phase: str) -> dict[str, Any]:
        content = [{"type": "output_text", "annotations": [], "text": text}]
        return {
            "id": item_id,
            "type": "message",
            "role": "assistant",
            "phase": phase,
            "status": "completed",
            "content": content,
        }

    first, second = (
        message("m1", "Checking. ", "commentary"),
        message("m2", "Answer.", "final_answer"),
    )
    assembler, _ = _events(
        {"type": "response.created", "response": {"id": "r", "model": "gpt-x", "usage": None}},
        {"type": "response.output_item.done", "output_index": 0, "item": first},
        {"type": "response.output_item.done", "output_index": 2, "item": second},
        {
            "type": "response.completed",
            "response": {"id": "r", "model": "gpt-x", "output": [first, second], "usage": None},
        },
    )
    assert assembler.output_items() == [first, second]
    assert assembler.message().text == "Checking. Answer."

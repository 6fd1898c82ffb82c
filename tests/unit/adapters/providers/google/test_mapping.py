"""Google request mapping, usage, stop reasons, served tiers and the stream assembler."""

from __future__ import annotations

from typing import Any

import pytest

from doc_processing_toolkit.adapters.providers.google.mapping import (
    build_request,
    map_stop_reason,
    map_tool_choice,
    normalize_tier,
    parse_usage,
    resolve_served_tier,
    retry_delay_from_error,
)
from doc_processing_toolkit.adapters.providers.google.stream import StreamAssembler
from doc_processing_toolkit.domain.messages import (
    ProviderPart,
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

TOOLS = (
    ToolSpec("a", "A.", {"type": "object", "properties": {}}),
    ToolSpec("b", "B.", {"type": "object", "properties": {}}),
)
ROW = ModelInfo(
    model="gemini-x",
    provider="google",
    supports_thinking=True,
    built_in_tools=("web_search", "code_execution"),
    api_model="gemini-x-wire",
)


def _request(**kwargs: Any) -> ModelRequest:
    return ModelRequest(model="gemini-x", messages=(user_text("hi"),), **kwargs)


# -- tool_choice ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "mode", "names"),
    [
        ("auto", "AUTO", None),
        ("required", "ANY", None),
        ("none", "NONE", None),
        ("validated", "VALIDATED", None),
        (ForcedTool("b"), "ANY", ("b",)),
        (ForcedTool(("b", "a")), "ANY", ("b", "a")),
    ],
)
def test_tool_choice_modes(choice: Any, mode: str, names: tuple[str, ...] | None) -> None:
    mapped = map_tool_choice(choice, ("a", "b"))
    assert (mapped.mode, mapped.allowed_function_names, mapped.warnings) == (mode, names, ())


def test_tool_choice_drops_unknown_names_with_a_warning() -> None:
    mapped = map_tool_choice(ForcedTool(("a", "zzz")), ("a", "b"))
    assert mapped.mode == "ANY" and mapped.allowed_function_names == ("a",)
    assert len(mapped.warnings) == 1 and "zzz" in mapped.warnings[0]


def test_tool_choice_naming_nothing_usable_warns() -> None:
    mapped = map_tool_choice(ForcedTool(("x", "y")), ("a",))
    assert mapped.mode == "AUTO" and mapped.allowed_function_names is None
    assert any("nothing usable" in w for w in mapped.warnings)
    no_tools = map_tool_choice("required", ())
    assert no_tools.mode is None and "nothing usable" in no_tools.warnings[0]
    assert map_tool_choice("auto", ()).warnings == () == map_tool_choice("none", ()).warnings


# -- build_request --------------------------------------------------------------------------


def test_build_request_maps_every_setting() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    wire = build_request(
        _request(
            system="Be brief.",
            tools=TOOLS,
            tool_choice=ForcedTool(("a",)),
            max_tokens=256,
            temperature=0.3,
            thinking={"budget_tokens": 512},
            output_schema=schema,
            service_tier="Priority",
            prompt_caching={"ttl": "5m"},
            built_in_tools={"web_search": {"enabled": True, "config": {}}},
            provider_options={
                "media_resolution": "MEDIA_RESOLUTION_LOW",
                "video_metadata": {"fps": 1},
                "max_pause_turn_iterations": 3,
                "future_flag": True,
                "extra_headers": {"x-a": 1},
            },
        ),
        ROW,
    )
    config = wire.config
    assert wire.model == "gemini-x-wire"
    assert wire.contents == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert config["system_instruction"] == "Be brief."
    assert config["automatic_function_calling"] == {"disable": True}
    assert config["automatic_continuation"] is False
    assert config["tools"] == [
        {
            "function_declarations": [
                {"name": "a", "description": "A.", "parameters_json_schema": TOOLS[0].parameters},
                {"name": "b", "description": "B.", "parameters_json_schema": TOOLS[1].parameters},
            ]
        },
        {"google_search": {}},
    ]
    assert config["tool_config"] == {
        "function_calling_config": {"mode": "ANY", "allowed_function_names": ["a"]}
    }
    assert config["thinking_config"] == {"thinking_budget": 512, "include_thoughts": True}
    assert config["response_mime_type"] == "application/json"
    assert config["response_json_schema"] == schema
    assert config["max_output_tokens"] == 256 and config["temperature"] == 0.3
    assert config["service_tier"] == "priority"
    assert config["media_resolution"] == "MEDIA_RESOLUTION_LOW"
    assert wire.built_in_tools == ("web_search",)
    assert wire.ignored_options == ()  # video_metadata goes on the video parts
    assert wire.extra_body == {"future_flag": True}
    assert wire.extra_headers == {"x-a": "1"}
    assert any("prompt_caching" in n for n in wire.notes)


def test_build_request_without_tools_sends_no_tool_config() -> None:
    wire = build_request(_request())
    assert "tools" not in wire.config and "tool_config" not in wire.config
    assert wire.tool_config is None and wire.model == "gemini-x"


def test_provider_run_mcp_is_refused() -> None:
    servers = ({"type": "mcp", "server_url": "https://x.test/mcp", "name": "docs"},)
    with pytest.raises(ValueError, match="mcp_remote_client"):
        build_request(_request(remote_mcp_servers=servers))


def test_built_in_tool_the_row_lacks_is_refused() -> None:
    row = ROW.model_copy(update={"built_in_tools": ()})
    with pytest.raises(ValueError, match="code_execution"):
        build_request(_request(built_in_tools={"code_execution": {"enabled": True}}), row)


# -- usage, stop reasons, tiers, retry hints ---------------------------------------------


def test_usage_folds_thoughts_into_output() -> None:
    usage = parse_usage(
        {
            "prompt_token_count": 120,
            "cached_content_token_count": 100,
            "tool_use_prompt_token_count": 30,
            "candidates_token_count": 40,
            "thoughts_token_count": 25,
            "total_token_count": 215,
        }
    )
    assert usage == Usage(
        input_tokens=150, output_tokens=65, reasoning_tokens=25, cached_input_tokens=100
    )
    assert parse_usage(None) == Usage() == parse_usage({})


@pytest.mark.parametrize(
    ("finish", "calls", "blocked", "expected"),
    [
        ("STOP", False, False, "end_turn"),
        ("STOP", True, False, "tool_use"),
        ("MAX_TOKENS", True, False, "max_tokens"),
        ("SAFETY", False, False, "content_filter"),
        ("RECITATION", False, False, "content_filter"),
        ("MALFORMED_FUNCTION_CALL", False, False, "other"),
        (None, False, True, "content_filter"),
        (None, False, False, "other"),
    ],
)
def test_stop_reasons(finish: str | None, calls: bool, blocked: bool, expected: str) -> None:
    assert map_stop_reason(finish, has_tool_calls=calls, blocked=blocked) == expected


def test_served_tier_sources() -> None:
    assert resolve_served_tier("PRIORITY", "standard", "priority") == ("priority", "body")
    assert resolve_served_tier(None, "standard", "priority") == ("standard", "header")
    assert resolve_served_tier(None, None, "priority") == ("unverifiable", "none")
    assert resolve_served_tier(None, "", None) == (None, "none")
    assert normalize_tier("SERVICE_TIER_FLEX") == "flex"
    assert normalize_tier("unspecified") == "standard"


def test_retry_delay_from_retry_info() -> None:
    body = {
        "error": {
            "code": 429,
            "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure"},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"},
            ],
        }
    }
    assert retry_delay_from_error(body) == 37.0
    assert retry_delay_from_error({"error": {"details": []}}) is None
    assert retry_delay_from_error("nope") is None


# -- the stream assembler -----------------------------------------------------------------


def _chunk(*parts: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finish_reason"] = finish
    candidate.update(extra.pop("candidate", {}))
    return {"candidates": [candidate], "response_id": "resp-1", **extra}


def test_assembler_merges_unsigned_text_and_keeps_signed_parts_apart() -> None:
    assembler = StreamAssembler(structured_output=True)
    deltas = []
    for chunk in (
        _chunk({"text": "think ", "thought": True}),
        _chunk({"text": "more", "thought": True, "thought_signature": "QUJD"}),
        _chunk({"text": "Hel"}),
        _chunk({"text": "lo"}),
        _chunk({"text": "", "thought_signature": "c2ln"}, finish="STOP"),
    ):
        deltas.extend(assembler.feed(chunk))
    assert deltas == [
        ThinkingDelta("think "),
        ThinkingDelta("more"),
        TextDelta("Hel", structured_output=True),
        TextDelta("lo", structured_output=True),
    ]
    response = assembler.response(requested_model="gemini-x")
    assert response.message.parts == (
        ReasoningPart("think ", "google", {"thought": True}),
        ReasoningPart("more", "google", {"thought": True, "thought_signature": "QUJD"}),
        TextPart("Hello"),
        TextPart(""),
        ReasoningPart("", "google", {"thought_signature": "c2ln", "signs": "previous"}),
    )
    assert response.message.text == "Hello"
    assert response.stop_reason == "end_turn"
    assert response.request_id == "resp-1"
    assert response.raw is not None
    assert response.raw["candidates"][0]["content"]["parts"][-1] == {
        "text": "",
        "thought_signature": "c2ln",
    }


def test_assembler_tool_calls_ids_match_deltas() -> None:
    assembler = StreamAssembler()
    deltas = assembler.feed(
        _chunk(
            {"function_call": {"name": "a", "args": {"q": 1}}, "thought_signature": "QUJD"},
            {"function_call": {"name": "b", "args": {}, "id": "gid-2"}},
            finish="STOP",
        )
    )
    response = assembler.response(requested_model="gemini-x")
    calls = response.message.tool_calls
    assert [d.id for d in deltas if isinstance(d, ToolCallDelta)] == [c.id for c in calls]
    assert calls[0] == ToolCallPart(
        calls[0].id, "a", {"q": 1}, {"google": {"id": None, "thought_signature": "QUJD"}}
    )
    assert calls[1].id == "gid-2"
    assert response.stop_reason == "tool_use"


def test_assembler_body_tier_wins_over_header() -> None:
    assembler = StreamAssembler(requested_tier="priority")
    assembler.set_headers({"X-Gemini-Service-Tier": "standard"})
    assembler.feed(
        _chunk(
            {"text": "x"},
            finish="STOP",
            usage_metadata={"prompt_token_count": 3, "service_tier": "priority"},
        )
    )
    response = assembler.response(requested_model="gemini-x")
    assert (response.served_tier, response.served_tier_source) == ("priority", "body")


def test_assembler_built_in_evidence_and_distinct_urls() -> None:
    assembler = StreamAssembler()
    grounding = {
        "web_search_queries": ["weather paris"],
        "grounding_chunks": [
            {"web": {"uri": "https://a.test/1", "title": "A"}},
            {"web": {"uri": "https://a.test/1"}},
            {"web": {"uri": "https://b.test/2"}},
        ],
    }
    assembler.feed(_chunk({"executable_code": {"language": "PYTHON", "code": "print(2)"}}))
    assembler.feed(_chunk({"code_execution_result": {"outcome": "OUTCOME_OK", "output": "2"}}))
    assembler.feed(
        _chunk({"text": "Sunny."}, finish="STOP", candidate={"grounding_metadata": grounding})
    )
    response = assembler.response(requested_model="gemini-x")
    assert response.built_in_tools_invoked == ("web_search", "code_execution")
    assert response.metadata == {"distinct_urls": ["https://a.test/1", "https://b.test/2"]}
    assert isinstance(response.message.parts[0], ProviderPart)
    assert response.message.text == "Sunny."


def test_assembler_blocked_prompt_and_empty_turn() -> None:
    blocked = StreamAssembler()
    blocked.feed({"prompt_feedback": {"block_reason": "SAFETY"}, "usage_metadata": {}})
    assert blocked.complete
    assert blocked.response(requested_model="m").stop_reason == "content_filter"

    empty = StreamAssembler()
    assert empty.partial_usage() is None
    empty.feed(_chunk(finish="STOP", usage_metadata={"prompt_token_count": 9}))
    response = empty.response(requested_model="m")
    assert response.message.parts == () and response.stop_reason == "end_turn"
    assert response.usage == Usage(input_tokens=9)

"""Fireworks request mapping, usage, stop reasons, the <think> splitter, the chunk assembler."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.adapters.providers.fireworks.mapping import (
    build_request,
    dropped_part_records,
    map_stop_reason,
    map_tool_choice,
    parse_usage,
)
from doc_processing_toolkit.adapters.providers.fireworks.stream import (
    CLOSE_TAG,
    OPEN_TAG,
    ChunkAssembler,
    ThinkTagSplitter,
)
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

ROW = ModelInfo(
    model="kimi-k3",
    provider="fireworks",
    api_model="accounts/fireworks/models/kimi-k3",
    max_output_tokens=131072,
    supports_thinking=True,
    supported_reasoning_values=("low", "medium", "high"),
)
TOOL = ToolSpec("lookup", "Look up.", {"type": "object", "properties": {"q": {"type": "string"}}})


def _request(*messages: Message, **kwargs: Any) -> ModelRequest:
    return ModelRequest(model="kimi-k3", messages=messages or (user_text("hi"),), **kwargs)


# -- requests -------------------------------------------------------------------------------


def test_basic_request_uses_the_wire_model_and_the_row_cap() -> None:
    wire = build_request(_request(system="Be brief.", temperature=0.3), row=ROW)
    assert wire.params == {
        "model": "accounts/fireworks/models/kimi-k3",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
        ],
        "max_tokens": 32_000,
        "temperature": 0.3,
    }
    assert wire.extra_body == {} and wire.dropped == () and wire.warnings == ()


def test_without_a_row_the_model_name_goes_as_given_and_no_cap() -> None:
    wire = build_request(_request(max_tokens=None))
    assert wire.params["model"] == "kimi-k3"
    assert "max_tokens" not in wire.params
    assert build_request(_request(max_tokens=77)).params["max_tokens"] == 77


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("validated", "auto"),
        ("none", "none"),
        ("required", "required"),
        (ForcedTool("lookup"), {"type": "function", "function": {"name": "lookup"}}),
    ],
)
def test_tool_choice(choice: Any, wire: Any) -> None:
    assert map_tool_choice(choice) == wire
    params = build_request(_request(tools=(TOOL,), tool_choice=choice), row=ROW).params
    assert params["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "description": "Look up.",
                "parameters": TOOL.parameters,
            },
        }
    ]
    assert params.get("tool_choice", "auto") == wire


def test_forced_choice_of_several_tools_is_google_only() -> None:
    with pytest.raises(ValueError, match="Google-only"):
        build_request(_request(tools=(TOOL,), tool_choice=ForcedTool(("a", "b"))))


def test_forced_choice_on_a_doubtful_row_is_still_sent_and_flagged() -> None:
    row = ROW.model_copy(update={"supports_forced_tool_choice": False})
    wire = build_request(_request(tools=(TOOL,), tool_choice=ForcedTool("lookup")), row=row)
    assert wire.params["tool_choice"] == {"type": "function", "function": {"name": "lookup"}}
    assert wire.unconfirmed_forced_tool == "lookup"
    required = build_request(_request(tools=(TOOL,), tool_choice="required"), row=row)
    assert required.params["tool_choice"] == "required"
    assert required.unconfirmed_forced_tool is None


def test_thinking_becomes_reasoning_effort() -> None:
    low = build_request(_request(thinking={"effort": "low"}), row=ROW)
    assert low.params["reasoning_effort"] == "low"
    off = build_request(_request(thinking={"type": "disabled"}), row=ROW)
    assert off.params["reasoning_effort"] == "medium"
    assert off.warnings and "not an off value" in off.warnings[0]
    assert "reasoning_effort" not in build_request(_request(), row=ROW).params


def test_structured_output_and_options() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    wire = build_request(
        _request(
            output_schema=schema,
            service_tier="priority",
            prompt_caching={"ttl": "5m"},
            provider_options={
                "top_p": 0.9,
                "top_k": 40,
                "extra_headers": {"x-trace": "1"},
                "extra_body": {"prompt_cache_max_len": 10},
                "max_pause_turn_iterations": 3,
            },
        ),
        row=ROW,
    )
    assert wire.params["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "structured_output", "schema": schema},
    }
    assert wire.params["service_tier"] == "priority"
    assert wire.params["top_p"] == 0.9
    assert wire.extra_body == {"top_k": 40, "prompt_cache_max_len": 10}
    assert wire.extra_headers == {"x-trace": "1"}
    assert "max_pause_turn_iterations" not in wire.params
    assert any("prompt_caching ignored" in note for note in wire.notes)


def test_built_in_tools_are_refused_and_tool_search_only_warns() -> None:
    with pytest.raises(ValueError, match="no built-in"):
        build_request(_request(built_in_tools={"web_search": {"enabled": True}}), row=ROW)
    wire = build_request(_request(built_in_tools={"tool_search": {"enabled": True}}), row=ROW)
    assert wire.warnings and "tool search" in wire.warnings[0]
    disabled = build_request(_request(built_in_tools={"web_search": {"enabled": False}}))
    assert "tools" not in disabled.params


def test_provider_run_mcp_servers_go_in_tools_and_allowed_tools_is_refused() -> None:
    server = {"type": "mcp", "server_label": "wiki", "server_url": "https://mcp.test/mcp"}
    wire = build_request(_request(remote_mcp_servers=(server,)), row=ROW)
    assert wire.params["tools"] == [
        {
            "type": "mcp",
            "server_label": "wiki",
            "server_url": "https://mcp.test/mcp",
            "require_approval": "never",
        }
    ]
    with pytest.raises(ValueError, match="allowed_tools"):
        build_request(
            _request(remote_mcp_servers=({**server, "allowed_tools": ["read"]},)), row=ROW
        )


def test_only_parts_of_the_new_turns_are_reported_as_dropped() -> None:
    pdf = MediaPart("application/pdf", data=b"%PDF")
    history = (
        Message("user", (TextPart("read"), pdf)),
        Message("assistant", (TextPart("I cannot see it."),), provider="fireworks"),
        Message("user", (MediaPart("audio/wav", data=b"RIFF"), TextPart("hear this"))),
    )
    wire = build_request(_request(*history), row=ROW)
    assert [(d.message_index, d.part_index, d.kind) for d in wire.dropped] == [
        (2, 0, "base64-audio/wav")
    ]
    assert wire.dropped_earlier == 1
    assert dropped_part_records(wire.dropped, model="kimi-k3") == [
        {
            "kind": "base64-audio/wav",
            "index": 0,
            "message_index": 2,
            "reason": "Fireworks takes images only",
            "provider": "fireworks",
            "model": "kimi-k3",
        }
    ]


# -- usage and stop reasons ---------------------------------------------------------------


def test_usage_on_the_toolkit_convention() -> None:
    usage = parse_usage(
        {
            "prompt_tokens": 1200,
            "completion_tokens": 300,
            "total_tokens": 1500,
            "prompt_tokens_details": {"cached_tokens": 1000},
            "completion_tokens_details": {"reasoning_tokens": 120},
        }
    )
    assert usage == Usage(
        input_tokens=1200, output_tokens=300, reasoning_tokens=120, cached_input_tokens=1000
    )
    assert parse_usage(None) == Usage()
    assert parse_usage({"prompt_tokens": 5, "prompt_tokens_details": None}) == Usage(5)


@pytest.mark.parametrize(
    ("reason", "calls", "expected"),
    [
        ("stop", False, "end_turn"),
        ("stop", True, "tool_use"),
        ("tool_calls", True, "tool_use"),
        ("length", False, "max_tokens"),
        ("content_filter", False, "content_filter"),
        ("weird", False, "other"),
        (None, False, "other"),
    ],
)
def test_stop_reasons(reason: str | None, calls: bool, expected: str) -> None:
    assert map_stop_reason(reason, has_tool_calls=calls) == expected


# -- the <think> splitter -----------------------------------------------------------------


def _split(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkTagSplitter()
    segments = [s for piece in pieces for s in splitter.feed(piece)] + splitter.flush()
    thinking = "".join(text for kind, text in segments if kind == "thinking")
    answer = "".join(text for kind, text in segments if kind == "text")
    return thinking, answer


def _cut(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


_no_close = st.text(alphabet="ab <>/thinkTHINK\n", max_size=30).filter(lambda t: CLOSE_TAG not in t)
_cuts = st.lists(st.integers(min_value=0, max_value=80), max_size=12)


@settings(max_examples=300, deadline=None)
@given(_no_close, st.text(alphabet=" \n", max_size=3), st.text(max_size=30), _cuts)
def test_think_tags_split_anywhere(reasoning: str, gap: str, answer: str, cuts: list[int]) -> None:
    content = f"  {OPEN_TAG}{reasoning}{CLOSE_TAG}{gap}{answer}"
    assert _split(_cut(content, cuts)) == (reasoning, answer.lstrip())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab <>/thinkTHINK\n", max_size=30), _cuts)
def test_content_without_a_leading_tag_passes_through(answer: str, cuts: list[int]) -> None:
    if answer.lstrip().startswith(OPEN_TAG):
        return
    assert _split(_cut(answer, cuts)) == ("", answer)


def test_an_unclosed_think_is_all_reasoning_and_a_later_tag_is_text() -> None:
    assert _split(["<thi", "nk>still thinking </thi"]) == ("still thinking </thi", "")
    assert _split(["Use the <think> tag"]) == ("", "Use the <think> tag")


# -- the chunk assembler ------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None, **head: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "model": "m",
        **head,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def test_assembler_accumulates_interleaved_tool_calls_by_index() -> None:
    assembler = ChunkAssembler()
    deltas = []
    for chunk in [
        _chunk({"role": "assistant", "content": ""}),
        _chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c0",
                        "type": "function",
                        "function": {"name": "f", "arguments": ""},
                    }
                ]
            }
        ),
        _chunk(
            {
                "tool_calls": [
                    {"index": 1, "type": "function", "function": {"name": "g", "arguments": '{"b"'}}
                ]
            }
        ),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a":'}}]}),
        _chunk({"tool_calls": [{"index": 1, "function": {"arguments": ": 2}"}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": " 1}"}}]}),
        _chunk({}, "tool_calls"),
        {"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
    ]:
        deltas.extend(assembler.feed(chunk))
    assert assembler.complete
    assert [type(d) for d in deltas] == [ToolCallDelta, ToolCallDelta]
    generated = deltas[1]
    assert isinstance(generated, ToolCallDelta) and generated.id.startswith("call_")
    response = assembler.response(requested_model="kimi-k3", request_id=None)
    calls = response.message.tool_calls
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("c0", "f", {"a": 1}),
        (generated.id, "g", {"b": 2}),
    ]
    assert calls[0].provider_details is None and calls[1].provider_details is None
    assert response.stop_reason == "tool_use"
    assert response.usage == Usage(input_tokens=3, output_tokens=4)
    assert response.request_id == "chatcmpl-1" and response.model == "m"


def test_assembler_reasoning_both_ways_and_structured_text() -> None:
    assembler = ChunkAssembler(structured_output=True)
    deltas = []
    for chunk in [
        _chunk({"reasoning_content": "think "}),
        _chunk({"reasoning_content": "more"}),
        _chunk({"content": '{"a"'}),
        _chunk({"content": ": 1}"}, "stop"),
    ]:
        deltas.extend(assembler.feed(chunk))
    assert [type(d) for d in deltas] == [ThinkingDelta, ThinkingDelta, TextDelta, TextDelta]
    assert all(d.structured_output for d in deltas if isinstance(d, TextDelta))
    message = assembler.message()
    assert message.parts == (ReasoningPart("think more", "fireworks"), TextPart('{"a": 1}'))
    assert not assembler.think_tags


def test_assembler_without_finish_reason_is_incomplete_and_keeps_partial_usage() -> None:
    assembler = ChunkAssembler()
    assert assembler.partial_usage() is None
    assembler.feed({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 0}})
    assembler.feed(_chunk({"content": "par"}))
    assert not assembler.complete
    assert assembler.partial_usage() == Usage(input_tokens=9)


def test_assembler_keeps_broken_arguments_verbatim() -> None:
    assembler = ChunkAssembler()
    assembler.feed(
        _chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{oops"},
                    }
                ]
            }
        )
    )
    assembler.feed(_chunk({}, "tool_calls"))
    (call,) = assembler.message().tool_calls
    assert call == ToolCallPart(
        "c", "f", {}, {"fireworks": {"arguments_json": "{oops"}}, invalid_arguments="{oops"
    )
    assert assembler.native_message()["tool_calls"][0]["function"]["arguments"] == "{oops"

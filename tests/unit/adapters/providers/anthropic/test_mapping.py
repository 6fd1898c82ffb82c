"""Anthropic request mapping, usage, stop reasons, retry-after and the stream assembler."""

from __future__ import annotations

import email.utils
from typing import Any

import pytest

from doc_processing_toolkit.adapters.providers._common import parse_retry_after, safe_url
from doc_processing_toolkit.adapters.providers.anthropic.dialect import part_to_block
from doc_processing_toolkit.adapters.providers.anthropic.fallback import usage_by_model
from doc_processing_toolkit.adapters.providers.anthropic.mapping import (
    build_request,
    map_stop_reason,
    map_thinking,
    map_tool_choice,
    parse_usage,
    resolve_max_tokens,
)
from doc_processing_toolkit.adapters.providers.anthropic.stream import StreamAssembler
from doc_processing_toolkit.domain.messages import ProviderPart, TextPart, ToolCallPart, user_text
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import (
    ModelRequest,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolSpec


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"type": "auto"}),
        ("validated", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        (ForcedTool("f"), {"type": "tool", "name": "f"}),
    ],
)
def test_tool_choice(choice: Any, wire: dict[str, Any]) -> None:
    assert map_tool_choice(choice) == (wire, None)


def test_forced_tool_choice_downgrade_and_google_only_lists() -> None:
    assert map_tool_choice("required", supports_forced_tool_choice=False) == (
        {"type": "auto"},
        "any",
    )
    assert map_tool_choice(ForcedTool("f"), supports_forced_tool_choice=False)[1] == "f"
    with pytest.raises(ValueError, match="Google"):
        map_tool_choice(ForcedTool(("a", "b")))


def test_thinking() -> None:
    assert map_thinking({"budget_tokens": 2048}) == {"type": "enabled", "budget_tokens": 2048}
    assert map_thinking({"type": "adaptive"}) == {"type": "adaptive"}
    assert map_thinking({"type": "disabled"}) == {"type": "disabled"}
    assert map_thinking({"type": "enabled", "budget_tokens": 1}) == {
        "type": "enabled",
        "budget_tokens": 1,
    }
    assert map_thinking(None) is None


def test_max_tokens_resolution() -> None:
    assert resolve_max_tokens(100, 64_000) == 100
    assert resolve_max_tokens(None, 4096) == 4096
    assert resolve_max_tokens(None, 128_000) == 32_000
    assert resolve_max_tokens(None, None) == 8192


def test_build_request_shapes() -> None:
    request = ModelRequest(
        model="claude-x",
        messages=(user_text("hi"),),
        system="S",
        tools=(ToolSpec("f", "F.", {"type": "object"}, strict=True, defer_loading=True),),
        tool_choice="none",
        thinking={"budget_tokens": 9000},
        provider_options={"max_pause_turn_iterations": 3, "top_k": 5, "skills": ["pdf"]},
    )
    wire = build_request(request, max_tokens=8192)
    assert wire.params["tools"] == [
        {
            "name": "f",
            "description": "F.",
            "input_schema": {"type": "object"},
            "strict": True,
            "defer_loading": True,
        },
        {"type": "code_execution_20250825", "name": "code_execution"},  # skills need it
    ]
    assert wire.params["container"] == {
        "skills": [{"type": "anthropic", "skill_id": "pdf", "version": "latest"}]
    }
    assert "skills-2025-10-02" in wire.extra_headers["anthropic-beta"]
    assert wire.params["tool_choice"] == {"type": "none"}
    assert wire.params["max_tokens"] > 9000  # above the thinking budget
    assert wire.params["system"] == "S"
    assert wire.extra_body == {"top_k": 5}
    assert wire.ignored_options == ()
    assert "max_pause_turn_iterations" not in wire.params


def test_prompt_caching_does_not_touch_the_history() -> None:
    message = user_text("hi")
    request = ModelRequest(model="m", messages=(message,), prompt_caching={"ttl": "5m"})
    wire = build_request(request, max_tokens=10)
    assert wire.params["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert build_request(ModelRequest(model="m", messages=(message,)), max_tokens=10).params[
        "messages"
    ] == [{"role": "user", "content": "hi"}]


def test_usage_convention() -> None:
    usage = parse_usage(
        {
            "input_tokens": 10,
            "output_tokens": 20,
            "cache_read_input_tokens": 30,
            "cache_creation_input_tokens": 40,
            "cache_creation": {"ephemeral_5m_input_tokens": 15, "ephemeral_1h_input_tokens": 25},
            "output_tokens_details": {"thinking_tokens": 5},
        }
    )
    assert usage == Usage(
        input_tokens=40,
        output_tokens=20,
        reasoning_tokens=5,
        cached_input_tokens=30,
        cache_write_tokens=40,
        cache_write_1h_tokens=25,
    )
    assert parse_usage(
        {"input_tokens": 3, "output_tokens": 1, "cache_read_input_tokens": None}
    ) == (Usage(input_tokens=3, output_tokens=1))
    assert parse_usage(None) == Usage()


@pytest.mark.parametrize(
    ("wire", "ours"),
    [
        ("end_turn", "end_turn"),
        ("tool_use", "tool_use"),
        ("max_tokens", "max_tokens"),
        ("pause_turn", "pause_turn"),
        ("stop_sequence", "stop_sequence"),
        ("refusal", "refusal"),
        ("model_context_window_exceeded", "other"),
        (None, "other"),
    ],
)
def test_stop_reasons(wire: str | None, ours: str) -> None:
    assert map_stop_reason(wire) == ours


def test_retry_after_parsing() -> None:
    assert parse_retry_after({"retry-after": "0.1"}) == 0.1
    assert parse_retry_after({"retry-after": "2", "retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=1_000_000) == pytest.approx(30)
    assert parse_retry_after({"retry-after": date}, now=2_000_000) == 0.0


def test_safe_url() -> None:
    assert safe_url("https://u:p@host.test:8443/v1/?key=s#f") == "https://host.test:8443/v1/"
    assert safe_url("http://127.0.0.1:9") == "http://127.0.0.1:9"


def _events(*events: dict[str, Any]) -> tuple[StreamAssembler, list[Any]]:
    assembler = StreamAssembler()
    deltas = [d for event in events for d in assembler.feed(event)]
    return assembler, deltas


def test_assembler_keeps_server_blocks_verbatim_and_cited_text_as_text() -> None:
    server = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    citation = {"type": "char_location", "cited_text": "x"}
    assembler, deltas = _events(
        {"type": "message_start", "message": {"id": "msg_1", "model": "m", "usage": {}}},
        {"type": "content_block_start", "index": 0, "content_block": server},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "q"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": result},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "a"}},
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "citations_delta", "citation": citation},
        },
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    )
    assert deltas == [TextDelta("a")]
    message = assembler.message()
    assert message.parts[0] == ProviderPart("anthropic", {**server, "input": {"query": "q"}})
    assert message.parts[1] == ProviderPart("anthropic", result)
    # issue 31 item 1: text with citations is text, the citations ride beside it verbatim
    assert message.parts[2] == TextPart(
        "a", provider_details={"anthropic": {"citations": [citation]}}
    )
    assert message.text == "a"
    assert part_to_block(message.parts[2]) == {"type": "text", "text": "a", "citations": [citation]}
    response = assembler.response(requested_model="m", request_id=None)
    assert response.usage.output_tokens == 3 and response.stop_reason == "end_turn"


def test_assembler_tolerates_bad_tool_json_and_unfinished_blocks() -> None:
    tool = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
    assembler, deltas = _events(
        {"type": "message_start", "message": {"id": "msg_1", "model": "m", "usage": {}}},
        {"type": "content_block_start", "index": 0, "content_block": tool},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": '},
        },
    )
    assert deltas == [ToolCallDelta("toolu_1", "f")]
    assert not assembler.complete
    # arguments that never became a JSON object: {} and the text, so the tool does not run
    assert assembler.message().parts == (
        ToolCallPart("toolu_1", "f", {}, invalid_arguments='{"a": '),
    )
    assert assembler.partial_usage() == Usage()


# -- thinking, built-in tools and provider-run MCP through parameter_mapping ---------------

_OFF_ROW = ModelInfo(
    model="claude-off",
    provider="anthropic",
    supports_thinking=True,
    thinking_off_type="between_tools",
    built_in_tools=("web_search", "code_execution"),
)
_NO_OFF_ROW = ModelInfo(
    model="claude-on", provider="anthropic", supports_thinking=True, thinking_off_type=None
)


def test_map_thinking_delegates_to_the_row() -> None:
    assert map_thinking({"type": "disabled"}, _OFF_ROW) == {"type": "between_tools"}
    assert map_thinking({"type": "between_tools"}, _NO_OFF_ROW) == {"type": "adaptive"}
    assert map_thinking({"budget_tokens": 2048, "interleaved": True}) == {
        "type": "enabled",
        "budget_tokens": 2048,
    }
    assert map_thinking({"type": "adaptive", "future": 1}) == {"type": "adaptive", "future": 1}


def test_build_request_thinking_off_interleaved_beta_and_warnings() -> None:
    off = build_request(
        ModelRequest(model="m", messages=(user_text("hi"),), thinking={"type": "disabled"}),
        max_tokens=10,
        row=_OFF_ROW,
    )
    assert off.params["thinking"] == {"type": "between_tools"} and off.warnings == ()
    forced_on = build_request(
        ModelRequest(model="m", messages=(user_text("hi"),), thinking={"type": "disabled"}),
        max_tokens=10,
        row=_NO_OFF_ROW,
    )
    assert forced_on.params["thinking"] == {"type": "adaptive"}
    assert len(forced_on.warnings) == 1 and "cannot turn thinking off" in forced_on.warnings[0]
    interleaved = build_request(
        ModelRequest(
            model="m",
            messages=(user_text("hi"),),
            thinking={"budget_tokens": 2048, "interleaved_thinking": True},
            provider_options={"extra_headers": {"anthropic-beta": "other-beta"}},
        ),
        max_tokens=8192,
    )
    assert interleaved.params["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert interleaved.extra_headers["anthropic-beta"] == (
        "other-beta,interleaved-thinking-2025-05-14"
    )


def test_build_request_built_in_tools_and_container_reuse() -> None:
    request = ModelRequest(
        model="m",
        messages=(user_text("hi"),),
        tools=(ToolSpec("f", "F.", {"type": "object"}),),
        built_in_tools={
            "web_search": {"enabled": True, "config": {"max_uses": 2}},
            "code_execution": {"enabled": True, "config": {"container_id": "container_9"}},
        },
    )
    wire = build_request(request, max_tokens=10, row=_OFF_ROW)
    assert [t.get("type", t["name"]) for t in wire.params["tools"]] == [
        "f",
        "web_search_20250305",
        "code_execution_20250825",
    ]
    assert wire.params["tools"][1]["max_uses"] == 2
    assert wire.params["container"] == "container_9"
    with pytest.raises(ValueError, match="does not offer"):
        build_request(
            ModelRequest(
                model="m",
                messages=(user_text("hi"),),
                built_in_tools={"web_search": {"enabled": True}},
            ),
            max_tokens=10,
            row=ModelInfo(model="x", provider="anthropic", built_in_tools=()),
        )


def test_build_request_remote_mcp_servers() -> None:
    server = {
        "type": "mcp",
        "server_label": "wiki",
        "server_url": "https://mcp.example/mcp",
        "authorization_token": "tok",
        "allowed_tools": ["read"],
    }
    wire = build_request(
        ModelRequest(model="m", messages=(user_text("hi"),), remote_mcp_servers=(server,)),
        max_tokens=10,
    )
    assert wire.extra_body["mcp_servers"] == [
        {
            "type": "url",
            "url": "https://mcp.example/mcp",
            "name": "wiki",
            "authorization_token": "tok",
        }
    ]
    assert wire.params["tools"] == [
        {
            "type": "mcp_toolset",
            "mcp_server_name": "wiki",
            "default_config": {"enabled": False},
            "configs": {"read": {"enabled": True}},
        }
    ]
    assert wire.extra_headers["anthropic-beta"] == "mcp-client-2025-11-20"
    assert "tool_choice" not in wire.params
    via_options = build_request(
        ModelRequest(
            model="m",
            messages=(user_text("hi"),),
            provider_options={"mcp_remote_servers": [server]},
        ),
        max_tokens=10,
    )
    assert via_options.extra_body["mcp_servers"] == wire.extra_body["mcp_servers"]
    assert "mcp_remote_servers" not in via_options.extra_body
    with pytest.raises(TypeError):
        build_request(
            ModelRequest(
                model="m",
                messages=(user_text("hi"),),
                remote_mcp_servers=({**server, "allowed_tools": "read"},),
            ),
            max_tokens=10,
        )


def test_built_in_evidence_from_server_and_mcp_blocks() -> None:
    from doc_processing_toolkit.adapters.providers.anthropic.stream import built_in_evidence

    blocks = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [
                {"type": "web_search_result", "url": "https://a.example/1", "title": "A"},
                {"type": "web_search_result", "url": "https://a.example/1", "title": "A"},
            ],
        },
        {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "read_wiki", "server_name": "dw"},
        {"type": "server_tool_use", "id": "srvtoolu_2", "name": "bash_code_execution"},
        {"type": "text", "text": "done"},
    ]
    invoked, metadata = built_in_evidence(blocks, {"container": {"id": "cntr_9"}}, {})
    assert invoked == ("web_search", "read_wiki", "remote_mcp", "code_execution")
    assert metadata == {"distinct_urls": ["https://a.example/1"], "container_id": "cntr_9"}
    assert built_in_evidence([{"type": "text", "text": "x"}], {}, {}) == ((), {})


# -- issue 31 item 2: every usage.iterations entry is billed exactly once -----------------

_NO_WRITES = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}


def _entry(kind: str, inp: int, out: int, read: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": 0,
        "cache_creation": _NO_WRITES,
        "type": kind,
        **extra,
    }


def test_server_side_compaction_is_billed_beside_the_top_level() -> None:
    # the figures of a recorded server-side compaction (pydantic-ai cassette
    # test_anthropic_compaction_usage_with_cache_streaming): the top level is the message
    # pass only, the compaction step is billed too, with its own cache reads
    usage = {
        "input_tokens": 181,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 8,
        "iterations": [_entry("compaction", 100, 83, 55096), _entry("message", 181, 8)],
    }
    billed = parse_usage(usage)
    assert billed == Usage(input_tokens=55_377, output_tokens=91, cached_input_tokens=55_096)
    assert usage_by_model(usage, "claude-sonnet-4-6") == ()  # one model billed it all


def test_message_iterations_the_top_level_sums_are_not_counted_twice() -> None:
    # an advisor run: the top level is the sum of the two message passes; the advisor's
    # pass is billed beside it, at the advisor's model
    usage = {
        "input_tokens": 2411,
        "output_tokens": 145,
        "output_tokens_details": {"thinking_tokens": 47},
        "iterations": [
            _entry("message", 1128, 135),
            _entry("advisor_message", 2543, 18, model="claude-opus-4-8"),
            _entry("message", 1283, 10),
        ],
    }
    billed = parse_usage(usage)
    assert (billed.input_tokens, billed.output_tokens) == (2411 + 2543, 145 + 18)
    assert billed.reasoning_tokens == 47
    assert usage_by_model(usage, "claude-sonnet-4-6") == (
        ("claude-sonnet-4-6", Usage(input_tokens=2411, output_tokens=145)),
        ("claude-opus-4-8", Usage(input_tokens=2543, output_tokens=18)),
    )


def test_a_top_level_the_iterations_do_not_cover_still_counts() -> None:
    usage = {
        "input_tokens": 500,
        "output_tokens": 40,
        "iterations": [_entry("compaction", 100, 10), _entry("message", 200, 20)],
    }
    billed = parse_usage(usage)
    assert (billed.input_tokens, billed.output_tokens) == (600, 50)  # top + compaction
    assert parse_usage({"input_tokens": 5, "output_tokens": 1, "iterations": []}) == Usage(
        input_tokens=5, output_tokens=1
    )


def test_a_streamed_compaction_is_billed_on_the_response() -> None:
    iterations = [_entry("compaction", 100, 83, 55096), _entry("message", 181, 8)]
    assembler, _ = _events(
        {
            "type": "message_start",
            "message": {"id": "msg_1", "model": "m", "usage": {"input_tokens": 181}},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"input_tokens": 181, "output_tokens": 8, "iterations": iterations},
        },
        {"type": "message_stop"},
    )
    response = assembler.response(requested_model="m", request_id=None)
    assert response.usage.input_tokens == 55_377 and response.usage.output_tokens == 91
    assert response.usage.cached_input_tokens == 55_096

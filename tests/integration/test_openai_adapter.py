"""OpenAIModelClient through the real openai SDK against the loopback ProviderEmulator."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from adapter_helpers import collect

from doc_processing_toolkit.adapters.providers.openai import (
    OpenAIHistoryCodec,
    OpenAIModelClient,
)
from doc_processing_toolkit.domain.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ProviderConnectionError,
    ProviderError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from doc_processing_toolkit.domain.messages import (
    Message,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    user_text,
)
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import (
    ModelRequest,
    StreamItem,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolSpec
from doc_processing_toolkit.testing.contract import unreachable_url
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.emulator.openai_wire import openai_base_url
from doc_processing_toolkit.testing.script import Fault, Reply, ThinkingBlock, ToolCall

pytestmark = pytest.mark.anyio

MODEL = "gpt-emulated-1"
REASONING_ROW = ModelInfo(
    model=MODEL,
    provider="openai",
    supports_thinking=True,
    supported_reasoning_values=("low", "medium", "high"),
)


def _client(emu: ProviderEmulator, **kwargs: Any) -> OpenAIModelClient:
    return OpenAIModelClient(base_url=emu.openai_base_url, **kwargs)


def _reasoning_client(emu: ProviderEmulator) -> OpenAIModelClient:
    return _client(emu, row_lookup=lambda m: REASONING_ROW if m == MODEL else None)


def _request(*messages: Message, **kwargs: Any) -> ModelRequest:
    return ModelRequest(model=MODEL, messages=messages or (user_text("hi"),), **kwargs)


# -- text ------------------------------------------------------------------------------------------


async def test_text_streams_in_order(emu: ProviderEmulator) -> None:
    text = "Hello, streaming world! Deltas arrive in order."
    emu.push(Reply(text, chunk_size=5))
    deltas, response = await collect(_client(emu), _request(system="Be brief."))

    assert [d.text for d in deltas if isinstance(d, TextDelta)] == [
        text[i : i + 5] for i in range(0, len(text), 5)
    ]
    assert all(isinstance(d, TextDelta) and not d.structured_output for d in deltas)
    assert response.message.text == text and response.message.provider == "openai"
    assert response.provider == "openai" and response.model == MODEL
    assert response.stop_reason == "end_turn"
    assert response.request_id is not None and response.request_id.startswith("req_")
    assert response.raw is not None and response.raw["id"].startswith("resp_")

    (recorded,) = emu.requests
    assert recorded.dialect == "openai" and recorded.path == "/v1/responses"
    body = recorded.body
    assert body["stream"] is True and body["store"] is False
    assert body["instructions"] == "Be brief."
    assert body["input"] == [{"role": "user", "content": "hi"}]
    assert "include" not in body and "reasoning" not in body
    assert recorded.headers["authorization"] == "Bearer test-key-not-real"
    assert recorded.headers["x-stainless-retry-count"] == "0"


async def test_the_reply_replays_as_history(emu: ProviderEmulator) -> None:
    emu.push(Reply("first answer"), Reply("second answer"))
    client = _client(emu)
    _, first = await collect(client, _request())
    history = (user_text("hi"), first.message, user_text("and?"))
    _, second = await collect(client, _request(*history))
    assert second.message.text == "second answer"
    sent = emu.requests[1].body["input"]
    assert sent[1] == first.raw["output"][0]  # type: ignore[index]
    assert sent[1]["id"].startswith("msg_") and sent[1]["content"][0]["text"] == "first answer"
    assert OpenAIHistoryCodec().parse(sent)[1] == first.message


# -- tools -----------------------------------------------------------------------------------------


_WEATHER = ToolSpec(
    "get_weather",
    "Weather for a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "default": "C"}},
        "required": ["city"],
    },
    strict=True,
)
_TIME = ToolSpec(
    "get_time", "Local time.", {"type": "object", "properties": {"tz": {"type": "string"}}}
)


async def test_two_parallel_function_calls_and_their_results(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            "Checking both.",
            tool_calls=(
                ToolCall("get_weather", {"city": "Paris", "unit": "C"}, id="call_w"),
                ToolCall("get_time", {"tz": "Europe/Paris"}, id="call_t"),
            ),
            chunk_size=3,
        ),
        Reply("Sunny, 14:00."),
    )
    client = _client(emu)
    request = _request(tools=(_WEATHER, _TIME), provider_options={"parallel_tool_calls": True})
    deltas, response = await collect(client, request)

    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert calls == [ToolCallDelta("call_w", "get_weather"), ToolCallDelta("call_t", "get_time")]
    assert response.stop_reason == "tool_use"
    assert [(c.id, c.name, c.arguments) for c in response.message.tool_calls] == [
        ("call_w", "get_weather", {"city": "Paris", "unit": "C"}),
        ("call_t", "get_time", {"tz": "Europe/Paris"}),
    ]
    body = emu.requests[0].body
    assert body["parallel_tool_calls"] is True
    weather, clock = body["tools"]
    assert weather["strict"] is True
    assert weather["parameters"]["required"] == ["city", "unit"]
    assert weather["parameters"]["additionalProperties"] is False
    assert "default" not in weather["parameters"]["properties"]["unit"]
    assert clock["strict"] is False and clock["parameters"] == _TIME.parameters
    assert "tool_choice" not in body

    results = Message(
        "tool",
        (
            ToolResultPart("call_w", "get_weather", (TextPart("sunny"),)),
            ToolResultPart("call_t", "get_time", (TextPart("14:00"),)),
        ),
    )
    _, final = await collect(
        client, request.with_messages((user_text("hi"), response.message, results))
    )
    assert final.message.text == "Sunny, 14:00."
    sent = emu.requests[1].body["input"]
    assert [i.get("type") for i in sent] == [
        None,
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert sent[-2:] == [
        {"type": "function_call_output", "call_id": "call_w", "output": "sunny"},
        {"type": "function_call_output", "call_id": "call_t", "output": "14:00"},
    ]


async def test_forced_tool_choice(emu: ProviderEmulator) -> None:
    emu.push(Reply(tool_calls=(ToolCall("get_time", {"tz": "UTC"}),)))
    request = _request(tools=(_TIME,), tool_choice=ForcedTool("get_time"))
    await collect(_client(emu), request)
    assert emu.requests[0].body["tool_choice"] == {"type": "function", "name": "get_time"}


async def test_tool_choice_list_is_refused_before_sending(emu: ProviderEmulator) -> None:
    request = _request(tools=(_TIME,), tool_choice=ForcedTool(("get_time", "x")))
    with pytest.raises(ValueError, match="Google-only"):
        await collect(_client(emu), request)
    assert emu.request_count == 0


# -- reasoning -------------------------------------------------------------------------------------


async def test_reasoning_summary_and_encrypted_replay(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            thinking=(ThinkingBlock("Weather first, then time."),),
            tool_calls=(ToolCall("get_time", {"tz": "UTC"}, id="call_1"),),
            reasoning_tokens=12,
            output_tokens=30,
            chunk_size=6,
        ),
        Reply("It is noon."),
    )
    client = _reasoning_client(emu)
    request = _request(tools=(_TIME,), thinking={"effort": "low"})
    deltas, first = await collect(client, request)

    body = emu.requests[0].body
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"] and body["store"] is False
    thinking = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    assert thinking == "Weather first, then time."
    reasoning = first.message.parts[0]
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.text == thinking and reasoning.provider == "openai"
    item = (reasoning.provider_details or {})["item"]
    assert item["type"] == "reasoning" and item["encrypted_content"].startswith("gAAAAB")
    assert first.usage.reasoning_tokens == 12 and first.usage.output_tokens == 30

    results = Message("tool", (ToolResultPart("call_1", "get_time", (TextPart("12:00"),)),))
    _, second = await collect(
        client, request.with_messages((user_text("hi"), first.message, results))
    )
    assert second.message.text == "It is noon."
    replayed = emu.requests[1].body["input"][1]
    assert replayed == item  # the whole item, the encrypted blob byte for byte
    assert replayed["encrypted_content"] == item["encrypted_content"]
    assert json.dumps(replayed, sort_keys=True) == json.dumps(item, sort_keys=True)


async def test_reasoning_model_without_thinking_keeps_encrypted_items(
    emu: ProviderEmulator,
) -> None:
    emu.push(Reply("ok", thinking=(ThinkingBlock("hidden"),)))
    deltas, response = await collect(_reasoning_client(emu), _request())
    body = emu.requests[0].body
    assert "reasoning" not in body and body["include"] == ["reasoning.encrypted_content"]
    assert not any(isinstance(d, ThinkingDelta) for d in deltas)  # no summary was asked for
    reasoning = response.message.parts[0]
    assert isinstance(reasoning, ReasoningPart) and reasoning.text == ""


async def test_tampered_encrypted_reasoning_is_refused(emu: ProviderEmulator) -> None:
    emu.push(Reply("a", thinking=(ThinkingBlock("t"),)))
    client = _reasoning_client(emu)
    _, first = await collect(client, _request(thinking={"effort": "low"}))
    reasoning = first.message.parts[0]
    assert isinstance(reasoning, ReasoningPart)
    item = dict((reasoning.provider_details or {})["item"])
    item["encrypted_content"] = item["encrypted_content"][:-1] + "x"
    forged = Message(
        "assistant", (ReasoningPart("t", "openai", {"item": item}), *first.message.parts[1:])
    )
    with pytest.raises(BadRequestError, match="could not be verified"):
        await collect(client, _request(user_text("hi"), forged, user_text("again")))
    assert emu.remaining_steps == 0


# -- structured output, usage, tiers ---------------------------------------------------------------


async def test_structured_output_path_a(emu: ProviderEmulator) -> None:
    emu.push(Reply('{"city": "Paris", "temp": 21}'))
    schema = {
        "title": "Forecast",
        "type": "object",
        "properties": {"city": {"type": "string"}, "temp": {"type": "integer"}},
        "required": ["city"],
    }
    deltas, response = await collect(_client(emu), _request(output_schema=schema))
    assert deltas and all(isinstance(d, TextDelta) and d.structured_output for d in deltas)
    assert json.loads(response.message.text) == {"city": "Paris", "temp": 21}
    fmt = emu.requests[0].body["text"]["format"]
    assert fmt == {
        "type": "json_schema",
        "name": "Forecast",
        "schema": {**schema, "required": ["city", "temp"], "additionalProperties": False},
        "strict": True,
    }


async def test_usage_with_cache_reads_writes_and_reasoning(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            "cached",
            input_tokens=100,
            cache_read_tokens=800,
            cache_write_tokens=200,
            output_tokens=40,
            reasoning_tokens=25,
        )
    )
    _, response = await collect(_client(emu), _request())
    assert response.usage == Usage(
        input_tokens=1100,
        output_tokens=40,
        reasoning_tokens=25,
        cached_input_tokens=800,
        cache_write_tokens=200,
    )
    assert response.raw is not None
    assert response.raw["usage"]["input_tokens_details"] == {
        "cached_tokens": 800,
        "cache_write_tokens": 200,
    }


async def test_served_tier_priority_and_downgrade(emu: ProviderEmulator) -> None:
    emu.push(Reply("fast"), Reply("slow", served_tier="default"), Reply("std"))
    client = _client(emu)
    _, served = await collect(client, _request(service_tier="priority"))
    _, downgraded = await collect(client, _request(service_tier="priority"))
    _, standard = await collect(client, _request(service_tier="standard"))

    assert [r.body["service_tier"] for r in emu.requests] == ["priority", "priority", "default"]
    assert (served.served_tier, served.served_tier_source) == ("priority", "body")
    assert downgraded.served_tier == "standard"
    assert standard.served_tier == "standard"


async def test_max_output_tokens_ends_incomplete(emu: ProviderEmulator) -> None:
    emu.push(Reply("cut sh", stop_reason="max_tokens"))
    _, response = await collect(_client(emu), _request(max_tokens=5))
    assert emu.requests[0].body["max_output_tokens"] == 5
    assert response.stop_reason == "max_tokens" and response.message.text == "cut sh"


async def test_provider_options_reach_the_wire(emu: ProviderEmulator) -> None:
    emu.push(Reply("ok"))
    options = {"verbosity_config": "low", "prompt_cache_key": "k", "extra_body": {"x_y": 1}}
    await collect(_client(emu), _request(provider_options=options))
    body = emu.requests[0].body
    assert body["text"] == {"verbosity": "low"}
    assert body["prompt_cache_key"] == "k" and body["x_y"] == 1


# -- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "seconds"),
    [
        (Fault(status=429, retry_after=7), 7.0),
        (Fault(status=429, retry_after_ms=1500), 1.5),
    ],
)
async def test_429_retry_after_is_parsed_and_not_retried_by_the_sdk(
    emu: ProviderEmulator, fault: Fault, seconds: float
) -> None:
    emu.push(fault, Reply("never reached"))
    with pytest.raises(RateLimitError) as info:
        await collect(_client(emu), _request())
    error = info.value
    assert error.retry_after == pytest.approx(seconds)
    assert error.status_code == 429 and error.before_stream and error.retryable
    assert error.request_id is not None and error.request_id.startswith("req_")
    assert emu.request_count == 1


@pytest.mark.parametrize(
    ("status", "cls"), [(401, AuthenticationError), (400, BadRequestError), (503, ServerError)]
)
async def test_status_errors_map(emu: ProviderEmulator, status: int, cls: type[Exception]) -> None:
    emu.push(Fault(status=status, message="nope"))
    with pytest.raises(cls, match="nope"):
        await collect(_client(emu), _request())
    assert emu.request_count == 1


async def test_mid_stream_failure_carries_partial_usage(emu: ProviderEmulator) -> None:
    emu.push(Fault("stream_error", partial_text="partial answer", input_tokens=42))
    deltas: list[StreamItem] = []
    with pytest.raises(ServerError) as info:
        async for item in _client(emu).stream(_request()):
            deltas.append(item)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "partial answer"
    error = info.value
    assert error.partial_usage == Usage(input_tokens=42)
    assert error.deltas_emitted and not error.before_stream and error.retryable
    assert error.error_type == "server_error"


@pytest.mark.parametrize(
    ("code", "cls", "retryable"),
    [("rate_limit_exceeded", RateLimitError, True), ("invalid_prompt", BadRequestError, False)],
)
async def test_in_stream_error_codes(
    emu: ProviderEmulator, code: str, cls: type[ProviderError], retryable: bool
) -> None:
    emu.push(Fault("stream_error", error_type=code, message="in-band"))
    with pytest.raises(cls) as info:
        await collect(_client(emu), _request())
    assert info.value.retryable is retryable
    assert info.value.deltas_emitted is False


async def test_disconnect_mid_stream(emu: ProviderEmulator) -> None:
    emu.push(Fault("disconnect", partial_text="abc"))
    with pytest.raises(StreamInterruptedError) as info:
        await collect(_client(emu), _request())
    assert info.value.deltas_emitted and not info.value.before_stream


def _dead_url() -> str:
    return f"{unreachable_url()}/v1"


async def test_connection_refused() -> None:
    with pytest.raises(ProviderConnectionError) as info:
        await collect(OpenAIModelClient(base_url=_dead_url(), api_key="sk-secret-1"), _request())
    assert info.value.before_stream and info.value.retryable
    assert "sk-secret-1" not in str(info.value)


# -- endpoints, keys, lifecycle --------------------------------------------------------------------


async def test_endpoint_from_openai_base_url(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", openai_base_url(emu))
    emu.push(Reply("via sdk env"))
    _, response = await collect(OpenAIModelClient(), _request())
    assert response.message.text == "via sdk env"


async def test_dpt_env_wins_over_the_sdk_env(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", _dead_url())
    monkeypatch.setenv("DPT_OPENAI_BASE_URL", emu.openai_base_url)
    emu.push(Reply("via dpt env"))
    _, response = await collect(OpenAIModelClient(), _request())
    assert response.message.text == "via dpt env"


async def test_argument_wins_over_both_env_vars(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", _dead_url())
    monkeypatch.setenv("DPT_OPENAI_BASE_URL", _dead_url())
    emu.push(Reply("via argument"))
    _, response = await collect(_client(emu), _request())
    assert response.message.text == "via argument"


async def test_explicit_key_gets_its_own_client(emu: ProviderEmulator) -> None:
    emu.push(Reply("one"), Reply("two"))
    client = _client(emu, api_key="sk-own-key", default_headers={"x-team": "docs"})
    await collect(client, _request())
    await collect(client, _request())
    headers = [r.headers for r in emu.requests]
    assert all(h["authorization"] == "Bearer sk-own-key" for h in headers)
    assert all(h["x-team"] == "docs" for h in headers)
    own = client._own.clients()
    assert len(own) == 1
    await client.aclose()
    assert own[0].is_closed()
    assert "sk-own-key" not in repr(client)


async def test_shared_clients_are_reused(emu: ProviderEmulator) -> None:
    emu.push(Reply("a"), Reply("b"))
    first, second = _client(emu), _client(emu)
    await collect(first, _request())
    await collect(second, _request())
    assert not first._own.clients() and not second._own.clients()
    await first.aclose()  # a shared client stays open


def test_importing_the_adapter_does_not_import_openai() -> None:
    code = (
        "import sys\n"
        "import doc_processing_toolkit.adapters.providers.openai as m\n"
        "import doc_processing_toolkit.testing.emulator.openai_wire\n"
        "m.OpenAIModelClient()\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# -- through the Agent's run loop ----------------------------------------------------------------


async def test_agent_tool_loop_with_reasoning_on_a_registry_row(emu: ProviderEmulator) -> None:
    from pydantic import BaseModel

    from doc_processing_toolkit import Agent, tool
    from doc_processing_toolkit.application.container import registry

    @tool
    def calculate(a: int, b: int = 0) -> int:
        """Add two numbers."""
        return a + b

    class Total(BaseModel):
        total: int
        note: str | None = None

    emu.push(
        Reply(
            thinking=(ThinkingBlock("add them"),),
            tool_calls=(ToolCall("calculate", {"a": 2, "b": 3}),),
            input_tokens=100,
            cache_read_tokens=50,
            output_tokens=10,
        ),
        Reply("The sum is 5.", output_tokens=3),
        Reply('{"total": 5, "note": null}'),
    )
    client = OpenAIModelClient(base_url=emu.openai_base_url, row_lookup=registry().row)
    agent = Agent(model="gpt-5-mini", tools=[calculate], client=client, thinking={"effort": "low"})
    result = await agent.run("What is 2 + 3?")

    assert result.output == "The sum is 5."
    assert result.reasoning_content == "add them"
    first, second = (r.body for r in emu.requests)
    assert first["tools"][0]["strict"] is True
    assert first["tools"][0]["parameters"]["required"] == ["a", "b"]
    assert [i.get("type") for i in second["input"]] == [
        None,
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert second["input"][-1]["output"] == "5"
    # gpt-5-mini: $0.25 input, $0.025 cached, $2 output per million (registry, SOURCES.md O3)
    records = result.request_cost_records
    assert records[0]["cost"] == pytest.approx((100 * 0.25 + 50 * 0.025 + 10 * 2) / 1e6)

    structured = await Agent(model="gpt-5-mini", client=client).run("Total?", output_schema=Total)
    assert structured.output == {"total": 5, "note": None}
    fmt = emu.requests[2].body["text"]["format"]
    assert fmt["type"] == "json_schema" and fmt["strict"] is True
    assert fmt["schema"]["required"] == ["total", "note"]


async def test_missing_key_is_a_configuration_error(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        await collect(_client(emu), _request())
    assert emu.request_count == 0


# -- the emulator's Responses dialect over plain HTTP ---------------------------------------------


def _post(emu: ProviderEmulator, body: dict[str, Any]) -> Any:
    import httpx2

    return httpx2.post(f"{emu.openai_base_url}/responses", json=body, timeout=10)


def test_emulator_non_streaming_response(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            "hi",
            thinking=(ThinkingBlock("t", signature="sealed"),),
            tool_calls=(ToolCall("f", {"a": 1}, id="call_1"),),
            served_tier="flex",
        )
    )
    body = {
        "model": MODEL,
        "input": "hello",
        "include": ["reasoning.encrypted_content"],
        "reasoning": {"summary": "auto"},
    }
    answer = _post(emu, body)
    assert answer.status_code == 200
    data = answer.json()
    assert data["status"] == "completed" and data["service_tier"] == "flex"
    reasoning, message, call = data["output"]
    assert reasoning["summary"] == [{"type": "summary_text", "text": "t"}]
    assert reasoning["encrypted_content"] == "sealed"
    assert message["content"][0]["text"] == "hi"
    assert call["call_id"] == "call_1" and json.loads(call["arguments"]) == {"a": 1}


@pytest.mark.parametrize(
    ("items", "status", "message"),
    [
        (
            [{"type": "function_call_output", "call_id": "call_x", "output": "?"}],
            400,
            "No tool call found",
        ),
        (
            [
                {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
                {"role": "user", "content": "skip it"},
            ],
            400,
            "No tool output found",
        ),
        ([{"id": "rs_1", "type": "reasoning", "summary": []}], 404, "not persisted"),
    ],
)
def test_emulator_refuses_what_the_api_refuses(
    emu: ProviderEmulator, items: list[dict[str, Any]], status: int, message: str
) -> None:
    emu.push(Reply("unused"))
    answer = _post(emu, {"model": MODEL, "input": items, "store": False})
    assert answer.status_code == status
    assert message in answer.json()["error"]["message"]
    assert emu.remaining_steps == 1

"""FireworksModelClient through the real openai SDK against the loopback ProviderEmulator."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import pytest
from adapter_helpers import collect

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.adapters.providers.fireworks import FireworksModelClient
from doc_processing_toolkit.adapters.providers.fireworks.client import DEFAULT_BASE_URL
from doc_processing_toolkit.domain.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from doc_processing_toolkit.domain.messages import (
    MediaPart,
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
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Fault, Reply, ThinkingBlock, ToolCall

pytestmark = pytest.mark.anyio

MODEL = "kimi-k3"
WIRE_MODEL = "accounts/fireworks/models/kimi-k3"
_CLIENT_LOGGER = "doc_processing_toolkit.adapters.providers.fireworks.client"
_ROW = ModelInfo(
    model=MODEL,
    provider="fireworks",
    api_model=WIRE_MODEL,
    max_output_tokens=131072,
    input_types=("text", "image"),
    supports_thinking=True,
    supports_structured_output=True,
)


def _rows(**changes: object) -> object:
    row = _ROW.model_copy(update=changes)
    return lambda name: row if name == MODEL else None


def _client(emu: ProviderEmulator, **kwargs: object) -> FireworksModelClient:
    kwargs.setdefault("row_lookup", _rows())
    return FireworksModelClient(base_url=emu.fireworks_base_url, **kwargs)  # type: ignore[arg-type]


def _request(*messages: Message, **kwargs: object) -> ModelRequest:
    return ModelRequest(model=MODEL, messages=messages or (user_text("hi"),), **kwargs)  # type: ignore[arg-type]


async def test_text_streams_in_order(emu: ProviderEmulator) -> None:
    text = "Hello, streaming world! Deltas arrive in order."
    emu.push(Reply(text, chunk_size=5))
    deltas, response = await collect(_client(emu), _request(system="Be brief.", temperature=0.2))

    assert [d.text for d in deltas if isinstance(d, TextDelta)] == [
        text[i : i + 5] for i in range(0, len(text), 5)
    ]
    assert all(isinstance(d, TextDelta) for d in deltas)
    assert response.message == Message("assistant", (TextPart(text),), provider="fireworks")
    assert response.provider == "fireworks"
    assert response.stop_reason == "end_turn"
    assert response.model == WIRE_MODEL
    assert response.request_id is not None and response.request_id.startswith("req_")
    assert response.raw is not None and response.raw["id"].startswith("chatcmpl-")

    (recorded,) = emu.requests
    assert recorded.dialect == "chat_completions"
    assert recorded.path == "/inference/v1/chat/completions"
    body = recorded.body
    assert body["model"] == WIRE_MODEL
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 32_000
    assert recorded.headers["authorization"] == "Bearer test-key-not-real"
    assert recorded.headers["x-stainless-retry-count"] == "0"


async def test_two_parallel_tool_calls_and_the_result_round(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            tool_calls=(
                ToolCall("get_weather", {"city": "Paris", "units": "metric"}),
                ToolCall("get_time", {"tz": "Europe/Paris", "nested": {"a": [1, 2, 3]}}),
            ),
            chunk_size=4,
        ),
        Reply("It is sunny at noon."),
    )
    tools = (
        ToolSpec("get_weather", "Weather.", {"type": "object", "properties": {}}),
        ToolSpec("get_time", "Time.", {"type": "object", "properties": {}}),
    )
    client = _client(emu)
    deltas, response = await collect(client, _request(tools=tools, tool_choice="required"))

    assert [(type(d), getattr(d, "name", None)) for d in deltas] == [
        (ToolCallDelta, "get_weather"),
        (ToolCallDelta, "get_time"),
    ]
    calls = response.message.tool_calls
    assert [c.name for c in calls] == ["get_weather", "get_time"]
    assert calls[0].arguments == {"city": "Paris", "units": "metric"}
    assert calls[1].arguments == {"tz": "Europe/Paris", "nested": {"a": [1, 2, 3]}}
    assert all(c.id.startswith("call_") for c in calls)
    assert [d.id for d in deltas if isinstance(d, ToolCallDelta)] == [c.id for c in calls]
    assert response.stop_reason == "tool_use"

    body = emu.requests[0].body
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    assert body["tool_choice"] == "required"

    results = Message(
        "tool",
        tuple(
            ToolResultPart(call_id=c.id, name=c.name, content=(TextPart(f"{c.name} ok"),))
            for c in calls
        ),
    )
    history = (user_text("hi"), response.message, results)
    _, final = await collect(client, _request(*history, tools=tools))
    assert final.message.text == "It is sunny at noon."
    sent = emu.requests[1].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in calls
        ],
    }
    assert sent[2:] == [
        {"role": "tool", "tool_call_id": calls[0].id, "content": "get_weather ok"},
        {"role": "tool", "tool_call_id": calls[1].id, "content": "get_time ok"},
    ]
    assert "tool_choice" not in emu.requests[1].body


async def test_reasoning_content_deltas_and_same_provider_replay(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            "The answer is 4.",
            thinking=(ThinkingBlock("Two plus two "), ThinkingBlock("is four.")),
            reasoning_tokens=7,
            output_tokens=20,
            chunk_size=6,
        ),
        Reply("ok"),
    )
    client = _client(emu)
    request = _request(thinking={"effort": "high"})
    deltas, response = await collect(client, request)

    thinking = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    assert thinking == "Two plus two is four."
    first_text = next(i for i, d in enumerate(deltas) if isinstance(d, TextDelta))
    assert all(isinstance(d, ThinkingDelta) for d in deltas[:first_text])
    assert response.message.parts == (
        ReasoningPart("Two plus two is four.", "fireworks"),
        TextPart("The answer is 4."),
    )
    assert response.message.text == "The answer is 4."
    assert response.usage.reasoning_tokens == 7 and response.usage.output_tokens == 20
    assert emu.requests[0].body["reasoning_effort"] == "high"

    await collect(client, _request(user_text("hi"), response.message, user_text("and?")))
    assert emu.requests[1].body["messages"][1] == {
        "role": "assistant",
        "content": "The answer is 4.",
        "reasoning_content": "Two plus two is four.",
    }


async def test_think_tags_split_across_chunks_stay_out_of_the_answer(
    emu: ProviderEmulator,
) -> None:
    emu.push(Reply("Four.", thinking=(ThinkingBlock("2+2 is 4"),), think_tags=True, chunk_size=3))
    deltas, response = await collect(_client(emu), _request())

    thinking = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    text = "".join(d.text for d in deltas if isinstance(d, TextDelta))
    assert thinking == "2+2 is 4"
    assert text == "Four."
    assert "<" not in text and "think" not in text
    assert response.message.parts == (ReasoningPart("2+2 is 4", "fireworks"), TextPart("Four."))
    assert response.raw is not None
    assert response.raw["choices"][0]["message"]["reasoning_content"] == "2+2 is 4"


async def test_usage_from_the_include_usage_chunk(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            "cached",
            input_tokens=30,
            cache_read_tokens=1000,
            output_tokens=12,
            reasoning_tokens=5,
            served_tier="priority",
        )
    )
    _, response = await collect(_client(emu), _request(service_tier="priority"))
    assert response.usage == Usage(
        input_tokens=1030, output_tokens=12, reasoning_tokens=5, cached_input_tokens=1000
    )
    assert response.served_tier == "priority"
    assert response.served_tier_source == "body"
    assert emu.requests[0].body["service_tier"] == "priority"


async def test_forced_tool_choice_is_forwarded_with_a_warning_when_the_row_doubts_it(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=_CLIENT_LOGGER)
    emu.push(Reply(tool_calls=(ToolCall("lookup", {"q": "x"}),)))
    client = _client(emu, row_lookup=_rows(supports_forced_tool_choice=False))
    tools = (ToolSpec("lookup", "Look up.", {"type": "object", "properties": {}}),)
    _, response = await collect(client, _request(tools=tools, tool_choice=ForcedTool("lookup")))

    assert response.message.tool_calls[0].name == "lookup"
    assert emu.requests[0].body["tool_choice"] == {
        "type": "function",
        "function": {"name": "lookup"},
    }
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "forced tool_choice" in warnings[0] and "tool='lookup'" in warnings[0]


async def test_forced_tool_choice_sent_without_warning_by_default(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=_CLIENT_LOGGER)
    emu.push(Reply(tool_calls=(ToolCall("lookup", {}),)))
    tools = (ToolSpec("lookup", "Look up.", {"type": "object", "properties": {}}),)
    await collect(_client(emu), _request(tools=tools, tool_choice=ForcedTool("lookup")))
    assert emu.requests[0].body["tool_choice"]["function"] == {"name": "lookup"}
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]


async def test_images_go_as_data_urls_and_a_pdf_is_dropped_and_reported(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=_CLIENT_LOGGER)
    emu.push(Reply("a red square"))
    prompt = Message(
        "user",
        (
            TextPart("What is in these?"),
            MediaPart("image/png", data=b"\x89PNG-bytes"),
            MediaPart("application/pdf", data=b"%PDF-1.7", filename="report.pdf"),
            MediaPart("image/jpeg", url="https://img.test/cat.jpg"),
        ),
    )
    _, response = await collect(_client(emu), _request(prompt))

    (sent,) = [m for m in emu.requests[0].body["messages"] if m["role"] == "user"]
    assert sent["content"] == [
        {"type": "text", "text": "What is in these?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORy1ieXRlcw=="}},
        {"type": "image_url", "image_url": {"url": "https://img.test/cat.jpg"}},
    ]
    assert response.metadata["dropped_parts"] == [
        {
            "kind": "base64-application/pdf",
            "index": 2,
            "message_index": 0,
            "reason": "Fireworks takes images only",
            "provider": "fireworks",
            "model": MODEL,
        }
    ]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "base64-application/pdf" in warnings[0]


async def test_structured_output_path_a(emu: ProviderEmulator) -> None:
    emu.push(Reply('{"answer": 4}'))
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}}
    deltas, response = await collect(_client(emu), _request(output_schema=schema))
    assert deltas and all(isinstance(d, TextDelta) and d.structured_output for d in deltas)
    assert json.loads(response.message.text) == {"answer": 4}
    assert emu.requests[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "structured_output", "schema": schema},
    }


async def test_429_maps_to_rate_limit_with_retry_after_and_no_sdk_retry(
    emu: ProviderEmulator,
) -> None:
    emu.push(Fault(status=429, retry_after=3, message="slow down"))
    with pytest.raises(RateLimitError) as info:
        await collect(_client(emu), _request())
    error = info.value
    assert error.retryable and error.before_stream
    assert error.retry_after == 3.0
    assert error.status_code == 429 and error.error_type == "rate_limit_error"
    assert "slow down" in str(error)
    assert emu.request_count == 1


@pytest.mark.parametrize(
    ("status", "kind"),
    [(500, ServerError), (503, ServerError), (401, AuthenticationError), (400, BadRequestError)],
)
async def test_status_faults_map_by_status(
    emu: ProviderEmulator, status: int, kind: type[Exception]
) -> None:
    emu.push(Fault(status=status, retry_after_ms=1500))
    with pytest.raises(kind) as info:
        await collect(_client(emu), _request())
    assert getattr(info.value, "status_code", None) == status
    assert emu.request_count == 1


async def test_unpaired_tool_round_is_a_400(emu: ProviderEmulator) -> None:
    orphan = Message("tool", (ToolResultPart("call_nope", "t", (TextPart("x"),)),))
    with pytest.raises(BadRequestError, match="tool_call_id"):
        await collect(_client(emu), _request(user_text("hi"), orphan))
    assert emu.remaining_steps == 0


async def test_mid_stream_error_chunk_is_interrupted_with_partial_usage(
    emu: ProviderEmulator,
) -> None:
    emu.push(Fault("stream_error", partial_text="partial answer", input_tokens=42))
    seen: list[StreamItem] = []
    with pytest.raises(StreamInterruptedError) as info:
        async for item in _client(emu).stream(_request()):
            seen.append(item)
    error = info.value
    assert "".join(d.text for d in seen if isinstance(d, TextDelta)) == "partial answer"
    assert error.retryable and not error.before_stream and error.deltas_emitted
    assert error.partial_usage == Usage(input_tokens=42)
    assert error.error_type == "server_error"
    assert "scripted fault" in str(error)


async def test_disconnect_is_interrupted_with_partial_usage(emu: ProviderEmulator) -> None:
    emu.push(Fault("disconnect", partial_text="cut", input_tokens=9))
    with pytest.raises(StreamInterruptedError) as info:
        await collect(_client(emu), _request())
    assert info.value.partial_usage == Usage(input_tokens=9)
    assert info.value.deltas_emitted


async def test_endpoint_from_dpt_env_and_the_argument_wins(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_FIREWORKS_BASE_URL", emu.fireworks_base_url)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    emu.push(Reply("via env"), Reply("via argument"))
    _, first = await collect(FireworksModelClient(row_lookup=_rows()), _request())
    assert first.message.text == "via env"

    monkeypatch.setenv("DPT_FIREWORKS_BASE_URL", "http://127.0.0.1:9/inference/v1")
    _, second = await collect(_client(emu), _request())
    assert second.message.text == "via argument"
    assert [r.path for r in emu.requests] == ["/inference/v1/chat/completions"] * 2


async def test_v1_route_serves_the_same_dialect(emu: ProviderEmulator) -> None:
    emu.push(Reply("plain v1"))
    client = FireworksModelClient(base_url=f"{emu.url}/v1", row_lookup=_rows())
    _, response = await collect(client, _request())
    assert response.message.text == "plain v1"
    assert emu.requests[0].path == "/v1/chat/completions"


def test_default_endpoint_is_fireworks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DPT_FIREWORKS_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert DEFAULT_BASE_URL == "https://api.fireworks.ai/inference/v1"
    assert FireworksModelClient()._endpoint() == (DEFAULT_BASE_URL, "default")


async def test_fireworks_key_only_and_no_openai_headers(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIREWORKS_API_KEY", "fw-key-for-this-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-leak-0000")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-must-not-leak")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-must-not-leak")
    emu.push(Reply("ok"))
    await collect(_client(emu), _request())
    headers = emu.requests[0].headers
    assert headers["authorization"] == "Bearer fw-key-for-this-test"
    assert "openai-organization" not in headers and "openai-project" not in headers


async def test_missing_key_fails_before_any_request(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FIREWORKS_API_KEY")
    # The same error as on every provider (issue 14): a ConfigurationError naming the key.
    with pytest.raises(ConfigurationError, match="FIREWORKS_API_KEY"):
        await collect(_client(emu), _request())
    assert emu.request_count == 0


async def test_shared_clients_per_key_and_an_own_client_for_an_explicit_key(
    emu: ProviderEmulator,
) -> None:
    sdk = __import__("openai")
    first, second = _client(emu), _client(emu)
    assert first._sdk_client(sdk) is second._sdk_client(sdk)

    own = _client(emu, api_key="fw-explicit-key-123")
    emu.push(Reply("mine"))
    _, response = await collect(own, _request())
    assert response.message.text == "mine"
    assert emu.requests[0].headers["authorization"] == "Bearer fw-explicit-key-123"
    mine = own._sdk_client(sdk)
    assert mine is not first._sdk_client(sdk)
    assert "fw-explicit-key-123" not in repr(own)
    await own.aclose()
    assert mine.is_closed()


async def test_agent_runs_a_tool_round_on_fireworks(emu: ProviderEmulator) -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: First.
            b: Second.
        """
        return a + b

    emu.push(Reply(tool_calls=(ToolCall("add", {"a": 2, "b": 3}),)), Reply("2 + 3 = 5"))
    agent = Agent(MODEL, "Use the tool.", tools=[add], client=_client(emu), log_to_file=False)
    result = await agent.run("add 2 and 3")
    assert result.output == "2 + 3 = 5"
    assert result.tools_used == ["add"]
    tool_message = emu.requests[1].body["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"] == "5"


def test_importing_the_adapter_does_not_import_openai() -> None:
    code = (
        "import sys\n"
        "import doc_processing_toolkit.adapters.providers.fireworks as fw\n"
        "from doc_processing_toolkit.adapters.providers.fireworks import mapping, stream\n"
        "fw.FireworksModelClient()\n"
        "assert 'openai' not in sys.modules, sorted(m for m in sys.modules if 'openai' in m)\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"

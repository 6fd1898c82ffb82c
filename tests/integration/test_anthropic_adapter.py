"""AnthropicModelClient through the real anthropic SDK against the loopback ProviderEmulator."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from adapter_helpers import collect

from doc_processing_toolkit.adapters.providers.anthropic import (
    AnthropicHistoryCodec,
    AnthropicModelClient,
)
from doc_processing_toolkit.adapters.providers.anthropic.client import import_anthropic
from doc_processing_toolkit.domain.errors import (
    AuthenticationError,
    OverloadedError,
    ProviderConnectionError,
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
from doc_processing_toolkit.testing.script import Fault, Reply, ThinkingBlock, ToolCall

pytestmark = pytest.mark.anyio

MODEL = "claude-emulated-1"
_CLIENT_LOGGER = "doc_processing_toolkit.adapters.providers.anthropic.client"


def _request(*messages: Message, **kwargs: object) -> ModelRequest:
    return ModelRequest(model=MODEL, messages=messages or (user_text("hi"),), **kwargs)  # type: ignore[arg-type]


async def test_text_streams_in_order(emu: ProviderEmulator) -> None:
    text = "Hello, streaming world! Deltas arrive in order."
    emu.push(Reply(text, chunk_size=5))
    client = AnthropicModelClient(base_url=emu.anthropic_base_url)
    deltas, response = await collect(client, _request(system="Be brief."))

    assert all(isinstance(d, TextDelta) for d in deltas)
    assert [d.text for d in deltas if isinstance(d, TextDelta)] == [
        text[i : i + 5] for i in range(0, len(text), 5)
    ]
    assert response.message == Message("assistant", (TextPart(text),), provider="anthropic")
    assert response.provider == "anthropic"
    assert response.stop_reason == "end_turn"
    assert response.model == MODEL
    assert response.request_id is not None and response.request_id.startswith("req_")
    assert response.raw is not None and response.raw["id"].startswith("msg_")

    (recorded,) = emu.requests
    assert recorded.dialect == "anthropic" and recorded.path == "/v1/messages"
    assert recorded.body["stream"] is True
    assert recorded.body["max_tokens"] == 8192
    assert recorded.body["system"] == "Be brief."
    assert recorded.body["messages"] == [{"role": "user", "content": "hi"}]
    assert recorded.headers["authorization"] == "Bearer test-key-not-real"
    assert recorded.headers["x-stainless-retry-count"] == "0"


async def test_endpoint_from_anthropic_base_url_env(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", emu.anthropic_base_url)
    emu.push(Reply("via env"))
    _, response = await collect(AnthropicModelClient(), _request())
    assert response.message.text == "via env"
    assert emu.request_count == 1


async def test_dpt_base_url_wins_over_sdk_env(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", unreachable_url())
    monkeypatch.setenv("DPT_ANTHROPIC_BASE_URL", emu.anthropic_base_url)
    emu.push(Reply("via dpt env"))
    caplog.set_level(logging.DEBUG, logger=_CLIENT_LOGGER)
    _, response = await collect(AnthropicModelClient(), _request())
    assert response.message.text == "via dpt env"
    (endpoint,) = [r.getMessage() for r in caplog.records if "anthropic endpoint" in r.getMessage()]
    assert "source='DPT_ANTHROPIC_BASE_URL'" in endpoint
    assert f"url='{emu.anthropic_base_url}'" in endpoint


async def test_explicit_base_url_wins_over_dpt_env(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_ANTHROPIC_BASE_URL", unreachable_url())
    emu.push(Reply("explicit"))
    client = AnthropicModelClient(base_url=emu.anthropic_base_url)
    _, response = await collect(client, _request())
    assert response.message.text == "explicit"


async def test_endpoint_log_hides_userinfo_query_and_key(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "sk-ant-very-secret"
    url = emu.anthropic_base_url.replace("http://", "http://user:pw@") + "/?token=abc"
    client = AnthropicModelClient(api_key=secret, base_url=url)
    emu.push(Reply("ok"))
    caplog.set_level(logging.DEBUG, logger=_CLIENT_LOGGER)
    try:
        await collect(client, _request())
    except Exception as exc:  # the SDK may refuse userinfo; the log is what matters
        assert secret not in str(exc)
    finally:
        await client.aclose()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "anthropic endpoint" in text
    assert "pw" not in text and "token" not in text and secret not in text
    assert secret not in repr(client)


async def test_parallel_tool_calls(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            tool_calls=(
                ToolCall("get_weather", {"city": "Paris", "units": "metric"}),
                ToolCall("get_time", {"tz": "Europe/Paris", "nested": {"a": [1, 2, 3]}}),
            ),
            chunk_size=4,
        )
    )
    tools = (
        ToolSpec("get_weather", "Weather.", {"type": "object", "properties": {}}, strict=True),
        ToolSpec("get_time", "Time.", {"type": "object", "properties": {}}),
    )
    client = AnthropicModelClient(base_url=emu.anthropic_base_url)
    deltas, response = await collect(client, _request(tools=tools, tool_choice="required"))

    assert [(type(d), getattr(d, "name", None)) for d in deltas] == [
        (ToolCallDelta, "get_weather"),
        (ToolCallDelta, "get_time"),
    ]
    calls = response.message.tool_calls
    assert [c.name for c in calls] == ["get_weather", "get_time"]
    assert calls[0].arguments == {"city": "Paris", "units": "metric"}
    assert calls[1].arguments == {"tz": "Europe/Paris", "nested": {"a": [1, 2, 3]}}
    assert all(c.id.startswith("toolu_") for c in calls)
    assert [d.id for d in deltas if isinstance(d, ToolCallDelta)] == [c.id for c in calls]
    assert response.stop_reason == "tool_use"

    body = emu.requests[0].body
    assert body["tools"][0] == {
        "name": "get_weather",
        "description": "Weather.",
        "input_schema": {"type": "object", "properties": {}},
        "strict": True,
    }
    assert "strict" not in body["tools"][1]
    assert body["tool_choice"] == {"type": "any"}


async def test_forced_tool_choice_downgraded_when_row_says_so(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=_CLIENT_LOGGER)
    row = ModelInfo(
        model=MODEL,
        provider="anthropic",
        max_output_tokens=4096,
        supports_forced_tool_choice=False,
        api_model="claude-wire-id",
    )
    client = AnthropicModelClient(
        base_url=emu.anthropic_base_url, row_lookup=lambda m: row if m == MODEL else None
    )
    emu.push(Reply("ok"))
    tools = (ToolSpec("t", "T.", {"type": "object", "properties": {}}),)
    await collect(client, _request(tools=tools, tool_choice=ForcedTool("t")))
    body = emu.requests[0].body
    assert "tool_choice" not in body  # auto is the wire default
    assert body["max_tokens"] == 4096
    assert body["model"] == "claude-wire-id"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "requested='t'" in warnings[0]


async def test_thinking_signature_and_byte_identical_replay(emu: ProviderEmulator) -> None:
    thinking = 'Let me think… about ünïcode, "quotes" and\nnewlines.'
    signature = "EqQBCkgIARABGAIiQL+/sig/with+slashes==" * 3
    emu.push(
        Reply(
            "The answer.",
            thinking=(
                ThinkingBlock(thinking, signature=signature),
                ThinkingBlock(redacted_data="opaque-redacted-payload=="),
            ),
            tool_calls=(ToolCall("lookup", {"q": "x"}),),
            chunk_size=7,
        ),
        Reply("done"),
    )
    client = AnthropicModelClient(base_url=emu.anthropic_base_url)
    request = _request(thinking={"budget_tokens": 2048})
    deltas, response = await collect(client, request)

    assert "".join(d.text for d in deltas if isinstance(d, ThinkingDelta)) == thinking
    first, redacted = response.message.parts[:2]
    assert first == ReasoningPart(thinking, "anthropic", {"signature": signature})
    assert redacted == ReasoningPart(
        "", "anthropic", {"redacted_data": "opaque-redacted-payload=="}
    )
    assert emu.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}

    call = response.message.tool_calls[0]
    result = Message("tool", (ToolResultPart(call.id, call.name, (TextPart("42"),)),))
    history = (*request.messages, response.message, result)
    await collect(client, request.with_messages(history))

    sent = emu.requests[1].body["messages"]
    assert response.raw is not None
    assert sent[1] == {"role": "assistant", "content": response.raw["content"]}
    assert sent[1]["content"][0] == {
        "type": "thinking",
        "thinking": thinking,
        "signature": signature,
    }
    assert sent[1]["content"][1] == {
        "type": "redacted_thinking",
        "data": "opaque-redacted-payload==",
    }
    assert sent[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": [{"type": "text", "text": "42"}],
            }
        ],
    }
    codec = AnthropicHistoryCodec()
    assert codec.render(codec.parse(sent)) == sent


async def test_usage_with_cache_fields(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            "cached",
            input_tokens=100,
            output_tokens=7,
            cache_read_tokens=40,
            cache_write_tokens=25,
            cache_write_1h_tokens=10,
            reasoning_tokens=3,
            served_tier="priority",
        )
    )
    client = AnthropicModelClient(base_url=emu.anthropic_base_url)
    _, response = await collect(client, _request())
    assert response.usage == Usage(
        input_tokens=140,
        output_tokens=7,
        reasoning_tokens=3,
        cached_input_tokens=40,
        cache_write_tokens=25,
        cache_write_1h_tokens=10,
    )
    assert response.served_tier == "priority"


async def test_pause_turn_stop_reason(emu: ProviderEmulator) -> None:
    emu.push(Reply("working on it", stop_reason="pause_turn"))
    _, response = await collect(AnthropicModelClient(base_url=emu.anthropic_base_url), _request())
    assert response.stop_reason == "pause_turn"


async def test_structured_output_and_options_mapping(emu: ProviderEmulator) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    emu.push(Reply('{"a": 1}'))
    request = _request(
        output_schema=schema,
        temperature=0.3,
        service_tier="auto",
        provider_options={"effort_config": "high", "stop_sequences": ["END"]},
        prompt_caching={"ttl": "1h"},
        system="sys",
    )
    deltas, response = await collect(AnthropicModelClient(base_url=emu.anthropic_base_url), request)
    assert deltas and all(isinstance(d, TextDelta) and d.structured_output for d in deltas)
    assert response.message.text == '{"a": 1}'
    body = emu.requests[0].body
    assert body["output_config"] == {
        "format": {"type": "json_schema", "schema": schema},
        "effort": "high",
    }
    assert body["temperature"] == 0.3
    assert body["service_tier"] == "auto"
    assert body["stop_sequences"] == ["END"]
    cache = {"type": "ephemeral", "ttl": "1h"}
    assert body["system"] == [{"type": "text", "text": "sys", "cache_control": cache}]
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": cache}]}
    ]


async def test_429_retry_after_seconds_no_sdk_retry(emu: ProviderEmulator) -> None:
    emu.push(Fault(status=429, retry_after=0.1, message="slow down"))
    client = AnthropicModelClient(base_url=emu.anthropic_base_url)
    with pytest.raises(RateLimitError) as info:
        await collect(client, _request())
    err = info.value
    assert err.retry_after == 0.1
    assert err.before_stream is True
    assert err.status_code == 429 and err.retryable
    assert err.error_type == "rate_limit_error"
    assert err.request_id is not None and err.request_id.startswith("req_")
    assert isinstance(err.__cause__, import_anthropic().RateLimitError)
    assert emu.request_count == 1


async def test_retry_after_ms(emu: ProviderEmulator) -> None:
    emu.push(Fault(status=429, retry_after=30, retry_after_ms=1500))
    with pytest.raises(RateLimitError) as info:
        await collect(AnthropicModelClient(base_url=emu.anthropic_base_url), _request())
    assert info.value.retry_after == 1.5
    assert emu.request_count == 1


async def test_529_overloaded(emu: ProviderEmulator) -> None:
    emu.push(Fault(status=529))
    with pytest.raises(OverloadedError) as info:
        await collect(AnthropicModelClient(base_url=emu.anthropic_base_url), _request())
    assert info.value.before_stream is True and info.value.status_code == 529
    assert emu.request_count == 1


async def test_stream_error_event_is_overloaded_with_partial_usage(
    emu: ProviderEmulator,
) -> None:
    emu.push(Fault(kind="stream_error", partial_text="partial answ", input_tokens=33))
    client = AnthropicModelClient(base_url=emu.anthropic_base_url)
    seen: list[StreamItem] = []
    with pytest.raises(OverloadedError) as info:
        async for item in client.stream(_request()):
            seen.append(item)
    err = info.value
    assert "".join(d.text for d in seen if isinstance(d, TextDelta)) == "partial answ"
    assert err.before_stream is False and err.deltas_emitted is True
    assert err.partial_usage is not None and err.partial_usage.input_tokens == 33
    assert err.error_type == "overloaded_error"


async def test_stream_error_event_of_other_type_is_interrupted(emu: ProviderEmulator) -> None:
    emu.push(Fault(kind="stream_error", error_type="api_error"))
    with pytest.raises(StreamInterruptedError) as info:
        await collect(AnthropicModelClient(base_url=emu.anthropic_base_url), _request())
    assert not isinstance(info.value, OverloadedError)
    assert info.value.partial_usage == Usage(input_tokens=10, output_tokens=1)
    assert info.value.deltas_emitted is False


async def test_disconnect_mid_stream(emu: ProviderEmulator) -> None:
    emu.push(Fault(kind="disconnect", partial_text="cut here", input_tokens=12))
    with pytest.raises(StreamInterruptedError) as info:
        await collect(AnthropicModelClient(base_url=emu.anthropic_base_url), _request())
    err = info.value
    assert err.before_stream is False and err.deltas_emitted is True
    assert err.partial_usage is not None and err.partial_usage.input_tokens == 12
    assert emu.request_count == 1


async def test_exhausted_script_is_a_server_error(emu: ProviderEmulator) -> None:
    with pytest.raises(ServerError) as info:
        await collect(AnthropicModelClient(base_url=emu.anthropic_base_url), _request())
    assert info.value.status_code == 500
    assert "exhausted" in str(info.value)


async def test_connection_refused_before_stream() -> None:
    with pytest.raises(ProviderConnectionError) as info:
        await collect(AnthropicModelClient(base_url=unreachable_url()), _request())
    assert info.value.before_stream is True


async def test_error_messages_never_carry_the_key(emu: ProviderEmulator) -> None:
    secret = "sk-ant-api03-secret-value"
    emu.push(Fault(status=401, message=f"invalid x-api-key {secret}"))
    client = AnthropicModelClient(api_key=secret, base_url=emu.anthropic_base_url)
    with pytest.raises(AuthenticationError) as info:
        await collect(client, _request())
    await client.aclose()
    assert secret not in str(info.value) and "***" in str(info.value)
    assert emu.requests[0].headers["authorization"] == f"Bearer {secret}"


async def test_shared_and_own_sdk_clients(emu: ProviderEmulator) -> None:
    sdk = import_anthropic()
    first = AnthropicModelClient(base_url=emu.anthropic_base_url)
    second = AnthropicModelClient(base_url=emu.anthropic_base_url)
    assert first._sdk_client(sdk) is second._sdk_client(sdk)
    await first.aclose()  # shared: nothing closed
    assert not first._sdk_client(sdk).is_closed()

    own = AnthropicModelClient(api_key="sk-own", base_url=emu.anthropic_base_url)
    own_sdk = own._sdk_client(sdk)
    assert own_sdk is not first._sdk_client(sdk)
    assert own_sdk.max_retries == 0
    await own.aclose()
    assert own_sdk.is_closed()
    emu.push(Reply("after close"))
    _, response = await collect(own, _request())  # a fresh SDK client
    assert response.message.text == "after close"
    await own.aclose()


async def test_count_tokens(emu: ProviderEmulator) -> None:
    client = AnthropicModelClient(base_url=emu.anthropic_base_url)
    count = await client.count_tokens(_request(system="x" * 400))
    assert count > 100
    (recorded,) = emu.requests
    assert recorded.path == "/v1/messages/count_tokens"
    assert emu.remaining_steps == 0


def test_module_import_does_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "import doc_processing_toolkit\n"
        "import doc_processing_toolkit.adapters.providers.anthropic.client as c\n"
        "assert 'anthropic' not in sys.modules, 'imported at module import'\n"
        "client = c.AnthropicModelClient(base_url='http://127.0.0.1:9')\n"
        "from doc_processing_toolkit.domain.requests import ModelRequest\n"
        "from doc_processing_toolkit.domain.messages import user_text\n"
        "stream = client.stream(ModelRequest(model='m', messages=(user_text('x'),)))\n"
        "assert 'anthropic' not in sys.modules, 'imported before iteration'\n"
        "import asyncio\n"
        "async def main():\n"
        "    try:\n"
        "        await stream.__anext__()\n"
        "    except Exception:\n"
        "        pass\n"
        "asyncio.run(main())\n"
        "assert 'anthropic' in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"

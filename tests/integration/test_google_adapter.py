"""GoogleModelClient through the real google-genai SDK against the loopback ProviderEmulator."""

from __future__ import annotations

import base64
import logging
import subprocess
import sys

import httpx2
import pytest
from adapter_helpers import collect

from doc_processing_toolkit.adapters.providers.google import (
    GoogleHistoryCodec,
    GoogleModelClient,
)
from doc_processing_toolkit.domain.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
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
from doc_processing_toolkit.testing.emulator.google_wire import field, validate_request
from doc_processing_toolkit.testing.script import Fault, Reply, ThinkingBlock, ToolCall

pytestmark = pytest.mark.anyio

MODEL = "gemini-emulated-1"
STREAM_PATH = f"/v1/models/{MODEL}:streamGenerateContent"
_CLIENT_LOGGER = "doc_processing_toolkit.adapters.providers.google.client"
TOOLS = (
    ToolSpec("get_weather", "Weather.", {"type": "object", "properties": {}}),
    ToolSpec("get_time", "Time.", {"type": "object", "properties": {}}),
    ToolSpec("get_news", "News.", {"type": "object", "properties": {}}),
)


@pytest.fixture(autouse=True)
def _google_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "DPT_GOOGLE_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
        "DPT_GOOGLE_API_VERSION",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_GENAI_API_VERSION",
    ):
        monkeypatch.delenv(name, raising=False)


def _request(*messages: Message, **kwargs: object) -> ModelRequest:
    return ModelRequest(model=MODEL, messages=messages or (user_text("hi"),), **kwargs)  # type: ignore[arg-type]


def _bytes(signature: str) -> bytes:
    """The bytes of a base64 signature in either alphabet (the SDK re-encodes URL-safe)."""
    return base64.urlsafe_b64decode(signature.replace("+", "-").replace("/", "_"))


# -- text, tools, thinking ------------------------------------------------------------------


async def test_text_streams_in_order(emu: ProviderEmulator) -> None:
    text = "Hello, Gemini streaming! Deltas arrive in order."
    emu.push(Reply(text, chunk_size=6, input_tokens=12, output_tokens=9))
    client = GoogleModelClient(base_url=emu.google_base_url, default_headers={"x-team": "docs"})
    deltas, response = await collect(client, _request(system="Be brief.", temperature=0.2))

    assert [d.text for d in deltas if isinstance(d, TextDelta)] == [
        text[i : i + 6] for i in range(0, len(text), 6)
    ]
    assert all(isinstance(d, TextDelta) and not d.structured_output for d in deltas)
    assert response.message == Message("assistant", (TextPart(text),), provider="google")
    assert response.provider == "google" and response.model == MODEL
    assert response.stop_reason == "end_turn"
    assert response.usage == Usage(input_tokens=12, output_tokens=9)
    assert response.request_id and response.raw is not None
    assert (response.served_tier, response.served_tier_source) == (None, "none")

    (recorded,) = emu.requests
    assert recorded.dialect == "google" and recorded.path == STREAM_PATH
    assert recorded.body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert recorded.body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert recorded.body["generationConfig"]["temperature"] == 0.2
    assert "toolConfig" not in recorded.body
    assert recorded.headers["x-goog-api-key"] == "test-key-not-real"
    assert recorded.headers["x-team"] == "docs"


async def test_two_parallel_function_calls(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            tool_calls=(
                ToolCall("get_weather", {"city": "Paris", "units": "metric"}, id=""),
                ToolCall("get_time", {"tz": "Europe/Paris", "nested": {"a": [1, 2]}}),
            )
        )
    )
    client = GoogleModelClient(base_url=emu.google_base_url)
    deltas, response = await collect(client, _request(tools=TOOLS, tool_choice="required"))

    calls = response.message.tool_calls
    assert [(type(d), getattr(d, "name", None)) for d in deltas] == [
        (ToolCallDelta, "get_weather"),
        (ToolCallDelta, "get_time"),
    ]
    assert [d.id for d in deltas if isinstance(d, ToolCallDelta)] == [c.id for c in calls]
    assert calls[0].arguments == {"city": "Paris", "units": "metric"}
    assert calls[1].arguments == {"tz": "Europe/Paris", "nested": {"a": [1, 2]}}
    assert calls[0].id.startswith("gcall_") and calls[0].provider_details == {
        "google": {"id": None}
    }
    assert calls[1].id.startswith("call_") and calls[1].provider_details is None
    assert response.stop_reason == "tool_use"

    body = emu.requests[0].body
    declarations = body["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declarations] == ["get_weather", "get_time", "get_news"]
    assert declarations[0]["parameters_json_schema"] == {"type": "object", "properties": {}}
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}

    # the round replays: the id-less call is answered by name, the other by id
    results = Message(
        "tool",
        (
            ToolResultPart(calls[0].id, "get_weather", (TextPart("18C"),)),
            ToolResultPart(calls[1].id, "get_time", (TextPart("noon"),)),
        ),
    )
    emu.push(Reply("Done."))
    history = (user_text("hi"), response.message, results)
    _, final = await collect(client, _request(*history, tools=TOOLS))
    assert final.message.text == "Done."
    replayed = emu.requests[1].body["contents"]
    assert replayed[1]["parts"][0]["functionCall"] == {
        "name": "get_weather",
        "args": {"city": "Paris", "units": "metric"},
    }
    assert [p["functionResponse"] for p in replayed[2]["parts"]] == [
        {"name": "get_weather", "response": {"result": "18C"}},
        {"name": "get_time", "id": calls[1].id, "response": {"result": "noon"}},
    ]


async def test_allow_list_is_sent_as_any_with_names_and_logged(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=_CLIENT_LOGGER)
    emu.push(Reply(tool_calls=(ToolCall("get_time", {}),)))
    client = GoogleModelClient(base_url=emu.google_base_url)
    choice = ForcedTool(("get_weather", "get_time"))
    await collect(client, _request(tools=TOOLS, tool_choice=choice))

    assert emu.requests[0].body["toolConfig"] == {
        "functionCallingConfig": {
            "mode": "ANY",
            "allowedFunctionNames": ["get_weather", "get_time"],
        }
    }
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    line = "Built Google ToolConfig: mode=ANY, allowed_function_names=['get_weather', 'get_time']"
    assert sum(line in message for message in infos) == 1


async def test_tool_choice_naming_nothing_usable_warns(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=_CLIENT_LOGGER)
    emu.push(Reply("ok"))
    client = GoogleModelClient(base_url=emu.google_base_url)
    await collect(client, _request(tools=TOOLS, tool_choice=ForcedTool("nope")))
    assert emu.requests[0].body["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("nothing usable" in w for w in warnings)
    assert any("mode=AUTO, allowed_function_names=None" in r.getMessage() for r in caplog.records)


async def test_thought_parts_and_signatures_replay_byte_identical(emu: ProviderEmulator) -> None:
    # "ÿ?>" encodes to base64 with "/", so the SDK's URL-safe re-encoding is exercised
    thought_sig, call_sig = "thought-sig-ÿ?>", "call-sig-\u00fe\u00ff>>?"
    emu.push(
        Reply(
            "Checking.",
            thinking=(ThinkingBlock("Weighing the options", signature=thought_sig),),
            tool_calls=(ToolCall("get_weather", {"city": "Oslo"}),),
            chunk_size=5,
        )
    )
    client = GoogleModelClient(base_url=emu.google_base_url)
    deltas, first = await collect(
        client, _request(tools=TOOLS, thinking={"level": "low", "include_thoughts": True})
    )
    assert "".join(d.text for d in deltas if isinstance(d, ThinkingDelta)) == (
        "Weighing the options"
    )
    assert first.message.reasoning == "Weighing the options"
    signed = [p for p in first.message.parts if isinstance(p, ReasoningPart) and p.provider_details]
    assert signed[-1].provider_details == {
        "thought": True,
        "thought_signature": base64.urlsafe_b64encode(thought_sig.encode()).decode(),
    }
    config = emu.requests[0].body["generationConfig"]
    assert config["thinkingConfig"] == {"thinking_level": "LOW", "include_thoughts": True}

    # a Gemini 3 turn: no thought text, the signature rides on the function call
    emu.push(Reply(tool_calls=(ToolCall("get_time", {}),), thinking=(ThinkingBlock("", call_sig),)))
    call = first.message.tool_calls[0]
    results = Message("tool", (ToolResultPart(call.id, call.name, (TextPart("cold"),)),))
    history = (user_text("hi"), first.message, results)
    _, second = await collect(client, _request(*history, tools=TOOLS))
    (second_call,) = second.message.tool_calls
    assert second_call.provider_details is not None
    sent_sig = second_call.provider_details["google"]["thought_signature"]
    assert base64.urlsafe_b64decode(sent_sig) == call_sig.encode()

    emu.push(Reply("Cold and noon."))
    results2 = Message("tool", (ToolResultPart(second_call.id, "get_time", (TextPart("12"),)),))
    await collect(client, _request(*history, second.message, results2, tools=TOOLS))
    replay = emu.requests[2].body["contents"]
    model_parts = replay[1]["parts"]
    replayed_thought = [p for p in model_parts if p.get("thought")]
    assert _bytes(replayed_thought[-1]["thoughtSignature"]) == thought_sig.encode()
    assert _bytes(replay[3]["parts"][0]["thoughtSignature"]) == call_sig.encode()
    # string-identical too: the IR keeps the form the SDK puts on the wire
    assert replay[3]["parts"][0]["thoughtSignature"] == sent_sig
    assert replay[3]["parts"][0]["functionCall"]["name"] == "get_time"
    # the stored history is lossless through the codec too
    codec = GoogleHistoryCodec()
    rendered = codec.render([*history, second.message, results2])
    assert codec.render(codec.parse(rendered)) == rendered


async def test_usage_folds_thoughts_into_output(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            "x",
            input_tokens=100,
            cache_read_tokens=40,
            output_tokens=30,
            reasoning_tokens=12,
        )
    )
    client = GoogleModelClient(base_url=emu.google_base_url)
    _, response = await collect(client, _request())
    assert response.usage == Usage(
        input_tokens=140, output_tokens=30, reasoning_tokens=12, cached_input_tokens=40
    )


async def test_structured_output_path_a(emu: ProviderEmulator) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    emu.push(Reply('{"n": 42}', chunk_size=3))
    client = GoogleModelClient(base_url=emu.google_base_url)
    deltas, response = await collect(client, _request(output_schema=schema))
    assert deltas and all(isinstance(d, TextDelta) and d.structured_output for d in deltas)
    assert response.message.text == '{"n": 42}'
    config = emu.requests[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == schema


async def test_empty_final_turn_is_reported_as_is(emu: ProviderEmulator) -> None:
    emu.push(Reply(output_tokens=0))
    client = GoogleModelClient(base_url=emu.google_base_url)
    deltas, response = await collect(client, _request())
    assert deltas == []
    assert response.message == Message("assistant", (), provider="google")
    assert response.stop_reason == "end_turn"


# -- served tier ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "served", "expected"),
    [
        ("priority", "priority", ("priority", "header")),
        ("priority", "standard", ("standard", "header")),
        ("priority", None, ("unverifiable", "none")),
        (None, None, (None, "none")),
        ("flex", "SERVICE_TIER_FLEX", ("flex", "header")),
    ],
)
async def test_served_tier(
    emu: ProviderEmulator,
    requested: str | None,
    served: str | None,
    expected: tuple[str | None, str],
) -> None:
    emu.push(Reply("ok", served_tier=served))
    client = GoogleModelClient(base_url=emu.google_base_url)
    _, response = await collect(client, _request(service_tier=requested))
    assert (response.served_tier, response.served_tier_source) == expected
    body = emu.requests[0].body
    assert body.get("serviceTier") == (requested.lower() if requested else None)


# -- errors ---------------------------------------------------------------------------------


async def test_429_maps_to_rate_limit_with_retry_after_and_one_attempt(
    emu: ProviderEmulator,
) -> None:
    emu.push(Fault(status=429, retry_after=7, message="quota exceeded"))
    client = GoogleModelClient(base_url=emu.google_base_url)
    with pytest.raises(RateLimitError) as info:
        await collect(client, _request())
    error = info.value
    assert error.retryable and error.before_stream and not error.deltas_emitted
    assert error.retry_after == 7.0 and error.status_code == 429
    assert error.error_type == "RESOURCE_EXHAUSTED"
    assert "quota exceeded" in str(error)
    assert emu.request_count == 1  # the SDK did not retry


@pytest.mark.parametrize(
    ("status", "cls"), [(400, BadRequestError), (401, AuthenticationError), (503, ServerError)]
)
async def test_status_errors(emu: ProviderEmulator, status: int, cls: type[Exception]) -> None:
    emu.push(Fault(status=status))
    client = GoogleModelClient(base_url=emu.google_base_url)
    with pytest.raises(cls):
        await collect(client, _request())
    assert emu.request_count == 1


async def test_mid_stream_error_payload_is_interrupted_with_partial_usage(
    emu: ProviderEmulator,
) -> None:
    emu.push(Fault("stream_error", status=503, partial_text="partial ans", input_tokens=33))
    client = GoogleModelClient(base_url=emu.google_base_url)
    seen: list[StreamItem] = []
    with pytest.raises(StreamInterruptedError) as info:
        async for item in client.stream(_request()):
            seen.append(item)
    error = info.value
    assert "".join(d.text for d in seen if isinstance(d, TextDelta)) == "partial ans"
    assert error.partial_usage == Usage(input_tokens=33)
    assert error.deltas_emitted and not error.before_stream
    assert error.status_code == 503 and error.error_type == "UNAVAILABLE"


async def test_disconnect_mid_stream(emu: ProviderEmulator) -> None:
    emu.push(Fault("disconnect", partial_text="half", input_tokens=5))
    client = GoogleModelClient(base_url=emu.google_base_url)
    with pytest.raises(StreamInterruptedError) as info:
        await collect(client, _request())
    assert info.value.partial_usage == Usage(input_tokens=5)
    assert info.value.deltas_emitted


async def test_connection_refused_before_stream() -> None:
    client = GoogleModelClient(base_url=unreachable_url())
    with pytest.raises(ProviderConnectionError) as info:
        await collect(client, _request())
    assert info.value.before_stream


async def test_error_messages_never_carry_the_key(emu: ProviderEmulator) -> None:
    secret = "AIzaSyVerySecretKeyValue1234567890"
    emu.push(Fault(status=401, message=f"API key {secret} not valid"))
    client = GoogleModelClient(api_key=secret, base_url=emu.google_base_url)
    with pytest.raises(AuthenticationError) as info:
        await collect(client, _request())
    await client.aclose()
    assert secret not in str(info.value) and secret not in repr(client)


# -- endpoint, key, clients -----------------------------------------------------------------


async def test_endpoint_from_dpt_env(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_GOOGLE_BASE_URL", emu.google_base_url)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", unreachable_url())
    emu.push(Reply("via dpt env"))
    _, response = await collect(GoogleModelClient(), _request())
    assert response.message.text == "via dpt env"


async def test_endpoint_from_the_sdk_env(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", emu.google_base_url)
    emu.push(Reply("via sdk env"))
    _, response = await collect(GoogleModelClient(), _request())
    assert response.message.text == "via sdk env"


async def test_explicit_base_url_wins_and_api_version_env(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_GOOGLE_BASE_URL", unreachable_url())
    monkeypatch.setenv("DPT_GOOGLE_API_VERSION", "v1beta")
    emu.push(Reply("explicit"))
    client = GoogleModelClient(base_url=emu.google_base_url, timeout=5)
    _, response = await collect(client, _request())
    assert response.message.text == "explicit"
    assert emu.requests[0].path == f"/v1beta/models/{MODEL}:streamGenerateContent"
    assert emu.requests[0].headers["x-server-timeout"] == "5"


async def test_key_fallbacks(emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_GEMINI_API_KEY")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-api-key-1")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-api-key-1")
    emu.push(Reply("a"), Reply("b"))
    client = GoogleModelClient(base_url=emu.google_base_url)
    await collect(client, _request())
    monkeypatch.delenv("GEMINI_API_KEY")
    await collect(client, _request())
    assert [r.headers["x-goog-api-key"] for r in emu.requests] == [
        "gemini-api-key-1",
        "google-api-key-1",
    ]
    monkeypatch.delenv("GOOGLE_API_KEY")
    with pytest.raises(ConfigurationError, match="GOOGLE_GEMINI_API_KEY"):
        await collect(client, _request())


async def test_shared_and_own_sdk_clients(emu: ProviderEmulator) -> None:
    first = GoogleModelClient(base_url=emu.google_base_url)
    second = GoogleModelClient(base_url=emu.google_base_url)
    own = GoogleModelClient(api_key="own-key-123456", base_url=emu.google_base_url)
    from doc_processing_toolkit.adapters.providers.google.client import import_genai

    genai, types, _ = import_genai()
    assert first._sdk_client(genai, types) is second._sdk_client(genai, types)
    own_sdk = own._sdk_client(genai, types)
    assert own_sdk is not first._sdk_client(genai, types)
    emu.push(Reply("mine"))
    _, response = await collect(own, _request())
    assert response.message.text == "mine"
    assert emu.requests[0].headers["x-goog-api-key"] == "own-key-123456"
    await own.aclose()
    assert own_sdk._api_client._async_httpx_client.is_closed
    await first.aclose()  # a shared client is left open
    assert not first._sdk_client(genai, types)._api_client._async_httpx_client.is_closed


async def test_count_tokens(emu: ProviderEmulator) -> None:
    client = GoogleModelClient(base_url=emu.google_base_url)
    count = await client.count_tokens(_request(system="Be brief."))
    assert count > 0
    assert emu.requests[0].path == f"/v1/models/{MODEL}:countTokens"
    assert emu.requests[0].body["contents"][0]["parts"] == [{"text": "Be brief."}]
    assert emu.remaining_steps == 0


async def test_agent_run_loop_re_requests_one_empty_final_turn(emu: ProviderEmulator) -> None:
    from doc_processing_toolkit import Agent, tool

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: The first number.
            b: The second number.
        """
        return a + b

    emu.push(
        Reply(tool_calls=(ToolCall("add", {"a": 2, "b": 3}, id=""),)),
        Reply(output_tokens=0),  # Gemini's empty final turn after a tool round
        Reply("The sum is 5.", served_tier="priority"),
    )
    client = GoogleModelClient(base_url=emu.google_base_url)
    agent = Agent("gemini-3.5-flash", "Do maths.", tools=[add], client=client)
    result = await agent.run("2+3?")
    assert result.output == "The sum is 5."
    assert result.tools_used == ["add"]
    assert emu.request_count == 3
    retry = emu.requests[2].body["contents"]
    assert [c["role"] for c in retry] == ["user", "model", "user"]
    assert retry[2]["parts"] == [{"functionResponse": {"name": "add", "response": {"result": "5"}}}]


# -- the emulator's dialect ---------------------------------------------------------------


async def test_emulator_generate_content_and_validation(emu: ProviderEmulator) -> None:
    emu.push(Reply("Whole answer", thinking=(ThinkingBlock("hm", signature="s"),)))
    async with httpx2.AsyncClient(base_url=emu.url) as http:
        ok = await http.post(
            f"/v1beta/models/{MODEL}:generateContent",
            json={"contents": [{"role": "user", "parts": [{"text": "q"}]}]},
        )
        bad = await http.post(
            f"/v1/models/{MODEL}:streamGenerateContent?alt=sse",
            json={
                "contents": [
                    {"role": "user", "parts": [{"text": "q"}]},
                    {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                    {"role": "user", "parts": []},
                ]
            },
        )
    parts = ok.json()["candidates"][0]["content"]["parts"]
    assert parts == [
        {"text": "hm", "thought": True, "thoughtSignature": "cw=="},
        {"text": "Whole answer"},
    ]
    assert bad.status_code == 400 and bad.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert emu.remaining_steps == 0


def test_emulator_reads_both_key_spellings() -> None:
    assert field({"inlineData": 1}, "inline_data") == 1
    assert field({"inline_data": 2}, "inline_data") == 2
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {"role": "model", "parts": [{"function_call": {"name": "f", "id": "1"}}]},
            {"role": "user", "parts": [{"function_response": {"name": "f", "id": "1"}}]},
        ]
    }
    assert validate_request(body) is None
    body["contents"].append({"role": "model", "parts": [{"text": "prefill"}]})
    assert validate_request(body) == "Requests ending with a model turn are not supported"


def test_row_lookup_api_model_is_sent() -> None:
    row = ModelInfo(model=MODEL, provider="google", api_model="gemini-wire-id")
    client = GoogleModelClient(row_lookup=lambda m: row if m == MODEL else None)
    assert client._wire(_request()).model == "gemini-wire-id"


def test_module_import_does_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "import doc_processing_toolkit.adapters.providers.google as g\n"
        "import doc_processing_toolkit.adapters.providers.google.stream\n"
        "g.GoogleModelClient()\n"
        "assert 'google.genai' not in sys.modules, 'google.genai imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# -- connection pool ------------------------------------------------------------------------


async def test_a_burst_of_concurrent_streams_keeps_its_connections(emu: ProviderEmulator) -> None:
    """The SDK's pool keeps up to 100 idle connections (the Anthropic and OpenAI SDKs'
    default), not httpx's 20: a second burst of 30 reuses the first burst's connections."""
    import anyio

    emu.default = Reply("ok", chunk_size=2)
    client = GoogleModelClient(base_url=emu.google_base_url)

    async def burst() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(30):
                group.start_soon(collect, client, _request())

    await burst()
    first = {r.client_port for r in emu.requests}
    await burst()
    second = {r.client_port for r in emu.requests[30:]}
    await client.aclose()
    assert len(emu.requests) == 60 and None not in first
    assert len(first) > 20  # the burst really opened more connections than httpx keeps
    assert second <= first  # every request of the second burst rode a kept connection

"""The Google adapter's own stream path sends what the SDK's public method sends, and
hands the assembler what the SDK's models give, against the loopback ProviderEmulator.

Each request goes out twice: through :class:`ChunkStream`'s path (the SDK's converter
and API client, chunks converted by the table) and, with ``_sdk_private.PRIVATE_PATH``
made false, through the public ``generate_content_stream`` and ``model_dump``. The recorded
HTTP requests and everything the client yields must be the same.
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import pytest
from adapter_helpers import collect

from doc_processing_toolkit.adapters.providers.google import GoogleModelClient, _sdk_private
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    TextPart,
    ToolResultPart,
    user_text,
)
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.domain.tools.specs import ForcedTool, ToolSpec
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.emulator.common import without_key
from doc_processing_toolkit.testing.script import Reply, ThinkingBlock, ToolCall

pytestmark = pytest.mark.anyio

MODEL = "gemini-emulated-1"
TOOLS = (
    ToolSpec(
        "get_weather",
        "Weather.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    ),
)
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _thinking_reply() -> Reply:
    return Reply(
        "Checking.",
        thinking=(ThinkingBlock("Weighing the options", signature="thought-sig-ÿ?>"),),
        tool_calls=(ToolCall("get_weather", {"city": "Oslo", "when": {"day": None}}, id="call-1"),),
        chunk_size=5,
        input_tokens=40,
        output_tokens=12,
    )


async def _both_ways(
    emu: ProviderEmulator,
    monkeypatch: pytest.MonkeyPatch,
    request: ModelRequest,
    reply: Reply,
    **client_kwargs: Any,
) -> tuple[Any, Any]:
    results = []
    for own_path in (True, False):
        emu.reset()
        emu.push(reply)
        monkeypatch.setattr(_sdk_private, "PRIVATE_PATH", own_path)
        client = GoogleModelClient(base_url=emu.google_base_url, **client_kwargs)
        deltas, response = await collect(client, request)
        (sent,) = emu.requests
        # the emulator draws a new response id for every response
        response = dataclasses.replace(
            response,
            request_id=None,
            response_id=None,
            raw=without_key(response.raw, "response_id"),
        )
        results.append(((sent.path, sent.body, _headers(sent.headers)), deltas, response))
        await client.aclose()
    return results[0], results[1]


def _headers(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k not in ("content-length",)}


async def test_a_tool_round_with_thinking_and_signatures_is_the_same_both_ways(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = ModelRequest(
        model=MODEL,
        messages=(user_text("Weather in Oslo?"),),
        system="Be brief.",
        tools=TOOLS,
        thinking={"level": "low", "include_thoughts": True},
        temperature=0.3,
        max_tokens=200,
    )
    own, public = await _both_ways(emu, monkeypatch, first, _thinking_reply())
    assert own == public
    assert own[0][1]["systemInstruction"] == {"parts": [{"text": "Be brief."}], "role": "user"}
    response = own[2]
    (call,) = response.message.tool_calls
    # the replayed history (thought signature bytes, function call, its result) both ways
    history: tuple[Message, ...] = (
        user_text("Weather in Oslo?"),
        response.message,
        Message("tool", (ToolResultPart(call.id, call.name, (TextPart("Sunny, 21 C"),)),)),
    )
    second = ModelRequest(
        model=MODEL,
        messages=history,
        tools=TOOLS,
        tool_choice=ForcedTool("get_weather"),
        thinking={"level": "low", "include_thoughts": True},
    )
    own, public = await _both_ways(emu, monkeypatch, second, Reply("It is sunny."))
    assert own == public
    parts = own[0][1]["contents"][1]["parts"]
    assert any("thoughtSignature" in part for part in parts)


async def test_structured_output_media_and_extra_options_are_the_same_both_ways(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = ModelRequest(
        model=MODEL,
        messages=(
            Message("user", (MediaPart(mime_type="image/png", data=PNG), TextPart("Describe."))),
        ),
        output_schema=SCHEMA,
        provider_options={
            "extra_headers": {"x-trace": "t-1"},
            "extra_body": {"labels": {"a": "b"}},
        },
    )
    own, public = await _both_ways(
        emu,
        monkeypatch,
        request,
        Reply('{"answer": "a pixel"}'),
        default_headers={"x-team": "docs"},
    )
    assert own == public
    _, body, headers = own[0]
    assert body["generationConfig"]["responseJsonSchema"] == SCHEMA
    assert headers["x-trace"] == "t-1" and headers["x-team"] == "docs"


async def test_without_the_sdk_functions_the_public_method_is_used(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    import google.genai.models as sdk_models

    public = sdk_models.AsyncModels.generate_content_stream

    async def counted(self: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["model"])
        return await public(self, **kwargs)

    monkeypatch.setattr(sdk_models.AsyncModels, "generate_content_stream", counted)
    request = ModelRequest(model=MODEL, messages=(user_text("hi"),))
    for own_path, expected in ((True, []), (False, [MODEL])):
        calls.clear()
        emu.reset()
        emu.push(Reply("hello"))
        monkeypatch.setattr(_sdk_private, "PRIVATE_PATH", own_path)
        client = GoogleModelClient(base_url=emu.google_base_url)
        _, response = await collect(client, request)
        assert response.message.text == "hello"
        assert calls == expected
        await client.aclose()


def test_the_installed_sdk_has_every_function_the_own_path_uses() -> None:
    _sdk_private.available.cache_clear()
    assert _sdk_private.available()


async def test_a_converter_without_the_model_path_falls_back_to_the_public_method(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    import google.genai.models as sdk_models

    convert = sdk_models._GenerateContentParameters_to_mldev

    def without_url(api: Any, params: Any, parent: Any, root: Any) -> Any:
        request = convert(api, params, parent, root)
        if isinstance(root, dict):  # the adapter's own call (the SDK passes its model)
            request.pop("_url", None)
        return request

    monkeypatch.setattr(sdk_models, "_GenerateContentParameters_to_mldev", without_url)
    emu.push(Reply("hello"))
    client = GoogleModelClient(base_url=emu.google_base_url)
    _, response = await collect(client, ModelRequest(model=MODEL, messages=(user_text("hi"),)))
    await client.aclose()
    assert response.message.text == "hello"
    (sent,) = emu.requests
    assert sent.path.endswith(f"/models/{MODEL}:streamGenerateContent")

"""The raw server-sent-event readers the adapters stream through (issue 17): the API's
dicts with no SDK model per event, and the same errors the SDK streams raise."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from doc_processing_toolkit.adapters.providers._sse import OpenAIRawEvents
from doc_processing_toolkit.adapters.providers.anthropic.stream import RawEvents

pytestmark = pytest.mark.anyio


def _response(body: str) -> httpx2.Response:
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/stream")
    return httpx2.Response(200, content=body.encode(), request=request)


async def _all(events: Any) -> list[dict[str, Any]]:
    return [event async for event in events]


async def test_openai_events_decode_like_the_sdk() -> None:
    body = (
        ": keep-alive\n\n"
        'event: response.created\ndata: {"type": "response.created"}\n\n'
        'data: {"type": "a",\ndata:  "n": 1}\nid: 7\n\n'
        "retry: 10\n\n"
        'data: {"type": "last"}\n\n'
        "data: [DONE]\n\n"
        'data: {"type": "after done"}\n\n'
    )
    events = await _all(OpenAIRawEvents(openai, _response(body)))
    assert events == [{"type": "response.created"}, {"type": "a", "n": 1}, {"type": "last"}]


async def test_openai_last_event_without_a_trailing_blank_line_is_kept() -> None:
    events = await _all(OpenAIRawEvents(openai, _response('data: {"type": "x"}')))
    assert events == [{"type": "x"}]


async def test_openai_in_band_error_is_the_sdks_api_error() -> None:
    body = 'data: {"type": "a"}\n\ndata: {"error": {"message": "boom", "code": "x"}}\n\n'
    reader = OpenAIRawEvents(openai, _response(body))
    assert await reader.__anext__() == {"type": "a"}
    with pytest.raises(openai.APIError) as info:
        await reader.__anext__()
    assert info.value.message == "boom" and info.value.body == {"message": "boom", "code": "x"}


@pytest.mark.parametrize("line", ['{"type": "cut', "[1, 2]"])
async def test_openai_a_line_that_is_not_a_json_object_is_a_value_error(line: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        await _all(OpenAIRawEvents(openai, _response(f"data: {line}\n\n")))


async def test_anthropic_events_skip_pings_and_keep_the_wire_dict() -> None:
    start = {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 3}}}
    body = (
        "event: ping\ndata: {}\n\n"
        f"event: message_start\ndata: {json.dumps(start)}\n\n"
        "event: message_stop\ndata: \n\n"
        'event: message_stop\ndata: {"type": "message_stop", "unmodelled": true}\n\n'
    )
    events = await _all(RawEvents(anthropic, _response(body)))
    assert events == [start, {"type": "message_stop", "unmodelled": True}]


async def test_anthropic_error_event_is_the_sdks_status_error() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    body = f"event: error\ndata: {json.dumps(error)}\n\n"
    with pytest.raises(anthropic.APIStatusError) as info:
        await _all(RawEvents(anthropic, _response(body)))
    assert info.value.body == error and info.value.type == "overloaded_error"

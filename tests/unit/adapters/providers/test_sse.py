"""The raw server-sent-event readers the adapters stream through (issue 17): the API's
dicts with no SDK model per event, and the same errors the SDK streams raise."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from doc_processing_toolkit.adapters.providers._sse import OpenAIRawEvents, SseDecoder
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


# -- the decoder both readers share, against the SDK's own decoder as the oracle ---------

_BODY = (
    ": a comment\n\n"
    'event: message_start\ndata: {"type": "message_start", "text": "h\u00e9llo \u2603"}\n\n'
    "event: ping\ndata: {}\n\n"
    'data: {"a": 1,\ndata: "b": 2}\nid: 7\nretry: 10\n\n\n\n'
    "event: only-a-name\n\n"
    "data\n\n"
    'event: message_stop\ndata:{"type": "message_stop"}\n\n'
)


def _sdk_events(body: bytes) -> list[tuple[str | None, str]]:
    """The events the SDK's decoder gives that carry a name or data (the others, which
    it gives for blank lines after an ``id``, are skipped by both readers alike)."""
    from anthropic._streaming import SSEDecoder as SdkDecoder

    sdk = SdkDecoder()
    events = [sdk.decode(line.decode()) for line in b"".join([body, b"\n"]).splitlines()]
    return [(e.event, e.data) for e in events if e is not None and (e.event or e.data)]


def _decode(chunks: list[bytes]) -> list[tuple[str | None, str]]:
    decoder = SseDecoder()
    events = [event for chunk in chunks for event in decoder.feed(chunk)]
    return [(kind, data) for kind, data in [*events, *decoder.end()[0]] if kind or data]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 10_000])
def test_the_decoder_splits_events_as_the_sdks_decoder_does(newline: str, size: int) -> None:
    body = _BODY.replace("\n", newline).encode()
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    assert _decode(chunks) == _sdk_events(body)
    assert ("message_start", '{"type": "message_start", "text": "h\u00e9llo \u2603"}') in (
        _decode(chunks)
    )  # a character split between two chunks is decoded whole


def test_the_decoder_keeps_an_unterminated_last_event_apart() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b'data: {"a": 1}\n\ndata: {"b"') == [(None, '{"a": 1}')]
    assert decoder.feed(b": 2}\n") == []
    assert decoder.end() == ([], (None, '{"b": 2}'))
    assert decoder.end() == ([], None)


def test_a_body_ending_in_a_carriage_return_ends_its_event() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: 1\n\r") == []  # the \r may be half of a \r\n
    assert decoder.end() == ([(None, "1")], None)


async def test_anthropic_events_read_in_small_chunks_are_whole() -> None:
    start = {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 3}}}
    body = (
        f"event: message_start\r\ndata: {json.dumps(start)}\r\n\r\n"
        'event: message_stop\r\ndata: {"type": "message_stop"}\r\n\r\n'
        'event: message_stop\r\ndata: {"type": "cut'
    ).encode()
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/stream")
    response = httpx2.Response(200, content=_chunked(body, 5), request=request)
    events = await _all(RawEvents(anthropic, response))
    assert events == [start, {"type": "message_stop"}]  # the unfinished last one is dropped


def _chunked(body: bytes, size: int) -> Any:
    async def chunks() -> Any:
        for i in range(0, len(body), size):
            yield body[i : i + size]

    return chunks()


async def test_openai_read_errors_are_the_sdks_errors() -> None:
    class Broken(httpx2.AsyncByteStream):
        def __init__(self, error: Exception) -> None:
            self._error = error

        async def __aiter__(self) -> Any:
            yield b'data: {"type": "a"}\n\n'
            raise self._error

    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/stream")
    for error, expected in (
        (httpx2.ReadTimeout("slow", request=request), openai.APITimeoutError),
        (httpx2.RemoteProtocolError("cut", request=request), openai.APIConnectionError),
    ):
        reader = OpenAIRawEvents(
            openai, httpx2.Response(200, stream=Broken(error), request=request)
        )
        assert await reader.__anext__() == {"type": "a"}
        with pytest.raises(expected):
            await reader.__anext__()


def test_a_long_event_in_many_chunks_is_decoded_whole() -> None:
    data = json.dumps({"text": "x" * 100_000})
    body = f"event: big\ndata: {data}\n\n".encode()
    decoder = SseDecoder()
    events = [e for i in range(0, len(body), 16) for e in decoder.feed(body[i : i + 16])]
    assert events == [("big", data)] and decoder.end() == ([], None)

"""ProviderEmulator itself: lifecycle, script, request log, wire shapes, faults, threads."""

from __future__ import annotations

import json
import threading
import time

import httpx2
import pytest
from starlette.responses import JSONResponse, Response

from doc_processing_toolkit.adapters.providers.anthropic.client import import_anthropic
from doc_processing_toolkit.testing import ProviderEmulator as LazyProviderEmulator
from doc_processing_toolkit.testing.emulator import (
    DIALECT_ROUTES,
    DialectRoute,
    EmulatorCall,
    ProviderEmulator,
)
from doc_processing_toolkit.testing.script import Fault, Reply, ThinkingBlock, ToolCall

BODY = {"model": "claude-emu", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}


def _events(raw: str) -> list[tuple[str, dict[str, object]]]:
    out = []
    for chunk in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_lazy_export_and_url_before_start() -> None:
    assert LazyProviderEmulator is ProviderEmulator
    emu = ProviderEmulator()
    with pytest.raises(RuntimeError, match="start"):
        _ = emu.url
    emu.stop()  # stopping a stopped emulator is fine


def test_non_streaming_message_and_request_log(emu: ProviderEmulator) -> None:
    emu.push(Reply("hello", tool_calls=(ToolCall("f", {"a": 1}, id="toolu_fixed"),)))
    response = httpx2.post(f"{emu.url}/v1/messages", json=BODY, headers={"x-test": "1"})
    assert response.status_code == 200
    assert response.headers["request-id"].startswith("req_")
    message = response.json()
    assert message["id"].startswith("msg_") and message["model"] == "claude-emu"
    assert message["content"] == [
        {"type": "text", "text": "hello"},
        {"type": "tool_use", "id": "toolu_fixed", "name": "f", "input": {"a": 1}},
    ]
    assert message["stop_reason"] == "tool_use"
    (recorded,) = emu.requests
    assert recorded.body == BODY and recorded.headers["x-test"] == "1"
    assert emu.request_count == 1


def test_sse_shape(emu: ProviderEmulator) -> None:
    emu.push(
        Reply(
            "abcdef",
            chunk_size=4,
            thinking=(ThinkingBlock("hm", signature="sig"), ThinkingBlock(redacted_data="r")),
            tool_calls=(ToolCall("f", {"k": "v"}),),
            cache_read_tokens=2,
            cache_write_tokens=3,
        )
    )
    raw = httpx2.post(f"{emu.url}/v1/messages", json={**BODY, "stream": True}).text
    events = _events(raw)
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    usage = events[0][1]["message"]["usage"]  # type: ignore[index]
    assert usage["cache_read_input_tokens"] == 2 and usage["cache_creation_input_tokens"] == 3
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    assert [d["type"] for d in deltas] == [  # type: ignore[index]
        "thinking_delta",
        "signature_delta",
        "text_delta",
        "text_delta",
        "input_json_delta",
        "input_json_delta",
        "input_json_delta",
    ]
    starts = [data["content_block"] for name, data in events if name == "content_block_start"]
    assert starts[1] == {"type": "redacted_thinking", "data": "r"}
    assert starts[3]["id"].startswith("toolu_")  # type: ignore[index]


def test_count_tokens_consumes_no_step(emu: ProviderEmulator) -> None:
    emu.push(Reply("x"))
    response = httpx2.post(f"{emu.url}/v1/messages/count_tokens", json=BODY)
    assert response.json()["input_tokens"] >= 1
    assert emu.remaining_steps == 1


def test_exhausted_default_push_and_reset(emu: ProviderEmulator) -> None:
    response = httpx2.post(f"{emu.url}/v1/messages", json=BODY)
    assert response.status_code == 500
    assert "emulator script exhausted" in response.json()["error"]["message"]
    emu.default = Reply("fallback")
    assert httpx2.post(f"{emu.url}/v1/messages", json=BODY).json()["content"][0]["text"] == (
        "fallback"
    )
    emu.push(Reply("scripted"))
    assert httpx2.post(f"{emu.url}/v1/messages", json=BODY).json()["content"][0]["text"] == (
        "scripted"
    )
    assert emu.request_count == 3
    emu.reset([Reply("again")])
    assert emu.request_count == 0 and emu.remaining_steps == 1


def test_status_fault_headers(emu: ProviderEmulator) -> None:
    emu.push(Fault(status=429, retry_after=2, retry_after_ms=1500, message="slow"))
    response = httpx2.post(f"{emu.url}/v1/messages", json=BODY)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"
    assert response.headers["retry-after-ms"] == "1500"
    assert response.json()["error"] == {"type": "rate_limit_error", "message": "slow"}


def test_disconnect_cuts_the_connection(emu: ProviderEmulator) -> None:
    emu.push(Fault(kind="disconnect", partial_text="abc"))
    with pytest.raises(httpx2.RemoteProtocolError):
        httpx2.post(f"{emu.url}/v1/messages", json={**BODY, "stream": True})
    emu.push(Reply("still serving"))
    assert httpx2.post(f"{emu.url}/v1/messages", json=BODY).status_code == 200


def test_slow_stream(emu: ProviderEmulator) -> None:
    emu.push(Reply("abcdef", chunk_size=2, delay_between_chunks=0.05))
    started = time.monotonic()
    httpx2.post(f"{emu.url}/v1/messages", json={**BODY, "stream": True})
    assert time.monotonic() - started >= 0.15


def test_concurrent_requests_each_consume_one_step(emu: ProviderEmulator) -> None:
    emu.push(*(Reply(f"r{i}") for i in range(20)))
    texts: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        text = httpx2.post(f"{emu.url}/v1/messages", json=BODY).json()["content"][0]["text"]
        with lock:
            texts.append(text)

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(texts) == sorted(f"r{i}" for i in range(20))
    assert emu.request_count == 20


def test_sdk_non_streaming_create() -> None:
    sdk = import_anthropic()
    with ProviderEmulator([Reply("typed")]) as emu:
        client = sdk.Anthropic(base_url=emu.anthropic_base_url, max_retries=0)
        message = client.messages.create(**BODY)
        client.close()
    assert message.content[0].text == "typed"
    assert message.usage.input_tokens == 10


@pytest.mark.anyio
async def test_async_context_manager_and_custom_dialect_routes() -> None:
    async def echo(call: EmulatorCall) -> Response:
        step = call.next_step()
        text = step.text if isinstance(step, Reply) else "none"
        return JSONResponse({"echo": call.body, "text": text, "params": call.path_params})

    routes = {
        **DIALECT_ROUTES,
        "/v1/models/{model}:streamGenerateContent": DialectRoute("toy", echo),
    }
    async with ProviderEmulator([Reply("toy reply")], routes=routes) as emu:
        async with httpx2.AsyncClient() as client:
            url = f"{emu.base_url}/v1/models/gemini-x:streamGenerateContent"
            response = await client.post(url, json={"a": 1})
    assert response.json() == {
        "echo": {"a": 1},
        "text": "toy reply",
        "params": {"model": "gemini-x"},
    }
    assert emu.requests[0].dialect == "toy"


def test_unpaired_tool_rounds_are_refused_like_the_api(emu: ProviderEmulator) -> None:
    emu.push(Reply("kept"))
    orphan = {
        **BODY,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "no call"}]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": []}],
            },
        ],
    }
    response = httpx2.post(f"{emu.url}/v1/messages", json=orphan)
    assert response.status_code == 400
    assert "toolu_x" in response.json()["error"]["message"]
    unanswered = {
        **BODY,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
            },
            {"role": "user", "content": "next"},
        ],
    }
    assert httpx2.post(f"{emu.url}/v1/messages", json=unanswered).status_code == 400
    assert emu.remaining_steps == 1  # a refused request consumes no step

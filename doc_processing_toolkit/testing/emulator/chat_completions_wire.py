"""The OpenAI-compatible chat-completions dialect of the emulator (what Fireworks serves).

Routes: ``POST /inference/v1/chat/completions`` (Fireworks' path) and
``POST /v1/chat/completions``. With ``"stream": true`` the answer is data-only SSE
(``data: {chunk}`` lines, then ``data: [DONE]``); otherwise one ``chat.completion`` JSON.
Script steps map as follows:

* `Reply` -> a role chunk; the thinking blocks as ``reasoning_content`` deltas (or,
  with ``Reply.think_tags``, as ``<think>...</think>`` at the start of the content, chunked
  like the text so a tag can be cut across chunks); the text in ``chunk_size`` pieces,
  ``delay_between_chunks`` apart; tool calls by ``index`` (the first piece carries id and
  name, the argument JSON follows in pieces, interleaved across calls); a chunk with the
  ``finish_reason``; and, when ``stream_options.include_usage`` is set, a usage chunk
  with empty ``choices``. ``prompt_tokens`` = ``input_tokens + cache_read_tokens``
  (cached tokens are part of the prompt on this wire).
* ``Fault("status")`` -> that HTTP status with an OpenAI-style error body
  ``{"error": {"message", "type", "param", "code"}}`` and ``retry-after`` /
  ``retry-after-ms`` headers.
* ``Fault("stream_error")`` -> a 200 stream: a role chunk (carrying usage with
  ``prompt_tokens = input_tokens`` when usage was asked for), the partial text, then
  ``data: {"error": {...}}`` and the end of the body.
* ``Fault("disconnect")`` -> a 200 stream cut after the partial text.

A request without ``model`` or ``messages``, or whose tool rounds do not pair up (a
``tool`` message answering no call of the assistant turn before it, or a call left
unanswered), gets a 400 ``invalid_request_error`` without consuming a script step.

Its routes are listed in `DIALECT_ROUTES`.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
from starlette.responses import JSONResponse, Response, StreamingResponse

from doc_processing_toolkit.testing.emulator.common import (
    EXHAUSTED_MESSAGE,
    MID_STREAM_TAILS,
    DialectRoute,
    EmulatorCall,
    chunk_text,
    fault_tail,
    new_id,
    sse_event,
)
from doc_processing_toolkit.testing.script import Fault, Reply

__all__ = [
    "BASE_PATH",
    "CHAT_COMPLETIONS_ROUTES",
    "DIALECT",
    "completion_json",
    "error_body",
    "handle_chat_completions",
    "reply_tool_calls",
    "validate_request",
]

DIALECT = "chat_completions"
BASE_PATH = "/inference/v1"
"""Fireworks' API prefix (``ProviderEmulator.fireworks_base_url`` is ``<url>/inference/v1``)."""

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    409: "conflict_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}

_FINISH_REASONS = {
    "end_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "stop_sequence": "stop",
    "refusal": "content_filter",
}
"""Script stop reasons (Anthropic's vocabulary) -> finish_reason; others pass through."""


def _error_type(status: int) -> str:
    return _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")


def error_body(error_type: str, message: str, code: Any = None) -> dict[str, Any]:
    """An OpenAI-style error object."""
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


def _error_response(
    status: int, error_type: str, message: str, fault: Fault | None = None
) -> Response:
    headers = {"x-request-id": new_id("req_")}
    if fault is not None and fault.retry_after is not None:
        value = fault.retry_after
        headers["retry-after"] = str(int(value)) if float(value).is_integer() else str(value)
    if fault is not None and fault.retry_after_ms is not None:
        headers["retry-after-ms"] = str(fault.retry_after_ms)
    return JSONResponse(error_body(error_type, message), status, headers=headers)


def _finish_reason(reply: Reply) -> str:
    if reply.stop_reason is not None:
        return _FINISH_REASONS.get(reply.stop_reason, reply.stop_reason)
    return "tool_calls" if reply.tool_calls else "stop"


def _usage(reply: Reply) -> dict[str, Any]:
    prompt = reply.input_tokens + reply.cache_read_tokens
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": reply.output_tokens,
        "total_tokens": prompt + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cache_read_tokens},
    }
    if reply.reasoning_tokens:
        usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    return usage


def reply_tool_calls(reply: Reply) -> list[dict[str, Any]]:
    """The reply's tool calls as chat-completions calls (ids generated where missing)."""
    return [
        {
            "id": call.id or new_id("call_"),
            "type": "function",
            "function": {
                "name": call.name,
                "arguments": (
                    call.raw_arguments
                    if call.raw_arguments is not None
                    else json.dumps(call.arguments)
                ),
            },
        }
        for call in reply.tool_calls
    ]


def _reasoning(reply: Reply) -> str:
    return "".join(block.text for block in reply.thinking)


def _content(reply: Reply) -> str:
    """The content as streamed: with ``think_tags`` the reasoning rides in front of it."""
    reasoning = _reasoning(reply)
    if reply.think_tags and reasoning:
        return f"<think>{reasoning}</think>\n\n{reply.text}"
    return reply.text


def completion_json(reply: Reply, model: str) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` for ``reply``."""
    content = _content(reply)
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    calls = reply_tool_calls(reply)
    if calls:
        message["tool_calls"] = calls
    reasoning = _reasoning(reply)
    if reasoning and not reply.think_tags:
        message["reasoning_content"] = reasoning
    completion: dict[str, Any] = {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model or model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(reply)}],
        "usage": _usage(reply),
    }
    if reply.served_tier:
        completion["service_tier"] = reply.served_tier
    return completion


class _Chunks:
    """Builds the chunks of one streamed completion (shared id, model and timestamp)."""

    def __init__(self, model: str, tier: str | None = None) -> None:
        self.head: dict[str, Any] = {
            "id": new_id("chatcmpl-"),
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }
        if tier:
            self.head["service_tier"] = tier

    def delta(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return sse_event(None, {**self.head, "choices": [choice]})

    def usage(self, usage: dict[str, Any]) -> bytes:
        return sse_event(None, {**self.head, "choices": [], "usage": usage})

    def role(self, usage: dict[str, Any] | None = None) -> bytes:
        chunk: dict[str, Any] = {
            **self.head,
            "choices": [
                {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
            ],
        }
        if usage is not None:
            chunk["usage"] = usage
        return sse_event(None, chunk)


def _wants_usage(body: dict[str, Any]) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True


def _interleaved_argument_pieces(calls: list[dict[str, Any]], size: int) -> list[tuple[int, str]]:
    """(index, piece) of every call's argument JSON, round-robin across the calls."""
    queues = [list(chunk_text(c["function"]["arguments"], size)) for c in calls]
    out: list[tuple[int, str]] = []
    while any(queues):
        for index, queue in enumerate(queues):
            if queue:
                out.append((index, queue.pop(0)))
    return out


async def _reply_chunks(reply: Reply, model: str, usage: bool) -> AsyncIterator[bytes]:
    delay = reply.delay_between_chunks
    size = reply.chunk_size
    chunks = _Chunks(reply.model or model, reply.served_tier)

    async def pause() -> None:
        if delay > 0:
            await anyio.sleep(delay)

    yield chunks.role()
    if not reply.think_tags:
        for piece in chunk_text(_reasoning(reply), size):
            await pause()
            yield chunks.delta({"reasoning_content": piece})
    for piece in chunk_text(_content(reply), size):
        await pause()
        yield chunks.delta({"content": piece})
    calls = reply_tool_calls(reply)
    for index, call in enumerate(calls):
        await pause()
        head = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
        yield chunks.delta({"tool_calls": [{"index": index, **head}]})
    for index, piece in _interleaved_argument_pieces(calls, max(size, 4)):
        await pause()
        yield chunks.delta({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunks.delta({}, _finish_reason(reply))
    if usage:
        yield chunks.usage(_usage(reply))
    yield sse_event(None, "[DONE]")


async def _fault_chunks(fault: Fault, model: str, usage: bool) -> AsyncIterator[bytes]:
    chunks = _Chunks(model)
    started = {"prompt_tokens": fault.input_tokens, "completion_tokens": 0}
    started["total_tokens"] = fault.input_tokens
    yield chunks.role(started if usage else None)
    for piece in chunk_text(fault.partial_text, 8):
        yield chunks.delta({"content": piece})
    if fault.kind in MID_STREAM_TAILS:
        async for tail in fault_tail(fault, b": keep-alive\n\n"):
            yield tail
        return
    error_type = fault.error_type or "server_error"
    yield sse_event(None, error_body(error_type, fault.message, code=fault.status))


def _stream_response(body: AsyncIterator[bytes]) -> StreamingResponse:
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"x-request-id": new_id("req_"), "cache-control": "no-cache"},
    )


def validate_request(body: dict[str, Any]) -> str | None:
    """Why a chat-completions server would refuse ``body`` with a 400 (None: it would not)."""
    messages = body.get("messages")
    if not isinstance(body.get("model"), str) or not body.get("model"):
        return "model is required"
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    open_calls: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("system", "developer", "user", "assistant", "tool"):
            return f"messages.{index}: unknown role {role!r}"
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_calls:
                return (
                    f"messages.{index}: a message with role 'tool' must answer a tool call of "
                    f"the preceding assistant message; tool_call_id {call_id!r} does not"
                )
            open_calls.discard(call_id)
            continue
        if open_calls:
            return (
                f"messages.{index}: the tool calls {sorted(open_calls)} of the assistant "
                "message were not answered by tool messages"
            )
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    open_calls.add(call["id"])
    return None


async def handle_chat_completions(call: EmulatorCall) -> Response:
    """POST /inference/v1/chat/completions and /v1/chat/completions."""
    problem = validate_request(call.body)
    if problem is not None:
        return _error_response(400, "invalid_request_error", problem)
    step = call.next_step()
    model = str(call.body.get("model") or "emulated-chat-model")
    streaming = call.body.get("stream") is True
    usage = _wants_usage(call.body)
    if step is None:
        return _error_response(500, "server_error", EXHAUSTED_MESSAGE)
    if isinstance(step, Fault):
        if step.kind == "status":
            return _error_response(
                step.status, step.error_type or _error_type(step.status), step.message, step
            )
        if not streaming:
            return _error_response(500, step.error_type or "server_error", step.message)
        return _stream_response(_fault_chunks(step, model, usage))
    if streaming:
        return _stream_response(_reply_chunks(step, model, usage))
    return JSONResponse(completion_json(step, model), headers={"x-request-id": new_id("req_")})


CHAT_COMPLETIONS_ROUTES: dict[str, DialectRoute] = {
    f"{BASE_PATH}/chat/completions": DialectRoute(DIALECT, handle_chat_completions),
    "/v1/chat/completions": DialectRoute(DIALECT, handle_chat_completions),
}
"""The chat-completions routes (listed in `DIALECT_ROUTES`)."""

"""The Anthropic Messages dialect of the emulator.

Routes: ``POST /v1/messages`` (SSE with ``event:`` lines when ``"stream": true``, else a
JSON message) and ``POST /v1/messages/count_tokens``. Script steps map as follows:

* `Reply` -> message_start (usage with cache read/creation), a ping, then
  content blocks in order: thinking (thinking_delta chunks + signature_delta),
  redacted_thinking, text (chunked per ``chunk_size``, ``delay_between_chunks`` apart),
  tool_use (input_json_delta in pieces); message_delta (stop_reason, output usage),
  message_stop.
* ``Reply.code_execution_files`` -> before the text, per file a ``server_tool_use``
  (``bash_code_execution``) and a ``bash_code_execution_tool_result`` whose output names
  the file's ``file_id`` (the bytes are kept for ``GET /v1/files/{id}/content``), and a
  ``container`` on the message: the request's ``container`` when it asked to reuse one,
  else a fresh id.
* ``Fault("status")`` -> that HTTP status with an Anthropic error body and
  ``retry-after`` / ``retry-after-ms`` headers.
* ``Fault("stream_error")`` -> a 200 stream: message_start, partial text, then
  ``event: error`` (``overloaded_error`` unless ``error_type`` says otherwise).
* ``Fault("disconnect")`` -> a 200 stream cut after the partial text.
* thinking binding (`anthropic_binding`): generated thinking blocks carry bound
  signatures; a request carrying ``thinking.block_binding`` is prefix-checked (drops are
  reported in ``message_start``'s ``input_transformations`` with
  ``Reply.input_transformations`` after them, only to a request with the binding beta;
  ``"error"`` answers the API's 400 without consuming a step). ``Reply.model`` is the
  served model; with ``Reply.fallback_from`` (server-side fallback) message_start names
  the requested model, one ``fallback`` block per hop names the next, and
  ``usage.iterations`` bills each attempt at its model.

A ``stream_error`` fault on a non-streaming request answers HTTP 529 (500 for another
``error_type``). Like the real API, a request whose tool rounds do not pair up (a
``tool_result`` answering no ``tool_use`` of the previous assistant turn, or a
``tool_use`` left unanswered before the next turn) or that lacks ``model`` /
``max_tokens`` / ``messages`` gets a 400 ``invalid_request_error`` without consuming a
script step.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
from starlette.responses import JSONResponse, Response, StreamingResponse

from doc_processing_toolkit.testing.emulator.anthropic_binding import bind_reply, check_bindings
from doc_processing_toolkit.testing.emulator.common import (
    EXHAUSTED_MESSAGE,
    MID_STREAM_TAILS,
    DialectRoute,
    EmulatorCall,
    EmulatorState,
    chunk_text,
    fault_tail,
    iso_z,
    new_id,
    sse_event,
)
from doc_processing_toolkit.testing.emulator.files_wire import store_generated
from doc_processing_toolkit.testing.script import Fault, Reply, ThinkingBlock

__all__ = [
    "ANTHROPIC_ROUTES",
    "DIALECT",
    "code_execution_blocks",
    "error_body",
    "handle_count_tokens",
    "handle_messages",
    "message_json",
    "reply_content_blocks",
    "requested_container",
    "validate_request",
]

DIALECT = "anthropic"
CONTAINER_LIFETIME = timedelta(days=30)
"""How far ahead a code-execution container's ``expires_at`` lies (from the real clock)."""

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def _error_type(status: int) -> str:
    return _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")


def error_body(error_type: str, message: str, request_id: str) -> dict[str, Any]:
    """An Anthropic error object."""
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }


def _error_response(
    status: int, error_type: str, message: str, fault: Fault | None = None
) -> Response:
    request_id = new_id("req_")
    headers = {"request-id": request_id}
    if fault is not None and fault.retry_after is not None:
        value = fault.retry_after
        headers["retry-after"] = str(int(value)) if float(value).is_integer() else str(value)
    if fault is not None and fault.retry_after_ms is not None:
        headers["retry-after-ms"] = str(fault.retry_after_ms)
    return JSONResponse(error_body(error_type, message, request_id), status, headers=headers)


def _iterations(reply: Reply) -> list[dict[str, Any]]:
    """``usage.iterations`` of a fallback-served reply (one entry per billed attempt)."""
    attempts = [("message", h.model, h.input_tokens, h.output_tokens) for h in reply.fallback_from]
    attempts.append(
        ("fallback_message", reply.model or "", reply.input_tokens, reply.output_tokens)
    )
    return [
        {
            "type": kind,
            "model": name,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        for kind, name, input_tokens, output_tokens in attempts
    ]


def _usage(reply: Reply, output_tokens: int) -> dict[str, Any]:
    write_1h = min(reply.cache_write_1h_tokens, reply.cache_write_tokens)
    return {
        "input_tokens": reply.input_tokens + sum(h.input_tokens for h in reply.fallback_from),
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": reply.cache_write_tokens,
        "cache_read_input_tokens": reply.cache_read_tokens,
        "cache_creation": {
            "ephemeral_5m_input_tokens": reply.cache_write_tokens - write_1h,
            "ephemeral_1h_input_tokens": write_1h,
        },
        "service_tier": reply.served_tier or "standard",
    }


def _stop_reason(reply: Reply) -> str:
    if reply.stop_reason is not None:
        return reply.stop_reason
    return "tool_use" if reply.tool_calls else "end_turn"


def _thinking_block(block: ThinkingBlock) -> dict[str, Any]:
    if block.redacted_data is not None:
        return {"type": "redacted_thinking", "data": block.redacted_data}
    signature = block.signature if block.signature is not None else new_id("sig", 64)
    return {"type": "thinking", "thinking": block.text, "signature": signature}


def requested_container(body: dict[str, Any]) -> str | None:
    """The container id a request asks to reuse (``container``: an id or ``{"id": ...}``)."""
    container = body.get("container")
    if isinstance(container, dict):
        container = container.get("id")
    return container if isinstance(container, str) and container else None


def code_execution_blocks(
    reply: Reply, state: EmulatorState, container_id: str
) -> list[dict[str, Any]]:
    """The server tool blocks of a reply whose code execution writes files (stored)."""
    blocks: list[dict[str, Any]] = []
    for file in reply.code_execution_files:
        stored = store_generated(state.files, file, prefix="file_", container_id=container_id)
        call_id = new_id("srvtoolu_")
        blocks.append(
            {
                "type": "server_tool_use",
                "id": call_id,
                "name": "bash_code_execution",
                "input": {"command": f"python write_output.py  # -> {file.filename}"},
            }
        )
        blocks.append(
            {
                "type": "bash_code_execution_tool_result",
                "tool_use_id": call_id,
                "content": {
                    "type": "bash_code_execution_result",
                    "stdout": f"wrote {file.filename}\n",
                    "stderr": "",
                    "return_code": 0,
                    "content": [{"type": "bash_code_execution_output", "file_id": stored.name}],
                },
            }
        )
    return blocks


def reply_content_blocks(
    reply: Reply, code_blocks: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The final content blocks of a reply (tool ids generated where missing)."""
    hops = [hop.model for hop in reply.fallback_from]
    targets = [*hops[1:], reply.model or "claude-fallback"] if hops else []
    blocks: list[dict[str, Any]] = [
        {
            "type": "fallback",
            "from": {"model": source},
            "to": {"model": target},
            "trigger": {"type": "refusal", "category": None},
        }
        for source, target in zip(hops, targets, strict=True)
    ]
    blocks.extend(_thinking_block(block) for block in reply.thinking)
    blocks.extend(code_blocks or [])
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id or new_id("toolu_"),
                "name": call.name,
                "input": call.arguments,
            }
        )
    return blocks


def _message_head(reply: Reply, model: str, container_id: str | None = None) -> dict[str, Any]:
    head: dict[str, Any] = {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model if reply.fallback_from else (reply.model or model),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _usage(reply, 1),
    }
    if container_id is not None:
        expires = datetime.now(UTC) + CONTAINER_LIFETIME
        head["container"] = {"id": container_id, "expires_at": iso_z(expires)}
    if reply.input_transformations:
        head["input_transformations"] = [dict(t) for t in reply.input_transformations]
    return head


def _final_usage(reply: Reply) -> dict[str, Any]:
    usage = {k: v for k, v in _usage(reply, reply.output_tokens).items() if k != "cache_creation"}
    usage.pop("service_tier")
    if reply.reasoning_tokens:
        usage["output_tokens_details"] = {"thinking_tokens": reply.reasoning_tokens}
    if reply.fallback_from:
        usage["output_tokens"] += sum(h.output_tokens for h in reply.fallback_from)
        usage["iterations"] = _iterations(reply)
    return usage


def message_json(
    reply: Reply,
    model: str,
    code_blocks: list[dict[str, Any]] | None = None,
    container_id: str | None = None,
) -> dict[str, Any]:
    """A non-streaming Messages response for ``reply``."""
    message = _message_head(reply, model, container_id)
    message["content"] = reply_content_blocks(reply, code_blocks)
    message["stop_reason"] = _stop_reason(reply)
    message["usage"] = _usage(reply, reply.output_tokens)
    if reply.reasoning_tokens:
        message["usage"]["output_tokens_details"] = {"thinking_tokens": reply.reasoning_tokens}
    if reply.fallback_from:  # the non-streaming message is relabelled to the serving model
        message["model"] = reply.model or model
        message["usage"]["output_tokens"] += sum(h.output_tokens for h in reply.fallback_from)
        message["usage"]["iterations"] = _iterations(reply)
    return message


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    return sse_event(
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def _block_delta(index: int, delta: dict[str, Any]) -> bytes:
    return sse_event(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )


def _block_stop(index: int) -> bytes:
    return sse_event("content_block_stop", {"type": "content_block_stop", "index": index})


async def _reply_events(
    reply: Reply,
    model: str,
    code_blocks: list[dict[str, Any]] | None = None,
    container_id: str | None = None,
) -> AsyncIterator[bytes]:
    delay = reply.delay_between_chunks
    size = reply.chunk_size

    async def pause() -> None:
        if delay > 0:
            await anyio.sleep(delay)

    head = _message_head(reply, model, container_id)
    yield sse_event("message_start", {"type": "message_start", "message": head})
    yield sse_event("ping", {"type": "ping"})
    raw_arguments = iter([call.raw_arguments for call in reply.tool_calls])
    for index, block in enumerate(reply_content_blocks(reply, code_blocks)):
        kind = block["type"]
        if kind == "thinking":
            yield _block_start(index, {"type": "thinking", "thinking": "", "signature": ""})
            for piece in chunk_text(block["thinking"], size):
                await pause()
                yield _block_delta(index, {"type": "thinking_delta", "thinking": piece})
            yield _block_delta(index, {"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            cited = [dict(c.raw) for c in reply.citations if c.raw]
            yield _block_start(index, {"type": "text", "text": "", **_no_citations(cited)})
            for piece in chunk_text(block["text"], size):
                await pause()
                yield _block_delta(index, {"type": "text_delta", "text": piece})
            for citation in cited:  # recorded order: after the block's text
                yield _block_delta(index, {"type": "citations_delta", "citation": citation})
        elif kind == "tool_use":
            yield _block_start(index, {**block, "input": {}})
            raw = next(raw_arguments, None)
            arguments = raw if raw is not None else json.dumps(block["input"])
            for piece in chunk_text(arguments, max(size, 4)):
                await pause()
                yield _block_delta(index, {"type": "input_json_delta", "partial_json": piece})
        else:
            yield _block_start(index, block)
        yield _block_stop(index)
    yield sse_event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
            "usage": _final_usage(reply),
        },
    )
    yield sse_event("message_stop", {"type": "message_stop"})


def _no_citations(cited: list[dict[str, Any]]) -> dict[str, Any]:
    """A cited text block starts with an empty ``citations`` list, as the API streams it."""
    return {"citations": []} if cited else {}


async def _fault_events(fault: Fault, model: str) -> AsyncIterator[bytes]:
    head = _message_head(Reply(input_tokens=fault.input_tokens), model)
    yield sse_event("message_start", {"type": "message_start", "message": head})
    if fault.partial_text:
        yield _block_start(0, {"type": "text", "text": ""})
        for piece in chunk_text(fault.partial_text, 8):
            yield _block_delta(0, {"type": "text_delta", "text": piece})
    if fault.kind in MID_STREAM_TAILS:
        async for tail in fault_tail(fault, sse_event("ping", {"type": "ping"})):
            yield tail
        return
    error_type = fault.error_type or "overloaded_error"
    yield sse_event("error", error_body(error_type, fault.message, new_id("req_")))


def _stream_response(body: AsyncIterator[bytes]) -> StreamingResponse:
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"request-id": new_id("req_"), "cache-control": "no-cache"},
    )


def _ids_of(content: Any, kind: str, key: str) -> list[str]:
    if not isinstance(content, list):
        return []
    return [str(b.get(key)) for b in content if isinstance(b, dict) and b.get("type") == kind]


def validate_request(body: dict[str, Any]) -> str | None:
    """Why the real API would refuse ``body`` with a 400 (None when it would not)."""
    messages = body.get("messages")
    if not isinstance(body.get("model"), str) or not isinstance(body.get("max_tokens"), int):
        return "model and max_tokens are required"
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{index}: role must be 'user' or 'assistant'"
        content = message.get("content")
        results = _ids_of(content, "tool_result", "tool_use_id")
        if results:
            previous = messages[index - 1] if index > 0 else {}
            calls = _ids_of(previous.get("content"), "tool_use", "id")
            if previous.get("role") != "assistant" or set(results) - set(calls):
                return (
                    f"messages.{index}: unexpected tool_use_id found in tool_result blocks: "
                    f"{sorted(set(results) - set(calls))}. Each tool_result block must have a "
                    "corresponding tool_use block in the previous message."
                )
        calls = _ids_of(content, "tool_use", "id")
        if calls and index + 1 < len(messages):
            answered = _ids_of(messages[index + 1].get("content"), "tool_result", "tool_use_id")
            if set(calls) - set(answered):
                return (
                    f"messages.{index + 1}: tool_use ids were found without tool_result blocks "
                    f"immediately after: {sorted(set(calls) - set(answered))}"
                )
    return None


async def handle_messages(call: EmulatorCall) -> Response:
    """POST /v1/messages."""
    problem = validate_request(call.body)
    if problem is not None:
        return _error_response(400, "invalid_request_error", problem)
    binding = check_bindings(call.state, call.body, call.request.headers)
    if binding.error is not None:
        return _error_response(400, "invalid_request_error", binding.error)
    step = call.next_step()
    model = str(call.body.get("model") or "claude-emulated")
    streaming = call.body.get("stream") is True
    if isinstance(step, Reply):
        step = bind_reply(call.state, call.body, step, model)
        if binding.beta:
            reported = (*binding.entries, *step.input_transformations)
            step = dataclasses.replace(step, input_transformations=reported)
    if step is None:
        return _error_response(500, "api_error", EXHAUSTED_MESSAGE)
    if isinstance(step, Fault):
        if step.kind == "status":
            return _error_response(
                step.status, step.error_type or _error_type(step.status), step.message, step
            )
        if not streaming and step.kind == "stream_error":
            error_type = step.error_type or "overloaded_error"
            return _error_response(
                529 if error_type == "overloaded_error" else 500, error_type, step.message
            )
        return _stream_response(_fault_events(step, model))
    container = step.container_id or requested_container(call.body)
    if container is None and step.code_execution_files:
        container = new_id("container_")
    code_blocks = (
        code_execution_blocks(step, call.state, container)
        if container is not None and step.code_execution_files
        else []
    )
    if streaming:
        return _stream_response(_reply_events(step, model, code_blocks, container))
    return JSONResponse(
        message_json(step, model, code_blocks, container), headers={"request-id": new_id("req_")}
    )


def _estimate_tokens(body: dict[str, Any]) -> int:
    text = json.dumps([body.get("system"), body.get("messages"), body.get("tools")])
    return max(1, len(text) // 4)


async def handle_count_tokens(call: EmulatorCall) -> Response:
    """POST /v1/messages/count_tokens (consumes no script step)."""
    return JSONResponse(
        {"input_tokens": _estimate_tokens(call.body)}, headers={"request-id": new_id("req_")}
    )


ANTHROPIC_ROUTES: dict[str, DialectRoute] = {
    "/v1/messages": DialectRoute(DIALECT, handle_messages),
    "/v1/messages/count_tokens": DialectRoute(DIALECT, handle_count_tokens),
}
"""The Anthropic routes (listed in `DIALECT_ROUTES`)."""

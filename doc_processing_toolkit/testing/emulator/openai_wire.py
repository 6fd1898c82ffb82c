"""The OpenAI Responses dialect of the emulator.

Route: ``POST /v1/responses`` (the SDK posts to ``{base_url}/responses`` with
``base_url = emu.openai_base_url``, i.e. ``emu.url + "/v1"``). ``"stream": true`` answers
SSE with ``event:`` lines, else one JSON response object. Script steps map as follows:

* `Reply` -> response.created, response.in_progress, then output items in order:
  one reasoning item per `ThinkingBlock` (summary text streamed as
  ``response.reasoning_summary_text.delta`` only when the request asked for a summary
  with ``reasoning.summary``; ``encrypted_content`` only when ``include`` lists
  ``reasoning.encrypted_content``: the block's ``signature`` or a generated blob), the
  message (``response.output_text.delta`` chunks per ``chunk_size``,
  ``delay_between_chunks`` apart), one function_call per tool call (arguments as
  ``response.function_call_arguments.delta`` pieces); then response.completed with the
  usage and ``service_tier`` (``Reply.served_tier``, else the requested tier, else
  ``default``). ``stop_reason="max_tokens"`` ends as response.incomplete instead.
* ``Reply.code_execution_files`` -> a ``code_interpreter_call`` item before the message,
  and one ``container_file_citation`` annotation per file on the message's text (the
  container: ``Reply.container_id``, the request's code_interpreter container id, else a
  fresh ``cntr_...``); the bytes are kept for ``GET /v1/containers/{c}/files/{id}/content``.
* Usage: ``input_tokens`` is every prompt token (``Reply.input_tokens`` plus cache reads
  and writes, which OpenAI reports as subsets: ``input_tokens_details.cached_tokens`` /
  ``.cache_write_tokens``); ``output_tokens_details.reasoning_tokens``.
* ``Fault("status")`` -> that HTTP status with an OpenAI error body and ``retry-after`` /
  ``retry-after-ms`` headers.
* ``Fault("stream_error")`` -> a 200 stream with the partial text, then an ``error``
  event and ``response.failed`` (code ``error_type`` or ``server_error``; the failed
  response reports ``Fault.input_tokens`` as usage).
* ``Fault("disconnect")`` -> a 200 stream cut after the partial text.

Like the real API, a request whose tool rounds do not pair up, or that replays a
reasoning item without ``encrypted_content`` while ``store`` is false (nothing was
persisted), or an encrypted blob this emulator did not issue in that exact form, is
refused (400 / 404) without consuming a script step.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
from starlette.responses import JSONResponse, Response, StreamingResponse

from doc_processing_toolkit.testing.emulator.common import (
    EXHAUSTED_MESSAGE,
    MID_STREAM_TAILS,
    DialectRoute,
    EmulatorCall,
    EmulatorState,
    chunk_text,
    fault_tail,
    new_id,
    sse_event,
)
from doc_processing_toolkit.testing.emulator.files_wire import store_generated
from doc_processing_toolkit.testing.script import Fault, Reply, ThinkingBlock

__all__ = [
    "DIALECT",
    "ENCRYPTED_PREFIX",
    "OPENAI_ROUTES",
    "error_body",
    "handle_responses",
    "openai_base_url",
    "response_json",
    "validate_request",
]

DIALECT = "openai"
ENCRYPTED_PREFIX = "gAAAAB"
"""Prefix of the encrypted reasoning blobs the emulator generates (and verifies)."""

_ISSUED: set[str] = set()
_ISSUED_LOCK = threading.Lock()

_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", None),
    408: ("timeout", None),
    409: ("conflict", None),
    429: ("requests", "rate_limit_exceeded"),
}


def openai_base_url(emu: Any) -> str:
    """The value for ``OPENAI_BASE_URL`` / ``OpenAIModelClient(base_url=)`` (same as
    `ProviderEmulator.openai_base_url`)."""
    return str(emu.openai_base_url)


def error_body(message: str, error_type: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI error object."""
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


def _error_response(
    status: int, message: str, fault: Fault | None = None, code: str | None = None
) -> Response:
    default_type, default_code = _ERRORS.get(
        status,
        ("server_error", "server_error") if status >= 500 else ("invalid_request_error", None),
    )
    error_type = fault.error_type if fault is not None and fault.error_type else default_type
    headers = {"x-request-id": new_id("req_")}
    if fault is not None and fault.retry_after is not None:
        value = fault.retry_after
        headers["retry-after"] = str(int(value)) if float(value).is_integer() else str(value)
    if fault is not None and fault.retry_after_ms is not None:
        headers["retry-after-ms"] = str(fault.retry_after_ms)
    body = error_body(message, error_type, code or default_code)
    return JSONResponse(body, status, headers=headers)


# -- building a reply -------------------------------------------------------------------------


def _requested_tier(body: dict[str, Any]) -> str:
    tier = body.get("service_tier")
    if tier in (None, "auto"):
        return "default"
    return "priority" if tier == "fast" else str(tier)


def _usage(reply: Reply) -> dict[str, Any]:
    prompt = reply.input_tokens + reply.cache_read_tokens + reply.cache_write_tokens
    return {
        "input_tokens": prompt,
        "input_tokens_details": {
            "cached_tokens": reply.cache_read_tokens,
            "cache_write_tokens": reply.cache_write_tokens,
        },
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        "total_tokens": prompt + reply.output_tokens,
    }


def _encrypted(block: ThinkingBlock) -> str:
    explicit = block.signature or block.redacted_data
    if explicit is not None:
        return explicit
    blob = new_id(ENCRYPTED_PREFIX, 96)
    with _ISSUED_LOCK:
        _ISSUED.add(blob)
    return blob


def _reasoning_item(block: ThinkingBlock, body: dict[str, Any]) -> dict[str, Any]:
    reasoning = body.get("reasoning")
    summary_on = isinstance(reasoning, dict) and reasoning.get("summary") is not None
    item: dict[str, Any] = {"id": new_id("rs_", 40), "type": "reasoning", "summary": []}
    if summary_on and block.text:
        item["summary"] = [{"type": "summary_text", "text": block.text}]
    include = body.get("include")
    if isinstance(include, list) and "reasoning.encrypted_content" in include:
        item["encrypted_content"] = _encrypted(block)
    return item


def _requested_container(body: dict[str, Any]) -> str | None:
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("type") == "code_interpreter":
            container = tool.get("container")
            if isinstance(container, str) and container:
                return container
    return None


def _code_interpreter(
    reply: Reply, body: dict[str, Any], state: EmulatorState
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The code_interpreter_call item and the file annotations of a reply's files."""
    if not reply.code_execution_files:
        return [], []
    container = reply.container_id or _requested_container(body) or new_id("cntr_", 40)
    annotations = []
    for file in reply.code_execution_files:
        stored = store_generated(state.files, file, prefix="cfile_", container_id=container)
        annotations.append(
            {
                "type": "container_file_citation",
                "container_id": container,
                "file_id": stored.name,
                "filename": file.filename,
                "start_index": 0,
                "end_index": 0,
            }
        )
    call = {
        "id": new_id("ci_", 40),
        "type": "code_interpreter_call",
        "status": "completed",
        "code": "# write the requested files",
        "container_id": container,
        "outputs": [],
    }
    return [call], annotations


def _output_items(
    reply: Reply,
    body: dict[str, Any],
    code_items: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], []),
) -> list[dict[str, Any]]:
    items = [_reasoning_item(block, body) for block in reply.thinking]
    calls, annotations = code_items
    items.extend(calls)
    text = reply.text
    if annotations and not text:
        text = "Wrote " + ", ".join(str(a["filename"]) for a in annotations)
    if text:
        items.append(
            {
                "id": new_id("msg_", 40),
                "type": "message",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "annotations": list(annotations),
                        "logprobs": [],
                        "text": text,
                    }
                ],
                "role": "assistant",
            }
        )
    for call in reply.tool_calls:
        items.append(
            {
                "id": new_id("fc_", 40),
                "type": "function_call",
                "status": "completed",
                "arguments": (
                    call.raw_arguments
                    if call.raw_arguments is not None
                    else json.dumps(call.arguments, separators=(",", ":"))
                ),
                "call_id": call.id or new_id("call_"),
                "name": call.name,
            }
        )
    return items


def _response_head(body: dict[str, Any], model: str) -> dict[str, Any]:
    return {
        "id": new_id("resp_", 40),
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "model": model,
        "output": [],
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "store": body.get("store", True),
        "service_tier": body.get("service_tier", "auto"),
        "usage": None,
    }


def _finish(head: dict[str, Any], reply: Reply, body: dict[str, Any], items: list[Any]) -> None:
    incomplete = reply.stop_reason == "max_tokens"
    head["status"] = "incomplete" if incomplete else "completed"
    if incomplete:
        head["incomplete_details"] = {"reason": "max_output_tokens"}
    head["output"] = items
    head["usage"] = _usage(reply)
    head["service_tier"] = reply.served_tier or _requested_tier(body)


def response_json(
    reply: Reply,
    body: dict[str, Any],
    code_items: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], []),
) -> dict[str, Any]:
    """A non-streaming Responses object for ``reply``."""
    head = _response_head(body, reply.model or str(body.get("model")))
    _finish(head, reply, body, _output_items(reply, body, code_items))
    return head


class _Events:
    """Numbers events (``sequence_number``) and renders them as SSE."""

    def __init__(self) -> None:
        self._sequence = 0

    def __call__(self, kind: str, **fields: Any) -> bytes:
        payload = {"type": kind, **fields, "sequence_number": self._sequence}
        self._sequence += 1
        return sse_event(kind, payload)


def _item_events(
    ev: _Events, index: int, item: dict[str, Any], size: int
) -> Iterator[tuple[bool, bytes]]:
    """(is a content chunk, event) for one output item, from output_item.added to .done."""
    kind, item_id = item["type"], item["id"]
    where = {"item_id": item_id, "output_index": index}
    if kind == "reasoning":
        yield (
            False,
            ev("response.output_item.added", output_index=index, item={**item, "summary": []}),
        )
        for s_index, part in enumerate(item["summary"]):
            at = {**where, "summary_index": s_index}
            empty = {"type": "summary_text", "text": ""}
            yield False, ev("response.reasoning_summary_part.added", **at, part=empty)
            for piece in chunk_text(part["text"], size):
                yield True, ev("response.reasoning_summary_text.delta", **at, delta=piece)
            yield False, ev("response.reasoning_summary_text.done", **at, text=part["text"])
            yield False, ev("response.reasoning_summary_part.done", **at, part=part)
    elif kind == "message":
        added = {**item, "status": "in_progress", "content": []}
        yield False, ev("response.output_item.added", output_index=index, item=added)
        text = item["content"][0]["text"]
        at = {**where, "content_index": 0}
        blank: dict[str, Any] = {"type": "output_text", "annotations": [], "logprobs": []}
        blank["text"] = ""
        yield False, ev("response.content_part.added", **at, part=blank)
        for piece in chunk_text(text, size):
            yield True, ev("response.output_text.delta", **at, delta=piece, logprobs=[])
        yield False, ev("response.output_text.done", **at, text=text, logprobs=[])
        yield False, ev("response.content_part.done", **at, part=item["content"][0])
    elif kind == "code_interpreter_call":
        added = {**item, "status": "in_progress"}
        yield False, ev("response.output_item.added", output_index=index, item=added)
    else:
        added = {**item, "status": "in_progress", "arguments": ""}
        yield False, ev("response.output_item.added", output_index=index, item=added)
        for piece in chunk_text(item["arguments"], max(size, 4)):
            yield True, ev("response.function_call_arguments.delta", **where, delta=piece)
        yield (
            False,
            ev(
                "response.function_call_arguments.done",
                **where,
                name=item["name"],
                arguments=item["arguments"],
            ),
        )
    yield False, ev("response.output_item.done", output_index=index, item=item)


async def _reply_events(
    reply: Reply,
    body: dict[str, Any],
    model: str,
    code_items: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], []),
) -> AsyncIterator[bytes]:
    ev = _Events()
    head = _response_head(body, reply.model or model)
    yield ev("response.created", response=dict(head))
    yield ev("response.in_progress", response=dict(head))
    items = _output_items(reply, body, code_items)
    for index, item in enumerate(items):
        for is_chunk, event in _item_events(ev, index, item, reply.chunk_size):
            if is_chunk and reply.delay_between_chunks > 0:
                await anyio.sleep(reply.delay_between_chunks)
            yield event
    _finish(head, reply, body, items)
    kind = "response.incomplete" if head["status"] == "incomplete" else "response.completed"
    yield ev(kind, response=head)


async def _fault_events(fault: Fault, body: dict[str, Any], model: str) -> AsyncIterator[bytes]:
    ev = _Events()
    head = _response_head(body, model)
    yield ev("response.created", response=dict(head))
    yield ev("response.in_progress", response=dict(head))
    if fault.partial_text:
        item: dict[str, Any] = {"id": new_id("msg_", 40), "type": "message"}
        item |= {"status": "in_progress", "content": [], "role": "assistant"}
        yield ev("response.output_item.added", output_index=0, item=item)
        where = {"item_id": item["id"], "output_index": 0, "content_index": 0}
        for piece in chunk_text(fault.partial_text, 8):
            yield ev("response.output_text.delta", **where, delta=piece, logprobs=[])
    if fault.kind in MID_STREAM_TAILS:
        async for tail in fault_tail(fault, b": keep-alive\n\n"):
            yield tail
        return
    code = fault.error_type or "server_error"
    yield ev("error", code=code, message=fault.message, param=None)
    head["status"] = "failed"
    head["error"] = {"code": code, "message": fault.message}
    head["usage"] = _usage(Reply(input_tokens=fault.input_tokens, output_tokens=0))
    yield ev("response.failed", response=head)


def _stream_response(events: AsyncIterator[bytes]) -> StreamingResponse:
    return StreamingResponse(
        events,
        media_type="text/event-stream",
        headers={"x-request-id": new_id("req_"), "cache-control": "no-cache"},
    )


# -- validation -----------------------------------------------------------------------------


def validate_request(body: dict[str, Any]) -> tuple[int, str] | None:
    """(status, message) the real API would refuse ``body`` with; None when it would not."""
    items = body.get("input")
    if not isinstance(body.get("model"), str):
        return 400, "Missing required parameter: 'model'."
    if isinstance(items, str):
        return None
    if not isinstance(items, list) or not items:
        return 400, "Missing required parameter: 'input'."
    calls: set[str] = set()
    open_calls: list[str] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            return 400, f"Invalid type for 'input[{index}]': expected an object."
        kind = item.get("type", "message")
        if kind == "function_call":
            calls.add(str(item.get("call_id")))
            open_calls.append(str(item.get("call_id")))
        elif kind == "function_call_output":
            call_id = str(item.get("call_id"))
            if call_id not in calls:
                return 400, f"No tool call found for function call output with call_id {call_id}."
            if call_id in open_calls:
                open_calls.remove(call_id)
        elif kind == "message" and item.get("role") == "user" and open_calls:
            return 400, f"No tool output found for function call {open_calls[0]}."
        elif kind == "reasoning" and body.get("store") is False:
            blob = item.get("encrypted_content")
            if not isinstance(blob, str):
                return 404, (
                    f"Item with id '{item.get('id')}' not found. Items are not persisted when "
                    "`store` is set to false. Try again with `store` set to true, or remove "
                    "this item from your input."
                )
            with _ISSUED_LOCK:
                forged = blob.startswith(ENCRYPTED_PREFIX) and blob not in _ISSUED
            if forged:
                return 400, (
                    "The encrypted content for item "
                    f"{item.get('id')} could not be verified. Reason: Encrypted content "
                    "could not be decrypted or parsed."
                )
    return None


async def handle_responses(call: EmulatorCall) -> Response:
    """POST /v1/responses."""
    problem = validate_request(call.body)
    if problem is not None:
        return _error_response(problem[0], problem[1])
    step = call.next_step()
    model = str(call.body.get("model") or "gpt-emulated")
    streaming = call.body.get("stream") is True
    if step is None:
        return _error_response(500, EXHAUSTED_MESSAGE)
    if isinstance(step, Fault):
        if step.kind == "status":
            return _error_response(step.status, step.message, step)
        if not streaming:
            return _error_response(500, step.message, code=step.error_type or "server_error")
        return _stream_response(_fault_events(step, call.body, model))
    code_items = _code_interpreter(step, call.body, call.state)
    if streaming:
        return _stream_response(_reply_events(step, call.body, model, code_items))
    return JSONResponse(
        response_json(step, call.body, code_items), headers={"x-request-id": new_id("req_")}
    )


OPENAI_ROUTES: dict[str, DialectRoute] = {"/v1/responses": DialectRoute(DIALECT, handle_responses)}
"""The OpenAI Responses route (listed in `DIALECT_ROUTES`)."""

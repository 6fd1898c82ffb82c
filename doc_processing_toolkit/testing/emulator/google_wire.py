"""The Gemini (Google ``generateContent``) dialect of the emulator.

Routes, under ``/v1`` and ``/v1beta`` (the SDK's base URL is the emulator's ``url``):
``POST /models/{model}:streamGenerateContent`` (``?alt=sse``: one ``data: {json}`` line
per chunk, a blank line between; without it, a JSON array of the chunks),
``POST /models/{model}:generateContent`` (one JSON response) and
``POST /models/{model}:countTokens`` (consumes no script step). The SDK's request JSON
mixes camelCase and snake_case keys (``parameters_json_schema``,
``thinkingConfig.include_thoughts``, ``inlineData.mime_type``): both are read.

Script steps map as follows:

* `Reply` -> chunks in order: thought parts (``{"text", "thought": true}``,
  chunked) for each `ThinkingBlock` with text, its ``signature`` (the UTF-8 bytes
  of the string, base64 on the wire) on the block's last thought chunk; answer text in
  ``{"text": piece}`` parts of ``chunk_size`` characters; every tool call in one chunk of
  ``functionCall`` parts (``ToolCall.id`` None: an id is generated; ``""``: no id, as
  models before Gemini 3.5 send). A ThinkingBlock without text but with a signature is
  Gemini 3's placement: the signature rides on the first ``functionCall`` part, else on
  the last text part (an empty text part when there is none). The last chunk carries
  ``finishReason`` (STOP; MAX_TOKENS for ``stop_reason="max_tokens"``; SAFETY for
  ``content_filter`` / ``refusal``; an upper-case Gemini reason is sent as given) and
  ``usageMetadata``: promptTokenCount = input + cache reads, cachedContentTokenCount =
  cache reads, candidatesTokenCount = output - reasoning, thoughtsTokenCount = reasoning.
* ``Reply.code_execution_files`` -> a chunk of ``executableCode``, ``codeExecutionResult``
  and one ``inlineData`` part per file (with its ``displayName``), before the text: Gemini
  returns what its code execution wrote inline.
* ``Reply.served_tier`` -> the ``x-gemini-service-tier`` response header. That is where
  the SDK shows the served tier (``response.sdk_http_response.headers``); it drops
  response-body fields its types do not declare, and google-genai 3.6's
  ``GenerateContentResponseUsageMetadata`` declares no service tier.
* ``Fault("status")`` -> that HTTP status with a Google error body (``code``,
  ``message``, ``status`` and a ``google.rpc.RetryInfo`` detail when ``retry_after`` is
  set) and a ``retry-after`` header.
* ``Fault("stream_error")`` -> a 200 stream: a chunk with the partial text and the
  prompt usage, then ``data: {"error": {...}}`` (code ``Fault.status``, status
  ``Fault.error_type`` or the code's canonical name). On ``:generateContent`` it is that
  HTTP status instead.
* ``Fault("disconnect")`` -> a 200 stream cut after the partial text.

Like the real API, a request with no contents, a role other than user/model, a last
turn from the model, or function responses that do not answer the previous model turn's
calls (by id, else by name, one response per call) gets a 400 ``INVALID_ARGUMENT``
without consuming a script step.
"""

from __future__ import annotations

import base64
import json
import re
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
    "DIALECT",
    "GOOGLE_ROUTES",
    "SERVED_TIER_HEADER",
    "error_body",
    "field",
    "handle_count_tokens",
    "handle_generate",
    "handle_stream",
    "reply_chunks",
    "validate_request",
]

DIALECT = "google"
SERVED_TIER_HEADER = "x-gemini-service-tier"

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_FINISH_REASONS = {
    "end_turn": "STOP",
    "tool_use": "STOP",
    "stop_sequence": "STOP",
    "max_tokens": "MAX_TOKENS",
    "content_filter": "SAFETY",
    "refusal": "SAFETY",
    "other": "OTHER",
}
_CAMEL = re.compile(r"_([a-z])")


def field(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` under its snake_case or camelCase spelling (the SDK sends both)."""
    if not isinstance(obj, dict):
        return default
    if name in obj:
        return obj[name]
    return obj.get(_CAMEL.sub(lambda m: m.group(1).upper(), name), default)


def _status_name(status: int) -> str:
    return _STATUS_NAMES.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")


def error_body(
    status: int, message: str, name: str | None = None, retry_after: float | None = None
) -> dict[str, Any]:
    """A Google API error object."""
    error: dict[str, Any] = {
        "code": status,
        "message": message,
        "status": name or _status_name(status),
    }
    if retry_after is not None:
        delay = f"{int(retry_after)}s" if float(retry_after).is_integer() else f"{retry_after}s"
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
        ]
    return {"error": error}


def _error_response(status: int, message: str, fault: Fault | None = None) -> Response:
    retry_after = fault.retry_after if fault is not None else None
    headers: dict[str, str] = {}
    if retry_after is not None:
        value = float(retry_after)
        headers["retry-after"] = str(int(value)) if value.is_integer() else str(value)
    if fault is not None and fault.retry_after_ms is not None:
        headers["retry-after-ms"] = str(fault.retry_after_ms)
    name = fault.error_type if fault is not None else None
    return JSONResponse(error_body(status, message, name, retry_after), status, headers=headers)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _usage(reply: Reply) -> dict[str, Any]:
    prompt = reply.input_tokens + reply.cache_read_tokens
    candidates = max(reply.output_tokens - reply.reasoning_tokens, 0)
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates + reply.reasoning_tokens,
    }
    if reply.cache_read_tokens:
        usage["cachedContentTokenCount"] = reply.cache_read_tokens
    if reply.reasoning_tokens:
        usage["thoughtsTokenCount"] = reply.reasoning_tokens
    return usage


def _finish_reason(reply: Reply) -> str:
    reason = reply.stop_reason
    if reason is None:
        return "STOP"
    if reason.isupper():
        return reason
    return _FINISH_REASONS.get(reason, "OTHER")


def _part_groups(reply: Reply) -> list[list[dict[str, Any]]]:
    """The reply's parts, one list per streamed chunk."""
    groups: list[list[dict[str, Any]]] = []
    pending_signature: str | None = None
    size = reply.chunk_size
    for block in reply.thinking:
        signature = _b64(block.signature.encode()) if block.signature is not None else None
        if not block.text:
            pending_signature = pending_signature or signature
            continue
        pieces = list(chunk_text(block.text, size))
        for index, piece in enumerate(pieces):
            part: dict[str, Any] = {"text": piece, "thought": True}
            if signature is not None and index == len(pieces) - 1:
                part["thoughtSignature"] = signature
            groups.append([part])
    if reply.code_execution_files:  # what the code wrote comes back inline, after the code
        code: list[dict[str, Any]] = [
            {"executableCode": {"language": "PYTHON", "code": "# writes the files"}},
            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": ""}},
        ]
        for file in reply.code_execution_files:
            inline = {"mimeType": file.mime_type, "data": _b64(file.data)}
            code.append({"inlineData": {**inline, "displayName": file.filename}})
        groups.append(code)
    text_groups = [[{"text": piece}] for piece in chunk_text(reply.text, size)]
    calls: list[dict[str, Any]] = []
    for call in reply.tool_calls:
        function_call: dict[str, Any] = {"name": call.name, "args": dict(call.arguments)}
        if call.id != "":
            function_call["id"] = call.id or new_id("call_", 16)
        calls.append({"functionCall": function_call})
    if pending_signature is not None:
        if calls:
            calls[0]["thoughtSignature"] = pending_signature
        elif text_groups:
            text_groups[-1][-1]["thoughtSignature"] = pending_signature
        else:
            text_groups.append([{"text": "", "thoughtSignature": pending_signature}])
    groups.extend(text_groups)
    if calls:
        groups.append(calls)
    return groups


def _chunk(parts: list[dict[str, Any]], model: str, response_id: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
        "modelVersion": model,
        "responseId": response_id,
    }


def reply_chunks(reply: Reply, model: str) -> list[dict[str, Any]]:
    """The streamed chunks of ``reply`` (the last one finishes and carries usage)."""
    served_model = reply.model or model
    response_id = new_id("", 22)
    usage = _usage(reply)
    chunks = [_chunk(group, served_model, response_id) for group in _part_groups(reply)]
    if not chunks:
        chunks.append(_chunk([], served_model, response_id))
    for chunk in chunks:
        chunk["usageMetadata"] = {"promptTokenCount": usage["promptTokenCount"]}
    chunks[-1]["usageMetadata"] = usage
    chunks[-1]["candidates"][0]["finishReason"] = _finish_reason(reply)
    return chunks


def _merged_response(reply: Reply, model: str) -> dict[str, Any]:
    """A non-streaming response: the chunks' parts with unsigned text runs joined."""
    chunks = reply_chunks(reply, model)
    parts: list[dict[str, Any]] = []
    for chunk in chunks:
        for part in chunk["candidates"][0]["content"]["parts"]:
            last = parts[-1] if parts else None
            if (
                last is not None
                and set(last) <= {"text", "thought"}
                and set(part) <= {"text", "thought", "thoughtSignature"}
                and last.get("thought") == part.get("thought")
            ):
                last["text"] += part["text"]
                if "thoughtSignature" in part:
                    last["thoughtSignature"] = part["thoughtSignature"]
            else:
                parts.append(dict(part))
    response = chunks[-1]
    response["candidates"][0]["content"]["parts"] = parts
    return response


def _headers(reply: Reply | None) -> dict[str, str]:
    headers = {"x-request-id": new_id("req_")}
    if reply is not None and reply.served_tier:
        headers[SERVED_TIER_HEADER] = reply.served_tier
    return headers


async def _reply_events(reply: Reply, model: str, sse: bool) -> AsyncIterator[bytes]:
    chunks = reply_chunks(reply, model)
    if not sse:
        yield b"["
    for index, chunk in enumerate(chunks):
        if index and reply.delay_between_chunks > 0:
            await anyio.sleep(reply.delay_between_chunks)
        if sse:
            yield sse_event(None, chunk)
        else:
            yield (b"," if index else b"") + json.dumps(chunk).encode()
    if not sse:
        yield b"]"


async def _fault_events(fault: Fault, model: str) -> AsyncIterator[bytes]:
    response_id = new_id("", 22)
    parts = [{"text": piece} for piece in chunk_text(fault.partial_text, 8)]
    first = _chunk(parts, model, response_id)
    first["usageMetadata"] = {"promptTokenCount": fault.input_tokens}
    yield sse_event(None, first)
    if fault.kind in MID_STREAM_TAILS:
        async for tail in fault_tail(fault, b"\r\n"):
            yield tail
        return
    yield sse_event(None, error_body(fault.status, fault.message, fault.error_type))


def _stream_response(body: AsyncIterator[bytes], reply: Reply | None, sse: bool) -> Response:
    media = "text/event-stream" if sse else "application/json"
    return StreamingResponse(body, media_type=media, headers=_headers(reply))


def _calls(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for p in field(content, "parts", []) or [] if (c := field(p, "function_call"))]


def _responses(content: dict[str, Any]) -> list[dict[str, Any]]:
    parts = field(content, "parts", []) or []
    return [r for p in parts if (r := field(p, "function_response"))]


def validate_request(body: dict[str, Any]) -> str | None:
    """Why the real API would refuse ``body`` with a 400 (None when it would not)."""
    contents = field(body, "contents")
    if not isinstance(contents, list) or not contents:
        return "* GenerateContentRequest.contents: contents is not specified"
    for index, content in enumerate(contents):
        role = field(content, "role")
        if role not in ("user", "model"):
            return f"* GenerateContentRequest.contents[{index}].role: must be user or model"
        responses = _responses(content)
        previous = contents[index - 1] if index > 0 else {}
        calls = _calls(previous) if field(previous, "role") == "model" else []
        if responses or calls:
            if len(calls) != len(responses):
                return (
                    "Please ensure that the number of function response parts is equal to the "
                    "number of function call parts of the function call turn."
                )
            ids = {c.get("id") for c in calls if c.get("id")}
            names = [c.get("name") for c in calls]
            for response in responses:
                rid = response.get("id")
                if (rid and rid not in ids) or (not rid and response.get("name") not in names):
                    return f"function response {rid or response.get('name')!r} answers no call"
    if field(contents[-1], "role") == "model":
        return "Requests ending with a model turn are not supported"
    return None


def _model(call: EmulatorCall) -> str:
    return str(call.path_params.get("model") or "gemini-emulated")


async def _handle(call: EmulatorCall, streaming: bool) -> Response:
    problem = validate_request(call.body)
    if problem is not None:
        return JSONResponse(error_body(400, problem), 400)
    step = call.next_step()
    model = _model(call)
    sse = call.request.query_params.get("alt") == "sse"
    if step is None:
        return _error_response(500, EXHAUSTED_MESSAGE)
    if isinstance(step, Fault):
        if step.kind == "status" or not streaming:
            return _error_response(step.status, step.message, step)
        return _stream_response(_fault_events(step, model), None, True)
    if streaming:
        return _stream_response(_reply_events(step, model, sse), step, sse)
    return JSONResponse(_merged_response(step, model), headers=_headers(step))


async def handle_stream(call: EmulatorCall) -> Response:
    """POST /{version}/models/{model}:streamGenerateContent."""
    return await _handle(call, streaming=True)


async def handle_generate(call: EmulatorCall) -> Response:
    """POST /{version}/models/{model}:generateContent."""
    return await _handle(call, streaming=False)


async def handle_count_tokens(call: EmulatorCall) -> Response:
    """POST /{version}/models/{model}:countTokens (consumes no script step)."""
    text = json.dumps([field(call.body, "contents"), field(call.body, "system_instruction")])
    return JSONResponse({"totalTokens": max(1, len(text) // 4)})


GOOGLE_ROUTES: dict[str, DialectRoute] = {
    f"/{version}/models/{{model}}:{method}": DialectRoute(DIALECT, handler)
    for version in ("v1", "v1beta")
    for method, handler in (
        ("streamGenerateContent", handle_stream),
        ("generateContent", handle_generate),
        ("countTokens", handle_count_tokens),
    )
}
"""The Gemini routes (listed in `DIALECT_ROUTES`)."""

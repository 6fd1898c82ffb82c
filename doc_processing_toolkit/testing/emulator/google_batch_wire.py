"""Gemini batch mode (inlined requests) in the emulator, and the status-check path Gemini
shares with the OpenAI Batch API.

Routes: ``POST /{version}/models/{model}:batchGenerateContent`` (``{"batch":
{"inputConfig": {"requests": {"requests": [{"request", "metadata"}]}}}}``), and
``/{version}/batches/{id}``: a ``GET`` is a status check (see
`BatchStore` for the scripted ``BATCH_STATE_RUNNING`` ->
``BATCH_STATE_SUCCEEDED``), a ``POST`` to ``{id}:cancel`` cancels. A request without
``x-goog-api-key`` on that path is the OpenAI SDK's (``GET /v1/batches/{id}``) and goes to
`openai_batch_wire`.

Each request is answered like ``generateContent``: a `Reply` is an inlined
response holding the merged (non-streamed) response; a `Fault` an inlined
``error`` (a google.rpc status: gRPC code, message, status name); a request the real API
would refuse an ``INVALID_ARGUMENT`` error (no script step consumed). Each inlined
response echoes its request's ``metadata``. The requests of a cancelled batch come back
as ``CANCELLED`` errors.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from doc_processing_toolkit.testing.emulator import openai_batch_wire, openai_wire
from doc_processing_toolkit.testing.emulator.batch_store import EmulatedBatch
from doc_processing_toolkit.testing.emulator.common import (
    EXHAUSTED_MESSAGE,
    DialectRoute,
    EmulatorCall,
    EmulatorState,
    epoch_iso_z,
    new_id,
)
from doc_processing_toolkit.testing.emulator.google_wire import (
    DIALECT,
    _merged_response,
    error_body,
    field,
    validate_request,
)
from doc_processing_toolkit.testing.script import Fault

__all__ = ["GOOGLE_BATCH_ROUTES", "batches_dialect"]

_GRPC = {
    400: (3, "INVALID_ARGUMENT"),
    401: (16, "UNAUTHENTICATED"),
    403: (7, "PERMISSION_DENIED"),
    404: (5, "NOT_FOUND"),
    409: (10, "ABORTED"),
    429: (8, "RESOURCE_EXHAUSTED"),
    500: (13, "INTERNAL"),
    503: (14, "UNAVAILABLE"),
    504: (4, "DEADLINE_EXCEEDED"),
}
"""HTTP status -> the google.rpc code and name an inlined error carries."""


def batches_dialect(request: Request) -> str:
    """``google`` for the genai SDK (it sends ``x-goog-api-key``), else ``openai``."""
    return DIALECT if "x-goog-api-key" in request.headers else openai_wire.DIALECT


def _error(status: int, message: str, metadata: Any) -> dict[str, Any]:
    code, name = _GRPC.get(
        status, (13, "INTERNAL") if status >= 500 else (9, "FAILED_PRECONDITION")
    )
    entry: dict[str, Any] = {"error": {"code": code, "message": message, "status": name}}
    if metadata is not None:
        entry["metadata"] = metadata
    return entry


def _answer(state: EmulatorState, model: str, entry: dict[str, Any]) -> dict[str, Any]:
    metadata = entry.get("metadata")
    request = entry.get("request")
    if not isinstance(request, dict):
        return _error(400, "* InlinedRequest.request: request is not specified", metadata)
    problem = validate_request(request)
    if problem is not None:
        return _error(400, problem, metadata)
    step = state.next_step(request)
    if step is None:
        return _error(500, EXHAUSTED_MESSAGE, metadata)
    if isinstance(step, Fault):
        return _error(step.status if step.kind == "status" else 500, step.message, metadata)
    answered: dict[str, Any] = {"response": _merged_response(step, model)}
    if metadata is not None:
        answered["metadata"] = metadata
    return answered


def _batch_json(batch: EmulatedBatch) -> dict[str, Any]:
    if batch.ended:
        state = "BATCH_STATE_CANCELLED" if batch.cancelled else "BATCH_STATE_SUCCEEDED"
    else:
        state = "BATCH_STATE_RUNNING"
    metadata: dict[str, Any] = {
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
        "model": batch.extra.get("model"),
        "displayName": batch.extra.get("display_name") or batch.id,
        "state": state,
        "createTime": epoch_iso_z(batch.created_at),
        "updateTime": epoch_iso_z(batch.ended_at or batch.created_at),
    }
    if batch.ended:
        metadata["endTime"] = epoch_iso_z(batch.ended_at)
        metadata["output"] = {
            "inlinedResponses": {"inlinedResponses": list(batch.results.values())}
        }
    return {"name": batch.id, "metadata": metadata, "done": batch.ended}


def _not_found(name: str) -> Response:
    return JSONResponse(error_body(404, f"Batch {name} not found", "NOT_FOUND"), 404)


async def handle_create(call: EmulatorCall) -> Response:
    """POST /{version}/models/{model}:batchGenerateContent."""
    model = f"models/{call.path_params.get('model')}"
    batch = field(call.body, "batch") or {}
    config = field(batch, "input_config") or {}
    entries = field(field(config, "requests") or {}, "requests")
    if not isinstance(entries, list) or not entries:
        return JSONResponse(error_body(400, "* inputConfig.requests: no requests"), 400)
    requests = [(str(index), entry) for index, entry in enumerate(entries)]
    stored = call.state.batches.create(DIALECT, f"batches/{new_id('', 20).lower()}", requests)
    stored.extra["model"] = model
    stored.extra["display_name"] = field(batch, "display_name")
    return JSONResponse(_batch_json(stored))


def _cancelled(metadata: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "error": {"code": 1, "message": "The batch was cancelled.", "status": "CANCELLED"}
    }
    if metadata is not None:
        entry["metadata"] = metadata
    return entry


async def handle_batch(call: EmulatorCall) -> Response:
    """``/{version}/batches/{id}``: Gemini's get and ``:cancel``, else the OpenAI get."""
    if batches_dialect(call.request) != DIALECT:
        return await openai_batch_wire.handle_retrieve(call)
    raw = str(call.path_params.get("batch_id"))
    cancel = call.request.method == "POST"
    name = f"batches/{raw.removesuffix(':cancel')}"
    state = call.state
    if cancel:
        if not raw.endswith(":cancel"):
            return JSONResponse(error_body(404, f"no method on {name}"), 404)
        if state.batches.cancel(name) is None:
            return _not_found(name)
        return JSONResponse({})
    stored = state.batches.get(name)
    if stored is None:
        return _not_found(name)
    model = str(stored.extra.get("model") or "models/gemini-emulated").removeprefix("models/")
    entries = dict(stored.requests)
    batch = state.batches.poll(
        name,
        lambda _custom_id, entry: _answer(state, model, entry),
        lambda custom_id: _cancelled(entries[custom_id].get("metadata")),
    )
    assert batch is not None
    return JSONResponse(_batch_json(batch))


GOOGLE_BATCH_ROUTES: dict[str, DialectRoute] = {
    "/{version}/models/{model}:batchGenerateContent": DialectRoute(DIALECT, handle_create),
    "/{version}/batches/{batch_id}": DialectRoute(
        DIALECT, handle_batch, ("GET", "POST"), batches_dialect
    ),
}
"""The Gemini batch routes (listed in `DIALECT_ROUTES`)."""

"""Anthropic Message Batches in the emulator.

Routes: ``POST /v1/messages/batches`` (``{"requests": [{"custom_id", "params"}]}``),
``GET /v1/messages/batches/{id}`` (a status check: see
`BatchStore` for the scripted ``in_progress`` -> ``ended``),
``POST /v1/messages/batches/{id}/cancel`` and ``GET /v1/messages/batches/{id}/results``
(JSONL, one ``{"custom_id", "result"}`` line per request).

Each request is answered like ``POST /v1/messages`` without streaming: a `Reply`
is a ``succeeded`` result whose message is `message_json` (usage
``service_tier: "batch"``); a `Fault` an ``errored`` result with the error type
of its status (``overloaded_error`` for a ``stream_error``); a request the real API
would refuse an ``errored`` ``invalid_request_error`` (no script step consumed). The
requests of a cancelled batch come back ``canceled``.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse, Response

from doc_processing_toolkit.testing.emulator.anthropic_wire import (
    DIALECT,
    code_execution_blocks,
    error_body,
    message_json,
    requested_container,
    validate_request,
)
from doc_processing_toolkit.testing.emulator.batch_store import EmulatedBatch
from doc_processing_toolkit.testing.emulator.common import (
    EXHAUSTED_MESSAGE,
    DialectRoute,
    EmulatorCall,
    EmulatorState,
    epoch_iso_z,
    new_id,
)
from doc_processing_toolkit.testing.script import Fault

__all__ = ["ANTHROPIC_BATCH_ROUTES"]

_STATUS_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _errored(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "errored", "error": error_body(error_type, message, new_id("req_"))}


def _answer(state: EmulatorState, params: dict[str, Any]) -> dict[str, Any]:
    problem = validate_request(params)
    if problem is not None:
        return _errored("invalid_request_error", problem)
    step = state.next_step(params)
    if step is None:
        return _errored("api_error", EXHAUSTED_MESSAGE)
    if isinstance(step, Fault):
        if step.kind == "status":
            default = _STATUS_TYPES.get(step.status, "api_error")
            return _errored(step.error_type or default, step.message)
        return _errored(step.error_type or "overloaded_error", step.message)
    model = str(params.get("model") or "claude-emulated")
    container = step.container_id or requested_container(params)
    if container is None and step.code_execution_files:
        container = new_id("container_")
    code_blocks = (
        code_execution_blocks(step, state, container)
        if container is not None and step.code_execution_files
        else []
    )
    message = message_json(step, model, code_blocks, container)
    message["usage"]["service_tier"] = "batch"
    return {"type": "succeeded", "message": message}


def _batch_json(batch: EmulatedBatch, base_url: str) -> dict[str, Any]:
    counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
    if batch.ended:
        for result in batch.results.values():
            counts[str(result["type"])] += 1
    else:
        counts["processing"] = len(batch.requests)
    status = "ended" if batch.ended else ("canceling" if batch.cancelled else "in_progress")
    return {
        "id": batch.id,
        "type": "message_batch",
        "processing_status": status,
        "request_counts": counts,
        "created_at": epoch_iso_z(batch.created_at),
        "expires_at": epoch_iso_z(batch.created_at + 86_400),
        "ended_at": epoch_iso_z(batch.ended_at),
        "cancel_initiated_at": epoch_iso_z(batch.created_at) if batch.cancelled else None,
        "archived_at": None,
        "results_url": (
            f"{base_url}/v1/messages/batches/{batch.id}/results" if batch.ended else None
        ),
    }


def _not_found(batch_id: str) -> Response:
    body = error_body("not_found_error", f"batch {batch_id} not found", new_id("req_"))
    return JSONResponse(body, 404)


def _base_url(call: EmulatorCall) -> str:
    return str(call.request.base_url).rstrip("/")


async def handle_create(call: EmulatorCall) -> Response:
    """POST /v1/messages/batches."""
    entries = call.body.get("requests")
    if not isinstance(entries, list) or not entries:
        body = error_body("invalid_request_error", "requests: at least one", new_id("req_"))
        return JSONResponse(body, 400)
    requests: list[tuple[str, dict[str, Any]]] = []
    for index, entry in enumerate(entries):
        custom_id = entry.get("custom_id") if isinstance(entry, dict) else None
        params = entry.get("params") if isinstance(entry, dict) else None
        if not isinstance(custom_id, str) or not isinstance(params, dict):
            message = f"requests.{index}: custom_id and params are required"
            return JSONResponse(error_body("invalid_request_error", message, new_id("req_")), 400)
        if any(custom_id == seen for seen, _ in requests):
            message = f"requests.{index}: duplicate custom_id {custom_id!r}"
            return JSONResponse(error_body("invalid_request_error", message, new_id("req_")), 400)
        requests.append((custom_id, params))
    batch = call.state.batches.create(DIALECT, new_id("msgbatch_"), requests)
    return JSONResponse(_batch_json(batch, _base_url(call)))


async def handle_retrieve(call: EmulatorCall) -> Response:
    """GET /v1/messages/batches/{batch_id} (one status check)."""
    batch_id = str(call.path_params.get("batch_id"))
    state = call.state
    batch = state.batches.poll(
        batch_id,
        lambda _custom_id, params: _answer(state, params),
        lambda _custom_id: {"type": "canceled"},
    )
    if batch is None:
        return _not_found(batch_id)
    return JSONResponse(_batch_json(batch, _base_url(call)))


async def handle_cancel(call: EmulatorCall) -> Response:
    """POST /v1/messages/batches/{batch_id}/cancel."""
    batch_id = str(call.path_params.get("batch_id"))
    batch = call.state.batches.cancel(batch_id)
    if batch is None:
        return _not_found(batch_id)
    return JSONResponse(_batch_json(batch, _base_url(call)))


async def handle_results(call: EmulatorCall) -> Response:
    """GET /v1/messages/batches/{batch_id}/results (JSONL)."""
    batch_id = str(call.path_params.get("batch_id"))
    batch = call.state.batches.get(batch_id)
    if batch is None:
        return _not_found(batch_id)
    if not batch.ended:
        message = f"batch {batch_id} has not ended yet"
        return JSONResponse(error_body("invalid_request_error", message, new_id("req_")), 400)
    lines = [
        json.dumps({"custom_id": custom_id, "result": result}, separators=(",", ":"))
        for custom_id, result in batch.results.items()
    ]
    return Response("\n".join(lines) + "\n", media_type="application/binary")


ANTHROPIC_BATCH_ROUTES: dict[str, DialectRoute] = {
    "/v1/messages/batches": DialectRoute(DIALECT, handle_create),
    "/v1/messages/batches/{batch_id}": DialectRoute(DIALECT, handle_retrieve, ("GET",)),
    "/v1/messages/batches/{batch_id}/cancel": DialectRoute(DIALECT, handle_cancel),
    "/v1/messages/batches/{batch_id}/results": DialectRoute(DIALECT, handle_results, ("GET",)),
}
"""The Message Batches routes (listed in `DIALECT_ROUTES`)."""

"""The OpenAI Batch API (endpoint ``/v1/responses``) in the emulator.

The input file is uploaded through the Files API (``POST /v1/files``, purpose ``batch``);
``POST /v1/batches`` reads its JSONL lines (``{"custom_id", "method", "url", "body"}``),
``GET /v1/batches/{id}`` is a status check (see `BatchStore` for the
scripted ``in_progress`` -> ``completed``), ``POST /v1/batches/{id}/cancel`` cancels.
When the batch ends its output file (200 lines) and error file (the others) are stored
in the Files API store, for ``GET /v1/files/{id}/content``.

Each line is answered like ``POST /v1/responses`` without streaming: a `Reply` is a
200 line whose body is `response_json`; a `Fault` a line with
its status (500 ``server_error`` for a mid-stream fault) and an OpenAI error body; a body
the real API would refuse its 400 / 404 (no script step consumed). The lines of a
cancelled batch come back with ``error.code = "batch_cancelled"``.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse, Response

from doc_processing_toolkit.testing.emulator.batch_store import EmulatedBatch
from doc_processing_toolkit.testing.emulator.common import (
    EXHAUSTED_MESSAGE,
    DialectRoute,
    EmulatorCall,
    EmulatorState,
    new_id,
)
from doc_processing_toolkit.testing.emulator.openai_wire import (
    _ERRORS,
    DIALECT,
    error_body,
    response_json,
    validate_request,
)
from doc_processing_toolkit.testing.script import Fault

__all__ = ["OPENAI_BATCH_ROUTES", "handle_cancel", "handle_create", "handle_retrieve"]


def _line(custom_id: str, status: int, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": new_id("batch_req_"),
        "custom_id": custom_id,
        "response": {"status_code": status, "request_id": new_id("req_"), "body": body},
        "error": None,
    }


def _failed(custom_id: str, status: int, message: str, error_type: str | None) -> dict[str, Any]:
    default = _ERRORS.get(
        status, ("server_error", None) if status >= 500 else ("invalid_request_error", None)
    )
    return _line(custom_id, status, error_body(message, error_type or default[0], default[1]))


def _answer(state: EmulatorState, custom_id: str, line: dict[str, Any]) -> dict[str, Any]:
    body = line.get("body")
    if not isinstance(body, dict) or line.get("url") != "/v1/responses":
        return _failed(custom_id, 400, "each line needs url /v1/responses and a body", None)
    problem = validate_request(body)
    if problem is not None:
        return _failed(custom_id, problem[0], problem[1], None)
    step = state.next_step(body)
    if step is None:
        return _failed(custom_id, 500, EXHAUSTED_MESSAGE, None)
    if isinstance(step, Fault):
        status = step.status if step.kind == "status" else 500
        return _failed(custom_id, status, step.message, step.error_type)
    return _line(custom_id, 200, response_json(step, body))


def _cancelled(custom_id: str) -> dict[str, Any]:
    return {
        "id": new_id("batch_req_"),
        "custom_id": custom_id,
        "response": None,
        "error": {"code": "batch_cancelled", "message": "This request was cancelled."},
    }


def _store_files(state: EmulatorState, batch: EmulatedBatch) -> None:
    """Write the output and error files of an ended batch (once)."""
    if "output_file_id" in batch.extra:
        return
    ok: list[str] = []
    failed: list[str] = []
    for line in batch.results.values():
        response = line.get("response")
        good = isinstance(response, dict) and response.get("status_code") == 200
        (ok if good else failed).append(json.dumps(line, separators=(",", ":")))
    for key, lines in (("output_file_id", ok), ("error_file_id", failed)):
        if not lines:
            batch.extra[key] = None
            continue
        stored = state.files.add(
            "file-",
            "application/jsonl",
            ("\n".join(lines) + "\n").encode(),
            f"{batch.id}_{key.split('_')[0]}.jsonl",
            origin="batch",
            purpose="batch_output",
        )
        batch.extra[key] = stored.name


def _batch_json(batch: EmulatedBatch) -> dict[str, Any]:
    created = int(batch.created_at)
    ended = int(batch.ended_at) if batch.ended_at is not None else None
    if batch.ended:
        status = "cancelled" if batch.cancelled else "completed"
    else:
        status = "cancelling" if batch.cancelled else "in_progress"
    failed = sum(
        1
        for line in batch.results.values()
        if not (isinstance(line.get("response"), dict) and line["response"]["status_code"] == 200)
    )
    return {
        "id": batch.id,
        "object": "batch",
        "endpoint": "/v1/responses",
        "errors": None,
        "input_file_id": batch.extra.get("input_file_id"),
        "completion_window": "24h",
        "status": status,
        "output_file_id": batch.extra.get("output_file_id"),
        "error_file_id": batch.extra.get("error_file_id"),
        "created_at": created,
        "in_progress_at": created,
        "expires_at": created + 86_400,
        "completed_at": ended if status == "completed" else None,
        "cancelling_at": created if batch.cancelled else None,
        "cancelled_at": ended if status == "cancelled" else None,
        "request_counts": {
            "total": len(batch.requests),
            "completed": len(batch.results) - failed if batch.ended else 0,
            "failed": failed if batch.ended else 0,
        },
        "metadata": None,
    }


def _error(status: int, message: str) -> Response:
    return JSONResponse(error_body(message, "invalid_request_error"), status)


async def handle_create(call: EmulatorCall) -> Response:
    """POST /v1/batches."""
    file_id = call.body.get("input_file_id")
    if call.body.get("endpoint") != "/v1/responses" or call.body.get("completion_window") != "24h":
        return _error(400, "endpoint must be /v1/responses and completion_window 24h")
    stored = call.state.files.get(str(file_id))
    if stored is None or stored.deleted:
        return _error(404, f"No such File object: {file_id}")
    if stored.purpose != "batch":
        return _error(400, f"File {file_id} was not uploaded with purpose 'batch'")
    requests: list[tuple[str, dict[str, Any]]] = []
    for number, raw in enumerate(stored.data.decode().splitlines(), start=1):
        if not raw.strip():
            continue
        line = json.loads(raw)
        custom_id = line.get("custom_id")
        if not isinstance(custom_id, str) or any(custom_id == seen for seen, _ in requests):
            return _error(400, f"line {number}: custom_id missing or duplicated")
        requests.append((custom_id, line))
    batch = call.state.batches.create(DIALECT, new_id("batch_", 32), requests)
    batch.extra["input_file_id"] = stored.name
    return JSONResponse(_batch_json(batch))


async def handle_retrieve(call: EmulatorCall) -> Response:
    """GET /v1/batches/{batch_id} (one status check)."""
    batch_id = str(call.path_params.get("batch_id"))
    state = call.state
    batch = state.batches.poll(
        batch_id, lambda custom_id, line: _answer(state, custom_id, line), _cancelled
    )
    if batch is None:
        return _error(404, f"No such Batch object: {batch_id}")
    if batch.ended:
        _store_files(state, batch)
    return JSONResponse(_batch_json(batch))


async def handle_cancel(call: EmulatorCall) -> Response:
    """POST /v1/batches/{batch_id}/cancel."""
    batch_id = str(call.path_params.get("batch_id"))
    batch = call.state.batches.cancel(batch_id)
    if batch is None:
        return _error(404, f"No such Batch object: {batch_id}")
    return JSONResponse(_batch_json(batch))


OPENAI_BATCH_ROUTES: dict[str, DialectRoute] = {
    "/v1/batches": DialectRoute(DIALECT, handle_create),
    "/v1/batches/{batch_id}/cancel": DialectRoute(DIALECT, handle_cancel),
}
"""The Batch API routes of its own (``GET /v1/batches/{id}`` shares its path with Gemini's
``GET /{version}/batches/{name}``: see `google_batch_wire`)."""

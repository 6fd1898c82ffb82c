"""OpenAIBatchClient: the BatchClient for the OpenAI Batch API on ``/v1/responses``.

``run_batch`` maps every request exactly as `OpenAIModelClient` would
(its ``extra_body`` merged into the body; ``store=False``, so reasoning comes back
encrypted), writes one JSONL line per request (``{"custom_id", "method": "POST",
"url": "/v1/responses", "body"}``), uploads it with ``files.create(purpose="batch")``,
creates the batch with ``batches.create(endpoint="/v1/responses",
completion_window="24h")``, polls ``batches.retrieve`` until the batch is
``completed`` / ``expired`` / ``cancelled`` (see
`BatchPolling`), then reads the
output and error files with ``files.content``. A 200 line is parsed by
`parse_response`; another status becomes the error class of that status;
a line the batch never ran (``batch_expired``, ``batch_cancelled``) a retryable
`ProviderTimeoutError`. A batch that
``failed`` validation raises `BadRequestError`
with the reasons. Per-request headers cannot ride in a batch: they are not sent (one
WARNING).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers._batch import (
    SdkBatchClient,
    batch_response,
    check_ids,
    missing_result,
    not_run,
    wait_for_end,
)
from doc_processing_toolkit.adapters.providers._wire import WireRequest
from doc_processing_toolkit.adapters.providers.openai.client import (
    OpenAIModelClient,
    import_openai,
)
from doc_processing_toolkit.adapters.providers.openai.dialect import PROVIDER
from doc_processing_toolkit.adapters.providers.openai.response import parse_response
from doc_processing_toolkit.domain.errors import BadRequestError, ProviderError, status_error_class
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.ports.batch import BatchOutcome

__all__ = ["ENDPOINT", "OpenAIBatchClient"]

ENDPOINT = "/v1/responses"
"""The endpoint every request of a batch goes to."""
_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
_NOT_RUN = {"batch_expired": "expired", "batch_cancelled": "cancelled"}


class OpenAIBatchClient(SdkBatchClient[OpenAIModelClient]):
    """Runs Responses requests as one Batch API batch; see the module docstring."""

    provider = PROVIDER

    client_class = OpenAIModelClient

    def _jsonl(self, requests: Mapping[str, ModelRequest]) -> bytes:
        lines: list[str] = []
        dropped: set[str] = set()
        for custom_id, request in requests.items():
            wire = self._client.wire_request(request)
            dropped.update(wire.extra_headers)
            body = {**wire.params, **wire.extra_body}
            body.pop("stream", None)
            line = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}
            lines.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
        if dropped:
            self._client.log.warning(
                "openai: per-request headers cannot ride in a batch; not sent",
                headers=sorted(dropped),
            )
        return ("\n".join(lines) + "\n").encode()

    async def run_batch(self, requests: Mapping[str, ModelRequest]) -> Mapping[str, BatchOutcome]:
        """Run ``requests`` (custom id -> request) as one batch; every id's outcome."""
        check_ids(requests, PROVIDER)
        sdk = import_openai()
        client = self._client.sdk_client(sdk)
        options = self._client.call_options(WireRequest(params={}))
        upload = await self._call(
            sdk,
            client.files.create(
                file=("batch_requests.jsonl", self._jsonl(requests), "application/jsonl"),
                purpose="batch",
                **options,
            ),
        )
        batch = await self._call(
            sdk,
            client.batches.create(
                input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h", **options
            ),
        )
        batch_id = str(batch.id)
        self._client.log.info("openai: batch created", batch_id=batch_id, requests=len(requests))

        async def retrieve() -> Any:
            return await self._call(sdk, client.batches.retrieve(batch_id, **options))

        async def cancel() -> Any:
            return await self._call(sdk, client.batches.cancel(batch_id, **options))

        end = await wait_for_end(
            retrieve,
            lambda b: b.status in _ENDED,
            cancel,
            self.polling,
            provider=PROVIDER,
            batch_id=batch_id,
        )
        if end.batch.status == "failed":
            reasons = [e.message or e.code or "" for e in (end.batch.errors.data or [])]
            raise BadRequestError(
                self._client.redact(f"openai: batch {batch_id} failed: {'; '.join(reasons)}"),
                provider=PROVIDER,
                before_stream=True,
                error_type="batch_failed",
            )
        outcomes: dict[str, BatchOutcome] = {}
        for file_id in (end.batch.output_file_id, end.batch.error_file_id):
            if not file_id:
                continue
            content = await self._call(sdk, client.files.content(file_id, **options))
            for raw in content.text.splitlines():
                if not raw.strip():
                    continue
                line = json.loads(raw)
                custom_id = str(line.get("custom_id"))
                request = requests.get(custom_id)
                if request is not None:
                    outcomes[custom_id] = self._outcome(custom_id, request, line, batch_id)
        return {
            custom_id: outcomes.get(custom_id) or missing_result(PROVIDER, custom_id, batch_id)
            for custom_id in requests
        }

    def _outcome(
        self, custom_id: str, request: ModelRequest, line: Mapping[str, Any], batch_id: str
    ) -> BatchOutcome:
        response = line.get("response")
        error = line.get("error")
        if isinstance(response, Mapping):
            status = int(response.get("status_code") or 0)
            body = response.get("body")
            body = body if isinstance(body, Mapping) else {}
            request_id = response.get("request_id")
            if status == 200:
                parsed = parse_response(
                    body,
                    requested_model=request.model,
                    request_id=request_id if isinstance(request_id, str) else None,
                    structured_output=request.output_schema is not None,
                )
                return batch_response(parsed, batch_id)
            raw_detail = body.get("error")
            detail: Mapping[str, Any] = raw_detail if isinstance(raw_detail, Mapping) else {}
            kind = detail.get("type") or detail.get("code") or "error"
            return status_error_class(status)(
                self._client.redact(
                    f"openai batch request {custom_id!r} HTTP {status} {kind}: "
                    f"{detail.get('message') or 'failed'}"
                ),
                provider=PROVIDER,
                status_code=status,
                request_id=request_id if isinstance(request_id, str) else None,
                before_stream=True,
                error_type=str(kind),
            )
        error = error if isinstance(error, Mapping) else {}
        code = str(error.get("code") or "error")
        if code in _NOT_RUN:
            return not_run(PROVIDER, custom_id, _NOT_RUN[code], batch_id)
        return ProviderError(
            self._client.redact(
                f"openai batch request {custom_id!r} {code}: {error.get('message') or 'failed'}"
            ),
            provider=PROVIDER,
            before_stream=True,
            error_type=code,
        )

    async def _call(self, sdk: Any, call: Awaitable[Any]) -> Any:
        """Await one Batch / Files API call; SDK errors become ours."""
        return await self._client.open_call(sdk, call, self._client.status_error)

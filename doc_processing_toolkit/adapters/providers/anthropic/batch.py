"""AnthropicBatchClient: the BatchClient for Anthropic Message Batches (``anthropic`` SDK).

``run_batch`` maps every request exactly as `AnthropicModelClient` would
(its ``extra_body`` merged into the request's ``params``, the betas of all requests in
one ``anthropic-beta`` header), creates one batch with ``messages.batches.create``, polls
``messages.batches.retrieve`` until ``processing_status`` is ``ended`` (see
`BatchPolling`), then reads
``messages.batches.results`` (JSONL keyed by ``custom_id``). A succeeded result is parsed
by `parse_message`; an errored one becomes the error class its type
names; a canceled or expired one a retryable
`ProviderTimeoutError`. A batch that runs
out of time, or whose task is cancelled, is cancelled with ``messages.batches.cancel``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
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
from doc_processing_toolkit.adapters.providers.anthropic.client import (
    AnthropicModelClient,
    import_anthropic,
)
from doc_processing_toolkit.adapters.providers.anthropic.dialect import PROVIDER
from doc_processing_toolkit.adapters.providers.anthropic.response import parse_message
from doc_processing_toolkit.domain.errors import ProviderError, status_error_class
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.ports.batch import BatchOutcome

__all__ = ["AnthropicBatchClient"]

_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
"""Anthropic error types -> the HTTP status the interactive API answers them with."""


class AnthropicBatchClient(SdkBatchClient[AnthropicModelClient]):
    """Runs Messages requests as one Message Batch; see the module docstring."""

    provider = PROVIDER

    client_class = AnthropicModelClient

    async def run_batch(self, requests: Mapping[str, ModelRequest]) -> Mapping[str, BatchOutcome]:
        """Run ``requests`` (custom id -> request) as one batch; every id's outcome."""
        check_ids(requests, PROVIDER)
        sdk = import_anthropic()
        client = self._client.sdk_client(sdk)
        entries: list[dict[str, Any]] = []
        betas: list[str] = []
        headers: dict[str, str] = {}
        for custom_id, request in requests.items():
            wire = self._client.wire_request(request)
            entries.append({"custom_id": custom_id, "params": {**wire.params, **wire.extra_body}})
            for name, value in wire.extra_headers.items():
                if name.lower() == "anthropic-beta":
                    betas.extend(b.strip() for b in value.split(",") if b.strip())
                else:
                    headers[name] = value
        if betas:
            headers["anthropic-beta"] = ",".join(dict.fromkeys(betas))
        options = self._client.call_options(WireRequest(params={}, extra_headers=headers))
        batch = await self._call(sdk, client.messages.batches.create(requests=entries, **options))
        batch_id = str(batch.id)
        self._client.log.info(
            "anthropic: message batch created", batch_id=batch_id, requests=len(entries)
        )

        async def retrieve() -> Any:
            return await self._call(sdk, client.messages.batches.retrieve(batch_id, **options))

        async def cancel() -> Any:
            return await self._call(sdk, client.messages.batches.cancel(batch_id, **options))

        await wait_for_end(
            retrieve,
            lambda b: b.processing_status == "ended",
            cancel,
            self.polling,
            provider=PROVIDER,
            batch_id=batch_id,
        )
        outcomes: dict[str, BatchOutcome] = {}
        results = await self._call(sdk, client.messages.batches.results(batch_id, **options))
        async for line in results:
            data = line.to_dict(mode="json")
            custom_id = str(data.get("custom_id"))
            wanted = requests.get(custom_id)
            if wanted is not None:
                outcomes[custom_id] = self._outcome(custom_id, wanted, data["result"], batch_id)
        return {
            custom_id: outcomes.get(custom_id) or missing_result(PROVIDER, custom_id, batch_id)
            for custom_id in requests
        }

    def _outcome(
        self, custom_id: str, request: ModelRequest, result: Mapping[str, Any], batch_id: str
    ) -> BatchOutcome:
        kind = result.get("type")
        if kind == "succeeded":
            response = parse_message(
                result["message"],
                requested_model=request.model,
                structured_output=request.output_schema is not None,
            )
            return batch_response(response, batch_id)
        if kind == "errored":
            envelope = result.get("error") or {}
            error = envelope.get("error") or {}
            error_type = str(error.get("type") or "api_error")
            status = _ERROR_STATUS.get(error_type, 500)
            return status_error_class(status)(
                self._client.redact(
                    f"anthropic batch request {custom_id!r} {error_type}: "
                    f"{error.get('message') or 'errored'}"
                ),
                provider=PROVIDER,
                status_code=status,
                request_id=envelope.get("request_id"),
                before_stream=True,
                error_type=error_type,
            )
        return not_run(PROVIDER, custom_id, str(kind or "unknown"), batch_id)

    async def _call(self, sdk: Any, call: Awaitable[Any]) -> Any:
        """Await one batch API call; SDK errors become ours (as the interactive client's)."""
        status_error: Callable[[Any], ProviderError] = lambda exc: self._client.status_error(  # noqa: E731
            exc, before_stream=True
        )
        return await self._client.open_call(sdk, call, status_error)

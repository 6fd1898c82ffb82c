"""GoogleBatchClient: the BatchClient for Gemini API batch mode (``google-genai`` SDK).

``run_batch`` maps every request exactly as `GoogleModelClient` would
(large inline media uploaded through the Files API first), sends them as inlined
requests (``InlinedRequest(model, contents, config, metadata={"custom_id": id})``) of one
``aio.batches.create`` job, polls ``aio.batches.get`` until the job is done (see
`BatchPolling`), then reads
``dest.inlined_responses``: a response is parsed by `parse_response`,
an inlined ``error`` becomes the error class of its status, and the requests of a
cancelled or expired job a retryable
`ProviderTimeoutError`. Responses are matched
by the ``metadata`` they echo, else by position (the API keeps the request order). A
batch job names one model, so every request of a batch must use the same model.
Per-request ``extra_body`` / headers cannot ride in an inlined request: not sent (one
WARNING).
"""

from __future__ import annotations

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
from doc_processing_toolkit.adapters.providers.google.client import GoogleModelClient, import_genai
from doc_processing_toolkit.adapters.providers.google.dialect import PROVIDER
from doc_processing_toolkit.adapters.providers.google.files import upload_large_media
from doc_processing_toolkit.adapters.providers.google.raw_stream import DUMP_EXCLUDE
from doc_processing_toolkit.adapters.providers.google.response import parse_response
from doc_processing_toolkit.domain.errors import (
    BadRequestError,
    ConfigurationError,
    ProviderConnectionError,
    status_error_class,
)
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.ports.batch import BatchOutcome

__all__ = ["GoogleBatchClient"]

_NOT_RUN = {"JOB_STATE_CANCELLED": "cancelled", "JOB_STATE_EXPIRED": "expired"}
_HTTP = {1: 499, 3: 400, 4: 504, 5: 404, 7: 403, 8: 429, 10: 409, 13: 500, 14: 503, 16: 401}
"""google.rpc codes -> HTTP statuses (an inlined error carries the rpc code)."""


class GoogleBatchClient(SdkBatchClient[GoogleModelClient]):
    """Runs generateContent requests as one Gemini batch job; see the module docstring."""

    provider = PROVIDER

    client_class = GoogleModelClient

    async def _inlined(self, client: Any, types: Any, requests: Mapping[str, ModelRequest]) -> Any:
        inlined: list[Any] = []
        models: set[str] = set()
        dropped = False
        endpoint = self._client.endpoint()[0] or self._client.DEFAULT_URL
        for custom_id, request in requests.items():
            request, _uploads = await upload_large_media(
                client, request, endpoint, self._client.registry_row(request.model)
            )
            wire = self._client.wire_request(request)
            dropped = dropped or bool(wire.extra_body or wire.extra_headers)
            models.add(wire.model)
            inlined.append(
                types.InlinedRequest(
                    model=wire.model,
                    contents=wire.contents,
                    config=wire.config,
                    metadata={"custom_id": custom_id},
                )
            )
        if len(models) > 1:
            raise ConfigurationError(
                f"google: a batch job runs one model; this batch names {sorted(models)}"
            )
        if dropped:
            self._client.log.warning(
                "google: per-request extra_body / headers cannot ride in a batch; not sent"
            )
        return models.pop(), inlined

    async def run_batch(self, requests: Mapping[str, ModelRequest]) -> Mapping[str, BatchOutcome]:
        """Run ``requests`` (custom id -> request) as one batch; every id's outcome."""
        check_ids(requests, PROVIDER)
        genai, types, errors = import_genai()
        client = self._client.sdk_client(genai, types)
        model, inlined = await self._call(errors, self._inlined(client, types, requests))
        job = await self._call(
            errors,
            client.aio.batches.create(
                model=model, src=inlined, config={"display_name": "doc-processing-toolkit"}
            ),
        )
        name = str(job.name)
        self._client.log.info("google: batch job created", batch_id=name, requests=len(inlined))

        async def retrieve() -> Any:
            return await self._call(errors, client.aio.batches.get(name=name))

        async def cancel() -> Any:
            return await self._call(errors, client.aio.batches.cancel(name=name))

        end = await wait_for_end(
            retrieve, lambda j: bool(j.done), cancel, self.polling, provider=PROVIDER, batch_id=name
        )
        state = getattr(end.batch.state, "name", str(end.batch.state))
        if state == "JOB_STATE_FAILED":
            error = end.batch.error
            raise BadRequestError(
                self._client.redact(
                    f"google: batch job {name} failed: {getattr(error, 'message', None) or state}"
                ),
                provider=PROVIDER,
                before_stream=True,
                error_type="batch_failed",
            )
        dest = end.batch.dest
        responses = list(getattr(dest, "inlined_responses", None) or [])
        ids = list(requests)
        outcomes: dict[str, BatchOutcome] = {}
        for position, answered in enumerate(responses):
            custom_id = (answered.metadata or {}).get("custom_id")
            if custom_id is None and position < len(ids):
                custom_id = ids[position]
            request = requests.get(str(custom_id))
            if request is not None:
                outcomes[str(custom_id)] = self._outcome(str(custom_id), request, answered, name)
        why = _NOT_RUN.get(state)
        return {
            custom_id: outcomes.get(custom_id)
            or (not_run(PROVIDER, custom_id, why, name) if why else None)
            or missing_result(PROVIDER, custom_id, name)
            for custom_id in requests
        }

    def _outcome(
        self, custom_id: str, request: ModelRequest, answered: Any, batch_id: str
    ) -> BatchOutcome:
        if answered.response is not None:
            data = answered.response.model_dump(
                mode="json", exclude_none=True, exclude=set(DUMP_EXCLUDE)
            )
            response = parse_response(
                data,
                requested_model=request.model,
                structured_output=request.output_schema is not None,
                requested_tier=request.service_tier,
            )
            return batch_response(response, batch_id)
        error = answered.error
        code = getattr(error, "code", None)
        if code == 1:
            return not_run(PROVIDER, custom_id, "cancelled", batch_id)
        status = 500
        if isinstance(code, int):
            status = code if code >= 100 else _HTTP.get(code, 500)
        return status_error_class(status)(
            self._client.redact(
                f"google batch request {custom_id!r} {status}: "
                f"{getattr(error, 'message', None) or 'failed'}"
            ),
            provider=PROVIDER,
            status_code=status,
            before_stream=True,
            error_type=str(code),
        )

    async def _call(self, errors: Any, call: Awaitable[Any]) -> Any:
        """Await one batch API call; SDK errors become ours (as the interactive client's)."""
        import httpx2

        try:
            return await call
        except errors.APIError as exc:
            raise self._client.status_error(exc, before_stream=True) from exc
        except httpx2.HTTPError as exc:
            raise ProviderConnectionError(
                self._client.redact(f"google: batch call failed: {type(exc).__name__}: {exc}"),
                provider=PROVIDER,
                before_stream=True,
            ) from exc

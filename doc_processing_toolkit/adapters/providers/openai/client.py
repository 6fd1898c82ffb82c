"""OpenAIModelClient: the ModelClient for the OpenAI Responses API, through the ``openai`` SDK.

This module owns the SDK client and its lifecycle; `mapping` maps the request,
`stream` turns events into deltas. The SDK is imported inside methods, so
importing this module (or the package) does not import ``openai``.

Every request streams (``responses.create(..., stream=True)``) with ``store=False``:
nothing is kept server-side, so the history carries everything, reasoning items with
their ``encrypted_content`` included (requested with
``include=["reasoning.encrypted_content"]`` on reasoning models).

SDK retries are off (``max_retries=0``): the application's retry layer is the only one.
SDK clients are shared per process, per event loop and per (environment key, endpoint)
when no ``api_key`` is given; an explicit ``api_key`` gets its own SDK client, which
`OpenAIModelClient.aclose` closes. The endpoint is the ``base_url`` argument, else
``DPT_OPENAI_BASE_URL``, else the SDK's own ``OPENAI_BASE_URL``, else api.openai.com.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers._common import (
    LoopClientCache,
    SdkModelClient,
    StreamProgress,
    close_sdk_client,
    import_sdk,
    shared_ssl_context,
)
from doc_processing_toolkit.adapters.providers._sse import OpenAIRawEvents
from doc_processing_toolkit.adapters.providers.openai import files as openai_files
from doc_processing_toolkit.adapters.providers.openai.dialect import PROVIDER
from doc_processing_toolkit.adapters.providers.openai.mapping import WireRequest, build_request
from doc_processing_toolkit.adapters.providers.openai.stream import StreamAssembler, StreamFailure
from doc_processing_toolkit.domain.errors import (
    BadRequestError,
    ConfigurationError,
    OverloadedError,
    ProviderError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.domain.requests import ModelRequest, StreamItem
from doc_processing_toolkit.ports.code_execution_files import OutputFile, UploadedToolFile

__all__ = [
    "API_KEY_ENV",
    "DPT_BASE_URL_ENV",
    "SDK_BASE_URL_ENV",
    "OpenAIModelClient",
    "import_openai",
]

DPT_BASE_URL_ENV = "DPT_OPENAI_BASE_URL"
"""The toolkit's endpoint override (wins over the SDK's own variable)."""
SDK_BASE_URL_ENV = "OPENAI_BASE_URL"
"""The SDK's endpoint variable (read by the SDK itself)."""
API_KEY_ENV = "OPENAI_API_KEY"
_DEFAULT_URL = "https://api.openai.com/v1"

_RETRYABLE_CODES: dict[str, type[ProviderError]] = {
    "server_error": ServerError,
    "internal_error": ServerError,
    "rate_limit_exceeded": RateLimitError,
    "overloaded": OverloadedError,
    "server_is_overloaded": OverloadedError,
}
"""In-stream error codes with a retryable error class."""

_REQUEST_CODES = frozenset(
    {
        "bio_policy",
        "content_policy_violation",
        "data_residency_mismatch",
        "empty_image_file",
        "failed_to_download_image",
        "misalignment_policy_violation",
        "unsupported_image_media_type",
    }
)
"""In-stream error codes that say the request itself is refused (so are ``invalid_*`` and
``image_*``); any other code is a retryable interruption."""

_SHARED = LoopClientCache(close_sdk_client)
"""SDK clients shared per (event loop, key, endpoint) when no api_key is given."""


def import_openai() -> Any:
    """Import the ``openai`` SDK, or raise an ImportError naming the pip extra."""
    return import_sdk("openai", provider="OpenAI", sdk="openai", extra="openai")


class OpenAIModelClient(SdkModelClient):
    """Streams OpenAI Responses requests; see the module docstring for client sharing."""

    provider = PROVIDER
    DPT_BASE_URL_ENV = DPT_BASE_URL_ENV
    SDK_BASE_URL_ENV = SDK_BASE_URL_ENV
    DEFAULT_URL = _DEFAULT_URL
    API_KEY_ENVS = (API_KEY_ENV,)

    # -- the SDK client ------------------------------------------------------------------

    @staticmethod
    def _new_sdk_client(sdk: Any, api_key: str | None, base_url: str | None) -> Any:
        try:
            from doc_processing_toolkit.adapters.providers._pool import sdk_http_client

            http = sdk_http_client(sdk, shared_ssl_context())
            return sdk.AsyncOpenAI(
                api_key=api_key, base_url=base_url, max_retries=0, http_client=http
            )
        except sdk.OpenAIError as exc:
            raise ConfigurationError(
                f"openai: no API key: pass api_key= or set {API_KEY_ENV} ({exc})"
            ) from exc

    def _azure_client(self, sdk: Any) -> Any:
        """GPT on Azure OpenAI: ``AsyncAzureOpenAI`` with the options' endpoint, API version,
        deployment and key (or Entra ID token provider); unset ones from the SDK's
        variables (``AZURE_OPENAI_ENDPOINT``, ``OPENAI_API_VERSION``,
        ``AZURE_OPENAI_API_KEY``)."""
        from doc_processing_toolkit.adapters.providers._pool import sdk_http_client

        options = dict(self._deployment_options)
        endpoint = options.pop("base_url", None) or self._base_url
        if endpoint and not options.get("azure_endpoint"):
            options["azure_endpoint"] = endpoint
        if self._api_key and not options.get("api_key"):
            options["api_key"] = self._api_key
        args = {k: v for k, v in options.items() if v is not None}
        try:
            return sdk.AsyncAzureOpenAI(
                **args, max_retries=0, http_client=sdk_http_client(sdk, shared_ssl_context())
            )
        except (ValueError, sdk.OpenAIError) as exc:
            raise ConfigurationError(
                f"openai on azure: {exc} (set it in deployment_options or the SDK's variable)"
            ) from exc

    def _sdk_client(self, sdk: Any) -> Any:
        if self._deployment is not None:
            return self._deployment_client(lambda: self._azure_client(sdk))
        return self._own_or_shared_client(
            _SHARED, lambda api_key, base_url: self._new_sdk_client(sdk, api_key, base_url)
        )

    # -- code-execution files (the CodeExecutionFiles port; see .files) -----------------

    reuses_containers = False

    async def upload_tool_file(self, part: MediaPart) -> UploadedToolFile:
        """Upload one ``tool_files`` entry through the Files API."""
        sdk = import_openai()
        return await openai_files.upload_tool_file(self, sdk, self._sdk_client(sdk), part)

    async def download_output_file(self, ref: Mapping[str, Any]) -> OutputFile:
        """Download one file the provider's code execution wrote."""
        sdk = import_openai()
        return await openai_files.download_output_file(self, sdk, self._sdk_client(sdk), ref)

    # -- requests ------------------------------------------------------------------------

    def _wire(self, request: ModelRequest) -> WireRequest:
        wire = build_request(request, self._row(request.model))
        self._log_warnings(
            wire,
            request.model,
            downgraded_tool_choice=wire.downgraded_tool_choice,
            ignored_options=wire.ignored_options,
        )
        self._log_mapping(wire)
        return wire

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Send ``request`` (always streaming); yield deltas, then one ModelResponse."""
        sdk = import_openai()
        import httpx2

        client = self._sdk_client(sdk)
        wire = self._wire(request)
        assembler = StreamAssembler(structured_output=request.output_schema is not None)
        events = await self._open_stream(
            sdk,
            client.responses.create(**wire.params, stream=True, **self._call_options(wire)),
            self._status_error,
        )
        progress = StreamProgress(PROVIDER, assembler, events.response.headers.get("x-request-id"))
        try:
            raw = OpenAIRawEvents(sdk, events.response)
            async for event in self._guard(raw, progress.interrupted):
                for delta in progress.feed(event):
                    yield delta
        except (sdk.APIConnectionError, httpx2.HTTPError) as exc:
            raise progress.interrupted(
                self._redact(f"openai: the stream broke: {type(exc).__name__}: {exc}")
            ) from exc
        except sdk.APIError as exc:  # an in-band error the SDK raised instead of yielding
            assembler.fail(getattr(exc, "code", None), str(getattr(exc, "message", exc)))
            raise self._stream_failure(assembler, progress.emitted, progress.request_id) from exc
        finally:
            await events.close()
        if assembler.failure is not None:
            raise self._stream_failure(assembler, progress.emitted, progress.request_id)
        if not assembler.complete:
            raise progress.interrupted("openai: the stream ended before response.completed")
        yield assembler.response(requested_model=request.model, request_id=progress.request_id)

    # -- errors --------------------------------------------------------------------------

    def _status_error(self, exc: Any) -> ProviderError:
        status = int(exc.status_code)
        body = exc.body if isinstance(exc.body, dict) else {}
        detail = body.get("message") or getattr(exc, "message", None) or str(exc)
        kind = getattr(exc, "type", None) or getattr(exc, "code", None) or "error"
        return self._api_status_error(
            exc,
            self._redact(f"openai HTTP {status} {kind}: {detail}"),
            error_type=getattr(exc, "type", None) or getattr(exc, "code", None),
        )

    def _stream_failure(
        self, assembler: StreamAssembler, emitted: bool, request_id: str | None
    ) -> ProviderError:
        """The error for a failure reported inside a 200 stream."""
        failure = assembler.failure or StreamFailure(None, "stream failed", "error")
        code = failure.code
        cls: type[ProviderError]
        if code in _RETRYABLE_CODES:
            cls = _RETRYABLE_CODES[code]
        elif code is not None and (
            code in _REQUEST_CODES or code.startswith(("invalid_", "image_"))
        ):
            cls = BadRequestError
        else:
            cls = StreamInterruptedError
        return cls(
            self._redact(f"openai {failure.source} {code or 'error'}: {failure.message}"),
            provider=PROVIDER,
            request_id=request_id,
            partial_usage=assembler.partial_usage(),
            before_stream=False,
            deltas_emitted=emitted,
            error_type=code,
        )

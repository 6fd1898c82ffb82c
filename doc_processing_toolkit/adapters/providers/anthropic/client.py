"""AnthropicModelClient: the ModelClient for Anthropic Messages, through the ``anthropic`` SDK.

This module owns the SDK client and its lifecycle; `mapping` maps the request,
`stream` turns raw events into deltas. The SDK is imported inside methods, so
importing this module (or the package) does not import ``anthropic``.

SDK retries are off (``max_retries=0``): the application's retry layer is the only one.
SDK clients are shared per process, per event loop and per (environment key, endpoint)
when no ``api_key`` is given; an explicit ``api_key`` gets its own SDK client, which
`AnthropicModelClient.aclose` closes. A client is bound to an event loop because
its connection pool is (``run_sync`` runs each call on a fresh loop).

The SDK makes an OpenTelemetry span of its own per call (``anthropic.messages.create``,
a GenAI ``chat`` operation). Inside a run the toolkit's telemetry records (its own
``chat`` span per request), a request goes through a copy of the SDK client without it
(``with_options(open_telemetry=False)``, one copy per SDK client), so one request is one
``chat`` operation in the trace; unless an ``ANTHROPIC_OPEN_TELEMETRY*`` variable is set,
which is the user's own choice for the SDK's spans and is left to the SDK.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import AsyncIterator, Mapping
from typing import Any

from doc_processing_toolkit.adapters import _environment
from doc_processing_toolkit.adapters.providers._common import (
    LoopClientCache,
    SdkModelClient,
    StreamProgress,
    close_sdk_client,
    import_sdk,
    parse_retry_after,
    safe_url,
    shared_ssl_context,
)
from doc_processing_toolkit.adapters.providers._files import files_call
from doc_processing_toolkit.adapters.providers.anthropic import binding
from doc_processing_toolkit.adapters.providers.anthropic import files as anthropic_files
from doc_processing_toolkit.adapters.providers.anthropic.deployments import new_deployment_client
from doc_processing_toolkit.adapters.providers.anthropic.dialect import PROVIDER
from doc_processing_toolkit.adapters.providers.anthropic.mapping import (
    WireRequest,
    build_request,
    resolve_max_tokens,
)
from doc_processing_toolkit.adapters.providers.anthropic.skills import (
    SKILLS_UPLOAD_BETA,
    normalize_skills,
    resolve_skills,
)
from doc_processing_toolkit.adapters.providers.anthropic.stream import RawEvents, StreamAssembler
from doc_processing_toolkit.domain.binding import PREFIX_BINDING_ERROR_TYPE
from doc_processing_toolkit.domain.errors import (
    OverloadedError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    StreamInterruptedError,
)
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.domain.requests import ModelRequest, StreamItem, Usage
from doc_processing_toolkit.ports.code_execution_files import OutputFile, UploadedToolFile
from doc_processing_toolkit.ports.telemetry import requests_spanned

__all__ = [
    "DPT_BASE_URL_ENV",
    "SDK_BASE_URL_ENV",
    "AnthropicModelClient",
    "import_anthropic",
    "parse_retry_after",
    "safe_url",
]

DPT_BASE_URL_ENV = "DPT_ANTHROPIC_BASE_URL"
"""The toolkit's endpoint override (wins over the SDK's own variable)."""
SDK_BASE_URL_ENV = "ANTHROPIC_BASE_URL"
"""The SDK's endpoint variable (read by the SDK itself)."""
_API_KEY_ENV = "ANTHROPIC_API_KEY"

_SHARED = LoopClientCache(close_sdk_client)
"""SDK clients shared per (event loop, key, endpoint) when no api_key is given."""
_UNSPANNED: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
"""SDK client -> its copy without the SDK's own spans (itself when the user set them)."""
_SDK_TELEMETRY_ENVS = (
    "ANTHROPIC_OPEN_TELEMETRY",
    "ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE",
    "ANTHROPIC_OPEN_TELEMETRY_TRACES_MAX_CONTENT_BYTES",
    "ANTHROPIC_OPEN_TELEMETRY_PROPAGATION",
)
_USAGE_EVENTS = frozenset({"message_start", "message_delta"})
"""Stream events that report usage before the response ends (told to ``on_usage``)."""


def import_anthropic() -> Any:
    """Import the ``anthropic`` SDK, or raise an ImportError naming the pip extra."""
    return import_sdk("anthropic", provider="Anthropic", sdk="anthropic", extra="anthropic")


class AnthropicModelClient(SdkModelClient):
    """Streams Anthropic Messages requests; see the module docstring for client sharing."""

    provider = PROVIDER
    DPT_BASE_URL_ENV = DPT_BASE_URL_ENV
    SDK_BASE_URL_ENV = SDK_BASE_URL_ENV
    DEFAULT_URL = "https://api.anthropic.com"
    API_KEY_ENVS = (_API_KEY_ENV,)

    # -- the SDK client ------------------------------------------------------------------

    @staticmethod
    def _new_sdk_client(sdk: Any, api_key: str | None, base_url: str | None) -> Any:
        from doc_processing_toolkit.adapters.providers._pool import (
            sdk_http_client,
            tcp_keepalive_options,
        )

        http = sdk_http_client(sdk, shared_ssl_context(), tcp_keepalive_options())
        return sdk.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, http_client=http
        )

    def _sdk_client(self, sdk: Any) -> Any:
        if self._deployment is not None:
            return self._deployment_client(lambda: self._new_deployment_client(sdk))
        return self._own_or_shared_client(
            _SHARED, lambda api_key, base_url: self._new_sdk_client(sdk, api_key, base_url)
        )

    def _new_deployment_client(self, sdk: Any) -> Any:
        from doc_processing_toolkit.adapters.providers._pool import sdk_http_client

        deployment = str(self._deployment)
        http = sdk_http_client(sdk, shared_ssl_context())
        return new_deployment_client(
            sdk, deployment, self._deployment_options, self._base_url, http
        )

    # -- code-execution files (the CodeExecutionFiles port; see .files) -----------------

    reuses_containers = True

    async def upload_tool_file(self, part: MediaPart) -> UploadedToolFile:
        """Upload one ``tool_files`` entry through the Files API."""
        sdk = import_anthropic()
        return await anthropic_files.upload_tool_file(self, sdk, self._sdk_client(sdk), part)

    async def download_output_file(self, ref: Mapping[str, Any]) -> OutputFile:
        """Download one file the provider's code execution wrote."""
        sdk = import_anthropic()
        return await anthropic_files.download_output_file(self, sdk, self._sdk_client(sdk), ref)

    # -- requests ------------------------------------------------------------------------

    def _wire(self, request: ModelRequest) -> WireRequest:
        row = self._row(request.model)
        max_tokens = resolve_max_tokens(request.max_tokens, row.max_output_tokens if row else None)
        wire = build_request(
            request,
            max_tokens=max_tokens,
            supports_forced_tool_choice=row.supports_forced_tool_choice if row else True,
            row=row,
        )
        if row is not None and row.api_model:
            wire.params["model"] = row.api_model
        self._log_warnings(
            wire,
            request.model,
            downgraded_tool_choice=wire.downgraded_tool_choice,
            ignored_options=wire.ignored_options,
        )
        self._log_mapping(wire)
        return wire

    async def _with_skills(self, sdk: Any, client: Any, request: ModelRequest) -> ModelRequest:
        """``request`` with its ``skills`` resolved (custom directories uploaded once)."""
        refs = normalize_skills(request.provider_options.get("skills"))
        if not refs:
            return request

        async def upload(files: list[tuple[str, bytes, str]]) -> str:
            call = client.beta.skills.create(files=files, betas=[SKILLS_UPLOAD_BETA])
            skill = await files_call(self, sdk, call, f"uploading the skill {files[0][0]}")
            return str(skill.id)

        entries, _ = await resolve_skills(refs, upload, self._endpoint()[0] or self.DEFAULT_URL)
        options = {**request.provider_options, "skills": entries}
        return dataclasses.replace(request, provider_options=options)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Send ``request`` (always streaming); yield deltas, then one ModelResponse."""
        sdk = import_anthropic()
        import httpx2

        client = self._sdk_client(sdk)
        if requests_spanned():
            client = _without_sdk_spans(client)
        request = await self._with_skills(sdk, client, request)
        wire = self._wire(request)
        assembler = StreamAssembler(
            structured_output=request.output_schema is not None,
            report_transformations=binding.beta_sent(wire.extra_headers),
        )
        events = await self._open_stream(
            sdk,
            client.messages.create(**wire.params, stream=True, **self._call_options(wire)),
            lambda exc: self._status_error(exc, before_stream=True),
        )
        progress = StreamProgress(PROVIDER, assembler, events.response.headers.get("request-id"))
        try:
            async for event in self._guard(RawEvents(sdk, events.response), progress.interrupted):
                for delta in progress.feed(event):
                    yield delta
                if request.on_usage is not None and event.get("type") in _USAGE_EVENTS:
                    usage = assembler.partial_usage()
                    if usage is not None:
                        request.on_usage(usage)
        except sdk.APIStatusError as exc:
            raise self._stream_error_event(
                exc, assembler, progress.emitted, progress.request_id
            ) from exc
        except (sdk.APIError, httpx2.HTTPError) as exc:
            raise progress.interrupted(
                self._redact(f"anthropic: the stream broke: {type(exc).__name__}: {exc}")
            ) from exc
        finally:
            await events.close()
        if not assembler.complete:
            raise progress.interrupted("anthropic: the stream ended before message_stop")
        response = assembler.response(requested_model=request.model, request_id=progress.request_id)
        skills = request.provider_options.get("skills")
        if skills:
            used = [str(entry["skill_id"]) for entry in skills]
            response = dataclasses.replace(
                response, metadata={**response.metadata, "skills_used": used}
            )
        yield response

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens of ``request`` by the provider's count_tokens endpoint."""
        sdk = import_anthropic()
        client = self._sdk_client(sdk)
        wire = self._wire(await self._with_skills(sdk, client, request))
        keys = ("model", "messages", "system", "tools", "tool_choice", "thinking", "output_config")
        params = {k: v for k, v in wire.params.items() if k in keys}
        try:
            result = await client.messages.count_tokens(**params, **self._call_options(wire))
        except sdk.APIStatusError as exc:
            raise self._status_error(exc, before_stream=True) from exc
        except sdk.APITimeoutError as exc:
            raise ProviderTimeoutError(
                self._redact(f"anthropic: count_tokens timed out: {exc}"), provider=PROVIDER
            ) from exc
        except sdk.APIConnectionError as exc:
            raise ProviderConnectionError(
                self._redact(f"anthropic: count_tokens connection failed: {exc}"),
                provider=PROVIDER,
            ) from exc
        return int(result.input_tokens)

    # -- errors --------------------------------------------------------------------------

    def _describe(self, exc: Any) -> str:
        detail = getattr(exc, "api_message", None) or str(getattr(exc, "message", exc))
        kind = getattr(exc, "type", None) or "error"
        status = int(exc.status_code)
        where = f"HTTP {status}" if status >= 400 else "stream error event"
        return self._redact(f"anthropic {where} {kind}: {detail}")

    def _status_error(self, exc: Any, *, before_stream: bool) -> ProviderError:
        text = self._describe(exc)
        if binding.is_prefix_binding_refusal(int(exc.status_code), text):
            return self._api_status_error(
                exc,
                text + binding.PREFIX_BINDING_HINT,
                error_type=PREFIX_BINDING_ERROR_TYPE,
                before_stream=before_stream,
            )
        return self._api_status_error(
            exc, text, error_type=getattr(exc, "type", None), before_stream=before_stream
        )

    def _stream_error_event(
        self, exc: Any, assembler: StreamAssembler, emitted: bool, request_id: str | None
    ) -> ProviderError:
        """An ``event: error`` on a 200 stream (the SDK raises it as APIStatusError)."""
        if int(exc.status_code) >= 400:  # not expected mid-stream, but keep the status
            error = self._status_error(exc, before_stream=False)
            return error.with_context(
                partial_usage=assembler.partial_usage(), deltas_emitted=emitted
            )
        kind = getattr(exc, "type", None)
        cls = OverloadedError if kind == "overloaded_error" else StreamInterruptedError
        usage: Usage | None = assembler.partial_usage()
        return cls(
            self._describe(exc),
            provider=PROVIDER,
            request_id=getattr(exc, "request_id", None) or request_id,
            partial_usage=usage,
            before_stream=False,
            deltas_emitted=emitted,
            error_type=kind,
        )


def _without_sdk_spans(client: Any) -> Any:
    """``client``'s copy that makes no span of its own (see the module docstring)."""
    copy = _UNSPANNED.get(client)
    if copy is None:
        user_set = any(_environment.variable(name) is not None for name in _SDK_TELEMETRY_ENVS)
        with_options = getattr(client, "with_options", None)
        copy = client if user_set or with_options is None else with_options(open_telemetry=False)
        _UNSPANNED[client] = copy
    return copy

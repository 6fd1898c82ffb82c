"""GoogleModelClient: the ModelClient for the Gemini API, through the ``google-genai`` SDK.

This module owns the SDK client and its lifecycle; `mapping` maps the request,
`raw_stream` sends it through the SDK and reads each chunk as a dict, and
`stream` turns the chunks into deltas. The SDK is imported inside methods, so
importing this module (or the package) does not import ``google.genai``.

The API key comes from the ``api_key`` argument, else ``GOOGLE_GEMINI_API_KEY``, else the
SDK's own variables ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY`` (fallbacks). The endpoint is
the ``base_url`` argument, else ``DPT_GOOGLE_BASE_URL``, else the SDK's own handling
(``GOOGLE_GEMINI_BASE_URL``, then ``https://generativelanguage.googleapis.com``);
``DPT_GOOGLE_API_VERSION`` overrides the SDK's API version (``v1``).

The SDK makes exactly one attempt: ``HttpRetryOptions(attempts=1)`` (which also stops the
one implicit reconnect its aiohttp transport would make), automatic function calling off,
automatic stream continuation off. The application's retry layer is the only one.
SDK clients are shared per process, per event loop and per (key, endpoint) when no
``api_key`` is given; an explicit ``api_key`` gets its own SDK client, which
`GoogleModelClient.aclose` closes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping
from typing import Any, cast

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters import _environment
from doc_processing_toolkit.adapters.providers._common import (
    LoopClientCache,
    SdkModelClient,
    parse_retry_after,
    shared_ssl_context,
)
from doc_processing_toolkit.adapters.providers._deployments import auth_remedy
from doc_processing_toolkit.adapters.providers._guard import remember_response
from doc_processing_toolkit.adapters.providers.google import code_files as google_code_files
from doc_processing_toolkit.adapters.providers.google import files as google_files
from doc_processing_toolkit.adapters.providers.google.dialect import PROVIDER
from doc_processing_toolkit.adapters.providers.google.files import upload_large_media
from doc_processing_toolkit.adapters.providers.google.mapping import (
    GoogleWireRequest,
    build_request,
    retry_delay_from_error,
)
from doc_processing_toolkit.adapters.providers.google.raw_stream import ChunkStream
from doc_processing_toolkit.adapters.providers.google.stream import StreamAssembler
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    MissingDependencyError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    StreamInterruptedError,
    status_error_class,
)
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.domain.requests import ModelRequest, StreamItem
from doc_processing_toolkit.ports.code_execution_files import OutputFile, UploadedToolFile

__all__ = [
    "API_KEY_ENVS",
    "CONNECTION_LIMITS",
    "DPT_API_VERSION_ENV",
    "DPT_BASE_URL_ENV",
    "SDK_BASE_URL_ENV",
    "GoogleModelClient",
    "import_genai",
]

DPT_BASE_URL_ENV = "DPT_GOOGLE_BASE_URL"
"""The toolkit's endpoint override (wins over the SDK's own variable)."""
SDK_BASE_URL_ENV = "GOOGLE_GEMINI_BASE_URL"
"""The SDK's endpoint variable (read by the SDK itself)."""
DPT_API_VERSION_ENV = "DPT_GOOGLE_API_VERSION"
"""Overrides the API version path segment (the SDK's default is ``v1``)."""
API_KEY_ENVS = ("GOOGLE_GEMINI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
"""Where the key is read from, in order (the last two are the SDK's own names)."""

CONNECTION_LIMITS = {"max_connections": 1000, "max_keepalive_connections": 100}
"""The SDK client's connection limits, all pools together: the Anthropic and OpenAI SDKs'
default. google-genai leaves httpx's, which keeps only 20 idle connections, so a burst of
100 concurrent runs closed 80 connections and opened them again on the next burst. The
connections are kept in several pools (``providers._pool.ShardedTransport``); under an
environment proxy the SDK's own transport takes these limits as one pool."""

log = get_logger(__name__)


async def _close_client(client: Any) -> None:
    await client.aio.aclose()
    client.close()


_SHARED = LoopClientCache(_close_client)
"""SDK clients shared per (event loop, key, endpoint) when no api_key is given."""


def import_genai() -> tuple[Any, Any, Any]:
    """``(google.genai, google.genai.types, google.genai.errors)``, or an ImportError naming
    the pip extra."""
    try:
        from google import genai
        from google.genai import errors, types
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(
            "The Google provider needs the google-genai SDK: "
            "pip install 'doc-processing-toolkit[google]'"
        ) from exc
    return genai, types, errors


def _websocket_ssl_context() -> Any:
    """The context google-genai makes for its Live API websockets when given none
    (``async_client_args["ssl"]``): certifi's bundle unless ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR`` say otherwise. httpx2 never sees the key: the SDK keeps only the
    arguments ``AsyncClient`` takes."""
    import ssl

    import certifi

    return ssl.create_default_context(
        cafile=_environment.variable("SSL_CERT_FILE", certifi.where()),
        capath=_environment.variable("SSL_CERT_DIR"),
    )


class GoogleModelClient(SdkModelClient):
    """Streams Gemini generateContent requests; see the module docstring for key, endpoint
    and client sharing."""

    provider = PROVIDER
    DPT_BASE_URL_ENV = DPT_BASE_URL_ENV
    SDK_BASE_URL_ENV = SDK_BASE_URL_ENV
    DEFAULT_URL = "https://generativelanguage.googleapis.com"
    API_KEY_ENVS = API_KEY_ENVS

    @staticmethod
    async def _close_sdk_client(client: Any) -> None:
        """Close the client's async transport, then its sync one."""
        await _close_client(client)

    # -- the SDK client ------------------------------------------------------------------

    def _new_sdk_client(
        self, genai: Any, types: Any, api_key: str, base_url: str | None, version: str | None
    ) -> Any:
        import httpx2

        from doc_processing_toolkit.adapters.providers._pool import (
            ShardedTransport,
            environment_proxy,
        )

        transport: dict[str, Any] = {}
        if not environment_proxy():  # httpx reads no proxy variable for a given transport
            transport["transport"] = ShardedTransport(verify=shared_ssl_context())
        options = types.HttpOptions(
            base_url=base_url,
            api_version=version,
            headers=self._default_headers or None,
            timeout=int(self._timeout * 1000) if self._timeout is not None else None,
            retry_options=types.HttpRetryOptions(attempts=1),
            # the idle watchdog closes a stalled stream's response (see providers._guard)
            async_client_args={
                "event_hooks": {"response": [remember_response]},
                **transport,
                "limits": httpx2.Limits(**CONNECTION_LIMITS),
                "verify": shared_ssl_context(),
                "ssl": shared_ssl_context(_websocket_ssl_context),
            },
        )
        return genai.Client(api_key=api_key, vertexai=False, http_options=options)

    def _vertex_client(self, genai: Any, types: Any) -> Any:
        """Gemini on Vertex AI: ``genai.Client(vertexai=True, ...)`` with the options'
        project, location and credentials (an ``access_token`` becomes OAuth credentials;
        none: Application Default Credentials)."""
        options = self._deployment_options
        credentials = options.get("credentials")
        if credentials is None and options.get("access_token"):
            from google.oauth2.credentials import Credentials

            credentials = Credentials(token=options["access_token"])  # type: ignore[no-untyped-call]
        http = types.HttpOptions(
            base_url=options.get("base_url") or self._base_url,
            headers=self._default_headers or None,
            timeout=int(self._timeout * 1000) if self._timeout is not None else None,
            retry_options=types.HttpRetryOptions(attempts=1),
            async_client_args={"event_hooks": {"response": [remember_response]}},
        )
        try:
            return genai.Client(
                vertexai=True,
                project=options.get("project"),
                location=options.get("location"),
                credentials=credentials,
                http_options=http,
            )
        except ValueError as exc:
            raise ConfigurationError(
                f"google on vertex: {exc} (set deployment_options project / location or "
                "GOOGLE_CLOUD_PROJECT / GOOGLE_CLOUD_LOCATION)"
            ) from exc

    def _sdk_client(self, genai: Any, types: Any) -> Any:
        if self._deployment is not None:
            return self._deployment_client(lambda: self._vertex_client(genai, types))
        base_url, source = self._endpoint()
        self._log_endpoint(base_url, source)
        version = _environment.variable(DPT_API_VERSION_ENV) or None
        own_key = self._api_key
        if own_key is not None:
            return self._own.get(
                None, lambda: self._new_sdk_client(genai, types, own_key, base_url, version)
            )
        api_key = self._require_api_key()
        key = (
            api_key,
            base_url,
            _environment.variable(SDK_BASE_URL_ENV) if base_url is None else None,
            version,
            repr(sorted(self._default_headers.items())),
            repr(self._timeout),
        )
        return _SHARED.get(
            key, lambda: self._new_sdk_client(genai, types, api_key, base_url, version)
        )

    # -- requests ------------------------------------------------------------------------

    def _wire(self, request: ModelRequest) -> GoogleWireRequest:
        wire = build_request(request, self._row(request.model))
        if wire.tool_config is not None:
            names = wire.tool_config.allowed_function_names
            log.info(
                f"Built Google ToolConfig: mode={wire.tool_config.mode}, "
                f"allowed_function_names={list(names) if names is not None else None}"
            )
        self._log_warnings(wire, request.model, ignored_options=wire.ignored_options)
        self._log_mapping(wire)
        return wire

    def _config(self, wire: GoogleWireRequest) -> dict[str, Any]:
        config = dict(wire.config)
        http: dict[str, Any] = {}
        if wire.extra_headers:
            http["headers"] = {**self._default_headers, **wire.extra_headers}
        if wire.extra_body:
            http["extra_body"] = wire.extra_body
        if http:
            config["http_options"] = http
        return config

    # -- code-execution files (the CodeExecutionFiles port; see .code_files) ------------

    reuses_containers = False

    async def upload_tool_file(self, part: MediaPart) -> UploadedToolFile:
        """Upload one ``tool_files`` entry through the Files API (polled to ACTIVE)."""
        genai, types, errors = import_genai()
        client = self._sdk_client(genai, types)
        try:
            return await google_code_files.upload_tool_file(client, part)
        except errors.APIError as exc:
            raise self._status_error(exc, before_stream=True) from exc

    async def download_output_file(self, ref: Mapping[str, Any]) -> OutputFile:
        """The file code execution wrote (Gemini returns its bytes inline)."""
        return google_code_files.download_output_file(ref)

    # -- restored file_data URIs (the RemoteMediaFiles port) ----------------------------

    async def media_file_alive(self, uri: str) -> bool:
        """Whether the Files API still holds ``uri`` (False on 403 / 404 or FAILED)."""
        genai, types, errors = import_genai()
        client = self._sdk_client(genai, types)
        try:
            file = await client.aio.files.get(name=google_files.file_name(uri))
        except errors.APIError as exc:
            if getattr(exc, "code", None) in (403, 404):
                return False
            raise self._status_error(exc, before_stream=True) from exc
        return google_files.usable(file)

    async def reupload_media(self, data: bytes, mime_type: str) -> str:
        """Upload ``data`` again, polled to ACTIVE; its new ``file_data`` URI."""
        genai, types, errors = import_genai()
        client = self._sdk_client(genai, types)
        part = MediaPart(mime_type=mime_type, data=data)
        try:
            record = await google_files.upload_part(client, part, google_files.poll_settings({}))
        except errors.APIError as exc:
            raise self._status_error(exc, before_stream=True) from exc
        return str(record["uri"])

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Send ``request`` (always streaming); yield deltas, then one ModelResponse."""
        genai, types, errors = import_genai()
        import httpx2
        import pydantic

        client = self._sdk_client(genai, types)
        try:
            request, uploads = await upload_large_media(
                client,
                request,
                self._endpoint()[0] or self.DEFAULT_URL,
                self._row(request.model),
            )
        except errors.APIError as exc:
            raise self._status_error(exc, before_stream=True) from exc
        wire = self._wire(request)
        assembler = StreamAssembler(
            structured_output=request.output_schema is not None,
            requested_tier=request.service_tier,
        )
        try:
            chunks = ChunkStream(
                client,
                model=wire.model,
                contents=wire.contents,
                config=self._config(wire),
            )
        except pydantic.ValidationError as exc:
            raise ConfigurationError(
                self._redact(f"google: the request does not fit the SDK's types: {exc}")
            ) from exc
        emitted = False

        def interrupted(
            text: str, cls: type[StreamInterruptedError] = StreamInterruptedError
        ) -> StreamInterruptedError:
            return cls(
                text,
                provider=PROVIDER,
                partial_usage=assembler.partial_usage(),
                deltas_emitted=emitted,
            )

        try:
            async for data in self._guard(chunks, interrupted, lazy_request=True):
                if not assembler.received:  # one response: its headers come once
                    assembler.set_headers(chunks.headers)
                for delta in assembler.feed(data):
                    emitted = True
                    yield delta
        except errors.APIError as exc:
            if not assembler.received:
                raise self._status_error(exc, before_stream=True) from exc
            raise self._mid_stream_error(exc, assembler, emitted) from exc
        except httpx2.TimeoutException as exc:
            raise self._transport_error(exc, assembler, emitted, timeout=True) from exc
        except httpx2.HTTPError as exc:
            raise self._transport_error(exc, assembler, emitted, timeout=False) from exc
        except pydantic.ValidationError as exc:
            raise ProviderError(
                self._redact(f"google: a response chunk did not parse: {exc}"),
                provider=PROVIDER,
                partial_usage=assembler.partial_usage(),
                deltas_emitted=emitted,
            ) from exc
        finally:
            await chunks.aclose()
        if not assembler.complete:
            raise StreamInterruptedError(
                "google: the stream ended before a finish reason",
                provider=PROVIDER,
                partial_usage=assembler.partial_usage(),
                deltas_emitted=emitted,
            )
        response = assembler.response(requested_model=request.model)
        if uploads:
            metadata = {**response.metadata, "media_uploads": uploads}
            response = dataclasses.replace(response, metadata=metadata)
        yield response

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens of ``request`` by the provider's countTokens endpoint.

        The Gemini API counts ``contents`` only (the SDK refuses a system instruction or
        tools there), so the system prompt is counted as a leading user turn and the tool
        declarations are not counted.
        """
        genai, types, errors = import_genai()
        import httpx2

        client = self._sdk_client(genai, types)
        wire = build_request(request, self._row(request.model))
        contents = list(wire.contents)
        if request.system:
            contents.insert(0, {"role": "user", "parts": [{"text": request.system}]})
        try:
            result = await client.aio.models.count_tokens(model=wire.model, contents=contents)
        except errors.APIError as exc:
            raise self._status_error(exc, before_stream=True) from exc
        except httpx2.HTTPError as exc:
            raise ProviderConnectionError(
                self._redact(f"google: count_tokens failed: {type(exc).__name__}: {exc}"),
                provider=PROVIDER,
            ) from exc
        return int(result.total_tokens or 0)

    # -- errors --------------------------------------------------------------------------

    def _describe(self, exc: Any, where: str) -> str:
        status = getattr(exc, "status", None) or "error"
        message = getattr(exc, "message", None) or str(exc)
        return self._redact(f"google {where} {exc.code} {status}: {message}")

    @staticmethod
    def _retry_after(exc: Any) -> float | None:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        if headers is not None and hasattr(headers, "get"):
            from_header = parse_retry_after(cast(Mapping[str, str], headers))
            if from_header is not None:
                return from_header
        return retry_delay_from_error(getattr(exc, "details", None))

    def _status_error(self, exc: Any, *, before_stream: bool) -> ProviderError:
        code = int(exc.code) if isinstance(exc.code, int) else None
        return status_error_class(code)(
            self._describe(exc, f"HTTP {code}" if before_stream else "stream error")
            + auth_remedy(self._deployment, code or 0),
            provider=PROVIDER,
            status_code=code,
            retry_after=self._retry_after(exc),
            before_stream=before_stream,
            error_type=getattr(exc, "status", None),
        )

    def _mid_stream_error(
        self, exc: Any, assembler: StreamAssembler, emitted: bool
    ) -> ProviderError:
        """An error payload after the stream began (``data: {"error": ...}`` on a 200)."""
        code = int(exc.code) if isinstance(exc.code, int) else None
        error: ProviderError
        if code is not None and 400 <= code < 500 and code not in (408, 409, 429):
            error = self._status_error(exc, before_stream=False)
        else:
            error = StreamInterruptedError(
                self._describe(exc, "stream error"),
                provider=PROVIDER,
                status_code=code,
                retry_after=self._retry_after(exc),
                error_type=getattr(exc, "status", None),
            )
        return error.with_context(partial_usage=assembler.partial_usage(), deltas_emitted=emitted)

    def _transport_error(
        self, exc: Exception, assembler: StreamAssembler, emitted: bool, *, timeout: bool
    ) -> ProviderError:
        detail = self._redact(f"{type(exc).__name__}: {exc}")
        if assembler.received:
            return StreamInterruptedError(
                f"google: the stream broke: {detail}",
                provider=PROVIDER,
                partial_usage=assembler.partial_usage(),
                deltas_emitted=emitted,
            )
        if timeout:
            return ProviderTimeoutError(
                f"google: the request timed out: {detail}", provider=PROVIDER, before_stream=True
            )
        return ProviderConnectionError(
            f"google: connection failed: {detail}", provider=PROVIDER, before_stream=True
        )

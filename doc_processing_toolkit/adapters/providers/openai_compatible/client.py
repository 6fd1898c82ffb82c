"""ChatCompletionsModelClient: the ModelClient base for OpenAI-compatible chat completions.

Drives the ``openai`` SDK's ``chat.completions.create(..., stream=True)`` against a
vendor's endpoint; a vendor's client subclasses it and sets its facts (`profile`,
`codec`, the endpoint and key class attributes of `SdkModelClient`, the pip extra). This
module owns the SDK client and its lifecycle; ``mapping`` maps the request, ``stream``
turns chunks into deltas. The SDK is imported inside methods, so importing this module
(or the package) does not import ``openai``.

Endpoint: the ``base_url`` argument, else the vendor's ``DPT_*_BASE_URL``, else its
`SdkModelClient.DEFAULT_URL`; always passed explicitly, so the OpenAI SDK's own
``OPENAI_BASE_URL`` never redirects the vendor's traffic. The key is the ``api_key``
argument, else the vendor's key variables (never ``OPENAI_API_KEY``), and the OpenAI-only
organisation / project / admin-key settings the SDK reads from the environment are
cleared, so no OpenAI credential or header reaches the vendor.

SDK retries are off (``max_retries=0``): the application's retry layer is the only one.
SDK clients are shared per process, per event loop and per (key, endpoint) when no
``api_key`` is given, in a cache of each vendor's client class (apart from the OpenAI
adapter's); an explicit ``api_key`` gets its own SDK client, which `aclose` closes. A
client is bound to an event loop because its connection pool is.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from doc_processing_toolkit.adapters.providers._common import (
    SdkModelClient,
    StreamProgress,
    import_sdk,
    shared_ssl_context,
    with_cause,
)
from doc_processing_toolkit.adapters.providers._loop_clients import (
    LoopClientCache,
    close_sdk_client,
)
from doc_processing_toolkit.adapters.providers._sse import OpenAIRawEvents
from doc_processing_toolkit.adapters.providers.openai_compatible.codec import (
    ChatCompletionsCodec,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.mapping import (
    ChatCompletionsWireRequest,
    build_request,
    dropped_part_records,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.profile import (
    ChatCompletionsProfile,
)
from doc_processing_toolkit.adapters.providers.openai_compatible.stream import ChunkAssembler
from doc_processing_toolkit.domain.errors import ProviderError, StreamInterruptedError
from doc_processing_toolkit.domain.requests import ModelRequest, StreamItem

__all__ = ["ChatCompletionsModelClient", "error_fields"]


def _key_digest(key: str) -> str:
    """A cache key for an API key that does not keep the key itself."""
    return hashlib.sha256(key.encode()).hexdigest()


def error_fields(body: Any) -> tuple[str | None, str | None]:
    """(type, message) of an OpenAI-style error body (``{"error": {...}}`` or the inner)."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    if not isinstance(body, dict):
        return None, None
    kind = body.get("type") or body.get("code")
    message = body.get("message")
    return (
        str(kind) if kind is not None else None,
        str(message) if message is not None else None,
    )


class ChatCompletionsModelClient(SdkModelClient):
    """Streams chat-completions requests to an OpenAI-compatible vendor (subclass per vendor).

    A subclass sets `profile`, `codec`, `sdk_extra` and `SdkModelClient`'s endpoint and
    key attributes (``DPT_BASE_URL_ENV``, ``DEFAULT_URL``, ``API_KEY_ENVS``); it gets its
    own cache of shared SDK clients.
    """

    profile: ClassVar[ChatCompletionsProfile]
    """The vendor's facts (name, label, option rules, request-id headers, ...)."""
    codec: ClassVar[ChatCompletionsCodec]
    """The vendor's history codec (its name on parts and provider details)."""
    sdk_extra: ClassVar[str]
    """The pip extra that installs the ``openai`` SDK for this vendor."""
    _shared: ClassVar[LoopClientCache]
    """SDK clients shared per (event loop, key, endpoint) when no api_key is given."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if "profile" in cls.__dict__:  # a vendor's client: its name, logger, shared cache
            cls.provider = cls.profile.name
            cls._shared = LoopClientCache(close_sdk_client)
        super().__init_subclass__(**kwargs)

    # -- the SDK client ------------------------------------------------------------------

    @classmethod
    def import_openai(cls) -> Any:
        """Import the ``openai`` SDK, or raise an ImportError naming the pip extra."""
        return import_sdk("openai", provider=cls.profile.label, sdk="openai", extra=cls.sdk_extra)

    def _fallback_endpoint(self) -> tuple[str, str]:
        """The vendor's own endpoint, passed explicitly (``OPENAI_BASE_URL`` never applies)."""
        return self.DEFAULT_URL, "default"

    @staticmethod
    def _new_sdk_client(sdk: Any, api_key: str, base_url: str) -> Any:
        from doc_processing_toolkit.adapters.providers._pool import sdk_http_client

        http = sdk_http_client(sdk, shared_ssl_context())
        client = sdk.AsyncOpenAI(
            api_key=api_key, base_url=base_url, max_retries=0, http_client=http
        )
        # OpenAI-only settings the SDK read from OPENAI_* variables: never sent elsewhere.
        client.organization = None
        client.project = None
        client.admin_api_key = None
        return client

    def _sdk_client(self, sdk: Any) -> Any:
        endpoint, source = self._endpoint()
        self._log_endpoint(endpoint, source)
        base_url = endpoint or self.DEFAULT_URL  # always set: see _fallback_endpoint
        key = self._require_api_key()
        if self._api_key is not None:
            return self._own.get(None, lambda: self._new_sdk_client(sdk, key, base_url))
        cache_key = (_key_digest(key), base_url)
        return self._shared.get(cache_key, lambda: self._new_sdk_client(sdk, key, base_url))

    # -- requests ------------------------------------------------------------------------

    def _wire(self, request: ModelRequest) -> ChatCompletionsWireRequest:
        wire = build_request(
            request, profile=self.profile, codec=self.codec, row=self._row(request.model)
        )
        if wire.unconfirmed_forced_tool is not None:
            self._log.warning(
                f"{self.provider}: this model may ignore a forced tool_choice; sent as asked, "
                "check which tools actually ran",
                model=request.model,
                tool=wire.unconfirmed_forced_tool,
            )
        self._log_warnings(wire, request.model)
        for drop in wire.dropped:
            self._log.warning(
                f"{self.provider}: dropping a part {self.profile.label} cannot take",
                model=request.model,
                kind=drop.kind,
                reason=drop.reason,
                message_index=drop.message_index,
                part_index=drop.part_index,
            )
        self._log_mapping(wire, earlier_parts_not_sent=wire.dropped_earlier)
        return wire

    def _request_id(self, headers: Any) -> str | None:
        for name in self.profile.request_id_headers:
            value = headers.get(name)
            if value:
                return str(value)
        return None

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Send ``request`` (always streaming); yield deltas, then one ModelResponse."""
        sdk = self.import_openai()
        import httpx2

        wire = self._wire(request)
        client = self._sdk_client(sdk)
        assembler = ChunkAssembler(self.codec, structured_output=request.output_schema is not None)
        chunks = await self._open_stream(
            sdk,
            client.chat.completions.create(
                **wire.params,
                stream=True,
                stream_options={"include_usage": True},
                **self._call_options(wire),
            ),
            self._status_error,
        )

        request_id = self._request_id(chunks.response.headers)
        progress = StreamProgress(self.provider, assembler, request_id)
        try:
            raw = OpenAIRawEvents(sdk, chunks.response)
            async for chunk in self._guard(raw, progress.interrupted):
                for delta in progress.feed(chunk):
                    yield delta
        except (sdk.APIError, httpx2.HTTPError) as exc:
            raise self._stream_error(exc, assembler, progress.emitted, request_id) from exc
        finally:
            await chunks.close()
        if not assembler.complete:
            raise progress.interrupted(f"{self.provider}: the stream ended before a finish_reason")
        if assembler.think_tags:
            self._log.debug(
                f"{self.provider}: reasoning arrived as <think> tags", model=request.model
            )
        metadata: dict[str, Any] = {}
        if wire.dropped:
            metadata["dropped_parts"] = dropped_part_records(
                wire.dropped, model=request.model, provider=self.provider
            )
        yield assembler.response(
            requested_model=request.model, request_id=request_id, metadata=metadata
        )

    # -- errors --------------------------------------------------------------------------

    def _status_error(self, exc: Any) -> ProviderError:
        status = int(exc.status_code)
        kind, message = error_fields(getattr(exc, "body", None))
        detail = message or str(getattr(exc, "message", exc))
        return self._api_status_error(
            exc,
            self._redact(f"{self.provider} HTTP {status} {kind or 'error'}: {detail}"),
            error_type=kind,
        )

    def _stream_error(
        self,
        exc: BaseException,
        assembler: ChunkAssembler,
        emitted: bool,
        request_id: str | None,
    ) -> ProviderError:
        """An error chunk or a broken connection after the stream began."""
        kind, message = error_fields(getattr(exc, "body", None))
        if message is not None:
            text = f"{self.provider}: error chunk mid-stream {kind or 'error'}: {message}"
        else:
            text = f"{self.provider}: the stream broke: {type(exc).__name__}: {with_cause(exc)}"
        return StreamInterruptedError(
            self._redact(text),
            provider=self.provider,
            request_id=request_id,
            partial_usage=assembler.partial_usage(),
            deltas_emitted=emitted,
            error_type=kind,
        )

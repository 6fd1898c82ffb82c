"""What every provider adapter shares: endpoint redaction, retry-after parsing,
`SdkModelClient` (the SDK-client plumbing each provider's ModelClient subclasses:
constructor state, endpoint resolution and logging, own and shared SDK clients,
``aclose``, error-text redaction, the errors of a failed request) and `StreamProgress`
(one event stream in flight).

The per-event-loop cache of SDK clients (`LoopClientCache`, `release_loop_clients`,
`close_sdk_client`) lives in ``_loop_clients.py`` and is re-exported here.
"""

from __future__ import annotations

import email.utils
import importlib
import re
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol
from urllib.parse import urlsplit

from doc_processing_toolkit._logging import get_logger, redact, register_secret
from doc_processing_toolkit.adapters import _environment
from doc_processing_toolkit.adapters.providers._batch import BatchSeam
from doc_processing_toolkit.adapters.providers._deployments import (
    auth_remedy,
    register_option_secrets,
)
from doc_processing_toolkit.adapters.providers._guard import GuardedEvents, sdk_timeout
from doc_processing_toolkit.adapters.providers._loop_clients import (
    LoopClientCache,
    close_sdk_client,
    release_loop_clients,
)
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    MissingDependencyError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    StreamInterruptedError,
    status_error_class,
)
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import StreamDelta, Usage

__all__ = [
    "EventAssembler",
    "LoopClientCache",
    "SdkModelClient",
    "StreamProgress",
    "WireExtras",
    "close_sdk_client",
    "import_sdk",
    "parse_retry_after",
    "redact_userinfo",
    "release_loop_clients",
    "safe_url",
    "shared_ssl_context",
    "with_cause",
]

log = get_logger(__name__)

_SSL_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR")
"""The variables httpx2's default TLS context reads (a change makes a new context)."""
_SSL_LOCK = threading.Lock()
_SSL_CONTEXTS: dict[tuple[Any, ...], Any] = {}


def _httpx2_default_context() -> Any:
    import httpx2

    return httpx2.create_ssl_context()


def shared_ssl_context(build: Callable[[], Any] = _httpx2_default_context) -> Any:
    """A TLS context every SDK client of this process verifies with, made once.

    By default it is what the SDKs' httpx2 clients build for themselves
    (``httpx2.create_ssl_context()``: the same trust store, the same ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR``); ``build`` makes another kind, once per kind. Loading a trust store
    costs ~20 ms of CPU, and each new SDK client paid it: on every ``run_sync`` call,
    whose event loop is new, and so are its SDK clients. A context is safe to share
    between clients, threads and loops; a change of those variables makes a new one.
    """
    key = (build, *(_environment.variable(name) for name in _SSL_ENV))
    with _SSL_LOCK:
        context = _SSL_CONTEXTS.get(key)
        if context is None:
            context = _SSL_CONTEXTS[key] = build()
        return context


def safe_url(url: str) -> str:
    """``scheme://host:port/path`` of ``url``: no userinfo, no query, no fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "<unparseable url>"
    return f"{parts.scheme}://{host}{port}{parts.path}"


_USERINFO = re.compile(r"(://)[^/@\s]+@")


def redact_userinfo(text: str) -> str:
    """``text`` with the userinfo of every URL in it (``://user:pass@``) masked."""
    return _USERINFO.sub(r"\1***@", text)


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (ms) or ``retry-after`` (seconds or HTTP date)."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(float(raw_ms) / 1000.0, 0.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def with_cause(exc: BaseException) -> str:
    """``exc`` and, when the SDK wrapped one, the transport error underneath."""
    cause = exc.__cause__
    return f"{exc} ({type(cause).__name__}: {cause})" if cause is not None else str(exc)


def import_sdk(module: str, *, provider: str, sdk: str, extra: str) -> Any:
    """Import ``module`` (a provider SDK), or raise an ImportError naming the pip extra."""
    loaded = sys.modules.get(module)  # imported already (and not mid-import elsewhere)
    spec = getattr(loaded, "__spec__", None)
    if loaded is not None and not getattr(spec, "_initializing", False):
        return loaded
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(
            f"The {provider} provider needs the {sdk} SDK: "
            f"pip install 'doc-processing-toolkit[{extra}]'"
        ) from exc


class WireExtras(Protocol):
    """What `SdkModelClient` reads from a provider's mapped request."""

    @property
    def extra_body(self) -> Mapping[str, Any]:
        """Body fields sent as the SDK's ``extra_body``."""
        ...

    @property
    def extra_headers(self) -> Mapping[str, str]:
        """Headers sent as the SDK's ``extra_headers``."""
        ...

    @property
    def warnings(self) -> Sequence[str]:
        """What the mapping could not honour (each logged as a warning)."""
        ...

    @property
    def notes(self) -> Sequence[str]:
        """What the mapping did (logged at debug)."""
        ...


class EventAssembler(Protocol):
    """What `StreamProgress` needs of a provider's stream assembler."""

    def feed(self, event: Mapping[str, Any]) -> Sequence[StreamDelta]:
        """The deltas one wire event completes."""
        ...

    def partial_usage(self) -> Usage | None:
        """The usage reported so far (None before any)."""
        ...


class StreamProgress:
    """One SDK event stream in flight: feeds its events to the assembler and remembers
    whether a delta went out, for the errors a broken stream raises."""

    __slots__ = ("assembler", "emitted", "provider", "request_id")

    def __init__(self, provider: str, assembler: EventAssembler, request_id: str | None) -> None:
        self.provider = provider
        self.assembler = assembler
        self.request_id = request_id
        self.emitted = False
        """Whether a delta was handed out (so a retry would repeat it)."""

    def feed(self, event: Mapping[str, Any]) -> Sequence[StreamDelta]:
        """The deltas of one event, the API's dict (read off the raw stream: no SDK model
        is built per event, see `_sse`)."""
        deltas = self.assembler.feed(event)
        if deltas:
            self.emitted = True
        return deltas

    def interrupted(
        self, text: str, cls: type[StreamInterruptedError] = StreamInterruptedError
    ) -> StreamInterruptedError:
        """The error for a stream that broke or ended early, with what it got so far."""
        return cls(
            text,
            provider=self.provider,
            request_id=self.request_id,
            partial_usage=self.assembler.partial_usage(),
            deltas_emitted=self.emitted,
        )


class SdkModelClient(BatchSeam):
    """The SDK-client plumbing a provider's ModelClient shares; subclass it per provider.

    Holds the constructor state (``api_key`` registered as a secret, ``base_url``,
    ``timeout``, ``default_headers``, ``row_lookup``) and this instance's own SDK clients
    (for an explicit ``api_key``; `aclose` closes them). Resolves the endpoint:
    ``base_url`` argument > `DPT_BASE_URL_ENV` > `_fallback_endpoint` (by
    default the SDK's own `SDK_BASE_URL_ENV`, else the SDK's default), and logs it
    once per endpoint. Helpers for the subclass: `_own_or_shared_client`,
    `_row`, the mapping's log lines (`_log_warnings`, `_log_mapping`),
    `_call_options`, `_redact`, and for the ``anthropic`` / ``openai`` SDKs
    `_open_stream` and `_api_status_error` (`BatchSeam`, the base, makes public the ones a
    batch client needs). Log events go to the provider client module's logger. The
    subclass sets the class attributes, builds its SDK clients and streams.
    """

    _log: ClassVar[Any] = log
    """The logger of the provider client's module (see ``__init_subclass__``)."""
    _repr_name: ClassVar[str] = "SdkModelClient"
    """The provider client's class name, shown by ``repr``."""

    provider: str
    """The provider name (also the prefix of the endpoint log event)."""
    DPT_BASE_URL_ENV: ClassVar[str]
    """The toolkit's endpoint override variable (wins over the SDK's own)."""
    SDK_BASE_URL_ENV: ClassVar[str | None] = None
    """The SDK's endpoint variable (read by the SDK itself), if it has one."""
    DEFAULT_URL: ClassVar[str]
    """The endpoint used when nothing names one (what the endpoint log shows)."""
    API_KEY_ENVS: ClassVar[tuple[str, ...]] = ()
    """The variables an API key may come from (masked in error texts)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "provider" in cls.__dict__:  # a provider's client; its subclasses inherit
            cls._log = get_logger(cls.__module__)
            cls._repr_name = cls.__name__

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
        default_headers: dict[str, str] | None = None,
        row_lookup: Callable[[str], ModelInfo | None] | None = None,
        connect_timeout: float | None = None,
        stream_idle_timeout: float | None = None,
        deployment: str | None = None,
        deployment_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._deployment = deployment
        """The cloud deployment serving the model (None: the provider's own API)."""
        self._deployment_options = dict(deployment_options or {})
        register_option_secrets(self._deployment_options)
        self._api_key = api_key
        register_secret(api_key)
        self._base_url = base_url
        self._timeout = timeout
        """``request_timeout``: seconds for one read (None: the SDK's 600 s)."""
        self._connect_timeout = connect_timeout
        self._stream_idle_timeout = stream_idle_timeout
        self._default_headers = dict(default_headers or {})
        self._row_lookup = row_lookup
        self._own = LoopClientCache(self._close_sdk_client)
        self._logged_endpoint: tuple[str | None, str] | None = None

    def __repr__(self) -> str:
        endpoint = safe_url(self._base_url) if self._base_url else None
        own = self._api_key is not None
        return f"{self._repr_name}(base_url={endpoint!r}, own_key={own})"

    @staticmethod
    async def _close_sdk_client(client: Any) -> None:
        """Close one of this instance's SDK clients (override where the SDK differs)."""
        await close_sdk_client(client)

    # -- the endpoint --------------------------------------------------------------------

    def _endpoint(self) -> tuple[str | None, str]:
        """(base_url to pass to the SDK, where it came from)."""
        if self._base_url:
            return self._base_url, "argument"
        env = _environment.variable(self.DPT_BASE_URL_ENV)
        if env:
            return env, self.DPT_BASE_URL_ENV
        return self._fallback_endpoint()

    def _fallback_endpoint(self) -> tuple[str | None, str]:
        """No argument, no toolkit variable: leave it to the SDK (its variable or default)."""
        if self.SDK_BASE_URL_ENV and _environment.variable(self.SDK_BASE_URL_ENV):
            return None, self.SDK_BASE_URL_ENV
        return None, "sdk default"

    def _log_endpoint(self, base_url: str | None, source: str) -> None:
        """Say once per instance and endpoint where requests go (never a key or query)."""
        if self._logged_endpoint == (base_url, source):
            return
        self._logged_endpoint = (base_url, source)
        shown = base_url
        if shown is None and self.SDK_BASE_URL_ENV:
            shown = _environment.variable(self.SDK_BASE_URL_ENV)
        self._log.debug(
            f"{self.provider} endpoint",
            source=source,
            url=safe_url(shown) if shown else self.DEFAULT_URL,
            shared=self._api_key is None,
        )

    def _require_api_key(self) -> str:
        """The key this client sends: its own, else the first of `API_KEY_ENVS` set.

        Raises:
            ConfigurationError: when there is none, naming the variables, before any
                network attempt (the same error on every provider).
        """
        key = self._api_key or next(
            filter(None, map(_environment.variable, self.API_KEY_ENVS)), None
        )
        if not key:
            first, *fallbacks = self.API_KEY_ENVS or ("an API key variable",)
            also = f" ({' and '.join(fallbacks)} are read as fallbacks)" if fallbacks else ""
            raise ConfigurationError(
                f"{self.provider}: no API key: set {first}{also} or pass Agent(api_key=...)"
            )
        register_secret(key)
        return key

    def _own_or_shared_client(
        self, shared: LoopClientCache, new: Callable[[str | None, str | None], Any]
    ) -> Any:
        """The SDK client for the endpoint: this instance's own for an explicit ``api_key``,
        else the one ``shared`` holds for the environment's key and endpoint (the SDK reads
        the key itself). ``new(api_key, base_url)`` builds a client."""
        base_url, source = self._endpoint()
        self._log_endpoint(base_url, source)
        self._require_api_key()
        if self._api_key is not None:
            return self._own.get(None, lambda: new(self._api_key, base_url))
        sdk_env = self.SDK_BASE_URL_ENV
        key = (
            *(_environment.variable(name) for name in self.API_KEY_ENVS),
            base_url,
            _environment.variable(sdk_env) if base_url is None and sdk_env else None,
        )
        return shared.get(key, lambda: new(None, base_url))

    async def aclose(self) -> None:
        """Close this instance's own SDK clients, on every loop they serve (a shared one is
        left open)."""
        await self._own.close_every_loop()

    # -- requests ------------------------------------------------------------------------

    def _row(self, model: str) -> ModelInfo | None:
        row = self._row_lookup(model) if self._row_lookup is not None else None
        if row is None or self._deployment not in row.deployments:
            return row
        row = row.for_deployment(self._deployment)
        named = self._deployment_options.get("azure_deployment")  # an Azure deployment name
        return row.model_copy(update={"api_model": named}) if named else row

    def _deployment_client(self, new: Callable[[], Any]) -> Any:
        """This instance's own SDK client for its deployment (``new()`` builds it)."""
        self._log.debug(f"{self.provider} deployment", deployment=self._deployment)
        return self._own.get(None, new)

    def _log_warnings(
        self,
        wire: WireExtras,
        model: str,
        *,
        downgraded_tool_choice: str | None = None,
        ignored_options: Sequence[str] = (),
    ) -> None:
        """Warn about each mapping warning, a downgraded tool choice and ignored options."""
        for warning in wire.warnings:
            self._log.warning(f"{self.provider}: {warning}", model=model)
        if downgraded_tool_choice is not None:
            self._log.warning(
                f"{self.provider}: this model cannot force a tool choice; sending tool_choice auto",
                model=model,
                requested=downgraded_tool_choice,
            )
        if ignored_options:
            self._log.warning(
                f"{self.provider}: provider options not supported by this adapter yet, not sent",
                options=list(ignored_options),
            )

    def _log_mapping(self, wire: WireExtras, **extra: Any) -> None:
        """One debug line with the mapping's notes and extras, when there is any."""
        if wire.notes or wire.extra_body or wire.extra_headers or any(extra.values()):
            self._log.debug(
                f"{self.provider} request mapping",
                notes=list(wire.notes),
                extra_body_keys=sorted(wire.extra_body),
                extra_header_names=sorted(wire.extra_headers),
                **extra,
            )

    def _call_options(self, wire: WireExtras) -> dict[str, Any]:
        """The SDK call's ``extra_headers`` (defaults, then the mapping's), ``extra_body``
        and ``timeout``, each only when set."""
        options: dict[str, Any] = {}
        headers = {**self._default_headers, **wire.extra_headers}
        if headers:
            options["extra_headers"] = headers
        if wire.extra_body:
            options["extra_body"] = wire.extra_body
        timeout = sdk_timeout(self._timeout, self._connect_timeout)
        if timeout is not None:
            options["timeout"] = timeout
        return options

    def _guard(
        self, events: Any, interrupted: Callable[..., ProviderError], *, lazy_request: bool = False
    ) -> GuardedEvents:
        """``events`` with the idle timer and parse errors mapped (see `_guard`)."""
        response = getattr(events, "response", None)  # an anthropic / openai SDK stream
        return GuardedEvents(
            events,
            provider=self.provider,
            idle_timeout=self._stream_idle_timeout,
            interrupted=interrupted,
            lazy_request=lazy_request,
            close=getattr(response, "aclose", None),
        )

    # -- errors --------------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        """``text`` without API keys, bearer tokens or URL userinfo."""
        for secret in (self._api_key, *(_environment.variable(name) for name in self.API_KEY_ENVS)):
            if secret:
                text = text.replace(secret, "***")
        return redact(redact_userinfo(text))

    async def _open_stream(
        self, sdk: Any, call: Awaitable[Any], status_error: Callable[[Any], ProviderError]
    ) -> Any:
        """Await ``call``, the request that opens a stream through an ``anthropic`` or
        ``openai`` SDK: an HTTP error status raises ``status_error(exc)``, a timeout or a
        failed connection `_request_failed` (all before the stream)."""
        try:
            return await call
        except sdk.APIStatusError as exc:
            raise status_error(exc) from exc
        except sdk.APITimeoutError as exc:
            raise self._request_failed(exc, timeout=True) from exc
        except sdk.APIConnectionError as exc:
            raise self._request_failed(exc, timeout=False) from exc

    def _api_status_error(
        self, exc: Any, text: str, *, error_type: str | None, before_stream: bool = True
    ) -> ProviderError:
        """The error for an ``anthropic`` / ``openai`` SDK ``APIStatusError``: the class for
        its status, with its retry-after and request id; ``text`` (redacted) describes it."""
        status = int(exc.status_code)
        return status_error_class(status)(
            text + auth_remedy(self._deployment, status),
            provider=self.provider,
            status_code=status,
            retry_after=parse_retry_after(exc.response.headers),
            request_id=getattr(exc, "request_id", None),
            before_stream=before_stream,
            error_type=error_type,
        )

    def _request_failed(self, exc: BaseException, *, timeout: bool) -> ProviderError:
        """The error for a request that got no response: it timed out or did not connect."""
        if timeout:
            return ProviderTimeoutError(
                self._redact(f"{self.provider}: the request timed out: {with_cause(exc)}"),
                provider=self.provider,
                before_stream=True,
            )
        return ProviderConnectionError(
            self._redact(f"{self.provider}: connection failed: {with_cause(exc)}"),
            provider=self.provider,
            before_stream=True,
        )

"""What the provider batch clients share: the polling policy, the wait for a batch to end
(with backoff, a timeout that cancels the batch, and cancellation on task cancel), and
the marks every batch response carries.

A batch client (``<vendor>/batch.py``) creates one provider batch from many
`ModelRequest` values, waits here for it
to end, and maps each result with the same code the interactive client uses. It holds
the vendor's interactive ModelClient for the SDK client, the key, the endpoint, the
request mapping and the error texts, so a batch request goes out exactly as an
interactive one would (less the streaming). It reaches them through `BatchSeam`, the
public methods every SDK-backed ModelClient has for this, never through the client's
private members.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.domain.costs.pricing import BATCH_TIER
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderTimeoutError,
)
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse

__all__ = [
    "BATCH_TIER_SOURCE",
    "BatchEnd",
    "BatchPolling",
    "BatchSeam",
    "SdkBatchClient",
    "batch_response",
    "check_ids",
    "missing_result",
    "not_run",
    "wait_for_end",
]

log = get_logger(__name__)

BATCH_TIER_SOURCE = "batch_api"
"""``served_tier_source`` of a batch response: the provider's batch API served it."""

_T = TypeVar("_T")

_ENV = {
    "initial_interval": "DPT_BATCH_POLL_INITIAL_S",
    "max_interval": "DPT_BATCH_POLL_MAX_S",
    "timeout": "DPT_BATCH_TIMEOUT_S",
}
"""BatchPolling fields -> the variables `BatchPolling.from_env` reads."""


@dataclass(frozen=True, slots=True)
class BatchPolling:
    """How a batch client polls a batch until it ends.

    The first check comes ``initial_interval`` seconds after the batch was created; each
    wait is ``multiplier`` times the last, up to ``max_interval``. After ``timeout``
    seconds (None: no limit) the batch is cancelled and polled ``cancel_grace`` seconds
    more for the cancellation to end, so what completed is still returned (the rest comes
    back as errors); a batch that does not end even then raises
    `ProviderTimeoutError`.
    """

    initial_interval: float = 10.0
    """Seconds before the first check."""
    max_interval: float = 300.0
    """The longest wait between two checks."""
    multiplier: float = 2.0
    """Each wait is this multiple of the previous one."""
    timeout: float | None = 25 * 3600.0
    """Seconds before the batch is cancelled (the providers promise 24 hours)."""
    cancel_grace: float = 600.0
    """Seconds a cancelled batch may take to end."""

    def __post_init__(self) -> None:
        for name in ("initial_interval", "max_interval", "cancel_grace"):
            if getattr(self, name) < 0:
                raise ConfigurationError(f"BatchPolling.{name} must be >= 0")
        if self.multiplier < 1:
            raise ConfigurationError("BatchPolling.multiplier must be >= 1")
        if self.timeout is not None and self.timeout <= 0:
            raise ConfigurationError("BatchPolling.timeout must be > 0 (or None: no limit)")

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> BatchPolling:
        """The defaults, with ``DPT_BATCH_POLL_INITIAL_S``, ``DPT_BATCH_POLL_MAX_S`` and
        ``DPT_BATCH_TIMEOUT_S`` (seconds) from ``environ`` where set.

        Raises:
            ConfigurationError: a value that is not a number, naming the variable.
        """
        values: dict[str, float] = {}
        for name, variable in _ENV.items():
            raw = environ.get(variable)
            if raw:
                try:
                    values[name] = float(raw)
                except ValueError:
                    raise ConfigurationError(
                        f"{variable} must be a number of seconds, got {raw!r}"
                    ) from None
        return cls(**values)

    def intervals(self) -> Iterator[float]:
        """The waits between checks, forever (backoff capped at ``max_interval``)."""
        delay = self.initial_interval
        while True:
            yield min(delay, self.max_interval)
            delay = min(delay * self.multiplier, self.max_interval)


@dataclass(frozen=True, slots=True)
class BatchEnd(Generic[_T]):
    """How the wait ended: the provider's last view of the batch, and whether it was
    cancelled because it ran out of time."""

    batch: _T
    timed_out: bool = False


async def wait_for_end(
    retrieve: Callable[[], Awaitable[_T]],
    ended: Callable[[_T], bool],
    cancel: Callable[[], Awaitable[Any]],
    polling: BatchPolling,
    *,
    provider: str,
    batch_id: str,
) -> BatchEnd[_T]:
    """Poll ``retrieve`` until ``ended`` says the batch ended (see `BatchPolling`).

    A task cancelled while it waits cancels the provider batch (shielded) before the
    cancellation goes on: nothing keeps running, and being billed, unseen.
    """
    started = time.monotonic()
    try:
        for delay in polling.intervals():
            if polling.timeout is not None:
                left = polling.timeout - (time.monotonic() - started)
                if left <= 0:
                    break
                delay = min(delay, left)
            await asyncio.sleep(delay)
            batch = await retrieve()
            if ended(batch):
                return BatchEnd(batch)
    except asyncio.CancelledError:
        await _cancel_quietly(cancel, provider, batch_id)
        raise
    log.warning(
        f"{provider}: batch did not end in time; cancelling it",
        batch_id=batch_id,
        timeout_s=polling.timeout,
    )
    await cancel()
    grace = dataclasses.replace(polling, timeout=polling.cancel_grace or None)
    deadline = time.monotonic() + polling.cancel_grace
    for delay in grace.intervals():
        batch = await retrieve()
        if ended(batch):
            return BatchEnd(batch, timed_out=True)
        left = deadline - time.monotonic()
        if left <= 0:
            break
        await asyncio.sleep(min(delay, left))
    raise ProviderTimeoutError(
        f"{provider}: batch {batch_id} did not end within {polling.timeout} s, nor within "
        f"{polling.cancel_grace} s of being cancelled",
        provider=provider,
    )


async def _cancel_quietly(
    cancel: Callable[[], Awaitable[Any]], provider: str, batch_id: str
) -> None:
    try:
        await asyncio.shield(cancel())
    except Exception as exc:  # the caller's cancellation wins; say what was left running
        log.warning(
            f"{provider}: cancelling the batch failed; it may still run",
            batch_id=batch_id,
            error=type(exc).__name__,
        )


def batch_response(response: ModelResponse, batch_id: str) -> ModelResponse:
    """``response`` marked as served by the batch API (priced at the row's batch prices)."""
    metadata = {**response.metadata, "batch_id": batch_id}
    return dataclasses.replace(
        response,
        served_tier=BATCH_TIER,
        served_tier_source=BATCH_TIER_SOURCE,
        metadata=metadata,
    )


def check_ids(requests: Mapping[str, Any], provider: str, *, max_length: int = 64) -> None:
    """Refuse custom ids the providers refuse (empty, too long), before any network."""
    if not requests:
        raise ConfigurationError(f"{provider}: run_batch needs at least one request")
    for custom_id in requests:
        if not custom_id or len(custom_id) > max_length:
            raise ConfigurationError(
                f"{provider}: batch custom id {custom_id!r} must be 1 to {max_length} characters"
            )


def not_run(provider: str, custom_id: str, why: str, batch_id: str) -> ProviderError:
    """The outcome of a request the provider never ran (the batch was cancelled or
    expired): retryable, nothing was billed."""
    return ProviderTimeoutError(
        f"{provider}: request {custom_id!r} of batch {batch_id} was not run: {why}",
        provider=provider,
        before_stream=True,
        error_type=why,
    )


def missing_result(provider: str, custom_id: str, batch_id: str) -> ProviderError:
    """The outcome of a request the ended batch reported nothing for."""
    return ProviderError(
        f"{provider}: batch {batch_id} ended without a result for request {custom_id!r}",
        provider=provider,
        error_type="missing_result",
    )


class BatchSeam:
    """What a batch client uses of the vendor's interactive ModelClient: its public seam.

    ``SdkModelClient`` (every SDK-backed provider client) has these methods; each gives
    what the interactive client itself uses for a request, so a batch request is mapped,
    sent, logged and its errors worded exactly as an interactive one.
    """

    __slots__ = ()

    @property
    def log(self) -> Any:
        """The logger of the provider client's module."""
        return _self(self)._log

    def sdk_client(self, *sdk_modules: Any) -> Any:
        """The SDK client (shared per process and loop, or this instance's own for an
        explicit key), built from the SDK module(s) the vendor's client needs."""
        return _self(self)._sdk_client(*sdk_modules)

    def wire_request(self, request: ModelRequest) -> Any:
        """``request`` mapped to the vendor's wire request (params, extra body and headers)."""
        return _self(self)._wire(request)

    def call_options(self, wire: Any) -> dict[str, Any]:
        """The per-call SDK keywords (extra headers, body, timeout) for ``wire``."""
        options: dict[str, Any] = _self(self)._call_options(wire)
        return options

    def endpoint(self) -> tuple[str | None, str]:
        """The base URL the client was given or found (None: the SDK's default) and where
        it came from."""
        endpoint: tuple[str | None, str] = _self(self)._endpoint()
        return endpoint

    def registry_row(self, model: str) -> ModelInfo | None:
        """The registry row of ``model`` (None: not in the registry)."""
        row: ModelInfo | None = _self(self)._row(model)
        return row

    def redact(self, text: str) -> str:
        """``text`` without API keys, bearer tokens or URL userinfo."""
        redacted: str = _self(self)._redact(text)
        return redacted

    def status_error(self, exc: Any, **kwargs: Any) -> ProviderError:
        """Our error for the SDK's HTTP status error ``exc`` (as the interactive client
        words it)."""
        error: ProviderError = _self(self)._status_error(exc, **kwargs)
        return error

    async def open_call(
        self, sdk: Any, call: Awaitable[Any], status_error: Callable[[Any], ProviderError]
    ) -> Any:
        """Await ``call`` (an ``anthropic`` / ``openai`` SDK request): an HTTP error status
        raises ``status_error(exc)``, a timeout or a failed connection our timeout or
        connection error."""
        return await _self(self)._open_stream(sdk, call, status_error)


def _self(seam: BatchSeam) -> Any:
    """The client behind the seam, as the untyped object whose own members it calls."""
    return seam


_C = TypeVar("_C", bound=BatchSeam)


class SdkBatchClient(Generic[_C]):
    """What every vendor's batch client shares: it owns one of the vendor's interactive
    clients (``client_class``: same key lookup, base URL, timeouts and SDK client cache,
    whose mapping and parsing the batch reuses) and a `BatchPolling`."""

    client_class: Callable[..., _C]
    """The vendor's interactive ModelClient class."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = None,
        default_headers: dict[str, str] | None = None,
        row_lookup: Callable[[str], ModelInfo | None] | None = None,
        polling: BatchPolling | None = None,
    ) -> None:
        self._client: _C = self.client_class(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            default_headers=default_headers,
            row_lookup=row_lookup,
        )
        self.polling = polling or BatchPolling()
        """How the batch is polled until it ends."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._client!r})"

    async def aclose(self) -> None:
        """Close the SDK client this instance owns (a shared one is left open)."""
        await self._client.aclose()  # type: ignore[attr-defined]

"""What every provider adapter shares: endpoint redaction, retry-after parsing, and the
per-event-loop cache of SDK clients.

SDK clients (httpx2 connection pools) are bound to the event loop that first used them, so
they are cached per (event loop, key). ``asyncio.run`` closes its loop when it returns:
:func:`release_loop_clients` closes every client bound to the running loop, across all
adapters, and ``Agent.run_sync`` calls it before its private loop ends — so no client is
left to be closed (and to complain) on a dead loop.
"""

from __future__ import annotations

import asyncio
import email.utils
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Any
from urllib.parse import urlsplit

from doc_processing_toolkit._logging import get_logger

__all__ = [
    "LoopClientCache",
    "parse_retry_after",
    "release_loop_clients",
    "safe_url",
    "with_cause",
]

log = get_logger(__name__)


def safe_url(url: str) -> str:
    """``scheme://host:port/path`` of ``url``: no userinfo, no query, no fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "<unparseable url>"
    return f"{parts.scheme}://{host}{port}{parts.path}"


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


class _NoLoop:
    """The cache key when no asyncio loop runs (e.g. anyio on trio)."""


_NO_LOOP = _NoLoop()


def _loop_key() -> Any:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return _NO_LOOP


_CACHES: weakref.WeakSet[LoopClientCache] = weakref.WeakSet()
_CACHES_LOCK = threading.Lock()


class LoopClientCache:
    """SDK clients keyed by (running event loop, key); ``close`` closes one client."""

    def __init__(self, close: Callable[[Any], Awaitable[None]]) -> None:
        self._close = close
        self._lock = threading.Lock()
        self._by_loop: weakref.WeakKeyDictionary[Any, dict[Hashable, Any]] = (
            weakref.WeakKeyDictionary()
        )
        with _CACHES_LOCK:
            _CACHES.add(self)

    def get(self, key: Hashable, factory: Callable[[], Any]) -> Any:
        """The client for ``key`` on the running loop, built by ``factory`` once."""
        with self._lock:
            per_loop = self._by_loop.setdefault(_loop_key(), {})
            client = per_loop.get(key)
            if client is None:
                client = factory()
                per_loop[key] = client
            return client

    def clients(self) -> list[Any]:
        """The clients held for the running loop."""
        with self._lock:
            return list(self._by_loop.get(_loop_key(), {}).values())

    async def close_current_loop(self) -> None:
        """Close every client this cache holds for the running loop; forget the others."""
        loop = _loop_key()
        with self._lock:
            clients = list(self._by_loop.pop(loop, {}).values())
        for client in clients:
            try:
                await self._close(client)
            except Exception as exc:  # closing must never fail a run
                log.debug("closing an SDK client failed", error=type(exc).__name__)

    def clear(self) -> None:
        """Forget every client (those on other loops are left to the garbage collector)."""
        with self._lock:
            self._by_loop.clear()


async def release_loop_clients() -> None:
    """Close every adapter's SDK clients bound to the running loop (shared and owned)."""
    with _CACHES_LOCK:
        caches = list(_CACHES)
    for cache in caches:
        await cache.close_current_loop()

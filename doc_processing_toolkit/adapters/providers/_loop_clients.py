"""The per-event-loop cache of SDK clients every provider adapter shares.

SDK clients (httpx2 connection pools) are bound to the event loop that first used them, so
they are cached per (event loop, key) in a `LoopClientCache`. ``asyncio.run`` closes its
loop when it returns: `release_loop_clients` closes every client bound to the running
loop, across all adapters, and ``Agent.run_sync`` calls it before its private loop ends —
so no client is left to be closed (and to complain) on a dead loop.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from doc_processing_toolkit._logging import get_logger

__all__ = ["LoopClientCache", "close_sdk_client", "release_loop_clients"]

log = get_logger(__name__)


class _NoLoop:
    """The cache key when no asyncio loop runs (e.g. anyio on trio)."""


_NO_LOOP = _NoLoop()


def _loop_key() -> Any:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return _NO_LOOP


_CLOSE_ON_LOOP_TIMEOUT_S = 5.0
"""How long closing a client on another thread's loop may take before it is let go."""

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
        self._last: tuple[weakref.ref[Any], Hashable, Any] | None = None
        """The last client handed out, with its loop (weakly) and key: the next call on
        the same loop for the same key, the usual case, takes no lock."""
        with _CACHES_LOCK:
            _CACHES.add(self)

    def get(self, key: Hashable, factory: Callable[[], Any]) -> Any:
        """The client for ``key`` on the running loop, built by ``factory`` once."""
        loop = _loop_key()
        last = self._last
        if last is not None and last[0]() is loop and last[1] == key:
            return last[2]
        with self._lock:
            per_loop = self._by_loop.setdefault(loop, {})
            client = per_loop.get(key)
            if client is None:
                client = factory()
                per_loop[key] = client
            self._last = (weakref.ref(loop, self._forget_loop()), key, client)
            return client

    def _forget_loop(self) -> Callable[[weakref.ref[Any]], None]:
        """The callback that drops `_last` when its loop is collected (so a client
        of a finished ``run_sync`` loop is not kept alive by it)."""
        cache = weakref.ref(self)

        def forget(dead: weakref.ref[Any]) -> None:
            held = cache()
            if held is not None and held._last is not None and held._last[0] is dead:
                held._last = None

        return forget

    def clients(self) -> list[Any]:
        """The clients held for the running loop."""
        with self._lock:
            return list(self._by_loop.get(_loop_key(), {}).values())

    async def close_current_loop(self) -> None:
        """Close every client this cache holds for the running loop; forget the others."""
        loop = _loop_key()
        with self._lock:
            self._last = None
            clients = list(self._by_loop.pop(loop, {}).values())
        for client in clients:
            await self._close_quietly(client)

    async def close_every_loop(self) -> None:
        """Close every client this cache holds: the running loop's here, a live other
        loop's on that loop (the stream worker's, say); forget those of closed loops."""
        current = _loop_key()
        with self._lock:
            self._last = None
            held = list(self._by_loop.items())
            self._by_loop.clear()
        for loop, clients in held:
            for client in clients.values():
                if loop is current:
                    await self._close_quietly(client)
                elif (
                    current is not _NO_LOOP
                    and isinstance(loop, asyncio.AbstractEventLoop)
                    and loop.is_running()
                    and not loop.is_closed()
                ):
                    await self._close_on(loop, client)

    async def _close_on(self, loop: asyncio.AbstractEventLoop, client: Any) -> None:
        try:
            done = asyncio.run_coroutine_threadsafe(self._close_quietly(client), loop)
            await asyncio.wait_for(asyncio.wrap_future(done), _CLOSE_ON_LOOP_TIMEOUT_S)
        except Exception as exc:  # closing must never fail a run
            log.debug("closing an SDK client on its loop failed", error=type(exc).__name__)

    async def _close_quietly(self, client: Any) -> None:
        try:
            await self._close(client)
        except Exception as exc:  # closing must never fail a run
            log.debug("closing an SDK client failed", error=type(exc).__name__)

    def clear(self) -> None:
        """Forget every client (those on other loops are left to the garbage collector)."""
        with self._lock:
            self._last = None
            self._by_loop.clear()


async def release_loop_clients() -> None:
    """Close every adapter's SDK clients bound to the running loop (shared and owned)."""
    with _CACHES_LOCK:
        caches = list(_CACHES)
    for cache in caches:
        await cache.close_current_loop()


async def close_sdk_client(client: Any) -> None:
    """Close an SDK client that has an async ``close()`` (anthropic, openai)."""
    await client.close()

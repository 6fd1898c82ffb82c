"""The Google SDK client's connection pool: several small pools behind one transport.

httpcore's pool checks every idle connection's socket (``has_expired`` polls it) each
time a request arrives or a response is closed. With the 100 idle connections a burst of
100 concurrent runs needs kept (so the next burst does not open 80 TLS connections again),
that is ~100 polls per event, ~0.4 ms of CPU per call on the 2-core bench machine: the
google-genai SDK given a pool of 100 made 0.71-0.81x the calls/s of its default pool of 20.

:class:`ShardedTransport` keeps the 100 idle connections in :data:`SHARDS` pools of 20
(the SDK's own default size), and sends each request to the pool with the fewest requests
in flight (the first on a tie, so sequential calls reuse one connection). A poll then
scans at most 20 connections. It is an ordinary ``httpx2`` transport given to the SDK's
``AsyncClient`` (``async_client_args["transport"]``); TLS verification is the context the
adapter gives the SDK, and ``HTTP(S)_PROXY`` from the environment still applies (httpx
mounts its proxy transports in front of this one).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2

__all__ = ["SHARDS", "ShardedTransport"]

SHARDS = 5
"""Pools per SDK client."""
MAX_CONNECTIONS = 1000
"""Connections at once, all pools together (``client.CONNECTION_LIMITS``)."""
MAX_KEEPALIVE = 100
"""Idle connections kept, all pools together (``client.CONNECTION_LIMITS``)."""


class _Released(httpx2.AsyncByteStream):
    """A response body that gives its pool's in-flight slot back when it is closed."""

    __slots__ = ("_done", "_stream")

    def __init__(self, stream: httpx2.AsyncByteStream, done: Any) -> None:
        self._stream = stream
        self._done = done

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        done, self._done = self._done, None
        try:
            await self._stream.aclose()
        finally:
            if done is not None:
                done()


class ShardedTransport(httpx2.AsyncBaseTransport):
    """:data:`SHARDS` ``AsyncHTTPTransport`` pools; each request goes to the least busy."""

    def __init__(self, *, verify: Any = True, shards: int = SHARDS, trust_env: bool = True) -> None:
        if shards < 1:
            raise ValueError(f"shards must be at least 1, got {shards}")
        limits = httpx2.Limits(
            max_connections=MAX_CONNECTIONS // shards,
            max_keepalive_connections=MAX_KEEPALIVE // shards,
        )
        self._pools = [
            httpx2.AsyncHTTPTransport(verify=verify, limits=limits, trust_env=trust_env)
            for _ in range(shards)
        ]
        self._busy = [0] * shards

    @property
    def in_flight(self) -> list[int]:
        """Requests each pool is serving (sent, and the response not yet closed)."""
        return list(self._busy)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        busy = self._busy
        index = busy.index(min(busy))
        busy[index] += 1
        try:
            response = await self._pools[index].handle_async_request(request)
        except BaseException:
            busy[index] -= 1
            raise

        def done() -> None:
            busy[index] -= 1

        if response.is_closed:  # a body read already (an in-memory transport's)
            done()
            return response
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        response.stream = _Released(stream, done)
        return response

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()

"""The SDK clients' connection pool: several small pools behind one transport.

httpcore's pool checks every idle connection's socket (``has_expired`` polls it) each
time a request arrives or a response is closed. With the 100 idle connections a burst of
100 concurrent runs needs kept (so the next burst does not open 80 TLS connections again;
the Anthropic and OpenAI SDKs keep 100 by default), that is ~100 polls per event, ~0.4 ms
of CPU per call on the 2-core bench machine: the google-genai SDK given a pool of 100
made 0.71-0.81x the calls/s of its default pool of 20.

`ShardedTransport` keeps the 100 idle connections in `SHARDS` pools of 20
(httpx's own default size), and sends each request to the pool with the fewest requests
in flight (the first on a tie, so sequential calls reuse one connection). A poll then
scans at most 20 connections. It is an ordinary ``httpx2`` transport, handed to each SDK
through its documented client option: ``http_client=DefaultAsyncHttpxClient(transport=)``
(anthropic, openai; `sdk_http_client`) and ``async_client_args["transport"]``
(google-genai). TLS verification is the context the adapter gives the SDK, and the
Anthropic SDK's TCP keep-alive socket options are kept (`tcp_keepalive_options`).

httpx does not read ``HTTP(S)_PROXY`` / ``ALL_PROXY`` for a client given its own
transport, so when the environment names a proxy (`environment_proxy`) the SDK
keeps its default transport and pool, and its proxy handling, exactly.
"""

from __future__ import annotations

import socket
import sys
import urllib.request
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx2

from doc_processing_toolkit.domain.errors import InvalidInputError

__all__ = [
    "SHARDS",
    "ShardedTransport",
    "environment_proxy",
    "sdk_http_client",
    "tcp_keepalive_options",
]

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

    def __aiter__(self) -> AsyncIterator[bytes]:
        # The pool's own iterator: no generator of ours that a close from another task
        # (the idle watchdog) could find still running.
        return self._stream.__aiter__()

    async def aclose(self) -> None:
        done, self._done = self._done, None
        try:
            await self._stream.aclose()
        finally:
            if done is not None:
                done()


class ShardedTransport(httpx2.AsyncBaseTransport):
    """`SHARDS` ``AsyncHTTPTransport`` pools; each request goes to the least busy."""

    def __init__(
        self,
        *,
        verify: Any = True,
        shards: int = SHARDS,
        trust_env: bool = True,
        socket_options: Iterable[tuple[int, int, int | bool]] | None = None,
    ) -> None:
        if shards < 1:
            raise InvalidInputError(f"shards must be at least 1, got {shards}")
        limits = httpx2.Limits(
            max_connections=MAX_CONNECTIONS // shards,
            max_keepalive_connections=MAX_KEEPALIVE // shards,
        )
        self._pools = [
            httpx2.AsyncHTTPTransport(
                verify=verify, limits=limits, trust_env=trust_env, socket_options=socket_options
            )
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


def environment_proxy() -> bool:
    """Whether the environment names an HTTP, HTTPS or ALL proxy (``HTTPS_PROXY`` and
    friends, as ``urllib.request.getproxies`` reads them)."""
    proxies = urllib.request.getproxies()
    return any(proxies.get(scheme) for scheme in ("http", "https", "all"))


def tcp_keepalive_options() -> list[tuple[int, int, int | bool]]:
    """The TCP keep-alive options the Anthropic SDK's default transport sets on its
    sockets (``_DefaultAsyncHttpxClient``): probes after 60 s idle, every 60 s, 5 of them."""
    options: list[tuple[int, int, int | bool]] = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, True)]
    interval = getattr(socket, "TCP_KEEPINTVL", None)
    if interval is not None:
        options.append((socket.IPPROTO_TCP, interval, 60))
    elif sys.platform == "darwin":
        options.append((socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPALIVE", 0x10), 60))
    count = getattr(socket, "TCP_KEEPCNT", None)
    if count is not None:
        options.append((socket.IPPROTO_TCP, count, 5))
    idle = getattr(socket, "TCP_KEEPIDLE", None)
    if idle is not None:
        options.append((socket.IPPROTO_TCP, idle, 60))
    return options


def sdk_http_client(
    sdk: Any, verify: Any, socket_options: list[tuple[int, int, int | bool]] | None = None
) -> Any:
    """The ``anthropic`` / ``openai`` SDK's own async httpx client (its timeouts, limits and
    redirects), verifying with ``verify``, over a `ShardedTransport`; under an
    environment proxy, the SDK's client as it makes it."""
    if environment_proxy():
        return sdk.DefaultAsyncHttpxClient(verify=verify)
    transport = ShardedTransport(verify=verify, socket_options=socket_options)
    return sdk.DefaultAsyncHttpxClient(verify=verify, transport=transport)

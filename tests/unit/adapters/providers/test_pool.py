"""ShardedTransport: the SDK clients' idle connections kept in several small pools.

Driven with ``httpx2.MockTransport`` pools (real transports that answer in process), so
the routing and the in-flight accounting are seen without a socket.
"""

from __future__ import annotations

import anyio
import httpx2
import pytest

from doc_processing_toolkit.adapters.providers._pool import (
    MAX_KEEPALIVE,
    SHARDS,
    ShardedTransport,
    environment_proxy,
    sdk_http_client,
    tcp_keepalive_options,
)
from doc_processing_toolkit.adapters.providers.google import client as google_client
from doc_processing_toolkit.domain.errors import InvalidInputError

pytestmark = pytest.mark.anyio


class _Body(httpx2.AsyncByteStream):
    """A body read from the network, as the pools' own transports return it."""

    async def __aiter__(self):  # type: ignore[no-untyped-def]
        yield b"data: {}\n\n"


def _sharded(shards: int = SHARDS, handler: object = None) -> tuple[ShardedTransport, list[int]]:
    """A transport whose pools are mock transports; the list records which pool served."""
    served: list[int] = []
    transport = ShardedTransport(shards=shards)

    def pool(index: int) -> httpx2.MockTransport:
        def answer(request: httpx2.Request) -> httpx2.Response:
            served.append(index)
            if handler is not None:
                return handler(request)  # type: ignore[operator, no-any-return]
            return httpx2.Response(200, stream=_Body())

        return httpx2.MockTransport(answer)

    transport._pools = [pool(i) for i in range(shards)]  # type: ignore[assignment]
    return transport, served


async def test_sequential_requests_stay_on_the_first_pool() -> None:
    transport, served = _sharded()
    async with httpx2.AsyncClient(transport=transport) as client:
        for _ in range(4):
            response = await client.get("http://x/")
            assert response.status_code == 200
    assert served == [0, 0, 0, 0]  # one pool: its idle connection is reused
    assert transport.in_flight == [0] * SHARDS


async def test_open_responses_spread_over_the_pools_and_a_close_frees_a_slot() -> None:
    transport, served = _sharded(shards=3)
    async with httpx2.AsyncClient(transport=transport) as client:
        requests = [client.build_request("GET", "http://x/") for _ in range(7)]
        responses = [await client.send(r, stream=True) for r in requests]
        assert served == [0, 1, 2, 0, 1, 2, 0]
        assert transport.in_flight == [3, 2, 2]
        await responses[1].aclose()  # pool 1 is now the least busy
        assert transport.in_flight == [3, 1, 2]
        responses[1] = await client.send(client.build_request("GET", "http://x/"), stream=True)
        assert served[-1] == 1
        for response in responses:
            assert await response.aread() == b"data: {}\n\n"
            await response.aclose()
            await response.aclose()  # a second close gives nothing back twice
    assert transport.in_flight == [0, 0, 0]


async def test_a_body_already_read_gives_its_slot_back_at_once() -> None:
    transport, _ = _sharded(shards=2, handler=lambda r: httpx2.Response(200, content=b"x"))
    async with httpx2.AsyncClient(transport=transport) as client:
        async with client.stream("GET", "http://x/") as response:
            assert transport.in_flight == [0, 0]
            assert await response.aread() == b"x"


async def test_a_failed_request_gives_its_slot_back() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    transport, _ = _sharded(shards=2, handler=refuse)
    async with httpx2.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx2.ConnectError):
            await client.get("http://x/")
    assert transport.in_flight == [0, 0]


async def test_a_cancelled_stream_gives_its_slot_back() -> None:
    transport, _ = _sharded(shards=2)
    async with httpx2.AsyncClient(transport=transport) as client:
        with anyio.CancelScope() as scope:
            async with client.stream("GET", "http://x/"):
                assert transport.in_flight == [1, 0]
                scope.cancel()
                await anyio.sleep(1)
    assert transport.in_flight == [0, 0]


def test_the_limits_add_up_to_the_agents_and_bad_shards_are_refused() -> None:
    transport = ShardedTransport()
    limits = [pool._pool for pool in transport._pools]  # httpcore2 pools
    assert len(limits) == SHARDS
    assert sum(p._max_keepalive_connections for p in limits) == MAX_KEEPALIVE
    assert MAX_KEEPALIVE == google_client.CONNECTION_LIMITS["max_keepalive_connections"]
    with pytest.raises(InvalidInputError, match="shards must be at least 1"):
        ShardedTransport(shards=0)


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "http_proxy", "ALL_PROXY"])
def test_under_an_environment_proxy_each_sdk_keeps_its_own_transport(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """httpx reads no proxy variable for a client given its own transport: under one,
    the SDKs make their clients as they always do (and so route through the proxy)."""
    import anthropic
    import openai

    from doc_processing_toolkit.adapters.providers.google import GoogleModelClient
    from doc_processing_toolkit.adapters.providers.google.client import import_genai

    for name in (
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    genai, types, _ = import_genai()

    def transports() -> list[object]:
        google = GoogleModelClient(api_key="k")._new_sdk_client(
            genai, types, "k", "http://127.0.0.1:9", None
        )
        return [
            sdk_http_client(anthropic, True)._transport,
            sdk_http_client(openai, True)._transport,
            google.aio._api_client._async_httpx_client._transport,
        ]

    assert not environment_proxy()
    assert all(isinstance(t, ShardedTransport) for t in transports())
    monkeypatch.setenv(variable, "http://proxy.invalid:3128")
    assert environment_proxy()
    assert not any(isinstance(t, ShardedTransport) for t in transports())


def test_the_anthropic_keepalive_options_are_the_sdks_own() -> None:
    import anthropic

    default = anthropic.DefaultAsyncHttpxClient()._transport._pool  # what the SDK builds
    assert tcp_keepalive_options() == default._socket_options

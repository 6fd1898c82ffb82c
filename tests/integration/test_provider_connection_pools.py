"""Every provider adapter's SDK client keeps its idle connections in several small pools
(adapters/providers/_pool.py), against the loopback ProviderEmulator."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from doc_processing_toolkit import Agent, ProviderError
from doc_processing_toolkit.adapters.providers._common import shared_ssl_context
from doc_processing_toolkit.adapters.providers._pool import (
    SHARDS,
    ShardedTransport,
    tcp_keepalive_options,
)
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Fault, Reply

MODELS = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-4o",
    "google": "gemini-2.5-flash",
    "fireworks": "kimi-k2p6",
}
PATHS = {"anthropic": "", "openai": "/v1", "google": "", "fireworks": "/inference/v1"}


def _agent(provider: str, emu: ProviderEmulator) -> Agent:
    return Agent(
        MODELS[provider],
        api_key="test-key",
        base_url=emu.url + PATHS[provider],
        log_to_file=False,
    )


def _http_client(agent: Agent) -> Any:
    (sdk,) = agent._get_client()._own.clients()  # type: ignore[attr-defined]
    if agent.provider == "google":
        return sdk.aio._api_client._async_httpx_client
    return sdk._client


def _transport(agent: Agent) -> ShardedTransport:
    transport = _http_client(agent)._transport
    assert isinstance(transport, ShardedTransport)
    return transport


def _connections(transport: ShardedTransport) -> list[int]:
    return [len(pool._pool.connections) for pool in transport._pools]  # type: ignore[attr-defined]


@pytest.mark.parametrize("provider", list(MODELS))
def test_a_burst_spreads_over_the_pools_and_every_slot_comes_back(
    provider: str, emu: ProviderEmulator
) -> None:
    emu.default = Reply("pooled answer", chunk_size=4, delay_between_chunks=0.01)
    agent = _agent(provider, emu)

    async def go() -> tuple[list[int], list[int], list[int]]:
        results = await asyncio.gather(*(agent.run("hello") for _ in range(30)))
        assert all(r.output == "pooled answer" for r in results)
        transport = _transport(agent)
        after_burst = _connections(transport)
        for _ in range(3):  # sequential: the first pool's idle connection each time
            assert (await agent.run("again")).output == "pooled answer"
        in_flight = transport.in_flight
        after = _connections(transport)
        await agent.close()
        return after_burst, after, in_flight

    after_burst, after, in_flight = asyncio.run(go())
    assert in_flight == [0] * SHARDS
    assert sum(after_burst) <= 30 and max(after_burst) <= 20  # kept, in several pools
    assert sum(1 for n in after_burst if n) > 1
    assert after == after_burst  # nothing opened for the sequential calls


@pytest.mark.parametrize("provider", ["anthropic", "google"])
def test_a_stream_cut_mid_way_gives_its_pool_slot_back(
    provider: str, emu: ProviderEmulator
) -> None:
    emu.reset([Fault("disconnect", partial_text="half")] * 3)
    agent = _agent(provider, emu)

    async def go() -> list[int]:
        with pytest.raises(ProviderError):
            await agent.run("hello")
        in_flight = _transport(agent).in_flight
        await agent.close()
        return in_flight

    assert asyncio.run(go()) == [0] * SHARDS


@pytest.mark.parametrize("provider", list(MODELS))
def test_the_pools_verify_with_the_adapters_tls_context_and_keep_the_sdks_socket_options(
    provider: str, emu: ProviderEmulator
) -> None:
    emu.default = Reply("ok")
    agent = _agent(provider, emu)

    async def go() -> tuple[Any, Any]:
        assert (await agent.run("hello")).output == "ok"
        pool = _transport(agent)._pools[0]._pool  # type: ignore[attr-defined]
        used = pool._ssl_context, pool._socket_options
        await agent.close()
        return used

    context, options = asyncio.run(go())
    assert context is shared_ssl_context()
    # The Anthropic SDK's default transport sets TCP keep-alives; the others set none.
    assert options == (tcp_keepalive_options() if provider == "anthropic" else None)

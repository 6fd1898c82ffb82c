"""The Google adapter's SDK client keeps its idle connections in several small pools
(adapters/providers/google/pool.py), against the loopback ProviderEmulator."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from doc_processing_toolkit import Agent, ProviderError
from doc_processing_toolkit.adapters.providers.google.client import import_genai
from doc_processing_toolkit.adapters.providers.google.pool import SHARDS, ShardedTransport
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Fault, Reply

MODEL = "gemini-2.5-flash"


def _transport(agent: Agent) -> ShardedTransport:
    genai, types, _ = import_genai()
    sdk = agent._get_client()._sdk_client(genai, types)  # type: ignore[attr-defined]
    transport = sdk.aio._api_client._async_httpx_client._transport
    assert isinstance(transport, ShardedTransport)
    return transport


def _connections(transport: ShardedTransport) -> list[int]:
    return [len(pool._pool.connections) for pool in transport._pools]  # type: ignore[attr-defined]


def test_a_burst_spreads_over_the_pools_and_every_slot_comes_back(emu: ProviderEmulator) -> None:
    emu.default = Reply("pooled answer", chunk_size=4, delay_between_chunks=0.01)
    agent = Agent(MODEL, api_key="test-key", base_url=emu.url, log_to_file=False)

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


def test_a_stream_cut_mid_way_gives_its_pool_slot_back(emu: ProviderEmulator) -> None:
    emu.reset([Fault("disconnect", partial_text="half")] * 3)
    agent = Agent(MODEL, api_key="test-key", base_url=emu.url, log_to_file=False)

    async def go() -> list[int]:
        with pytest.raises(ProviderError):
            await agent.run("hello")
        in_flight = _transport(agent).in_flight
        await agent.close()
        return in_flight

    assert asyncio.run(go()) == [0] * SHARDS


def test_the_sdk_is_handed_the_adapters_tls_context(emu: ProviderEmulator) -> None:
    agent = Agent(MODEL, api_key="test-key", base_url=emu.url, log_to_file=False)

    async def go() -> tuple[Any, Any]:
        transport = _transport(agent)
        pool = transport._pools[0]._pool  # type: ignore[attr-defined]
        genai, types, _ = import_genai()
        sdk = agent._get_client()._sdk_client(genai, types)  # type: ignore[attr-defined]
        given = sdk._api_client._http_options.async_client_args["verify"]
        await agent.close()
        return pool._ssl_context, given

    used, given = asyncio.run(go())
    assert used is given

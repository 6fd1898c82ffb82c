"""LoopClientCache: one SDK client per (event loop, key), the repeated call lock-free."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

from doc_processing_toolkit.adapters.providers._common import LoopClientCache


class _Client:
    closed = False

    async def close(self) -> None:
        self.closed = True


async def _close(client: Any) -> None:
    await client.close()


def test_a_client_per_loop_and_key_built_once() -> None:
    cache = LoopClientCache(_close)
    built: list[_Client] = []

    def new() -> _Client:
        built.append(_Client())
        return built[-1]

    async def three() -> tuple[Any, Any, Any]:
        return cache.get("k", new), cache.get("k", new), cache.get("other", new)

    a, b, other = asyncio.run(three())
    assert a is b and other is not a and len(built) == 2
    again, _, _ = asyncio.run(three())  # a new loop: new clients, not the old loop's
    assert again is not a and len(built) == 4


def test_closing_the_loops_clients_forgets_the_last_one_too() -> None:
    cache = LoopClientCache(_close)

    async def run() -> None:
        first = cache.get("k", _Client)
        await cache.close_current_loop()
        assert first.closed
        second = cache.get("k", _Client)
        assert second is not first and not second.closed
        cache.clear()
        assert cache.get("k", _Client) is not second

    asyncio.run(run())


def test_a_finished_loops_client_is_not_kept_alive() -> None:
    cache = LoopClientCache(_close)
    held: list[weakref.ref[_Client]] = []

    async def run() -> None:
        held.append(weakref.ref(cache.get("k", _Client)))

    asyncio.run(run())
    gc.collect()
    assert held[0]() is None and cache._last is None

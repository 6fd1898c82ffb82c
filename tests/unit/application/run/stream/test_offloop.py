"""The off-loop model client: the stream handoff and the stream worker."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from waiting import WAIT


def test_the_handoff_keeps_order_and_wakes_the_loop_once_per_batch() -> None:
    from doc_processing_toolkit.application.run.stream.offloop import _Handoff

    async def main() -> tuple[list[Any], int]:
        loop = asyncio.get_running_loop()
        handoff = _Handoff(loop)
        wakes = 0
        real = loop.call_soon_threadsafe

        def counting(callback: Any, *args: Any) -> Any:
            nonlocal wakes
            wakes += 1
            return real(callback, *args)

        loop.call_soon_threadsafe = counting  # type: ignore[method-assign]

        def produce() -> None:
            for n in range(500):
                handoff.put(n)
            handoff.put("end")

        thread = threading.Thread(target=produce)
        thread.start()
        seen: list[Any] = []
        while not seen or seen[-1] != "end":
            seen.extend(await handoff.take())
        thread.join(WAIT)
        return seen, wakes

    seen, wakes = asyncio.run(main())
    assert seen == [*range(500), "end"]
    assert 1 <= wakes < 501  # batches, not one wake-up per item


def test_the_stream_worker_hands_back_items_then_the_error_and_a_close_cancels_it() -> None:
    from doc_processing_toolkit.application.run.stream.offloop import OffLoopModelClient

    cancelled = threading.Event()

    class Inner:
        provider = "fake"

        async def stream(self, request: Any) -> Any:
            yield "first"
            if request == "fail":
                raise RuntimeError("the provider broke")
            try:
                while True:
                    yield "more"
                    await asyncio.sleep(0.001)
            except asyncio.CancelledError:
                cancelled.set()
                raise

        async def aclose(self) -> None: ...

    async def main() -> list[Any]:
        client = OffLoopModelClient(Inner())  # type: ignore[arg-type]
        seen: list[Any] = []
        with pytest.raises(RuntimeError, match="the provider broke"):
            async for item in client.stream("fail"):  # type: ignore[arg-type]
                seen.append(item)
        stream = client.stream("endless")  # type: ignore[arg-type]
        seen.append(await stream.__anext__())
        await stream.aclose()  # the consumer goes away: the worker's call is cancelled
        return seen

    assert asyncio.run(main()) == ["first", "first"]
    assert cancelled.wait(WAIT)

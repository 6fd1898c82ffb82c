"""A hook never holds the event loop or the run: a slow synchronous hook runs off the
loop (another run's healthy stream goes on), and ``RunHandle.abort()`` ends a run whose
hook never returns, async or sync, with the documented ``AgentAborted``."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from doc_processing_toolkit import Agent, AgentAborted
from doc_processing_toolkit.domain.events import AgentStreamEvent
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply, reply

MODEL = "claude-sonnet-5-5"
BOUND_S = 60.0
"""How long a test waits before it calls the run hung (never reached when it passes)."""
pytestmark = pytest.mark.anyio


async def _until(condition: object, what: str) -> None:
    for _ in range(int(BOUND_S / 0.01)):
        if callable(condition) and condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def test_a_slow_sync_hook_does_not_stall_another_runs_stream(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_MAX_RETRIES", "0")
    text = "y" * 40
    emu.push(Reply(text=text, chunk_size=1, delay_between_chunks=0.05))
    streaming = Agent(
        MODEL, api_key="sk-test-hooks", base_url=emu.anthropic_base_url, stream_idle_timeout=0.5
    )

    def slow_hook(event: AgentStreamEvent) -> None:
        if event.event_type == "run_start":
            time.sleep(2.0)  # a blocking call in a synchronous hook

    hooked = Agent(MODEL, client=FakeModel([reply("done")]), hooks=slow_hook)
    try:
        healthy = asyncio.create_task(streaming.run("write"))
        await _until(lambda: emu.streams and emu.streams[0].chunks_sent >= 5, "the stream")
        other = await asyncio.wait_for(hooked.run("go"), BOUND_S)
        result = await asyncio.wait_for(healthy, BOUND_S)
    finally:
        await streaming.close()
        await hooked.close()
    assert other.output == "done"
    assert result.output == text
    assert result.retry_count == 0


async def test_abort_cancels_an_async_hook_that_never_returns() -> None:
    entered = asyncio.Event()

    async def stuck(event: AgentStreamEvent) -> None:
        if event.event_type == "iteration_start":
            entered.set()
            await asyncio.Event().wait()  # never returns

    model = FakeModel([reply("never sent")])
    agent = Agent(MODEL, client=model, hooks=stuck)
    run = asyncio.create_task(agent.run("go"))
    try:
        await asyncio.wait_for(entered.wait(), BOUND_S)
        handle = agent.run_handle
        assert handle is not None
        handle.abort("host said stop")
        with pytest.raises(AgentAborted) as caught:
            await asyncio.wait_for(run, BOUND_S)
    finally:
        run.cancel()
        await agent.close()
    assert caught.value.reason == "host said stop"
    assert model.requests == []


def test_abort_from_another_thread_ends_a_run_whose_sync_hook_blocks() -> None:
    entered, release = threading.Event(), threading.Event()
    returned: list[str] = []

    def blocking(event: AgentStreamEvent) -> None:
        if event.event_type == "iteration_start":
            entered.set()
            release.wait(BOUND_S)  # blocks until the test is over
            returned.append(event.event_type)

    model = FakeModel([reply("never sent")])
    agent = Agent(MODEL, client=model, hooks=blocking)

    def host() -> None:
        if entered.wait(BOUND_S):
            handle = agent.run_handle
            if handle is not None:
                handle.abort("stop")

    thread = threading.Thread(target=host, daemon=True)
    thread.start()
    try:
        with pytest.raises(AgentAborted) as caught:
            agent.run_sync("go")
        assert returned == []  # the run ended while the hook was still blocked
    finally:
        release.set()
        thread.join(BOUND_S)
    assert caught.value.reason == "stop"
    assert model.requests == []

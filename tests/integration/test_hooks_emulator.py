"""Hooks and stream cancellation through the real Anthropic SDK against the emulator."""

from __future__ import annotations

import contextlib

import pytest
from waiting import Host, run_steered, until

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.hooks import ConfirmAfterNToolCalls
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply, reply, tool_call

MODEL = "claude-sonnet-4-5"
CADENCE_S = 2.0
"""Seconds between the slow reply's chunks (0.02 let a loaded machine see 6 chunks sent)."""


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_confirm_pauses_with_no_request_sent_and_resume_completes(
    emu: ProviderEmulator,
) -> None:
    emu.push(tool_call("calculate", {"a": 2, "b": 3}), reply("5"))
    agent = Agent(
        MODEL,
        tools=[calculate],
        hooks=ConfirmAfterNToolCalls(1),
        api_key="sk-test-hooks",
        base_url=emu.anthropic_base_url,
    )
    seen_while_paused: list[int] = []

    def steer(host: Host) -> None:
        # Waits for the observable pause however long start-up takes (importing the
        # Anthropic SDK took 17 s on a loaded machine); gives up only by aborting the run.
        handle = host.wait_for_pause("the pause")
        seen_while_paused.append(emu.request_count)
        handle.resume()

    result = run_steered(agent, lambda: agent.run_sync("2+3?"), steer)
    assert seen_while_paused == [1]
    assert result.output == "5"
    assert emu.request_count == 2


@pytest.mark.anyio
async def test_breaking_out_of_a_stream_closes_the_connection_and_keeps_the_bill(
    emu: ProviderEmulator,
) -> None:
    # The server's chunks come CADENCE_S apart: far more than the client takes to close,
    # busy machine or not, so what the server sent after the break is at most one chunk.
    emu.push(Reply(text="x" * 300, chunk_size=1, delay_between_chunks=CADENCE_S, input_tokens=777))
    agent = Agent(MODEL, api_key="sk-test-hooks", base_url=emu.anthropic_base_url)
    deltas = 0
    async with contextlib.aclosing(agent.stream("write an essay")) as stream:
        async for event in stream:
            if event.event_type == "text_delta":
                deltas += 1
                break
    spent = agent.last_abandoned_stream
    assert spent is not None and spent["abandoned"] is True
    assert spent["input_tokens"] == 777 and spent["cost"] > 0
    # the server thread sees the close a moment later
    await until(lambda: emu.streams[0].closed_by_client, "the server to see the close")
    (record,) = emu.streams
    assert record.closed_by_client and not record.completed
    # message_start, ping, content_block_start, the delta we saw: then at most one more.
    assert record.chunks_sent <= 3 + deltas + 1
    await agent.close()

"""``agent.session(reuse_anthropic_container=True)`` through the real Anthropic SDK against
the loopback emulator: the container the first run's response reports is sent on every
later run of the session, and an explicit ``anthropic_container_id`` wins."""

from __future__ import annotations

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply

pytestmark = pytest.mark.anyio


def _agent(emu: ProviderEmulator) -> Agent:
    return Agent(
        "claude-sonnet-5-5",
        api_key="offline-test-key",
        base_url=emu.anthropic_base_url,
        built_in_tools={"code_execution": {"enabled": True}},
        log_to_file=False,
    )


async def test_the_first_runs_container_rides_every_later_run() -> None:
    with ProviderEmulator() as emu:
        emu.push(
            Reply("made a file", container_id="container_first"),
            Reply("read it back"),
            Reply("again"),
            Reply("elsewhere"),
        )
        agent = _agent(emu)
        session = agent.session(reuse_anthropic_container=True)
        first = await session.run("write a file")
        assert first.container_id == "container_first"
        await session.run("read the file")
        await session.run("once more")
        await session.run("somewhere else", anthropic_container_id="container_other")
        await agent.close()
        sent = [r.body.get("container") for r in emu.requests if r.path == "/v1/messages"]
    assert sent == [None, "container_first", "container_first", "container_other"]


async def test_without_reuse_no_container_is_sent_again() -> None:
    with ProviderEmulator() as emu:
        emu.push(Reply("made a file", container_id="container_first"), Reply("no memory"))
        agent = _agent(emu)
        session = agent.session()
        await session.run("write a file")
        await session.run("read the file")
        await agent.close()
        sent = [r.body.get("container") for r in emu.requests if r.path == "/v1/messages"]
    assert sent == [None, None]

"""``Agent.stream`` makes its provider call on the process's stream worker, through the
real Anthropic SDK against the loopback emulator: the SDK client (and its connections) is
built once and serves every later stream, the calls come from one worker thread, off the
caller's loop, and ``Agent.close()`` closes the client there."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.providers.anthropic.client import AnthropicModelClient
from doc_processing_toolkit.application.run.stream.offloop import stream_worker_loop
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply

pytestmark = pytest.mark.anyio


async def _text(agent: Agent, prompt: str) -> str:
    parts = [e.content async for e in agent.stream(prompt) if e.event_type == "text_delta"]
    return "".join(parts)


async def test_streams_share_one_sdk_client_on_the_worker_and_close_closes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[tuple[Any, int]] = []
    new = AnthropicModelClient._new_sdk_client

    def counting(sdk: Any, api_key: str | None, base_url: str | None) -> Any:
        client = new(sdk, api_key, base_url)
        built.append((client, threading.get_ident()))
        return client

    monkeypatch.setattr(AnthropicModelClient, "_new_sdk_client", staticmethod(counting))
    with ProviderEmulator() as emu:
        emu.push(Reply("one"), Reply("two"), Reply("three"))
        agent = Agent(
            "claude-sonnet-5-5",
            api_key="offline-test-key",
            base_url=emu.anthropic_base_url,
            log_to_file=False,
        )
        assert [await _text(agent, f"say {n}") for n in range(3)] == ["one", "two", "three"]
        ports = {r.client_port for r in emu.requests if r.path == "/v1/messages"}
        ((client, thread),) = built  # one SDK client for three streams
        assert thread != threading.get_ident()  # built (and used) on the worker thread
        assert stream_worker_loop() is not None
        assert len(ports) == 1  # and its pool kept the connection between streams
        assert not client.is_closed()
        await agent.close()
        assert client.is_closed()

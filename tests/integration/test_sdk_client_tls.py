"""Every SDK client the adapters build verifies TLS with one shared context per process,
through the real SDKs against the loopback emulator: ``run_sync`` (a new event loop, so a
new SDK client, on every call) no longer loads the trust store on every call."""

from __future__ import annotations

import ssl
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.providers import _common
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply

MODELS = {
    "anthropic": ("claude-sonnet-5-5", "anthropic_base_url"),
    "openai": ("gpt-4o", "openai_base_url"),
    "google": ("gemini-2.5-flash", "google_base_url"),
    "fireworks": ("kimi-k2p6", "fireworks_base_url"),
}


@pytest.mark.parametrize("provider", sorted(MODELS))
def test_run_sync_loads_the_trust_store_once_for_all_its_sdk_clients(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[Any] = []
    real = ssl.SSLContext.load_verify_locations

    def counting(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append(args or kwargs)
        real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counting)
    monkeypatch.setattr(_common, "_SSL_CONTEXTS", {})  # as in a fresh process
    model, url = MODELS[provider]
    with ProviderEmulator() as emu:
        emu.push(Reply("one"), Reply("two"), Reply("three"))
        agent = Agent(
            model, api_key="offline-test-key", base_url=getattr(emu, url), log_to_file=False
        )
        assert agent.run_sync("first").output == "one"
        first = len(loads)
        assert [agent.run_sync(p).output for p in ("second", "third")] == ["two", "three"]
    assert 1 <= first <= 2  # the SDK's default context (and Gemini's websocket one)
    assert len(loads) == first  # two more SDK clients, on two more loops: no new load

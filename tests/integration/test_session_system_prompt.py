"""session_history_config include_system_prompt, through each provider's real SDK against
the loopback emulator: with False, the session's request bodies carry no system prompt."""

from __future__ import annotations

import json
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import reply

INSTRUCTIONS = "You are the confidential contracts desk."
# Where each dialect's request body carries the system prompt.
SYSTEM_KEYS = {
    "claude-sonnet-4-5": ("anthropic", "system"),
    "gpt-6-luna": ("openai", "instructions"),
    "gemini-2.5-flash": ("google", "systemInstruction"),
    "kimi-k2p6": ("fireworks", "system"),
}


def _agent(model: str, emu: ProviderEmulator, **kwargs: Any) -> Agent:
    provider = SYSTEM_KEYS[model][0]
    return Agent(
        model,
        INSTRUCTIONS,
        api_key="offline-test-key",
        base_url=getattr(emu, f"{provider}_base_url"),
        log_to_file=False,
        **kwargs,
    )


def _bodies(emu: ProviderEmulator) -> list[dict[str, Any]]:
    return [
        r.body
        for r in emu.requests
        if r.body.get("contents") or r.body.get("input") or r.body.get("messages")
    ]


@pytest.mark.parametrize("model", sorted(SYSTEM_KEYS))
def test_turns_are_sent_without_the_system_prompt(model: str, emu: ProviderEmulator) -> None:
    emu.push(reply("Noted."), reply("Clause 4."), reply("With it."))
    session = _agent(model, emu).session(session_history_config={"include_system_prompt": False})
    session.run_sync("Remember clause 4.")
    session.run_sync("Which clause?")
    first, second = _bodies(emu)
    for body in (first, second):
        assert INSTRUCTIONS not in json.dumps(body)
        assert SYSTEM_KEYS[model][1] not in body
        assert all(m.get("role") != "system" for m in body.get("messages", []))
    assert "Remember clause 4." in json.dumps(second)  # the history still goes
    # The same Agent outside the session, and a default session, still send it.
    _agent(model, emu).session().run_sync("Hello")
    assert INSTRUCTIONS in json.dumps(_bodies(emu)[-1])

"""A session started on Anthropic continues on OpenAI, Gemini and Fireworks: the next
request each real SDK sends to the loopback emulator carries the converted history, with
the tool round paired under that dialect's own ids and the thinking left behind (issue 9)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from doc_processing_toolkit import Agent, AgentSession, tool
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply, ThinkingBlock, ToolCall

pytestmark = pytest.mark.anyio

KEY = "offline-test-key"
RESULT = "clause 4: 30 days' notice"


@tool
def lookup(clause: str) -> str:
    """Look a clause up.

    Args:
        clause: The clause number.
    """
    return RESULT


def _agent(model: str, provider: str, emu: ProviderEmulator) -> Agent:
    base_url = getattr(emu, f"{provider}_base_url")
    return Agent(model, tools=[lookup], api_key=KEY, base_url=base_url, log_to_file=False)


def _paired_tool_round(provider: str, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(the call ids of the lookup calls, the ids their results answer) in ``body``."""
    if provider == "openai":
        items = body["input"]
        calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
        outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
        return calls, outputs
    if provider == "fireworks":
        messages = body["messages"]
        calls = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
        outputs = [m["tool_call_id"] for m in messages if m.get("role") == "tool"]
        return calls, outputs
    parts = [p for c in body["contents"] for p in c["parts"]]
    calls = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
    outputs = [p["functionResponse"]["name"] for p in parts if "functionResponse" in p]
    return calls, outputs


@pytest.mark.parametrize(
    ("model", "provider"),
    [("gpt-4o", "openai"), ("gemini-2.5-flash", "google"), ("kimi-k2p6", "fireworks")],
)
async def test_an_anthropic_session_continues_on_the_wire_of_another_provider(
    model: str, provider: str
) -> None:
    async with ProviderEmulator() as emu:
        source = _agent("claude-sonnet-5-5", "anthropic", emu)
        session = source.session()
        emu.push(
            Reply(
                thinking=(ThinkingBlock("Find clause 4.", signature="sig-1"),),
                tool_calls=(ToolCall("lookup", {"clause": "4"}),),
            ),
            Reply("Clause 4 needs 30 days' notice."),
        )
        await session.run("What does clause 4 say?")
        envelope = session.to_dict()
        await source.close()

        target = _agent(model, provider, emu)
        restored = AgentSession.from_dict(envelope, target)
        assert restored.converted_from == "anthropic"
        emu.reset([Reply("Clause 5 is about renewal.")])
        result = await restored.run("And clause 5?")
        await target.close()

    assert result.output == "Clause 5 is about renewal."
    (sent,) = emu.requests
    assert sent.dialect == {"fireworks": "chat_completions"}.get(provider, provider)
    body = sent.body
    text = json.dumps(body)
    for expected in ("What does clause 4 say?", RESULT, "30 days' notice", "And clause 5?"):
        assert expected in text, f"{expected!r} is not in the {provider} request"
    assert "Find clause 4." not in text  # Anthropic's signed thinking does not cross
    calls, outputs = _paired_tool_round(provider, body)
    assert len(calls) == 1 and outputs == calls  # one call, answered under its own id
    if provider != "google":
        assert not calls[0].startswith("toolu_")  # re-keyed to the target's id style
    # the restored session recorded the new turn on the new provider
    assert restored.metadata["served_models"][-1]["provider"] == provider

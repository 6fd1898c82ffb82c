"""Issue acceptance, end to end: Agent -> real anthropic SDK -> loopback emulator."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import Fault, ProviderEmulator, Reply, ThinkingBlock, ToolCall
from doc_processing_toolkit.testing.script import reply, tool_call

REPO = Path(__file__).resolve().parents[2]


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.fixture
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


def _agent(**kwargs: object) -> Agent:
    return Agent(
        model="claude-sonnet-4-5",
        instructions="You are a helpful math assistant.",
        tools=[calculate],
        **kwargs,  # type: ignore[arg-type]
    )


def test_spec_first_example_through_anthropic_base_url(
    emulator: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", emulator.anthropic_base_url)
    emulator.push(
        tool_call("calculate", {"a": 2, "b": 3}),
        reply("The sum of 2 and 3 is 5.", input_tokens=60, output_tokens=12),
    )
    result = _agent().run_sync("What is 2 + 3?")

    assert result.output == "The sum of 2 and 3 is 5."
    assert result.tools_used == ["calculate"]
    assert emulator.request_count == 2
    records = result.request_cost_records
    assert len(records) == 2
    assert result.cost == pytest.approx(records[0]["cost"] + records[1]["cost"], abs=1e-12)
    # claude-sonnet-4-5: $3 / $15 per million tokens (registry, cited in SOURCES.md)
    assert records[1]["cost"] == pytest.approx((60 * 3 + 12 * 15) / 1e6)
    assert result.input_tokens == 70 and result.output_tokens == 17
    # The tool's answer travelled back to the model as a tool_result block.
    second = emulator.requests[1].body
    blocks = second["messages"][-1]["content"]
    assert blocks[0]["type"] == "tool_result" and "5" in json.dumps(blocks[0]["content"])
    assert second["tools"][0]["name"] == "calculate"


def test_two_429s_then_success(emulator: ProviderEmulator) -> None:
    emulator.push(
        Fault(status=429, retry_after=0.1),
        Fault(status=429, retry_after=0.1),
        reply("finally"),
    )
    result = _agent(base_url=emulator.anthropic_base_url).run_sync("hi")
    assert result.output == "finally"
    assert result.retry_count == 2
    assert emulator.request_count == 3
    assert result.retry_cost == 0.0  # rejected before streaming: nothing billed


def test_signed_thinking_is_replayed_byte_identical(emulator: ProviderEmulator) -> None:
    thinking = ThinkingBlock("Two plus three is five; use the tool.", signature="EqQBCkYIARgCsig==")
    emulator.push(
        Reply(thinking=(thinking,), tool_calls=(ToolCall("calculate", {"a": 2, "b": 3}),)),
        reply("It is 5."),
    )
    agent = _agent(
        base_url=emulator.anthropic_base_url, thinking={"budget_tokens": 2048}, max_tokens=4096
    )
    result = agent.run_sync("What is 2 + 3?")

    assert result.output == "It is 5."
    assert result.reasoning_content == "Two plus three is five; use the tool."
    assert "Two plus three" not in result.output
    replayed = emulator.requests[1].body["messages"][1]["content"][0]
    assert replayed == {
        "type": "thinking",
        "thinking": "Two plus three is five; use the tool.",
        "signature": "EqQBCkYIARgCsig==",
    }
    assert emulator.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_demo_runs_offline() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "doc_processing_toolkit.cli.main", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    assert "OFFLINE" in out.stdout
    assert "→ tool calculate" in out.stdout
    assert "The sum of 2 and 3 is 5." in out.stdout
    assert "total" in out.stdout


def test_run_sync_leaves_no_sdk_client_on_its_dead_loop(emulator: ProviderEmulator) -> None:
    import gc

    from doc_processing_toolkit.adapters.providers.anthropic import client as anthropic_client

    def loops_holding_clients() -> set[int]:
        gc.collect()
        return {id(loop) for loop in list(anthropic_client._SHARED._by_loop.keys())}

    before = loops_holding_clients()  # other tests' live loops may hold clients
    emulator.push(reply("one"), reply("two"), reply("three"))
    shared = Agent("claude-sonnet-4-5", base_url=emulator.anthropic_base_url)
    owned = Agent(
        "claude-sonnet-4-5", api_key="own-key-123456", base_url=emulator.anthropic_base_url
    )
    assert shared.run_sync("a").output == "one"
    assert owned.run_sync("b").output == "two"
    assert shared.run_sync("c").output == "three"
    assert loops_holding_clients() <= before  # no run_sync loop is left holding a client
    assert owned._get_client()._own.clients() == []  # type: ignore[attr-defined]

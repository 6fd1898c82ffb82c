"""Issue acceptance: the same user code on all four providers, changing only the model name.

Each run goes Agent -> the provider's real SDK -> its wire dialect on the loopback emulator.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.testing import ProviderEmulator, Reply
from doc_processing_toolkit.testing.script import reply, tool_call

REPO = Path(__file__).resolve().parents[2]


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.fixture(scope="module")
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


def _run(model: str, emulator: ProviderEmulator, **kwargs: object) -> object:
    provider = registry().detect_provider(model)
    agent = Agent(
        model=model,
        instructions="You are a helpful math assistant.",
        tools=[calculate],
        api_key="offline-test-key",
        base_url=getattr(emulator, f"{provider}_base_url"),
        **kwargs,  # type: ignore[arg-type]
    )
    return agent.run_sync("What is 2 + 3?")


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("claude-sonnet-4-5", "anthropic"),
        ("gpt-4o", "openai"),
        ("gemini-2.5-flash", "google"),
        ("kimi-k2p6", "fireworks"),
    ],
)
def test_calculate_example_runs_unchanged_on_every_provider(
    model: str, provider: str, emulator: ProviderEmulator
) -> None:
    emulator.reset(
        [
            tool_call("calculate", {"a": 2, "b": 3}),
            reply("The sum of 2 and 3 is 5.", input_tokens=60, output_tokens=12),
        ]
    )
    result = _run(model, emulator)

    assert result.output == "The sum of 2 and 3 is 5."  # type: ignore[attr-defined]
    assert result.tools_used == ["calculate"]  # type: ignore[attr-defined]
    assert result.input_tokens == 70 and result.output_tokens == 17  # type: ignore[attr-defined]
    assert [r.dialect for r in emulator.requests] == [emulator.requests[0].dialect] * 2
    row = registry().row(model)
    assert row is not None and row.provider == provider
    price_in, price_out = row.pricing.input_per_mtok, row.pricing.output_per_mtok
    assert price_in is not None and price_out is not None
    expected = (70 * price_in + 17 * price_out) / 1e6
    assert result.cost == pytest.approx(expected, rel=1e-9)  # type: ignore[attr-defined]
    assert result.cost_estimated is False  # type: ignore[attr-defined]
    assert len(result.request_cost_records) == 2  # type: ignore[attr-defined]


def test_model_without_a_known_price_costs_zero_estimated(emulator: ProviderEmulator) -> None:
    emulator.reset([tool_call("calculate", {"a": 2, "b": 3}), reply("5")])
    result = _run("kimi-k3", emulator)
    assert result.tools_used == ["calculate"]  # type: ignore[attr-defined]
    assert result.cost == 0.0 and result.cost_estimated is True  # type: ignore[attr-defined]


def test_priority_served_at_standard_is_flagged_and_billed_standard(
    emulator: ProviderEmulator,
) -> None:
    model = "gpt-5.6-luna"
    emulator.reset(
        [Reply(text="done", input_tokens=1000, output_tokens=100, served_tier="standard")]
    )
    result = _run(model, emulator, service_tier="priority")
    record = result.request_cost_records[0]  # type: ignore[attr-defined]
    assert record["requested_tier"] == "priority" and record["served_tier"] == "standard"
    assert result.tier_downgraded is True  # type: ignore[attr-defined]
    assert result.service_tier_served == "standard"  # type: ignore[attr-defined]
    assert result.priority_request_count == 0  # type: ignore[attr-defined]
    row = registry().row(model)
    assert row is not None
    standard = (1000 * row.pricing.input_per_mtok + 100 * row.pricing.output_per_mtok) / 1e6  # type: ignore[operator]
    assert result.cost == pytest.approx(standard, rel=1e-9)  # type: ignore[attr-defined]
    assert emulator.requests[-1].body["service_tier"] == "priority"

    emulator.reset([Reply(text="fast", input_tokens=1000, output_tokens=100)])
    served = _run(model, emulator, service_tier="priority")
    assert served.tier_downgraded is False  # type: ignore[attr-defined]
    assert served.priority_request_count == 1  # type: ignore[attr-defined]
    assert served.cost > result.cost  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", ["gpt-4o", "gemini-2.5-flash", "kimi-k2p6"])
def test_demo_runs_for_each_provider(model: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "doc_processing_toolkit.cli.main", "demo", "--model", model],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    assert "→ tool calculate" in out.stdout and "The sum of 2 and 3 is 5." in out.stdout

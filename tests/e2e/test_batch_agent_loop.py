"""An Agent's run loop whose model requests go through a provider batch API: Agent -> a
ModelClient over a BatchClient -> the real SDK -> the emulator's batch endpoints. Each
turn is one batch; the ledger bills every record at the row's batch prices."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.adapters.providers._batch import BatchPolling
from doc_processing_toolkit.application.container import (
    build_batch_client,
    default_container,
    registry,
)
from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.requests import ModelRequest, StreamItem
from doc_processing_toolkit.ports.batch import BatchClient
from doc_processing_toolkit.testing import ProviderEmulator, Reply, ToolCall

pytestmark = pytest.mark.anyio

FAST = BatchPolling(initial_interval=0.005, max_interval=0.02, timeout=10.0)
SCRIPT = (
    Reply(
        tool_calls=(ToolCall("lookup_total", {"invoice": "inv-7"}),),
        input_tokens=400,
        output_tokens=40,
    ),
    Reply("The total of inv-7 is 42.00.", input_tokens=520, output_tokens=30),
)


@tool
def lookup_total(invoice: str) -> str:
    """The total of an invoice."""
    return f"{invoice}: 42.00"


class BatchTurns:
    """A ModelClient that sends each turn as a one-request provider batch."""

    def __init__(self, batch: BatchClient) -> None:
        self._batch = batch
        self.provider = batch.provider

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        outcome = (await self._batch.run_batch({"turn": request}))["turn"]
        if isinstance(outcome, ProviderError):
            raise outcome
        yield outcome

    async def aclose(self) -> None:
        await self._batch.aclose()


def _base_url(emu: ProviderEmulator, provider: str) -> str:
    return emu.anthropic_base_url if provider == "anthropic" else emu.openai_base_url


@pytest.mark.parametrize(
    ("model", "provider"), [("claude-sonnet-5-5", "anthropic"), ("gpt-4o", "openai")]
)
async def test_a_tool_round_at_batch_prices_costs_half_the_interactive_run(
    model: str, provider: str
) -> None:
    async with ProviderEmulator(SCRIPT) as emu:
        batch = build_batch_client(
            default_container(), provider, base_url=_base_url(emu, provider), polling=FAST
        )
        assert batch is not None
        agent = Agent(model=model, tools=[lookup_total], client=BatchTurns(batch))
        batched = await agent.run("What is the total of inv-7?")
        await agent.close()
        assert len(emu.batches.batches) == 2  # one batch per iteration
        assert emu.batches.request_count == 2

    async with ProviderEmulator(SCRIPT) as emu:
        agent = Agent(model=model, tools=[lookup_total], base_url=_base_url(emu, provider))
        interactive = await agent.run("What is the total of inv-7?")
        await agent.close()

    assert batched.output == interactive.output == "The total of inv-7 is 42.00."
    assert batched.tools_used == ["lookup_total"]
    row = registry().row(model)
    assert row is not None and row.batch is not None
    records: list[dict[str, Any]] = batched.request_cost_records
    assert [r["served_tier"] for r in records] == ["batch", "batch"]
    assert all(r["served_tier_source"] == "batch_api" and not r["cost_estimated"] for r in records)
    first = records[0]
    expected = (
        first["input_tokens"] * row.batch.input_per_mtok
        + first["output_tokens"] * row.batch.output_per_mtok  # type: ignore[operator]
    ) / 1e6
    assert first["cost"] == pytest.approx(expected)
    assert batched.cost == pytest.approx(interactive.cost / 2)

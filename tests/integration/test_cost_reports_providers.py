"""Issue 12 acceptance, through each provider's real SDK against the loopback emulator: a
detailed report's total is AgentResult.cost to the cent on a run with a free and a billed
retry, a tool round, cache reads and writes (5m and 1h where the provider has them),
reasoning tokens and a served-tier downgrade (where the model has tier rows), and
``DetailedCostReport.load(path).to_dict()`` is what was saved. Also: the stream-failure
records and the structured-output record, on the wire."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.cost import DetailedCostReport
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.testing import Fault, ProviderEmulator, Reply, ToolCall


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def _cents(value: float) -> int:
    return round(value * 100)


# (model, tier asked for, cache writes on the wire, 1h writes on the wire)
PROVIDERS = [
    ("claude-sonnet-4-5", None, True, True),
    ("gpt-6-luna", "priority", True, False),
    ("gemini-2.5-flash", "priority", False, False),
    ("kimi-k2p6", None, False, False),
]


def _agent(model: str, emu: ProviderEmulator, tmp_path: Path, **kwargs: Any) -> Agent:
    provider = registry().detect_provider(model)
    return Agent(
        model,
        api_key="offline-test-key",
        base_url=getattr(emu, f"{provider}_base_url"),
        detailed_costs=True,
        cost_output_dir=str(tmp_path),
        log_to_file=False,
        **kwargs,
    )


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")


@pytest.mark.usefixtures("fast_retries")
@pytest.mark.parametrize(
    ("model", "tier", "writes", "writes_1h"), PROVIDERS, ids=[p[0] for p in PROVIDERS]
)
def test_report_total_is_the_result_cost_on_each_provider(
    model: str,
    tier: str | None,
    writes: bool,
    writes_1h: bool,
    emu: ProviderEmulator,
    tmp_path: Path,
) -> None:
    emu.reset(
        [
            Fault(status=429, retry_after=0.0),  # refused before streaming: free
            Fault(kind="stream_error", input_tokens=40_000),  # billed partial, retried
            Reply(
                tool_calls=(ToolCall("lookup", {"key": "a"}),),
                input_tokens=30_000,
                cache_read_tokens=20_000,
                cache_write_tokens=8_000,
                cache_write_1h_tokens=3_000,
                output_tokens=2_000,
                reasoning_tokens=1_500,
                served_tier=tier,
            ),
            Reply(
                text="done",
                input_tokens=60_000,
                cache_read_tokens=50_000,
                cache_write_tokens=1_000,
                output_tokens=900,
                reasoning_tokens=300,
                served_tier="standard" if tier else None,  # the downgrade
            ),
        ]
    )
    agent = _agent(model, emu, tmp_path, tools=[lookup], service_tier=tier)
    result = agent.run_sync("go")

    assert result.error is None and result.output == "done"
    assert result.retry_count == 2 and result.retry_cost > 0
    assert result.retry_input_tokens == 40_000
    assert result.cached_input_tokens == 70_000
    assert result.reasoning_tokens == 1_800
    assert result.cache_write_tokens == (9_000 if writes else 0)
    records = result.request_cost_records
    assert [r["purpose"] for r in records] == ["generation", "tool_followup"]
    assert records[0]["cache_write_1h_tokens"] == (3_000 if writes_1h else 0)
    # The token cost is the sum of the records plus the retried attempts.
    assert result.cost == pytest.approx(sum(r["cost"] for r in records) + result.retry_cost)
    if tier:
        assert result.tier_downgraded is True
        assert result.service_tier_served == "mixed" and result.priority_request_count == 1

    path = Path(result.detailed_cost_file or "")
    assert path.name == f"cost_report_{result.run_id}.json"
    saved = json.loads(path.read_text(encoding="utf-8"))
    report = DetailedCostReport.load(str(path))
    assert report.to_dict() == saved
    assert _cents(report.total_cost) == _cents(result.cost)
    assert _cents(saved["total_cost_inclusive"]) == _cents(result.cost)
    entries = sum(e.cost for e in report.iterations) + report.total_tool_reported_cost
    assert entries == pytest.approx(result.cost, abs=1e-9)
    assert [e.purpose for e in report.iterations] == ["generation", "tool_followup"]
    first = report.iterations[0]
    assert first.retry_count == 2 and first.retry_input_tokens == 40_000
    assert [d["token_source"] for d in first.retry_details] == [
        "rejected_before_stream",
        "stream_partial",
    ]
    assert first.tool_calls and first.tool_calls[0].tool_name == "lookup"
    assert report.total_reasoning_tokens == 1_800
    assert report.provider == registry().detect_provider(model)
    assert report.service_tier_served == result.service_tier_served


def test_anthropic_one_hour_writes_bill_at_twice_input(
    emu: ProviderEmulator, tmp_path: Path
) -> None:
    """The wire's cache_creation breakdown prices each TTL; with no breakdown, the TTL
    the request asked for does."""
    row = registry().row("claude-sonnet-4-5")
    assert row is not None and row.pricing.input_per_mtok is not None
    rate = row.pricing.input_per_mtok
    writes = {"input_tokens": 0, "output_tokens": 0, "cache_write_tokens": 100_000}
    emu.reset([Reply(text="ok", cache_write_1h_tokens=40_000, **writes)])  # type: ignore[arg-type]
    mixed = _agent("claude-sonnet-4-5", emu, tmp_path).run_sync("hi")
    assert mixed.cost == pytest.approx((40_000 * rate * 2 + 60_000 * rate * 1.25) / 1e6)
    assert mixed.request_cost_records[0]["cache_write_1h_tokens"] == 40_000
    assert emu.requests[-1].dialect == "anthropic"


@pytest.mark.parametrize("model", [p[0] for p in PROVIDERS])
def test_a_mid_stream_failure_is_a_stream_partial_record(
    model: str, emu: ProviderEmulator, tmp_path: Path
) -> None:
    """The request a run failed on is billed: a record marked stream_partial; where the
    provider reported nothing (OpenAI's Responses stream carries usage only in its last
    event), its output is estimated from the streamed text at standard rates."""
    text = "Partial answer that streamed. " * 8  # 240 characters: 60 estimated tokens
    emu.reset([Fault(kind="disconnect", partial_text=text, input_tokens=500)])
    agent = _agent(model, emu, tmp_path)

    async def collect() -> list[Any]:
        return [event async for event in agent.stream("hi")]

    events = asyncio.run(collect())
    error = next(e for e in events if e.event_type == "error")
    done = events[-1].metadata or {}
    assert done["error"] and (error.metadata or {})["token_source"] == "stream_partial"
    (record,) = done["request_cost_records"]
    assert record["token_source"] == "stream_partial" and record["purpose"] == "generation"
    row = registry().row(model)
    assert row is not None and row.pricing.output_per_mtok is not None
    if registry().detect_provider(model) == "openai":
        assert record["estimated"] is True and done["cost_estimated"] is True
        # the input is the request's pre-flight estimate (estimate_input_tokens="lazy")
        assert record["input_tokens"] > 0 and record["output_tokens"] == 60
        assert row.pricing.input_per_mtok is not None
        expected = record["input_tokens"] * row.pricing.input_per_mtok
        expected += 60 * row.pricing.output_per_mtok
        assert record["cost"] == pytest.approx(expected / 1e6)
    else:
        assert "estimated" not in record and record["input_tokens"] == 500
    assert done["cost"] == pytest.approx(record["cost"]) and done["cost"] > 0
    report = DetailedCostReport.load(done["detailed_cost_file"])
    assert [e.purpose for e in report.iterations] == ["stream_partial"]
    assert _cents(report.total_cost) == _cents(done["cost"])
    assert report.request_cost_records == done["request_cost_records"]


class Answer(BaseModel):
    answer: int


@pytest.mark.parametrize("model", [p[0] for p in PROVIDERS])
def test_a_structured_output_record_is_the_run_totals(
    model: str, emu: ProviderEmulator, tmp_path: Path
) -> None:
    row = registry().row(model)
    native = bool(row is not None and row.supports_structured_output)  # else Path B
    emu.reset(
        [
            Reply(
                text=json.dumps({"answer": 5}) if native else "",
                tool_calls=() if native else (ToolCall("final_result", {"answer": 5}),),
                input_tokens=1_200,
                cache_read_tokens=300,
                output_tokens=40,
                reasoning_tokens=10,
            )
        ]
    )
    result = _agent(model, emu, tmp_path).run_sync("2+3?", output_schema=Answer)
    assert result.output == {"answer": 5}
    (record,) = result.request_cost_records
    assert record["synthesised_from_run_totals"] is True
    assert record["input_tokens"] == result.input_tokens == 1_500
    assert record["output_tokens"] == result.output_tokens == 40
    assert record["cached_input_tokens"] == result.cached_input_tokens == 300
    assert record["reasoning_tokens"] == result.reasoning_tokens == 10
    assert record["cost"] == pytest.approx(result.cost)

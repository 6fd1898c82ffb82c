"""detailed_costs=True: the report's total is AgentResult.cost to the cent, on every
provider, with retries, tool rounds, cache reads and writes (5m and 1h), reasoning tokens
and a served-tier downgrade; save/load is lossless; 1h cache writes bill at 2x input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.cost import DetailedCostReport
from doc_processing_toolkit.testing import FakeModel, Fault, Reply, ToolCall
from doc_processing_toolkit.testing.script import reply


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def _cents(value: float) -> int:
    return round(value * 100)


PROVIDERS = [
    ("anthropic", "claude-sonnet-4-5", None),
    ("openai", "gpt-6-luna", "priority"),
    ("google", "gemini-2.5-flash", "priority"),
    ("fireworks", "kimi-k2p6", None),
]


@pytest.mark.parametrize(("provider", "model", "tier"), PROVIDERS, ids=[p[0] for p in PROVIDERS])
def test_report_total_is_the_result_cost(
    provider: str, model: str, tier: str | None, tmp_path: Path
) -> None:
    fake = FakeModel(
        [
            Fault(status=429, retry_after=0.0),  # rejected before the stream: free
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
                served_tier="standard" if tier else None,  # downgraded
            ),
        ],
        provider=provider,
    )
    agent = Agent(
        model,
        tools=[lookup],
        client=fake,
        detailed_costs=True,
        cost_output_dir=str(tmp_path),
        service_tier=tier,
        log_to_file=False,
    )
    result = agent.run_sync("go")
    assert result.retry_count == 2 and result.retry_cost > 0
    assert result.detailed_cost_file is not None
    path = Path(result.detailed_cost_file)
    assert path.name == f"cost_report_{result.run_id}.json"
    report = DetailedCostReport.load(str(path))
    assert _cents(report.total_cost) == _cents(result.cost)
    entries = sum(e.cost for e in report.iterations) + report.total_tool_reported_cost
    assert _cents(entries) == _cents(result.cost)
    assert entries == pytest.approx(result.cost, abs=1e-9)
    assert report.to_dict()["total_cost_inclusive"] == report.total_cost
    assert [e.purpose for e in report.iterations] == ["generation", "tool_followup"]
    first = report.iterations[0]
    assert first.retry_count == 2 and first.retry_input_tokens == 40_000
    assert len(first.retry_details) == 2
    assert first.tool_calls and first.tool_calls[0].tool_name == "lookup"
    assert report.total_retry_count == 2
    assert report.total_input_tokens == result.input_tokens
    assert report.provider == provider
    if tier:
        assert report.service_tier_served == "mixed"
        assert report.priority_request_count == 1
    saved = json.loads(path.read_text())
    assert report.to_dict() == saved
    assert not list(tmp_path.glob(".cost_report_*"))  # no temp file left behind


def test_a_stream_failure_after_output_is_reported_as_stream_partial(tmp_path: Path) -> None:
    fake = FakeModel([Fault(kind="disconnect", partial_text="Partial", input_tokens=5_000)])
    agent = Agent(
        "claude-sonnet-4-5",
        client=fake,
        detailed_costs=True,
        cost_output_dir=str(tmp_path),
        log_to_file=False,
    )
    events = list(_stream(agent))
    result = events[-1].metadata or {}
    assert result["error"]
    report = DetailedCostReport.load(result["detailed_cost_file"])
    assert [e.purpose for e in report.iterations] == ["stream_partial"]
    assert report.iterations[0].input_tokens == 5_000
    assert _cents(report.total_cost) == _cents(result["cost"]) and result["cost"] > 0


def _stream(agent: Agent) -> list:  # type: ignore[type-arg]
    import asyncio

    async def collect() -> list:  # type: ignore[type-arg]
        return [event async for event in agent.stream("hi")]

    return asyncio.run(collect())


def test_one_hour_cache_writes_bill_at_twice_input() -> None:
    def cost(ttl: str, one_hour_share: int) -> float:
        fake = FakeModel(
            [
                reply(
                    "ok",
                    input_tokens=0,
                    output_tokens=0,
                    cache_write_tokens=100_000,
                    cache_write_1h_tokens=one_hour_share,
                )
            ]
        )
        agent = Agent(
            "claude-sonnet-4-5", client=fake, prompt_caching={"ttl": ttl}, log_to_file=False
        )
        return agent.run_sync("hi").cost

    row_input = 3.0  # claude-sonnet-4-5: $3 / MTok input
    assert cost("5m", 0) == pytest.approx(row_input * 1.25 / 10)  # 100k tokens
    # The usage carries no 1h breakdown, but the request asked for 1h: 2x input.
    assert cost("1h", 0) == pytest.approx(row_input * 2 / 10)
    # FakeModel keeps the 1h share: it is billed at 2x whatever the asked TTL.
    assert cost("5m", 100_000) == pytest.approx(row_input * 2 / 10)


def test_report_round_trips_through_dict_and_json(tmp_path: Path) -> None:
    report = DetailedCostReport(model_name="m", provider="anthropic")
    report.add_iteration(10, 5, 2, 0.01, purpose="generation", cached_input_tokens=4)
    report.add_iteration(3, 1, 0, 0.002, purpose="max_tokens_continuation")
    report.finalize()
    assert [e.iteration_number for e in report.iterations] == [1, 1]
    assert report.total_iterations == 1
    path = report.save(str(tmp_path / "nested"))
    loaded = DetailedCostReport.load(path)
    assert loaded.to_dict() == report.to_dict()
    assert DetailedCostReport.from_dict(json.loads(report.to_json())).to_dict() == report.to_dict()
    assert loaded.schema_version == 2


def test_a_usage_less_stream_failure_is_an_estimated_record(tmp_path: Path) -> None:
    """The provider reported nothing (Fault(input_tokens=0)) but 100 characters streamed:
    the failed request's record counts them (25 tokens), priced at standard rates, with the
    request's pre-flight input estimate as its input, marked estimated; the run's
    cost_estimated is raised with it."""
    fake = FakeModel(
        [Fault(kind="disconnect", partial_text="x" * 100, input_tokens=0)], provider="openai"
    )
    agent = Agent(
        "gpt-6-luna",
        client=fake,
        service_tier="priority",
        detailed_costs=True,
        cost_output_dir=str(tmp_path),
        log_to_file=False,
    )
    done = _stream(agent)[-1].metadata or {}
    (record,) = done["request_cost_records"]
    assert record["estimated"] is True and record["token_source"] == "stream_partial"
    assert record["input_tokens"] > 0 and record["output_tokens"] == 25
    assert record["requested_tier"] == "priority" and record["served_tier"] is None
    from doc_processing_toolkit.application.container import registry

    row = registry().row("gpt-6-luna")
    assert row is not None and row.pricing.output_per_mtok is not None
    assert row.pricing.input_per_mtok is not None
    expected = record["input_tokens"] * row.pricing.input_per_mtok
    assert record["cost"] == pytest.approx((expected + 25 * row.pricing.output_per_mtok) / 1e6)
    assert done["cost"] == pytest.approx(record["cost"]) and done["cost_estimated"] is True
    assert done["token_source"] == "stream_partial"
    report = DetailedCostReport.load(done["detailed_cost_file"])
    assert report.cost_estimated is True and _cents(report.total_cost) == _cents(done["cost"])


def test_a_failure_with_nothing_streamed_and_no_usage_costs_nothing() -> None:
    fake = FakeModel([Fault(kind="disconnect", input_tokens=0)], provider="openai")
    agent = Agent("gpt-6-luna", client=fake, log_to_file=False)
    done = _stream(agent)[-1].metadata or {}
    assert done["error"] and done["request_cost_records"] == [] and done["cost"] == 0.0


def test_a_failed_request_after_a_tool_round_keeps_its_purpose(tmp_path: Path) -> None:
    fake = FakeModel(
        [
            Reply(tool_calls=(ToolCall("lookup", {"key": "a"}),), input_tokens=1_000),
            Fault(kind="stream_error", partial_text="Part", input_tokens=2_000),
        ]
    )
    agent = Agent(
        "claude-sonnet-4-5",
        tools=[lookup],
        client=fake,
        detailed_costs=True,
        cost_output_dir=str(tmp_path),
        log_to_file=False,
    )
    done = _stream(agent)[-1].metadata or {}
    first, failed = done["request_cost_records"]
    assert first["purpose"] == "generation" and "token_source" not in first
    assert failed["purpose"] == "tool_followup" and failed["iteration"] == 2
    assert failed["request_index"] == 2 and failed["token_source"] == "stream_partial"
    assert failed["input_tokens"] == 2_000 and "estimated" not in failed
    assert done["cost"] == pytest.approx(first["cost"] + failed["cost"])
    report = DetailedCostReport.load(done["detailed_cost_file"])
    assert [e.purpose for e in report.iterations] == ["generation", "stream_partial"]
    assert _cents(report.total_cost) == _cents(done["cost"])


class _Answer(BaseModel):
    answer: int


def test_structured_records_say_whether_they_are_the_run_totals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")
    single = FakeModel([reply('{"answer": 5}', input_tokens=700, output_tokens=9)])
    agent = Agent("claude-sonnet-4-5", client=single, log_to_file=False)
    result = agent.run_sync("2+3?", output_schema=_Answer)
    (record,) = result.request_cost_records
    assert record["synthesised_from_run_totals"] is True
    assert (record["input_tokens"], record["output_tokens"]) == (
        result.input_tokens,
        result.output_tokens,
    )
    retried = FakeModel(
        [Fault(kind="stream_error", input_tokens=50), reply('{"answer": 5}', input_tokens=700)]
    )
    agent = Agent("claude-sonnet-4-5", client=retried, log_to_file=False)
    result = agent.run_sync("2+3?", output_schema=_Answer)
    (record,) = result.request_cost_records
    assert result.retry_count == 1 and record["synthesised_from_run_totals"] is False
    plain = Agent("claude-sonnet-4-5", client=FakeModel([reply("hi")]), log_to_file=False)
    assert "synthesised_from_run_totals" not in plain.run_sync("hi").request_cost_records[0]

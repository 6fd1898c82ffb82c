"""DetailedCostReport, IterationMetrics and ToolCallMetrics: accumulation and persistence."""

from __future__ import annotations

import json
import os
from pathlib import Path

from doc_processing_toolkit.agent.cost import (
    DetailedCostReport,
    IterationMetrics,
    ToolCallMetrics,
)


def _report() -> DetailedCostReport:
    report = DetailedCostReport(
        run_id="run-123",
        agent_name="tester",
        provider="openai",
        model_name="gpt-test",
        max_iterations=5,
        temperature=0.2,
        tools_available=["search", "fetch"],
        pricing_info={"input_per_mtok": 1.25, "output_per_mtok": 10.0},
    )
    report.add_iteration(
        input_tokens=1_000,
        output_tokens=100,
        reasoning_tokens=40,
        cost=0.01,
        duration_ms=120,
        thinking_enabled=True,
        stop_reason="tool_use",
        tool_calls=[
            ToolCallMetrics(tool_name="search", tool_call_id="c1", duration_ms=30),
            ToolCallMetrics(tool_name="fetch", success=False, error="404", duration_ms=10),
        ],
        cached_input_tokens=400,
        cache_write_tokens=50,
        purpose="generation",
        model="gpt-test",
    )
    report.add_iteration(
        input_tokens=1_500,
        output_tokens=200,
        reasoning_tokens=0,
        cost=0.02,
        duration_ms=80,
        stop_reason="max_tokens",
        tool_calls=[ToolCallMetrics(tool_name="search", duration_ms=20)],
        purpose="tool_followup",
    )
    report.add_iteration(
        input_tokens=1_700,
        output_tokens=50,
        reasoning_tokens=0,
        cost=0.005,
        stop_reason="end_turn",
        purpose="max_tokens_continuation",
    )
    report.request_cost_records = [
        {"requested_tier": "priority", "served_tier": "priority", "cost": 0.01},
        {"requested_tier": "priority", "served_tier": "standard", "cost": 0.02},
        {"requested_tier": "priority", "served_tier": "priority", "cost": 0.005},
    ]
    report.total_retry_cost = 0.001
    report.total_retry_count = 1
    return report


def test_add_iteration_accumulates_totals_and_numbers() -> None:
    report = _report()
    assert [e.iteration_number for e in report.iterations] == [1, 2, 2]
    assert [e.purpose for e in report.iterations] == [
        "generation",
        "tool_followup",
        "max_tokens_continuation",
    ]
    assert report.total_input_tokens == 4_200
    assert report.total_output_tokens == 350
    assert report.total_reasoning_tokens == 40
    assert report.total_cached_input_tokens == 400
    assert report.total_cache_write_tokens == 50
    assert abs(report.total_cost - 0.035) < 1e-12
    assert report.total_duration_ms == 200
    assert report.total_iterations == 2
    assert report.thinking_enabled is True
    assert report.tool_call_count == 3
    assert report.tools_used == ["search", "fetch"]
    assert abs(report.tool_success_rate - 2 / 3) < 1e-12
    assert report.tool_usage_summary["search"]["calls"] == 2
    assert report.tool_usage_summary["fetch"]["failures"] == 1


def test_explicit_iteration_number_wins() -> None:
    report = DetailedCostReport()
    entry = report.add_iteration(1, 1, 0, 0.0, iteration_number=7)
    assert entry.iteration_number == 7
    assert report.run_id and report.timestamp and report.start_time == report.timestamp


def test_tier_properties_and_derived_dict_keys() -> None:
    report = _report()
    assert report.service_tier_served == "mixed"
    assert report.priority_request_count == 2
    data = report.to_dict()
    assert data["total_cost_inclusive"] == report.total_cost
    assert data["service_tier_served"] == "mixed"
    assert data["priority_request_count"] == 2
    assert data["schema_version"] == 2
    assert data["iterations"][0]["tool_calls"][1]["error"] == "404"


def test_finalize_sets_end_time() -> None:
    report = DetailedCostReport(run_id="r")
    report.finalize()
    assert report.end_time is not None
    assert report.total_duration_ms >= 0


def test_save_load_round_trip(tmp_path: Path) -> None:
    report = _report()
    report.finalize()
    path = report.save(str(tmp_path / "costs"))
    assert os.path.basename(path) == "cost_report_run-123.json"
    assert sorted(os.listdir(tmp_path / "costs")) == ["cost_report_run-123.json"]
    loaded = DetailedCostReport.load(path)
    assert loaded == report
    assert loaded.to_dict() == report.to_dict()
    assert isinstance(loaded.iterations[0], IterationMetrics)
    assert isinstance(loaded.iterations[0].tool_calls[0], ToolCallMetrics)
    assert json.loads(Path(path).read_text())["run_id"] == "run-123"


def test_save_overwrites_atomically_and_sanitises_run_id(tmp_path: Path) -> None:
    report = DetailedCostReport(run_id="a/b")
    first = report.save(str(tmp_path))
    report.total_cost = 1.5
    second = report.save(str(tmp_path))
    assert first == second
    assert os.path.basename(second) == "cost_report_a_b.json"
    assert DetailedCostReport.load(second).total_cost == 1.5
    assert os.listdir(tmp_path) == ["cost_report_a_b.json"]


def test_from_dict_ignores_derived_keys_and_defaults_old_schema() -> None:
    data = _report().to_dict()
    data["service_tier_served"] = "bogus"
    data["unknown_future_key"] = 1
    loaded = DetailedCostReport.from_dict(data)
    assert loaded.service_tier_served == "mixed"
    del data["schema_version"]
    assert DetailedCostReport.from_dict(data).schema_version == 1


def test_to_json_indent() -> None:
    text = DetailedCostReport(run_id="x").to_json(indent=4)
    assert '\n    "run_id": "x"' in text

"""Issue 16 acceptance, batch mode: ``Fleet(mode="batch")`` on Anthropic and OpenAI with one
tool round per job runs through the providers' real batch APIs (real SDKs against the
emulator's batch endpoints): two batch submissions (one per iteration), every record
priced at the registry row's batch prices, the total half the interactive run's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dbos")

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.fleet import Fleet, JobResult
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply, ScriptStep, ToolCall

JOBS = 4
_JOB = re.compile(r"job (inv-\d+)")


@tool
def lookup(job: str) -> str:
    """Look up an invoice's total."""
    return f"total for {job}: {len(job) * 7} EUR"


def responder(body: dict[str, Any]) -> ScriptStep | None:
    """Either dialect's request of a job: a ``lookup`` call first, the answer after the
    tool result. Token counts depend on the job, so the jobs' ledgers differ."""
    text = json.dumps(body)
    match = _JOB.search(text)
    if match is None:
        return None
    job = match.group(1)
    extra = int(job.split("-")[1]) * 3
    if '"tool_result"' in text or '"function_call_output"' in text:
        return Reply(f"The total of {job} is {len(job) * 7} EUR.", input_tokens=300 + extra)
    return Reply(
        tool_calls=(ToolCall("lookup", {"job": job}),), input_tokens=200 + extra, output_tokens=25
    )


def _run(model: str, base_url: str, database: Path, *, mode: str) -> dict[str, JobResult]:
    def make_agent() -> Agent:
        return Agent(model, "Extract invoice totals.", tools=[lookup], base_url=base_url)

    # The fleet's own deps (the composition root's fleet_deps -> build_batch_client); the
    # poll intervals come from DPT_BATCH_POLL_INITIAL_S / DPT_BATCH_POLL_MAX_S.
    fleet = Fleet(
        make_agent,
        str(database),
        mode=mode,  # type: ignore[arg-type]
        concurrency=JOBS,
        batch_settle_seconds=0.1,
    )
    try:
        for n in range(JOBS):
            assert fleet.submit(f"inv-{n:03d}", f"Process job inv-{n:03d}.")
        results = fleet.run()
    finally:
        fleet.close()
    assert sorted(results) == [f"inv-{n:03d}" for n in range(JOBS)]
    assert all(r.success and r.tools_used == ("lookup",) for r in results.values()), results
    return results


@pytest.mark.parametrize(
    ("model", "model_path"),
    [("claude-sonnet-5-5", "/v1/messages"), ("gpt-4o", "/v1/responses")],
)
def test_batch_mode_runs_each_iteration_as_one_batch_at_half_the_price(
    model: str, model_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_BATCH_POLL_INITIAL_S", "0.01")
    monkeypatch.setenv("DPT_BATCH_POLL_MAX_S", "0.05")
    row = registry().row(model)
    assert row is not None and row.batch is not None
    with ProviderEmulator() as emu:
        emu.responder = responder
        base_url = emu.anthropic_base_url if model.startswith("claude") else emu.openai_base_url
        batched = _run(model, base_url, tmp_path / "batch.sqlite", mode="batch")

        batches = emu.batches.batches
        assert len(batches) == 2  # two submissions: one per iteration
        assert [len(b.requests) for b in batches] == [JOBS, JOBS]
        assert all(b.ended and not b.cancelled for b in batches)
        assert emu.batches.request_count == 2 * JOBS
        assert not [r for r in emu.requests if r.path == model_path]  # nothing interactive

    for result in batched.values():
        assert [rec["served_tier"] for rec in result.records] == ["batch", "batch"]
        for rec in result.records:
            assert not rec["cost_estimated"]
            uncached = rec["input_tokens"] - rec["cached_input_tokens"]
            expected = (
                uncached * row.batch.input_per_mtok  # type: ignore[operator]
                + rec["output_tokens"] * row.batch.output_per_mtok  # type: ignore[operator]
            ) / 1e6
            assert rec["cost"] == pytest.approx(expected)
        assert result.output == f"The total of {result.job_id} is 49 EUR."

    with ProviderEmulator() as emu:
        emu.responder = responder
        base_url = emu.anthropic_base_url if model.startswith("claude") else emu.openai_base_url
        interactive = _run(model, base_url, tmp_path / "live.sqlite", mode="interactive")
        assert not emu.batches.batches
        assert len([r for r in emu.requests if r.path == model_path]) == 2 * JOBS

    batch_total = sum(r.cost for r in batched.values())
    live_total = sum(r.cost for r in interactive.values())
    assert live_total > 0
    assert batch_total == pytest.approx(live_total / 2)

"""Issue 37 acceptance: a 20-case dataset on two emulated models that answer differently;
the report's aggregates equal values computed here independently from the same answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.evals import EvalDataset, evaluate
from doc_processing_toolkit.testing import ProviderEmulator
from tests.integration.evals_support import responder, truth, write_dataset

CASES = 20
ANTHROPIC, OPENAI = "claude-sonnet-5-5", "gpt-4o"


def answer_a(i: int) -> dict[str, Any]:
    """Model A: dates and numbers in other formats (still right); every 3rd total wrong,
    every 5th list short of its last item."""
    fields = dict(truth(i))
    fields["number"] = fields["number"].lower()
    fields["date"] = f"March {i % 28 + 1}, 2026"
    if i % 3 == 0:
        fields["total"] = fields["total"] + 1
    if i % 5 == 0:
        fields["items"] = fields["items"][:-1]
    return fields


def answer_b(i: int) -> dict[str, Any] | None:
    """Model B: every 4th vendor wrong, every 6th list with an extra item, case 7 without a
    vendor (missing), case 13 fails (HTTP 400)."""
    if i == 13:
        return None
    fields = dict(truth(i))
    if i % 4 == 1:
        fields["vendor"] = "Someone Else"
    if i % 6 == 0:
        fields["items"] = [*fields["items"], "extra"]
    if i == 7:
        del fields["vendor"]
    return fields


def independent(model: str) -> dict[str, Any]:
    """The aggregates from the answering rules above, without the toolkit's scoring."""
    correct = expected = exact = tp = fp = fn = successes = 0
    for i in range(CASES):
        right = truth(i)
        given = answer_a(i) if model == ANTHROPIC else answer_b(i)
        expected += len(right)
        if given is None:
            fn += len(right["items"])
            continue
        successes += 1
        ok = {
            "number": given["number"].upper() == right["number"],
            "date": True,  # the same day in another format
            "total": given["total"] == right["total"],
            "vendor": given.get("vendor") == right["vendor"],
            "items": sorted(given["items"]) == sorted(right["items"]),
        }
        correct += sum(ok.values())
        exact += all(ok.values())
        shared = len(set(given["items"]) & set(right["items"]))
        tp, fp, fn = (
            tp + shared,
            fp + len(given["items"]) - shared,
            fn + len(right["items"]) - shared,
        )
    return {
        "accuracy": correct / expected,
        "exact": exact / CASES,
        "f1": 2 * tp / (2 * tp + fp + fn),
        "successes": successes,
    }


def test_two_models_side_by_side_match_an_independent_computation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_MAX_RETRIES", "0")
    dataset = EvalDataset.load(write_dataset(tmp_path, CASES))
    with ProviderEmulator() as emulator:
        emulator.responder = responder({ANTHROPIC: answer_a, OPENAI: answer_b})
        agents = [
            Agent(ANTHROPIC, api_key="k", base_url=emulator.anthropic_base_url, log_to_file=False),
            Agent(OPENAI, api_key="k", base_url=emulator.openai_base_url, log_to_file=False),
        ]
        report = evaluate(agents, dataset, concurrency=8)
        # The price of one request of each model, at the tokens the emulator reports.
        unit = {
            a.model: a.run_sync(
                "Extract the fields of invoice case 1.",
                output_schema=dataset.cases[0].output_schema,
            ).cost
            for a in agents
        }
    assert report.models == [ANTHROPIC, OPENAI]
    for model in report.models:
        summary, want = report.summary(model), independent(model)
        assert summary.cases == CASES
        assert summary.field_accuracy == pytest.approx(want["accuracy"], rel=1e-12)
        assert summary.exact_match_rate == pytest.approx(want["exact"], rel=1e-12)
        assert summary.list_scores["items"]["f1"] == pytest.approx(want["f1"], rel=1e-12)
        assert summary.total_cost == pytest.approx(want["successes"] * unit[model], rel=1e-9)
        assert summary.mean_cost_per_document == pytest.approx(summary.total_cost / CASES)
        assert summary.total_cost == pytest.approx(sum(c.cost for c in report.cases_of(model)))
    b = report.summary(OPENAI)
    assert b.failed == 1 and b.missing == 5 + 1  # case 13's five fields, case 7's vendor
    failed = next(c for c in report.cases_of(OPENAI) if not c.success)
    assert failed.case == "invoice-013" and failed.error_type == "BadRequestError"
    assert report.summary(ANTHROPIC).field_accuracy != b.field_accuracy

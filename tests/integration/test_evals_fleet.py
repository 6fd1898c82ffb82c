"""``evaluate(..., mode="fleet")``: the cases run as jobs of a public Fleet (SQLite) and are
scored as in interactive mode (issue 37)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.evals import EvalDataset, evaluate
from doc_processing_toolkit.testing import ProviderEmulator
from tests.integration.evals_support import responder, truth, write_dataset

pytest.importorskip("dbos")

MODEL = "claude-sonnet-5-5"


def _answer(i: int) -> dict[str, Any] | None:
    if i == 3:
        return None  # an HTTP 400: a failed job, a failed case
    fields = dict(truth(i))
    if i == 1:
        fields["total"] = 0.0
    return fields


def test_fleet_mode_scores_the_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_MAX_RETRIES", "0")
    monkeypatch.chdir(tmp_path)
    dataset = EvalDataset.load(write_dataset(tmp_path, 5, with_files=False))
    with ProviderEmulator() as emulator:
        emulator.responder = responder({MODEL: _answer})

        def factory() -> Agent:
            return Agent(
                MODEL, api_key="k", base_url=emulator.anthropic_base_url, log_to_file=False
            )

        report = evaluate(factory, dataset, mode="fleet", concurrency=2, repeat=2)
    assert report.models == [MODEL] and report.meta["mode"] == "fleet"
    assert len(report.cases) == 10
    summary = report.summary()
    assert summary.failed == 2  # case 3, twice
    assert summary.exact_match_rate == 6 / 10
    failed = [c for c in report.cases if not c.success]
    assert {c.case for c in failed} == {"invoice-003"}
    assert all(c.cost > 0 for c in report.cases if c.success)
    wrong = [(c.case, f.path) for c in report.cases for f in c.fields if f.verdict == "wrong"]
    assert wrong == [("invoice-001", "total"), ("invoice-001", "total")]

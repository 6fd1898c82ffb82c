"""``dpt eval run`` against the emulator: reports, progress bar, ``--baseline`` with
``--fail-on-regression`` exits 1 naming the case and field (issue 37)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit.cli.main import main as dpt
from doc_processing_toolkit.testing import ProviderEmulator
from tests.integration.evals_support import responder, truth, write_dataset

MODEL = "claude-sonnet-5-5"


def _right(i: int) -> dict[str, Any]:
    return truth(i)


def _total_of_case_2_wrong(i: int) -> dict[str, Any]:
    fields = dict(truth(i))
    if i == 2:
        fields["total"] = 1.0
    return fields


def test_a_regression_against_the_baseline_exits_1_naming_case_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = write_dataset(tmp_path, 4, with_files=False)
    base, now, page = tmp_path / "base.json", tmp_path / "now.json", tmp_path / "now.html"
    with ProviderEmulator() as emulator:
        monkeypatch.setenv("DPT_ANTHROPIC_BASE_URL", emulator.anthropic_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "offline-test-key")
        emulator.responder = responder({MODEL: _right})
        assert dpt(["eval", "run", str(dataset), "--model", MODEL, "--out", str(base)]) == 0
        first = capsys.readouterr()
        assert f"| {MODEL} | 4 | 0 | 100.0% | 100.0% |" in first.out
        assert "4/4" in first.err  # the progress bar
        assert json.loads(base.read_text())["summaries"][MODEL]["field_accuracy"] == 1.0

        emulator.responder = responder({MODEL: _total_of_case_2_wrong})
        argv = [
            "eval",
            "run",
            str(dataset),
            "--model",
            MODEL,
            "--baseline",
            str(base),
            "--out",
            str(now),
            "--html",
            str(page),
        ]
        assert dpt(argv) == 0  # without --fail-on-regression it reports only
        assert dpt([*argv, "--fail-on-regression"]) == 1
        out = capsys.readouterr().out
    assert "regressions: 2" in out
    assert f"[{MODEL}] invoice-002 / total: correct -> wrong" in out
    assert "<svg" in page.read_text()


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert dpt(["eval", "run", str(tmp_path / "none.yaml"), "--model", MODEL]) == 2
    assert "no such dataset file" in capsys.readouterr().err
    dataset = write_dataset(tmp_path, 1, with_files=False)
    assert dpt(["eval", "run", str(dataset), "--model", MODEL, "--fail-on-regression"]) == 2
    assert "--fail-on-regression needs --baseline" in capsys.readouterr().err

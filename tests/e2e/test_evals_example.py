"""examples/evals/run_evals.py runs offline: PDFs made from the dataset's expected fields,
two emulated models side by side, the second one's three mistakes found by field, the JSON
and HTML reports written, and a baseline comparison (issue 37)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "evals" / "run_evals.py"


def test_the_evals_example_runs_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), "--dir", str(tmp_path)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "| claude-sonnet-5-5 | 6 | 0 | 100.0% | 100.0% |" in out
    assert "| borealis-april | vendor | wrong |" in out
    assert "| delta-credit | total | wrong | -150.0 | 150.0 |" in out
    assert "| evergreen-large | line_items | wrong |" in out
    assert len(list((tmp_path / "pdfs").glob("INV-2026-*.pdf"))) == 6
    assert (tmp_path / "report.html").read_text().count("<section") == 2

    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        from run_evals import main
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    report = main(["--dir", str(tmp_path / "again"), "--baseline", str(tmp_path / "report.json")])
    assert not report.compare(report).regressed
    assert "regressions: 0" in capsys.readouterr().out

"""examples/long_contract.py runs offline on all four providers: the whole 300-page PDF is
refused before sending where the page limit is 100, run_document makes the chunk requests
its estimate predicted, merges the parties in page order and reports the governing-law
conflict with its original pages."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_long_contract_example_runs_on_every_provider(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(ROOT / "examples" / "long_contract.py"), run_name="__main__")
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line}
    assert set(lines) == {"claude-haiku-4-5", "gpt-5.4", "gemini-2.5-flash", "glm-5"}
    parties = "parties=['Acme Corp', 'Beta LLC', 'Gamma SA', 'Delta GmbH']"
    assert all(parties in line for line in lines.values())
    for limited in ("claude-haiku-4-5", "gpt-5.4"):
        line = lines[limited]
        assert "refused before sending (300 pages > 100)" in line
        assert "estimate 3 request(s)" in line and "['1-100', '101-200', '201-300']" in line
        assert "'Delaware' (pages 1-100) vs 'New York' (pages 201-300)" in line
    assert "estimate 1 request(s)" in lines["gemini-2.5-flash"]
    assert "chunks=['1-300']" in lines["gemini-2.5-flash"]

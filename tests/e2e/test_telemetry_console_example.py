"""examples/telemetry_console.py runs offline and prints the run's span tree."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_prints_every_span(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")
    runpy.run_path(str(ROOT / "examples" / "telemetry_console.py"), run_name="__main__")
    out = capfd.readouterr().out
    names = [line.split('"')[3] for line in out.splitlines() if line.startswith('    "name"')]
    assert names == [
        "chat claude-sonnet-5-5",
        "execute_tool lookup",
        "chat claude-sonnet-5-5",
        "chat claude-sonnet-5-5",
        "invoke_agent",
    ]
    assert '"error.type": "RateLimitError"' in out
    assert "The total of inv-7 is 49 EUR." in out

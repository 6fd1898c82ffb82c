"""examples/grounded_invoice.py runs offline on all four providers: each prints the two
true fields with ✓ on their ORIGINAL pages and the invented one with ✗."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_grounded_invoice_example_runs_on_every_provider(
    capsys: pytest.CaptureFixture[str],
) -> None:
    runpy.run_path(str(ROOT / "examples" / "grounded_invoice.py"), run_name="__main__")
    out = capsys.readouterr().out
    for provider in ("anthropic", "openai", "google", "fireworks"):
        assert f"({provider})" in out
    assert out.count("✓ vendor") == 4 and out.count("✓ total") == 4
    assert out.count("✗ po_number") == 4
    assert out.count("page 2  score 100.0  (exact)") == 4  # vendor: original page 2
    assert out.count("unverified: ['po_number']") == 4

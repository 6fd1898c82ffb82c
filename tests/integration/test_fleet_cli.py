"""``dpt fleet run|status|results`` against the emulator, on SQLite."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("dbos")

from doc_processing_toolkit.cli.main import main
from doc_processing_toolkit.testing import ProviderEmulator

sys.path.insert(0, str(Path(__file__).parent))
import fleet_support as fs

TOOLS = '''
from doc_processing_toolkit import tool


@tool
def lookup(job: str) -> str:
    """Look up an invoice's total."""
    return f"total for {job}: {len(job) * 7} EUR"
'''


def test_fleet_run_status_and_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text(
        "".join(
            json.dumps({"id": f"inv-{i}", "message": f"Process job inv-{i}.", "files": []}) + "\n"
            for i in range(5)
        )
    )
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    database = str(tmp_path / "cli.sqlite")
    with ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        monkeypatch.setenv("DPT_ANTHROPIC_BASE_URL", emu.anthropic_base_url)
        args = ["fleet", "run", str(jobs), "--model", fs.MODEL, "--workers", "3"]
        code = main([*args, "--tool", str(tools), "--database-url", database])
        assert code == 0
        out = capsys.readouterr()
        assert "done: 5  failed: 0" in out.out
        assert "done 5" in out.err and "5 new jobs" in out.err
        assert emu.request_count == 10

        # Run again: every id is known, nothing is sent.
        assert main([*args, "--database-url", database]) == 0
        assert "0 new jobs, 5 already submitted" in capsys.readouterr().err
        assert emu.request_count == 10

    assert main(["fleet", "status", "--json", "--database-url", database]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["done"] == 5 and status["failed"] == 0 and status["spend"] > 0

    out_file = tmp_path / "out" / "results.jsonl"
    assert main(["fleet", "results", "--out", str(out_file), "--database-url", database]) == 0
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == [f"inv-{i}" for i in range(5)]
    assert all(r["state"] == "done" and r["tools_used"] == ["lookup"] for r in rows)
    assert {r["output"] for r in rows} >= {"The total of inv-0 is 35 EUR."}


def test_a_bad_jobs_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text('{"id": "a", "message": "ok"}\n{"id": "", "message": "no id"}\n')
    code = main(["fleet", "run", str(jobs), "--model", fs.MODEL, "--database-url", "x.sqlite"])
    assert code == 2
    assert "jobs.jsonl:2: 'id' must be a non-empty string" in capsys.readouterr().err
    assert main(["fleet", "run", str(tmp_path / "none.jsonl"), "--model", fs.MODEL]) == 2

"""``dpt config check`` reports every problem at once; a closed pipe ends ``dpt`` quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from doc_processing_toolkit.cli.main import main

BAD = """\
model: claude-sonnet-4-5
modle: x
instructions: 5
constraints:
  max_tokens: 0
  temperature: hot
tools:
  - type: mcp_script
  - type: mcp_command
    allowed_tools: search
  - 42
api_key: ${DPT_TEST_UNSET_VARIABLE}
anthropic_block_binding: warn
"""


def test_config_check_reports_every_problem_with_its_key_path_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DPT_TEST_UNSET_VARIABLE", raising=False)
    path = tmp_path / "bad.yaml"
    path.write_text(BAD)
    assert main(["config", "check", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines[0] == f"dpt: {path}: invalid configuration (10 problems)"
    expected = [
        ("api_key: environment variable DPT_TEST_UNSET_VARIABLE is not set", 12),
        ("modle: unknown key (did you mean 'model'?)", 2),
        ("instructions: must be a string", 3),
        ("constraints.max_tokens: must be positive", 5),
        ("constraints.temperature: must be a number or null", 6),
        ("tools[0]: a 'mcp_script' tool needs 'path'", 8),
        ("tools[1].allowed_tools: must be a list", 10),
        ("tools[1]: a 'mcp_command' tool needs 'command'", 9),
        ("tools[2]: must be a tool file path or a tool mapping", 11),
        ("anthropic_block_binding: must be one of", 13),
    ]
    assert len(lines) == 1 + len(expected)
    for line, (start, number) in zip(lines[1:], expected, strict=True):
        assert line.startswith(f"  {start}"), line
        assert line.endswith(f"({path}:{number})"), line


def test_config_check_still_reports_a_parse_error_and_a_constructor_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("model: [claude-sonnet-4-5\n")
    assert main(["config", "check", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "invalid configuration (1 problem)" in err and f"{broken}:2" in err
    refused = tmp_path / "refused.yaml"
    refused.write_text("model: claude-sonnet-4-5\ntools:\n  - tools/missing.py\n")
    assert main(["config", "check", str(refused)]) == 2
    err = capsys.readouterr().err
    assert "invalid configuration (1 problem)" in err and "tools[0]" in err
    assert f"{refused}:3" in err


def _dpt_into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``dpt args`` with stdout a pipe nobody reads (the reader closed before it
    writes: what ``| head`` does once it has its lines)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "doc_processing_toolkit.cli.main", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)


def test_a_reader_that_stops_early_ends_dpt_quietly(tmp_path: Path) -> None:
    done = _dpt_into_a_closed_pipe("config", "schema")
    assert done.stderr == ""
    assert done.returncode == 141  # 128 + SIGPIPE, as any Unix tool whose reader left
    good = tmp_path / "good.yaml"
    good.write_text("model: claude-sonnet-4-5\nconstraints: {max_tokens: 5}\n")
    done = _dpt_into_a_closed_pipe("config", "check", str(good))
    assert "BrokenPipe" not in done.stderr and "Traceback" not in done.stderr
    assert done.returncode == 141

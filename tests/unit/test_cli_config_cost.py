"""``dpt config schema|check`` and ``dpt cost``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.cli.main import main
from doc_processing_toolkit.testing import FakeModel, Fault
from doc_processing_toolkit.testing.script import reply, tool_call

CANARY = "canary-secret-c0ffee11"


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key


def test_config_schema_is_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["required"] == ["model"] and "tools" in schema["properties"]


def test_config_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(f"model: gpt-4o\napi_key: {CANARY}\nconstraints: {{max_tokens: 5}}\n")
    assert main(["config", "check", str(good)]) == 0
    out = capsys.readouterr()
    assert "max_tokens: 5" in out.out and CANARY not in out.out + out.err
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: gpt-4o\ntools:\n  - type: mcp_script\n")
    assert main(["config", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "tools[0]" in err and f"{bad}:3" in err


def test_cost_renders_a_report_and_sums_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(2):
        fake = FakeModel(
            [Fault(status=429, retry_after=0.0), tool_call("lookup", {"key": "a"}), reply("ok")]
        )
        agent = Agent(
            "claude-sonnet-4-5",
            tools=[lookup],
            client=fake,
            detailed_costs=True,
            cost_output_dir=str(tmp_path),
            log_to_file=False,
        )
        result = agent.run_sync("go")
    assert result.detailed_cost_file is not None
    assert main(["cost", result.detailed_cost_file]) == 0
    table = capsys.readouterr().out
    assert "generation" in table and "tool_followup" in table
    assert f"{result.cost:.6f}" in table and "retries: 1" in table
    assert main(["cost", str(tmp_path)]) == 0
    summary = capsys.readouterr().out
    assert "claude-sonnet-4-5" in summary and "2 report(s)" in summary
    assert main(["cost", str(tmp_path / "missing.json")]) == 2


def test_config_check_reports_what_only_the_constructor_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "agent.yaml"
    path.write_text("model: gpt-4o\nlogging: {to_file: true}\ntools:\n  - missing_tools.py\n")
    assert main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "tools[0]: tool path 'missing_tools.py' does not exist" in err and f"{path}:4" in err
    (tmp_path / "missing_tools.py").write_text("")
    assert main(["config", "check", str(path)]) == 0
    assert not (tmp_path / "logs").exists()  # the check opened no log file

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


def test_cost_directory_sums_by_day(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three saved reports, two of them moved to another day: one row per UTC day, with
    its run count and its spend."""
    files = []
    for _ in range(3):
        agent = Agent(
            "claude-sonnet-5-5",
            client=FakeModel([reply("ok", input_tokens=1_000, output_tokens=100)]),
            detailed_costs=True,
            cost_output_dir=str(tmp_path),
            log_to_file=False,
        )
        result = agent.run_sync("go")
        assert result.detailed_cost_file is not None
        files.append((Path(result.detailed_cost_file), result.cost))
    for path, _ in files[1:]:
        data = json.loads(path.read_text())
        data["timestamp"] = "2026-01-02T03:04:05+00:00"
        path.write_text(json.dumps(data))
    assert main(["cost", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    day_rows = lines[lines.index(next(line for line in lines if line.startswith("day"))) + 1 :]
    by_day = {row.split()[0]: row.split()[1:] for row in day_rows if row[:4].isdigit()}
    today = json.loads(files[0][0].read_text())["timestamp"][:10]
    assert set(by_day) == {today, "2026-01-02"}
    assert by_day["2026-01-02"][:3] == ["2", "2000", "200"]
    assert by_day[today][:3] == ["1", "1000", "100"]
    assert float(by_day["2026-01-02"][3]) == pytest.approx(files[1][1] + files[2][1], abs=1e-6)

"""``dpt`` on the user's mistakes: each is a usage error (exit 2, one line on stderr) that
sends nothing, creates nothing and blames the right thing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from doc_processing_toolkit.cli.main import main
from doc_processing_toolkit.testing import ProviderEmulator, reply


@pytest.fixture
def emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProviderEmulator]:
    with ProviderEmulator(default=reply("unexpected")) as emu:
        monkeypatch.setenv("DPT_ANTHROPIC_BASE_URL", emu.anthropic_base_url)
        yield emu


def test_a_missing_api_key_is_a_configuration_error_and_nothing_is_sent(
    emulator: ProviderEmulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert main(["run", "What is 2 + 3?", "--model", "claude-sonnet-5-5"]) == 2
    out = capsys.readouterr()
    assert out.out == ""  # no answer and no "cost $0.000000" line
    assert out.err.splitlines() == [
        "dpt: anthropic: no API key: set ANTHROPIC_API_KEY or pass Agent(api_key=...)"
    ]
    assert emulator.request_count == 0


@pytest.mark.parametrize("flags", [["--stream"], ["--json"]])
def test_a_missing_api_key_is_one_line_in_every_output_mode(
    flags: list[str],
    emulator: ProviderEmulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert main(["run", "hi", "--model", "claude-sonnet-5-5", *flags]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.splitlines()) == 1 and "ANTHROPIC_API_KEY" in out.err
    assert emulator.request_count == 0


def test_a_file_of_unknown_type_is_named_as_such(
    emulator: ProviderEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "x.xyz"
    odd.write_text("C 0.0 0.0 0.0\n", encoding="utf-8")
    assert main(["run", "hi", "--model", "claude-sonnet-5-5", "--file", str(odd)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"dpt: {odd}: unknown file type (chemical/x-xyz, from its extension); --file takes "
        "PDF, images, text, audio, video, Office documents, JSON and XML"
    ]
    assert "does not take" not in err
    assert emulator.request_count == 0


def test_bytes_of_no_known_type_are_named_too(
    emulator: ProviderEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blob = tmp_path / "blob"
    blob.write_bytes(bytes(range(256)))
    assert main(["run", "hi", "--model", "claude-sonnet-5-5", "--file", str(blob)]) == 2
    assert "unknown file type;" in capsys.readouterr().err
    assert emulator.request_count == 0


def test_a_known_file_type_still_runs(
    emulator: ProviderEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("The total is 42.", encoding="utf-8")
    assert main(["run", "Total?", "--model", "claude-sonnet-5-5", "--file", str(note)]) == 0
    assert "unexpected" in capsys.readouterr().out
    assert emulator.request_count == 1


@pytest.mark.parametrize("content", ['{"a": 1}', "[1, 2]", '{"run_id": "r"}', "not json at all"])
def test_cost_on_a_json_file_that_is_not_a_cost_report_is_an_error(
    content: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.json"
    other.write_text(content, encoding="utf-8")
    assert main(["cost", str(other)]) == 2
    out = capsys.readouterr()
    assert out.out == ""  # no empty table
    assert out.err.startswith(f"dpt: {other}: not a cost report")
    assert len(out.err.splitlines()) == 1


def test_cost_on_a_directory_with_a_stray_report_name_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cost_report_x.json").write_text(json.dumps({"hello": "world"}))
    assert main(["cost", str(tmp_path)]) == 2
    assert "not a cost report" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["status", "results"])
def test_fleet_status_without_a_fleet_database_says_so_and_creates_none(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["fleet", command]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"dpt: no fleet database at {tmp_path / 'dpt-fleet.sqlite'}: `dpt fleet run` creates "
        "it (or pass --database-url / --name of an existing fleet)"
    ]
    assert list(tmp_path.iterdir()) == []
    missing = tmp_path / "elsewhere.sqlite"
    assert main(["fleet", command, "--database-url", f"sqlite:///{missing}"]) == 2
    assert not missing.exists()

"""``dpt models|run|stream|--version`` against fakes and the emulator; every option has help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dependency_injector import providers

import doc_processing_toolkit
from doc_processing_toolkit.application.container import default_container
from doc_processing_toolkit.cli.main import main as dpt
from doc_processing_toolkit.testing import FakeModel, ProviderEmulator, reply, tool_call


def test_dpt_models_lists_rows_with_prices(capsys: pytest.CaptureFixture[str]) -> None:
    assert dpt(["models", "--provider", "anthropic"]) == 0
    out = capsys.readouterr().out
    assert "claude-sonnet-4-5" in out and "200,000" in out and "15" in out
    assert "gpt-4o" not in out


def test_dpt_run_against_the_emulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(
        "from doc_processing_toolkit import tool\n\n"
        "@tool\ndef calculate(a: int, b: int) -> int:\n"
        "    '''Add two numbers.'''\n    return a + b\n"
    )
    with ProviderEmulator(
        [tool_call("calculate", {"a": 2, "b": 3}), reply("It is 5."), reply("again")]
    ) as emulator:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", emulator.anthropic_base_url)
        code = dpt(["run", "What is 2 + 3?", "--model", "claude-sonnet-4-5", "--tool", str(tools)])
        assert code == 0
        out = capsys.readouterr().out
        assert "It is 5." in out and "cost $" in out and "2 request(s)" in out

        assert dpt(["run", "hi", "--model", "claude-sonnet-4-5", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["output"] == "again" and data["request_cost_records"]


def test_dpt_run_reports_bad_input_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    assert dpt(["run", "hi", "--model", "claude-sonnet-4-5", "--tool", "nope.py"]) == 2
    assert "tool file not found" in capsys.readouterr().err


def test_dpt_run_sends_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = tmp_path / "contract.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    fake = FakeModel([reply("a contract")])
    container = default_container()
    container.model_clients.anthropic.override(providers.Object(fake))
    try:
        assert dpt(["run", "What is it?", "--model", "claude-sonnet-4-5", "--file", str(pdf)]) == 0
    finally:
        container.model_clients.anthropic.reset_override()
    assert "a contract" in capsys.readouterr().out
    [media, text] = fake.requests[0].messages[-1].parts
    assert getattr(media, "filename", None) == "contract.pdf" and getattr(text, "text", "") == (
        "What is it?"
    )
    assert dpt(["run", "Hi", "--model", "claude-sonnet-4-5", "--file", "/no/such.pdf"]) == 2
    assert "/no/such.pdf" in capsys.readouterr().err


def test_dpt_version_and_unknown_provider(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        dpt(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"dpt {doc_processing_toolkit.__version__}"
    assert dpt(["models", "--provider", "opnai"]) == 2
    err = capsys.readouterr().err
    assert "unknown provider 'opnai'" in err and "anthropic, fireworks, google, openai" in err


def test_dpt_stream_keeps_warnings_off_the_answer_and_fails_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ProviderEmulator([reply("Streamed answer.")]) as emulator:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", emulator.anthropic_base_url)
        # A retired model warns at construction: the warning must come after the answer.
        code = dpt(["run", "hi", "--model", "claude-sonnet-4-5", "--stream"])
        assert code == 0
        captured = capsys.readouterr()
        assert captured.out.startswith("Streamed answer.")  # no leading blank line
        assert "WARNING" not in captured.out and "retired" not in captured.out
        assert "dpt: warning: model claude-sonnet-4-5 retired" in captured.err

        emulator.reset()  # nothing scripted: the emulator answers with an error
        assert dpt(["run", "hi", "--model", "claude-sonnet-5-5", "--stream"]) == 1
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if not line.startswith("dpt: warning:")]
        assert len(errors) == 1 and errors[0].startswith("dpt: the run failed: ")


def test_every_dpt_option_has_help() -> None:
    import argparse

    from doc_processing_toolkit.cli.main import _parser

    missing: list[str] = []

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prefix} {name}")
            elif not action.help:
                missing.append(f"{prefix} {action.dest}")

    walk(_parser(), "dpt")
    assert not missing, missing

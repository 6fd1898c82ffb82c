"""Composition root overrides, unknown prices, and the CLI."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from dependency_injector import providers

import doc_processing_toolkit
from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.container import build_model_client, default_container
from doc_processing_toolkit.cli.main import main as dpt
from doc_processing_toolkit.testing import FakeModel, ProviderEmulator, reply, tool_call


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.fixture
def fake_anthropic() -> Iterator[FakeModel]:
    fake = FakeModel([tool_call("calculate", {"a": 2, "b": 3}), reply("5")])
    container = default_container()
    container.model_clients.anthropic.override(providers.Object(fake))
    yield fake
    container.model_clients.anthropic.reset_override()


def test_host_overrides_the_model_client_for_every_agent(fake_anthropic: FakeModel) -> None:
    result = Agent("claude-sonnet-4-5", tools=[calculate]).run_sync("2+3")
    assert result.tools_used == ["calculate"]
    assert len(fake_anthropic.requests) == 2


def test_unknown_price_costs_zero_estimated_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 1}), reply("2")], provider="fireworks")
    agent = Agent("kimi-k3", tools=[calculate], client=fake)
    with caplog.at_level(logging.WARNING):
        result = agent.run_sync("1+1")
    assert result.cost == 0.0
    assert result.cost_estimated is True
    assert len(result.request_cost_records) == 2
    warnings = [r for r in caplog.records if "no known price" in r.getMessage()]
    assert len(warnings) == 1


def test_every_built_in_provider_has_an_adapter_and_unknown_ones_value_error() -> None:
    container = default_container()
    for provider in ("anthropic", "openai", "google", "fireworks"):
        assert build_model_client(container, provider).provider == provider
    with pytest.raises(ValueError, match="entry-point"):
        build_model_client(container, "acme")


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

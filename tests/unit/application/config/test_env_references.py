"""A value read from ``${ENV}`` is never exported: a canary set in the environment and
used in an mcp_command's args, a remote MCP URL's query, nested provider_overrides, the
instructions and a base_url path appears nowhere — not in ``to_config()``, not in
``dpt config check``'s output, not in a log file, a repr or an exception."""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from pathlib import Path

import pytest
import yaml

from doc_processing_toolkit import Agent, DocProcessingToolkitError
from doc_processing_toolkit.agent.config import (
    AgentConfig,
    ConfigValidationError,
    load_config_from_string,
)
from doc_processing_toolkit.cli.main import main
from doc_processing_toolkit.testing import FakeModel, ProviderEmulator, reply

CANARY = "canary-3f9b2d7e1a5c8"
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def _yaml(base_url: str) -> str:
    return f"""\
model: claude-sonnet-4-5
instructions: "Internal reference ${{DPT_CANARY}}; answer briefly."
base_url: {base_url}
tools:
  - type: mcp_command
    name: local
    command: {sys.executable}
    args: ["{FIXTURES / "sample_mcp_server.py"}", "--token=${{DPT_CANARY}}"]
  - type: mcp_remote
    url: https://mcp.example.com/mcp?key=${{DPT_CANARY}}
    name: docs
provider_overrides:
  metadata:
    user: {{id: "${{DPT_CANARY}}"}}
"""


@pytest.fixture(autouse=True)
def _canary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_CANARY", CANARY)


def _no_canary(text: str) -> None:
    assert CANARY not in text


def test_to_config_writes_the_reference_never_the_value() -> None:
    agent = Agent.from_config_string(
        _yaml("https://gateway.example.com/${DPT_CANARY}/v1"), client=FakeModel([])
    )
    recipe = agent.to_config()
    _no_canary(json.dumps(recipe))
    _no_canary(repr(agent))
    _no_canary(repr(agent.settings))  # the settings' repr passes through the log redaction
    assert recipe["instructions"] == "Internal reference ${DPT_CANARY}; answer briefly."
    assert recipe["base_url"] == "https://gateway.example.com/${DPT_CANARY}/v1"
    assert recipe["tools"][0]["args"][1] == "--token=${DPT_CANARY}"
    assert recipe["tools"][1]["server_url"] == "https://mcp.example.com/mcp?key=${DPT_CANARY}"
    assert recipe["provider_overrides"]["metadata"] == {"user": {"id": "${DPT_CANARY}"}}
    # The recipe loads back to the same Agent (the variable is read again).
    again = Agent.from_config_string(yaml.safe_dump(recipe), client=FakeModel([]))
    assert again.settings.instructions == agent.settings.instructions
    assert again.to_config() == recipe


def test_an_override_replacing_an_env_value_is_written_as_given() -> None:
    agent = Agent.from_config_string(
        _yaml("https://gateway.example.com/v1"), instructions="Plain.", client=FakeModel([])
    )
    assert agent.to_config()["instructions"] == "Plain."


def test_a_literal_dollar_brace_round_trips() -> None:
    agent = Agent("claude-sonnet-4-5", "Fill ${name} in; $${kept}.", client=FakeModel([]))
    recipe = agent.to_config()
    assert recipe["instructions"] == "Fill $${name} in; $$${kept}."
    again = Agent.from_config_string(yaml.safe_dump(recipe), client=FakeModel([]))
    assert again.settings.instructions == "Fill ${name} in; $${kept}."


def test_dpt_config_check_shows_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text(_yaml("https://gateway.example.com/${DPT_CANARY}/v1"))
    assert main(["config", "check", str(path)]) == 0
    captured = capsys.readouterr()
    _no_canary(captured.out + captured.err)
    shown = yaml.safe_load(captured.out)
    assert shown["base_url"] == "https://gateway.example.com/${DPT_CANARY}/v1"
    assert shown["tools"][0]["args"][1] == "--token=${DPT_CANARY}"
    assert shown["tools"][1]["url"] == "https://mcp.example.com/mcp?key=${DPT_CANARY}"
    assert shown["provider_overrides"]["metadata"]["user"]["id"] == "${DPT_CANARY}"
    assert "${DPT_CANARY}" in shown["instructions"]
    assert repr(AgentConfig.from_yaml(str(path))).count(CANARY) == 0


def test_a_run_logs_and_raises_without_the_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The base_url path holds the canary: the emulator answers 404 there, the run fails;
    the error, its chain, the partial result and the DEBUG log file never show it."""
    monkeypatch.delenv("DPT_AGENT_LOG_TO_FILE")
    monkeypatch.setenv("AGENT_LOG_LEVEL", "DEBUG")
    log_file = tmp_path / "agent.log"
    with ProviderEmulator([reply("never reached")]) as emulator:
        text = _yaml(f"{emulator.anthropic_base_url}/${{DPT_CANARY}}").replace(
            "tools:", "logging: {level: DEBUG, file: " + str(log_file) + ", to_file: true}\ntools:"
        )
        # The stdio server is not needed for this run: keep the provider's connector only.
        config = yaml.safe_load(text)
        config["tools"] = config["tools"][1:]
        agent = Agent.from_config_string(yaml.safe_dump(config))
        try:
            with pytest.raises(DocProcessingToolkitError) as info:
                agent.run_sync("hi")
        finally:
            asyncio.run(agent.close())
    error = info.value
    _no_canary("".join(traceback.format_exception(error)))
    _no_canary(repr(error))
    partial = getattr(error, "partial_result", None)
    if partial is not None:
        _no_canary(json.dumps(partial.to_dict(), default=str))
    log = log_file.read_text()
    assert "anthropic endpoint" in log  # the line that names the URL was written
    _no_canary(log)


def test_a_constructor_refusal_of_an_env_value_hides_it_in_the_whole_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_TOOLS_DIR", str(tmp_path / CANARY))
    with pytest.raises(ConfigValidationError) as info:
        Agent.from_config_string(
            "model: claude-sonnet-4-5\ntools:\n  - ${DPT_TOOLS_DIR}/missing.py\n",
            client=FakeModel([]),
        )
    assert str(info.value).startswith("tools[0]:")
    assert isinstance(info.value.__cause__, FileNotFoundError | ValueError)
    _no_canary("".join(traceback.format_exception(info.value)))


def test_env_values_are_masked_in_log_text_but_a_model_or_a_level_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from doc_processing_toolkit._logging import redact

    monkeypatch.setenv("DPT_MODEL", "claude-sonnet-4-5")
    monkeypatch.setenv("DPT_LEVEL", "WARNING")
    load_config_from_string(
        "model: ${DPT_MODEL}\nlogging:\n  level: ${DPT_LEVEL}\n"
        "provider_overrides:\n  metadata:\n    user: ${DPT_CANARY}\n"
    )
    assert redact(f"user={CANARY} model=claude-sonnet-4-5 WARNING") == (
        "user=*** model=claude-sonnet-4-5 WARNING"
    )

"""The Agent's constructor contract, logging, secrets, builder and import paths."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import FakeModel, reply, tool_call

CANARY = "sk-ant-canary-0123456789abcdef"


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_import_pulls_in_no_provider_sdk() -> None:
    code = (
        "import sys, doc_processing_toolkit, doc_processing_toolkit.agent.core, "
        "doc_processing_toolkit.agent.result, doc_processing_toolkit.agent.tools, "
        "doc_processing_toolkit.agent.cost, doc_processing_toolkit.utils\n"
        "bad = [m for m in ('anthropic', 'openai', 'google.genai', 'mcp', 'fastmcp', "
        "'dependency_injector') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_documented_import_paths() -> None:
    from doc_processing_toolkit.agent import Agent as A1
    from doc_processing_toolkit.agent.core import Agent as A2
    from doc_processing_toolkit.agent.cost import (  # noqa: F401
        AgentStreamEvent,
        RetryAccumulator,
        RetryAttemptCost,
        normalize_token_source,
        summarize_served_tiers,
    )
    from doc_processing_toolkit.agent.result import AgentResult  # noqa: F401
    from doc_processing_toolkit.agent.tools import get_tool_metadata, is_tool  # noqa: F401
    from doc_processing_toolkit.utils import (
        TOOL_RESULT_CAP_CHARS_PER_TOKEN,
        TOOL_RESULT_CAP_CONTEXT_FRACTION,
    )

    assert A1 is A2 is Agent
    assert TOOL_RESULT_CAP_CHARS_PER_TOKEN == 4
    assert TOOL_RESULT_CAP_CONTEXT_FRACTION == 0.25


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"max_iterations": 0}, "max_iterations"),
        ({"max_tokens": -5}, "max_tokens"),
        ({"temperature": 3.0}, "temperature"),
        ({"tool_choice": 42}, "tool_choice"),
        ({"max_tool_result_chars": -1}, "max_tool_result_chars"),
        ({"tool_result_preview_chars": -1}, "tool_result_preview_chars"),
        ({"log_level": "LOUD", "log_to_file": False}, "log_level"),
        ({"thinking": "yes"}, "thinking"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        Agent("claude-sonnet-4-5", **kwargs)  # type: ignore[arg-type]


def test_unknown_model_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no-such-model"):
        Agent("no-such-model")


def test_every_constructor_parameter_is_built() -> None:
    from doc_processing_toolkit.application.config.validation import NOT_YET_IMPLEMENTED

    assert NOT_YET_IMPLEMENTED == {}
    agent = Agent("claude-sonnet-4-5", compaction=True, remove_citations=True)
    assert agent.settings.compaction.enabled is True


def test_on_unsupported_part_takes_drop_or_raise() -> None:
    with pytest.raises(ValueError, match="on_unsupported_part"):
        Agent("claude-sonnet-4-5", on_unsupported_part="ignore")
    assert Agent(
        "claude-sonnet-4-5", on_unsupported_part="raise"
    ).settings.media.on_unsupported_part


def test_not_yet_built_run_args_raise() -> None:
    agent = Agent("claude-sonnet-4-5", client=FakeModel([reply("x")]))
    with pytest.raises(TypeError, match="media_resolution_list"):
        agent.run_sync("hi", media_resolution_list="MEDIA_RESOLUTION_LOW")  # type: ignore[arg-type]
    assert agent.session().session_id  # sessions are built (tests/unit/application/session/)


def test_undecorated_function_is_refused() -> None:
    def plain(a: int) -> int:
        return a

    with pytest.raises(ValueError, match="@tool"):
        Agent("claude-sonnet-4-5", tools=[plain])


def test_builder_builds_the_same_agent() -> None:
    fake = FakeModel([tool_call("calculate", {"a": 2, "b": 3}), reply("5")])
    builder = (
        Agent.builder()
        .model("claude-sonnet-4-5")
        .instructions("Be brief.")
        .add_tool(calculate)
        .max_iterations(4)
        .max_tokens(512)
    )
    builder._kwargs["client"] = fake  # the DI seam, not part of the fluent surface
    agent = builder.build()
    assert agent.max_iterations == 4 and agent.max_tokens == 512
    assert agent.run_sync("2+3").tools_used == ["calculate"]
    with pytest.raises(ValueError, match="model"):
        Agent.builder().build()
    with pytest.raises(ValueError, match="strategy"):
        Agent.builder().model("claude-sonnet-4-5").with_compaction(strategy="shred").build()
    compacting = Agent.builder().model("claude-sonnet-4-5").with_compaction(keep_recent_messages=3)
    assert compacting.build().settings.compaction.config == {"keep_recent_messages": 3}


def test_default_log_file_and_no_secret_at_debug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DPT_AGENT_LOG_TO_FILE")
    monkeypatch.setenv("AGENT_LOG_LEVEL", "DEBUG")
    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 2}), reply(f"leak {CANARY}?")])
    agent = Agent("claude-sonnet-4-5", tools=[calculate], api_key=CANARY, client=fake)
    result = agent.run_sync("hi")
    for handler in agent.logger.handlers:
        handler.flush()
    files = list((tmp_path / "logs").glob("Agent-claude-sonnet-4-5_*.log"))
    assert len(files) == 1 and agent.log_file is not None
    text = files[0].read_text()
    assert "run " in text and "finished" in text
    assert "provider request" not in text or CANARY not in text
    assert CANARY not in text
    assert CANARY not in repr(agent)
    assert CANARY not in json.dumps(result.to_dict(), default=str).replace(f"leak {CANARY}?", "")


def test_log_to_file_false_creates_no_logs_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DPT_AGENT_LOG_TO_FILE")
    agent = Agent("claude-sonnet-4-5", log_to_file=False, client=FakeModel([reply("x")]))
    agent.run_sync("hi")
    assert not (tmp_path / "logs").exists()
    assert agent.log_file is None
    monkeypatch.setenv("DPT_AGENT_LOG_TO_FILE", "0")
    Agent("claude-sonnet-4-5", client=FakeModel([reply("x")])).run_sync("hi")
    assert not (tmp_path / "logs").exists()


def test_agent_log_level_env_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_LOG_LEVEL", "ERROR")
    agent = Agent("claude-sonnet-4-5", log_level="DEBUG", log_to_file=False)
    assert agent.logger.level == logging.ERROR


def test_supplied_logger_is_used_as_is() -> None:
    mine = logging.getLogger("host.app")
    agent = Agent("claude-sonnet-4-5", logger=mine, client=FakeModel([reply("x")]))
    assert agent.logger is mine
    assert agent.run_sync("hi").output == "x"


@pytest.mark.anyio
async def test_close_closes_only_owned_clients() -> None:
    fake = FakeModel([reply("x")])
    async with Agent("claude-sonnet-4-5", client=fake) as agent:
        await agent.run("hi")
    assert fake.closed is False  # a host-supplied client belongs to the host


def test_provider_keywords_pass_through_with_one_warning_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = FakeModel([reply("x")])
    with caplog.at_level(logging.WARNING):
        agent = Agent(
            "claude-sonnet-4-5",
            client=fake,
            logger=logging.getLogger("host.kwargs"),
            effort_config="high",
            verbosity_config="low",
            system_prompt="nope",
        )
    messages = [r.getMessage() for r in caplog.records]
    assert any("verbosity_config" in m and "openai" in m for m in messages)
    assert any("system_prompt" in m and "instructions=" in m for m in messages)
    assert not any("effort_config" in m for m in messages)
    agent.run_sync("hi")
    assert fake.requests[0].provider_options == {
        "effort_config": "high",
        "verbosity_config": "low",
        "system_prompt": "nope",
    }


def test_service_tier_is_validated_against_the_row(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        agent = Agent("claude-sonnet-4-5", service_tier="priority", logger=logging.getLogger("t"))
    assert agent.service_tier is None
    assert any("priority" in r.getMessage() for r in caplog.records)
    gpt = Agent("gpt-5.6-luna", service_tier="priority", log_to_file=False)
    assert gpt.service_tier == "priority"


def test_prompt_caching_values() -> None:
    assert Agent("claude-sonnet-4-5", prompt_caching=True).prompt_caching == {"ttl": "5m"}
    assert Agent("claude-sonnet-4-5", prompt_caching={"ttl": "1h"}).prompt_caching == {"ttl": "1h"}
    with pytest.raises(ValueError, match="prompt_caching"):
        Agent("claude-sonnet-4-5", prompt_caching={"ttl": "2h"})


def test_built_in_tools_configured_are_echoed_on_the_result() -> None:
    fake = FakeModel([reply("searched")])
    agent = Agent(
        "claude-sonnet-4-5", client=fake, built_in_tools={"web_search": {"enabled": True}}
    )
    result = agent.run_sync("news?")
    assert result.built_in_tools_used == ["web_search"]
    assert result.built_in_tools_invoked == []
    assert fake.requests[0].built_in_tools == {"web_search": {"enabled": True}}


def test_provider_run_mcp_is_checked_at_construction() -> None:
    server = {"type": "mcp", "server_url": "https://mcp.example/mcp", "name": "docs"}
    with pytest.raises(TypeError):
        Agent("claude-sonnet-4-5", tools=[{**server, "allowed_tools": "search"}])
    with pytest.raises(ValueError, match="mcp_remote_client"):
        Agent("kimi-k3", tools=[{**server, "allowed_tools": ["search"]}])
    fake = FakeModel([reply("ok")])
    Agent("claude-sonnet-4-5", tools=[server], client=fake).run_sync("hi")
    assert fake.requests[0].remote_mcp_servers == (server,)


def test_an_unwritable_log_file_falls_back_to_the_console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DPT_AGENT_LOG_TO_FILE")
    (tmp_path / "logs").write_text("a file where the logs directory would go")
    agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("fine")]))
    assert agent.run_sync("hi").output == "fine"
    assert agent.log_file is None
    warnings = [line for line in capfd.readouterr().err.splitlines() if "log file" in line]
    assert len(warnings) == 1 and "logging to the console only" in warnings[0]

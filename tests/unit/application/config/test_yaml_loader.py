"""YAML configuration: load, validate (key paths, lines), interpolate, merge, round trip."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.config import (
    AgentConfig,
    ConfigParseError,
    ConfigValidationError,
    config_json_schema,
    load_config,
    load_config_from_string,
    merge_configs,
    validate_config,
    validate_max_tool_result_chars,
    validate_tool_result_preview_chars,
    validate_truncated_result_read_chars,
)
from doc_processing_toolkit.application.config.schema import CONFIG_FIELDS
from doc_processing_toolkit.application.config.settings import SETTING_NAMES
from doc_processing_toolkit.testing import FakeModel

ROOT = Path(__file__).resolve().parents[4]
SPEC_EXAMPLE = ROOT / "tests" / "fixtures" / "spec_from_config_example.yaml"
CANARY = "canary-secret-5b1d0e77"


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def _yaml_blocks(markdown: Path) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", markdown.read_text(encoding="utf-8"), re.S)


def test_the_spec_example_loads_and_builds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    (tmp_path / "path" / "to").mkdir(parents=True)
    (tmp_path / "path" / "to" / "tools.py").write_text("")
    monkeypatch.chdir(tmp_path)
    config = load_config(str(SPEC_EXAMPLE))
    assert config["model"] == "claude-sonnet-4-5"
    assert config["constraints"] == {"max_iterations": 10, "max_tokens": 4096, "temperature": 0.7}
    assert config["api_key"] == CANARY
    agent = Agent.from_config(str(SPEC_EXAMPLE), client=FakeModel([]))
    assert agent.settings.tools.code_execution_output_dir == config["code_execution_output_dir"]
    assert agent.max_tokens == 4096 and agent.temperature == 0.7
    assert agent.provider_kwargs == {"effort_config": "high"}
    assert agent.settings.logging.log_level == "INFO"
    assert agent.settings.tools.entries[1]["type"] == "mcp"  # type: mcp_remote is the connector
    assert CANARY not in yaml.safe_dump(agent.to_config())


@pytest.mark.parametrize(
    "doc", ["docs/guide/configuration.md", "examples/agent.yaml"], ids=["docs", "example"]
)
def test_documented_yaml_loads(doc: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    monkeypatch.setenv("SERVICE_TOKEN", CANARY)
    path = ROOT / doc
    blocks = _yaml_blocks(path) if path.suffix == ".md" else [path.read_text()]
    assert blocks
    for block in blocks:
        if "model:" in block and "# invalid" not in block:
            load_config_from_string(block)


BAD_VALUES: dict[str, Any] = {
    "model": "",
    "instructions": 3,
    "api_key": 12,
    "base_url": ["x"],
    "constraints": {"max_iterations": 0},
    "thinking": {"budget_tokens": -5},
    "built_in_tools": {"web_search": {"enabled": "yes"}},
    "tools": [{"type": "mcp_command"}],
    "logging": {"level": "LOUD"},
    "provider_overrides": ["effort"],
    "tool_choice": 7,
    "strict_tools": "yes",
    "auto_inject_memory_instructions": 1,
    "auto_inject_skills": "no",
    "max_tool_result_chars": -1,
    "tool_result_preview_chars": None,
    "truncated_result_read_chars": True,
    "code_execution_output_dir": 5,
    "service_tier": "",
    "prompt_caching": {"ttl": "2h"},
    "emit_request_start": "on",
    "defer_tools": "search",
    "estimate_input_tokens": "eager",
    "compaction": "true",
    "compaction_config": {"strategy": "shred"},
    "session_history_config": {"mode": "partial"},
    "anthropic_block_binding": "keep",
    "strict_prefix_binding": 2,
    "prefix_audit": "x",
    "prefix_strip_fallback": [],
    "remove_citations": {},
    "output_retries": -1,
    "evidence_threshold": 101,
    "citations": "yes",
    "on_unsupported_part": "ignore",
    "media_policy": "sometimes",
    "media_store": "",
    "media_max_inline_bytes": -3,
    "detailed_costs": "yes",
    "telemetry": "yes",
    "cost_output_dir": 1,
    "connect_timeout": "5s",
    "request_timeout": -1,
    "stream_idle_timeout": "soon",
    "tool_timeout": [3],
    "registry": 5,
    "deployment": "mainframe",
    "deployment_options": ["region"],
}


def test_every_key_has_a_bad_value_case() -> None:
    assert set(BAD_VALUES) == set(CONFIG_FIELDS)


@pytest.mark.parametrize("key", sorted(BAD_VALUES))
def test_a_bad_value_fails_naming_its_key(key: str) -> None:
    config = {"model": "claude-sonnet-4-5", key: BAD_VALUES[key]}
    text = yaml.safe_dump(config)
    with pytest.raises(ConfigValidationError) as info:
        load_config_from_string(text)
    assert str(info.value).startswith(key), str(info.value)
    assert "<string>:" in str(info.value)


def test_errors_name_the_nested_key_path_and_line(tmp_path: Path) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text(
        "model: claude-sonnet-4-5\n"
        "tools:\n"
        "  - tools.py\n"
        "  - type: mcp_script\n"
        "    path: s.py\n"
        "  - type: mcp_remote_client\n"
        "    url: https://x.example/mcp\n"
        "    allowed_tools: search\n"
    )
    with pytest.raises(ConfigValidationError) as info:
        load_config(str(path))
    message = str(info.value)
    assert message.startswith("tools[2].allowed_tools: must be a list")
    assert f"{path}:8" in message


def test_parse_errors_give_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("model: claude-sonnet-4-5\nconstraints:\n  max_tokens: [1,\n")
    with pytest.raises(ConfigParseError) as info:
        load_config(str(path))
    assert str(path) in str(info.value)


def test_missing_file_and_missing_model() -> None:
    with pytest.raises(FileNotFoundError):
        load_config("/nonexistent/agent.yaml")
    with pytest.raises(FileNotFoundError):
        Agent.from_config("/nonexistent/agent.yaml")
    with pytest.raises(ConfigValidationError, match="model: missing"):
        load_config_from_string("instructions: hi\n")
    with pytest.raises(ConfigValidationError, match="unknown model"):
        load_config_from_string("model: no-such-model-9\n")
    with pytest.raises(ConfigValidationError, match="did you mean 'constraints'"):
        load_config_from_string("model: gpt-4o\nconstrains: {}\n")


def test_interpolation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_TEST_MODEL", "gpt-4o")
    monkeypatch.delenv("DPT_TEST_UNSET", raising=False)
    config = load_config_from_string(
        "model: ${DPT_TEST_MODEL}\n"
        "instructions: 'tier ${DPT_TEST_UNSET:-standard}, literal $${HOME}'\n"
    )
    assert config["model"] == "gpt-4o"
    assert config["instructions"] == "tier standard, literal ${HOME}"
    with pytest.raises(ConfigValidationError) as info:
        load_config_from_string("model: gpt-4o\nservice_tier: ${DPT_TEST_UNSET}\n")
    assert "service_tier" in str(info.value) and "DPT_TEST_UNSET" in str(info.value)


def test_secrets_never_appear_in_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_TEST_SECRET", CANARY)
    cases = [
        "model: gpt-4o\nmedia_policy: ${DPT_TEST_SECRET}\n",
        f"model: gpt-4o\ntools:\n  - type: mcp_command\n    command: x\n    env: [{CANARY}]\n",
        "model: gpt-4o\ntools:\n  - type: mcp_remote_client\n    url: u\n"
        f"    headers: {{X: [{CANARY}]}}\n",
    ]
    for text in cases:
        with pytest.raises(ConfigValidationError) as info:
            load_config_from_string(text)
        assert CANARY not in str(info.value)


def test_overrides_follow_the_documented_rules() -> None:
    text = (
        "model: claude-sonnet-4-5\n"
        "constraints: {max_tokens: 100}\n"
        "logging: {level: WARNING}\n"
        "provider_overrides: {effort_config: low}\n"
    )
    fake = FakeModel([])
    agent = Agent.from_config_string(
        text,
        client=fake,
        max_tokens=200,
        log_level="DEBUG",  # yields to the YAML logging block
        log_to_file=False,  # the block has no to_file: applies
        effort_config="high",
        tools=[add],
    )
    assert agent.max_tokens == 200
    assert agent.settings.logging.log_level == "WARNING"
    assert agent.settings.logging.log_to_file is False
    assert agent.provider_kwargs == {"effort_config": "high"}
    assert agent.settings.client is fake
    with pytest.raises(ConfigValidationError, match="max_tool_result_chars"):
        Agent.from_config_string(text, max_tool_result_chars=-1)
    with pytest.raises(ConfigValidationError, match="tool_result_preview_chars"):
        Agent.from_config_string(text, tool_result_preview_chars=None)
    with pytest.raises(ConfigValidationError, match=r"provider_overrides\.max_tokens"):
        Agent.from_config_string("model: gpt-4o\nprovider_overrides: {max_tokens: 3}\n")


def test_compaction_loads_from_yaml_and_round_trips(tmp_path: Path) -> None:
    text = (
        "model: claude-sonnet-4-5\n"
        "compaction: true\n"
        "compaction_config: {strategy: sliding_window, keep_recent_messages: 4}\n"
    )
    config = load_config_from_string(text)
    assert config["compaction_config"]["strategy"] == "sliding_window"
    agent = Agent.from_config_string(text, client=FakeModel([]))
    exported = agent.to_config()
    assert exported["compaction"] is True
    assert exported["compaction_config"] == {
        "strategy": "sliding_window",
        "keep_recent_messages": 4,
    }
    with pytest.raises(ConfigValidationError, match="strategy"):
        Agent.from_config_string(text.replace("sliding_window", "shred"), client=FakeModel([]))


def test_session_and_media_settings_build_from_yaml(tmp_path: Path) -> None:
    text = (
        "model: claude-sonnet-4-5\n"
        "session_history_config: {mode: no_reasoning}\n"
        "media_policy: externalize\n"
        f"media_store: {tmp_path / 'media'}\n"
        "media_max_inline_bytes: null\n"
    )
    agent = Agent.from_config_string(text, client=FakeModel([]))
    assert agent.settings.media.media_policy == "externalize"
    config = agent.to_config()
    assert config["media_store"] == str(tmp_path / "media")
    assert config["media_max_inline_bytes"] is None
    config.pop("unserialisable")  # the FakeModel client
    assert Agent.from_config_string(yaml.safe_dump(config)).to_config() == config


def test_single_key_validators() -> None:
    validate_max_tool_result_chars({"max_tool_result_chars": 50_000})
    validate_max_tool_result_chars({})
    validate_tool_result_preview_chars({"tool_result_preview_chars": 0})
    validate_truncated_result_read_chars({"truncated_result_read_chars": None})
    for fn, key in (
        (validate_max_tool_result_chars, "max_tool_result_chars"),
        (validate_tool_result_preview_chars, "tool_result_preview_chars"),
        (validate_truncated_result_read_chars, "truncated_result_read_chars"),
    ):
        for bad in (-1, True, "3"):
            with pytest.raises(ConfigValidationError, match=key):
                fn({key: bad})
    with pytest.raises(ConfigValidationError):
        validate_tool_result_preview_chars({"tool_result_preview_chars": None})


def test_merge_configs_and_agent_config() -> None:
    base = {"model": "gpt-4o", "constraints": {"max_tokens": 5, "temperature": 0.1}}
    merged = merge_configs(base, {"constraints": {"max_tokens": 9}, "tools": ["a.py"]})
    assert merged == {
        "model": "gpt-4o",
        "constraints": {"max_tokens": 9, "temperature": 0.1},
        "tools": ["a.py"],
    }
    assert base["constraints"] == {"max_tokens": 5, "temperature": 0.1}
    config = AgentConfig.from_string("model: gpt-4o\nconstraints: {max_tokens: 5}\n")
    assert config.model == "gpt-4o" and config.constraints["max_tokens"] == 5
    assert config.thinking is None and config.tools == []
    again = config.merge({"constraints": {"max_tokens": 7}})
    assert again.constraints["max_tokens"] == 7 and config.constraints["max_tokens"] == 5
    assert AgentConfig(again.to_dict()) == again
    with pytest.raises(AttributeError):
        _ = config.no_such_key
    with pytest.raises(ConfigValidationError):
        config.merge({"constraints": {"max_tokens": 0}})
    assert validate_config({"model": "gpt-4o"})["constraints"] == {"max_iterations": 10}


def test_json_schema_covers_every_key() -> None:
    schema = config_json_schema()
    assert schema["required"] == ["model"]
    assert set(schema["properties"]) == set(CONFIG_FIELDS) | {"unserialisable"}


def test_every_data_setting_has_a_yaml_key() -> None:
    grouped = {"max_iterations", "max_tokens", "temperature", "log_level", "log_file"}
    grouped |= {"log_to_file", "provider_kwargs", "max_pause_turn_iterations"}
    live = {"logger", "hooks", "client", "mcp_remote_servers"}
    names = set(SETTING_NAMES)
    assert names - grouped - live <= set(CONFIG_FIELDS)


def _round_trip(agent: Agent, **resupply: Any) -> Agent:
    text = yaml.safe_dump(agent.to_config())
    return Agent.from_config_string(text, **resupply)


def test_round_trip_keeps_secrets_out() -> None:
    agent = Agent(
        "claude-sonnet-4-5",
        tools=[
            add,
            {"type": "mcp_command", "command": "python", "name": "c", "env": {"K": CANARY}},
            {
                "type": "mcp_remote_client",
                "url": "https://x.example/mcp",
                "name": "r",
                "headers": {"Authorization": f"Bearer {CANARY}"},
            },
        ],
        api_key=CANARY,
        extra_headers={"X-Key": CANARY},
        log_to_file=False,
    )
    text = yaml.safe_dump(agent.to_config())
    assert CANARY not in text
    listed = agent.to_config()["unserialisable"]
    assert "api_key" in listed and listed["tool_env"] == {"c": ["K"]}
    assert "extra_headers" in listed["provider_overrides"]
    again = _round_trip(
        agent,
        tools=agent.settings.tools.entries,
        log_to_file=False,
        api_key=CANARY,
        extra_headers={"X-Key": CANARY},
    )
    assert again.settings.api_key == CANARY and again.to_config() == agent.to_config()


_names = st.text(alphabet="abcdefghij_", min_size=1, max_size=8)
_constructor_args = st.fixed_dictionaries(
    {},
    optional={
        "instructions": st.text(max_size=40),
        "max_iterations": st.integers(1, 50),
        "max_tokens": st.none() | st.integers(1, 100_000),
        "temperature": st.none() | st.floats(0.0, 2.0, allow_nan=False),
        "thinking": st.none() | st.fixed_dictionaries({"budget_tokens": st.integers(1024, 9000)}),
        "strict_tools": st.booleans(),
        "auto_inject_memory_instructions": st.booleans(),
        "auto_inject_skills": st.booleans(),
        "log_level": st.sampled_from(["DEBUG", "INFO", "WARNING"]),
        "tool_choice": st.sampled_from(["auto", "any", "required", "none", "add"]),
        "emit_request_start": st.booleans(),
        "max_tool_result_chars": st.none() | st.integers(0, 10**6),
        "tool_result_preview_chars": st.integers(0, 5000),
        "truncated_result_read_chars": st.none() | st.integers(0, 10**6),
        "prompt_caching": st.sampled_from([None, True, {"ttl": "5m"}, {"ttl": "1h"}]),
        "service_tier": st.sampled_from([None, "priority"]),
        "defer_tools": st.none() | st.lists(_names, max_size=3),
        "detailed_costs": st.booleans(),
        "cost_output_dir": st.none() | st.just("costs"),
        "base_url": st.none() | st.just("http://127.0.0.1:9/v1"),
        "tools": st.lists(
            st.sampled_from(
                [
                    {"type": "mcp_script", "path": "tests/fixtures/sample_mcp_server.py"},
                    {"type": "mcp_command", "command": "python", "name": "cmd"},
                    {"type": "mcp_remote_client", "url": "https://a.example/mcp", "name": "r"},
                    {"type": "mcp", "server_url": "https://b.example/mcp", "server_label": "b"},
                ]
            ),
            max_size=2,
            unique_by=lambda d: d["type"],
        ),
        "on_unsupported_part": st.sampled_from(["drop", "raise"]),
        "media_policy": st.sampled_from(["auto", "inline", "externalize", "strip"]),
        "media_max_inline_bytes": st.none() | st.integers(0, 10**9),
        "session_history_config": st.none()
        | st.fixed_dictionaries({"mode": st.sampled_from(["full", "messages_only"])}),
        "effort_config": st.sampled_from(["low", "high"]),
        "max_pause_turn_iterations": st.integers(1, 20),
        "built_in_tools": st.sampled_from(
            [
                None,
                {"web_search": {"enabled": True, "config": {"max_uses": 3}}},
                {"code_execution": {"enabled": True}},
            ]
        ),
        "code_execution_output_dir": st.none() | st.just("out/files"),
        "media_store": st.none() | st.just("media-dir"),
        "log_file": st.none() | st.just("agent.log"),
        "connect_timeout": st.none() | st.floats(0.5, 30, allow_nan=False),
        "request_timeout": st.none() | st.integers(1, 600),
        "stream_idle_timeout": st.none() | st.floats(1, 120, allow_nan=False),
        "tool_timeout": st.none() | st.integers(1, 60),
        "remove_citations": st.booleans(),
        "output_retries": st.integers(0, 3),
        "evidence_threshold": st.sampled_from([85.0, 70.0, 99.5]),
        "estimate_input_tokens": st.sampled_from(["lazy", True, False]),
        "anthropic_block_binding": st.sampled_from([None, "drop_block", "error", "off"]),
        "strict_prefix_binding": st.booleans(),
        "prefix_audit": st.booleans(),
        "prefix_strip_fallback": st.booleans(),
    },
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(["claude-sonnet-5-5", "gpt-4o", "gemini-2.5-flash"]),
    args=_constructor_args,
)
def test_from_config_of_to_config_is_the_same_agent(model: str, args: dict[str, Any]) -> None:
    try:
        agent = Agent(model, log_to_file=False, **args)
    except (ValueError, TypeError):
        return  # a combination the provider refuses; nothing to round-trip
    config = agent.to_config()
    again = Agent.from_config_string(yaml.safe_dump(config))
    assert again.to_config() == config
    assert again.settings.generation.max_iterations == agent.settings.generation.max_iterations


def test_the_from_config_example_runs_offline(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import runpy

    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT / "examples" / "from_config.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "42" in out and "tool_followup" in out

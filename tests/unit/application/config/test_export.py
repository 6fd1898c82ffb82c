"""Agent.to_config(): plain data, nothing live, no secret."""

from __future__ import annotations

import json

import yaml

from doc_processing_toolkit import Agent, tool

CANARY = "canary-secret-7f3a9c2e"


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def test_to_config_is_yaml_safe_and_lists_what_it_cannot_serialise() -> None:
    agent = Agent(
        "claude-sonnet-4-5",
        "Be brief.",
        tools=[add],
        api_key=CANARY,
        max_iterations=4,
        max_tokens=256,
        tool_choice="any",
        log_to_file=False,
    )
    config = agent.to_config()
    text = yaml.safe_dump(config)
    assert CANARY not in text and CANARY not in json.dumps(config)
    assert config["model"] == "claude-sonnet-4-5"
    assert config["instructions"] == "Be brief."
    assert config["constraints"] == {"max_iterations": 4, "max_tokens": 256}
    assert config["tool_choice"] == "any"
    assert config["logging"]["to_file"] is False
    assert config["unserialisable"]["tools"] == ["add"]
    assert "api_key" in config["unserialisable"]
    assert "tools" not in config


def test_credentials_in_tool_entries_never_reach_to_config(tmp_path: object) -> None:
    script = {
        "type": "mcp_script",
        "path": "tests/fixtures/sample_mcp_server.py",
        "name": "calc",
        "env": {"SERVICE_TOKEN": CANARY, "DEBUG": True},
        "cwd": tmp_path,
    }
    remote = {
        "type": "mcp_remote_client",
        "url": "https://mcp.example.com/mcp",
        "name": "docs",
        "authorization_token": CANARY,
        "headers": {"X-Api-Key": CANARY},
    }
    agent = Agent("claude-sonnet-4-5", tools=[script, remote], log_to_file=False)
    config = agent.to_config()
    dumped = yaml.safe_dump(config)
    assert CANARY not in dumped
    assert config["unserialisable"]["tool_env"] == {"calc": ["DEBUG", "SERVICE_TOKEN"]}
    emitted_script, emitted_remote = config["tools"]
    assert "env" not in emitted_script and emitted_script["cwd"] == str(tmp_path)
    assert emitted_remote == {
        "type": "mcp_remote_client",
        "url": "https://mcp.example.com/mcp",
        "name": "docs",
    }
    assert sorted(config["unserialisable"]["tool_credentials"]) == [
        "docs.authorization_token",
        "docs.headers",
    ]

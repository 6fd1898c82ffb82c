"""Issue acceptance: a canary secret given as an authorization_token, a header, an env value
or an api_key appears nowhere — not in logs at DEBUG, not in exceptions, not in to_config()."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import FakeModel, Reply, ToolCall, reply

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
sys.path.insert(0, str(FIXTURES))
from http_mcp_server import HttpMCPServer  # noqa: E402

CANARY = "canary-9f1c2e7b5a3d4e6f"


@pytest.fixture(scope="module")
def http_server() -> Iterator[HttpMCPServer]:
    server = HttpMCPServer(CANARY).start()
    yield server
    server.stop()


def _tools(http_server: HttpMCPServer, *, token: str, header: bool) -> list[dict[str, object]]:
    remote: dict[str, object] = {
        "type": "mcp_remote_client",
        "url": http_server.url,
        "name": "remote",
        "allowed_tools": ["add"],
    }
    if header:
        remote["headers"] = {"Authorization": f"Bearer {token}"}
    else:
        remote["authorization_token"] = token
    stdio = {
        "type": "mcp_command",
        "command": sys.executable,
        "args": [str(FIXTURES / "sample_mcp_server.py")],
        "name": "local",
        "env": {"SERVICE_TOKEN": CANARY},
        "allowed_tools": ["get_env"],
    }
    return [remote, stdio]


@pytest.mark.parametrize("header", [False, True], ids=["authorization_token", "headers"])
def test_canary_never_leaks(
    http_server: HttpMCPServer,
    header: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DPT_AGENT_LOG_TO_FILE")
    monkeypatch.setenv("AGENT_LOG_LEVEL", "DEBUG")
    fake = FakeModel(
        [
            Reply(
                tool_calls=(
                    ToolCall("add", {"a": 2, "b": 3}),
                    ToolCall("get_env", {"var": "SERVICE_TOKEN"}),
                )
            ),
            reply("done"),
        ]
    )
    agent = Agent(
        "claude-sonnet-4-5",
        tools=_tools(http_server, token=CANARY, header=header),
        api_key=CANARY,
        client=fake,
    )
    with caplog.at_level(logging.DEBUG):
        result = agent.run_sync("go")
    # The tools really ran with the credentials: the remote add answered, and the stdio
    # child saw its env value (which is the only place the canary may legitimately appear).
    results = fake.requests[1].messages[-1].parts
    assert results[0].text == "5"  # type: ignore[union-attr]
    assert results[1].text == CANARY  # type: ignore[union-attr]

    for handler in agent.logger.handlers:
        handler.flush()
    log_text = "\n".join(p.read_text() for p in (tmp_path / "logs").glob("*.log"))
    assert log_text and CANARY not in log_text
    assert all(CANARY not in r.getMessage() for r in caplog.records)
    assert CANARY not in yaml.safe_dump(agent.to_config())
    assert CANARY not in repr(agent)
    messages = json.dumps(result.to_dict()["request_cost_records"])
    assert CANARY not in messages


def test_a_rejected_token_names_the_server_not_the_secret(http_server: HttpMCPServer) -> None:
    wrong = "canary-wrong-4b1d9e0c7f2a"
    fake = FakeModel([reply("never")])
    agent = Agent(
        "claude-sonnet-4-5",
        tools=[
            {
                "type": "mcp_remote_client",
                "url": http_server.url + "?sig=" + wrong,
                "name": "remote",
                "authorization_token": wrong,
            }
        ],
        client=fake,
    )
    with pytest.raises(RuntimeError) as info:
        agent.run_sync("go")
    text = str(info.value)
    assert "Failed to connect to remote MCP server 'remote'" in text
    assert "HTTP 401 Unauthorized" in text
    assert wrong not in text and "sig=" not in text

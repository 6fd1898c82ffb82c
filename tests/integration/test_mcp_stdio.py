"""StdioMCPSession against real MCP server subprocesses (the fixtures' stdio servers)."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import pytest

from doc_processing_toolkit.adapters.mcp.config import validate_stdio_config
from doc_processing_toolkit.adapters.mcp.factory import mcp_session_for
from doc_processing_toolkit.adapters.mcp.filtered import AllowedToolsSession
from doc_processing_toolkit.adapters.mcp.stdio import StdioMCPSession
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.ports.tool_session import ManagedToolSession

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "tests/fixtures/sample_mcp_server.py"
PAGINATED = "tests/fixtures/paginating_mcp_server.py"


@pytest.fixture
def in_repo_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)
    return ROOT


@pytest.fixture
def workdir(tmp_path: Path) -> str:
    return str(tmp_path.resolve())


@pytest.mark.anyio
async def test_mcp_script_session_lists_calls_and_survives_a_crash(
    in_repo_root: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    workdir: str,
) -> None:
    caplog.set_level(logging.DEBUG, logger="doc_processing_toolkit")
    monkeypatch.setenv("DPT_PARENT_ONLY", "should-not-leak")
    session = StdioMCPSession.from_config(
        {
            "type": "mcp_script",
            "path": SCRIPT,  # relative: resolved against this process's directory
            "name": "calculator",
            "env": {"DPT_SECRET_SETTING": "env-canary-61d2", "DPT_FLAG": True, "DPT_N": 7},
            "cwd": workdir,
        }
    )
    assert isinstance(session, ManagedToolSession)
    await session.connect()
    try:
        specs = await session.list_tools()
        assert {"add", "echo", "big_text", "image", "crash"} <= {s.name for s in specs}
        assert all(s.server_name == "calculator" for s in specs)
        add = next(s for s in specs if s.name == "add")
        assert add.parameters["type"] == "object"
        assert set(add.parameters["properties"]) == {"a", "b"}

        outcome = await session.call_tool("add", {"a": 2, "b": "3"})  # coerced by the server
        assert (outcome.is_error, outcome.text, outcome.data) == (False, "5", [5])

        env = {
            var: (await session.call_tool("get_env", {"var": var})).text
            for var in ("DPT_SECRET_SETTING", "DPT_FLAG", "DPT_N", "DPT_PARENT_ONLY", "PATH")
        }
        assert env["DPT_SECRET_SETTING"] == "env-canary-61d2"
        assert (env["DPT_FLAG"], env["DPT_N"]) == ("true", "7")
        assert env["DPT_PARENT_ONLY"] == "<unset>"  # only the SDK allow-list is inherited
        assert env["PATH"] != "<unset>"
        assert (await session.call_tool("get_cwd", {})).text == workdir

        image = await session.call_tool("image", {})
        assert isinstance(image.content[0], MediaPart)
        assert image.content[0].mime_type == "image/png"

        big = await session.call_tool("big_text", {"n": 50_000})
        assert len(big.text) == 50_000

        spend = await session.call_tool("spend", {"usd": 0.25})
        assert spend.meta["dpt_spend"] == {"usd": 0.25, "estimated": False}
        assert spend.data["ok"] is True

        unknown = await session.call_tool("no_such_tool", {})
        assert unknown.is_error

        started = time.monotonic()
        crashed = await session.call_tool("crash", {})
        assert crashed.is_error and "closed the connection" in crashed.text
        after = await session.call_tool("add", {"a": 1, "b": 1})
        assert after.is_error
        assert time.monotonic() - started < 10
    finally:
        await session.aclose()
        await session.aclose()
    assert "env-canary-61d2" not in caplog.text
    assert workdir not in caplog.text


@pytest.mark.anyio
async def test_mcp_command_with_cwd_runs_the_module(tmp_path: Path) -> None:
    session = mcp_session_for(
        {
            "type": "mcp_command",
            "command": sys.executable,
            "args": ["-m", "tests.fixtures.sample_mcp_server"],
            "name": "command-server",
            "cwd": str(ROOT),  # -m resolves the module against the child's cwd
            "allowed_tools": ["echo", "get_cwd"],
        }
    )
    assert isinstance(session, AllowedToolsSession)
    await session.connect()
    try:
        assert [s.name for s in await session.list_tools()] == ["echo", "get_cwd"]
        assert (await session.call_tool("echo", {"text": "hi"})).text == "hi"
        assert (await session.call_tool("get_cwd", {})).text == str(ROOT)
        hidden = await session.call_tool("crash", {})  # hidden: never reaches the server
        assert hidden.is_error and "not available" in hidden.text
        assert (await session.call_tool("echo", {"text": "still alive"})).text == "still alive"
    finally:
        await session.aclose()


@pytest.mark.anyio
async def test_pagination_is_followed_to_the_end(
    in_repo_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    everything = StdioMCPSession.from_config({"type": "mcp_script", "path": PAGINATED})
    assert everything.name == "paginating_mcp_server"
    # the filter over the same server process (one subprocess keeps the test fast)
    filtered = AllowedToolsSession(everything, ["epsilon", "gamma", "omega"])
    await filtered.connect()
    try:
        names = [s.name for s in await everything.list_tools()]
        assert names == ["alpha", "beta", "gamma", "delta", "epsilon"]
        with caplog.at_level(logging.WARNING):
            assert [s.name for s in await filtered.list_tools()] == ["gamma", "epsilon"]
            await filtered.list_tools()
        warnings = [r for r in caplog.records if "does not offer" in r.getMessage()]
        assert len(warnings) == 1  # one WARNING, naming the server and what it offers
        message = warnings[0].getMessage()
        assert "paginating_mcp_server" in message and "omega" in message and "alpha" in message
        assert (await filtered.call_tool("epsilon", {"x": 5})).text == "epsilon:5"
    finally:
        await filtered.aclose()
    assert not everything.connected


@pytest.mark.anyio
async def test_missing_script_and_missing_command_fail_on_connect(tmp_path: Path) -> None:
    script = StdioMCPSession.from_config(
        {"type": "mcp_script", "path": str(tmp_path / "nope.py"), "name": "gone"}
    )
    with pytest.raises(FileNotFoundError):
        await script.connect()
    command = StdioMCPSession(name="x", command=str(tmp_path / "no-such-binary"))
    with pytest.raises(OSError):
        await command.connect()
    await command.aclose()
    outcome = await command.call_tool("add", {})
    assert outcome.is_error and "not connected" in outcome.text


def test_env_none_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="'API_KEY'"):
        validate_stdio_config(
            {"type": "mcp_command", "command": "python", "env": {"API_KEY": None}}
        )
    with pytest.raises(ValueError, match="'API_KEY'"):
        mcp_session_for({"type": "mcp_script", "path": SCRIPT, "env": {"API_KEY": None}})
    with pytest.raises(ValueError):
        StdioMCPSession(name="s", command="python", env={"LIST": [1, 2]})


def test_stdio_config_normalisation(in_repo_root: Path) -> None:
    script = validate_stdio_config(
        {"type": "mcp_script", "path": SCRIPT, "args": ["--flag"], "env": {"N": 1.5, "B": False}}
    )
    assert script["command"] == sys.executable
    assert script["args"] == [str(ROOT / SCRIPT), "--flag"]
    assert script["env"] == {"N": "1.5", "B": "false"}
    assert script["name"] == "sample_mcp_server"
    command = validate_stdio_config(
        {"type": "mcp_command", "command": "npx", "args": ["-y", "srv"], "cwd": "sub"}
    )
    assert (command["name"], command["args"], command["cwd"]) == ("npx", ["-y", "srv"], "sub")
    with pytest.raises(TypeError, match="'calc'"):
        validate_stdio_config(
            {"type": "mcp_command", "command": "x", "name": "calc", "allowed_tools": "add"}
        )
    with pytest.raises(ValueError):
        validate_stdio_config({"type": "mcp_command"})
    # a relative script path missing here is looked up under cwd
    found = validate_stdio_config(
        {"type": "mcp_script", "path": "sample_mcp_server.py", "cwd": str(ROOT / "tests/fixtures")}
    )
    assert found["args"][0] == str(ROOT / SCRIPT)

"""MCP session lifecycle through the Agent: one stdio server process per event loop,
run_sync connects and releases per call, close() keeps the configs, a failed connect
rolls back. Process starts are counted by a wrapper that appends its PID to a file."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply, tool_call

ROOT = Path(__file__).resolve().parents[2]
MODEL = "claude-sonnet-4-5"

COUNTING_SERVER = """
import os, sys
sys.path.insert(0, {fixtures!r})
with open(os.environ["PID_FILE"], "a") as f:
    f.write(f"{{os.getpid()}}\\n")
flag = os.environ.get("FAIL_ONCE_FLAG")
if flag and not os.path.exists(flag):
    open(flag, "w").close()
    sys.exit(3)
from sample_mcp_server import main
main()
"""


def server_entry(tmp_path: Path, *, fail_once: bool = False) -> dict[str, Any]:
    script = tmp_path / "counting_server.py"
    script.write_text(COUNTING_SERVER.format(fixtures=str(ROOT / "tests" / "fixtures")))
    env = {"PID_FILE": str(tmp_path / "pids.txt")}
    if fail_once:
        env["FAIL_ONCE_FLAG"] = str(tmp_path / "failed-once")
    return {"type": "mcp_script", "path": str(script), "name": "calc", "env": env}


def pids(tmp_path: Path) -> list[int]:
    file = tmp_path / "pids.txt"
    return [int(line) for line in file.read_text().split()] if file.exists() else []


def gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def adds(n: int) -> FakeModel:
    steps = []
    for i in range(n):
        steps += [tool_call("add", {"a": i, "b": 1}), reply(f"answer {i}")]
    return FakeModel(steps)


def test_two_run_sync_calls_start_two_processes(tmp_path: Path) -> None:
    agent = Agent(MODEL, tools=[server_entry(tmp_path)], client=adds(2))
    assert agent.run_sync("first").tools_used == ["add"]
    assert agent.run_sync("second").tools_used == ["add"]
    started = pids(tmp_path)
    assert len(started) == 2 and started[0] != started[1]
    assert all(gone(pid) for pid in started)  # each call released its server


@pytest.mark.anyio
async def test_two_runs_on_one_loop_share_one_process(tmp_path: Path) -> None:
    agent = Agent(MODEL, tools=[server_entry(tmp_path)], client=adds(3))
    assert (await agent.run("first")).output == "answer 0"
    assert (await agent.run("second")).output == "answer 1"
    (pid,) = pids(tmp_path)
    assert agent._tool_loader.get_tool_by_name("add") is not None

    await agent.close()
    assert gone(pid)
    assert agent._tool_loader.get_tool_by_name("add") is None  # the tools went with it
    assert [c.name for c in agent._tool_loader.server_configs] == ["calc"]  # configs stay

    assert (await agent.run("third")).output == "answer 2"  # reusable: reconnects
    assert len(pids(tmp_path)) == 2
    await agent.close()
    await agent.close()  # idempotent


@pytest.mark.anyio
async def test_concurrent_runs_connect_once(tmp_path: Path) -> None:
    fake = FakeModel([], default=reply("ok"))
    agent = Agent(MODEL, tools=[server_entry(tmp_path)], client=fake)
    results = await asyncio.gather(*(agent.run(f"q{i}") for i in range(3)))
    assert [r.output for r in results] == ["ok"] * 3
    assert len(pids(tmp_path)) == 1
    await agent.close()


@pytest.mark.anyio
async def test_stream_connects_and_close_releases(tmp_path: Path) -> None:
    agent = Agent(MODEL, tools=[server_entry(tmp_path)], client=adds(1))
    events = [e async for e in agent.stream("go")]
    result = next(e for e in events if e.event_type == "tool_call_result")
    assert result.metadata is not None and result.metadata["result"] == "1"
    (pid,) = pids(tmp_path)
    await agent.close()
    assert gone(pid)


@pytest.mark.anyio
async def test_failed_connect_rolls_back_and_a_retry_works(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    from http_mcp_server import load_fixture

    good = {
        "type": "fastmcp",
        "server": load_fixture("sample_mcp_server").build_server("good"),
        "allowed_tools": ["echo"],
    }
    flaky = {**server_entry(tmp_path, fail_once=True), "allowed_tools": ["add"]}
    fake = FakeModel([tool_call("add", {"a": 1, "b": 2}), reply("3")])
    agent = Agent(MODEL, tools=[good, flaky], client=fake)
    with caplog.at_level(logging.WARNING):
        with pytest.raises(Exception):  # noqa: B017 - whatever the server's failure was
            await agent.run("first")
    assert "server='calc'" in caplog.text
    assert fake.requests == []  # nothing was sent with a half-connected tool set
    assert agent._tool_loader.get_tool_by_name("echo") is None  # rolled back
    assert len(pids(tmp_path)) == 1

    result = await agent.run("again")  # the retry connects both, no duplicate names
    assert result.tools_used == ["add"]
    assert [s.name for s in fake.requests[0].tools] == ["echo", "add"]
    await agent.close()

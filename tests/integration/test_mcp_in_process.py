"""InProcessMCPSession over the mcp SDK's MCPServer (in this process) and fastmcp 4
(in a subprocess: importing fastmcp patches the mcp types process-wide)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit.adapters.mcp._sdk import server_kind
from doc_processing_toolkit.adapters.mcp.factory import is_mcp_server_object, mcp_session_for
from doc_processing_toolkit.adapters.mcp.filtered import AllowedToolsSession
from doc_processing_toolkit.adapters.mcp.in_process import InProcessMCPSession, error_text
from doc_processing_toolkit.domain.messages import MediaPart, TextPart

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
sys.path.insert(0, str(FIXTURES))
from http_mcp_server import load_fixture  # noqa: E402


def build_server() -> Any:
    """The sample MCPServer plus tools that observe threads and image-holding returns."""
    from mcp.server.mcpserver import Image

    sample = load_fixture("sample_mcp_server")
    server = sample.build_server("calc")

    @server.tool()
    def which_thread() -> str:
        """The name of the thread the tool runs on."""
        return threading.current_thread().name

    @server.tool(structured_output=False)
    def captioned_image() -> list[Any]:
        """Text and an image in one return value."""
        return ["a red pixel", Image(data=sample.tiny_png(), format="png")]

    @server.tool()
    async def async_fail() -> str:
        """An async tool that raises."""
        raise RuntimeError("async kaput")

    return server


@pytest.mark.anyio
async def test_mcpserver_bare_lists_and_calls() -> None:
    server = build_server()
    assert server_kind(server) == "mcpserver" and is_mcp_server_object(server)
    session = mcp_session_for(server)
    assert isinstance(session, InProcessMCPSession)
    assert session.name == "calc"
    await session.connect()
    specs = await session.list_tools()
    assert {"add", "echo", "image", "which_thread"} <= {s.name for s in specs}
    add = next(s for s in specs if s.name == "add")
    assert add.server_name == "calc" and add.parameters["required"] == ["a", "b"]

    ok = await session.call_tool("add", {"a": "2", "b": 3})  # validated and coerced
    assert (ok.is_error, ok.text, ok.data) == (False, "5", [5])
    invalid = await session.call_tool("add", {"a": "two", "b": 3})
    assert invalid.is_error and "add" in invalid.text

    failed = await session.call_tool("fail", {"message": "the disk is full"})
    assert failed.is_error
    assert failed.text == "Error executing tool fail: the disk is full"  # the message is kept
    async_failed = await session.call_tool("async_fail", {})
    assert async_failed.is_error and "async kaput" in async_failed.text

    image = await session.call_tool("image", {})
    assert isinstance(image.content[0], MediaPart) and image.content[0].mime_type == "image/png"
    mixed = await session.call_tool("captioned_image", {})
    assert [type(p) for p in mixed.content] == [TextPart, MediaPart]

    spend = await session.call_tool("spend", {"usd": 1.5})
    assert spend.meta["dpt_spend"]["usd"] == 1.5

    unknown = await session.call_tool("nope", {})
    assert unknown.is_error and "nope" in unknown.text
    await session.aclose()
    await session.aclose()


@pytest.mark.anyio
async def test_sync_tools_run_off_the_event_loop() -> None:
    session = InProcessMCPSession(build_server())
    assert (await session.call_tool("which_thread", {})).text != threading.current_thread().name

    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beat = asyncio.create_task(heartbeat())
    started = time.monotonic()
    results = await asyncio.gather(
        session.call_tool("slow", {"seconds": 0.3}), session.call_tool("slow", {"seconds": 0.3})
    )
    elapsed = time.monotonic() - started
    beat.cancel()
    assert [r.text for r in results] == ["done", "done"]
    assert ticks >= 10  # the loop kept running while the tools slept
    assert elapsed < 0.55  # the two calls overlapped


@pytest.mark.anyio
async def test_switches_off_call_the_registry_directly() -> None:
    server = build_server()
    on_loop = InProcessMCPSession(server, sync_tools_offloop=False)
    assert (await on_loop.call_tool("which_thread", {})).text == threading.current_thread().name
    coerced = await on_loop.call_tool("add", {"a": "2", "b": 3})  # still validated
    assert coerced.text == "5"
    failed = await on_loop.call_tool("fail", {"message": "kept"})
    assert failed.is_error and "kept" in failed.text

    raw = InProcessMCPSession(server, validated_call=False)
    assert (await raw.call_tool("add", {"a": "2", "b": "3"})).text == "23"  # not coerced
    assert (await raw.call_tool("which_thread", {})).text != threading.current_thread().name
    image = await raw.call_tool("captioned_image", {})
    assert [type(p) for p in image.content] == [TextPart, MediaPart]
    assert (await raw.call_tool("echo", {"text": "plain"})).text == "plain"


@pytest.mark.anyio
async def test_switches_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_FASTMCP_SYNC_TOOLS_OFFLOOP", "off")
    monkeypatch.setenv("DPT_FASTMCP_VALIDATED_CALL", "0")
    session = InProcessMCPSession(build_server())
    assert (await session.call_tool("which_thread", {})).text == threading.current_thread().name
    assert (await session.call_tool("add", {"a": "1", "b": "1"})).text == "11"


@pytest.mark.anyio
async def test_dict_form_with_allowed_tools() -> None:
    session = mcp_session_for(
        {"type": "fastmcp", "server": build_server(), "name": "math", "allowed_tools": ["add"]}
    )
    assert isinstance(session, AllowedToolsSession) and session.name == "math"
    await session.connect()
    assert [(s.name, s.server_name) for s in await session.list_tools()] == [("add", "math")]
    assert (await session.call_tool("echo", {"text": "x"})).is_error
    await session.aclose()


@pytest.mark.anyio
async def test_object_without_a_tool_surface(caplog: pytest.LogCaptureFixture) -> None:
    session = InProcessMCPSession(object(), name="nothing")
    with caplog.at_level("WARNING"):
        await session.connect()
        assert await session.list_tools() == []
    assert sum("neither" in r.getMessage() for r in caplog.records) == 1
    assert (await session.call_tool("x", {})).is_error
    with pytest.raises(TypeError):
        mcp_session_for(object())


def test_error_text_keeps_the_original_message() -> None:
    try:
        try:
            raise ValueError("inner detail")
        except ValueError as inner:
            raise RuntimeError("Error executing tool t") from inner
    except RuntimeError as outer:
        assert error_text("t", outer) == "Error executing tool t: inner detail"
    assert error_text("t", KeyError()) == "Error executing tool t: KeyError"


def test_fastmcp_server_in_a_fresh_process() -> None:
    """Bare and dict-form fastmcp 4 servers (scenarios in tests/fixtures/fastmcp_scenarios.py)."""
    proc = subprocess.run(
        [sys.executable, str(FIXTURES / "fastmcp_scenarios.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["kind"] == "fastmcp"
    assert seen["fastmcp_imported_before_load"] is False
    assert seen["bare_names"] == ["add", "slow", "picture", "fail"]
    assert seen["add"] == {"text": "5", "is_error": False, "data": [5]}
    assert seen["slow_thread_is_loop_thread"] is False
    assert seen["loop_ticked_during_slow"] is True
    assert seen["picture"] == ["media", "image/png"]
    assert seen["fail"]["is_error"] is True and "kaboom" in seen["fail"]["text"]
    assert seen["invalid"]["is_error"] is True
    assert seen["filtered_names"] == ["add"]
    assert seen["filtered_hidden_is_error"] is True
    assert seen["filtered_server_name"] == "maths"

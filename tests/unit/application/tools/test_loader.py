"""ToolLoader: format detection, validation, files and directories, provider formats, and
the per-event-loop MCP session lifecycle (with in-test ManagedToolSession fakes)."""

from __future__ import annotations

import asyncio
import logging
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import tool
from doc_processing_toolkit.adapters.tool_sessions.local_functions import LocalFunctionSession
from doc_processing_toolkit.agent.loader import ToolLoader
from doc_processing_toolkit.application.tools.formats import detect_format
from doc_processing_toolkit.application.tools.mcp_shapes import openai_strict_schema
from doc_processing_toolkit.domain.errors import MCPConnectionError, ToolDefinitionError
from doc_processing_toolkit.domain.messages import TextPart
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def greet(name: str, punctuation: str | None = None) -> str:
    """Greet someone.

    Args:
        name: Who to greet.
        punctuation: Optional ending.
    """
    return f"Hello {name}{punctuation or '!'}"


class FakeServer:
    """Looks like an in-process server object (has list_tools and call_tool)."""

    name = "fake-server"

    async def list_tools(self) -> list[Any]:
        return []

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return None


class FakeSession:
    """A ManagedToolSession recording its lifecycle in ``log``."""

    def __init__(
        self,
        name: str,
        tools: dict[str, Callable[..., Any]],
        log: list[str],
        *,
        fail_connect: bool = False,
    ) -> None:
        self.name = name
        self._tools = tools
        self._log = log
        self._fail = fail_connect
        self.open = False

    async def connect(self) -> None:
        self._log.append(f"connect {self.name}")
        if self._fail:
            raise ConnectionError(f"{self.name} refused")
        self.open = True

    async def aclose(self) -> None:
        self._log.append(f"close {self.name}")
        self.open = False

    async def list_tools(self) -> list[ToolSpec]:
        return [ToolSpec(n, f"{n} tool", {"type": "object", "properties": {}}) for n in self._tools]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        assert self.open, "called on a closed session"
        return ToolOutcome(content=(TextPart(str(self._tools[name](**arguments))),))


def make_loader(
    servers: dict[str, dict[str, Callable[..., Any]]] | None = None,
    log: list[str] | None = None,
    failing: set[str] | None = None,
) -> tuple[ToolLoader, list[str]]:
    events = log if log is not None else []
    servers = servers or {}

    def factory(config: dict[str, Any]) -> FakeSession:
        name = config["name"]
        return FakeSession(
            name, servers.get(name, {}), events, fail_connect=name in (failing or ())
        )

    factories = {
        kind: factory
        for kind in ("fastmcp", "mcp_script", "mcp_command", "client_session", "mcp_remote_client")
    }
    loader = ToolLoader(factories, local_session_factory=LocalFunctionSession)
    return loader, events


# ---------------------------------------------------------------- detection
@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"type": "fastmcp", "server": FakeServer()}, "fastmcp"),
        ({"type": "mcp_script", "path": "x.py"}, "mcp_script"),
        ({"type": "mcp_command", "command": "python"}, "mcp_command"),
        ({"type": "mcp", "server_url": "https://mcp.example.com/mcp"}, "mcp_remote"),
        ({"session": object(), "name": "s"}, "client_session"),
        ({"type": "mcp_remote_client", "url": "http://127.0.0.1:1/mcp"}, "mcp_remote_client"),
    ],
)
def test_detect_format_dicts(entry: dict[str, Any], expected: str) -> None:
    assert ToolLoader(local_session_factory=LocalFunctionSession).detect_format(entry) == expected


def test_detect_format_functions_paths_and_servers(tmp_path: Path) -> None:
    file = tmp_path / "t.py"
    file.write_text("")
    assert detect_format(add) == "function"
    assert detect_format(str(file)) == "file_path"
    assert detect_format(tmp_path) == "directory"
    assert detect_format(FakeServer()) == "fastmcp"
    with pytest.raises(FileNotFoundError):
        detect_format(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="unknown tool config type"):
        detect_format({"type": "nope"})
    with pytest.raises(TypeError):
        detect_format(42)
    with pytest.raises(ValueError, match="@tool"):
        detect_format(lambda x: x)


def test_detect_format_real_sdk_servers() -> None:
    from mcp.server.mcpserver import MCPServer

    assert detect_format(MCPServer("a")) == "fastmcp"
    # fastmcp is recognised by its class's module, without importing it (importing it
    # patches the mcp types process-wide).
    standalone = type("FastMCP", (), {"__module__": "fastmcp.server.server"})
    assert detect_format(standalone()) == "fastmcp"
    client = type("ClientSession", (), {"__module__": "mcp.client.session"})
    with pytest.raises(TypeError, match="session"):
        detect_format(client())


# ---------------------------------------------------------------- loading
def test_load_functions_files_and_directories(tmp_path: Path) -> None:
    (tmp_path / "one.py").write_text(
        textwrap.dedent(
            '''
            from doc_processing_toolkit import tool

            @tool
            def shout(text: str) -> str:
                """Upper-case the text."""
                return text.upper()

            def helper() -> None:
                pass
            '''
        )
    )
    sub = tmp_path / "more"
    sub.mkdir()
    (sub / "two.py").write_text(
        "from doc_processing_toolkit import tool\n\n"
        "@tool\ndef whisper(text: str) -> str:\n    '''Lower-case.'''\n    return text.lower()\n"
    )
    (sub / "_private.py").write_text("raise RuntimeError('never imported')\n")
    loader, _ = make_loader()
    loaded = loader.load([add, str(tmp_path / "one.py"), sub])
    assert [(t.name, t.source_type) for t in loaded] == [
        ("add", "function"),
        ("shout", "file_path"),
        ("whisper", "directory"),
    ]
    assert loader.has_local_mcp_tools()
    shout = loader.get_tool_by_name("shout")
    assert shout is not None and shout.function is not None and shout.function("a") == "A"
    assert loader.get_tool_by_name("nope") is None


def test_missing_path_and_broken_file(tmp_path: Path) -> None:
    loader, _ = make_loader()
    with pytest.raises(FileNotFoundError):
        loader.load([str(tmp_path / "nope.py")])
    bad = tmp_path / "bad.py"
    bad.write_text("raise ImportError('boom')\n")
    with pytest.raises(ToolDefinitionError, match=r"bad\.py"):
        loader.load([str(bad)])


def test_load_replaces_the_set_and_keeps_remote_configs() -> None:
    loader, _ = make_loader()
    remote = {"type": "mcp", "server_label": "wiki", "server_url": "https://mcp.example.com/mcp"}
    loader.load([add, remote])
    assert loader.get_remote_mcp_configs() == [remote]
    assert loader.get_remote_mcp_configs()[0] is not remote
    loader.load([greet])
    assert [t.name for t in loader.tools] == ["greet"]
    assert loader.get_remote_mcp_configs() == []
    loader.load([remote])
    assert not loader.has_local_mcp_tools()
    loader.load([])
    assert not loader.has_local_mcp_tools() and loader.tools == []


@pytest.mark.parametrize("kind", ["fastmcp", "mcp_script", "mcp_command", "mcp_remote_client"])
def test_allowed_tools_bare_string_is_a_type_error(kind: str) -> None:
    entry: dict[str, Any] = {
        "fastmcp": {"type": "fastmcp", "server": FakeServer()},
        "mcp_script": {"type": "mcp_script", "path": "x.py"},
        "mcp_command": {"type": "mcp_command", "command": "python"},
        "mcp_remote_client": {"type": "mcp_remote_client", "url": "http://127.0.0.1:9/mcp"},
    }[kind]
    loader, _ = make_loader()
    with pytest.raises(TypeError, match="list of tool names"):
        loader.load([{**entry, "allowed_tools": "add"}])
    with pytest.raises(TypeError):
        loader.load([{**entry, "allowed_tools": [1, 2]}])
    loader.load([{**entry, "allowed_tools": ["add"]}])
    assert loader.server_configs[0].config["allowed_tools"] == ["add"]


def test_same_prebuilt_session_twice_keeps_the_first(caplog: pytest.LogCaptureFixture) -> None:
    session = object()
    loader, _ = make_loader()
    with caplog.at_level(logging.WARNING):
        loader.load(
            [
                {"session": session, "name": "first", "allowed_tools": ["a"]},
                {"session": session, "name": "second", "allowed_tools": ["b"]},
            ]
        )
    assert [c.name for c in loader.server_configs] == ["first"]
    assert "only the first entry applies" in caplog.text


def test_validators_run_at_load() -> None:
    seen: list[str] = []

    def check(config: Any) -> None:
        seen.append(config["name"])
        if config.get("env", {}).get("KEY") is None:
            raise ValueError("env variable 'KEY' is None")

    loader = ToolLoader({}, local_session_factory=LocalFunctionSession)
    loader._validators = {"mcp_command": check}
    with pytest.raises(ValueError, match="KEY"):
        loader.load([{"type": "mcp_command", "command": "/usr/bin/srv", "env": {"KEY": None}}])
    assert seen == ["srv"]


def test_default_loader_uses_the_container_wiring() -> None:
    loader = ToolLoader()
    loader.load([add])
    assert loader.has_local_mcp_tools()
    with pytest.raises(ValueError, match="url"):
        loader.load([{"type": "mcp_remote_client", "url": "ftp://example.com"}])


# ---------------------------------------------------------------- provider formats
def test_convert_to_provider_format() -> None:
    loader, _ = make_loader()
    tools = loader.load([add, greet])
    anthropic = loader.convert_to_provider_format(tools, "anthropic")
    assert anthropic[0] == {
        "name": "add",
        "description": "Add two numbers.",
        "input_schema": tools[0].input_schema,
    }
    openai = loader.to_provider_format([greet], "openai")[0]
    assert openai["type"] == "function" and openai["strict"] is True
    assert openai["parameters"]["required"] == ["name", "punctuation"]
    assert openai["parameters"]["additionalProperties"] is False
    google = loader.convert_to_provider_format(tools, "google")[1]
    assert set(google) == {"name", "description", "parameters_json_schema"}
    fireworks = loader.convert_to_provider_format(tools, "fireworks")[0]
    assert fireworks["type"] == "function" and fireworks["function"]["name"] == "add"
    with pytest.raises(ValueError, match="unsupported provider"):
        loader.convert_to_provider_format(tools, "acme")


def test_openai_strict_schema_nested_objects() -> None:
    schema = {
        "type": "object",
        "properties": {
            "outer": {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "string"}},
                "required": ["x"],
            },
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        },
        "$defs": {"Item": {"type": "object", "properties": {"k": {"type": "string"}}}},
    }
    strict = openai_strict_schema(schema)
    assert strict["required"] == ["outer", "items"]
    assert strict["properties"]["outer"]["required"] == ["x", "y"]
    assert strict["$defs"]["Item"]["required"] == ["k"]
    assert strict["$defs"]["Item"]["additionalProperties"] is False
    assert schema["properties"]["outer"]["required"] == ["x"]  # the input is untouched


# ---------------------------------------------------------------- lifecycle
@pytest.mark.anyio
async def test_connect_once_per_loop_and_disconnect_keeps_configs() -> None:
    loader, events = make_loader({"calc": {"mul": lambda a, b: a * b}})
    loader.load([add, {"type": "mcp_command", "command": "calc-server", "name": "calc"}])
    assert [t.name for t in loader.tools] == ["add"]
    await loader.connect_mcp_servers()
    await loader.connect_mcp_servers()
    assert events == ["connect calc"]
    mul = loader.get_tool_by_name("mul")
    assert mul is not None and mul.server_name == "calc" and mul.source_type == "mcp_command"
    assert await loader.execute_tool("mul", {"a": 3, "b": 4}) == "12"
    assert await loader.execute_tool("add", {"a": 3, "b": 4}) == 7
    with pytest.raises(ValueError, match="not found"):
        await loader.execute_tool("nope", {})
    specs = await loader.tool_set().specs()
    assert [s.name for s in specs] == ["add", "mul"]

    await loader.disconnect_mcp_servers()
    assert events == ["connect calc", "close calc"]
    assert loader.get_tool_by_name("mul") is None
    assert [c.name for c in loader.server_configs] == ["calc"]
    await loader.connect_mcp_servers()
    assert events[-1] == "connect calc"
    assert loader.get_tool_by_name("mul") is not None
    await loader.disconnect_mcp_servers()


@pytest.mark.anyio
async def test_execute_tool_error_is_runtime_error() -> None:
    @tool
    def broken() -> str:
        """Fails."""
        raise OSError("disk on fire")

    loader, _ = make_loader()
    loader.load([broken])
    with pytest.raises(RuntimeError, match="disk on fire"):
        await loader.execute_tool("broken", {})


@pytest.mark.anyio
async def test_failed_connect_rolls_back() -> None:
    loader, events = make_loader({"a": {"one": lambda: 1}, "b": {"two": lambda: 2}}, failing={"b"})
    loader.load(
        [
            {"type": "mcp_command", "command": "x", "name": "a"},
            {"type": "mcp_command", "command": "y", "name": "b"},
        ]
    )
    with pytest.raises(MCPConnectionError, match="b refused") as info:
        await loader.connect_mcp_servers()
    assert info.value.server == "b"  # a failure of the SDK's is one of our tree
    assert info.value.__cause__ is not None
    assert "ConnectionError" in str(info.value.__cause__)
    assert events == ["connect a", "connect b", "close b", "close a"]
    assert loader.get_tool_by_name("one") is None
    assert not loader.connected_on_running_loop()


@pytest.mark.anyio
async def test_duplicate_tool_names_across_servers_roll_back() -> None:
    loader, events = make_loader({"a": {"add": lambda: 1}})
    loader.load([add, {"type": "mcp_command", "command": "x", "name": "a"}])
    with pytest.raises(ToolDefinitionError, match="'add' is offered by both"):
        await loader.connect_mcp_servers()
    assert events == ["connect a", "close a"]


def test_sessions_of_a_dead_loop_are_discarded_not_awaited() -> None:
    loader, events = make_loader({"a": {"one": lambda: 1}})
    loader.load([{"type": "mcp_command", "command": "x", "name": "a"}])
    asyncio.run(loader.connect_mcp_servers())
    assert events == ["connect a"]

    async def second_loop() -> None:
        assert not loader.connected_on_running_loop()
        await loader.connect_mcp_servers()
        assert loader.connected_on_running_loop()
        await loader.disconnect_mcp_servers()

    asyncio.run(second_loop())
    # The first loop's session was dropped (its loop is closed), never closed from here.
    assert events == ["connect a", "connect a", "close a"]


@pytest.mark.anyio
async def test_concurrent_connects_on_one_loop_open_once() -> None:
    loader, events = make_loader({"a": {"one": lambda: 1}})
    loader.load([{"type": "mcp_command", "command": "x", "name": "a"}])
    await asyncio.gather(*(loader.connect_mcp_servers() for _ in range(5)))
    assert events == ["connect a"]
    await loader.disconnect_mcp_servers()
    await loader.disconnect_mcp_servers()
    assert events == ["connect a", "close a"]


def test_documented_loader_import_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from doc_processing_toolkit.agent import loader as documented

    assert documented.ToolLoader is ToolLoader
    assert documented.FastMCPSession.__name__ == "InProcessMCPSession"
    assert documented.fastmcp_validated_call_enabled()
    monkeypatch.setenv("DPT_FASTMCP_VALIDATED_CALL", "off")
    monkeypatch.setenv("DPT_FASTMCP_SYNC_TOOLS_OFFLOOP", "off")
    assert not documented.fastmcp_validated_call_enabled()
    assert not documented.fastmcp_sync_tools_offloop_enabled()

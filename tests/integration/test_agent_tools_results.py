"""What a run does with tool results through the Agent: the cap and read-back with
read_truncated_result, _dpt_spend accounting, result_data, deferred tools, the skills
catalog and memory instructions (FakeModel, real in-process MCP servers)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.domain.messages import TextPart, ToolResultPart
from doc_processing_toolkit.domain.tools.built_in import BuiltInToolConfig
from doc_processing_toolkit.testing import FakeModel, Reply, ToolCall
from doc_processing_toolkit.testing.script import reply, tool_call
from doc_processing_toolkit.utils import tool_spend_marker

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from http_mcp_server import load_fixture  # noqa: E402

MODEL = "claude-sonnet-4-5"
HOST_LOG = logging.getLogger("host.tools")
BIG = "".join(f"{i:07d}\n" for i in range(50_000))  # 400,000 characters, every slice unique


@tool
def fetch_filing() -> str:
    """Fetch a very long filing."""
    return BIG


def fed_back(fake: FakeModel, request: int) -> str:
    """The text of the one tool result carried by ``fake.requests[request]``."""
    (part,) = fake.requests[request].messages[-1].parts
    assert isinstance(part, ToolResultPart)
    return "".join(p.text for p in part.content if isinstance(p, TextPart))


def read(offset: int, call_id: str = "toolu_A") -> Reply:
    return tool_call("read_truncated_result", {"tool_call_id": call_id, "offset": offset})


# ---------------------------------------------------------------- cap and read-back
def test_400k_result_is_capped_and_read_on_within_the_allowance() -> None:
    fake = FakeModel(
        [
            tool_call("fetch_filing", {}, id="toolu_A"),
            read(50_000),
            read(100_000),
            read(150_000),
            read(170_000),
            reply("Read enough."),
        ]
    )
    agent = Agent(
        MODEL,
        tools=[fetch_filing],
        client=fake,
        max_tool_result_chars=50_000,
        truncated_result_read_chars=120_000,
    )
    result = agent.run_sync("Summarise the filing.")
    assert result.output == "Read enough."

    # read_truncated_result is on the tool list from the first request, unchanged after
    first_tools = fake.requests[0].tools
    assert [s.name for s in first_tools] == ["fetch_filing", "read_truncated_result"]
    assert all(r.tools == first_tools for r in fake.requests)

    assert fed_back(fake, 1) == BIG[:50_000] + (
        "… [truncated: 50000 of 400000 characters shown. Call read_truncated_result("
        'tool_call_id="toolu_A", offset=50000) to read up to 120000 more.]'
    )
    assert fed_back(fake, 2) == BIG[50_000:100_000] + (
        "… [characters 50000 to 100000 of 400000. Call read_truncated_result("
        'tool_call_id="toolu_A", offset=100000) to read up to 70000 more.]'
    )
    assert fed_back(fake, 3) == BIG[100_000:150_000] + (
        "… [characters 100000 to 150000 of 400000. Call read_truncated_result("
        'tool_call_id="toolu_A", offset=150000) to read up to 20000 more.]'
    )
    assert fed_back(fake, 4) == BIG[150_000:170_000] + (
        "… [characters 150000 to 170000 of 400000. The read allowance for this result is used up.]"
    )
    refusal = fed_back(fake, 5)
    assert "used up" in refusal and len(refusal) < 300
    assert result.tools_used == ["fetch_filing", "read_truncated_result"]


def test_default_marker_without_read_back() -> None:
    fake = FakeModel([tool_call("fetch_filing", {}, id="toolu_A"), reply("ok")])
    agent = Agent(MODEL, tools=[fetch_filing], client=fake, max_tool_result_chars=1000)
    agent.run_sync("go")
    assert fed_back(fake, 1) == BIG[:1000] + (
        "… [truncated: 1000 of 400000 characters shown; raise max_tool_result_chars to keep more]"
    )
    assert [s.name for s in fake.requests[0].tools] == ["fetch_filing"]


def test_reused_provider_ids_get_suffixes_and_unknown_ids_are_refused() -> None:
    fake = FakeModel(
        [
            tool_call("fetch_filing", {}, id="call_0"),
            tool_call("fetch_filing", {}, id="call_0"),
            read(10, call_id="nope"),
            read(10, call_id="call_0-2"),
            reply("ok"),
        ]
    )
    agent = Agent(
        MODEL,
        tools=[fetch_filing],
        client=fake,
        max_tool_result_chars=10,
        truncated_result_read_chars=5,
    )
    agent.run_sync("go")
    assert 'tool_call_id="call_0", offset=10' in fed_back(fake, 1)
    assert 'tool_call_id="call_0-2", offset=10' in fed_back(fake, 2)
    assert fed_back(fake, 3).startswith("This result was not truncated")
    assert fed_back(fake, 4) == BIG[10:15] + (
        "… [characters 10 to 15 of 400000. The read allowance for this result is used up.]"
    )


def test_each_run_keeps_its_own_store() -> None:
    fake = FakeModel(
        [tool_call("fetch_filing", {}, id="toolu_A"), reply("one"), read(10), reply("two")]
    )
    agent = Agent(
        MODEL,
        tools=[fetch_filing],
        client=fake,
        max_tool_result_chars=10,
        truncated_result_read_chars=100,
    )
    agent.run_sync("first")
    agent.run_sync("second")  # a new run: the first run's result is not kept
    assert fed_back(fake, 3).startswith("This result was not truncated")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_tool_result_chars": 0}, "max_tool_result_chars=0"),
        ({"tool_choice": "any"}, "forces a call"),
        ({"tool_choice": {"type": "tool", "name": "fetch_filing"}}, "forces a call"),
    ],
)
def test_read_back_not_offered_when_it_cannot_work(
    kwargs: dict[str, Any], message: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeModel([reply("ok")])
    with caplog.at_level(logging.WARNING):
        agent = Agent(
            MODEL,
            tools=[fetch_filing],
            client=fake,
            truncated_result_read_chars=100,
            logger=HOST_LOG,
            **kwargs,
        )
        agent.run_sync("go")
    assert [s.name for s in fake.requests[0].tools] == ["fetch_filing"]
    assert caplog.text.count(message) == 1


def test_read_back_not_offered_over_a_tool_of_that_name(caplog: pytest.LogCaptureFixture) -> None:
    @tool(name="read_truncated_result")
    def mine(tool_call_id: str, offset: int) -> str:
        """The app's own reader."""
        return "mine"

    fake = FakeModel([reply("a"), reply("b")])
    agent = Agent(MODEL, tools=[mine], client=fake, truncated_result_read_chars=100)
    with caplog.at_level(logging.WARNING):
        agent.run_sync("go")
        agent.run_sync("again")
    assert [s.name for s in fake.requests[0].tools] == ["read_truncated_result"]
    assert fake.requests[0].tools[0].server_name is None  # the app's, not the built-in
    assert caplog.text.count("already named read_truncated_result") == 1


def test_no_read_back_tool_without_client_tools() -> None:
    fake = FakeModel([reply("hi")])
    Agent(MODEL, client=fake, truncated_result_read_chars=100).run_sync("hello")
    assert fake.requests[0].tools == ()


def test_bad_read_chars_value() -> None:
    with pytest.raises(ValueError, match="truncated_result_read_chars"):
        Agent(MODEL, truncated_result_read_chars=-1)


# ---------------------------------------------------------------- spend
@tool
def make_image(prompt: str) -> dict[str, Any]:
    """Make an image (pays for it)."""
    return {"path": f"{prompt}.png", **tool_spend_marker(0.04)}


@tool
def guess_cost() -> dict[str, Any]:
    """Spends an estimated amount."""
    return {"ok": True, **tool_spend_marker(0.5, estimated=True)}


def spend_script() -> FakeModel:
    return FakeModel(
        [
            Reply(
                tool_calls=(
                    ToolCall("make_image", {"prompt": "cat"}, id="c1"),
                    ToolCall("guess_cost", {}, id="c2"),
                )
            ),
            tool_call("spend", {"usd": 0.25}, id="c3"),
            reply("done"),
        ]
    )


@pytest.mark.anyio
async def test_tool_reported_spend_is_in_the_cost_and_events() -> None:
    server = load_fixture("sample_mcp_server").build_server("media")
    entry = {"type": "fastmcp", "server": server, "allowed_tools": ["spend"]}
    fake = spend_script()
    agent = Agent(
        MODEL, tools=[make_image, guess_cost, entry], client=fake, tool_result_preview_chars=0
    )
    events = [e async for e in agent.stream("draw")]
    complete = events[-1].metadata or {}
    records = complete["request_cost_records"]
    assert complete["tool_reported_cost"] == pytest.approx(0.79)
    assert complete["cost"] == pytest.approx(sum(r["cost"] for r in records) + 0.79)
    assert complete["cost_estimated"] is True
    assert complete["tool_costs_estimated"] == {
        "make_image": False,
        "guess_cost": True,
        "spend": False,
    }
    reported = sorted(complete["tool_reported_costs"], key=lambda r: r["tool_call_id"])
    assert reported == [
        {
            "tool_name": "make_image",
            "tool_call_id": "c1",
            "usd": 0.04,
            "estimated": False,
            "iteration": 1,
        },
        {
            "tool_name": "guess_cost",
            "tool_call_id": "c2",
            "usd": 0.5,
            "estimated": True,
            "iteration": 1,
        },
        {
            "tool_name": "spend",
            "tool_call_id": "c3",
            "usd": 0.25,
            "estimated": False,
            "iteration": 2,
        },
    ]
    results = [e.metadata or {} for e in events if e.event_type == "tool_call_result"]
    image = next(m for m in results if m["tool_name"] == "make_image")
    assert image["tool_reported_cost"] == 0.04 and image["tool_reported_cost_estimated"] is False
    assert image["result_data"] == {
        "path": "cat.png",
        "_dpt_spend": {"usd": 0.04, "estimated": False},
    }


def test_tool_reported_cost_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_AGENT_TOOL_REPORTED_COST", "off")
    fake = FakeModel([tool_call("make_image", {"prompt": "x"}), reply("done")])
    result = Agent(MODEL, tools=[make_image], client=fake).run_sync("draw")
    assert result.tool_reported_cost == 0.0 and result.tool_reported_costs == []
    assert result.cost == pytest.approx(sum(r["cost"] for r in result.request_cost_records))


def test_spend_survives_a_failed_run() -> None:
    from doc_processing_toolkit.testing import Fault

    fake = FakeModel([tool_call("make_image", {"prompt": "x"}), Fault(status=400)])
    agent = Agent(MODEL, tools=[make_image], client=fake)

    async def collect() -> list[Any]:
        return [e async for e in agent.stream("draw")]

    import asyncio

    events = asyncio.run(collect())
    error = next(e for e in events if e.event_type == "error")
    assert error.metadata is not None and error.metadata["tool_reported_cost"] == 0.04
    assert error.metadata["tool_reported_costs"][0]["tool_name"] == "make_image"


# ---------------------------------------------------------------- deferred tools
@tool
def catalog_search(query: str) -> str:
    """Search the catalog."""
    return query


def test_defer_tools_with_tool_search() -> None:
    fake = FakeModel([reply("ok")])
    agent = Agent(
        MODEL,
        tools=[catalog_search, fetch_filing],
        client=fake,
        built_in_tools={"tool_search": BuiltInToolConfig(enabled=True)},
        defer_tools={"catalog_search", "no_such_tool"},
    )
    result = agent.run_sync("find")
    assert result.deferred_tools == ["catalog_search"]
    stamped = {s.name: s.defer_loading for s in fake.requests[0].tools}
    assert stamped == {"catalog_search": True, "fetch_filing": False}


def test_defer_tools_predicate_gets_the_server_name() -> None:
    server = load_fixture("sample_mcp_server").build_server("catalog")
    seen: list[tuple[str, str | None]] = []

    def defer(name: str, server_name: str | None) -> bool:
        seen.append((name, server_name))
        return server_name == "catalog"

    fake = FakeModel([reply("ok")])
    agent = Agent(
        MODEL,
        tools=[catalog_search, {"type": "fastmcp", "server": server, "allowed_tools": ["echo"]}],
        client=fake,
        built_in_tools={"tool_search": BuiltInToolConfig(enabled=True)},
        defer_tools=defer,
    )
    assert agent.run_sync("find").deferred_tools == ["echo"]
    assert ("catalog_search", None) in seen and ("echo", "catalog") in seen


def test_defer_tools_without_tool_search_loads_eagerly(caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeModel([reply("ok"), reply("ok")])
    with caplog.at_level(logging.WARNING):
        agent = Agent(
            MODEL,
            tools=[catalog_search],
            client=fake,
            defer_tools={"catalog_search"},
            logger=HOST_LOG,
        )
        first = agent.run_sync("find")
        agent.run_sync("again")
    assert first.deferred_tools == []
    assert not any(s.defer_loading for s in fake.requests[0].tools)
    assert caplog.text.count("defer_tools has no effect") == 1
    with pytest.raises(TypeError, match="defer_tools"):
        Agent(MODEL, defer_tools="catalog_search")


# ---------------------------------------------------------------- skills and memory
def skills_server(catalog: list[dict[str, str]]) -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("std-tools-skills", log_level="WARNING")

    @server.tool()
    def list_skills() -> dict[str, Any]:
        """List the skills."""
        return {"skills": catalog}

    @server.tool()
    def load_skill(name: str) -> str:
        """Load one skill."""
        return f"skill {name}"

    @server.tool()
    def load_skill_resource(name: str, path: str) -> str:
        """Load a resource of a skill."""
        return path

    return server


def test_skills_catalog_in_the_system_prompt() -> None:
    catalog = [{"name": "pdf", "description": "Work with PDFs", "path": "/skills/pdf"}]
    fake = FakeModel([reply("ok")])
    Agent(MODEL, "Be brief.", tools=[skills_server(catalog)], client=fake).run_sync("hi")
    system = fake.requests[0].system
    assert system.startswith("Be brief.\n\n<available_skills>\n<skill>\n<name>pdf</name>")
    assert "<path>/skills/pdf</path>" in system
    assert {s.name for s in fake.requests[0].tools} == {
        "list_skills",
        "load_skill",
        "load_skill_resource",
    }


def test_empty_skills_catalog_hides_activation_tools() -> None:
    fake = FakeModel([reply("ok")])
    Agent(MODEL, "Be brief.", tools=[skills_server([])], client=fake).run_sync("hi")
    assert fake.requests[0].system == "Be brief."
    assert [s.name for s in fake.requests[0].tools] == ["list_skills"]


def test_memory_instructions_injected_once() -> None:
    @tool
    def memory_view(path: str) -> str:
        """View a memory file."""
        return ""

    @tool
    def memory_create(path: str, text: str) -> str:
        """Create a memory file."""
        return "ok"

    fake = FakeModel([reply("ok"), reply("ok"), reply("ok")])
    Agent(MODEL, "Hi.", tools=[memory_view, memory_create], client=fake).run_sync("a")
    system = fake.requests[0].system
    assert system.startswith("Hi.\n\n<memory_instructions>") and "memory_view" in system
    Agent(
        MODEL,
        "Hi.",
        tools=[memory_view, memory_create],
        client=fake,
        auto_inject_memory_instructions=False,
    ).run_sync("b")
    assert fake.requests[1].system == "Hi."
    Agent(MODEL, "Hi.", tools=[memory_view], client=fake).run_sync("c")
    assert fake.requests[2].system == "Hi."

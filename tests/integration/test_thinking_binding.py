"""Thinking-binding controls, the prefix audit and served-model attribution (issue 13),
through the real anthropic SDK against the loopback ProviderEmulator."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.adapters.registry.json_file import default_registry
from doc_processing_toolkit.application.session.session import AgentSession
from doc_processing_toolkit.domain.costs.ledger import price_request
from doc_processing_toolkit.domain.errors import BadRequestError
from doc_processing_toolkit.domain.requests import Usage
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import (
    FallbackHop,
    Reply,
    ThinkingBlock,
    ToolCall,
    prefix_binding_fault,
)

pytestmark = pytest.mark.anyio

BETA = "thinking-binding-controls-2026-08-01"
FLAGGED = "claude-opus-5-5"
UNGATED = "claude-opus-4-8"
KEY = "sk-test-binding-0001"


_OPEN: list[Agent] = []


@pytest.fixture(autouse=True)
async def _close_agents() -> AsyncIterator[None]:
    """Each test's agents release their SDK clients on the test's own event loop."""
    yield
    while _OPEN:
        await _OPEN.pop().close()


def _agent(emu: ProviderEmulator, model: str = FLAGGED, **kwargs: Any) -> Agent:
    kwargs.setdefault("thinking", {"type": "adaptive"})
    agent = Agent(model, api_key=KEY, base_url=emu.anthropic_base_url, log_to_file=False, **kwargs)
    _OPEN.append(agent)
    return agent


def _binding(body: dict[str, Any]) -> Any:
    return (body.get("thinking") or {}).get("block_binding")


def _betas(headers: dict[str, str]) -> list[str]:
    return [b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()]


async def _edited_session(emu: ProviderEmulator, agent: Agent) -> AgentSession:
    """A session after one thinking turn, restored with the first turn's text edited."""
    emu.push(Reply("Paris.", thinking=(ThinkingBlock("The capital of France..."),)))
    session = agent.session()
    await session.run("What is the capital of France?")
    data = session.to_dict()
    assert data["messages"][0]["content"] == "What is the capital of France?"
    data["messages"][0]["content"] = "What is the capital of Spain?"
    return AgentSession.from_dict(data, agent)


async def test_history_edit_is_dropped_and_reported_by_default(
    emu: ProviderEmulator, tmp_path: Path
) -> None:
    agent = _agent(emu, detailed_costs=True, cost_output_dir=str(tmp_path))
    session = await _edited_session(emu, agent)
    emu.push(Reply("Madrid."))
    result = await session.run("And its population?")

    first, second = emu.requests
    for recorded in (first, second):
        assert _binding(recorded.body) == {"prefix_mismatch_behavior": "drop_block"}
        assert BETA in _betas(recorded.headers)
    assert result.input_transformations == [
        {
            "type": "thinking_dropped",
            "reason": "prefix_binding_mismatch",
            "path": "messages.1.content.0",
            "request_index": 1,
        }
    ]
    assert result.prefix_binding_mismatches == 1
    assert result.model_binding_mismatches == 0
    assert result.prefix_binding_retry is False
    assert result.detailed_cost_file is not None
    report = json.loads(Path(result.detailed_cost_file).read_text())  # noqa: ASYNC240
    assert (report["prefix_binding_mismatches"], report["model_binding_mismatches"]) == (1, 0)


async def test_history_edit_fails_loudly_under_strict_prefix_binding(
    emu: ProviderEmulator,
) -> None:
    agent = _agent(emu, strict_prefix_binding=True)
    session = await _edited_session(emu, agent)
    emu.push(Reply("never sent"))
    with pytest.raises(BadRequestError) as failure:
        await session.run("And its population?")
    message = str(failure.value)
    assert "bound to a different conversation" in message
    assert "messages.1.content.0" in message  # the stale block
    assert "The first change is in messages.0" in message  # what moved
    assert "prefix moved" in message
    assert _binding(emu.requests[-1].body) == {"prefix_mismatch_behavior": "error"}
    assert emu.remaining_steps == 1  # refused before anything ran; not re-sent


async def test_prefix_binding_400_is_resent_once_and_costed(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return f"{city}: 2.1 million"

    agent = _agent(emu, UNGATED, tools=[lookup], detailed_costs=True, cost_output_dir=str(tmp_path))
    emu.push(
        prefix_binding_fault(),
        Reply(tool_calls=(ToolCall("lookup", {"city": "Paris"}),), input_tokens=40),
        Reply("About 2.1 million.", input_tokens=60),
    )
    with caplog.at_level(logging.WARNING, logger="doc_processing_toolkit"):
        result = await agent.run("Population of Paris?")

    assert emu.request_count == 3  # the refused request, its one re-send, the follow-up
    refused, resent, later = emu.requests
    assert _binding(refused.body) is None and BETA not in _betas(refused.headers)
    for recorded in (resent, later):  # the same choice on every later request
        assert _binding(recorded.body) == {"prefix_mismatch_behavior": "drop_block"}
        assert BETA in _betas(recorded.headers)
    assert result.prefix_binding_retry is True
    assert any("re-sending once" in r.getMessage() for r in caplog.records)
    # Both attempts costed once: the refusal as a retried attempt billed nothing, the
    # re-send as an ordinary record.
    assert result.retry_count == 1 and result.retry_cost == 0.0
    assert len(result.request_cost_records) == 2
    row = default_registry().row(UNGATED)
    expected = sum(
        price_request(Usage(input_tokens=n, output_tokens=5), row).cost for n in (40, 60)
    )
    assert result.cost == pytest.approx(expected)
    assert result.detailed_cost_file is not None
    report = json.loads(Path(result.detailed_cost_file).read_text())  # noqa: ASYNC240
    assert report["prefix_binding_retry"] is True
    assert report["total_retry_count"] == 1
    assert report["total_cost"] == pytest.approx(expected)


async def test_thinking_off_resend_removes_the_thinking_blocks(emu: ProviderEmulator) -> None:
    emu.push(Reply("Paris.", thinking=(ThinkingBlock("First reasoning"),)))
    thinking = _agent(emu, "claude-haiku-5-5")
    session = thinking.session()
    await session.run("Capital of France?")
    off = _agent(emu, "claude-haiku-5-5", thinking={"type": "disabled"})
    session = AgentSession.from_dict(session.to_dict(), off)
    emu.push(prefix_binding_fault(), Reply("Madrid."))
    result = await session.run("And Spain?")

    refused, resent = emu.requests[-2:]
    kinds = [
        block.get("type")
        for m in refused.body["messages"]
        if isinstance(m["content"], list)
        for block in m["content"]
    ]
    assert "thinking" in kinds
    assert resent.body["thinking"] == {"type": "disabled"}  # an off value carries no field
    assert all(
        block.get("type") not in ("thinking", "redacted_thinking")
        for m in resent.body["messages"]
        if isinstance(m["content"], list)
        for block in m["content"]
    )
    assert result.prefix_binding_retry is True


async def test_strip_fallback_sends_no_replayed_thinking(emu: ProviderEmulator) -> None:
    agent = _agent(emu, prefix_strip_fallback=True)
    session = agent.session()
    emu.push(Reply("Paris.", thinking=(ThinkingBlock("reasoning"),)))
    await session.run("Capital of France?")
    emu.push(Reply("Madrid."))
    await session.run("And Spain?")
    last = emu.requests[-1].body["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert last[1]["content"] == [{"type": "text", "text": "Paris."}]
    stored = session.get_history()[1]["content"]
    assert stored[0]["type"] == "thinking"  # the session keeps it; only the replay drops it


def _mcp_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("catalog")

    @server.tool()
    def search(query: str) -> str:
        """Search the catalog."""
        return f"results for {query}"

    return server


async def _two_runs(emu: ProviderEmulator, audit: bool) -> tuple[list[Any], list[str]]:
    emu.reset()
    server = _mcp_server()
    agent = _agent(emu, tools=[server], prefix_audit=audit)
    emu.push(Reply("one"), Reply("two"))
    await agent.run("List the catalog.")
    await agent.close()  # the next run reconnects and lists the server's tools anew

    @server.tool()
    def restock(item: str) -> str:
        """Restock an item."""
        return f"restocked {item}"

    await agent.run("List the catalog.")
    await agent.close()
    requests = emu.requests
    tools = [[t["name"] for t in r.body.get("tools", [])] for r in requests]
    return [(r.body, r.headers.get("anthropic-beta")) for r in requests], [str(t) for t in tools]


async def test_prefix_audit_names_the_moved_tool_surface_and_alters_nothing(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="doc_processing_toolkit"):
        audited, tools = await _two_runs(emu, audit=True)
    warnings = [r.getMessage() for r in caplog.records if "prefix audit" in r.getMessage()]
    assert tools == ["['search']", "['search', 'restock']"]
    assert len(warnings) == 1
    assert "tool surface changed (added: restock)" in warnings[0]
    assert "messages" not in warnings[0] and "system" not in warnings[0]
    plain, _ = await _two_runs(emu, audit=False)
    assert audited == plain  # not one request byte, not one header, altered


async def test_prefix_audit_from_the_environment_names_an_edited_message(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_PREFIX_AUDIT", "1")
    agent = _agent(emu, UNGATED, thinking=None)
    session = await _edited_session(emu, agent)
    emu.push(Reply("Madrid."))
    with caplog.at_level(logging.WARNING, logger="doc_processing_toolkit"):
        await session.run("And its population?")
    warnings = [r.getMessage() for r in caplog.records if "prefix audit" in r.getMessage()]
    assert len(warnings) == 1 and "messages.0 changed" in warnings[0]
    assert all(BETA not in _betas(r.headers) for r in emu.requests)


async def test_fallback_record_is_priced_at_the_serving_model(
    emu: ProviderEmulator, tmp_path: Path
) -> None:
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    agent = _agent(
        emu, "claude-fable-5-1", tools=[ping], detailed_costs=True, cost_output_dir=str(tmp_path)
    )
    emu.push(
        Reply(tool_calls=(ToolCall("ping"),), input_tokens=1000, output_tokens=100),
        Reply("pong!", input_tokens=1200, output_tokens=50, model="claude-opus-5-5"),
    )
    result = await agent.run("Ping it.")

    registry = default_registry()
    first, second = result.request_cost_records
    assert first["served_model"] == "claude-fable-5-1"
    assert second["served_model"] == "claude-opus-5-5"
    fable = price_request(
        Usage(input_tokens=1000, output_tokens=100), registry.row(first["served_model"])
    )
    opus = price_request(
        Usage(input_tokens=1200, output_tokens=50), registry.row("claude-opus-5-5")
    )
    assert first["cost"] == pytest.approx(fable.cost)
    assert second["cost"] == pytest.approx(opus.cost)
    assert result.cost == pytest.approx(fable.cost + opus.cost)
    assert result.token_totals_by_model == {
        "claude-fable-5-1": {"input_tokens": 1000, "output_tokens": 100},
        "claude-opus-5-5": {"input_tokens": 1200, "output_tokens": 50},
    }


async def test_model_binding_drop_is_counted_apart_only_with_the_beta(
    emu: ProviderEmulator,
) -> None:
    dropped = {
        "type": "thinking_dropped",
        "reason": "model_binding_mismatch",
        "path": "messages.1.content.0",
    }
    allowed = {
        "type": "thinking_mismatch_allowed",
        "reason": "prefix_binding_mismatch",
        "path": "messages.1.content.1",
    }
    novel = {"type": "connector_rewritten", "reason": "something_new"}
    emu.push(Reply("ok", input_transformations=(dropped, allowed, novel)))
    opted_in = await _agent(emu, UNGATED, anthropic_block_binding="drop_block").run("hi")
    assert [t["type"] for t in opted_in.input_transformations] == [
        "thinking_dropped",
        "thinking_mismatch_allowed",
        "connector_rewritten",
    ]
    assert opted_in.input_transformations[2] == {**novel, "request_index": 1}  # kept verbatim
    assert (opted_in.prefix_binding_mismatches, opted_in.model_binding_mismatches) == (0, 1)

    emu.push(Reply("ok", input_transformations=(dropped,)))
    ungated = await _agent(emu, UNGATED).run("hi")  # no beta: nothing is reported
    assert BETA not in _betas(emu.requests[-1].headers)
    assert _binding(emu.requests[-1].body) is None
    assert ungated.input_transformations == []
    assert ungated.model_binding_mismatches == 0


async def test_one_request_served_after_a_declined_attempt(
    emu: ProviderEmulator, tmp_path: Path
) -> None:
    agent = _agent(emu, "claude-fable-5-1", detailed_costs=True, cost_output_dir=str(tmp_path))
    emu.push(
        Reply(
            "Answered by the fallback.",
            model="claude-opus-5-5",
            input_tokens=800,
            output_tokens=40,
            fallback_from=(FallbackHop("claude-fable-5-1", input_tokens=800, output_tokens=12),),
        )
    )
    result = await agent.run("A question the first model declines.")

    assert emu.requests[0].body["model"] == "claude-fable-5-1"
    (record,) = result.request_cost_records
    assert record["served_model"] == "claude-opus-5-5"  # named by the fallback block
    registry = default_registry()
    declined = price_request(
        Usage(input_tokens=800, output_tokens=12), registry.row("claude-fable-5-1")
    ).cost
    served = price_request(
        Usage(input_tokens=800, output_tokens=40), registry.row("claude-opus-5-5")
    ).cost
    assert record["cost"] == pytest.approx(declined + served)
    assert [p["model"] for p in record["billed_by_model"]] == [
        "claude-fable-5-1",
        "claude-opus-5-5",
    ]
    expected = {
        "claude-fable-5-1": {"input_tokens": 800, "output_tokens": 12},
        "claude-opus-5-5": {"input_tokens": 800, "output_tokens": 40},
    }
    assert result.token_totals_by_model == expected
    assert result.input_tokens == 1600 and result.output_tokens == 52
    assert result.detailed_cost_file is not None
    report = json.loads(Path(result.detailed_cost_file).read_text())  # noqa: ASYNC240
    assert report["token_totals_by_model"] == expected
    assert result.output == "Answered by the fallback."

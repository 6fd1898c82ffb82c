"""Compaction inside Agent runs and sessions (FakeModel through the real container)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.compaction import (
    CompactionConfig,
    check_and_perform_compaction,
    check_and_perform_pre_call_compaction,
    resolve_compaction_config,
    resolve_context_window,
)
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.messages import ToolResultPart
from doc_processing_toolkit.testing import FakeModel, Fault, Reply, reply, tool_call

MODEL = "claude-sonnet-5-5"


@tool
def read(page: int) -> str:
    """Read a page."""
    return f"PAGE-{page} " + "text " * 200


def _call(page: int, input_tokens: int = 100) -> Reply:
    return Reply(tool_calls=tool_call("read", {"page": page}).tool_calls, input_tokens=input_tokens)


def _agent(steps: list[Any], **config: Any) -> tuple[Agent, FakeModel]:
    fake = FakeModel(steps)
    raw = {"trigger_threshold": 1000, "min_messages_before_compaction": 2, **config}
    agent = Agent(
        MODEL,
        tools=[read],
        client=fake,
        compaction=True,
        compaction_config=raw,
        logger=logging.getLogger("test.compaction.agent"),
    )
    return agent, fake


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.001")


# ------------------------------------------------------------------ Agent(...) checks
@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"strategy": "shred"}, "strategy"),
        ({"trigger_threshold": 0}, "trigger_threshold"),
        ({"trigger_threshold": -1}, "trigger_threshold"),
        ({"summary_max_tokens": 10_000_000}, "summary_max_tokens"),
        ({"summary_prompt_file": "/no/such/prompt.txt"}, "summary_prompt_file"),
    ],
)
def test_bad_configuration_fails_at_agent_naming_the_key(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigurationError, match=key) as caught:
        Agent(MODEL, compaction=True, compaction_config=config, client=FakeModel([]))
    assert isinstance(caught.value, ValueError)


def test_summary_prompt_file_is_read(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Summarise like a lawyer.")
    _history, fake = _two_turn_session({"summary_prompt_file": str(prompt)})
    summary_requests = [r for r in fake.requests if r.purpose == "compaction_summary"]
    assert summary_requests and summary_requests[0].system == "Summarise like a lawyer."


def _two_turn_session(config: dict[str, Any], *, sink: Any = None) -> tuple[Any, FakeModel]:
    archived: list[list[Any]] = []
    steps = [
        _call(1),
        reply("first answer"),
        _call(2, input_tokens=5000),  # the provider reports a big context: Level 2 fires
        Fault(status=529),  # the summary's first attempt: retried by the one retry layer
        reply("RECAP of page 1", input_tokens=300, output_tokens=40),
        reply("second answer"),
    ]

    def keep(payload: list[Any]) -> str:
        archived.append(payload)
        return f"memory://archive/{len(archived)}"

    agent, fake = _agent(steps, archive_sink=sink or keep, **config)
    session = agent.session(session_id="contract")
    first = session.run_sync("read page 1")
    second = session.run_sync("read page 2")
    return (session, first, second, archived), fake


def test_level_two_summary_is_its_own_costed_record_and_the_session_is_rebased() -> None:
    (session, first, second, archived), fake = _two_turn_session({})
    assert first.compaction_count == 0 and second.compaction_count == 1
    purposes = [r["purpose"] for r in second.request_cost_records]
    assert purposes == ["generation", "compaction_summary", "tool_followup"]
    summary = second.request_cost_records[1]
    assert summary["input_tokens"] == 300 and summary["output_tokens"] == 40
    assert second.compaction_input_tokens == 300 and second.compaction_output_tokens == 40
    assert second.compaction_cost == pytest.approx(summary["cost"]) and summary["cost"] > 0
    assert second.retry_count == 1  # the 529 on the summary, retried once
    assert second.cost == pytest.approx(
        sum(r["cost"] for r in second.request_cost_records) + second.retry_cost
    )
    assert second.compaction_archives == ["memory://archive/1"]
    assert session.metadata["compaction_count"] == 1
    assert session.metadata["compaction_archives"] == ["memory://archive/1"]
    assert session.metadata["boundaries_reset_at_run"] == 2
    assert [b["run"] for b in session.run_boundaries] == [2]
    # The archive holds what was removed; the next request starts on the recap.
    assert "PAGE-1" in json.dumps(archived[0])
    after = fake.requests[-1].messages
    assert after[0].text.startswith("[Summary of the earlier conversation")
    assert "RECAP of page 1" in after[0].text and "memory://archive/1" in after[0].text
    assert after[1].text == "read page 2" and isinstance(after[-1].parts[0], ToolResultPart)
    assert "PAGE-1" not in json.dumps(session.messages)
    assert session.messages[-1]["content"][0]["text"] == "second answer"


def test_a_failing_archive_sink_is_contained(caplog: pytest.LogCaptureFixture) -> None:
    def broken(payload: list[Any]) -> str:
        raise RuntimeError("secret bucket s3://private")

    with caplog.at_level(logging.WARNING, logger="test.compaction.agent"):
        (_session, _, second, _), _ = _two_turn_session({}, sink=broken)
    assert second.compaction_count == 1 and second.compaction_archives == []
    warnings = [r.getMessage() for r in caplog.records if "archive_sink" in r.getMessage()]
    assert len(warnings) == 1 and "RuntimeError" in warnings[0]
    assert "s3://private" not in caplog.text


def test_archive_dir_gets_an_atomic_json_file(tmp_path: Path) -> None:
    steps = [_call(1), reply("a1"), _call(2, input_tokens=5000), reply("a2")]
    agent, _ = _agent(
        steps,
        strategy="tool_result_clearing",
        keep_recent_tool_results=1,
        archive_dir=str(tmp_path / "arch"),
    )
    session = agent.session(session_id="s/1")
    session.run_sync("one")
    result = session.run_sync("two")
    assert result.compaction_count == 1 and len(result.compaction_archives) == 1
    path = Path(result.compaction_archives[0])
    assert path.parent == tmp_path / "arch" and path.name.startswith("s_1_")
    assert "PAGE-1" in path.read_text() and not list(path.parent.glob("*.tmp"))


def test_max_compactions_and_min_messages_hold_it_back() -> None:
    steps = [_call(1, 5000), _call(2, 5000), _call(3, 5000), reply("done")]
    agent, _ = _agent(
        steps,
        strategy="tool_result_clearing",
        keep_recent_tool_results=0,
        max_compactions_per_session=1,
        archive_history=False,
    )
    assert agent.run_sync("go").compaction_count == 1
    agent, _ = _agent(
        list(steps),
        strategy="tool_result_clearing",
        min_messages_before_compaction=50,
        archive_history=False,
    )
    assert agent.run_sync("go").compaction_count == 0


def test_level_one_compacts_a_long_session_before_its_first_request() -> None:
    steps = [reply("x" * 8000), reply("recap", input_tokens=10), reply("short answer")]
    agent, fake = _agent(steps, strategy="summarize", archive_history=False)
    session = agent.session()
    session.run_sync("tell me everything")
    result = session.run_sync("and now?")
    assert result.compaction_count == 1 and result.compaction_archives == []
    assert [r.purpose for r in fake.requests] == ["generation", "compaction_summary", "generation"]
    assert fake.requests[-1].messages[-1].text == "and now?"
    assert fake.requests[-1].messages[0].text.startswith("[Summary")


def test_request_start_announces_the_summary() -> None:
    steps = [_call(1), reply("a1"), _call(2, 5000), reply("recap"), reply("a2")]
    fake = FakeModel(steps)
    agent = Agent(
        MODEL,
        tools=[read],
        client=fake,
        compaction=True,
        compaction_config={"trigger_threshold": 1000, "archive_history": False},
        emit_request_start=True,
        log_to_file=False,
    )
    session = agent.session()
    session.run_sync("one")

    async def events() -> list[Any]:
        return [e async for e in session.stream("two")]

    starts = [e.metadata for e in asyncio.run(events()) if e.event_type == "request_start"]
    assert [s["purpose"] for s in starts] == ["generation", "compaction_summary", "tool_followup"]
    assert [s["request_index"] for s in starts] == [1, 2, 3]


def test_resolve_context_window_warns_and_floors(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("test.compaction.window")
    assert resolve_context_window(MODEL, "anthropic", logger) > 128_000 - 1
    with caplog.at_level(logging.WARNING, logger="test.compaction.window"):
        assert resolve_context_window("no-such-model-x", "openai", logger) == 128_000
    assert (
        "model_information.json -> openai -> no-such-model-x -> context_window_tokens"
        in caplog.text
    )


def test_public_level_two_check_rewrites_native_messages_in_place() -> None:
    native: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"page": 1}}
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "PAGE-1 " * 100}
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"page": 2}}
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "PAGE-2"}],
        },
    ]
    config = resolve_compaction_config(
        {
            "strategy": "tool_result_clearing",
            "keep_recent_tool_results": 1,
            "archive_history": False,
        }
    )
    logger = logging.getLogger("test.compaction")
    idle = asyncio.run(
        check_and_perform_compaction(
            native, 10, config, MODEL, "anthropic", 200_000, 0, "s", logger
        )
    )
    assert idle.triggered is False and "PAGE-1" in json.dumps(native)
    done = asyncio.run(
        check_and_perform_compaction(
            native, 190_000, config, MODEL, "anthropic", 200_000, 0, "s", logger
        )
    )
    assert (
        done.triggered and done.strategy == "tool_result_clearing" and done.compaction_number == 1
    )
    assert done.tokens_after < done.tokens_before and done.tokens_cleared > 0
    assert "PAGE-1" not in json.dumps(native) and "PAGE-2" in json.dumps(native)
    assert native[1]["content"][0]["id"] == "toolu_1"


def test_public_level_one_summarises_through_the_given_client() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "first question " * 50},
        {"role": "assistant", "content": [{"type": "text", "text": "first answer"}]},
        {"role": "user", "content": "newest question"},
    ]
    fake = FakeModel([reply("the recap", input_tokens=70, output_tokens=7)])
    config = CompactionConfig(archive_history=False, min_messages_before_compaction=2)
    result = asyncio.run(
        check_and_perform_pre_call_compaction(
            history,
            5000,
            config,
            MODEL,
            "anthropic",
            4000,
            0,
            "s",
            logging.getLogger("t"),
            client=fake,
        )
    )
    assert result.triggered and result.summary_input_tokens == 70 and result.summary_cost > 0
    assert fake.requests[0].purpose == "compaction_summary"
    assert len(history) == 2 and history[-1]["content"] == "newest question"


def test_detailed_costs_mark_the_iteration_that_compacted(tmp_path: Path) -> None:
    steps = [_call(1), _call(2, input_tokens=5000), reply("done")]
    fake = FakeModel(steps)
    agent = Agent(
        MODEL,
        tools=[read],
        client=fake,
        compaction=True,
        compaction_config={
            "strategy": "tool_result_clearing",
            "keep_recent_tool_results": 1,
            "trigger_threshold": 1000,
            "archive_history": False,
        },
        detailed_costs=True,
        cost_output_dir=str(tmp_path),
        log_to_file=False,
    )
    result = agent.run_sync("go")
    marked = [m for m in result.iteration_metrics if m.compaction_triggered]
    assert [m.iteration_number for m in marked] == [3]
    assert marked[0].compaction_strategy == "tool_result_clearing"
    assert marked[0].compaction_tokens_cleared > 0


def test_a_failed_summary_falls_back_to_clearing_and_the_run_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    steps = [_call(1), reply("a1"), _call(2, 5000), Fault(status=400), reply("a2")]
    agent, _ = _agent(steps, keep_recent_tool_results=1, archive_history=False)
    session = agent.session()
    session.run_sync("one")
    with caplog.at_level(logging.INFO, logger="test.compaction.agent"):
        result = session.run_sync("two")
    assert result.output == "a2" and result.compaction_count == 1
    assert "the summary failed" in caplog.text
    assert [r["purpose"] for r in result.request_cost_records] == ["generation", "tool_followup"]


def test_a_session_store_holds_the_compacted_history(tmp_path: Path) -> None:
    from doc_processing_toolkit.agent.session import SqliteSessionStore

    store = SqliteSessionStore(tmp_path / "sessions.db")
    steps = [
        _call(1),
        reply("a1"),
        _call(2, 5000),
        reply("recap"),
        reply("a2"),
        _call(3),
        reply("a3"),
    ]
    agent, _ = _agent(steps, archive_history=False)
    session = agent.session(session_id="stored", store=store)
    for text in ("one", "two", "three"):
        session.run_sync(text)
    envelope = store.load("stored")
    assert envelope is not None and envelope["messages"] == session.messages
    assert envelope["metadata"]["compaction_count"] == 1
    assert [b["run"] for b in envelope["metadata"]["run_boundaries"]] == [2, 3]
    assert "PAGE-1" not in json.dumps(envelope["messages"])


def test_summary_model_writes_the_recap_and_prices_it_at_its_own_rates() -> None:
    (_s, _first, second, _archived), fake = _two_turn_session({"summary_model": "claude-haiku-4-5"})
    summaries = [r for r in fake.requests if r.purpose == "compaction_summary"]
    assert summaries and {r.model for r in summaries} == {"claude-haiku-4-5"}
    assert {r.model for r in fake.requests if r.purpose != "compaction_summary"} == {MODEL}
    record = second.request_cost_records[1]
    assert record["purpose"] == "compaction_summary"
    assert record["served_model"] == "claude-haiku-4-5"
    # 300 input and 40 output tokens at claude-haiku-4-5's $1 / $5 per million.
    assert record["cost"] == pytest.approx((300 * 1.0 + 40 * 5.0) / 1e6)
    assert second.compaction_cost == pytest.approx(record["cost"])


@pytest.mark.parametrize(("switch", "kept"), [("", True), ("on", True), ("off", False)])
def test_protect_current_turn_switch(
    monkeypatch: pytest.MonkeyPatch, switch: str, kept: bool
) -> None:
    """By default the current turn's question stays verbatim after a Level-2 summary;
    DPT_COMPACTION_PROTECT_CURRENT_TURN=off folds it into the summary (the old way). The
    open tool round is kept either way."""
    monkeypatch.setenv("DPT_COMPACTION_PROTECT_CURRENT_TURN", switch)
    (_s, _first, second, _archived), fake = _two_turn_session({})
    assert second.compaction_count == 1
    after = fake.requests[-1].messages
    assert after[0].text.startswith("[Summary of the earlier conversation")
    assert any(m.text == "read page 2" for m in after) is kept
    summary = next(r for r in fake.requests if r.purpose == "compaction_summary")
    assert ("read page 2" in summary.messages[0].text) is not kept
    assert [m.role for m in after[-2:]] == ["assistant", "tool"]

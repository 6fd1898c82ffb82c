"""The Agent and its one run loop, driven by FakeModel through the real container."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from dependency_injector import providers
from pydantic import BaseModel

from doc_processing_toolkit import Agent, AgentResult, tool
from doc_processing_toolkit.application.container import default_container
from doc_processing_toolkit.domain.errors import RateLimitError, StreamInterruptedError
from doc_processing_toolkit.testing import (
    FakeModel,
    Fault,
    Reply,
    StaticRegistry,
    ThinkingBlock,
    ToolCall,
)
from doc_processing_toolkit.testing.script import reply, tool_call


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"kaboom: {reason}")


def make_agent(fake: FakeModel, **kwargs: Any) -> Agent:
    kwargs.setdefault("tools", [calculate])
    return Agent("claude-sonnet-4-5", "You are a math assistant.", client=fake, **kwargs)


def test_calculate_example_uses_tool_and_costs_sum_of_records() -> None:
    fake = FakeModel([tool_call("calculate", {"a": 2, "b": 3}), reply("The sum is 5.")])
    result = make_agent(fake).run_sync("What is 2 + 3?")

    assert result.output == "The sum is 5."
    assert result.tools_used == ["calculate"]
    assert result.iterations == 2
    assert len(result.request_cost_records) == 2
    assert result.cost == pytest.approx(sum(r["cost"] for r in result.request_cost_records))
    assert result.cost > 0
    assert result.input_tokens == 20 and result.output_tokens == 10
    assert result.token_source == "api_response"
    assert result.success and result.error is None
    # The second request carried the tool result "5" back to the model.
    second = fake.requests[1]
    tool_msg = second.messages[-1]
    assert tool_msg.role == "tool"
    assert tool_msg.parts[0].text == "5"  # type: ignore[union-attr]
    assert second.purpose == "tool_followup"
    assert second.system == "You are a math assistant."


def test_tool_schema_reaches_the_request_strict_on_anthropic() -> None:
    fake = FakeModel([reply("hi")])
    make_agent(fake).run_sync("hello")
    (spec,) = fake.requests[0].tools
    assert spec.name == "calculate"
    assert spec.parameters["required"] == ["a", "b"]
    assert spec.strict is True


@pytest.mark.anyio
async def test_stream_event_order_and_single_complete() -> None:
    fake = FakeModel(
        [
            Reply(text="Let me compute.", tool_calls=(ToolCall("calculate", {"a": 1, "b": 2}),)),
            reply("It is 3."),
        ]
    )
    agent = make_agent(fake)
    events = [e async for e in agent.stream("1+2?")]
    kinds = [e.event_type for e in events]

    assert kinds.count("complete") == 1 and kinds[-1] == "complete"
    assert "error" not in kinds
    first_tool = kinds.index("tool_call_start")
    assert kinds.index("text_delta") < first_tool < kinds.index("tool_call_result")
    assert kinds.count("iteration_complete") == 2
    text = "".join(e.content for e in events if e.event_type == "text_delta")
    assert text == "Let me compute.It is 3."
    result_event = next(e for e in events if e.event_type == "tool_call_result")
    assert result_event.metadata is not None
    assert result_event.metadata["result"] == "3"
    assert result_event.metadata["success"] is True
    assert result_event.metadata["result_truncated"] is False
    # iteration_complete usage sums to the run's totals.
    complete = events[-1].metadata or {}
    iters = [e.metadata or {} for e in events if e.event_type == "iteration_complete"]
    assert sum(m["input_tokens"] for m in iters) == complete["input_tokens"]
    assert sum(m["cost"] for m in iters) == pytest.approx(complete["cost"])
    assert complete["tools_used"] == ["calculate"]


@pytest.mark.anyio
async def test_preview_chars_cut_event_copy_not_model_copy() -> None:
    @tool
    def long_text() -> str:
        """Return a long text."""
        return "x" * 2000

    fake = FakeModel([tool_call("long_text"), reply("done")])
    agent = make_agent(fake, tools=[long_text])
    events = [e async for e in agent.stream("go")]
    meta = next(e.metadata for e in events if e.event_type == "tool_call_result") or {}
    assert len(meta["result"]) == 500 and meta["result_truncated"] is True
    assert len(fake.requests[1].messages[-1].parts[0].text) == 2000  # type: ignore[union-attr]


def test_two_429s_then_success_retries_and_costs_nothing_for_rejections() -> None:
    fake = FakeModel(
        [Fault(status=429, retry_after=0.01), Fault(status=429, retry_after=0.01), reply("ok")]
    )
    result = make_agent(fake).run_sync("hi")
    assert result.output == "ok"
    assert result.retry_count == 2
    assert len(fake.requests) == 3
    assert result.retry_cost == 0.0
    assert len(result.request_cost_records) == 1


def test_retry_exhaustion_raises_the_provider_error() -> None:
    fake = FakeModel([Fault(status=429, retry_after=0.0)] * 4)
    with pytest.raises(RateLimitError):
        make_agent(fake).run_sync("hi")
    assert len(fake.requests) == 4  # 1 + 3 retries


def test_non_retryable_status_is_not_retried() -> None:
    fake = FakeModel([Fault(status=400, message="bad request")])
    with pytest.raises(Exception, match="400"):
        make_agent(fake).run_sync("hi")
    assert len(fake.requests) == 1


def test_mid_stream_failure_before_any_delta_is_retried_and_costed() -> None:
    fake = FakeModel([Fault(kind="stream_error", input_tokens=100), reply("recovered")])
    result = make_agent(fake).run_sync("hi")
    assert result.output == "recovered"
    assert result.retry_count == 1
    assert result.retry_input_tokens == 100
    assert result.retry_cost > 0
    assert result.cost == pytest.approx(
        sum(r["cost"] for r in result.request_cost_records) + result.retry_cost
    )
    assert result.input_tokens == 110


@pytest.mark.anyio
async def test_mid_stream_failure_after_a_delta_is_not_retried_and_stream_never_raises() -> None:
    fake = FakeModel([Fault(kind="disconnect", partial_text="Partial ans"), reply("never")])
    agent = make_agent(fake)
    events = [e async for e in agent.stream("hi")]
    kinds = [e.event_type for e in events]
    assert kinds[-2:] == ["error", "complete"]
    assert len(fake.requests) == 1
    error_meta = events[-2].metadata or {}
    assert error_meta["token_source"] == "stream_partial"
    assert error_meta["input_tokens"] == 10
    complete = events[-1].metadata or {}
    assert complete["error"] and "StreamInterruptedError" in complete["error"]

    fake2 = FakeModel([Fault(kind="disconnect", partial_text="Partial")])
    with pytest.raises(StreamInterruptedError):
        await make_agent(fake2).run("hi")


def test_tool_error_becomes_error_result_and_run_goes_on() -> None:
    fake = FakeModel([tool_call("explode", {"reason": "test"}), reply("sorry")])
    result = make_agent(fake, tools=[explode]).run_sync("go")
    assert result.output == "sorry"
    tool_result = fake.requests[1].messages[-1].parts[0]
    assert tool_result.is_error  # type: ignore[union-attr]
    assert "kaboom: test" in tool_result.text  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_parallel_calls_run_concurrently_results_in_call_order() -> None:
    started: list[str] = []
    gate = asyncio.Event()

    @tool
    async def slow(name: str) -> str:
        """Wait for both calls to start."""
        started.append(name)
        if len(started) == 2:
            gate.set()
        await asyncio.wait_for(gate.wait(), 2)
        return f"done {name}"

    fake = FakeModel(
        [
            Reply(tool_calls=(ToolCall("slow", {"name": "a"}), ToolCall("slow", {"name": "b"}))),
            reply("both"),
        ]
    )
    result = await make_agent(fake, tools=[slow]).run("go")
    assert result.output == "both"
    texts = [p.text for p in fake.requests[1].messages[-1].parts]  # type: ignore[union-attr]
    assert texts == ["done a", "done b"]


def test_max_iterations_stops_the_loop() -> None:
    fake = FakeModel(default=tool_call("calculate", {"a": 1, "b": 1}))
    result = make_agent(fake, max_iterations=3).run_sync("loop forever")
    assert result.iterations == 3
    assert len(fake.requests) == 3


def test_signed_thinking_goes_to_reasoning_content_not_output() -> None:
    fake = FakeModel(
        [Reply(text="Answer.", thinking=(ThinkingBlock("I should answer.", signature="sig=="),))]
    )
    result = make_agent(fake).run_sync("think")
    assert result.output == "Answer."
    assert result.reasoning_content == "I should answer."


class Verdict(BaseModel):
    label: str
    score: float


@pytest.fixture
def no_native_schema_registry() -> Iterator[None]:
    """claude-sonnet-4-5 as a model WITHOUT native structured output (forces Path B)."""
    container = default_container()
    row = container.registry().row("claude-sonnet-4-5")
    patched = row.model_copy(update={"supports_structured_output": False})
    container.registry.override(providers.Object(StaticRegistry([patched])))
    yield
    container.registry.reset_override()


@pytest.mark.usefixtures("no_native_schema_registry")
def test_structured_output_tool_path_returns_validated_dict() -> None:
    fake = FakeModel([tool_call("final_result", {"label": "ok", "score": 0.9})])
    result = make_agent(fake, tools=None).run_sync("judge", output_schema=Verdict)
    assert result.output == {"label": "ok", "score": 0.9}
    request = fake.requests[0]
    assert [t.name for t in request.tools] == ["final_result"]
    assert request.output_schema is None


@pytest.mark.usefixtures("no_native_schema_registry")
def test_structured_output_invalid_raises_clear_error() -> None:
    fake = FakeModel([tool_call("final_result", {"label": "ok"})])
    with pytest.raises(ValueError, match="score"):
        make_agent(fake, tools=None).run_sync("judge", output_schema=Verdict)


@pytest.mark.anyio
async def test_structured_output_native_path_tags_deltas_and_returns_dict() -> None:
    fake = FakeModel([reply('{"label": "fine", "score": 1}')])
    agent = make_agent(fake, tools=None)
    events = [e async for e in agent.stream("judge", output_schema=Verdict)]
    deltas = [e for e in events if e.event_type == "text_delta"]
    assert deltas and all(e.metadata == {"structured_output": True} for e in deltas)
    assert fake.requests[0].output_schema is not None
    assert (events[-1].metadata or {})["output"] == {"label": "fine", "score": 1}


def test_pause_turn_continues_the_same_turn() -> None:
    fake = FakeModel([Reply(text="Working", stop_reason="pause_turn"), reply(" done")])
    result = make_agent(fake).run_sync("long task")
    assert result.pause_turn_iterations == 1
    assert fake.requests[1].purpose == "pause_turn_continuation"
    assert result.output == " done"
    assert len(result.request_cost_records) == 2


def test_pause_turn_continuations_stop_at_max_pause_turn_iterations() -> None:
    paused = [Reply(text=f"part {i}", stop_reason="pause_turn") for i in range(5)]
    fake = FakeModel([*paused, reply("never sent")])
    result = make_agent(fake, max_pause_turn_iterations=2).run_sync("long task")
    assert result.pause_turn_iterations == 2
    assert len(fake.requests) == 3  # the request and two continuations, then the cap
    assert [r.purpose for r in fake.requests[1:]] == ["pause_turn_continuation"] * 2
    assert result.output == "part 2"  # the last paused turn's text is the answer
    assert len(result.request_cost_records) == 3


@pytest.mark.anyio
async def test_run_sync_works_inside_a_running_loop() -> None:
    fake = FakeModel([reply("from a worker loop")])
    result = make_agent(fake).run_sync("hi")
    assert result.output == "from a worker loop"


@pytest.mark.anyio
async def test_request_start_events_match_requests_when_enabled() -> None:
    fake = FakeModel([Fault(status=503, retry_after=0.0), tool_call("calculate"), reply("x")])
    fake.script[1] = tool_call("calculate", {"a": 1, "b": 1})
    agent = make_agent(fake, emit_request_start=True)
    events = [e async for e in agent.stream("hi")]
    starts = [e.metadata or {} for e in events if e.event_type == "request_start"]
    assert [s["request_index"] for s in starts] == [1, 2, 3]
    assert [s["attempt"] for s in starts] == [1, 2, 1]
    assert starts[-1]["purpose"] == "tool_followup"

    quiet = make_agent(FakeModel([reply("x")]))
    assert "request_start" not in [e.event_type async for e in quiet.stream("hi")]


@pytest.mark.anyio
async def test_closing_the_stream_cancels_and_reports_spend() -> None:
    fake = FakeModel(
        [
            tool_call("calculate", {"a": 1, "b": 1}),
            Reply(text="a" * 200, chunk_size=1, delay_between_chunks=0.01),
        ]
    )
    agent = make_agent(fake)
    async with contextlib.aclosing(agent.stream("hi")) as stream:
        async for event in stream:
            if event.event_type == "text_delta":
                break
    spent = agent.last_abandoned_stream
    assert spent is not None and spent["abandoned"] is True
    assert spent["input_tokens"] >= 10


def test_result_round_trips_through_dict() -> None:
    fake = FakeModel([tool_call("calculate", {"a": 2, "b": 3}), reply("5")])
    result = make_agent(fake).run_sync("2+3")
    data = result.to_dict()
    assert data["service_tier_served"] is None and data["priority_request_count"] == 0
    again = AgentResult.from_dict(data)
    assert again.to_dict() == data
    assert again.total_tokens == result.input_tokens + result.output_tokens


def test_sync_tools_run_off_the_event_loop_thread() -> None:
    seen: list[int] = []

    @tool
    def where() -> str:
        """Report the thread."""
        seen.append(threading.get_ident())
        return "here"

    loop_threads: list[int] = []

    async def main() -> AgentResult:
        loop_threads.append(threading.get_ident())
        fake = FakeModel([tool_call("where"), reply("ok")])
        return await make_agent(fake, tools=[where]).run("where?")

    asyncio.run(main())
    assert seen and seen[0] != loop_threads[0]


@pytest.fixture
def empty_turn_registry() -> Iterator[None]:
    """claude-sonnet-4-5 flagged like a model that may end a turn empty."""
    container = default_container()
    row = container.registry().row("claude-sonnet-4-5")
    patched = row.model_copy(update={"retry_empty_final_turn": True})
    container.registry.override(providers.Object(StaticRegistry([patched])))
    yield
    container.registry.reset_override()


@pytest.mark.usefixtures("empty_turn_registry")
def test_one_empty_final_turn_is_re_requested_once() -> None:
    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 1}), reply(""), reply("2")])
    result = make_agent(fake).run_sync("1+1")
    assert result.output == "2"
    assert [r.purpose for r in fake.requests] == ["generation", "tool_followup", "empty_turn_retry"]
    assert [m.role for m in fake.requests[2].messages] == ["user", "assistant", "tool"]
    assert [r["purpose"] for r in result.request_cost_records][-1] == "empty_turn_retry"

    twice = FakeModel([reply(""), reply("")])
    assert make_agent(twice).run_sync("x").output == ""
    assert len(twice.requests) == 2


def test_empty_turn_is_not_retried_without_the_flag() -> None:
    fake = FakeModel([reply("")])
    assert make_agent(fake).run_sync("x").output == ""
    assert len(fake.requests) == 1


def test_forcing_tool_choice_ends_after_one_tool_round() -> None:
    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 2}), reply("never sent")])
    result = make_agent(fake, tool_choice="any").run_sync("add")
    assert len(fake.requests) == 1
    assert result.tools_used == ["calculate"]
    assert fake.requests[0].tool_choice == "required"


def _many_tools(count: int) -> list[Any]:
    tools = []
    for index in range(count):

        def fn(x: int = 0) -> int:
            return x

        fn.__doc__ = f"Tool {index}."
        tools.append(tool(name=f"t{index:02d}")(fn))
    return tools


def test_strict_budget_applies_only_where_the_row_has_per_request_limits() -> None:
    anthropic = FakeModel([reply("ok")])
    make_agent(anthropic, tools=_many_tools(25)).run_sync("hi")
    strict = [t.name for t in anthropic.requests[0].tools if t.strict]
    assert len(strict) == 20  # Anthropic: 20 strict tools per request, the rest non-strict

    openai = FakeModel([reply("ok")], provider="openai")
    Agent("gpt-4o", tools=_many_tools(25), client=openai).run_sync("hi")
    assert all(t.strict for t in openai.requests[0].tools)


def test_detailed_costs_save_a_report_with_the_run_figures(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json as _json

    fake = FakeModel(
        [
            Fault(kind="stream_error", input_tokens=40),
            tool_call("calculate", {"a": 1, "b": 2}),
            reply("3"),
        ]
    )
    agent = make_agent(fake, detailed_costs=True, cost_output_dir=str(tmp_path))
    result = agent.run_sync("1+2")
    assert result.detailed_cost_file is not None
    saved = _json.loads(open(result.detailed_cost_file).read())
    assert saved["total_cost"] == pytest.approx(result.cost)
    assert saved["total_retry_count"] == 1 and saved["total_retry_cost"] > 0
    assert saved["total_cost_inclusive"] == saved["total_cost"]
    assert len(saved["request_cost_records"]) == 2
    assert [m.purpose for m in result.iteration_metrics] == ["generation", "tool_followup"]


def test_run_ids_are_distinct_version_4_uuids() -> None:
    import uuid

    from doc_processing_toolkit.application.run.results.outcome import new_run_id

    ids = [new_run_id() for _ in range(2_000)]
    assert len(set(ids)) == len(ids)
    for run_id in ids:
        parsed = uuid.UUID(run_id)
        assert (parsed.version, parsed.variant, parsed.hex) == (4, uuid.RFC_4122, run_id)


def test_token_totals_by_model_sum_to_the_results_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A billed, retried stream failure and the request a run finally fails on are in
    ``token_totals_by_model`` as they are in ``input_tokens`` / ``output_tokens``."""
    from doc_processing_toolkit import Agent, ProviderError
    from doc_processing_toolkit.testing import FakeModel, Fault, reply

    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.001")
    model = "claude-sonnet-5-5"

    def summed(totals: dict[str, dict[str, int]]) -> tuple[int, int]:
        return (
            sum(t["input_tokens"] for t in totals.values()),
            sum(t["output_tokens"] for t in totals.values()),
        )

    retried = Agent(
        model,
        client=FakeModel([Fault(kind="disconnect", input_tokens=40), reply("ok", input_tokens=50)]),
        log_to_file=False,
    ).run_sync("go")
    assert retried.retry_count == 1 and retried.retry_input_tokens == 40
    assert set(retried.token_totals_by_model) == {model}
    assert summed(retried.token_totals_by_model) == (
        retried.input_tokens,
        retried.output_tokens,
    )
    assert retried.token_totals_by_model[model]["input_tokens"] == 90

    failing = Agent(
        model,
        client=FakeModel([Fault(kind="disconnect", input_tokens=30)] * 10),
        log_to_file=False,
    )
    with pytest.raises(ProviderError) as caught:
        failing.run_sync("go")
    result = caught.value.partial_result
    assert result.input_tokens > 0
    assert summed(result.token_totals_by_model) == (result.input_tokens, result.output_tokens)

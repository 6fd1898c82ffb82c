"""The re-ask of an invalid structured answer (``output_retries``) on both structured
paths: native (the reply text is the JSON) and Path B (the ``final_result`` tool call,
answered with an error tool result so the history stays legal)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from doc_processing_toolkit import Agent, StructuredOutputError
from doc_processing_toolkit.domain.messages import ToolResultPart
from doc_processing_toolkit.testing import FakeModel, reply, tool_call


class Verdict(BaseModel):
    label: str
    score: int


def test_path_b_re_asks_through_an_error_tool_result() -> None:
    fake = FakeModel(
        [
            tool_call("final_result", {"label": "spam"}, id="c1"),
            tool_call("final_result", {"label": "spam", "score": 3}, id="c2"),
        ],
        provider="fireworks",
    )
    agent = Agent("kimi-k2p6", client=fake, log_to_file=False, output_retries=1)
    result = agent.run_sync("classify", output_schema=Verdict)
    assert result.output == {"label": "spam", "score": 3}
    assert [r["purpose"] for r in result.request_cost_records] == ["generation", "output_retry"]
    (sent_back,) = fake.requests[1].messages[-1].parts
    assert isinstance(sent_back, ToolResultPart) and sent_back.is_error
    assert sent_back.call_id == "c1"
    assert "- score: Field required" in str(sent_back.content)


def test_a_per_run_value_overrides_the_agents() -> None:
    fake = FakeModel([reply('{"label": "x"}'), reply('{"label": "x", "score": 1}')])
    agent = Agent("claude-sonnet-5-5", client=fake, log_to_file=False, output_retries=1)
    with pytest.raises(StructuredOutputError) as info:
        agent.run_sync("classify", output_schema=Verdict, output_retries=0)
    assert len(info.value.attempts) == 1 and len(fake.requests) == 1


def test_a_bad_output_retries_is_refused() -> None:
    with pytest.raises(ValueError, match="output_retries"):
        Agent("claude-sonnet-5-5", output_retries=-1, log_to_file=False)
    with pytest.raises(TypeError, match="output_retries"):
        Agent("claude-sonnet-5-5", client=FakeModel([]), log_to_file=False).run_sync(
            "x",
            output_retries="2",  # type: ignore[arg-type]
        )
    with pytest.raises(ValueError, match="evidence=True needs an output_schema"):
        Agent("claude-sonnet-5-5", client=FakeModel([]), log_to_file=False).run_sync(
            "x", evidence=True
        )
    with pytest.raises(ValueError, match="evidence_threshold"):
        Agent("claude-sonnet-5-5", evidence_threshold=120, log_to_file=False)


def test_output_retries_and_evidence_threshold_go_to_config() -> None:
    agent = Agent("claude-sonnet-5-5", output_retries=2, evidence_threshold=90, log_to_file=False)
    config = agent.to_config()
    assert config["output_retries"] == 2 and config["evidence_threshold"] == 90.0
    assert "output_retries" not in Agent("claude-sonnet-5-5", log_to_file=False).to_config()


def test_a_re_ask_is_announced_and_reported_as_its_own_request() -> None:
    events: list[tuple[str, dict[str, object]]] = []
    fake = FakeModel([reply('{"label": "x"}'), reply('{"label": "x", "score": 1}')])
    agent = Agent(
        "claude-sonnet-5-5",
        client=fake,
        log_to_file=False,
        output_retries=1,
        emit_request_start=True,
        detailed_costs=True,
    )

    async def collect() -> None:
        async for event in agent.stream("classify", output_schema=Verdict):
            if event.event_type in ("request_start", "complete"):
                events.append((event.event_type, dict(event.metadata or {})))

    import anyio

    anyio.run(collect)
    starts = [m["purpose"] for kind, m in events if kind == "request_start"]
    assert starts == ["generation", "output_retry"]
    complete = events[-1][1]
    assert complete["output"] == {"label": "x", "score": 1}
    purposes = [r["purpose"] for r in complete["request_cost_records"]]
    assert purposes == ["generation", "output_retry"]


def test_a_re_ask_needs_an_iteration_left() -> None:
    """At max_iterations the invalid answer raises (never returned unvalidated)."""
    fake = FakeModel([reply('{"label": "x"}'), reply('{"label": "x", "score": 1}')])
    agent = Agent(
        "claude-sonnet-5-5", client=fake, log_to_file=False, output_retries=3, max_iterations=1
    )
    with pytest.raises(StructuredOutputError) as info:
        agent.run_sync("classify", output_schema=Verdict)
    assert len(info.value.attempts) == 1 and len(fake.requests) == 1

"""RunInput / TurnHistory and the Agent's public turn seam (run_turn / stream_turn)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from pydantic import BaseModel

from doc_processing_toolkit import Agent
from doc_processing_toolkit.application.run.run_input import RunInput, TurnHistory
from doc_processing_toolkit.domain.messages import assistant_text, user_text
from doc_processing_toolkit.testing import FakeModel, reply

MODEL = "claude-sonnet-5-5"


class Verdict(BaseModel):
    ok: bool


def test_a_run_input_is_one_frozen_value_and_a_follow_up_keeps_only_the_schema() -> None:
    given = RunInput(
        "Summarise.",
        files=["a.pdf"],
        tool_files=["b.csv"],
        output_schema=Verdict,
        media_resolution_list=["MEDIA_RESOLUTION_LOW"],
        anthropic_container_id="container_1",
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        given.message = "changed"  # type: ignore[misc]
    assert given.follow_up("And clause 5?") == RunInput("And clause 5?", output_schema=Verdict)
    assert given.with_container("container_1") is given
    assert given.with_container("container_2").anthropic_container_id == "container_2"
    assert given.with_container("container_2").files == ["a.pdf"]


def test_the_shape_checks_run_when_the_value_is_checked() -> None:
    with pytest.raises(TypeError, match="anthropic_container_id"):
        RunInput("hi", anthropic_container_id=42).check()  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="media_resolution_list"):
        RunInput("hi", media_resolution_list="LOW").check()  # type: ignore[arg-type]


def test_run_turn_runs_after_the_history_it_is_given_and_returns_the_error_beside() -> None:
    fake = FakeModel([reply("You are Alice.")])
    agent = Agent(MODEL, client=fake, log_to_file=False)
    history = [user_text("I'm Alice."), assistant_text("Noted.", agent.provider)]

    result, error = asyncio.run(agent.run_turn(RunInput("What's my name?"), TurnHistory(history)))

    assert error is None
    assert result.output == "You are Alice."
    sent = fake.requests[0].messages
    assert [m.role for m in sent] == ["user", "assistant", "user"]
    assert history == [user_text("I'm Alice."), assistant_text("Noted.", agent.provider)]


def test_run_turn_reports_a_failed_run_instead_of_raising_it() -> None:
    agent = Agent(MODEL, client=FakeModel([]), log_to_file=False)  # the script is empty

    result, error = asyncio.run(agent.run_turn(RunInput("hi")))

    assert error is not None
    assert result.error


def test_stream_turn_streams_after_the_history_and_hands_the_result_over() -> None:
    agent = Agent(MODEL, client=FakeModel([reply("Still Alice.")]), log_to_file=False)
    seen: list[object] = []

    async def collect() -> list[str]:
        events = agent.stream_turn(
            RunInput("Who am I?"),
            TurnHistory([user_text("I'm Alice.")]),
            on_result=lambda result, error: seen.append((result.output, error)),
        )
        return [event.event_type async for event in events]

    kinds = asyncio.run(collect())

    assert kinds[-1] == "complete"
    assert seen == [("Still Alice.", None)]

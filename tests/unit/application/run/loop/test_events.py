"""A run without hooks builds no event and still pauses and resumes."""

from __future__ import annotations

from typing import Any

import pytest
from waiting import Host, run_steered

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.run.loop import events
from doc_processing_toolkit.testing import FakeModel, reply, tool_call

MODEL = "claude-sonnet-5-5"


def test_a_run_without_hooks_builds_no_event_and_still_pauses_and_resumes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[str] = []
    real = events.AgentStreamEvent

    def counting(kind: Any, *args: Any) -> Any:
        built.append(kind)
        return real(kind, *args)

    monkeypatch.setattr(events, "AgentStreamEvent", counting)
    fake = FakeModel([tool_call("pause_me", {}), reply("done")])
    agent: Agent

    @tool
    def pause_me() -> str:
        """Ask the host to pause the run."""
        handle = agent.run_handle
        assert handle is not None
        handle.pause()
        return "paused"

    agent = Agent(MODEL, tools=[pause_me], client=fake, log_to_file=False)
    sent_while_parked: list[int] = []

    def steer(host: Host) -> None:
        handle = host.wait_for_pause("a pause")
        sent_while_parked.append(len(fake.requests))
        handle.resume()

    result = run_steered(agent, lambda: agent.run_sync("go"), steer)
    assert result.output == "done"
    assert sent_while_parked == [1]  # parked after the tool round, before the next request
    assert built == []

"""The run outcome: the lazy input estimate and the run's one usage callback."""

from __future__ import annotations

from typing import Any

import pytest

from doc_processing_toolkit.application.run.policy import input_estimate
from doc_processing_toolkit.application.run.results import outcome
from doc_processing_toolkit.domain.costs.ledger import Ledger, RetryAccumulator
from doc_processing_toolkit.domain.requests import Usage
from doc_processing_toolkit.testing import FakeModel, reply, tool_call
from tests.unit.application.support import agent_with_add as _agent


def test_a_run_that_succeeds_computes_no_input_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[Any] = []
    real = outcome.local_estimate
    for module in (outcome, input_estimate):  # where the lazy and the eager path look it up
        monkeypatch.setattr(module, "local_estimate", lambda r: counted.append(r) or real(r))
    result = _agent(FakeModel([tool_call("add", {"a": 1, "b": 2}), reply("3")])).run_sync("go")
    assert result.output == "3"
    assert counted == []  # two requests sent, no estimate made: nothing failed


def test_the_estimate_is_the_latest_requests_when_asked() -> None:
    fake = FakeModel([reply("ok")])
    assert _agent(fake).run_sync("y" * 4000).output == "ok"
    request = fake.requests[-1]
    state = outcome.RunOutcome(
        messages=[], new_messages_start=0, ledger=Ledger(), accumulator=RetryAccumulator()
    )
    assert state.input_estimate() == 0  # nothing sent: no estimate
    state.estimate_source = request
    assert state.input_estimate() == input_estimate.local_estimate(request) > 1000


def test_every_request_carries_the_runs_usage_callback_from_construction() -> None:
    fake = FakeModel([tool_call("add", {"a": 1, "b": 2}), reply("3")])
    assert _agent(fake).run_sync("go").output == "3"
    first, second = fake.requests
    assert first.on_usage is not None and second.on_usage is not None
    assert isinstance(first.on_usage, outcome.InFlightUsage)
    assert second.on_usage is first.on_usage  # one per run, not one per request
    state = outcome.RunOutcome(
        messages=[], new_messages_start=0, ledger=Ledger(), accumulator=RetryAccumulator()
    )
    usage = Usage(input_tokens=7, output_tokens=1)
    state.in_flight(usage)
    assert state.in_flight_usage is usage
    state.begin_request(first, 1)
    assert state.in_flight_usage is None  # a new request: nothing of it billed yet

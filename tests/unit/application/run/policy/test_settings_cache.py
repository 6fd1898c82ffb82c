"""AgentRunSettings (issue 17, issue 34): an Agent's runs reuse one RunSettings, derived once
per Agent, while its inputs are unchanged, and get a fresh one as soon as any of them moves."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import FakeModel


class Answer(BaseModel):
    value: int


def test_same_inputs_reuse_and_every_input_change_rebuilds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DPT_ANTHROPIC_STRICT_BUDGET", raising=False)
    monkeypatch.delenv("DPT_ANTHROPIC_BLOCK_BINDING", raising=False)
    agent = Agent("claude-sonnet-5-5", client=FakeModel([]), log_to_file=False)
    cache = agent._run_settings

    first = cache.for_run(system="sys")
    assert cache.for_run(system="sys") is first
    assert first.strict_per_tool_only is False

    other_system = cache.for_run(system="another")
    assert other_system is not first and other_system.system == "another"

    schema = cache.for_run(system="another", output_schema=Answer)
    assert schema.output_schema is Answer

    monkeypatch.setenv("DPT_ANTHROPIC_STRICT_BUDGET", "off")
    budget = cache.for_run(system="another", output_schema=Answer)
    assert budget is not schema and budget.strict_per_tool_only is True

    monkeypatch.setenv("DPT_AGENT_TOOL_REPORTED_COST", "off")
    reported = cache.for_run(system="another", output_schema=Answer)
    assert reported is not budget and reported.tool_reported_cost is False

    other_agent = Agent("claude-sonnet-5-5", "other", client=FakeModel([]), log_to_file=False)
    fresh = other_agent._run_settings.for_run(system="another", output_schema=Answer)
    assert fresh is not reported

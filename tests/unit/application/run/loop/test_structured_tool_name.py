"""A user tool may be named ``final_result``: the structured-output tool never shadows it.

Spec (agent-api.txt, ``tool(func=None, *, name=None, description=None)``): "name —
Optional override for the tool name (defaults to function name)." Nothing reserves a
name, so a tool called ``final_result`` runs like any other, with or without structured
output; on Path B the synthetic structured-output tool takes another name for that run.
"""

from __future__ import annotations

from pydantic import BaseModel

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import FakeModel, reply, tool_call

CALLS: list[str] = []


@tool
def final_result(summary: str) -> str:
    """Record the final summary of the user's task."""
    CALLS.append(summary)
    return f"recorded: {summary}"


class Verdict(BaseModel):
    label: str


def test_a_user_tool_named_final_result_runs_without_structured_output() -> None:
    """tool(name=...): "Optional override for the tool name (defaults to function name)" —
    a tool named final_result is called, not refused with a structured-output message."""
    CALLS.clear()
    fake = FakeModel([tool_call("final_result", {"summary": "done"}), reply("ok")])
    agent = Agent("claude-sonnet-4-5", tools=[final_result], client=fake, log_to_file=False)

    result = agent.run_sync("summarise")

    assert CALLS == ["done"]
    assert result.tools_used == ["final_result"]
    sent_back = fake.requests[1].messages[-1].parts[0]
    assert not sent_back.is_error
    assert "recorded: done" in str(sent_back.content)


def test_the_same_on_a_path_b_model_without_output_schema() -> None:
    """The same tool on a model whose structured output is tool-based (kimi-k2p6), in a run
    that asks for no structured output."""
    CALLS.clear()
    fake = FakeModel(
        [tool_call("final_result", {"summary": "x"}), reply("ok")], provider="fireworks"
    )
    agent = Agent("kimi-k2p6", tools=[final_result], client=fake, log_to_file=False)

    result = agent.run_sync("summarise")

    assert CALLS == ["x"]
    assert result.output == "ok"
    assert [t.name for t in fake.requests[0].tools] == ["final_result"]


def test_path_b_renames_its_synthetic_tool_when_a_user_tool_has_the_name() -> None:
    """With output_schema on a Path B model, the user's final_result runs and the
    structured output arrives through the synthetic tool under a free name."""
    CALLS.clear()
    fake = FakeModel(
        [
            tool_call("final_result", {"summary": "first"}),
            tool_call("final_result_2", {"label": "good"}),
        ],
        provider="fireworks",
    )
    agent = Agent("kimi-k2p6", tools=[final_result], client=fake, log_to_file=False)

    result = agent.run_sync("judge", output_schema=Verdict)

    assert CALLS == ["first"]
    assert result.output == {"label": "good"}
    names = [t.name for t in fake.requests[0].tools]
    assert names == ["final_result", "final_result_2"]
    user_spec = fake.requests[0].tools[0]
    assert "summary" in str(user_spec.parameters)


def test_path_b_keeps_the_documented_name_when_it_is_free() -> None:
    """docs/guide/structured-output.md: "the model is given a synthetic final_result tool"."""
    fake = FakeModel([tool_call("final_result", {"label": "fine"})], provider="fireworks")
    agent = Agent("kimi-k2p6", client=fake, log_to_file=False)

    result = agent.run_sync("judge", output_schema=Verdict)

    assert result.output == {"label": "fine"}
    assert [t.name for t in fake.requests[0].tools] == ["final_result"]

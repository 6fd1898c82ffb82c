"""AgentSession turns: stream(), late injections under both policies, every history mode,
and include_system_prompt."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.hooks import AgentStreamEvent, HookDirective
from doc_processing_toolkit.agent.session import AgentSession
from doc_processing_toolkit.domain.messages import ReasoningPart, ToolResultPart
from doc_processing_toolkit.testing import FakeModel, Fault, Reply, ThinkingBlock
from doc_processing_toolkit.testing.script import reply, tool_call

MODEL = "claude-sonnet-5-5"
LONG = "x" * 2_000


@tool
def fetch(clause: int) -> str:
    """Return a long clause text."""
    return f"clause {clause}: {LONG}"


def _agent(*steps: Any, **kwargs: Any) -> Agent:
    return Agent(MODEL, "Be brief.", tools=[fetch], client=FakeModel(list(steps)), **kwargs)


async def _events(session: AgentSession, message: str) -> list[AgentStreamEvent]:
    return [event async for event in session.stream(message)]


# ---------------------------------------------------------------- stream()
def test_stream_stores_the_turn_and_the_next_turn_sees_it() -> None:
    fake = FakeModel([reply("Hello Alice"), reply("You are Alice")])
    session = Agent(MODEL, client=fake).session()
    events = asyncio.run(_events(session, "I'm Alice"))
    kinds = [e.event_type for e in events]
    assert kinds[-1] == "complete" and "text_delta" in kinds
    assert "".join(e.content for e in events if e.event_type == "text_delta") == "Hello Alice"
    assert [m["role"] for m in session.messages] == ["user", "assistant"]
    assert session.metadata["run_count"] == 1
    asyncio.run(_events(session, "Who am I?"))
    second = fake.requests[1]
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert session.run_boundaries[-1] == {"run": 2, "start": 2, "end": 4}


def test_a_failed_streamed_turn_leaves_the_session_as_it_was() -> None:
    fake = FakeModel([reply("one"), Fault("status", status=400, message="bad")])
    session = Agent(MODEL, client=fake).session()
    session.run_sync("first")
    before = json.dumps(session.messages)
    events = asyncio.run(_events(session, "second"))
    assert [e.event_type for e in events][-2:] == ["error", "complete"]
    assert json.dumps(session.messages) == before
    assert session.metadata["run_count"] == 1
    interrupted = session.interrupted_turn
    assert interrupted is not None and "second" in json.dumps(interrupted)


# ---------------------------------------------------------------- late injections
def _late_hook(event: AgentStreamEvent) -> HookDirective | None:
    if event.event_type == "run_end" and not getattr(_late_hook, "fired", False):
        _late_hook.fired = True  # type: ignore[attr-defined]
        return HookDirective("inject_message", message="also check clause 9")
    return None


@pytest.fixture(autouse=True)
def _rearm() -> None:
    _late_hook.fired = False  # type: ignore[attr-defined]


def test_surface_parks_a_late_injection_on_the_session() -> None:
    fake = FakeModel([reply("done")])
    session = Agent(MODEL, client=fake, hooks=_late_hook).session()
    result = session.run_sync("review")
    assert result.undelivered_injections == ["also check clause 9"]
    assert session.pending_injections == ["also check clause 9"]
    assert len(fake.requests) == 1  # no follow-up turn under "surface"


def test_new_turn_runs_the_late_injection_as_a_follow_up_turn() -> None:
    fake = FakeModel([reply("done"), reply("clause 9 is fine")])
    session = Agent(MODEL, client=fake, hooks=_late_hook).session(
        late_injection_policy="new_turn", max_follow_up_turns=1
    )
    result = session.run_sync("review")
    assert result.output == "clause 9 is fine"
    assert len(fake.requests) == 2
    assert fake.requests[1].messages[-1].text == "also check clause 9"
    assert session.pending_injections == []
    assert session.metadata["run_count"] == 2
    assert [r.output for r in session.last_turn_results][-2:] == ["done", "clause 9 is fine"]


def test_new_turn_streams_turn_complete_then_turn_start() -> None:
    fake = FakeModel([reply("done"), reply("clause 9 is fine")])
    session = Agent(MODEL, client=fake, hooks=_late_hook).session(late_injection_policy="new_turn")
    kinds = [e.event_type for e in asyncio.run(_events(session, "review"))]
    assert "turn_complete" in kinds and "turn_start" in kinds
    assert kinds.index("turn_complete") < kinds.index("turn_start") < len(kinds) - 1
    assert kinds[-1] == "complete"


def test_follow_ups_stop_at_max_follow_up_turns() -> None:
    def always(event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "run_end":
            return HookDirective("inject_message", message=f"more {len(fake.requests)}")
        return None

    fake = FakeModel([reply("a"), reply("b"), reply("c")])
    session = Agent(MODEL, client=fake, hooks=always).session(
        late_injection_policy="new_turn", max_follow_up_turns=1
    )
    session.run_sync("go")
    assert len(fake.requests) == 2  # the first turn and one follow-up
    assert session.pending_injections == ["more 2"]  # what was left is parked


# ---------------------------------------------------------------- history modes
def _tool_turn() -> list[Any]:
    return [
        Reply(
            thinking=(ThinkingBlock("find clause 4", signature="sig=="),),
            tool_calls=tool_call("fetch", {"clause": 4}, id="toolu_01").tool_calls,
        ),
        reply("Clause 4 says pay in 30 days."),
        reply("ok"),
    ]


def _stored(mode: str, **extra: Any) -> tuple[AgentSession, FakeModel]:
    fake = FakeModel(_tool_turn())
    agent = Agent(MODEL, "Be brief.", tools=[fetch], client=fake)
    session = agent.session(session_history_config={"mode": mode, **extra})
    session.run_sync("What does clause 4 say?")
    session.run_sync("Thanks")
    return session, fake


def _second_request_parts(fake: FakeModel) -> list[Any]:
    return [p for m in fake.requests[-1].messages for p in m.parts]


def test_full_keeps_everything() -> None:
    _session, fake = _stored("full")
    parts = _second_request_parts(fake)
    assert any(isinstance(p, ReasoningPart) for p in parts)
    [result] = [p for p in parts if isinstance(p, ToolResultPart)]
    assert LONG in result.content[0].text  # type: ignore[union-attr]


def test_no_reasoning_drops_thinking_but_keeps_the_tool_round() -> None:
    session, fake = _stored("no_reasoning")
    parts = _second_request_parts(fake)
    assert not any(isinstance(p, ReasoningPart) for p in parts)
    assert any(isinstance(p, ToolResultPart) for p in parts)
    assert "thinking" not in json.dumps(session.messages)


def test_no_tool_results_replaces_result_bodies() -> None:
    session, fake = _stored("no_tool_results")
    [result] = [p for p in _second_request_parts(fake) if isinstance(p, ToolResultPart)]
    assert result.content[0].text == "[tool result omitted from history]"  # type: ignore[union-attr]
    assert LONG not in json.dumps(session.messages)


def test_compact_tool_results_cuts_to_the_limit() -> None:
    _session, fake = _stored("compact_tool_results", compact_tool_results_max_chars=50)
    [result] = [p for p in _second_request_parts(fake) if isinstance(p, ToolResultPart)]
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith("clause 4: xxx") and "chars omitted from history" in text
    assert len(text) < 120


def test_messages_only_and_text_summary_keep_only_the_conversation() -> None:
    for mode in ("messages_only", "text_summary"):
        session, _fake = _stored(mode)
        assert [m["role"] for m in session.messages] == ["user", "assistant"] * 2
        dumped = json.dumps(session.messages)
        assert "tool_use" not in dumped and "thinking" not in dumped
        assert "Clause 4 says pay in 30 days." in dumped


def test_include_system_prompt() -> None:
    session, fake = _stored("full", include_system_prompt=True)
    assert fake.requests[-1].system.startswith("Be brief.")
    assert "Be brief." not in json.dumps(session.to_dict())  # never in the envelope


def test_include_system_prompt_false_sends_every_request_without_it() -> None:
    session, fake = _stored("full", include_system_prompt=False)
    assert len(fake.requests) == 3  # the tool round's two requests and the second turn
    assert all(request.system == "" for request in fake.requests)
    assert any(isinstance(p, ToolResultPart) for p in _second_request_parts(fake))
    fake.push(reply("streamed"))
    asyncio.run(_events(session, "And clause 5?"))
    assert fake.requests[-1].system == ""
    # The flag rides the envelope; the Agent itself, outside the session, still sends it.
    other = FakeModel([reply("restored"), reply("plain")])
    agent = Agent(MODEL, "Be brief.", client=other)
    restored = AgentSession.from_dict(session.to_dict(), agent)
    restored.run_sync("Still there?")
    agent.run_sync("Alone")
    assert [r.system.startswith("Be brief.") for r in other.requests] == [False, True]


def test_include_system_prompt_false_at_agent_level_and_overridden() -> None:
    fake = FakeModel([reply("a"), reply("b")])
    agent = Agent(
        MODEL, "Be brief.", client=fake, session_history_config={"include_system_prompt": False}
    )
    agent.session().run_sync("one")
    agent.session(session_history_config={"include_system_prompt": True}).run_sync("two")
    assert [r.system.startswith("Be brief.") for r in fake.requests] == [False, True]

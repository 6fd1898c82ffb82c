"""Human approval across a restart: defer, save, resume (issue 40), over a FakeModel."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from pydantic import BaseModel

from doc_processing_toolkit import Agent, AgentSession, Approval, ApprovalError, StateError, tool
from doc_processing_toolkit.agent.hooks import HookDirective, RequireApproval
from doc_processing_toolkit.domain.approvals import REFUSED_TOOL_TEXT
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import Reply, ToolCall

MODEL = "claude-sonnet-5-5"
RAN: list[tuple[Any, ...]] = []


@tool
def lookup(name: str) -> str:
    """Find an account.

    Args:
        name: The holder.
    """
    RAN.append(("lookup", name))
    return "acct-1"


@tool
def pay(account: str, amount: int) -> str:
    """Pay an account.

    Args:
        account: The account.
        amount: Euros.
    """
    RAN.append(("pay", account, amount))
    return f"paid {amount} to {account}"


def _script() -> list[Reply]:
    return [
        Reply(tool_calls=(ToolCall("lookup", {"name": "bob"}, id="c1"),), input_tokens=11),
        Reply(
            tool_calls=(ToolCall("pay", {"account": "acct-1", "amount": 5}, id="c2"),),
            input_tokens=22,
        ),
        Reply(text="Bob was paid.", input_tokens=33),
    ]


def _agent(fake: FakeModel, hooks: Any = None, tools: list[Any] | None = None) -> Agent:
    return Agent(
        MODEL,
        tools=tools if tools is not None else [lookup, pay],
        client=fake,
        log_to_file=False,
        hooks=RequireApproval({"pay"}) if hooks is None else (hooks or None),
    )


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


def _deferred() -> tuple[FakeModel, AgentSession, str]:
    fake = FakeModel(_script())
    session = _agent(fake).session()
    result = session.run_sync("pay bob 5")
    assert result.status == "awaiting_approval"
    return fake, session, session.to_json()


def _ledger(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(r) for r in records]  # request_index included: the turn's numbering goes on


def test_a_deferred_call_does_not_run_and_the_run_ends_awaiting_approval() -> None:
    fake = FakeModel(_script())
    result = _agent(fake).session().run_sync("pay bob 5")
    assert result.status == "awaiting_approval"
    (pending,) = result.pending_approvals
    assert (pending.call_id, pending.tool_name) == ("c2", "pay")
    assert pending.arguments == {"account": "acct-1", "amount": 5}
    assert pending.reason == "needs a person's approval" and pending.requested_at
    assert RAN == [("lookup", "bob")]  # the earlier round ran, the deferred call did not
    assert len(fake.requests) == 2 and result.cost > 0
    assert result.to_dict()["pending_approvals"][0]["call_id"] == "c2"


def test_default_status_is_completed() -> None:
    result = _agent(FakeModel([Reply(text="hi")])).run_sync("hello")
    assert result.status == "completed" and result.pending_approvals == []


def test_resume_in_a_new_agent_finishes_the_turn_without_resending_a_request() -> None:
    _, _, envelope = _deferred()
    fake_b = FakeModel(_script()[2:])
    session = AgentSession.from_json(envelope, agent=_agent(fake_b))
    assert [p.call_id for p in session.pending_approvals] == ["c2"]
    result = session.resume_sync({"c2": Approval(approved=True)})
    assert result.status == "completed" and result.output == "Bob was paid."
    assert RAN == [("lookup", "bob"), ("pay", "acct-1", 5)]  # the recorded arguments, once
    (request,) = fake_b.requests  # only the step after the deferral
    assert request.purpose == "tool_followup"
    tool_message = request.messages[-1]
    assert tool_message.role == "tool" and "paid 5 to acct-1" in json.dumps(
        [p.content[0].text for p in tool_message.parts]  # type: ignore[union-attr]
    )
    assert session.pending_approvals == [] and session.run_boundaries[-1]["end"] == len(
        session.messages
    )


def test_the_turns_ledger_equals_an_uninterrupted_runs() -> None:
    fake_a = FakeModel(_script())
    first = _agent(fake_a).session()
    waiting = first.run_sync("pay bob 5")
    resumed = AgentSession.from_json(first.to_json(), agent=_agent(FakeModel(_script()[2:])))
    done = resumed.resume_sync({"c2": Approval(True)})
    plain = _agent(FakeModel(_script()), hooks=False).session().run_sync("pay bob 5")
    interrupted = _ledger(waiting.request_cost_records + done.request_cost_records)
    assert interrupted == _ledger(plain.request_cost_records)
    assert resumed.metadata["total_cost"] == pytest.approx(plain.cost)


def test_refusal_reaches_the_model_as_the_tool_result() -> None:
    _, session, _ = _deferred()
    fake = session.agent.model_client()
    assert isinstance(fake, FakeModel)
    result = session.resume_sync({"c2": Approval(approved=False, message="over budget")})
    assert result.output == "Bob was paid."  # the scripted answer after the refusal
    assert RAN == [("lookup", "bob")]
    part = fake.requests[-1].messages[-1].parts[0]
    assert part.is_error  # type: ignore[union-attr]
    text = part.content[0].text  # type: ignore[union-attr]
    assert text.startswith(REFUSED_TOOL_TEXT) and "over budget" in text


def test_resuming_twice_is_an_error_and_changes_nothing() -> None:
    _, session, _ = _deferred()
    session.resume_sync({"c2": Approval(True)})
    before = (copy.deepcopy(session.messages), copy.deepcopy(session.metadata))
    with pytest.raises(ApprovalError) as caught:
        session.resume_sync({"c2": Approval(True)})
    assert caught.value.code == "nothing_pending"
    assert (session.messages, session.metadata) == before


@pytest.mark.parametrize(
    ("approvals", "code"),
    [
        ({"other-session-call": Approval(True), "c2": Approval(True)}, "unknown_call"),
        ({}, "missing_call"),
    ],
)
def test_unknown_or_missing_call_ids_are_errors_and_change_nothing(
    approvals: dict[str, Approval], code: str
) -> None:
    _, session, _ = _deferred()
    before = (copy.deepcopy(session.messages), copy.deepcopy(session.metadata))
    with pytest.raises(ApprovalError) as caught:
        session.resume_sync(approvals)
    assert caught.value.code == code
    assert (session.messages, session.metadata) == before
    assert RAN == [("lookup", "bob")]


def test_a_tampered_envelope_is_refused() -> None:
    _, _, envelope = _deferred()
    data = json.loads(envelope)
    data["metadata"]["awaiting_approval"]["pending"][0]["arguments"]["amount"] = 5000
    session = AgentSession.from_dict(data, _agent(FakeModel(_script()[2:])))
    with pytest.raises(ApprovalError) as caught:
        session.resume_sync({"c2": Approval(True)})
    assert caught.value.code == "tampered"
    assert RAN == [("lookup", "bob")]


def test_truncating_past_the_waiting_turn_makes_resume_an_error() -> None:
    _, session, _ = _deferred()
    session.truncate_to(0)
    with pytest.raises(ApprovalError) as caught:
        session.resume_sync({"c2": Approval(True)})
    assert caught.value.code == "truncated"


def test_a_changed_tool_surface_is_an_error_and_nothing_runs() -> None:
    _, _, envelope = _deferred()
    fake = FakeModel(_script()[2:])
    session = AgentSession.from_json(envelope, agent=_agent(fake, tools=[lookup]))
    before = copy.deepcopy(session.metadata)
    with pytest.raises(ApprovalError) as caught:
        session.resume_sync({"c2": Approval(True)})
    assert caught.value.code == "tool_missing"
    assert fake.requests == [] and RAN == [("lookup", "bob")]
    assert session.metadata == before and session.pending_approvals


def test_resuming_on_another_model_is_an_error() -> None:
    _, _, envelope = _deferred()
    other = Agent("claude-haiku-5-5", tools=[lookup, pay], client=FakeModel([]), log_to_file=False)
    session = AgentSession.from_json(envelope, agent=other)
    with pytest.raises(ApprovalError) as caught:
        session.resume_sync({"c2": Approval(True)})
    assert caught.value.code == "model_changed"


def test_a_new_run_while_a_turn_waits_is_refused() -> None:
    _, session, _ = _deferred()
    with pytest.raises(StateError, match="awaiting approval"):
        session.run_sync("something else")


def test_agent_resume_takes_an_envelope() -> None:
    _, _, envelope = _deferred()
    agent = _agent(FakeModel(_script()[2:]))
    done = asyncio.run(agent.resume(json.loads(envelope), {"c2": Approval(True)}))
    assert done.status == "completed" and RAN[-1] == ("pay", "acct-1", 5)


def test_a_round_with_a_deferred_and_a_plain_call_keeps_call_order() -> None:
    script = [
        Reply(
            tool_calls=(
                ToolCall("pay", {"account": "x", "amount": 1}, id="p1"),
                ToolCall("lookup", {"name": "ann"}, id="l1"),
            )
        ),
        Reply(text="ok"),
    ]
    fake = FakeModel(script)
    session = _agent(fake).session()
    assert session.run_sync("go").status == "awaiting_approval"
    assert RAN == [("lookup", "ann")]
    session.resume_sync({"p1": Approval(True)})
    results = fake.requests[-1].messages[-1].parts
    assert [p.call_id for p in results] == ["p1", "l1"]  # type: ignore[union-attr]


def test_defer_outside_before_tool_call_is_ignored() -> None:
    def hook(event: Any) -> HookDirective | None:
        return HookDirective("defer") if event.event_type == "tool_call_result" else None

    result = _agent(FakeModel(_script()), hooks=hook).run_sync("pay bob 5")
    assert result.status == "completed" and len(RAN) == 2


@pytest.mark.anyio
async def test_stream_ends_with_a_complete_that_says_awaiting_approval() -> None:
    session = _agent(FakeModel(_script())).session()
    events = [e async for e in session.stream("pay bob 5")]
    complete = events[-1]
    assert complete.event_type == "complete"
    assert complete.metadata is not None
    assert complete.metadata["status"] == "awaiting_approval"
    assert [p["call_id"] for p in complete.metadata["pending_approvals"]] == ["c2"]
    assert [p.call_id for p in session.pending_approvals] == ["c2"]
    session.agent = _agent(FakeModel(_script()[2:]))
    done = await session.resume({"c2": Approval(True)})
    assert done.output == "Bob was paid."


def test_the_approve_payments_example_runs_offline_in_two_processes() -> None:
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).parents[4] / "examples" / "approve_payments.py"
    done = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "A: awaiting_approval" in done.stdout
    assert "B: completed - Paid: 1,250 EUR" in done.stdout and "['pay']" in done.stdout


def test_agent_resume_takes_a_plain_runs_result() -> None:
    fake = FakeModel(_script())
    agent = _agent(fake)
    waiting = agent.run_sync("pay bob 5")
    assert waiting.status == "awaiting_approval"
    done = asyncio.run(agent.resume(waiting, {"c2": Approval(True)}))
    assert done.output == "Bob was paid." and RAN[-1] == ("pay", "acct-1", 5)
    assert len(fake.requests) == 3


def test_a_truncated_waiting_turn_no_longer_blocks_new_turns() -> None:
    fake, session, _ = _deferred()
    session.truncate_to(0)
    fake.script[:] = [Reply(text="fresh start")]
    result = session.run_sync("hello again")
    assert result.output == "fresh start" and session.pending_approvals == []


class Receipt(BaseModel):
    paid: bool
    amount: int


RECEIPT = Reply(text='{"paid": true, "amount": 5}', input_tokens=33)


def test_a_structured_turn_resumes_with_its_schema_in_another_process() -> None:
    session = _agent(FakeModel(_script()[:2])).session()
    waiting = session.run_sync("pay bob 5", output_schema=Receipt)
    assert waiting.status == "awaiting_approval"
    envelope = session.to_json()
    assert json.loads(envelope)["metadata"]["awaiting_approval"]["output_schema"] == (
        f"{__name__}:Receipt"
    )
    fake_b = FakeModel([RECEIPT])
    restored = AgentSession.from_json(envelope, agent=_agent(fake_b))
    result = restored.resume_sync({"c2": Approval(approved=True)})
    assert result.output == {"paid": True, "amount": 5}  # validated, not the raw text
    assert fake_b.requests[0].output_schema is not None


def test_a_schema_defined_in_a_function_resumes_only_where_it_ran() -> None:
    class Local(BaseModel):
        paid: bool
        amount: int

    session = _agent(FakeModel([*_script()[:2], RECEIPT])).session()
    session.run_sync("pay bob 5", output_schema=Local)
    envelope = session.to_json()
    elsewhere = AgentSession.from_json(envelope, agent=_agent(FakeModel([RECEIPT])))
    with pytest.raises(ApprovalError, match="inside a function") as caught:
        elsewhere.resume_sync({"c2": Approval(approved=True)})
    assert caught.value.code == "schema_missing"
    assert json.loads(elsewhere.to_json())["messages"] == json.loads(envelope)["messages"]
    assert [p.call_id for p in elsewhere.pending_approvals] == ["c2"]
    assert RAN == [("lookup", "bob")]  # nothing ran
    result = session.resume_sync({"c2": Approval(approved=True)})
    assert result.output == {"paid": True, "amount": 5}

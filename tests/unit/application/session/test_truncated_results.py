"""Truncated tool results live for an AgentSession's lifetime.

Spec (tools.txt, "Reading past the cut"): "Only truncated results are kept, in full and in
memory: for the run, or for an AgentSession's lifetime, so a later turn can read on from an
earlier turn's result. [...] They are never part of an exported session: in a restored
session a read of an old result answers that it is no longer available (its id is never
reused for a newer one). session.clear() and session.close() release them, and two
sessions running turns on one Agent at the same time keep their own." and "The ids in the
marker are the provider's tool-call ids, made unique with a -2, -3… suffix where a provider
reuses one across turns".
"""

from __future__ import annotations

from doc_processing_toolkit import Agent, AgentSession, tool
from doc_processing_toolkit.domain.messages import TextPart, ToolResultPart
from doc_processing_toolkit.testing import FakeModel, reply, tool_call

BIG = "".join(f"{i:05d}\n" for i in range(2_000))  # 12,000 characters, every slice unique
CAP = 1_000


@tool
def fetch_report() -> str:
    """Fetch the full report."""
    return BIG


def _fed_back(fake: FakeModel, request: int) -> str:
    part = fake.requests[request].messages[-1].parts[0]
    assert isinstance(part, ToolResultPart)
    return "".join(p.text for p in part.content if isinstance(p, TextPart))


def _read(call_id: str, offset: int) -> object:
    return tool_call("read_truncated_result", {"tool_call_id": call_id, "offset": offset})


def _agent(fake: FakeModel) -> Agent:
    return Agent(
        "claude-sonnet-4-5",
        tools=[fetch_report],
        client=fake,
        max_tool_result_chars=CAP,
        truncated_result_read_chars=5_000,
        log_to_file=False,
    )


def test_a_later_turn_reads_on_from_an_earlier_turns_result() -> None:
    """tools.txt: "for an AgentSession's lifetime, so a later turn can read on from an
    earlier turn's result"."""
    fake = FakeModel(
        [
            tool_call("fetch_report", {}, id="toolu_1"),
            reply("Got the start."),
            _read("toolu_1", 1_001),
            reply("Read on."),
        ]
    )
    session = _agent(fake).session()
    session.run_sync("Fetch the report.")
    result = session.run_sync("Read the next part.")

    assert result.output == "Read on."
    shown = _fed_back(fake, 3)
    assert shown.startswith(BIG[1_001 : 1_001 + CAP][:50]), shown[:200]
    assert "no longer available" not in shown and "not truncated" not in shown


def test_an_id_reused_across_turns_gets_a_suffix() -> None:
    """tools.txt: "made unique with a -2, -3… suffix where a provider reuses one across
    turns"."""
    fake = FakeModel(
        [
            tool_call("fetch_report", {}, id="call_1"),
            reply("one"),
            tool_call("fetch_report", {}, id="call_1"),
            reply("two"),
            tool_call("fetch_report", {}, id="call_1"),
            reply("three"),
        ]
    )
    session = _agent(fake).session()
    for text in ("a", "b", "c"):
        session.run_sync(text)
    assert 'tool_call_id="call_1", offset=' in _fed_back(fake, 1)
    assert 'tool_call_id="call_1-2", offset=' in _fed_back(fake, 3)
    assert 'tool_call_id="call_1-3", offset=' in _fed_back(fake, 5)


def test_clear_releases_the_kept_results() -> None:
    """tools.txt: "session.clear() and session.close() release them"."""
    fake = FakeModel(
        [
            tool_call("fetch_report", {}, id="toolu_9"),
            reply("ok"),
            _read("toolu_9", 1_001),
            reply("gone"),
        ]
    )
    session = _agent(fake).session()
    session.run_sync("Fetch.")
    session.clear()
    session.run_sync("Read on.")
    assert "no longer available" in _fed_back(fake, 3)


def test_two_sessions_keep_their_own() -> None:
    """tools.txt: "two sessions running turns on one Agent [...] keep their own"."""
    fake = FakeModel(
        [
            tool_call("fetch_report", {}, id="toolu_A"),
            reply("first session"),
            _read("toolu_A", 1_001),
            reply("second session"),
        ]
    )
    agent = _agent(fake)
    agent.session().run_sync("Fetch.")
    agent.session().run_sync("Read on.")
    assert "not truncated" in _fed_back(fake, 3)


def test_a_restored_session_answers_no_longer_available_and_never_reuses_the_id() -> None:
    """tools.txt: "in a restored session a read of an old result answers that it is no
    longer available (its id is never reused for a newer one)"."""
    fake = FakeModel(
        [
            tool_call("fetch_report", {}, id="toolu_R"),
            reply("saved"),
            _read("toolu_R", 1_001),
            tool_call("fetch_report", {}, id="toolu_R"),
            reply("done"),
        ]
    )
    agent = _agent(fake)
    session = agent.session()
    session.run_sync("Fetch.")
    restored = AgentSession.from_dict(session.to_dict(), agent)
    restored.run_sync("Read on, then fetch again.")
    assert "no longer available" in _fed_back(fake, 3)
    assert 'tool_call_id="toolu_R-2", offset=' in _fed_back(fake, 4)

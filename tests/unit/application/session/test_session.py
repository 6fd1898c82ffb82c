"""AgentSession: turns, the envelope, restore on another provider, truncation, stores."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, AgentSession, ProviderError, StateError, tool
from doc_processing_toolkit.agent.media_policy import (
    DirectoryMediaStore,
    as_media_store,
    classify_part,
    is_marker,
    media_parts,
    resolve_media_policy,
)
from doc_processing_toolkit.agent.session import (
    MalformedEnvelopeError,
    SessionCompatibilityError,
    SqliteSessionStore,
    compute_prefix_fingerprint,
    resolve_session_history_config,
)
from doc_processing_toolkit.domain.messages import ToolCallPart
from doc_processing_toolkit.testing import FakeModel, Fault, Reply, ThinkingBlock, reply, tool_call

SECRET = "CONFIDENTIAL-SYSTEM-PROMPT"


@tool
def lookup(clause: int) -> str:
    """Return the text of a clause."""
    return f"clause {clause} says pay in 30 days"


def _agent(model: str, *steps: Any, **kwargs: Any) -> Agent:
    return Agent(
        model, instructions=SECRET, tools=[lookup], client=FakeModel(list(steps)), **kwargs
    )


def _two_turns(model: str = "claude-sonnet-4-5") -> AgentSession:
    agent = _agent(
        model,
        reply("Hi Alice"),
        Reply(
            thinking=(ThinkingBlock("look it up", signature="sig=="),),
            tool_calls=tool_call("lookup", {"clause": 4}, id="toolu_01abc").tool_calls,
        ),
        reply("Clause 4: pay in 30 days, Alice"),
    )
    session = agent.session()
    session.run_sync("Hello, I'm Alice")
    session.run_sync("What does clause 4 say?")
    return session


def test_two_turns_remembered_and_totals() -> None:
    session = _two_turns()
    fake = session.agent.settings.client
    assert "Alice" in json.dumps([m.parts for m in fake.requests[-1].messages], default=str)
    first, second = session.run_boundaries
    assert first == {"run": 1, "start": 0, "end": 2}
    assert session.messages[second["start"] : second["end"]]
    assert session.messages[-1]["content"][-1]["text"].startswith("Clause 4")
    meta = session.metadata
    assert (
        meta["run_count"] == 2
        and meta["total_tokens"] == meta["total_input_tokens"] + meta["total_output_tokens"]
    )
    assert meta["total_cost_inclusive"] == meta["total_cost"] > 0
    for key in ("created_at", "compaction_count", "compaction_archives", "total_retry_count"):
        assert key in meta
    assert [r["run"] for r in meta["served_models"]] == [1, 2]
    assert (
        session.get_history() == session.messages and session.get_history() is not session.messages
    )


def test_envelope_v3_has_no_system_prompt_and_round_trips(tmp_path: Path) -> None:
    session = _two_turns()
    path = tmp_path / "deep" / "s.json"
    text = session.to_json(path=path)
    assert path.read_text(encoding="utf-8") == text and SECRET not in text
    env = json.loads(text)
    assert env["schema_version"] == 3 and env["provider"] == "anthropic"
    assert env["prefix_fingerprint"] == compute_prefix_fingerprint(session.agent)
    assert env["sdk"]["name"] == "anthropic" and env["media_policy"] == "inline"
    env["messages"].append({"mutated": True})
    assert {"mutated": True} not in session.messages
    again = AgentSession.from_json(path, agent=_agent("claude-sonnet-4-5", reply("ok")))
    assert again.messages == session.messages and again.restored_from_schema_version == 3
    assert again.run_boundaries == session.run_boundaries and not again.prefix_changed_on_resume
    moved = AgentSession.from_dict(
        session.to_dict(), Agent("claude-sonnet-4-5", instructions="other", client=FakeModel([]))
    )
    assert moved.prefix_changed_on_resume
    assert set(moved.prefix_change_report["changed"]) == {"system", "tools"}  # type: ignore[index]


def test_fresh_process_restores_and_continues(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    _two_turns().to_json(path=path)
    script = textwrap.dedent(f"""
        from doc_processing_toolkit import Agent, AgentSession
        from doc_processing_toolkit.testing import FakeModel, reply
        fake = FakeModel([reply("Your name is Alice")])
        s = AgentSession.from_json({str(path)!r}, agent=Agent("claude-sonnet-4-5", client=fake))
        print(s.run_sync("What's my name?").output, len(fake.requests[0].messages))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Your", "name", "is", "Alice", "7"]


def test_failed_turn_leaves_session_as_it_was() -> None:
    agent = _agent("claude-sonnet-4-5", reply("one"), Fault(status=400, message="bad"), reply("2"))
    session = agent.session()
    session.run_sync("first")
    before = (session.get_history(), session.run_boundaries, session.metadata["run_count"])
    with pytest.raises(Exception, match="bad"):
        session.run_sync("second")
    assert (session.get_history(), session.run_boundaries, session.metadata["run_count"]) == before
    interrupted = session.interrupted_turn
    assert interrupted is not None and interrupted["message"] == "second"
    assert interrupted["run"] == 2
    assert session.to_dict()["metadata"]["interrupted_turn"]["message"] == "second"
    session.run_sync(interrupted["message"])
    assert session.interrupted_turn is None and session.metadata["run_count"] == 2


def test_malformed_envelope_names_the_key() -> None:
    env = _two_turns().to_dict()
    agent = _agent("claude-sonnet-4-5")
    for key, value, named in (
        ("messages", "nope", "messages"),
        ("metadata", [], "metadata"),
        ("session_id", 3, "session_id"),
        ("schema_version", "x", "schema_version"),
    ):
        broken = {**env, key: value}
        with pytest.raises(MalformedEnvelopeError, match=named):
            AgentSession.from_dict(broken, agent)
    with pytest.raises(ValueError, match="object"):
        AgentSession.from_json("[1]", agent=agent)


def test_older_and_newer_envelopes_load(caplog: pytest.LogCaptureFixture) -> None:
    env = _two_turns().to_dict()
    v1 = {"session_id": "old", "messages": env["messages"], "metadata": {}}
    restored = AgentSession.from_dict(v1, _agent("claude-sonnet-4-5"))
    assert restored.restored_from_schema_version == 1 and restored.messages == env["messages"]
    newer = {**env, "schema_version": 9, "future_key": 1}
    assert AgentSession.from_dict(newer, _agent("claude-sonnet-4-5")).messages == env["messages"]


@pytest.mark.parametrize(("model", "provider"), [("gpt-5", "openai"), ("gemini-2.5-pro", "google")])
def test_anthropic_thinking_and_tool_round_continue_elsewhere(model: str, provider: str) -> None:
    session = _two_turns()
    target = _agent(model, reply("continuing"))
    restored = AgentSession.from_dict(session.to_dict(), target)
    assert restored.converted_from == "anthropic"
    artefacts = {e.get("artefact") for e in restored.conversion_report if e["kind"] == "dropped"}
    assert "thinking" in artefacts
    assert any(e["kind"] == "rekeyed" for e in restored.conversion_report) or provider == "google"
    restored.run_sync("And clause 5?")
    fake = target.settings.client
    sent = fake.requests[-1].messages
    calls = [p for m in sent for p in m.parts if isinstance(p, ToolCallPart)]
    assert [c.name for c in calls] == ["lookup"]
    assert not any(p.kind == "reasoning" for m in sent for p in m.parts)


def test_rebind_and_refusal() -> None:
    session = _two_turns()
    session.rebind(_agent("gpt-5", reply("ok")))
    assert session.converted_from == "anthropic" and session.agent.provider == "openai"
    assert session.metadata["served_models"][-1]["provider"] == "openai"
    open_round = {
        "session_id": "s",
        "schema_version": 3,
        "provider": "anthropic",
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}],
            },
        ],
        "metadata": {},
    }
    with pytest.raises(SessionCompatibilityError, match=r"'s'.*openai"):
        AgentSession.from_dict(open_round, _agent("gpt-5"))


def test_plain_text_crosses_even_when_conversion_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = _agent("claude-sonnet-4-5", reply("a"))
    session = agent.session()
    session.run_sync("hi")
    monkeypatch.setenv("DPT_SESSION_CROSS_PROVIDER_CONVERSION", "off")
    assert AgentSession.from_dict(session.to_dict(), _agent("gpt-5")).messages
    with pytest.raises(SessionCompatibilityError, match="off"):
        AgentSession.from_dict(_two_turns().to_dict(), _agent("gpt-5"))


def test_truncation_is_a_legal_prefix_cut() -> None:
    session = _two_turns()
    signed = json.dumps(session.messages[3])
    assert session.truncate_to(4) == 3  # would sever the tool round: moved back
    assert session.run_boundaries == [{"run": 1, "start": 0, "end": 2}]
    assert session.metadata["run_count"] == 2
    full = _two_turns()
    assert full.truncate_to(4, drop_orphans=False) == 4
    assert json.dumps(full.messages[3]) == signed
    again = _two_turns()
    assert again.truncate_to_turn(1) == 2 and again.truncate_to_turn(1) == 2
    with pytest.raises(ValueError, match="turn_index"):
        again.truncate_to_turn(5)
    with pytest.raises(ValueError):
        again.truncate_to(99)
    again.clear()
    assert again.messages == [] and again.metadata["boundaries_reset_at_run"] == 2
    again.close()
    with pytest.raises(RuntimeError):
        again.run_sync("x")


def test_history_modes_and_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOC_TOOLKIT_SESSION_HISTORY_MODE", "no_reasoning")
    assert resolve_session_history_config()["mode"] == "no_reasoning"
    assert resolve_session_history_config(None, {"mode": "full"})["mode"] == "full"
    assert (
        resolve_session_history_config({"mode": "messages_only"}, {"mode": "full"})["mode"]
        == "messages_only"
    )
    monkeypatch.delenv("DOC_TOOLKIT_SESSION_HISTORY_MODE")
    with pytest.raises(ValueError, match="mode"):
        resolve_session_history_config({"mode": "bogus"})
    agent = _agent("claude-sonnet-4-5", tool_call("lookup", {"clause": 1}), reply("done"))
    session = agent.session(session_history_config={"mode": "messages_only"})
    session.run_sync("q")
    assert [m["role"] for m in session.messages] == ["user", "assistant"]
    assert "tool_use" not in json.dumps(session.messages)


def test_media_policies_and_directory_store(tmp_path: Path) -> None:
    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
        "AAAABJRU5ErkJggg=="
    )
    part = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}
    agent = _agent("claude-sonnet-4-5", reply("ok"))
    session = agent.session()
    session.messages = [
        {"role": "user", "content": [part, {"type": "text", "text": "see"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    ]
    assert session.persistence_report["media_count"] == 1
    assert (
        classify_part(part) is not None
        and next(iter(media_parts(session.messages)))["kind"] == "base64"
    )
    store = DirectoryMediaStore(tmp_path / "media")
    env = session.to_dict(media_store=store)
    assert env["media_policy"] == "externalize"
    marker = env["messages"][0]["content"][0]["source"]["data"]
    assert is_marker(marker) and png not in json.dumps(env)
    back = AgentSession.from_dict(env, agent, media_store=str(tmp_path / "media"))
    assert back.messages == session.messages
    lost = AgentSession.from_dict(env, agent, media_store=tmp_path / "empty")
    assert lost.media_report[-1]["reason"] == "missing_blob"
    stripped = session.to_dict(media="strip")
    assert png not in json.dumps(stripped) and stripped["media_report"][0]["reason"] == "stripped"
    for bad in ("../x.png", "/etc/passwd", "a/b.png"):
        with pytest.raises(ValueError):
            store.get(bad)
    with pytest.raises(ValueError):
        resolve_media_policy("externalize", None)
    with pytest.raises(TypeError):
        as_media_store(3)


def test_sqlite_store_per_turn_export_and_resume(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SqliteSessionStore(db)
    agent = _agent("claude-sonnet-4-5", reply("one"), Fault(status=400), reply("two"))
    session = agent.session(session_id="contract", store=store)
    session.run_sync("first")
    with pytest.raises(ProviderError):
        session.run_sync("fails")
    session.run_sync("second")
    exported = store.export("contract")
    live = session.to_dict()
    for env in (exported, live):
        env.pop("saved_at")
    assert exported == live
    session.truncate_to(2)
    assert store.export("contract")["messages"] == session.messages
    resumed = _agent("claude-sonnet-4-5", reply("three")).session(
        session_id="contract", store=SqliteSessionStore(db)
    )
    assert resumed.messages == session.messages
    resumed.run_sync("third")
    assert len(store.export("contract")["messages"]) == 4


_KILL_SAVE = """
import sys
from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import FakeModel, reply
agent = Agent("claude-sonnet-4-5", client=FakeModel([reply("x" * 2000)] * 10_000))
s = agent.session(session_id="k")
{setup}
print("ready", flush=True)
n = 0
while True:
    n += 1
    s.run_sync("turn %d " % n + "y" * 4000)
    {save}
    if n == 1:
        print("saved", flush=True)
"""


@pytest.mark.parametrize("kind", ["json", "sqlite"])
def test_kill_9_mid_save_never_leaves_an_unreadable_checkpoint(tmp_path: Path, kind: str) -> None:
    path = tmp_path / ("s.json" if kind == "json" else "s.db")
    setup = (
        ""
        if kind == "json"
        else f"from doc_processing_toolkit.agent.session import SqliteSessionStore\n"
        f"s = agent.session(session_id='k', store=SqliteSessionStore({str(path)!r}))"
    )
    save = f"s.to_json(path={str(path)!r})" if kind == "json" else "pass"
    script = _KILL_SAVE.format(setup=setup, save=save)
    for _attempt in range(3):
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        # Once one checkpoint exists, kill at whatever point the next saves have reached.
        assert proc.stdout.readline().strip() == b"saved"
        proc.stdout.close()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        agent = Agent("claude-sonnet-4-5", client=FakeModel([]))
        if kind == "json":
            restored = AgentSession.from_json(path, agent=agent)
        else:
            envelope = SqliteSessionStore(path).export("k")
            restored = AgentSession.from_dict(envelope, agent)
        assert len(restored.messages) == 2 * len(restored.run_boundaries)
        assert len(restored.messages) % 2 == 0


def test_with_block_closes_the_session_and_keeps_its_history() -> None:
    agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("one")]), log_to_file=False)
    with agent.session() as session:
        assert session.run_sync("first").output == "one"
    with pytest.raises(StateError, match="is closed"):
        session.run_sync("again")
    assert len(session.messages) == 2  # the closed session still holds its turn
    assert "closed=True" in repr(session)


@pytest.mark.anyio
async def test_async_with_block_closes_the_session() -> None:
    agent = Agent("claude-sonnet-5-5", client=FakeModel([reply("one")]), log_to_file=False)
    async with agent.session() as session:
        assert (await session.run("first")).output == "one"
    with pytest.raises(StateError, match="is closed"):
        await session.run("again")


def test_preserve_media_false_stores_a_placeholder_and_never_replays_the_image() -> None:
    import base64

    from doc_processing_toolkit.domain.messages import MediaPart

    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
        "AAAABJRU5ErkJggg=="
    )

    fake = FakeModel([reply("a red dot"), reply("still a dot")])
    agent = Agent("claude-sonnet-5-5", client=fake, log_to_file=False)
    session = agent.session(session_history_config={"preserve_media": False})
    session.run_sync("what is this?", files=[base64.b64decode(png)])
    assert any(isinstance(p, MediaPart) for p in fake.requests[0].messages[-1].parts)
    stored = json.dumps(session.messages)
    assert png not in stored and "removed from history" in stored
    (entry,) = session.media_report
    assert (entry["reason"], entry["source"]) == ("stripped", "preserve_media")
    session.run_sync("and now?")
    replayed = fake.requests[1].messages
    assert not any(isinstance(p, MediaPart) for m in replayed for p in m.parts)
    assert [m.text for m in replayed][-1] == "and now?"


def test_copy_tree_is_a_deep_copy_of_json_shaped_data() -> None:
    from collections import OrderedDict

    from doc_processing_toolkit.application.session.native import copy_tree

    source: dict[str, Any] = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "n": 1,
        "cost": 0.5,
        "flag": True,
        "none": None,
        "pair": (1, [2]),
        "ordered": OrderedDict(a=[1]),
    }
    copied = copy_tree(source)
    assert copied == source and copied is not source
    copied["messages"][0]["content"][0]["text"] = "changed"
    copied["pair"][1].append(3)
    copied["ordered"]["a"].append(2)
    assert source["messages"][0]["content"][0]["text"] == "hi"
    assert source["pair"] == (1, [2]) and source["ordered"] == OrderedDict(a=[1])
    assert type(copied["pair"]) is tuple and type(copied["ordered"]) is OrderedDict

"""AgentSession is composed, not inherited, and uses only the Agent's public surface."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

from doc_processing_toolkit import Agent
from doc_processing_toolkit.agent.session import AgentSession
from doc_processing_toolkit.testing import FakeModel, reply

MODEL = "claude-sonnet-5-5"
ROOM = Path(__file__).resolve().parents[4] / "doc_processing_toolkit" / "application" / "session"


def _trees() -> dict[str, ast.Module]:
    return {p.name: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(ROOM.glob("*.py"))}


def test_agent_session_is_one_class_with_no_base_of_its_own() -> None:
    assert AgentSession.__mro__ == (AgentSession, object)


def test_the_session_room_reaches_no_private_member_of_the_agent() -> None:
    found = [
        f"{name}:{node.lineno} agent.{node.attr}"
        for name, tree in _trees().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and isinstance(node.value, ast.Name | ast.Attribute)
        and (node.value.id if isinstance(node.value, ast.Name) else node.value.attr)
        in ("agent", "new_agent")
    ]
    assert found == []


def test_the_session_room_does_not_import_the_agent_module() -> None:
    imported = [
        f"{name}: {node.module}"
        for name, tree in _trees().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module in ("doc_processing_toolkit.application.agent",)
    ]
    assert imported == []


def test_no_module_of_the_session_room_is_over_600_lines() -> None:
    long = {p.name: n for p in ROOM.glob("*.py") if (n := len(p.read_text().splitlines())) > 600}
    assert long == {}


def test_a_session_runs_on_any_object_with_the_public_turn_seam() -> None:
    """A wrapper around an Agent that forwards only its public members is enough."""

    class Forwarding:
        def __init__(self, agent: Agent) -> None:
            self._agent = agent

        def __getattr__(self, name: str) -> object:
            if name.startswith("_"):
                raise AttributeError(name)  # the session may not reach these
            return getattr(self._agent, name)

    agent = Agent(MODEL, client=FakeModel([reply("Noted."), reply("Alice.")]), log_to_file=False)
    session = AgentSession(Forwarding(agent))  # type: ignore[arg-type]

    session.run_sync("I'm Alice.")
    result = asyncio.run(session.run("What's my name?"))

    assert result.output == "Alice."
    assert len(session.messages) == 4
    assert session.metadata["run_count"] == 2
    restored = AgentSession.from_dict(session.to_dict(), Forwarding(agent))
    assert restored.get_history() == session.get_history()

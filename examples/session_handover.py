"""Offline: a two-turn session on Anthropic, checkpointed, then continued on OpenAI.

Run with ``python examples/session_handover.py``; FakeModel stands in for both providers.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from doc_processing_toolkit import Agent, AgentSession, tool
from doc_processing_toolkit.agent.session import SqliteSessionStore
from doc_processing_toolkit.testing import FakeModel, reply, tool_call


@tool
def clause(number: int) -> str:
    """Return a contract clause."""
    return f"Clause {number}: payment within 30 days."


def main() -> None:
    workdir = Path(tempfile.mkdtemp())
    claude = Agent(
        "claude-sonnet-5-5",
        instructions="You review contracts.",
        tools=[clause],
        client=FakeModel(
            [
                reply("Hello Alice."),
                tool_call("clause", {"number": 4}),
                reply("Clause 4 asks for payment within 30 days."),
            ]
        ),
        log_to_file=False,
    )
    store = SqliteSessionStore(workdir / "sessions.db")
    session = claude.session(session_id="contract-review", store=store)
    session.run_sync("Hi, I'm Alice.")
    session.run_sync("What does clause 4 say?")
    checkpoint = workdir / "contract-review.json"
    session.to_json(path=checkpoint)

    gpt = Agent(
        "gpt-5",
        instructions="You review contracts.",
        tools=[clause],
        client=FakeModel([reply("Clause 5 is about termination, Alice.")]),
        log_to_file=False,
    )
    restored = AgentSession.from_json(checkpoint, agent=gpt)
    print("converted from:", restored.converted_from)
    for entry in restored.conversion_report:
        print(" ", entry["kind"], entry.get("artefact") or entry.get("to_id"))
    print(restored.run_sync("And clause 5?").output)
    print("turns in the store:", len(store.export("contract-review")["metadata"]["run_boundaries"]))


if __name__ == "__main__":
    main()

"""Offline: a twelve-page contract review that compacts itself as it goes.

Run with ``python examples/compaction_review.py``. FakeModel stands in for the provider
and reports a growing context, so each turn's second request crosses the threshold and
the earlier pages are summarised (the recap is written by the same fake model).
"""

from __future__ import annotations

import tempfile
from typing import Any

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import FakeModel, Reply, reply, tool_call


@tool
def read_page(page: int) -> str:
    """Read one page of the contract."""
    return f"Page {page}: " + "the supplier shall deliver on time. " * 60


def script(pages: int) -> list[Any]:
    steps: list[Any] = []
    for page in range(1, pages + 1):
        context = 2_000 * page  # what the provider would report as input tokens
        call = tool_call("read_page", {"page": page})
        steps.append(Reply(tool_calls=call.tool_calls, input_tokens=context))
        if context >= 6_000:
            steps.append(reply(f"Recap: pages 1-{page - 1} read; delivery terms are strict."))
        steps.append(reply(f"Page {page} noted.", input_tokens=context + 1_500))
    return steps


def main() -> None:
    archives = tempfile.mkdtemp()
    agent = Agent(
        "claude-sonnet-5-5",
        instructions="You review a contract one page at a time.",
        tools=[read_page],
        client=FakeModel(script(12)),
        compaction=True,
        compaction_config={
            "strategy": "summarize",
            "trigger_threshold": 6_000,
            "archive_dir": archives,
        },
        log_to_file=False,
    )
    session = agent.session(session_id="contract-review")
    for page in range(1, 13):
        result = session.run_sync(f"Read page {page} and note anything unusual.")
        print(f"page {page:2d}: {result.output!r:24} compactions={result.compaction_count}")
    print("compactions:", session.metadata["compaction_count"])
    print("archives:", len(session.metadata["compaction_archives"]), "in", archives)
    print(f"total cost: ${session.metadata['total_cost']:.6f}")


if __name__ == "__main__":
    main()

"""Fleet approval test support: jobs ``inv-*`` call ``lookup``, jobs ``pay-*`` call ``pay``,
which a `RequireApproval` hook defers to a person. Run as a script it is one worker::

    python tests/integration/fleet_approvals_support.py DATABASE_URL WORKER_ID CONCURRENCY [forever]

(``forever``: serve until killed, instead of until the queue is empty). The environment
carries the emulator's URL (``DPT_TEST_EMULATOR_URL``) and the tool log
(``DPT_TEST_TOOL_LOG``): every tool execution appends ``<tool> <job> <pid>``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import fleet_support as fs

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.hooks import RequireApproval
from doc_processing_toolkit.testing.script import Reply, ScriptStep, ToolCall


@tool
def pay(job: str) -> str:
    """Pay an invoice."""
    fs._append(os.environ["DPT_TEST_TOOL_LOG"], f"pay {job} {os.getpid()}")
    return f"paid {job}"


@tool
def lookup(job: str) -> str:
    """Look up an invoice's total."""
    fs._append(os.environ["DPT_TEST_TOOL_LOG"], f"lookup {job} {os.getpid()}")
    return f"total for {job}: 7 EUR"


def make_agent() -> Agent:
    return Agent(
        fs.MODEL,
        "Process invoices.",
        tools=[lookup, pay],
        hooks=RequireApproval({"pay"}),
        base_url=os.environ["DPT_TEST_EMULATOR_URL"],
        log_to_file=False,
    )


def responder(body: dict[str, Any]) -> ScriptStep | None:
    """``pay-*`` jobs call pay, the others lookup; after the tool result, the answer
    (which quotes the tool result, so a refusal shows in the output)."""
    job, iteration = fs.job_of(body)
    if iteration == 1:
        name = "pay" if job.startswith("pay-") else "lookup"
        return Reply(tool_calls=(ToolCall(name, {"job": job}, id=f"toolu_{job}"),))
    result = body["messages"][-1]["content"][0]
    texts = " ".join(fs._texts(result.get("content", "")))
    return Reply(f"{job} done: {texts}")


def tool_log(path: Path) -> list[tuple[str, str]]:
    if not path.exists():
        return []
    return [tuple(line.split()[:2]) for line in path.read_text().splitlines()]  # type: ignore[misc]


def main(argv: list[str]) -> int:
    from doc_processing_toolkit.fleet import Fleet

    database_url, worker_id, concurrency = argv[0], argv[1], int(argv[2])
    fleet = Fleet(make_agent, database_url, worker_id=worker_id, concurrency=concurrency)
    fleet.run(until_idle=len(argv) < 4)
    fleet.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

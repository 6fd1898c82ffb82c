"""One side of the two-process approval test: ``python approvals_process.py defer|approve|
refuse|plain URL DB TOOL_LOG``. Each run is its own process against the test's emulator.

``defer``: a turn whose second tool call (``pay``) is deferred, stored in SQLite, then exit.
``approve`` / ``refuse``: load the session from SQLite, answer the pending call, finish.
``plain``: the same turn uninterrupted (no approval hook), for the ledger comparison.
Prints the AgentResult as JSON on its last stdout line.
"""

from __future__ import annotations

import json
import sys

from doc_processing_toolkit import Agent, Approval, tool
from doc_processing_toolkit.agent.hooks import RequireApproval
from doc_processing_toolkit.agent.session import SqliteSessionStore

MODEL = "claude-sonnet-4-5"


def main(mode: str, url: str, db: str, tool_log: str) -> None:
    @tool
    def lookup(name: str) -> str:
        """Find an account.

        Args:
            name: The holder.
        """
        with open(tool_log, "a") as log:
            log.write(json.dumps(["lookup", name]) + "\n")
        return "acct-1"

    @tool
    def pay(account: str, amount: int) -> str:
        """Pay an account.

        Args:
            account: The account.
            amount: Euros.
        """
        with open(tool_log, "a") as log:
            log.write(json.dumps(["pay", account, amount]) + "\n")
        return f"paid {amount} to {account}"

    agent = Agent(
        MODEL,
        tools=[lookup, pay],
        api_key="sk-test-approvals",
        base_url=url,
        hooks=None if mode == "plain" else RequireApproval({"pay"}),
        log_to_file=False,
    )
    session = agent.session("payments-1", store=SqliteSessionStore(db))
    if mode in ("defer", "plain"):
        result = session.run_sync("Pay Bob 5 euros.")
    else:
        (pending,) = session.pending_approvals
        answer = Approval(True) if mode == "approve" else Approval(False, message="over budget")
        result = session.resume_sync({pending.call_id: answer})
    print(json.dumps(result.to_dict(), default=str))


if __name__ == "__main__":
    main(*sys.argv[1:5])

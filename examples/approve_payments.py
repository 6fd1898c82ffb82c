"""Human approval that survives a restart, offline: a payment waits for a person.

Process A runs a turn; the ``pay`` call is deferred by a `RequireApproval` hook, the turn
ends ``awaiting_approval`` and the session is in SQLite. A exits. Process B (this script
started again with ``--approve``) loads the session, a person approves, and the turn
finishes: ``pay`` runs once, with the arguments the model sent.

Runs against the in-process FakeModel (no key, no network)::

    python examples/approve_payments.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from doc_processing_toolkit import Agent, Approval, tool
from doc_processing_toolkit.agent.hooks import RequireApproval
from doc_processing_toolkit.agent.session import SqliteSessionStore
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply, tool_call

MODEL = "claude-haiku-4-5"
SESSION = "invoice-2026-117"


@tool
def find_supplier(name: str) -> str:
    """The IBAN of a supplier."""
    return "DE02 1203 0000 0000 2020 51"


@tool
def pay(iban: str, amount_eur: float) -> str:
    """Send a bank transfer."""
    return f"transfer of {amount_eur:.2f} EUR to {iban} sent (ref T-0042)"


def agent(model: FakeModel) -> Agent:
    return Agent(
        MODEL,
        tools=[find_supplier, pay],
        hooks=RequireApproval({"pay"}, reason="payments need a person"),
        client=model,
        log_to_file=False,
    )


def process_a(database: str) -> None:
    model = FakeModel(
        [
            tool_call("find_supplier", {"name": "Acme GmbH"}),
            tool_call("pay", {"iban": "DE02 1203 0000 0000 2020 51", "amount_eur": 1250.0}),
        ]
    )
    session = agent(model).session(SESSION, store=SqliteSessionStore(database))
    result = session.run_sync("Pay Acme GmbH's invoice 2026-117 (1,250 EUR).")
    print("A:", result.status, f"cost so far ${result.cost:.6f}")
    for pending in result.pending_approvals:
        print("   waiting:", pending.tool_name, pending.arguments, "-", pending.reason)


def process_b(database: str) -> None:
    model = FakeModel([reply("Paid: 1,250 EUR to Acme GmbH, reference T-0042.")])
    session = agent(model).session(SESSION, store=SqliteSessionStore(database))
    (pending,) = session.pending_approvals
    result = session.resume_sync({pending.call_id: Approval(approved=True)})
    print("B:", result.status, "-", result.output)
    print("   tools run by B:", result.tools_used)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--approve":
        process_b(sys.argv[2])
        return
    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "sessions.sqlite")
        process_a(database)
        # another process, as after a restart: nothing is shared but the SQLite file
        subprocess.run([sys.executable, __file__, "--approve", database], check=True)


if __name__ == "__main__":
    main()

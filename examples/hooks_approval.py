"""Hooks and steering, offline: a veto, a message from a UI thread, a confirmation pause.

Runs against the in-process FakeModel (no key, no network):

    python examples/hooks_approval.py
"""

from __future__ import annotations

import threading
import time

from doc_processing_toolkit import Agent, HookDirective, tool
from doc_processing_toolkit.agent.hooks import AgentStreamEvent, ConfirmAfterNToolCalls
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply, tool_call

MODEL = "claude-haiku-4-5"


@tool
def list_files(folder: str) -> str:
    """List the files in a folder."""
    return "report.pdf, draft.docx, old.tmp"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    raise AssertionError("the approval hook must have refused this")


def approve(event: AgentStreamEvent) -> HookDirective | None:
    """Refuse every destructive tool; let the others run."""
    meta = event.metadata or {}
    if event.event_type == "before_tool_call" and meta["tool_name"] == "delete_file":
        return HookDirective("skip_tool", message="Refused: deleting needs a person's approval.")
    return None


def veto() -> None:
    fake = FakeModel(
        [
            tool_call("delete_file", {"path": "old.tmp"}),
            reply("I could not delete old.tmp: a person has to approve that."),
        ]
    )
    agent = Agent(MODEL, tools=[delete_file], hooks=approve, client=fake, log_to_file=False)
    result = agent.run_sync("Delete old.tmp")
    print("veto:   ", result.output)


def wait_for_pause(agent: Agent) -> None:
    deadline = time.monotonic() + 10
    while (handle := agent.run_handle) is None or not handle.parked:
        if time.monotonic() > deadline:
            raise TimeoutError("the run never paused")
        time.sleep(0.01)


def confirm_and_steer() -> None:
    fake = FakeModel(
        [
            tool_call("list_files", {"folder": "."}),
            reply("Here are the PDFs: report.pdf."),
        ]
    )
    agent = Agent(
        MODEL,
        tools=[list_files],
        hooks=ConfirmAfterNToolCalls(1),
        client=fake,
        log_to_file=False,
    )

    def ui_thread() -> None:
        try:
            wait_for_pause(agent)  # the run is parked: no request goes out meanwhile
        except TimeoutError:
            if (handle := agent.run_handle) is not None:
                handle.abort("no confirmation")  # never leave a run parked
            raise
        handle = agent.run_handle
        assert handle is not None
        handle.inject("Only the PDFs, please.")
        handle.resume()

    ui = threading.Thread(target=ui_thread)
    ui.start()
    result = agent.run_sync("What is in this folder?")
    ui.join()
    print("steered:", result.output, "| injected:", result.injected_messages)


if __name__ == "__main__":
    veto()
    confirm_and_steer()

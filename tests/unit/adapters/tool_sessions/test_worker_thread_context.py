"""A sync tool runs off the loop thread, in the caller's context."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.testing import FakeModel, reply, tool_call

MODEL = "claude-sonnet-5-5"


_REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")


def test_a_sync_tool_runs_off_the_loop_thread_in_the_callers_context() -> None:
    seen: list[tuple[str, bool]] = []

    @tool
    def where() -> str:
        """Report where it ran."""
        seen.append((_REQUEST_ID.get(), threading.current_thread() is threading.main_thread()))
        return "here"

    async def main() -> Any:
        _REQUEST_ID.set("req-7")
        agent = Agent(
            MODEL,
            tools=[where],
            client=FakeModel([tool_call("where", {}), reply("ok")]),
            log_to_file=False,
        )
        try:
            return await agent.run("go")
        finally:
            await agent.close()

    assert asyncio.run(main()).output == "ok"
    assert seen == [("req-7", False)]

"""Runs and sessions leave no cyclic garbage for the collector."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from doc_processing_toolkit.testing import FakeModel, reply, tool_call
from tests.unit.application.support import agent_with_add as _agent


def _toolkit_garbage(make_calls: Any) -> list[str]:
    """The toolkit's objects that only the cycle collector could free after
    ``make_calls()`` ran (in one event loop, warmed by one untimed call first)."""
    import gc

    async def go() -> None:
        await make_calls()  # warm: clients, codecs and caches are built
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            await make_calls()
            gc.collect()
        finally:
            gc.set_debug(0)

    try:
        asyncio.run(go())
        return sorted(
            {
                type(o).__qualname__
                for o in gc.garbage
                if type(o).__module__.startswith("doc_processing_toolkit")
            }
        )
    finally:
        gc.garbage.clear()


@pytest.mark.parametrize("shape", ["text", "tool round", "hooked", "session"])
def test_a_run_leaves_no_cycle_for_the_collector(shape: str) -> None:
    """A request's ``on_usage`` once was a bound method of the run's outcome, which holds
    the request: every run then left its outcome, ledger, messages and response to the
    collector (a young collection every ~14 calls)."""
    from doc_processing_toolkit import AgentSession

    script = [tool_call("add", {"a": 1, "b": 2}), reply("3")] if shape != "text" else [reply("3")]
    fake = FakeModel(list(script) * 6)
    agent = _agent(fake, hooks=(lambda event: None) if shape == "hooked" else None)
    session = AgentSession(agent)

    async def calls() -> None:
        for _ in range(3):
            run = session.run("go") if shape == "session" else agent.run("go")
            assert (await run).output == "3"
            fake.requests.clear()  # the fake's record would keep each run reachable

    assert _toolkit_garbage(calls) == []


def test_a_dropped_session_and_its_agent_need_no_collector() -> None:
    """The session's frozen tool surface calls back into the session through a weak
    reference: a session made per document, run and dropped, is freed at once."""
    from doc_processing_toolkit import AgentSession

    async def calls() -> None:
        fake = FakeModel([tool_call("add", {"a": 1, "b": 2}), reply("3")])
        agent = _agent(fake)
        assert (await AgentSession(agent).run("go")).output == "3"
        await agent.close()
        fake.requests.clear()

    assert _toolkit_garbage(calls) == []

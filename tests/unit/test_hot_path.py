"""The per-run shortcuts of the hot path keep the behaviour they shortcut (issue 17).

Each test would fail if its shortcut changed what a run does: the lazy input estimate,
the remembered strict budget, the event-free hook points of a run without hooks, the
single tool call run without a task group, and the worker-thread hop of a sync tool.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import threading
from typing import Any

import pytest
from waiting import WAIT, Host, run_steered

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.run import events, input_estimate, outcome
from doc_processing_toolkit.application.run.binding import prepare_request, request_fields
from doc_processing_toolkit.application.run.settings import RunSettings
from doc_processing_toolkit.application.tools.tool_set import ToolSet
from doc_processing_toolkit.domain.costs.ledger import Ledger, RetryAccumulator
from doc_processing_toolkit.domain.requests import ModelRequest, Usage
from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.domain.tools.strict_budget import all_strict, budget_strict_tools
from doc_processing_toolkit.testing import FakeModel, reply, tool_call
from doc_processing_toolkit.testing.script import Reply, ToolCall

MODEL = "claude-sonnet-5-5"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


def _agent(fake: FakeModel, **kwargs: Any) -> Agent:
    return Agent(MODEL, tools=[add], client=fake, log_to_file=False, **kwargs)


# ------------------------------------------------------------------ the lazy estimate


def test_a_run_that_succeeds_computes_no_input_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[Any] = []
    real = outcome.local_estimate
    for module in (outcome, input_estimate):  # where the lazy and the eager path look it up
        monkeypatch.setattr(module, "local_estimate", lambda r: counted.append(r) or real(r))
    result = _agent(FakeModel([tool_call("add", {"a": 1, "b": 2}), reply("3")])).run_sync("go")
    assert result.output == "3"
    assert counted == []  # two requests sent, no estimate made: nothing failed


def test_the_estimate_is_the_latest_requests_when_asked() -> None:
    fake = FakeModel([reply("ok")])
    assert _agent(fake).run_sync("y" * 4000).output == "ok"
    request = fake.requests[-1]
    state = outcome.RunOutcome(
        messages=[], new_messages_start=0, ledger=Ledger(), accumulator=RetryAccumulator()
    )
    assert state.input_estimate() == 0  # nothing sent: no estimate
    state.estimate_source = request
    assert state.input_estimate() == input_estimate.local_estimate(request) > 1000


def test_every_request_carries_the_runs_usage_callback_from_construction() -> None:
    fake = FakeModel([tool_call("add", {"a": 1, "b": 2}), reply("3")])
    assert _agent(fake).run_sync("go").output == "3"
    first, second = fake.requests
    assert first.on_usage is not None and second.on_usage is not None
    assert isinstance(first.on_usage, outcome.InFlightUsage)
    assert second.on_usage is first.on_usage  # one per run, not one per request
    state = outcome.RunOutcome(
        messages=[], new_messages_start=0, ledger=Ledger(), accumulator=RetryAccumulator()
    )
    usage = Usage(input_tokens=7, output_tokens=1)
    state.in_flight(usage)
    assert state.in_flight_usage is usage
    state.begin_request(first, 1)
    assert state.in_flight_usage is None  # a new request: nothing of it billed yet


def test_a_request_is_copied_only_when_a_binding_choice_moved_since_it_was_built() -> None:
    settings = RunSettings(model=MODEL, provider="anthropic", row=None)
    state = outcome.RunOutcome(
        messages=[], new_messages_start=0, ledger=Ledger(), accumulator=RetryAccumulator()
    )
    request = ModelRequest(model=MODEL, messages=())
    assert prepare_request(request, settings, state, None) is request  # nothing bound
    bound = dataclasses.replace(settings, bound_reasoning=True, block_binding="drop_block")
    built = ModelRequest(model=MODEL, messages=(), **request_fields(bound, state))
    assert built.block_binding == "drop_block" and not built.rebind
    assert prepare_request(built, bound, state, None) is built  # as the loop built it
    state.prefix_binding_retry = True  # a prefix-binding 400 was re-sent meanwhile
    moved = prepare_request(built, bound, state, None)
    assert moved is not built and moved.rebind and moved.block_binding == "drop_block"


# ------------------------------------------------------------------ the strict budget


def _specs(*names: str) -> list[ToolSpec]:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    return [ToolSpec(name, f"{name} tool", dict(schema)) for name in names]


def test_the_strict_budget_is_remembered_for_the_same_spec_objects() -> None:
    specs = _specs("a", "b")
    first = budget_strict_tools(specs)
    assert budget_strict_tools(list(specs)) is first
    again = budget_strict_tools(_specs("a", "b"))  # equal specs, other objects: decided anew
    assert again is not first and again == first
    assert all(t.strict for t in first.tools)
    assert budget_strict_tools(specs, enabled=False) is not first  # the flags are the key too
    assert not any(t.strict for t in budget_strict_tools(specs, enabled=False).tools)


def test_all_strict_is_remembered_and_marks_every_tool() -> None:
    specs = _specs("a", "b", "c")
    marked = all_strict(specs)
    assert all_strict(specs) is marked
    assert [t.name for t in marked] == ["a", "b", "c"] and all(t.strict for t in marked)
    assert not any(t.strict for t in specs)


# ------------------------------------------------------------------ no hooks, no events


def test_a_run_without_hooks_builds_no_event_and_still_pauses_and_resumes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[str] = []
    real = events.AgentStreamEvent

    def counting(kind: Any, *args: Any) -> Any:
        built.append(kind)
        return real(kind, *args)

    monkeypatch.setattr(events, "AgentStreamEvent", counting)
    fake = FakeModel([tool_call("pause_me", {}), reply("done")])
    agent: Agent

    @tool
    def pause_me() -> str:
        """Ask the host to pause the run."""
        handle = agent.run_handle
        assert handle is not None
        handle.pause()
        return "paused"

    agent = Agent(MODEL, tools=[pause_me], client=fake, log_to_file=False)
    sent_while_parked: list[int] = []

    def steer(host: Host) -> None:
        handle = host.wait_for_pause("a pause")
        sent_while_parked.append(len(fake.requests))
        handle.resume()

    result = run_steered(agent, lambda: agent.run_sync("go"), steer)
    assert result.output == "done"
    assert sent_while_parked == [1]  # parked after the tool round, before the next request
    assert built == []


# ------------------------------------------------------------------ one tool call


@pytest.mark.parametrize("calls", [1, 2])
def test_a_failing_tool_session_fails_the_run_alike_for_one_call_or_two(
    monkeypatch: pytest.MonkeyPatch, calls: int
) -> None:
    async def broken(self: ToolSet, name: str, arguments: dict[str, Any], **keywords: Any) -> Any:
        raise RuntimeError("the transport is gone")

    monkeypatch.setattr(ToolSet, "call", broken)
    first = Reply(
        tool_calls=tuple(ToolCall(name="add", arguments={"a": 1, "b": i}) for i in range(calls))
    )
    with pytest.raises(ExceptionGroup) as info:
        _agent(FakeModel([first, reply("never")])).run_sync("go")
    assert [type(e) for e in info.value.exceptions] == [RuntimeError] * calls


# ------------------------------------------------------------------ the worker thread

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


# ------------------------------------------------------------------ the stream handoff


def test_the_handoff_keeps_order_and_wakes_the_loop_once_per_batch() -> None:
    from doc_processing_toolkit.application.run.offloop import _Handoff

    async def main() -> tuple[list[Any], int]:
        loop = asyncio.get_running_loop()
        handoff = _Handoff(loop)
        wakes = 0
        real = loop.call_soon_threadsafe

        def counting(callback: Any, *args: Any) -> Any:
            nonlocal wakes
            wakes += 1
            return real(callback, *args)

        loop.call_soon_threadsafe = counting  # type: ignore[method-assign]

        def produce() -> None:
            for n in range(500):
                handoff.put(n)
            handoff.put("end")

        thread = threading.Thread(target=produce)
        thread.start()
        seen: list[Any] = []
        while not seen or seen[-1] != "end":
            seen.extend(await handoff.take())
        thread.join(WAIT)
        return seen, wakes

    seen, wakes = asyncio.run(main())
    assert seen == [*range(500), "end"]
    assert 1 <= wakes < 501  # batches, not one wake-up per item


# ------------------------------------------------------------------ streamed text pieces


def test_anthropic_text_pieces_join_once_and_a_mid_stream_read_loses_nothing() -> None:
    from doc_processing_toolkit.adapters.providers.anthropic.stream import StreamAssembler

    assembler = StreamAssembler()
    assembler.feed({"type": "message_start", "message": {"model": "m", "usage": {}}})
    assembler.feed(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "A"}}
    )
    thinking = {"type": "thinking", "thinking": "", "signature": ""}
    assembler.feed({"type": "content_block_start", "index": 1, "content_block": thinking})
    words = [f"w{n} " for n in range(3000)]
    for n, word in enumerate(words):
        delta = {"type": "text_delta", "text": word}
        assembler.feed({"type": "content_block_delta", "index": 0, "delta": delta})
        think = {"type": "thinking_delta", "thinking": word}
        assembler.feed({"type": "content_block_delta", "index": 1, "delta": think})
        if n == 1000:  # a read mid-stream (a salvaged partial answer) sees everything so far
            assert assembler.content_blocks()[0]["text"] == "A" + "".join(words[:1001])
    sig = {"type": "signature_delta", "signature": "sig"}
    assembler.feed({"type": "content_block_delta", "index": 1, "delta": sig})
    blocks = assembler.content_blocks()
    assert blocks == assembler.content_blocks()  # reading twice adds nothing twice
    assert blocks[0]["text"] == "A" + "".join(words)
    assert blocks[1]["thinking"] == "".join(words) and blocks[1]["signature"] == "sig"


def test_gemini_text_parts_merge_once_and_a_mid_stream_read_loses_nothing() -> None:
    from doc_processing_toolkit.adapters.providers.google.stream import StreamAssembler

    assembler = StreamAssembler()
    words = [f"w{n} " for n in range(3000)]

    def chunk(text: str, finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}}
        if finish:
            candidate["finish_reason"] = finish
        return {"candidates": [candidate]}

    for n, word in enumerate(words):
        assembler.feed(chunk(word))
        if n == 1000:
            parts = assembler.raw()["candidates"][0]["content"]["parts"]
            assert parts == [{"text": "".join(words[:1001])}]
    assembler.feed(chunk("end", "STOP"))
    parts = assembler.raw()["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "".join(words) + "end"}]
    assert assembler.message().text == "".join(words) + "end"


# ------------------------------------------------------------------ the output schema


def test_a_structured_runs_schema_is_built_once_per_model_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pydantic import BaseModel

    from doc_processing_toolkit.application.run.schemas import (
        final_result_spec,
        output_json_schema,
    )

    class Invoice(BaseModel):
        number: str
        total: float

    built: list[int] = []
    real = Invoice.model_json_schema

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(Invoice, "model_json_schema", counting)
    first = output_json_schema(Invoice)
    first["title"] = "changed by a caller"
    assert output_json_schema(Invoice)["title"] == "Invoice"  # each caller gets its own copy
    spec = final_result_spec(Invoice, "final_result")
    assert final_result_spec(Invoice, "final_result") is spec
    assert spec.parameters["properties"].keys() == {"number", "total"}
    for _ in range(3):
        fake = FakeModel([tool_call("add", {"a": 1, "b": 2}), reply('{"number": "7", "total": 3}')])
        result = _agent(fake).run_sync("go", output_schema=Invoice)
        assert result.output == {"number": "7", "total": 3}  # validated against Invoice
    assert built == [1]


def test_the_stream_worker_hands_back_items_then_the_error_and_a_close_cancels_it() -> None:
    from doc_processing_toolkit.application.run.offloop import OffLoopModelClient

    cancelled = threading.Event()

    class Inner:
        provider = "fake"

        async def stream(self, request: Any) -> Any:
            yield "first"
            if request == "fail":
                raise RuntimeError("the provider broke")
            try:
                while True:
                    yield "more"
                    await asyncio.sleep(0.001)
            except asyncio.CancelledError:
                cancelled.set()
                raise

        async def aclose(self) -> None: ...

    async def main() -> list[Any]:
        client = OffLoopModelClient(Inner())  # type: ignore[arg-type]
        seen: list[Any] = []
        with pytest.raises(RuntimeError, match="the provider broke"):
            async for item in client.stream("fail"):  # type: ignore[arg-type]
                seen.append(item)
        stream = client.stream("endless")  # type: ignore[arg-type]
        seen.append(await stream.__anext__())
        await stream.aclose()  # the consumer goes away: the worker's call is cancelled
        return seen

    assert asyncio.run(main()) == ["first", "first"]
    assert cancelled.wait(WAIT)


# ------------------------------------------------------------------ no cyclic garbage


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


def test_deltas_skip_the_channel_without_a_consumer_and_still_end_retries() -> None:
    """Without a stream consumer the loop hands no delta to the event channel, yet a
    stream that failed after its first delta is still not retried (its text may have
    reached someone on the streamed path), on run() as on stream()."""
    from doc_processing_toolkit import ProviderError
    from doc_processing_toolkit.testing import Fault

    def fake() -> FakeModel:
        return FakeModel([Fault("disconnect", partial_text="half an answer"), reply("again")])

    quiet = fake()
    with pytest.raises(ProviderError):
        _agent(quiet).run_sync("go")
    assert len(quiet.requests) == 1  # not retried: a delta had streamed

    loud = fake()

    async def streamed() -> tuple[str, list[str]]:
        agent = _agent(loud)
        texts, kinds = [], []
        async for event in agent.stream("go"):
            kinds.append(event.event_type)
            if event.event_type == "text_delta":
                texts.append(event.content)
        return "".join(texts), kinds

    text, kinds = asyncio.run(streamed())
    assert text == "half an answer" and "error" in kinds
    assert len(loud.requests) == 1

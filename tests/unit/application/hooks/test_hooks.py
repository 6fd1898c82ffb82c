"""Hooks and steering: directives, injections, the run handle, request_start, streams."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from waiting import WAIT, Host, run_steered, until

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.hooks import (
    OBSERVATION_ONLY_EVENTS,
    REQUEST_PURPOSES,
    AgentAborted,
    AgentHooks,
    AgentStreamEvent,
    ConfirmAfterNToolCalls,
    HookDirective,
    HookRunner,
    RequestStartEmitter,
    RunHandle,
    build_injected_user_message,
    stream_callback_accepts_metadata,
)
from doc_processing_toolkit.domain.costs.ledger import RetryAccumulator, RetryAttemptCost
from doc_processing_toolkit.domain.messages import ToolResultPart
from doc_processing_toolkit.testing import FakeModel, Fault, Reply
from doc_processing_toolkit.testing.script import reply, tool_call

deleted: list[str] = []


@tool
def delete_file(path: str) -> str:
    """Delete a file (destructive)."""
    deleted.append(path)
    return f"deleted {path}"


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def make_agent(fake: FakeModel, **kwargs: Any) -> Agent:
    kwargs.setdefault("tools", [calculate, delete_file])
    return Agent("claude-sonnet-4-5", "You help.", client=fake, **kwargs)


def tool_results(fake: FakeModel, index: int) -> list[ToolResultPart]:
    return [
        p
        for m in fake.requests[index].messages
        if m.role == "tool"
        for p in m.parts
        if isinstance(p, ToolResultPart)
    ]


# ---------------------------------------------------------------------------- vetoes


def test_veto_stops_a_destructive_tool_and_the_model_sees_the_declined_text() -> None:
    deleted.clear()

    async def guard(event: AgentStreamEvent) -> HookDirective | None:
        meta = event.metadata or {}
        if event.event_type == "before_tool_call" and meta["tool_name"] == "delete_file":
            return HookDirective("skip_tool", message="Refused: deleting is not allowed.")
        return None

    fake = FakeModel([tool_call("delete_file", {"path": "/etc/passwd"}), reply("ok, I won't")])
    result = make_agent(fake, hooks=guard).run_sync("clean up")
    assert deleted == []
    assert result.output == "ok, I won't" and result.success
    (declined,) = tool_results(fake, 1)
    assert declined.is_error
    assert declined.content[0].text == "Refused: deleting is not allowed."  # type: ignore[union-attr]
    assert result.tools_used == []


def test_skip_tool_default_text_and_skip_outside_before_tool_call_is_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def hook(event: AgentStreamEvent) -> HookDirective | None:  # a plain sync hook
        if event.event_type in ("before_tool_call", "tool_call_start"):
            return HookDirective("skip_tool")
        return None

    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 2}), reply("done")])
    with caplog.at_level(logging.WARNING):
        result = make_agent(fake, hooks=hook).run_sync("add")
    (declined,) = tool_results(fake, 1)
    assert "declined" in declined.content[0].text  # type: ignore[union-attr]
    assert result.output == "done"
    assert "skip_tool is honoured only at before_tool_call" in caplog.text


def test_hook_object_with_per_event_methods_and_a_raising_hook_is_contained(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []

    class Hooks:
        async def on_run_start(self, event: AgentStreamEvent) -> None:
            seen.append(event.event_type)

        def on_tool_call_result(self, event: AgentStreamEvent) -> None:
            raise RuntimeError("the hook broke")

        async def on_run_end(self, event: AgentStreamEvent) -> None:
            seen.append(event.event_type)

    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 2}), reply("3")])
    with caplog.at_level(logging.WARNING):
        result = make_agent(fake, hooks=Hooks()).run_sync("add")
    assert result.output == "3"
    assert seen == ["run_start", "run_end"]
    assert "a hook raised; the run goes on" in caplog.text


def test_hooks_that_can_receive_nothing_are_refused() -> None:
    with pytest.raises(TypeError, match="hooks must be"):
        make_agent(FakeModel([reply("x")]), hooks=object())


def test_hook_protocol_is_runtime_checkable() -> None:
    assert isinstance(ConfirmAfterNToolCalls(2), AgentHooks)


# ---------------------------------------------------------------------------- injections


def test_inject_message_is_delivered_at_the_next_turn_boundary() -> None:
    def hook(event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "before_tool_call":
            return HookDirective("inject_message", message="only the indemnity clauses")
        return None

    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 2}), reply("noted")])
    result = make_agent(fake, hooks=hook).run_sync("summarise")
    second = fake.requests[1].messages
    # ... tool call, its result, then the injected user message: never between the two.
    assert [m.role for m in second[-3:]] == ["assistant", "tool", "user"]
    assert second[-1].text == "only the indemnity clauses"
    assert result.injected_messages == ["only the indemnity clauses"]
    assert result.undelivered_injections == []
    assert not fake.requests[0].messages[-1].text.startswith("only")


def test_injection_after_the_last_boundary_is_returned_undelivered() -> None:
    def hook(event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "iteration_complete":
            return HookDirective("inject_message", message="too late")
        if event.event_type == "run_end":
            return HookDirective("inject_message", message="from run_end")
        return None

    result = make_agent(FakeModel([reply("bye")]), hooks=hook).run_sync("hi")
    assert result.injected_messages == []
    assert result.undelivered_injections == ["too late", "from run_end"]
    assert result.to_dict()["undelivered_injections"] == ["too late", "from run_end"]


def test_run_handle_inject_from_a_ui_thread_during_a_slow_tool() -> None:
    agent_box: list[Agent] = []
    injected = threading.Event()
    tool_running = threading.Event()

    @tool
    def slow_lookup(q: str) -> str:
        """Slow."""
        tool_running.set()
        injected.wait(WAIT)
        return "found"

    def ui_thread() -> None:
        # Inject while the tool runs (not before the first request), so the message is
        # drained at the next turn boundary: into request 2, whatever the scheduling.
        assert tool_running.wait(WAIT), "the tool never started"
        handle = agent_box[0].run_handle
        assert handle is not None
        handle.inject("actually, only the indemnity clauses")
        injected.set()

    fake = FakeModel([tool_call("slow_lookup", {"q": "x"}), reply("ok")])
    agent = make_agent(fake, tools=[slow_lookup])
    agent_box.append(agent)
    thread = threading.Thread(target=ui_thread)
    thread.start()
    result = agent.run_sync("summarise")
    thread.join(WAIT)
    assert result.injected_messages == ["actually, only the indemnity clauses"]
    assert fake.requests[1].messages[-1].text == "actually, only the indemnity clauses"
    assert agent.run_handle is None
    handle = RunHandle()
    with pytest.raises(RuntimeError, match="not bound"):
        handle.inject("x")


@pytest.mark.anyio
async def test_inject_after_the_run_ended_raises() -> None:
    handles: list[RunHandle] = []
    agent = make_agent(FakeModel([reply("x")]))

    def grab(event: AgentStreamEvent) -> None:
        if event.event_type == "run_start" and agent.run_handle is not None:
            handles.append(agent.run_handle)

    agent = make_agent(FakeModel([reply("x")]), hooks=grab)
    await agent.run("hi")
    (handle,) = handles
    with pytest.raises(RuntimeError, match="already ended"):
        handle.inject("late")
    with pytest.raises(ValueError, match="non-empty"):
        handle.inject("")


# ---------------------------------------------------------------------------- pause / abort


def test_confirm_after_n_pauses_and_resume_from_another_thread_completes() -> None:
    fake = FakeModel(
        [
            tool_call("calculate", {"a": 1, "b": 2}),
            tool_call("calculate", {"a": 3, "b": 4}),
            reply("7"),
        ]
    )
    confirm = ConfirmAfterNToolCalls(1)
    agent = make_agent(fake, hooks=confirm)
    resumed: list[int] = []

    def steer(host: Host) -> None:
        for sent in (1, 2):  # the n-th pause comes after the n-th request
            handle = host.wait_for_pause(
                f"pause {sent}",
                also=lambda sent=sent: len(fake.requests) >= sent,  # type: ignore[misc]
            )
            resumed.append(len(fake.requests))  # nothing is sent while paused
            assert handle.paused
            handle.resume()

    result = run_steered(agent, lambda: agent.run_sync("go"), steer)
    assert result.output == "7"
    assert resumed == [1, 2]
    assert confirm.count == 2


def test_abort_from_a_hook_raises_with_partial_spend_and_sends_nothing_more() -> None:
    def hook(event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "tool_call_result":
            return HookDirective("abort", reason="user pressed stop")
        return None

    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 2}), reply("never")])
    agent = make_agent(fake, hooks=hook)
    with pytest.raises(AgentAborted) as info:
        agent.run_sync("go")
    error = info.value
    assert error.reason == "user pressed stop"
    assert error.partial["input_tokens"] == 10 and error.partial["output_tokens"] == 5
    assert error.partial["cost"] > 0 and error.partial["iterations"] == 1
    assert len(fake.requests) == 1


def test_abort_from_another_thread_unblocks_a_pause() -> None:
    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 2}), reply("never")])
    agent = make_agent(fake, hooks=ConfirmAfterNToolCalls(1))

    def steer(host: Host) -> None:
        host.wait_for_pause("a pause").abort("no answer")

    with pytest.raises(AgentAborted, match="no answer"):
        run_steered(agent, lambda: agent.run_sync("go"), steer)
    assert len(fake.requests) == 1


def test_abort_during_a_tool_round_declines_the_calls_not_yet_started() -> None:
    deleted.clear()
    both = Reply(
        tool_calls=(
            tool_call("calculate", {"a": 1, "b": 2}).tool_calls[0],
            tool_call("delete_file", {"path": "x"}).tool_calls[0],
        )
    )

    def hook(event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "tool_call_start":
            return HookDirective("abort", reason="stop")
        return None

    fake = FakeModel([both, reply("never")])
    with pytest.raises(AgentAborted):
        make_agent(fake, hooks=hook).run_sync("go")
    assert deleted == []
    assert len(fake.requests) == 1


@pytest.mark.anyio
async def test_stream_reports_an_abort_as_error_then_one_complete() -> None:
    def hook(event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "iteration_complete":
            return HookDirective("abort", reason="enough")
        if event.event_type == "tool_call_result":
            return HookDirective("inject_message", message="queued")
        return None

    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 2}), reply("never")])
    agent = make_agent(fake, hooks=hook)
    events = [e async for e in agent.stream("go")]
    kinds = [e.event_type for e in events]
    assert kinds[-2:] == ["error", "complete"] and kinds.count("complete") == 1
    error = events[-2].metadata or {}
    assert error["aborted"] is True and error["reason"] == "enough"
    assert error["input_tokens"] == 10 and error["cost"] > 0
    assert error["token_source"] == "stream_partial" and error["iterations"] == 1
    assert error["undelivered_injections"] == ["queued"]
    complete = events[-1].metadata or {}
    assert complete["error"] and complete["undelivered_injections"] == ["queued"]


# ---------------------------------------------------------------------------- run handles


@pytest.mark.anyio
async def test_concurrent_runs_each_get_their_own_handle() -> None:
    seen: dict[str, RunHandle] = {}
    both_started = asyncio.Event()
    agent_box: list[Agent] = []

    async def hook(event: AgentStreamEvent) -> None:
        if event.event_type == "iteration_start":
            handle = agent_box[0].run_handle
            assert handle is not None
            seen[str(id(handle))] = handle
            if len(seen) == 2:
                both_started.set()
            await asyncio.wait_for(both_started.wait(), WAIT)

    fake = FakeModel([reply("a"), reply("b")])
    agent = make_agent(fake, hooks=hook)
    agent_box.append(agent)
    results = await asyncio.gather(agent.run("one"), agent.run("two"))
    assert {r.output for r in results} == {"a", "b"}
    assert len(seen) == 2
    assert agent.run_handle is None


# ---------------------------------------------------------------------------- request_start


@pytest.mark.anyio
async def test_request_start_reaches_hooks_observation_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    starts: list[dict[str, Any]] = []

    def hook(event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "request_start":
            starts.append(dict(event.metadata or {}))
            return HookDirective("abort", reason="ignored here")
        return None

    fake = FakeModel(
        [Fault(status=503, retry_after=0.0), tool_call("calculate", {"a": 1, "b": 1}), reply("2")]
    )
    agent = make_agent(fake, hooks=hook, emit_request_start=True)
    with caplog.at_level(logging.WARNING):
        events = [e async for e in agent.stream("go")]
    complete = events[-1].metadata or {}
    assert complete["error"] is None
    streamed = [e.metadata for e in events if e.event_type == "request_start"]
    assert streamed == starts
    assert [s["request_index"] for s in starts] == [1, 2, 3]
    assert [s["attempt"] for s in starts] == [1, 2, 1]
    assert [s["purpose"] for s in starts] == ["generation", "generation", "tool_followup"]
    assert {s["provider"] for s in starts} == {"anthropic"}
    assert "observation-only" in caplog.text
    assert "request_start" in OBSERVATION_ONLY_EVENTS


@pytest.mark.anyio
async def test_clean_run_request_start_count_equals_cost_records() -> None:
    fake = FakeModel([tool_call("calculate", {"a": 1, "b": 1}), reply("2")])
    agent = make_agent(fake, emit_request_start=True)
    events = [e async for e in agent.stream("go")]
    starts = [e for e in events if e.event_type == "request_start"]
    assert len(starts) == len((events[-1].metadata or {})["request_cost_records"]) == 2


@pytest.mark.anyio
async def test_request_start_emitter_views_share_one_counter() -> None:
    taps: list[tuple[Any, ...]] = []
    hooked: list[AgentStreamEvent] = []

    async def hook(event: AgentStreamEvent) -> HookDirective:
        hooked.append(event)
        return HookDirective("pause")  # observation-only: ignored

    runner = HookRunner(hook)
    runner.bind()
    retry = RetryAccumulator()
    emitter = RequestStartEmitter(
        model="m",
        provider="anthropic",
        stream_callback=lambda *args: taps.append(args),
        hooks_runner=runner,
    )
    emitter.bind_retry_accumulator(retry)
    await emitter.emit(iteration=1)
    retry.add_attempt(
        RetryAttemptCost(
            attempt_number=1,
            input_tokens=0,
            output_tokens=0,
            reasoning_tokens=0,
            cached_input_tokens=0,
            cost=0.0,
            token_source="no_charge",
            error="x",
            duration_ms=0,
            cost_estimated=False,
        )
    )
    summary = emitter.for_purpose("compaction_summary")
    await summary.emit(iteration=2)
    emitter.emit_sync(iteration=3, attempt=7, purpose="truncation_retry")
    assert emitter.request_count == summary.request_count == 3
    assert [t[2]["request_index"] for t in taps] == [1, 2, 3]
    assert taps[1][2]["purpose"] == "compaction_summary" and taps[1][2]["attempt"] == 2
    assert taps[2][2]["attempt"] == 7
    assert len(hooked) == 2  # emit_sync reaches the callback only
    assert not runner.handle.paused
    with pytest.raises(ValueError, match="purpose"):
        emitter.for_purpose("nonsense")
    assert set(REQUEST_PURPOSES) >= {"generation", "compaction_summary"}

    two_args: list[tuple[Any, ...]] = []
    RequestStartEmitter(
        model="m", provider="p", stream_callback=lambda a, b: two_args.append((a, b))
    ).emit_sync()
    assert two_args == [("request_start", None)]


# ---------------------------------------------------------------------------- defects


@pytest.mark.anyio
async def test_iteration_complete_events_include_billed_retries() -> None:
    fake = FakeModel(
        [
            Fault(kind="stream_error", input_tokens=40, error_type="overloaded_error"),
            tool_call("calculate", {"a": 1, "b": 1}),
            Fault(status=503, retry_after=0.0),
            reply("2"),
        ]
    )
    agent = make_agent(fake)
    events = [e async for e in agent.stream("go")]
    done = [e.metadata or {} for e in events if e.event_type == "iteration_complete"]
    complete = events[-1].metadata or {}
    assert complete["retry_count"] == 2 and complete["retry_cost"] > 0
    assert sum(d["cost"] for d in done) == pytest.approx(complete["cost"])
    assert sum(d["input_tokens"] for d in done) == complete["input_tokens"]
    assert [d["retry_attempts"] for d in done] == [1, 1]  # since the previous event


@pytest.mark.anyio
async def test_abandoned_stream_reports_the_in_flight_input_usage() -> None:
    seen: list[AgentStreamEvent] = []

    def hook(event: AgentStreamEvent) -> None:
        if event.event_type == "run_end":
            seen.append(event)

    fake = FakeModel(
        [Reply(text="a" * 400, chunk_size=1, delay_between_chunks=0.01, input_tokens=1234)]
    )
    agent = make_agent(fake, hooks=hook)
    async with contextlib.aclosing(agent.stream("write")) as stream:
        async for event in stream:
            if event.event_type == "text_delta":
                break
    spent = agent.last_abandoned_stream
    assert spent is not None and spent["abandoned"] is True
    assert spent["input_tokens"] == 1234 and spent["cost"] > 0
    assert spent["token_source"] == "stream_partial"
    (observed,) = seen
    assert (observed.metadata or {})["abandoned"] is True


@pytest.mark.anyio
async def test_cancel_on_close_off_keeps_the_previous_behaviour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DPT_STREAM_CANCEL_ON_CLOSE", "off")
    fake = FakeModel([Reply(text="a" * 20, chunk_size=1, delay_between_chunks=0.001)])
    agent = make_agent(fake)
    async with contextlib.aclosing(agent.stream("write")) as stream:
        async for event in stream:
            if event.event_type == "text_delta":
                break
    assert agent.last_abandoned_stream is None
    await until(lambda: agent.run_handle is None, "the detached run to finish on its own")


# ---------------------------------------------------------------------------- helpers


def test_stream_callback_accepts_metadata() -> None:
    def two(event_type: str, content: Any) -> None: ...

    def three(event_type: str, content: Any, metadata: Any = None) -> None: ...

    def star(*args: Any) -> None: ...

    assert not stream_callback_accepts_metadata(None)
    assert not stream_callback_accepts_metadata(two)
    assert stream_callback_accepts_metadata(three)
    assert stream_callback_accepts_metadata(star)
    assert not stream_callback_accepts_metadata(print) or True  # a builtin never breaks


def test_build_injected_user_message_is_provider_native() -> None:
    anthropic = build_injected_user_message("anthropic", "hello")
    assert anthropic["role"] == "user"
    google = build_injected_user_message("google", "hello")
    assert google["role"] == "user" and google["parts"][0]["text"] == "hello"
    with pytest.raises(ValueError):
        build_injected_user_message("anthropic", "")


def test_hook_directive_and_confirm_validation() -> None:
    with pytest.raises(ValueError):
        HookDirective("explode")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        HookDirective("inject_message")
    with pytest.raises(ValueError):
        ConfirmAfterNToolCalls(0)
    assert "paused=False" in repr(RunHandle())


# ---------------------------------------------------------------------------- the soak


class _Resumer(threading.Thread):
    """A host thread: pauses active runs now and then, and resumes every parked one."""

    def __init__(self, seed: int) -> None:
        super().__init__(daemon=True)
        self.agent: Agent | None = None
        self.stop = threading.Event()
        self._rng = random.Random(seed)

    def run(self) -> None:
        while not self.stop.is_set():
            agent = self.agent
            handle = agent.run_handle if agent is not None else None
            if handle is not None:
                if handle.parked:
                    handle.resume()
                elif self._rng.random() < 0.05:
                    handle.pause()
            time.sleep(0.0005)


def _random_hook(rng: random.Random) -> Callable[[AgentStreamEvent], HookDirective | None]:
    choices: list[tuple[str, HookDirective | None]] = [
        ("before_tool_call", HookDirective("skip_tool", message="no")),
        ("tool_call_result", HookDirective("inject_message", message="steer")),
        ("iteration_complete", HookDirective("inject_message", message="late")),
        ("tool_call_result", HookDirective("pause", reason="confirm")),
        ("iteration_start", HookDirective("pause")),
        ("request_start", HookDirective("abort", reason="ignored")),
        ("iteration_complete", HookDirective("abort", reason="stop")),
        ("tool_call_start", HookDirective("abort", reason="stop")),
        ("run_start", None),
    ]
    picks = rng.sample(choices, k=rng.randint(0, 3))
    odds = rng.choice([0.2, 0.5, 1.0])

    def hook(event: AgentStreamEvent) -> HookDirective | None:
        for when, directive in picks:
            if event.event_type == when and rng.random() < odds:
                return directive
        return None

    return hook


def _random_script(rng: random.Random) -> list[Reply | Fault]:
    script: list[Reply | Fault] = []
    for _ in range(rng.randint(0, 3)):
        if rng.random() < 0.3:
            script.append(Fault(status=503, retry_after=0.0))
        script.append(tool_call("calculate", {"a": rng.randint(0, 9), "b": 1}))
    if rng.random() < 0.05:  # billed, then retried after a (short) backoff
        script.append(Fault(kind="stream_error", input_tokens=7, error_type="overloaded_error"))
    script.append(Reply(text="done " * rng.randint(1, 20), chunk_size=3, input_tokens=11))
    return script


@pytest.mark.anyio
async def test_soak_random_directives_pauses_and_stream_closes() -> None:
    rng = random.Random(20261201)
    baseline = len(asyncio.all_tasks())
    resumer = _Resumer(seed=7)
    resumer.start()
    outcomes: dict[str, int] = {}
    try:
        for _ in range(200):
            fake = FakeModel(_random_script(rng))
            agent = make_agent(
                fake,
                hooks=_random_hook(rng),
                emit_request_start=rng.random() < 0.5,
                log_to_file=False,
            )
            resumer.agent = agent
            mode = rng.choice(["run", "stream", "close"])
            kind = await asyncio.wait_for(_one_run(agent, mode, rng), WAIT)
            outcomes[kind] = outcomes.get(kind, 0) + 1
            assert agent.run_handle is None
    finally:
        resumer.stop.set()
        resumer.join(WAIT)
    await until(lambda: len(asyncio.all_tasks()) <= baseline, "the runs' tasks to finish")
    assert set(outcomes) >= {"clean", "aborted", "abandoned"}, outcomes


async def _one_run(agent: Agent, mode: str, rng: random.Random) -> str:
    if mode == "run":
        try:
            result = await agent.run("go")
        except AgentAborted as exc:
            assert exc.partial["cost"] >= 0 and exc.partial["iterations"] >= 0
            return "aborted"
        except Exception:
            return "failed"
        assert result.success and result.cost > 0
        return "clean"
    events: list[AgentStreamEvent] = []
    stop_at = rng.randint(0, 12) if mode == "close" else None
    async with contextlib.aclosing(agent.stream("go")) as stream:
        async for event in stream:
            events.append(event)
            if stop_at is not None and len(events) > stop_at:
                break
    spent = [e.metadata or {} for e in events if e.event_type == "iteration_complete"]
    kinds = [e.event_type for e in events]
    if "complete" not in kinds:
        abandoned = agent.last_abandoned_stream
        if abandoned is None:
            return "finished_unread"  # the run had completed; its complete went unread
        assert abandoned["abandoned"] is True
        assert abandoned["cost"] >= sum(s["cost"] for s in spent) - 1e-9
        return "abandoned"
    assert kinds.count("complete") == 1 and kinds[-1] == "complete"
    complete = events[-1].metadata or {}
    if complete["error"] is None:
        assert sum(s["cost"] for s in spent) == pytest.approx(complete["cost"])
        return "clean"
    error = events[kinds.index("error")].metadata or {}
    assert error["cost"] == pytest.approx(complete["cost"])
    assert complete["cost"] >= sum(s["cost"] for s in spent) - 1e-9
    return "aborted" if error["aborted"] else "failed"


# ---------------------------------------------------------------------------- off-loop


class _ThreadRecordingClient:
    """A ModelClient around FakeModel that records which thread made each call."""

    def __init__(self, inner: FakeModel) -> None:
        self.inner = inner
        self.provider = inner.provider
        self.threads: list[int] = []

    async def stream(self, request: Any) -> Any:
        self.threads.append(threading.get_ident())
        async for item in self.inner.stream(request):
            yield item

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("setting", ["", "off"])
async def test_a_streamed_run_without_tools_calls_the_provider_off_the_loop(
    setting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_STREAM_STRUCTURED_OFFLOOP", setting)
    client = _ThreadRecordingClient(FakeModel([reply("streamed text", chunk_size=2)]))
    agent = Agent("claude-sonnet-4-5", client=client, log_to_file=False)
    events = [e async for e in agent.stream("hi")]
    text = "".join(e.content for e in events if e.event_type == "text_delta")
    assert text == "streamed text"
    (thread,) = client.threads
    assert (thread != threading.get_ident()) is (setting != "off")

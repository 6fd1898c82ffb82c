"""A seeded, bounded, randomized fault run: faulted streams through the four real SDKs
against the loopback emulator. For each run: it finished within its bound, it gave the
correct answer or an error of our tree carrying the run's partial result, the requests the
server saw = 1 + retries, the cost in dollars (and the retry cost) is what the usage the
server reported costs, a 429's retry-after is honoured (capped), and no text was
duplicated.

On a busy machine the client may read a healthy stream's next event later than IDLE and
judge it idle; it then retries (nothing reached the caller) or fails with the idle error,
as it must. The server answers such a retry with the run's last step again, and the run is
checked against the steps the server served and what each attempt's retry details say
(`client_cuts`), never against a fixed script length.

``DPT_FAULT_STREAMS`` (default 300) and ``DPT_FAULT_SEED`` (default 15) size and seed the
run; ``make soak`` runs 2,000.
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import random
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import pytest

from doc_processing_toolkit import (
    Agent,
    AgentResult,
    DocProcessingToolkitError,
    ProviderError,
    StreamIdleTimeoutError,
)
from doc_processing_toolkit.adapters.registry.json_file import default_registry
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Fault, Reply, ScriptStep

MODELS = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-4o",
    "google": "gemini-2.5-flash",
    "fireworks": "kimi-k2p6",
}
STREAMS = int(os.environ.get("DPT_FAULT_STREAMS", "300"))
SEED = int(os.environ.get("DPT_FAULT_SEED", "15"))
IDLE = 0.5
MAX_RETRIES = 3
RUN_BOUND_S = 20.0
RETRY_AFTER_CAP_S = 0.2
MID_STREAM = ("stream_error", "disconnect", "malformed", "truncate", "stall")
USAGE_AT_START = {"anthropic", "google", "fireworks"}
"""Dialects whose started stream reports the input tokens before any text (OpenAI reports
usage only at the end: in ``response.failed`` after an ``error`` event)."""
OUTPUT_AT_START = {"anthropic": 1}
"""Output tokens a started stream reports before any text (Anthropic's message_start)."""
PRICES = {p: default_registry().row(m).pricing for p, m in MODELS.items()}  # type: ignore[union-attr]


def reports_usage(provider: str, kind: str) -> bool:
    return provider in USAGE_AT_START or kind == "stream_error"


def dollars(provider: str, input_tokens: int, output_tokens: int) -> float:
    """What the server's reported usage costs at the registry's prices."""
    price = PRICES[provider]
    assert price.input_per_mtok is not None and price.output_per_mtok is not None
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6


@dataclass
class Case:
    steps: list[ScriptStep]
    requests: int
    retried_tokens: int
    answer: str | None
    cost: float
    """The run's cost from the usage the server reported (failed attempts included)."""
    retry_cost: float
    """The part of :attr:`cost` spent on attempts that were retried."""
    min_wait: float
    """The retry-after waits the retry layer must honour (each capped)."""
    estimate: bool | None = False
    """Text streamed and the server reported no usage (OpenAI): the toolkit estimates that
    output (a record marked ``estimated``), which is not part of :attr:`cost`. None: either
    (the run ended on a stream cut as idle, with or without text read)."""
    cut: ScriptStep | None = None
    """The step of the last attempt when the client cut it as idle although it did not
    stall: its cost, what the server had reported by the cut, is not in :attr:`cost`."""


def make_steps(rng: random.Random, provider: str, index: int) -> list[ScriptStep]:
    """One run's script: up to ``MAX_RETRIES + 1`` faults, ending at a reply, a fault that
    is not retried, or the last attempt."""
    steps: list[ScriptStep] = []
    for _ in range(MAX_RETRIES + 1):
        if rng.random() < 0.45:
            answer = f"answer {index} " + "x" * rng.randint(0, 40)
            steps.append(Reply(answer, input_tokens=rng.randint(5, 50), chunk_size=7))
            return steps
        roll = rng.random()
        tokens = rng.randint(1, 500)
        if roll < 0.1:  # a 429 whose retry-after is honoured, capped
            after = rng.choice([0.05, 60.0])
            steps.append(Fault("status", status=429, retry_after=after, input_tokens=tokens))
            continue
        if roll < 0.3:
            status = rng.choice([429, 500, 503, 529, 400])
            steps.append(Fault("status", status=status, retry_after=0, input_tokens=tokens))
            if status == 400:
                return steps
            continue
        kind = rng.choice(MID_STREAM)
        text = "partial text" if rng.random() < 0.15 else ""
        steps.append(
            Fault(
                kind,  # type: ignore[arg-type]
                partial_text=text,
                input_tokens=tokens,
                error_type="server_error" if provider != "anthropic" else None,
                status=500,
                stall_seconds=3.0,
                keepalive_interval=rng.choice([None, 0.1]),
            )
        )
        if text:  # text reached the caller: not retried
            return steps
    return steps


def start_spent(provider: str, step: ScriptStep) -> float:
    """What the usage a started stream reports before any text costs."""
    if provider not in USAGE_AT_START:
        return 0.0
    return dollars(provider, step.input_tokens, OUTPUT_AT_START.get(provider, 0))


def cut_costs(provider: str, step: ScriptStep) -> list[float]:
    """What a stream the client cut as idle may have cost: the usage the server had
    reported by the cut (none, the start's, or a reply's whole usage)."""
    found = [0.0, start_spent(provider, step)]
    if isinstance(step, Reply):
        found.append(dollars(provider, step.input_tokens, 5))
    return found


def expect(provider: str, served: list[ScriptStep], cuts: dict[int, float]) -> Case:
    """What a run whose server answered with ``served`` (one step per request, in order)
    must give. ``cuts`` are the attempts (1-based) the client judged idle although their
    step did not stall (a busy machine kept the client from reading a healthy stream in
    time), each with what the client recorded that attempt cost; empty when the script
    played as written. A cut stream is retried when nothing reached the caller (the
    server then saw the next request) and otherwise ends the run with the idle error."""
    retried_tokens = 0
    cost = retry_cost = min_wait = 0.0

    def case(requests: int, answer: str | None) -> Case:
        return Case(served[:requests], requests, retried_tokens, answer, cost, retry_cost, min_wait)

    for attempt, step in enumerate(served, start=1):
        last = attempt == MAX_RETRIES + 1
        if attempt in cuts:
            spent = cuts[attempt]
            cost += spent
            if attempt == len(served):  # the idle error ended the run
                found = case(attempt, None)
                found.estimate, found.cut = None, step
                return found
            retry_cost += spent
            retried_tokens += step.input_tokens if spent else 0
            continue
        if isinstance(step, Reply):
            cost += dollars(provider, step.input_tokens, 5)
            return case(attempt, step.text)
        if step.kind == "status":
            if not last:
                min_wait += min(step.retry_after or 0.0, RETRY_AFTER_CAP_S)
            if step.status == 400:
                return case(attempt, None)
            continue
        spent = (
            dollars(provider, step.input_tokens, OUTPUT_AT_START.get(provider, 0))
            if reports_usage(provider, step.kind)
            else 0.0
        )
        cost += spent
        if step.partial_text:  # text reached the caller: not retried
            found = case(attempt, None)
            found.estimate = not reports_usage(provider, step.kind)
            return found
        if not last:
            retry_cost += spent
            if reports_usage(provider, step.kind):
                retried_tokens += step.input_tokens
    return case(MAX_RETRIES + 1, None)


CUT_RUNS: list[str] = []
"""The runs in which the client cut a stream that did not stall (reported, not a fault)."""

IDLE_MESSAGE = "(stream_idle_timeout;"
"""In the message of an attempt the client judged idle (`StreamIdleTimeoutError`)."""


def client_cuts(
    served: list[ScriptStep],
    result: AgentResult,
    error: DocProcessingToolkitError | None,
) -> dict[int, float]:
    """The attempts the client judged idle although their step did not stall, with what
    the client recorded each cost (its retry details; the run's last attempt: the rest of
    the run's cost, settled by `expect`'s caller)."""
    details = [d for entry in result.iteration_metrics for d in entry.retry_details]
    cuts: dict[int, float] = {}
    for detail in details:
        number = int(detail["attempt_number"])
        step = served[number - 1] if number <= len(served) else None
        # A stall is meant to be judged idle, but one with text is retried only when the
        # client cut it before that text arrived.
        scripted = is_stall(step) and not (isinstance(step, Fault) and step.partial_text)
        if IDLE_MESSAGE in str(detail.get("error")) and not scripted:
            cuts[number] = float(detail["cost"])
    if isinstance(error, StreamIdleTimeoutError) and served and not is_stall(served[-1]):
        cuts[len(served)] = math.nan  # settled against the run's cost
    return cuts


def is_stall(step: ScriptStep | None) -> bool:
    return isinstance(step, Fault) and step.kind == "stall"


def cost_problems(tag: str, provider: str, case: Case, result: AgentResult) -> list[str]:
    """The run's cost and retry cost against what the server reported, in dollars (an
    estimate of streamed output the server never reported is allowed only where it must
    be, and is left out)."""
    found = []
    estimated = sum(r["cost"] for r in result.request_cost_records if r.get("estimated"))
    if case.estimate is not None and bool(estimated) != case.estimate:
        found.append(f"{tag}: estimated cost {estimated!r}, expected an estimate: {case.estimate}")
    reported = result.cost - estimated
    if case.cut is not None:  # the last attempt cost what the server had reported by the cut
        last = reported - case.cost
        if not any(close(last, spent) for spent in cut_costs(provider, case.cut)):
            found.append(f"{tag}: cost {reported!r}: the cut attempt {last!r} not reported")
    elif not close(reported, case.cost):
        found.append(f"{tag}: cost {reported!r} != {case.cost!r} reported")
    if not close(result.retry_cost, case.retry_cost):
        found.append(f"{tag}: retry cost {result.retry_cost!r} != {case.retry_cost!r}")
    return found


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def serve(emu: ProviderEmulator, steps: list[ScriptStep]) -> list[ScriptStep]:
    """Have ``emu`` answer the run's requests with ``steps`` in order, and once they are
    used up with the last one again (the answer a retried request gets). Returns the steps
    served, one per request, as the server answers them."""
    script, served = deque(steps), list[ScriptStep]()

    def answer(body: dict[str, object]) -> ScriptStep:
        step = script.popleft() if script else served[-1]
        served.append(step)
        return step

    emu.responder = answer
    emu.reset()
    return served


def run_problems(
    tag: str,
    provider: str,
    steps: list[ScriptStep],
    served: list[ScriptStep],
    outcome: AgentResult | DocProcessingToolkitError,
    requests: int,
) -> list[str]:
    """One run against what the server saw. The script's own expectation holds unless the
    client judged a stream idle that did not stall (a busy machine kept it from reading a
    healthy stream within IDLE): that is legitimately retried while nothing reached the
    caller, so the expectation is then the one of the steps the server actually served."""
    error = outcome if isinstance(outcome, DocProcessingToolkitError) else None
    result = outcome if isinstance(outcome, AgentResult) else outcome.partial_result
    if error is not None and not isinstance(error, ProviderError):
        return [f"{tag}: {type(error).__name__}: {error}"]
    if result is None:
        return [f"{tag}: {type(outcome).__name__} carries no partial_result"]
    cuts = client_cuts(served, result, error)
    if cuts:
        CUT_RUNS.append(tag)
    found = [
        f"{tag}: attempt {n} cut as idle cost {spent!r}, not what the server reported"
        for n, spent in cuts.items()
        if not math.isnan(spent)
        and not any(close(spent, c) for c in cut_costs(provider, served[n - 1]))
    ]
    case = expect(
        provider,
        served if cuts else steps,
        {n: 0.0 if math.isnan(spent) else spent for n, spent in cuts.items()},
    )
    kinds = [type(s).__name__ if isinstance(s, Reply) else s.kind for s in served]
    if error is not None and case.answer is not None:
        return [*found, f"{tag}: unexpected {error!r} (served {kinds})"]
    if error is None and result.output != case.answer:
        found.append(f"{tag}: output {result.output!r} (served {kinds})")
    if error is not None and (result.success or result.error is None):
        found.append(f"{tag}: the partial result does not say the run failed")
    if requests != case.requests or result.retry_count != requests - 1:
        found.append(
            f"{tag}: {requests} requests, {result.retry_count} retries, expected "
            f"{case.requests} (served {kinds}, cut {sorted(cuts)})"
        )
    if result.retry_input_tokens != case.retried_tokens:
        found.append(
            f"{tag}: retried tokens {result.retry_input_tokens} != {case.retried_tokens} "
            f"(served {kinds}, cut {sorted(cuts)})"
        )
    found.extend(cost_problems(tag, provider, case, result))
    return found


async def run_provider(provider: str, count: int, rng: random.Random, cost_dir: Path) -> list[str]:
    problems: list[str] = []
    async with ProviderEmulator() as emu:
        agent = Agent(
            MODELS[provider],
            api_key="offline-test-key",
            base_url=getattr(emu, f"{provider}_base_url"),
            stream_idle_timeout=IDLE,
            detailed_costs=True,  # each retried attempt's error and cost (retry_details)
            cost_output_dir=str(cost_dir / provider),
        )
        try:
            # The SDK's first parse builds its models: not a stall, but on a loaded machine
            # it can outlast IDLE, so the warm-up has a reply for every retry.
            serve(emu, [Reply("warm")])
            await agent.run("warm")
            for index in range(count):
                steps = make_steps(rng, provider, index)
                tag = f"{provider}#{index}"
                served = serve(emu, steps)
                started = time.monotonic()
                outcome: AgentResult | DocProcessingToolkitError
                try:
                    outcome = await asyncio.wait_for(agent.run("q"), RUN_BOUND_S)
                except TimeoutError:
                    problems.append(f"{tag}: hung")
                    continue
                except DocProcessingToolkitError as exc:
                    outcome = exc
                except Exception as exc:  # an error outside the tree
                    problems.append(f"{tag}: untyped {type(exc).__name__}: {exc}")
                    continue
                elapsed = time.monotonic() - started
                problems.extend(
                    run_problems(tag, provider, steps, served, outcome, emu.request_count)
                )
                wait = expect(provider, served, {}).min_wait
                if isinstance(outcome, AgentResult) and elapsed < wait:
                    problems.append(f"{tag}: retry-after not honoured ({elapsed:.2f} s)")
                if elapsed > RUN_BOUND_S:
                    problems.append(f"{tag}: took {elapsed:.1f} s")
        finally:
            await agent.close()
    return problems


HTTPX2_FINALIZER_RACE = (
    r"ignore:Exception ignored in. <async_generator object "
    r"(Response\.aiter_raw|BoundAsyncStream\.__aiter__|AsyncResponseStream\.__aiter__) at:"
    r"pytest.PytestUnraisableExceptionWarning"
)
"""A known third-party finalization race, not ours to fix (docs/guide/reliability.md):
httpx2's response byte generators (the client's, the response's and the
transport's) await ``inner.aclose()`` in their ``finally``. When a
faulted stream leaves them suspended inside the SDK, the garbage collector may finalize
several of them in one pass, and one can be collected while its ``aclose`` is in
progress: CPython then reports ``async generator already executing``. By then the
toolkit has already closed the response, so no connection, file descriptor or memory is
held (``make soak`` measures fds and RSS flat). Only this one message is filtered, and
only in this randomized run. Every other unraisable exception still fails the suite."""


@pytest.mark.anyio
@pytest.mark.filterwarnings(HTTPX2_FINALIZER_RACE)
async def test_randomized_fault_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")
    monkeypatch.setenv("DPT_RETRY_AFTER_CAP_S", str(RETRY_AFTER_CAP_S))
    CUT_RUNS.clear()
    rng = random.Random(SEED)
    per_provider = max(STREAMS // len(MODELS), 1)
    seeds = {p: random.Random(rng.random()) for p in MODELS}
    started = time.monotonic()
    results = await asyncio.gather(
        *(run_provider(p, per_provider, seeds[p], tmp_path) for p in MODELS)
    )
    gc.collect()  # the run's garbage is finalized here, under this test's filter
    await asyncio.sleep(0.05)  # and the aclose tasks the finalizers scheduled run
    problems = [p for found in results for p in found]
    elapsed = time.monotonic() - started
    hangs = sum("hung" in p for p in problems)
    untyped = sum("untyped" in p or "carries no partial_result" in p for p in problems)
    costs = sum("cost" in p for p in problems)
    print(
        f"fault run: {per_provider * len(MODELS)} faulted streams, seed {SEED}, "
        f"{elapsed:.1f} s: {hangs} hangs, {untyped} untyped errors, {costs} wrong costs, "
        f"{len(CUT_RUNS)} runs with a healthy stream judged idle (busy machine), "
        f"{len(problems)} problems in all"
    )
    assert not problems, "\n".join(problems[:40])


@pytest.mark.anyio
@pytest.mark.parametrize("provider", list(MODELS))
async def test_a_healthy_stream_read_too_late_is_judged_against_what_the_server_saw(
    provider: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What a busy machine did to the randomized run (``openai#150: emulator script
    exhausted``), on purpose: a healthy reply's events reach the client more than IDLE
    apart (here the server is slow to send them; on a loaded machine the client is slow
    to read them), so the client judges the stream idle. With nothing delivered it retries,
    as it must, and the server sees one request more than the script has steps; with text
    delivered the run ends with the idle error. Either way the run is checked against the
    steps the server served, and its cost against the usage the server reported."""
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")
    slow = Reply("late answer", input_tokens=21, chunk_size=3, delay_between_chunks=IDLE * 4)
    again = Reply("late answer", input_tokens=21, chunk_size=3)
    async with ProviderEmulator() as emu:
        agent = Agent(
            MODELS[provider],
            api_key="offline-test-key",
            base_url=getattr(emu, f"{provider}_base_url"),
            stream_idle_timeout=IDLE,
            detailed_costs=True,
            cost_output_dir=str(tmp_path),
        )
        try:
            serve(emu, [Reply("warm")])  # the SDK's import and first parse: not this run's
            await agent.run("warm")
            served = serve(emu, [slow, again])
            outcome: AgentResult | DocProcessingToolkitError
            try:
                outcome = await asyncio.wait_for(agent.run("q"), RUN_BOUND_S)
            except DocProcessingToolkitError as exc:
                outcome = exc
        finally:
            await agent.close()
    result = outcome if isinstance(outcome, AgentResult) else outcome.partial_result
    assert result is not None
    error = outcome if isinstance(outcome, DocProcessingToolkitError) else None
    assert 1 in client_cuts(served, result, error)  # the client cut the first stream
    assert emu.request_count == len(served) == 1 + result.retry_count
    assert run_problems(provider, provider, [slow], served, outcome, emu.request_count) == []
    # The fixed script's own expectation is what the old test asserted, and it cannot hold.
    assert expect(provider, [slow], {}).answer == "late answer"
    assert isinstance(outcome, StreamIdleTimeoutError) or result.output == "late answer"

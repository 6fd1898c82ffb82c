"""A seeded, bounded, randomized fault run: faulted streams through the four real SDKs
against the loopback emulator. For each run: it finished within its bound, it gave the
correct answer or an error of our tree carrying the run's partial result, the requests the
server saw = 1 + retries, the cost in dollars (and the retry cost) is what the usage the
server reported costs, a 429's retry-after is honoured (capped), and no text was
duplicated.

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
from dataclasses import dataclass

import pytest

from doc_processing_toolkit import Agent, AgentResult, DocProcessingToolkitError, ProviderError
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
    estimate: bool = False
    """Text streamed and the server reported no usage (OpenAI): the toolkit estimates that
    output (a record marked ``estimated``), which is not part of :attr:`cost`."""


def make_case(rng: random.Random, provider: str, index: int) -> Case:
    steps: list[ScriptStep] = []
    retried_tokens = 0
    cost = retry_cost = min_wait = 0.0

    def case(requests: int, answer: str | None) -> Case:
        return Case(steps, requests, retried_tokens, answer, cost, retry_cost, min_wait)

    for attempt in range(MAX_RETRIES + 1):
        last = attempt == MAX_RETRIES
        if rng.random() < 0.45:
            answer = f"answer {index} " + "x" * rng.randint(0, 40)
            tokens = rng.randint(5, 50)
            steps.append(Reply(answer, input_tokens=tokens, chunk_size=7))
            cost += dollars(provider, tokens, 5)
            return case(attempt + 1, answer)
        roll = rng.random()
        tokens = rng.randint(1, 500)
        if roll < 0.1:  # a 429 whose retry-after is honoured, capped
            after = rng.choice([0.05, 60.0])
            steps.append(Fault("status", status=429, retry_after=after, input_tokens=tokens))
            if not last:
                min_wait += min(after, RETRY_AFTER_CAP_S)
            continue
        if roll < 0.3:
            status = rng.choice([429, 500, 503, 529, 400])
            steps.append(Fault("status", status=status, retry_after=0, input_tokens=tokens))
            if status == 400:
                return case(attempt + 1, None)
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
        spent = (
            dollars(provider, tokens, OUTPUT_AT_START.get(provider, 0))
            if reports_usage(provider, kind)
            else 0.0
        )
        cost += spent
        if text:  # text reached the caller: not retried
            found = case(attempt + 1, None)
            found.estimate = not reports_usage(provider, kind)
            return found
        if not last:
            retry_cost += spent
            if reports_usage(provider, kind):
                retried_tokens += tokens
    return case(MAX_RETRIES + 1, None)


def cost_problems(tag: str, case: Case, result: AgentResult) -> list[str]:
    """The run's cost and retry cost against what the server reported, in dollars (an
    estimate of streamed output the server never reported is allowed only where it must
    be, and is left out)."""
    found = []
    estimated = sum(r["cost"] for r in result.request_cost_records if r.get("estimated"))
    if bool(estimated) != case.estimate:
        found.append(f"{tag}: estimated cost {estimated!r}, expected an estimate: {case.estimate}")
    reported = result.cost - estimated
    if not math.isclose(reported, case.cost, rel_tol=1e-9, abs_tol=1e-12):
        found.append(f"{tag}: cost {reported!r} != {case.cost!r} reported")
    if not math.isclose(result.retry_cost, case.retry_cost, rel_tol=1e-9, abs_tol=1e-12):
        found.append(f"{tag}: retry cost {result.retry_cost!r} != {case.retry_cost!r}")
    return found


async def run_provider(provider: str, count: int, rng: random.Random) -> list[str]:
    problems: list[str] = []
    async with ProviderEmulator() as emu:
        agent = Agent(
            MODELS[provider],
            api_key="offline-test-key",
            base_url=getattr(emu, f"{provider}_base_url"),
            stream_idle_timeout=IDLE,
        )
        try:
            # The SDK's first parse builds its models: not a stall, but on a loaded machine
            # it can outlast IDLE, so the warm-up has a reply for every retry.
            emu.reset([Reply("warm") for _ in range(MAX_RETRIES + 1)])
            await agent.run("warm")
            for index in range(count):
                case = make_case(rng, provider, index)
                tag = f"{provider}#{index}"
                emu.reset(case.steps)
                started = time.monotonic()
                try:
                    result = await asyncio.wait_for(agent.run("q"), RUN_BOUND_S)
                except TimeoutError:
                    problems.append(f"{tag}: hung")
                    continue
                except DocProcessingToolkitError as exc:
                    problems.extend(failure_problems(tag, case, exc, emu.request_count))
                    continue
                except Exception as exc:  # an error outside the tree
                    problems.append(f"{tag}: untyped {type(exc).__name__}: {exc}")
                    continue
                elapsed = time.monotonic() - started
                if result.output != case.answer:
                    problems.append(f"{tag}: output {result.output!r}")
                if emu.request_count != case.requests or result.retry_count != case.requests - 1:
                    problems.append(
                        f"{tag}: {emu.request_count} requests, "
                        f"{result.retry_count} retries, expected {case.requests}"
                    )
                if result.retry_input_tokens != case.retried_tokens:
                    problems.append(
                        f"{tag}: retried tokens {result.retry_input_tokens} "
                        f"!= {case.retried_tokens} ({[type(s).__name__ for s in case.steps]})"
                    )
                problems.extend(cost_problems(tag, case, result))
                if elapsed < case.min_wait:
                    problems.append(f"{tag}: retry-after not honoured ({elapsed:.2f} s)")
                if elapsed > RUN_BOUND_S:
                    problems.append(f"{tag}: took {elapsed:.1f} s")
        finally:
            await agent.close()
    return problems


def failure_problems(
    tag: str, case: Case, exc: DocProcessingToolkitError, requests: int
) -> list[str]:
    """A failed run: a typed error carrying the partial result (tokens, cost, retry cost,
    records) that matches what the server reported."""
    if case.answer is not None:
        return [f"{tag}: unexpected {exc!r}"]
    found = [] if isinstance(exc, ProviderError) else [f"{tag}: {type(exc).__name__}"]
    partial = exc.partial_result
    if partial is None:
        return [*found, f"{tag}: {type(exc).__name__} carries no partial_result"]
    if requests != 1 + partial.retry_count or requests != case.requests:
        found.append(f"{tag}: {requests} requests, {partial.retry_count} retries")
    if partial.retry_input_tokens != case.retried_tokens:
        found.append(f"{tag}: retried tokens {partial.retry_input_tokens} != {case.retried_tokens}")
    if partial.success or partial.error is None:
        found.append(f"{tag}: the partial result does not say the run failed")
    found.extend(cost_problems(tag, case, partial))
    return found


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
async def test_randomized_fault_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")
    monkeypatch.setenv("DPT_RETRY_AFTER_CAP_S", str(RETRY_AFTER_CAP_S))
    rng = random.Random(SEED)
    per_provider = max(STREAMS // len(MODELS), 1)
    seeds = {p: random.Random(rng.random()) for p in MODELS}
    started = time.monotonic()
    results = await asyncio.gather(*(run_provider(p, per_provider, seeds[p]) for p in MODELS))
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
        f"{len(problems)} problems in all"
    )
    assert not problems, "\n".join(problems[:40])

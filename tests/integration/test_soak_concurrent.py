"""The load acceptance: rounds of concurrent runs through the four real SDKs against the
loopback emulator, 10% of them faulted across every fault kind the emulator has.

For every run: it ended (within a bound) with a result or an error of the toolkit's tree;
its cost (a failed run's ``partial_result.cost``) equals what the usage the server
reported costs at the registry's prices. Across rounds: file descriptors stay flat and, at
soak size, RSS grows by less than 20 MB from round 1 to the last.

``DPT_SOAK_RUNS`` (runs per round, default 24), ``DPT_SOAK_ROUNDS`` (default 3) and
``DPT_SOAK_SEED`` (default 32) size it; ``make soak`` runs 3 rounds of 500.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import os
import random
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, AgentResult, DocProcessingToolkitError
from doc_processing_toolkit.adapters.registry.json_file import default_registry
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Fault, Reply, ScriptStep

MODELS = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-4o",
    "google": "gemini-2.5-flash",
    "fireworks": "kimi-k2p6",
}
RUNS = int(os.environ.get("DPT_SOAK_RUNS", "24"))
ROUNDS = int(os.environ.get("DPT_SOAK_ROUNDS", "3"))
SEED = int(os.environ.get("DPT_SOAK_SEED", "32"))
FAULT_RATE = 0.10
IDLE_S = 5.0
"""The stream idle timeout: generous, so a healthy stream on a loaded machine is not
mistaken for a stall; a ``stall`` fault outlasts it."""
RUN_BOUND_S = 180.0
RSS_BOUND_MIB = 20.0
SOAK_SIZE = 500
"""Runs per round from which the RSS bound is asserted (a short run is too noisy)."""
FAULTS: tuple[Fault, ...] = (
    Fault("status", status=429, retry_after=0),
    Fault("status", status=500, retry_after=0),
    Fault("status", status=503, retry_after=0),
    Fault("status", status=529, retry_after=0),
    Fault("status", status=400),
    Fault("stream_error", status=500),
    Fault("disconnect"),
    Fault("malformed"),
    Fault("truncate"),
    Fault("stall", stall_seconds=IDLE_S + 1.0),
)
"""Every fault kind of :class:`~doc_processing_toolkit.testing.script.Fault`, and every
status class the retry layer tells apart (400 is not retried)."""
USAGE_AT_START = {"anthropic", "google", "fireworks"}
OUTPUT_AT_START = {"anthropic": 1}
PRICES = {p: default_registry().row(m).pricing for p, m in MODELS.items()}  # type: ignore[union-attr]
MARK = re.compile(r"soak-(\d+)-(\d+)-")


def dollars(provider: str, input_tokens: int, output_tokens: int) -> float:
    price = PRICES[provider]
    assert price.input_per_mtok is not None and price.output_per_mtok is not None
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6


def served_cost(provider: str, step: ScriptStep) -> float:
    """What the usage the server reports for ``step`` costs."""
    if isinstance(step, Reply):
        return dollars(provider, step.input_tokens, step.output_tokens)
    if step.kind == "status":
        return 0.0
    if provider in USAGE_AT_START or step.kind == "stream_error":
        return dollars(provider, step.input_tokens, OUTPUT_AT_START.get(provider, 0))
    return 0.0


@dataclass
class Plan:
    provider: str
    answer: str
    steps: list[ScriptStep]
    served: list[ScriptStep] = field(default_factory=list)


class Scripts:
    """Per-run scripts, answered by the emulator's responder from the run's marker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.plans: dict[tuple[int, int], Plan] = {}

    def respond(self, body: dict[str, Any]) -> ScriptStep | None:
        found = MARK.search(json.dumps(body))
        if found is None:
            return None
        key = (int(found.group(1)), int(found.group(2)))
        with self._lock:
            plan = self.plans[key]
            step = plan.steps.pop(0) if plan.steps else Reply(plan.answer)
            plan.served.append(step)
        return step


def open_fds() -> tuple[int, int]:
    """(sockets, every other descriptor) open in this process. The sockets are the SDK
    clients' keep-alive pools and the in-process emulator's ends of them: how many stay
    open after a round is the pools' business; every other descriptor must stay flat."""
    sockets = others = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:  # the listing's own descriptor, closed already
            continue
        if target.startswith("socket:"):
            sockets += 1
        else:
            others += 1
    return sockets, others


def total_fds() -> int:
    return sum(open_fds())


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def one_run(agent: Agent, prompt: str, plan: Plan) -> list[str]:
    """The problems of one run (none: it ended typed with the cost the server reported)."""
    try:
        outcome: AgentResult | DocProcessingToolkitError = await asyncio.wait_for(
            agent.run(prompt), RUN_BOUND_S
        )
    except TimeoutError:
        return [f"{prompt}: hung"]
    except DocProcessingToolkitError as exc:
        outcome = exc
    except Exception as exc:  # an error outside the tree
        return [f"{prompt}: untyped {type(exc).__name__}: {exc}"]
    result = outcome if isinstance(outcome, AgentResult) else outcome.partial_result
    if result is None:
        return [f"{prompt}: {type(outcome).__name__} carries no partial_result"]
    expected = sum(served_cost(plan.provider, step) for step in plan.served)
    estimated = sum(r["cost"] for r in result.request_cost_records if r.get("estimated"))
    problems = []
    if not math.isclose(result.cost - estimated, expected, rel_tol=1e-9, abs_tol=1e-12):
        problems.append(f"{prompt}: cost {result.cost!r} != {expected!r} reported")
    if isinstance(outcome, AgentResult) and outcome.output != plan.answer:
        problems.append(f"{prompt}: output {outcome.output!r}")
    return problems


@pytest.mark.anyio
@pytest.mark.filterwarnings(
    r"ignore:Exception ignored in. <async_generator object "
    r"(Response\.aiter_raw|BoundAsyncStream\.__aiter__|AsyncResponseStream\.__aiter__) at:"
    r"pytest.PytestUnraisableExceptionWarning"
)  # the httpx2 finalizer race test_fault_matrix.py documents
async def test_concurrent_rounds_with_faults_end_typed_exact_and_flat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")
    monkeypatch.setenv("DPT_RETRY_AFTER_CAP_S", "0.05")
    rng = random.Random(SEED)
    scripts = Scripts()
    baseline = total_fds()
    async with ProviderEmulator(default=Reply("warm")) as emu:
        emu.responder = scripts.respond
        agents = {
            p: Agent(
                MODELS[p],
                api_key="offline-test-key",
                base_url=getattr(emu, f"{p}_base_url"),
                stream_idle_timeout=IDLE_S,
                log_to_file=False,
            )
            for p in MODELS
        }
        try:
            for agent in agents.values():  # the SDKs' first parse: not part of round 1
                await agent.run("warm")
            figures: list[tuple[int, int, float, tuple[int, int], int]] = []
            problems: list[str] = []
            faulted = 0
            kinds_seen: set[str] = set()
            for round_no in range(1, ROUNDS + 1):
                jobs = []
                for index in range(RUNS):
                    provider = list(MODELS)[index % len(MODELS)]
                    answer = f"answer {round_no}.{index}"
                    steps: list[ScriptStep] = []
                    if rng.random() < FAULT_RATE:
                        fault = FAULTS[faulted % len(FAULTS)]
                        faulted += 1
                        kinds_seen.add(f"{fault.kind}:{fault.status}")
                        steps.append(
                            Fault(
                                fault.kind,
                                status=fault.status,
                                retry_after=fault.retry_after,
                                stall_seconds=fault.stall_seconds,
                                input_tokens=rng.randint(1, 500),
                                error_type="server_error" if provider != "anthropic" else None,
                            )
                        )
                    steps.append(Reply(answer, input_tokens=rng.randint(5, 50), chunk_size=7))
                    scripts.plans[(round_no, index)] = Plan(provider, answer, steps)
                    prompt = f"soak-{round_no}-{index}- go"
                    jobs.append(one_run(agents[provider], prompt, scripts.plans[(round_no, index)]))
                started = time.monotonic()
                found = await asyncio.gather(*jobs)
                elapsed = time.monotonic() - started
                problems.extend(p for run in found for p in run)
                gc.collect()
                await asyncio.sleep(0.2)  # finalizers' aclose tasks run
                gc.collect()
                ended_typed = sum(1 for run in found if not any("untyped" in p for p in run))
                figures.append((round_no, ended_typed, elapsed, open_fds(), rss_kib()))
                sockets, others = figures[-1][3]
                print(
                    f"soak round {round_no}: {RUNS} concurrent runs, {ended_typed} ended typed, "
                    f"{elapsed:.1f} s, fds {others} + {sockets} pooled sockets, "
                    f"RSS {figures[-1][4] / 1024:.1f} MiB"
                )
        finally:
            for agent in agents.values():
                await agent.close()
    gc.collect()
    await asyncio.sleep(0.2)
    after = total_fds()
    fds = [f[3][1] for f in figures]
    growth_mib = (figures[-1][4] - figures[0][4]) / 1024
    costs = sum("cost" in p for p in problems)
    print(
        f"soak: {ROUNDS} rounds x {RUNS} runs, {faulted} faulted "
        f"({len(kinds_seen)} fault kinds), {len(problems)} problems ({costs} wrong costs), "
        f"non-socket fds per round {fds}, all fds {baseline} before -> {after} after "
        f"(agents closed, emulator stopped), RSS growth round 1 -> {ROUNDS}: {growth_mib:.1f} MiB"
    )
    assert not problems, "\n".join(problems[:40])
    assert max(fds) <= fds[0] + 2, f"descriptors grew: {fds}"
    assert after <= baseline + 2, f"descriptors left open: {baseline} -> {after}"
    if RUNS >= SOAK_SIZE:
        assert len(kinds_seen) == len(FAULTS), sorted(kinds_seen)
        assert growth_mib < RSS_BOUND_MIB, f"RSS grew {growth_mib:.1f} MiB"

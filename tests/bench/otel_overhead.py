"""The telemetry rows of ``make bench``: one Agent call and one tool round with telemetry
off against the same with OpenTelemetry on (the real SDK, an in-memory span exporter and
metric reader), in interleaved rounds on the emulator. Goal: under 5% per call.

Telemetry off is every other row of the bench (the default); its cost is nil by
construction (no opentelemetry import: the import row checks it).

CPU time on the shared 2-core machine moves by several percent between identical runs,
so the same comparison is also counted in instructions (valgrind's cachegrind, the
emulator outside it; about 15 minutes on a loaded machine)::

    python tests/bench/otel_overhead.py --calls 100

Five children make the same warm-up calls with every workload; one makes nothing more
(the baseline) and each other makes ``--calls`` runs of one workload (one call or one
tool round, telemetry off or on), so (child - baseline) / calls is the cost per run.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Awaitable, Callable

from contenders import KEY, MODELS, PROMPT, TOOL_PROMPT, base_url, lookup_tool

TELEMETRY_GOAL = 1.05
"""Telemetry on costs at most 5% more CPU per call than off."""


async def telemetry_rows(
    url: str, rounds: int, n: int, provider: str = "anthropic"
) -> list[tuple[str, float, float, str, float]]:
    """(figure, off, on, unit, median ratio of the rounds) for a call and a tool round."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.adapters.telemetry import otel_telemetry
    from doc_processing_toolkit.agent.core import container_deps

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    otel = otel_telemetry(tracer_provider, meter_provider)
    deps = dataclasses.replace(container_deps(), telemetry=lambda: otel)

    def agent(telemetry: bool, **kwargs: object) -> Agent:
        return Agent(
            MODELS[provider],
            api_key=KEY,
            base_url=base_url(provider, url),
            log_to_file=False,
            telemetry=telemetry,
            deps=deps,
            **kwargs,  # type: ignore[arg-type]
        )

    off, on = agent(False), agent(True)
    off_tool, on_tool = agent(False, tools=[lookup_tool()]), agent(True, tools=[lookup_tool()])
    workloads: dict[str, dict[str, Callable[[], Awaitable[object]]]] = {
        "one call, CPU": {"off": lambda: off.run(PROMPT), "on": lambda: on.run(PROMPT)},
        "tool round, CPU": {
            "off": lambda: off_tool.run(TOOL_PROMPT),
            "on": lambda: on_tool.run(TOOL_PROMPT),
        },
    }
    rows = []
    for figure, contenders in workloads.items():
        cpu: dict[str, list[float]] = {"off": [], "on": []}
        for r in range(rounds):
            order = ["off", "on"] if r % 2 == 0 else ["on", "off"]
            for name in order:
                c0 = time.process_time()
                for _ in range(n):
                    await contenders[name]()
                cpu[name].append((time.process_time() - c0) * 1000 / n)
                exporter.clear()
        ratio = statistics.median(a / b for a, b in zip(cpu["on"], cpu["off"], strict=True))
        rows.append(
            (
                f"{provider}: {figure} (telemetry on, in-memory exporter, vs off)",
                statistics.median(cpu["off"]),
                statistics.median(cpu["on"]),
                "ms",
                ratio,
            )
        )
    for a in (off, on, off_tool, on_tool):
        await a.close()
    tracer_provider.shutdown()
    meter_provider.shutdown()
    return rows


# ---------------------------------------------------------------- instructions (cachegrind)
INSTRUCTION_CONTENDERS = ("baseline", "off", "on", "off_tool", "on_tool")
"""The cachegrind children: the common warm-up only, then one workload each."""


async def _instruction_child(url: str, contender: str, calls: int, warmup: int) -> None:
    """One child: every workload ``warmup`` times, then ``calls`` of ``contender``."""
    import warnings

    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.adapters.telemetry import otel_telemetry
    from doc_processing_toolkit.agent.core import container_deps

    warnings.filterwarnings("ignore")
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    otel = otel_telemetry(tracer_provider, meter_provider)
    deps = dataclasses.replace(container_deps(), telemetry=lambda: otel)
    provider = "anthropic"

    def agent(telemetry: bool, **kwargs: object) -> Agent:
        return Agent(
            MODELS[provider],
            api_key=KEY,
            base_url=base_url(provider, url),
            log_to_file=False,
            telemetry=telemetry,
            deps=deps,
            **kwargs,  # type: ignore[arg-type]
        )

    agents = {
        "off": (agent(False), PROMPT),
        "on": (agent(True), PROMPT),
        "off_tool": (agent(False, tools=[lookup_tool()]), TOOL_PROMPT),
        "on_tool": (agent(True, tools=[lookup_tool()]), TOOL_PROMPT),
    }
    for _ in range(warmup):
        for a, prompt in agents.values():
            await a.run(prompt)
        exporter.clear()
    if contender in agents:
        a, prompt = agents[contender]
        for i in range(calls):
            await a.run(prompt)
            if i % 50 == 49:
                exporter.clear()


def instruction_table(calls: int, warmup: int, tool_round: bool = True) -> str:
    """Instructions per call with telemetry off and on, each child under cachegrind
    (``tool_round=False``: the one-call pair only)."""
    import os
    import re
    import subprocess
    import sys
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    from bench import emulator_process

    def counted(url: str, contender: str, out: str) -> int:
        command = [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            f"--cachegrind-out-file={out}/{contender}.out",
            sys.executable,
            __file__,
            "--child",
            contender,
            "--url",
            url,
            "--calls",
            str(calls),
            "--warmup",
            str(warmup),
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0", "DPT_AGENT_LOG_TO_FILE": "0"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"{contender}: the child failed:\n{done.stderr[-2000:]}")
        return int(found.group(1).replace(",", ""))

    contenders = INSTRUCTION_CONTENDERS if tool_round else INSTRUCTION_CONTENDERS[:3]
    with emulator_process() as url, tempfile.TemporaryDirectory() as out:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            futures = {c: pool.submit(counted, url, c, out) for c in contenders}
            runs = {c: f.result() for c, f in futures.items()}
    per_call = {c: (runs[c] - runs["baseline"]) / calls for c in contenders[1:]}
    lines = [
        f"| anthropic, instructions per call ({calls} calls) | off | on | ratio |",
        "|---|---|---|---|",
    ]
    for label, off, on in (("one call", "off", "on"), ("tool round", "off_tool", "on_tool")):
        if on not in per_call:
            continue
        a, b = per_call[off], per_call[on]
        lines.append(f"| {label} | {a:,.0f} | {b:,.0f} | {b / a:.3f}x |")
    return "\n".join(lines)


def main() -> int:
    """``python tests/bench/otel_overhead.py [--calls N]``: the instruction table."""
    import argparse
    import asyncio

    parser = argparse.ArgumentParser(description="telemetry overhead in instructions per call")
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--no-tool-round", action="store_true", help="the one-call pair only")
    parser.add_argument("--child", choices=INSTRUCTION_CONTENDERS, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        asyncio.run(_instruction_child(args.url, args.child, args.calls, args.warmup))
        return 0
    print(instruction_table(args.calls, args.warmup, tool_round=not args.no_tool_round))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

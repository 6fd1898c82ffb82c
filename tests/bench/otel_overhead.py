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
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

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
        await contenders["on"]()  # one run's spans, for the SDK's floor
        floor = sdk_floor(exporter.get_finished_spans(), tracer_provider, meter_provider)
        exporter.clear()
        cpu: dict[str, list[float]] = {"off": [], "on": [], "floor": []}
        for r in range(rounds):
            order = ["off", "on"] if r % 2 == 0 else ["on", "off"]
            for name in order:
                c0 = time.process_time()
                for _ in range(n):
                    await contenders[name]()
                cpu[name].append((time.process_time() - c0) * 1000 / n)
                exporter.clear()
            c0 = time.process_time()
            for _ in range(n):
                floor()
            cpu["floor"].append((time.process_time() - c0) * 1000 / n)
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
        own = statistics.median(
            (a - f) / b for a, f, b in zip(cpu["on"], cpu["floor"], cpu["off"], strict=True)
        )
        rows.append(
            (
                f"{provider}: {figure} (on, less the OpenTelemetry SDK's own floor "
                f"{statistics.median(cpu['floor']):.3f} ms: the toolkit's share, vs off)",
                statistics.median(cpu["off"]),
                statistics.median(cpu["on"]) - statistics.median(cpu["floor"]),
                "ms",
                own,
            )
        )
    for a in (off, on, off_tool, on_tool):
        await a.close()
    tracer_provider.shutdown()
    meter_provider.shutdown()
    return rows


# ---------------------------------------------------------------- instructions (cachegrind)
INSTRUCTION_CONTENDERS = (
    "baseline",
    "off",
    "on",
    "off_tool",
    "on_tool",
    "floor",
    "floor_tool",
)
"""The cachegrind children: the common warm-up only, then one workload each. ``floor``
and ``floor_tool`` make, through the OpenTelemetry SDK alone (no toolkit code, no
request), the spans and metric records one telemetry-on run of that workload made: what
the conventions' spans and measurements cost in the SDK, whoever makes them."""

_MODEL_KEYS = (
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.request.model",
    "server.address",
)
"""A model's attributes, the base of its metric records (as the adapter's ``_Model``)."""
_LATE_PREFIXES = ("gen_ai.response.", "gen_ai.usage.", "gen_ai.output.", "error.type")
_LATE_KEYS = ("doc_processing_toolkit.cost.usd", "doc_processing_toolkit.retry.cost.usd")


def _late(key: str) -> bool:
    """An attribute the toolkit sets when a span ends (the rest when it starts)."""
    return key.startswith(_LATE_PREFIXES) or key in _LATE_KEYS


def sdk_floor(
    spans: Sequence[Any], tracer_provider: Any, meter_provider: Any
) -> Callable[[], None]:
    """One run's telemetry (``spans``: the finished spans of one run) made again through
    the OpenTelemetry SDK alone: each span with its start attributes, its late ones in one
    ``set_attributes``, and each ``chat`` span's four metric records (input and output
    tokens, duration, cost) with the attribute sets the toolkit gives them."""
    from opentelemetry import trace

    from doc_processing_toolkit.adapters.telemetry import otel as adapter

    tracer = tracer_provider.get_tracer("floor")
    meter = meter_provider.get_meter("floor")
    tokens = meter.create_histogram(
        "floor.token.usage", explicit_bucket_boundaries_advisory=adapter._TOKEN_BUCKETS
    )
    duration = meter.create_histogram(
        "floor.duration", explicit_bucket_boundaries_advisory=adapter._DURATION_BUCKETS
    )
    cost = meter.create_counter("floor.cost")
    root = next(s for s in spans if s.parent is None or s.name.startswith("invoke_agent"))
    children = sorted((s for s in spans if s is not root), key=lambda s: s.start_time or 0)

    def split(span: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        attributes = dict(span.attributes or {})
        late = {k: v for k, v in attributes.items() if _late(k)}
        return {k: v for k, v in attributes.items() if not _late(k)}, late

    run_start, run_late = split(root)
    plans = []
    for span in children:
        start, late = split(span)
        records = None
        if span.name.startswith("chat "):
            base = {k: start[k] for k in _MODEL_KEYS if k in start}
            base["gen_ai.response.model"] = late.get("gen_ai.response.model", "")
            records = (
                int(late.get("gen_ai.usage.input_tokens", 0)),
                {**base, "gen_ai.token.type": "input"},
                int(late.get("gen_ai.usage.output_tokens", 0)),
                {**base, "gen_ai.token.type": "output"},
                base,
                float(late.get("doc_processing_toolkit.cost.usd", 0.0)),
                {
                    k: base[k]
                    for k in (
                        "gen_ai.provider.name",
                        "gen_ai.request.model",
                        "gen_ai.response.model",
                    )
                },
            )
        plans.append((span.name, span.kind, start, late, records))

    def once() -> None:
        with tracer.start_as_current_span(root.name, kind=root.kind, attributes=run_start) as run:
            for name, kind, start, late, records in plans:
                span = tracer.start_span(name, kind=kind, attributes=start)
                span.set_attributes(late)
                span.end()
                if records is not None:
                    n_in, a_in, n_out, a_out, a_duration, usd, a_cost = records
                    context = trace.set_span_in_context(span)
                    tokens.record(n_in, a_in, context=context)
                    tokens.record(n_out, a_out, context=context)
                    duration.record(0.05, a_duration, context=context)
                    cost.add(usd, a_cost, context=context)
            run.set_attributes(run_late)

    return once


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
    floors = {}  # built by every child, so the baseline counts their making too
    for name in ("floor", "floor_tool"):
        a, prompt = agents[name.replace("floor", "on")]
        await a.run(prompt)  # one run's spans, to make again
        floors[name] = sdk_floor(exporter.get_finished_spans(), tracer_provider, meter_provider)
        exporter.clear()
        for _ in range(warmup):
            floors[name]()
        exporter.clear()
    if contender in floors:
        for i in range(calls):
            floors[contender]()
            if i % 50 == 49:
                exporter.clear()
        return
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

    contenders = (
        INSTRUCTION_CONTENDERS
        if tool_round
        else tuple(c for c in INSTRUCTION_CONTENDERS if not c.endswith("tool"))
    )
    with emulator_process() as url, tempfile.TemporaryDirectory() as out:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            futures = {c: pool.submit(counted, url, c, out) for c in contenders}
            runs = {c: f.result() for c, f in futures.items()}
    per_call = {c: (runs[c] - runs["baseline"]) / calls for c in contenders[1:]}
    lines = [
        f"| anthropic, instructions per run ({calls} runs) | off | on | on / off "
        "| the SDK alone (floor) | floor / off | the toolkit's own (on - off - floor) / off |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = (("one call", "off", "on", "floor"), ("tool round", "off_tool", "on_tool", "floor_tool"))
    for label, off, on, floor in rows:
        if on not in per_call:
            continue
        a, b, f = per_call[off], per_call[on], per_call[floor]
        lines.append(
            f"| {label} | {a:,.0f} | {b:,.0f} | {b / a:.3f}x | {f:,.0f} | {f / a:.1%} "
            f"| {(b - a - f) / a:+.1%} |"
        )
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

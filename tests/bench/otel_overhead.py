"""The telemetry rows of ``make bench``: one Agent call and one tool round with telemetry
off against the same with OpenTelemetry on (the real SDK, an in-memory span exporter and
metric reader), in interleaved rounds on the emulator. Goal: under 5% per call.

Telemetry off is every other row of the bench (the default); its cost is nil by
construction (no opentelemetry import: the import row checks it).
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

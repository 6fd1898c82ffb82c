"""One run's OpenTelemetry spans printed by the SDK's console exporter, offline against the
loopback emulator: the run, its two requests (one refused with a 429 and retried) and the
tool call between them, each with its GenAI attributes and its cost.

    pip install 'doc-processing-toolkit[otel]' opentelemetry-sdk
    python examples/telemetry_console.py
"""

from __future__ import annotations

import sys

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.telemetry import instrument, uninstrument
from doc_processing_toolkit.testing import Fault, ProviderEmulator, Reply, ToolCall


@tool
def lookup(key: str) -> str:
    """Look an invoice up."""
    return f"invoice {key}: 49 EUR"


def main() -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stdout)))
    instrument(tracer_provider=provider)
    script = [
        Reply(tool_calls=(ToolCall("lookup", {"key": "inv-7"}),), input_tokens=900),
        Fault(status=429, retry_after=0.0),
        Reply(text="The total of inv-7 is 49 EUR.", input_tokens=1_000, output_tokens=12),
    ]
    try:
        with ProviderEmulator(script) as emulator:
            agent = Agent(
                "claude-sonnet-5-5",
                tools=[lookup],
                api_key="offline-example",
                base_url=emulator.anthropic_base_url,
                log_to_file=False,
            )
            result = agent.run_sync("What is the total of invoice inv-7?")
    finally:
        uninstrument()
        provider.shutdown()
    print(result.output)
    print(f"cost: ${result.cost:.6f} (the invoke_agent span's doc_processing_toolkit.cost.usd)")


if __name__ == "__main__":
    main()

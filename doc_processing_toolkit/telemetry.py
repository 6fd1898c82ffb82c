"""OpenTelemetry for every Agent of the process: ``instrument()`` / ``uninstrument()``.

::

    from doc_processing_toolkit.telemetry import instrument
    instrument()                      # the API's global tracer and meter providers

Each run is an ``invoke_agent`` span, each provider request (every retried attempt too) a
``chat {model}`` span with its tokens and ``doc_processing_toolkit.cost.usd``, each tool
call an ``execute_tool {name}`` span, following the GenAI semantic conventions (see
docs/guide/telemetry.md). ``Agent(..., telemetry=True)`` turns it on for one Agent.
Needs the ``otel`` extra (opentelemetry-api); the SDK and exporters are the caller's.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.adapters.telemetry import otel_telemetry
from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.telemetry import runtime

__all__ = ["instrument", "uninstrument"]


def instrument(
    tracer_provider: Any = None, meter_provider: Any = None, capture_content: bool = False
) -> None:
    """Record every Agent run of this process as OpenTelemetry spans and metrics.

    Args:
        tracer_provider: The TracerProvider (None: the API's global one).
        meter_provider: The MeterProvider (None: the API's global one).
        capture_content: Record prompts, outputs, tool arguments and results (redacted
            like the logs); also on with
            ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``. Default: False.

    Raises:
        MissingDependencyError: opentelemetry-api is not installed (the ``otel`` extra).
    """
    capture = capture_content or environment.capture_message_content()
    runtime.install(otel_telemetry(tracer_provider, meter_provider, capture_content=capture))


def uninstrument() -> None:
    """Stop the process-wide telemetry of `instrument` (Agents built with
    ``telemetry=True`` keep theirs)."""
    runtime.install(None)

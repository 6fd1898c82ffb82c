"""Telemetry adapters: OpenTelemetry (``otel.py``, the ``otel`` extra), imported lazily."""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.domain.errors import MissingDependencyError
from doc_processing_toolkit.ports.telemetry import Telemetry

__all__ = ["otel_telemetry"]


def otel_telemetry(
    tracer_provider: Any = None, meter_provider: Any = None, *, capture_content: bool = False
) -> Telemetry:
    """The OpenTelemetry adapter (None providers: the API's global ones, as set later).

    Raises:
        MissingDependencyError: opentelemetry-api is not installed (the ``otel`` extra).
    """
    try:
        from doc_processing_toolkit.adapters.telemetry.otel import OtelTelemetry
    except ImportError as exc:
        raise MissingDependencyError(
            "telemetry needs opentelemetry-api: pip install 'doc-processing-toolkit[otel]'"
            " (the otel extra)"
        ) from exc
    return OtelTelemetry(tracer_provider, meter_provider, capture_content=capture_content)

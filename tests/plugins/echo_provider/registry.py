"""The registry row a host adds for the echo model (the toolkit's registry has none)."""

from __future__ import annotations

from doc_processing_toolkit.domain.registry import ModelInfo, Pricing

__all__ = ["ECHO_MODEL", "ECHO_ROW"]

ECHO_MODEL = "echo-1"
ECHO_ROW = ModelInfo(
    model=ECHO_MODEL,
    provider="echo",
    context_window_tokens=32_000,
    max_output_tokens=4_096,
    pricing=Pricing(input_per_mtok=1.0, output_per_mtok=2.0, cache_read_per_mtok=0.1),
)
"""$1 input, $0.10 cache reads, $2 output per million tokens."""

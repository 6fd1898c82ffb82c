"""The request records of a structured-output run (``run(output_schema=...)``).

A structured-output run normally makes one request (Path A, the native schema, or Path B,
the forced ``final_result`` tool), so its single record IS the run's totals: it carries
``synthesised_from_run_totals: True``, and its input, output, cached, cache-write and
reasoning tokens and its cost are the run-level fields of the result, exactly. When the
run needed more than one request (Path B with tool rounds before ``final_result``, a
``pause_turn`` continuation) or a retried attempt, every record is that one request's own
and carries ``synthesised_from_run_totals: False``.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.domain.costs.retry import RetryAccumulator

__all__ = ["SYNTHESISED_KEY", "mark_structured_records"]

SYNTHESISED_KEY = "synthesised_from_run_totals"
"""The record key that says the record is the run's totals."""


def mark_structured_records(records: list[dict[str, Any]], attempts: RetryAccumulator) -> None:
    """Stamp `SYNTHESISED_KEY` on every record of a successful structured run."""
    single = len(records) == 1 and not attempts.attempts
    for record in records:
        record[SYNTHESISED_KEY] = single

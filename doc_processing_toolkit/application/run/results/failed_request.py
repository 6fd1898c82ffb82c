"""The cost record of the request a run failed on, or was cancelled in.

A request that fails after it was accepted was still billed: for what its stream had
reported (``partial_usage``, or the usage of a request cancelled mid-stream), and, when
the provider reported nothing at all although part of the reply had streamed, for an
estimate of that output plus the request's pre-flight input estimate
(``Agent(estimate_input_tokens=...)``; ``"billable_error_input_only"`` when no text had
streamed). Each case is one more entry of ``request_cost_records``, marked
``token_source: "stream_partial"``; the estimated one also carries ``estimated: True``
(its output tokens are a count of the streamed text, priced at standard rates with no
input tokens, and it raises ``cost_estimated``). A request refused before it streamed
cost nothing and has no record.
"""

from __future__ import annotations

from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.domain.costs.estimate import estimate_tokens_from_chars
from doc_processing_toolkit.domain.costs.pricing import CostRecord, price_request
from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import Usage

__all__ = ["BILLABLE_INPUT_ONLY", "STREAM_PARTIAL", "failed_request_record"]

STREAM_PARTIAL = "stream_partial"
"""The token_source of a record (and a run) whose counts came from a failed stream."""
BILLABLE_INPUT_ONLY = "billable_error_input_only"
"""The token_source of a failed stream that reported nothing and streamed no text: only
its pre-flight input estimate (``estimate_input_tokens``) is billed."""


def _usage_of_failure(outcome: RunOutcome) -> tuple[Usage, bool] | None:
    """(usage, estimated) the failed or cut-off request was billed for, or None."""
    if outcome.in_flight_usage is not None:  # cancelled mid-stream: what it had reported
        return outcome.in_flight_usage, False
    error = outcome.error
    if not isinstance(error, ProviderError) or error.before_stream:
        return None
    if error.partial_usage is not None:
        return error.partial_usage, False
    estimate = outcome.input_estimate()  # the pre-flight input estimate (0: none)
    if error.deltas_emitted and error.streamed_chars > 0:
        output = estimate_tokens_from_chars(error.streamed_chars)
        return Usage(input_tokens=estimate, output_tokens=output), True
    if error.deltas_emitted and estimate > 0:
        return Usage(input_tokens=estimate), True
    return None


def failed_request_record(outcome: RunOutcome, row: ModelInfo | None) -> CostRecord | None:
    """The record of the request ``outcome`` ended on, when it billed anything.

    Priced at the standard row, since a broken stream never confirmed the tier that served
    it (the tier asked for stays on the record), and with the request's cache TTL.
    """
    found = _usage_of_failure(outcome)
    if found is None:
        return None
    usage, estimated = found
    request = outcome.current_request
    ttl = str(((request.prompt_caching if request else None) or {}).get("ttl", "5m"))
    source = BILLABLE_INPUT_ONLY if estimated and usage.output_tokens == 0 else STREAM_PARTIAL
    extra: dict[str, object] = {"token_source": source}
    if estimated:
        extra["estimated"] = True
    return price_request(
        usage,
        row,
        requested_tier=request.service_tier if request else None,
        served_tier=None,  # never confirmed: billed at the standard row
        cache_ttl=ttl,
        purpose=request.purpose if request else None,
        request_index=len(outcome.ledger.records) + 1,
        iteration=outcome.current_iteration or outcome.iterations or None,
        estimated=estimated,
        extra=extra,
    )

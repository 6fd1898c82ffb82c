"""Turns a RunOutcome (the loop's raw state) into an AgentResult.

Cost is the sum of the per-request records, plus the failed-and-retried attempts, plus
the partial spend of a final failed attempt (stream_partial), plus what tools reported.
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.config.log_setup import redact
from doc_processing_toolkit.application.costs.structured import mark_structured_records
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.results.cost_report import (
    ReportContext,
    RunCostFacts,
    build_detailed_report,
    write_detailed_report,
)
from doc_processing_toolkit.application.run.results.failed_request import (
    STREAM_PARTIAL,
    failed_request_record,
)
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.domain import messages as _ir
from doc_processing_toolkit.domain.binding import count_mismatches
from doc_processing_toolkit.domain.costs.ledger import add_model_tokens
from doc_processing_toolkit.domain.costs.pricing import CostRecord, round_usd
from doc_processing_toolkit.domain.errors import AgentAborted, ProviderError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.ports.dialect import HistoryCodec

__all__ = ["build_result", "failure_metadata"]

log = get_logger(__name__)


def _structured(outcome: RunOutcome) -> bool:
    """Whether the run asked for structured output (Path A's schema or Path B's tool)."""
    request = outcome.current_request
    return request is not None and (
        request.output_schema is not None or outcome.final_result_tool is not None
    )


def build_result(
    outcome: RunOutcome,
    *,
    run_id: str,
    codec: HistoryCodec | None,
    row: ModelInfo | None,
    detailed_costs: bool = False,
    cost_output_dir: str | None = None,
    built_in_tools_used: list[str] | None = None,
    report_context: ReportContext | None = None,
) -> AgentResult:
    """The AgentResult of ``outcome`` (error set when the run failed)."""
    ledger, attempts = outcome.ledger, outcome.accumulator
    token_source: str | None = "api_response" if ledger.records else None
    error_text: str | None = None

    error = outcome.error
    if error is not None:
        error_text = redact(f"{type(error).__name__}: {error}")
        if not ledger.records and isinstance(error, ProviderError) and error.before_stream:
            # Refused before a byte streamed (after any retries): nothing was billed.
            token_source = "rejected_before_stream"
        elif not ledger.records:
            token_source = "unknown"
    partial_record = failed_request_record(outcome, row)
    retried = attempts.attempts
    cost = float(ledger.total_cost) + (float(attempts.total_cost) if retried else 0.0)
    estimated = bool(ledger.cost_estimated) or (bool(attempts.cost_estimated) if retried else False)
    priced = ledger.records
    if partial_record is not None:  # the request the run failed on (or was cancelled in)
        priced = [*priced, partial_record]
        cost += partial_record.cost
        estimated = estimated or partial_record.cost_estimated
        token_source = str(partial_record.extra.get("token_source", STREAM_PARTIAL))
    records = [r.to_dict() for r in priced]
    # The priced records' token totals in one pass, on top of the retried attempts'.
    input_tokens = output_tokens = reasoning_tokens = cached_input_tokens = 0
    if retried:
        input_tokens, output_tokens = attempts.total_input_tokens, attempts.total_output_tokens
        reasoning_tokens = attempts.total_reasoning_tokens
        cached_input_tokens = attempts.total_cached_input_tokens
    cache_write_tokens = 0
    for record in priced:
        input_tokens += record.input_tokens
        output_tokens += record.output_tokens
        reasoning_tokens += record.reasoning_tokens
        cached_input_tokens += record.cached_input_tokens
        cache_write_tokens += record.cache_write_tokens
    if error is None and _structured(outcome):
        mark_structured_records(records, attempts)

    tool_costs = [dict(r) for r in outcome.tool_reported_costs]
    tool_reported = 0.0
    tool_estimated: dict[str, bool] = {}
    if tool_costs:
        tool_reported = float(sum(r["usd"] for r in tool_costs))
        cost += tool_reported
        for r in tool_costs:
            name = r["tool_name"]
            tool_estimated[name] = tool_estimated.get(name, False) or r["estimated"]
        estimated = estimated or any(tool_estimated.values())

    new_messages = outcome.messages
    if codec is not None:
        messages = codec.render(new_messages)
    else:
        messages = _ir.MESSAGES_ADAPTER.dump_python(new_messages, mode="json")
    last = outcome.last_response
    waiting = error is None and bool(outcome.pending_approvals)
    result = AgentResult(
        output=outcome.output if error is None else None,
        raw_response=last.raw if last is not None else None,
        messages=messages,
        iterations=outcome.iterations,
        tools_used=list(dict.fromkeys(outcome.tools_used)),  # each once, first-seen order
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        reasoning_tokens=reasoning_tokens,
        cached_input_tokens=cached_input_tokens,
        cache_write_tokens=cache_write_tokens,
        request_cost_records=records,
        tier_downgraded=bool(ledger.tier_downgraded),
        cost=round_usd(cost),
        cost_estimated=estimated,
        tool_reported_cost=round_usd(tool_reported),
        tool_reported_costs=tool_costs,
        tool_costs_estimated=tool_estimated,
        deferred_tools=list(outcome.deferred_tools),
        token_source=token_source,
        token_totals_by_model=_totals_by_model(outcome, partial_record),
        reasoning_content=outcome.reasoning_content,
        error=error_text,
        run_id=run_id,
        pause_turn_iterations=outcome.pause_turn_iterations,
        built_in_tools_used=list(built_in_tools_used or []),
        built_in_tools_invoked=list(outcome.built_in_tools_invoked),
        retry_count=len(retried),
        retry_cost=round_usd(attempts.total_cost) if retried else 0.0,
        retry_input_tokens=attempts.total_input_tokens if retried else 0,
        retry_output_tokens=attempts.total_output_tokens if retried else 0,
        status="failed" if error else ("awaiting_approval" if waiting else "completed"),
        pending_approvals=list(outcome.pending_approvals) if waiting else [],
        citations=list(outcome.citations),
    )
    _apply_response_metadata(result, outcome.response_metadata)
    _apply_compactions(result, outcome)
    result.prefix_binding_retry = outcome.prefix_binding_retry
    if detailed_costs:
        context = report_context or ReportContext(
            provider=last.provider if last is not None else ""
        )
        facts = RunCostFacts(
            records=outcome.ledger.records,
            attempts=outcome.accumulator.attempts,
            request_facts=outcome.request_facts,
            tool_call_facts=outcome.tool_call_facts,
        )
        report = build_detailed_report(result, facts, context, partial=partial_record)
        result.iteration_metrics = list(report.iterations)
        _mark_compactions(result, outcome)
        try:
            result.detailed_cost_file = write_detailed_report(report, cost_output_dir)
        except OSError as exc:
            log.warning("could not save the detailed cost report", error=str(exc))
    return result


def _totals_by_model(outcome: RunOutcome, partial: CostRecord | None) -> dict[str, dict[str, int]]:
    """The ledger's billed tokens per model, plus what the run's totals also count: the
    billed failed-and-retried attempts (on the model the run asked for) and the request
    the run failed on (on its served model). The entries then sum to the result's
    ``input_tokens`` / ``output_tokens``."""
    totals = outcome.ledger.token_totals_by_model
    request = outcome.current_request
    requested = request.model if request is not None else None
    extra = (
        [
            (requested, a.input_tokens, a.output_tokens)
            for a in outcome.accumulator.attempts
            if a.billed
        ]
        if outcome.accumulator.attempts
        else []
    )
    if partial is not None:
        extra.append(
            (partial.served_model or requested, partial.input_tokens, partial.output_tokens)
        )
    for model, input_tokens, output_tokens in extra:
        if input_tokens or output_tokens:  # a billed attempt with no usage adds no entry
            add_model_tokens(totals, model, input_tokens, output_tokens)
    return totals


_METADATA_FIELDS = frozenset(
    {
        "container_id",
        "distinct_urls",
        "files_created",
        "input_transformations",
        "skills_used",
        "media_uploads",
        "dropped_parts",
    }
)


def _apply_response_metadata(result: AgentResult, metadata: dict[str, Any]) -> None:
    """Copy the provider facts a response reported onto the result's documented fields."""
    for key, value in metadata.items():
        if key in _METADATA_FIELDS:
            setattr(result, key, list(value) if isinstance(value, list) else value)
    prefix, model = count_mismatches(result.input_transformations)
    result.prefix_binding_mismatches, result.model_binding_mismatches = prefix, model


def _apply_compactions(result: AgentResult, outcome: RunOutcome) -> None:
    """The run's compaction counts (their summaries' records are already in the totals)."""
    done = outcome.compactions
    if not done:  # the result's defaults
        return
    result.compaction_count = len(done)
    result.compaction_input_tokens = sum(c.summary_input_tokens for c in done)
    result.compaction_output_tokens = sum(c.summary_output_tokens for c in done)
    result.compaction_cost = round_usd(sum(c.summary_cost for c in done))
    result.compaction_archives = [c.archive_path for c in done if c.archive_path]


def _mark_compactions(result: AgentResult, outcome: RunOutcome) -> None:
    """Stamp each compaction on the first iteration_metrics entry of its iteration."""
    for compaction, iteration in zip(
        outcome.compactions, outcome.compaction_iterations, strict=False
    ):
        entry = next((m for m in result.iteration_metrics if m.iteration_number == iteration), None)
        if entry is not None:
            entry.compaction_triggered = True
            entry.compaction_strategy = compaction.strategy
            entry.compaction_tokens_cleared += compaction.tokens_cleared


def failure_metadata(result: AgentResult, error: BaseException) -> dict[str, Any]:
    """The ``error`` stream event's metadata for a failed run."""
    aborted = isinstance(error, AgentAborted)
    meta: dict[str, Any] = {
        "input_tokens": result.input_tokens,
        "output_tokens": result.output_tokens,
        "cost": result.cost,
        "iterations": result.iterations,
        # What the failed run had spent is partial data, whatever the records' source.
        "token_source": "stream_partial"
        if result.input_tokens or result.output_tokens or result.cost
        else "unknown",
        "error_type": type(error).__name__,
        "aborted": aborted,
        "reason": error.reason if isinstance(error, AgentAborted) else None,
        "undelivered_injections": list(result.undelivered_injections),
    }
    if result.tool_reported_costs:
        meta["tool_reported_cost"] = result.tool_reported_cost
        meta["tool_reported_costs"] = [dict(r) for r in result.tool_reported_costs]
    return meta

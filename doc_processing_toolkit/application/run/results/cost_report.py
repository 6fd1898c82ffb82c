"""Building the DetailedCostReport of one run, and writing it.

One `IterationMetrics` per API request, in order, each carrying the failed-and-
retried attempts that preceded it (their tokens and cost are part of the entry's, and
listed in ``retry_details``). A run that failed mid-stream after its last priced request
gets one more entry, ``purpose="stream_partial"``, with the spend the failure reported
(and any retries before it). So the entries' costs plus the tools' reported spend are the
run's cost — and ``total_cost`` is ``AgentResult.cost`` itself, to the cent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.costs.report import (
    DetailedCostReport,
    IterationMetrics,
    ToolCallMetrics,
)
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.domain.costs.pricing import CostRecord, pricing_snapshot
from doc_processing_toolkit.domain.costs.retry import RetryAttemptCost
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["ReportContext", "RunCostFacts", "build_detailed_report", "write_detailed_report"]

STREAM_PARTIAL_PURPOSE = "stream_partial"


@dataclass(frozen=True, slots=True)
class ReportContext:
    """What the Agent knows about the run that the ledger does not."""

    provider: str = ""
    thinking_config: dict[str, Any] | None = None
    max_iterations: int = 0
    temperature: float | None = None
    tools_available: tuple[str, ...] = ()
    pricing_info: Mapping[str, float] = field(default_factory=dict)
    deployment: str | None = None

    @classmethod
    def of(
        cls, settings: AgentSettings, provider: str, row: ModelInfo | None, tools: Iterable[Any]
    ) -> ReportContext:
        """The context of an Agent with ``settings`` on ``provider`` (``row``: its model)."""
        return cls(
            provider=provider,
            thinking_config=settings.generation.thinking,
            max_iterations=settings.generation.max_iterations,
            temperature=settings.generation.temperature,
            tools_available=tuple(str(getattr(t, "name", t)) for t in tools),
            pricing_info=pricing_snapshot(row),
            deployment=row.deployment if row is not None else None,
        )


@dataclass(frozen=True, slots=True)
class RunCostFacts:
    """The run's raw cost facts (from the run loop's outcome)."""

    records: Sequence[CostRecord]
    attempts: Sequence[RetryAttemptCost]
    request_facts: Sequence[Mapping[str, Any]]
    tool_call_facts: Sequence[Mapping[str, Any]]


def _tool_metrics(fact: Mapping[str, Any]) -> ToolCallMetrics:
    return ToolCallMetrics(
        tool_name=str(fact.get("tool_name", "")),
        tool_call_id=fact.get("tool_call_id"),
        success=bool(fact.get("success", True)),
        duration_ms=int(fact.get("duration_ms", 0)),
        error=fact.get("error"),
        input_size=int(fact.get("input_size", 0)),
        output_size=int(fact.get("output_size", 0)),
        tool_reported_cost=float(fact.get("tool_reported_cost", 0.0)),
        tool_reported_cost_estimated=bool(fact.get("tool_reported_cost_estimated", False)),
    )


def _entry(
    number: int,
    retries: Sequence[RetryAttemptCost],
    *,
    record: CostRecord | None,
    facts: Mapping[str, Any],
    purpose: str | None,
) -> IterationMetrics:
    base = record or CostRecord()
    return IterationMetrics(
        iteration_number=number,
        input_tokens=base.input_tokens + sum(a.input_tokens for a in retries),
        output_tokens=base.output_tokens + sum(a.output_tokens for a in retries),
        reasoning_tokens=base.reasoning_tokens + sum(a.reasoning_tokens for a in retries),
        cached_input_tokens=base.cached_input_tokens + sum(a.cached_input_tokens for a in retries),
        cache_write_tokens=base.cache_write_tokens,
        cost=base.cost + sum(a.cost for a in retries),
        duration_ms=int(facts.get("duration_ms", 0)),
        thinking_enabled=bool(facts.get("thinking", False)),
        stop_reason=str(facts.get("stop_reason") or ""),
        retry_count=len(retries),
        retry_cost=float(sum(a.cost for a in retries)),
        retry_input_tokens=sum(a.input_tokens for a in retries),
        retry_output_tokens=sum(a.output_tokens for a in retries),
        retry_details=[a.to_dict() for a in retries],
        model=base.served_model,
        purpose=purpose,
        citation_count=int(facts.get("citations", 0)),
    )


def _iterations(
    facts: RunCostFacts, result: AgentResult, partial: CostRecord | None
) -> list[IterationMetrics]:
    entries: list[IterationMetrics] = []
    used = 0
    for index, record in enumerate(facts.records):
        request = facts.request_facts[index] if index < len(facts.request_facts) else {}
        upto = int(request.get("retries_before", used))
        number = record.iteration if record.iteration is not None else index + 1
        entries.append(
            _entry(
                number,
                facts.attempts[used:upto],
                record=record,
                facts=request,
                purpose=record.purpose,
            )
        )
        used = upto
    rest = facts.attempts[used:]
    if partial is not None or rest:
        number = entries[-1].iteration_number + 1 if entries else 1
        entries.append(
            _entry(
                number,
                rest,
                record=partial,
                facts={"stop_reason": "error"},
                purpose=STREAM_PARTIAL_PURPOSE if partial is not None else "failed_request",
            )
        )
    calls = [_tool_metrics(f) for f in facts.tool_call_facts]
    for call, fact in zip(calls, facts.tool_call_facts, strict=True):
        owner = next(
            (e for e in entries if e.iteration_number == fact.get("iteration")),
            entries[-1] if entries else None,
        )
        if owner is not None:
            owner.tool_calls.append(call)
    return entries


def build_detailed_report(
    result: AgentResult,
    facts: RunCostFacts,
    context: ReportContext,
    *,
    partial: CostRecord | None = None,
) -> DetailedCostReport:
    """The run's report; its totals are the result's (``total_cost == result.cost``).

    Args:
        partial: The priced partial usage of a final failed attempt (stream_partial).
    """
    report = DetailedCostReport(
        run_id=result.run_id or "",
        provider=context.provider,
        model_name=next((r.served_model for r in facts.records if r.served_model), "") or "",
        thinking_config=dict(context.thinking_config) if context.thinking_config else None,
        max_iterations=context.max_iterations,
        temperature=float(context.temperature or 0.0),
        tools_available=list(context.tools_available),
        pricing_info=dict(context.pricing_info),
        deployment=context.deployment,
    )
    report.iterations = _iterations(facts, result, partial)
    report.request_cost_records = [dict(r) for r in result.request_cost_records]
    report.finalize()
    if not report.iterations:
        report.thinking_enabled = bool(context.thinking_config) and (
            (context.thinking_config or {}).get("type") != "disabled"
        )
    report.total_duration_ms = sum(e.duration_ms for e in report.iterations) or (
        report.total_duration_ms
    )
    report.total_cost = result.cost
    report.cost_estimated = result.cost_estimated
    report.total_input_tokens = result.input_tokens
    report.total_output_tokens = result.output_tokens
    report.total_reasoning_tokens = result.reasoning_tokens
    report.total_cached_input_tokens = result.cached_input_tokens
    report.total_cache_write_tokens = result.cache_write_tokens
    report.total_retry_cost = result.retry_cost
    report.total_retry_input_tokens = result.retry_input_tokens
    report.total_retry_output_tokens = result.retry_output_tokens
    report.total_retry_count = result.retry_count
    report.total_tool_reported_cost = result.tool_reported_cost
    report.tool_reported_costs = [dict(r) for r in result.tool_reported_costs]
    report.prefix_binding_mismatches = result.prefix_binding_mismatches
    report.model_binding_mismatches = result.model_binding_mismatches
    report.prefix_binding_retry = result.prefix_binding_retry
    report.token_totals_by_model = {m: dict(t) for m, t in result.token_totals_by_model.items()}
    if not report.tools_used:
        report.tools_used = list(dict.fromkeys(result.tools_used))
    return report


def write_detailed_report(report: DetailedCostReport, directory: str | None) -> str:
    """Save ``report`` atomically into ``directory`` (default ``agent_costs``)."""
    return report.save(directory or "agent_costs")

"""The run loop's per-result bookkeeping: the model's copy (cap and read-back) and the
spend a tool reported through the ``_dpt_spend`` marker.

Spend reporting is on unless ``DPT_AGENT_TOOL_REPORTED_COST=off`` (the Agent reads the
variable once per run).
"""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.domain.tools.reports import ReportedSpend, find_spend
from doc_processing_toolkit.domain.tools.results import CapOutcome, cap_tool_result
from doc_processing_toolkit.domain.tools.specs import ToolOutcome
from doc_processing_toolkit.domain.tools.truncated import (
    TruncatedResultStore,
    cap_with_read_back,
)

__all__ = [
    "TOOL_REPORTED_COST_ENV",
    "cap_for_model",
    "reported_spend",
    "spend_record",
    "tool_reported_cost_enabled",
]

TOOL_REPORTED_COST_ENV = environment.TOOL_REPORTED_COST_ENV


def tool_reported_cost_enabled() -> bool:
    """False when ``DPT_AGENT_TOOL_REPORTED_COST`` is ``off`` (or 0 / false / no)."""
    return environment.run_switches().tool_reported_cost


def cap_for_model(
    outcome: ToolOutcome,
    cap: int,
    *,
    call_id: str,
    store: TruncatedResultStore | None,
    read_chars: int,
    exempt: bool = False,
) -> CapOutcome:
    """The model's copy of a result: capped, and kept for read-back when that is on.

    ``exempt`` results (the read-back tool's own slices, already at most ``cap`` long
    plus their note) are passed through whole.
    """
    if exempt:
        return cap_tool_result(outcome.content, 0)
    if store is None or read_chars <= 0:
        return cap_tool_result(outcome.content, cap)
    capped, _ = cap_with_read_back(
        outcome.content, cap, store=store, call_id=call_id, allowance=read_chars
    )
    return capped


def reported_spend(outcome: ToolOutcome, log: Any) -> ReportedSpend | None:
    """The spend a tool reported in its result (None when none, or malformed: one WARNING)."""
    texts = [outcome.text] if outcome.text else []
    try:
        raw = outcome.meta.get("dpt_spend", outcome.meta.get("_dpt_spend"))
        if raw is not None:
            return find_spend({"_dpt_spend": raw})
        return find_spend(outcome.data, texts)
    except ValueError as exc:
        log.warning("ignored a malformed _dpt_spend marker", error=str(exc))
        return None


def spend_record(
    spend: ReportedSpend, *, tool_name: str, tool_call_id: str, iteration: int
) -> dict[str, Any]:
    """One ``AgentResult.tool_reported_costs`` entry."""
    return {
        "tool_name": tool_name,
        "tool_call_id": tool_call_id,
        "usd": spend.usd,
        "estimated": spend.estimated,
        "iteration": iteration,
    }

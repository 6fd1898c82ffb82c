"""DetailedCostReport class for tracking and reporting agent execution costs.

The documented import path ``doc_processing_toolkit.agent.cost``: thin re-exports of the
stream event, the cost report types, the retry accounting and the tier helpers.
"""

from __future__ import annotations

from doc_processing_toolkit.application.costs.report import (
    DetailedCostReport,
    IterationMetrics,
    ToolCallMetrics,
)
from doc_processing_toolkit.domain.costs.ledger import (
    SERVICE_TIER_MIXED,
    RetryAccumulator,
    RetryAttemptCost,
    normalize_token_source,
    summarize_served_tiers,
)
from doc_processing_toolkit.domain.events import AgentStreamEvent

__all__ = [
    "SERVICE_TIER_MIXED",
    "AgentStreamEvent",
    "DetailedCostReport",
    "IterationMetrics",
    "RetryAccumulator",
    "RetryAttemptCost",
    "ToolCallMetrics",
    "normalize_token_source",
    "summarize_served_tiers",
]

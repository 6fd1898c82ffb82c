"""AgentResult: what one Agent run produced, what it cost, and how it went."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.costs.report import IterationMetrics
from doc_processing_toolkit.domain.approvals import PendingApproval
from doc_processing_toolkit.domain.costs.ledger import (
    normalize_token_source,
    summarize_served_tiers,
)
from doc_processing_toolkit.domain.grounding import Citation, citation_from_dict, citation_to_dict
from doc_processing_toolkit.domain.grounding.evidence import Evidence

__all__ = ["AgentResult"]

_DERIVED_KEYS = ("service_tier_served", "priority_request_count")


@dataclass
class AgentResult:
    """Result of an Agent.run() call.

    Contains the output, token usage, cost, and metadata about the agent execution.
    Fields that a feature not used by the run fills keep their documented empty value.
    """

    output: Any = None
    raw_response: Any = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    injected_messages: list[str] = field(default_factory=list)
    undelivered_injections: list[str] = field(default_factory=list)
    media_uploads: list[dict[str, Any]] = field(default_factory=list)
    dropped_parts: list[dict[str, Any]] = field(default_factory=list)
    converted_parts: list[dict[str, Any]] = field(default_factory=list)
    iterations: int = 0
    tools_used: list[str] = field(default_factory=list)
    built_in_tools_used: list[str] = field(default_factory=list)
    built_in_tools_invoked: list[str] = field(default_factory=list)
    deferred_tools: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    request_cost_records: list[dict[str, Any]] = field(default_factory=list)
    tier_downgraded: bool = False
    cost: float = 0.0
    cost_estimated: bool = False
    tool_costs_estimated: dict[str, bool] = field(default_factory=dict)
    tool_reported_cost: float = 0.0
    tool_reported_costs: list[dict[str, Any]] = field(default_factory=list)
    token_source: str | None = None
    token_totals_by_model: dict[str, dict[str, int]] = field(default_factory=dict)
    reasoning_content: str | None = None
    error: str | None = None
    run_id: str | None = None
    iteration_metrics: list[IterationMetrics] = field(default_factory=list)
    files_created: list[str] = field(default_factory=list)
    downloaded_files: list[dict[str, Any]] = field(default_factory=list)
    distinct_urls: list[str] = field(default_factory=list)
    detailed_cost_file: str | None = None
    input_transformations: list[dict[str, Any]] = field(default_factory=list)
    prefix_binding_mismatches: int = 0
    model_binding_mismatches: int = 0
    prefix_binding_retry: bool = False
    skills_used: list[str] = field(default_factory=list)
    pause_turn_iterations: int = 0
    container_id: str | None = None
    compaction_count: int = 0
    compaction_input_tokens: int = 0
    compaction_output_tokens: int = 0
    compaction_cost: float = 0.0
    compaction_archives: list[str] = field(default_factory=list)
    retry_count: int = 0
    retry_cost: float = 0.0
    retry_input_tokens: int = 0
    retry_output_tokens: int = 0
    status: str = "completed"  # "completed", "failed" or "awaiting_approval"
    pending_approvals: list[PendingApproval] = field(default_factory=list)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    unverified_fields: list[str] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)

    def __post_init__(self) -> None:
        """Normalize the token_source vocabulary ("api_metadata" -> "api_response")."""
        self.token_source = normalize_token_source(self.token_source)

    @property
    def success(self) -> bool:
        """Whether the run completed successfully."""
        return self.error is None

    @property
    def total_tokens(self) -> int:
        """input_tokens + output_tokens (reasoning and cached tokens are subsets, not added)."""
        return self.input_tokens + self.output_tokens

    @property
    def service_tier_served(self) -> str | None:
        """The tier this run's requests were SERVED at, "mixed", or None when none asked."""
        return summarize_served_tiers(self.request_cost_records)[0]

    @property
    def priority_request_count(self) -> int:
        """How many of this run's requests were served at the "priority" tier."""
        return summarize_served_tiers(self.request_cost_records)[1]

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain data, plus service_tier_served and priority_request_count."""
        data: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "iteration_metrics":
                value = [m.to_dict() if hasattr(m, "to_dict") else m for m in value]
            elif f.name == "raw_response":
                value = _plain(value)
            elif f.name == "pending_approvals":
                value = [p.to_dict() for p in value]
            elif f.name == "evidence":
                value = {path: dataclasses.asdict(e) for path, e in value.items()}
            elif f.name == "citations":
                value = [citation_to_dict(c) for c in value]
            data[f.name] = value
        data["service_tier_served"] = self.service_tier_served
        data["priority_request_count"] = self.priority_request_count
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentResult:
        """Rebuild from `to_dict` output (derived keys and unknown keys are ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names and k not in _DERIVED_KEYS}
        metrics = kwargs.get("iteration_metrics") or []
        kwargs["iteration_metrics"] = [
            IterationMetrics.from_dict(m) if isinstance(m, dict) else m for m in metrics
        ]
        pending = kwargs.get("pending_approvals") or []
        kwargs["pending_approvals"] = [
            PendingApproval.from_dict(p) if isinstance(p, dict) else p for p in pending
        ]
        evidence = kwargs.get("evidence") or {}
        kwargs["evidence"] = {
            path: Evidence(**e) if isinstance(e, dict) else e for path, e in evidence.items()
        }
        cited = kwargs.get("citations") or []
        kwargs["citations"] = [citation_from_dict(c) if isinstance(c, dict) else c for c in cited]
        return cls(**kwargs)

    def __repr__(self) -> str:
        output = repr(self.output)
        if len(output) > 80:
            output = output[:77] + "..."
        return (
            f"AgentResult(output={output}, iterations={self.iterations}, "
            f"tools_used={self.tools_used}, input_tokens={self.input_tokens}, "
            f"output_tokens={self.output_tokens}, cost={self.cost:.6f}, error={self.error!r})"
        )


def _plain(value: Any) -> Any:
    """Best-effort JSON-clean form of a raw provider response."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return repr(value)

"""DetailedCostReport: per-request costs, token breakdowns and run totals of an agent run,
serialisable to JSON (``cost_report_<run_id>.json``).

`IterationMetrics` is one entry per API request (a round's first request and its
follow-up share an ``iteration_number`` and differ in ``purpose``); `ToolCallMetrics`
is one tool call.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import uuid
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from doc_processing_toolkit.domain.costs.ledger import summarize_served_tiers
from doc_processing_toolkit.domain.errors import MissingFileError

__all__ = [
    "CONTINUATION_PURPOSES",
    "REPORT_SCHEMA_VERSION",
    "DetailedCostReport",
    "IterationMetrics",
    "ToolCallMetrics",
]

REPORT_SCHEMA_VERSION = 2
"""Version 2 adds per-request records and cached-token fields (2026-08)."""

CONTINUATION_PURPOSES: frozenset[str] = frozenset(
    {
        "max_tokens_continuation",
        "truncation_retry",
        "empty_turn_retry",
        "pause_turn_continuation",
    }
)
"""Purposes whose request continues the previous entry's iteration (same number)."""


def _fsync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _known_fields(cls: type[Any], data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {key: value for key, value in data.items() if key in names}


@dataclass(slots=True)
class ToolCallMetrics:
    """Metrics for a single tool call."""

    tool_name: str
    """The called tool's name."""
    tool_call_id: str | None = None
    """The provider's call id."""
    success: bool = True
    """Whether the call returned without error."""
    duration_ms: int = 0
    """Wall time of the call."""
    error: str | None = None
    """The error text of a failed call."""
    input_size: int = 0
    """Characters of the JSON arguments."""
    output_size: int = 0
    """Characters of the result (before any cap)."""
    tool_reported_cost: float = 0.0
    """USD the tool reported spending (the _dpt_spend marker)."""
    tool_reported_cost_estimated: bool = False
    """Whether that reported spend is an estimate."""
    timestamp: str = field(default_factory=_now)
    """When the call finished."""

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCallMetrics:
        """Rebuild from `to_dict` output; unknown keys are ignored."""
        return cls(**_known_fields(cls, data))


@dataclass(slots=True)
class IterationMetrics:
    """Metrics for a single API request of an agent run."""

    iteration_number: int
    """1-based iteration number (shared by a round's requests)."""
    input_tokens: int = 0
    """Input tokens, retried attempts included."""
    output_tokens: int = 0
    """Output tokens, retried attempts included."""
    reasoning_tokens: int = 0
    """Reasoning/thinking tokens (a subset of output)."""
    cached_input_tokens: int = 0
    """Cache reads: a SUBSET of input_tokens."""
    cache_write_tokens: int = 0
    """Cache writes (on top of input on Anthropic, a subset on OpenAI)."""
    cost: float = 0.0
    """USD, retried attempts included."""
    duration_ms: int = 0
    """Duration in milliseconds."""
    tool_calls: list[ToolCallMetrics] = field(default_factory=list)
    """The tool calls this request produced."""
    thinking_enabled: bool = False
    """Whether this request carried thinking."""
    stop_reason: str = ""
    """Why the request stopped."""
    timestamp: str = field(default_factory=_now)
    """When this iteration occurred."""
    compaction_triggered: bool = False
    """Whether compaction ran during this iteration."""
    compaction_strategy: str | None = None
    """The compaction strategy used, if any."""
    compaction_tokens_cleared: int = 0
    """Tokens cleared by compaction."""
    retry_count: int = 0
    """Reserved: failed-and-retried attempts (run-level figures live on the report)."""
    retry_cost: float = 0.0
    """Reserved: USD of the failed attempts only."""
    retry_input_tokens: int = 0
    """Reserved: input tokens of the failed attempts."""
    retry_output_tokens: int = 0
    """Reserved: output tokens of the failed attempts."""
    retry_details: list[dict[str, Any]] = field(default_factory=list)
    """RetryAttemptCost-shaped dicts of the failed attempts."""
    model: str | None = None
    """The model that served this request's final call."""
    purpose: str | None = None
    """Why the request was made (the request_start vocabulary)."""
    citation_count: int = 0
    """How many citations this request's answer carried (``AgentResult.citations``)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (tool calls as dicts)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IterationMetrics:
        """Rebuild from `to_dict` output; unknown keys are ignored."""
        known = _known_fields(cls, data)
        known["tool_calls"] = [
            ToolCallMetrics.from_dict(call) for call in data.get("tool_calls") or []
        ]
        known["retry_details"] = list(data.get("retry_details") or [])
        return cls(**known)


@dataclass(slots=True)
class DetailedCostReport:
    """Detailed cost tracking report for agent runs (see the API reference)."""

    run_id: str = ""
    """Unique identifier for this run (a uuid4 hex when empty)."""
    agent_name: str | None = None
    """Optional name identifier for the agent."""
    timestamp: str = ""
    """When the report was created (ISO 8601, UTC)."""
    provider: str = ""
    """Provider name (anthropic, openai, google, fireworks)."""
    model_name: str = ""
    """Full model name used."""
    total_input_tokens: int = 0
    """Total input tokens across all requests."""
    total_output_tokens: int = 0
    """Total output tokens across all requests."""
    total_reasoning_tokens: int = 0
    """Total reasoning/thinking tokens (a subset of output)."""
    total_cached_input_tokens: int = 0
    """Cache reads: the cached share of total_input_tokens."""
    total_cache_write_tokens: int = 0
    """Prompt-cache write tokens."""
    total_cost: float = 0.0
    """Retry-inclusive run cost (requests, built-in tools, tool-reported spend)."""
    cost_estimated: bool = False
    """Whether the cost is an estimate."""
    total_duration_ms: int = 0
    """Total execution time in milliseconds."""
    thinking_enabled: bool = False
    """Whether any request carried thinking."""
    thinking_config: dict[str, Any] | None = None
    """Thinking configuration if enabled."""
    max_iterations: int = 0
    """Maximum iterations configured."""
    temperature: float = 0.0
    """Temperature setting used."""
    iterations: list[IterationMetrics] = field(default_factory=list)
    """One entry per API request."""
    total_iterations: int = 0
    """Distinct iteration numbers performed."""
    tools_available: list[str] = field(default_factory=list)
    """Tool names available to the agent."""
    tools_used: list[str] = field(default_factory=list)
    """Tool names that were called."""
    tool_call_count: int = 0
    """Total number of tool calls."""
    tool_success_rate: float = 0.0
    """Success rate of tool calls (0.0 to 1.0)."""
    tool_usage_summary: dict[str, Any] = field(default_factory=dict)
    """Per tool name: calls, successes, failures, total/avg duration."""
    pricing_info: dict[str, float] = field(default_factory=dict)
    """Pricing rates used for calculation (USD per million tokens)."""
    start_time: str | None = None
    """When the run started."""
    end_time: str | None = None
    """When the run completed (set by `finalize`)."""
    total_retry_cost: float = 0.0
    """USD of the failed-and-retried attempts only (part of total_cost)."""
    total_retry_input_tokens: int = 0
    """Input tokens of retried attempts."""
    total_retry_output_tokens: int = 0
    """Output tokens of retried attempts."""
    total_retry_count: int = 0
    """Failed-and-retried API attempts."""
    request_cost_records: list[dict[str, Any]] = field(default_factory=list)
    """One record per API request; the run's token cost is their sum."""
    total_tool_reported_cost: float = 0.0
    """What the run's tools reported spending (part of total_cost)."""
    tool_reported_costs: list[dict[str, Any]] = field(default_factory=list)
    """One record per reporting tool call."""
    prefix_binding_mismatches: int = 0
    """Preserved-thinking blocks dropped for a rewritten prefix (the alarm)."""
    model_binding_mismatches: int = 0
    """Preserved-thinking blocks the serving model could not read."""
    prefix_binding_retry: bool = False
    """Whether a request was re-sent once after a prefix-binding 400."""
    token_totals_by_model: dict[str, dict[str, int]] = field(default_factory=dict)
    """Billed tokens per model that ran them (AgentResult.token_totals_by_model)."""
    schema_version: int = REPORT_SCHEMA_VERSION
    """Persisted-report schema marker."""
    deployment: str | None = None
    """The cloud that served the model (vertex, bedrock, foundry, azure); None: the
    provider's own API. ``pricing_info`` holds that deployment's prices."""

    def __post_init__(self) -> None:
        """Initialize default values (run id, timestamp, start time)."""
        if not self.run_id:
            self.run_id = uuid.uuid4().hex
        if not self.timestamp:
            self.timestamp = _now()
        if self.start_time is None:
            self.start_time = self.timestamp

    @property
    def service_tier_served(self) -> str | None:
        """The tier this run's requests were SERVED at, or "mixed" (C7)."""
        return summarize_served_tiers(self.request_cost_records)[0]

    @property
    def priority_request_count(self) -> int:
        """How many requests in this run were served at the "priority" tier (C7)."""
        return summarize_served_tiers(self.request_cost_records)[1]

    def add_iteration(
        self,
        input_tokens: int,
        output_tokens: int,
        reasoning_tokens: int,
        cost: float,
        duration_ms: int = 0,
        thinking_enabled: bool = False,
        stop_reason: str = "",
        tool_calls: list[ToolCallMetrics] | None = None,
        cached_input_tokens: int = 0,
        cache_write_tokens: int = 0,
        purpose: str | None = None,
        *,
        iteration_number: int | None = None,
        model: str | None = None,
    ) -> IterationMetrics:
        """Add one request's entry and fold it into the totals.

        ``iteration_number`` defaults to the next number, or to the previous entry's for a
        continuation purpose (max_tokens_continuation, truncation_retry, empty_turn_retry,
        pause_turn_continuation). Returns the new entry.
        """
        if iteration_number is None:
            last = self.iterations[-1].iteration_number if self.iterations else 0
            iteration_number = last if last and purpose in CONTINUATION_PURPOSES else last + 1
        entry = IterationMetrics(
            iteration_number=iteration_number,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            reasoning_tokens=reasoning_tokens,
            cached_input_tokens=cached_input_tokens,
            cache_write_tokens=cache_write_tokens,
            cost=cost,
            duration_ms=duration_ms,
            tool_calls=list(tool_calls or []),
            thinking_enabled=thinking_enabled,
            stop_reason=stop_reason,
            model=model,
            purpose=purpose,
        )
        self.iterations.append(entry)
        self.total_input_tokens += input_tokens
        self.total_output_tokens += output_tokens
        self.total_reasoning_tokens += reasoning_tokens
        self.total_cached_input_tokens += cached_input_tokens
        self.total_cache_write_tokens += cache_write_tokens
        self.total_cost += cost
        self.total_duration_ms += duration_ms
        self.total_retry_cost += entry.retry_cost
        self.total_retry_input_tokens += entry.retry_input_tokens
        self.total_retry_output_tokens += entry.retry_output_tokens
        self.total_retry_count += entry.retry_count
        self._refresh_derived()
        return entry

    def _refresh_derived(self) -> None:
        numbers = {entry.iteration_number for entry in self.iterations}
        self.total_iterations = len(numbers)
        if self.iterations:
            self.thinking_enabled = any(entry.thinking_enabled for entry in self.iterations)
        calls = [call for entry in self.iterations for call in entry.tool_calls]
        if not calls:
            return
        summary: dict[str, dict[str, Any]] = {}
        for call in calls:
            stats = summary.setdefault(
                call.tool_name,
                {"calls": 0, "successes": 0, "failures": 0, "total_duration_ms": 0},
            )
            stats["calls"] += 1
            stats["successes" if call.success else "failures"] += 1
            stats["total_duration_ms"] += call.duration_ms
        for stats in summary.values():
            stats["avg_duration_ms"] = stats["total_duration_ms"] / stats["calls"]
        self.tool_usage_summary = summary
        self.tools_used = list(summary)
        self.tool_call_count = len(calls)
        self.tool_success_rate = sum(1 for call in calls if call.success) / len(calls)

    def finalize(self) -> None:
        """Set end_time and derive the totals the entries imply (iterations, tools,
        duration when none was accumulated)."""
        self.end_time = _now()
        self._refresh_derived()
        if self.total_duration_ms == 0 and self.start_time:
            try:
                start = datetime.fromisoformat(self.start_time)
                end = datetime.fromisoformat(self.end_time)
                self.total_duration_ms = max(int((end - start).total_seconds() * 1000), 0)
            except (TypeError, ValueError):
                pass

    def to_dict(self) -> dict[str, Any]:
        """Every attribute, plus total_cost_inclusive (== total_cost) and the derived
        service_tier_served / priority_request_count (ignored by `from_dict`)."""
        data = asdict(self)
        data["total_cost_inclusive"] = self.total_cost
        served, priority = summarize_served_tiers(self.request_cost_records)
        data["service_tier_served"] = served
        data["priority_request_count"] = priority
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DetailedCostReport:
        """Create a report from a dictionary (as produced by `to_dict`).

        Derived and unknown keys are ignored; a report written before versioning loads as
        schema_version 1.
        """
        known = _known_fields(cls, data)
        known["iterations"] = [
            IterationMetrics.from_dict(entry) for entry in data.get("iterations") or []
        ]
        known.setdefault("schema_version", 1)
        return cls(**known)

    def to_json(self, indent: int = 2) -> str:
        """Serialize the report to JSON."""
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def save(self, directory: str) -> str:
        """Write ``cost_report_<run_id>.json`` into ``directory`` atomically; return its path."""
        os.makedirs(directory, exist_ok=True)
        safe_id = re.sub(r"[^A-Za-z0-9._-]", "_", self.run_id)
        path = os.path.join(directory, f"cost_report_{safe_id}.json")
        payload = self.to_json()
        fd, tmp_path = tempfile.mkstemp(prefix=".cost_report_", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp_path, path)
            _fsync_directory(directory)
        except BaseException:
            if os.path.exists(tmp_path):
                os.unlink(tmp_path)
            raise
        return path

    @classmethod
    def load(cls, file_path: str) -> DetailedCostReport:
        """Load a report from a JSON file written by `save`."""
        try:
            with open(file_path, encoding="utf-8") as handle:
                return cls.from_dict(json.load(handle))
        except FileNotFoundError:
            raise MissingFileError(f"cost report {file_path!r} does not exist") from None

"""Retry accounting: the cost of failed-and-retried attempts.

The retry layer's ``before_sleep`` callback records each failed attempt as a
`RetryAttemptCost` in the request's `RetryAccumulator`; the run-level
``retry_count`` / ``retry_cost`` / ``retry_input_tokens`` / ``retry_output_tokens`` are
rolled up from it by `attach_retry_summary`. An attempt the provider rejected before
streaming (``"rejected_before_stream"``) or a non-billable error with no stream data
(``"no_charge"``) costs 0 and contributes no tokens.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = [
    "NON_BILLED_TOKEN_SOURCES",
    "RetryAccumulator",
    "RetryAttemptCost",
    "RetrySummary",
    "attach_retry_summary",
    "summarize_retries",
]

NON_BILLED_TOKEN_SOURCES: frozenset[str] = frozenset({"rejected_before_stream", "no_charge"})
"""token_source values of attempts nothing was billed for."""


@dataclass(frozen=True, slots=True)
class RetryAttemptCost:
    """Cost data from a single API call attempt (successful or failed)."""

    attempt_number: int
    """1-based attempt number."""
    input_tokens: int = 0
    """Known or estimated input token count."""
    output_tokens: int = 0
    """Known (from usage) or estimated (from partial stream)."""
    reasoning_tokens: int = 0
    """If applicable (e.g. thinking models)."""
    cached_input_tokens: int = 0
    """Prompt-cache READ tokens - a SUBSET of input_tokens, never added on top."""
    cost: float = 0.0
    """Calculated cost in USD (forced to 0.0 for a non-billed token_source)."""
    token_source: str = "api_usage"
    """How tokens were determined: "api_usage", "stream_partial",
    "billable_error_input_only", "no_charge", "rejected_before_stream" or "estimated"."""
    error: str | None = None
    """Error message if this attempt failed (None for successful)."""
    duration_ms: int = 0
    """Wall time for this attempt."""
    cost_estimated: bool = False
    """True when the cost rests on an estimated token count."""

    def __post_init__(self) -> None:
        if not self.billed and self.cost != 0.0:
            object.__setattr__(self, "cost", 0.0)

    @property
    def billed(self) -> bool:
        """False for attempts nothing was billed for (rejected before streaming, no charge)."""
        return self.token_source not in NON_BILLED_TOKEN_SOURCES

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (the documented ``retry_details`` entry)."""
        return {
            "attempt_number": self.attempt_number,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "cost": self.cost,
            "token_source": self.token_source,
            "error": self.error,
            "duration_ms": self.duration_ms,
            "cost_estimated": self.cost_estimated,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetryAttemptCost:
        """Rebuild from `to_dict` output; unknown keys are ignored."""
        names = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in data.items() if key in names})


@dataclass(slots=True)
class RetryAccumulator:
    """Accumulates cost data across retry attempts for a single logical request.

    Used with tenacity's ``before_sleep`` callback, which records failed-and-retried
    attempts only, so every entry is a failed attempt.
    """

    attempts: list[RetryAttemptCost] = field(default_factory=list)
    """The recorded attempts, in order."""

    def _billed_sum(self, name: str) -> int:
        """The sum of ``name`` over the billed attempts (0 at once when none was made)."""
        if not self.attempts:
            return 0
        return sum(getattr(attempt, name) for attempt in self.attempts if attempt.billed)

    @property
    def total_cost(self) -> float:
        """Total cost across all attempts (including successful)."""
        if not self.attempts:
            return 0.0
        return math.fsum(attempt.cost for attempt in self.attempts)

    @property
    def total_input_tokens(self) -> int:
        """Total input tokens across all billed attempts."""
        return self._billed_sum("input_tokens")

    @property
    def total_output_tokens(self) -> int:
        """Total output tokens across all billed attempts."""
        return self._billed_sum("output_tokens")

    @property
    def total_cached_input_tokens(self) -> int:
        """Prompt-cache read tokens across all attempts: a SUBSET of total_input_tokens."""
        return self._billed_sum("cached_input_tokens")

    @property
    def total_reasoning_tokens(self) -> int:
        """Reasoning tokens across all billed attempts (a subset of output)."""
        return self._billed_sum("reasoning_tokens")

    @property
    def cost_estimated(self) -> bool:
        """True when any attempt's cost rests on an estimated token count."""
        return any(attempt.cost_estimated for attempt in self.attempts)

    def add_attempt(self, attempt: RetryAttemptCost) -> None:
        """Add a retry attempt's cost data."""
        self.attempts.append(attempt)

    def to_list(self) -> list[dict[str, Any]]:
        """Serialize all attempts to a list of dicts."""
        return [attempt.to_dict() for attempt in self.attempts]

    def __len__(self) -> int:
        return len(self.attempts)


class RetrySummary(NamedTuple):
    """The four run-level retry figures of ``AgentResult``."""

    retry_count: int
    retry_cost: float
    retry_input_tokens: int
    retry_output_tokens: int


def summarize_retries(accumulator: RetryAccumulator | None) -> RetrySummary:
    """Roll an accumulator up into `RetrySummary` (zeros for None)."""
    if accumulator is None:
        return RetrySummary(0, 0.0, 0, 0)
    return RetrySummary(
        retry_count=len(accumulator.attempts),
        retry_cost=accumulator.total_cost,
        retry_input_tokens=accumulator.total_input_tokens,
        retry_output_tokens=accumulator.total_output_tokens,
    )


def attach_retry_summary(target: Any, accumulator: RetryAccumulator | None) -> RetrySummary:
    """Set the four retry figures on ``target`` (a mutable mapping or an object) and
    return them.

    The figures REPLACE whatever ``target`` held; ``cost`` and the token totals are not
    touched (the run's cost already includes the retried attempts). ``target`` may be
    None, in which case the figures are only returned.
    """
    summary = summarize_retries(accumulator)
    if target is None:
        return summary
    for name, value in summary._asdict().items():
        if isinstance(target, MutableMapping):
            target[name] = value
        else:
            setattr(target, name, value)
    return summary

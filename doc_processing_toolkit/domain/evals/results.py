"""What an eval run found: per case results, per model aggregates, a comparison of two runs.

Aggregates (per model):

- field accuracy: correct fields / expected fields (correct + wrong + missing); an extra
  field (the model filled one the case does not expect) is counted apart, not in it;
- exact-match rate: cases whose every expected field is correct and that have no extra
  field, over all cases (a failed case is never an exact match);
- per list field: precision, recall and F1 over the summed tp/fp/fn of every case;
- cost: the sum of the cases' costs (their ledgers) and its mean per case (per document);
- latency: p50 and p95 of the cases' wall-clock seconds, linear interpolation between the
  closest ranks (numpy's default).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.evals.fields import FieldResult, ListScore

__all__ = [
    "CaseResult",
    "Change",
    "Comparison",
    "ModelSummary",
    "compare_models",
    "percentile",
    "summarise",
]


@dataclass(slots=True)
class CaseResult:
    """One case run once by one model (a failed run is a result with its ``error``)."""

    case: str
    model: str
    repeat: int = 0
    fields: list[FieldResult] = field(default_factory=list)
    lists: list[ListScore] = field(default_factory=list)
    output: Any = None
    error: str | None = None
    error_type: str | None = None
    cost: float = 0.0
    """USD, the sum of the run's cost records (a failed run: what it spent)."""
    latency_seconds: float = 0.0
    retries: int = 0
    requests: int = 0
    tags: list[str] = field(default_factory=list)

    @property
    def success(self) -> bool:
        """The model answered (its fields may still be wrong)."""
        return self.error is None

    @property
    def exact(self) -> bool:
        """Every expected field correct and no extra field."""
        return self.success and all(f.verdict == "correct" for f in self.fields)

    def to_dict(self) -> dict[str, Any]:
        """JSON data."""
        return {
            "case": self.case,
            "model": self.model,
            "repeat": self.repeat,
            "fields": [f.to_dict() for f in self.fields],
            "lists": [s.to_dict() for s in self.lists],
            "output": self.output,
            "error": self.error,
            "error_type": self.error_type,
            "cost": self.cost,
            "latency_seconds": self.latency_seconds,
            "retries": self.retries,
            "requests": self.requests,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        """From `to_dict` data."""
        return cls(
            case=str(data["case"]),
            model=str(data["model"]),
            repeat=int(data.get("repeat", 0)),
            fields=[FieldResult.from_dict(f) for f in data.get("fields", [])],
            lists=[ListScore.from_dict(s) for s in data.get("lists", [])],
            output=data.get("output"),
            error=data.get("error"),
            error_type=data.get("error_type"),
            cost=float(data.get("cost", 0.0)),
            latency_seconds=float(data.get("latency_seconds", 0.0)),
            retries=int(data.get("retries", 0)),
            requests=int(data.get("requests", 0)),
            tags=list(data.get("tags", [])),
        )


def percentile(values: list[float], q: float) -> float:
    """The ``q`` (0-100) percentile, linear between closest ranks; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass(frozen=True, slots=True)
class ModelSummary:
    """One model's aggregates over every case it ran."""

    model: str
    cases: int
    failed: int
    fields: int
    correct: int
    wrong: int
    missing: int
    extra: int
    field_accuracy: float
    exact_match_rate: float
    list_scores: dict[str, dict[str, float]]
    """Per list field path: ``precision``, ``recall``, ``f1`` (and ``tp``/``fp``/``fn``)."""
    total_cost: float
    mean_cost_per_document: float
    p50_latency_seconds: float
    p95_latency_seconds: float
    retries: int

    def to_dict(self) -> dict[str, Any]:
        """JSON data."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def summarise(model: str, cases: list[CaseResult]) -> ModelSummary:
    """The aggregates of ``cases`` (see the module docstring for each definition)."""
    verdicts: dict[str, int] = defaultdict(int)
    for case in cases:
        for result in case.fields:
            verdicts[result.verdict] += 1
    expected = verdicts["correct"] + verdicts["wrong"] + verdicts["missing"]
    totals: dict[str, list[int]] = {}
    for case in cases:
        for score in case.lists:
            tally = totals.setdefault(score.path, [0, 0, 0])
            tally[0] += score.tp
            tally[1] += score.fp
            tally[2] += score.fn
    lists: dict[str, dict[str, float]] = {}
    for path, (tp, fp, fn) in sorted(totals.items()):
        merged = ListScore(path, tp, fp, fn)
        lists[path] = {
            "precision": merged.precision,
            "recall": merged.recall,
            "f1": merged.f1,
            "tp": tp,
            "fp": fp,
            "fn": fn,
        }
    total_cost = sum(c.cost for c in cases)
    latencies = [c.latency_seconds for c in cases]
    return ModelSummary(
        model=model,
        cases=len(cases),
        failed=sum(not c.success for c in cases),
        fields=expected,
        correct=verdicts["correct"],
        wrong=verdicts["wrong"],
        missing=verdicts["missing"],
        extra=verdicts["extra"],
        field_accuracy=verdicts["correct"] / expected if expected else 0.0,
        exact_match_rate=sum(c.exact for c in cases) / len(cases) if cases else 0.0,
        list_scores=lists,
        total_cost=total_cost,
        mean_cost_per_document=total_cost / len(cases) if cases else 0.0,
        p50_latency_seconds=percentile(latencies, 50),
        p95_latency_seconds=percentile(latencies, 95),
        retries=sum(c.retries for c in cases),
    )


@dataclass(frozen=True, slots=True)
class Change:
    """One field (or a whole case, ``field=None``) of one model that changed verdict."""

    model: str
    case: str
    field: str | None
    before: str
    after: str

    def __str__(self) -> str:
        where = f"{self.case} / {self.field}" if self.field else self.case
        return f"[{self.model}] {where}: {self.before} -> {self.after}"


@dataclass(frozen=True, slots=True)
class Comparison:
    """A run against its baseline: what got worse, what got better, what cost moved."""

    regressions: list[Change]
    improvements: list[Change]
    cost_change: dict[str, float]
    """Per model: mean cost per document now minus in the baseline (USD)."""
    accuracy_change: dict[str, float]
    """Per model: field accuracy now minus in the baseline."""

    @property
    def regressed(self) -> bool:
        """At least one field or case got worse."""
        return bool(self.regressions)

    def to_markdown(self) -> str:
        """The comparison as Markdown lines."""
        lines = ["## Compared with the baseline", ""]
        for model in sorted(self.accuracy_change):
            lines.append(
                f"- {model}: field accuracy {self.accuracy_change[model]:+.1%}, mean cost per "
                f"document {self.cost_change.get(model, 0.0):+.6f} USD"
            )
        lines.append(f"- regressions: {len(self.regressions)}")
        lines.extend(f"  - {change}" for change in self.regressions)
        lines.append(f"- improvements: {len(self.improvements)}")
        lines.extend(f"  - {change}" for change in self.improvements)
        return "\n".join(lines) + "\n"


def _verdicts(cases: list[CaseResult]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for case in cases:
        if case.repeat:
            continue
        found[(case.case, "")] = "exact" if case.exact else ("failed" if case.error else "inexact")
        for result in case.fields:
            found[(case.case, result.path)] = result.verdict
    return found


def compare_models(
    model: str,
    now: list[CaseResult],
    before: list[CaseResult],
) -> tuple[list[Change], list[Change]]:
    """Regressions and improvements of one model (first repeat of each case)."""
    worse: list[Change] = []
    better: list[Change] = []
    old, new = _verdicts(before), _verdicts(now)
    good = {"correct", "exact"}
    for key in sorted(set(old) & set(new)):
        was, is_ = old[key], new[key]
        if was == is_ or (key[1] and "extra" in (was, is_)):
            continue
        change = Change(model, key[0], key[1] or None, was, is_)
        if was in good and is_ not in good:
            worse.append(change)
        elif is_ in good and was not in good:
            better.append(change)
    return worse, better

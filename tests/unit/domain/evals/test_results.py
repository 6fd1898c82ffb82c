"""Aggregates and the comparison of two runs (issue 37)."""

from __future__ import annotations

import statistics

from doc_processing_toolkit.domain.evals.fields import FieldResult, ListScore
from doc_processing_toolkit.domain.evals.results import (
    CaseResult,
    compare_models,
    percentile,
    summarise,
)


def _case(
    name: str,
    verdicts: dict[str, str],
    *,
    cost: float = 0.01,
    latency: float = 1.0,
    error: str | None = None,
    lists: list[ListScore] | None = None,
) -> CaseResult:
    fields = [FieldResult(p, v) for p, v in verdicts.items()]  # type: ignore[arg-type]
    return CaseResult(
        name, "m", fields=fields, lists=lists or [], cost=cost, latency_seconds=latency, error=error
    )


def test_summary_counts_extra_apart_and_a_failed_case_is_never_exact() -> None:
    cases = [
        _case("a", {"x": "correct", "y": "correct"}, latency=1.0),
        _case("b", {"x": "correct", "y": "wrong", "z": "extra"}, latency=2.0),
        _case("c", {"x": "correct", "z": "extra"}, latency=3.0),
        _case("d", {"x": "missing", "y": "missing"}, error="boom", cost=0.002, latency=4.0),
    ]
    s = summarise("m", cases)
    assert (s.fields, s.correct, s.wrong, s.missing, s.extra) == (7, 4, 1, 2, 2)
    assert s.field_accuracy == 4 / 7
    assert s.exact_match_rate == 1 / 4  # c has an extra field, d failed
    assert s.failed == 1
    assert s.total_cost == 0.032 and s.mean_cost_per_document == 0.032 / 4
    assert s.p50_latency_seconds == statistics.median([1.0, 2.0, 3.0, 4.0])
    assert s.p95_latency_seconds == 3.85


def test_list_scores_sum_over_cases() -> None:
    cases = [
        _case("a", {"t": "wrong"}, lists=[ListScore("t", 2, 1, 0)]),
        _case("b", {"t": "wrong"}, lists=[ListScore("t", 1, 0, 2)]),
    ]
    t = summarise("m", cases).list_scores["t"]
    assert (t["tp"], t["fp"], t["fn"]) == (3, 1, 2)
    assert t["precision"] == 0.75 and t["recall"] == 0.6
    assert round(t["f1"], 6) == round(2 * 0.75 * 0.6 / 1.35, 6)


def test_percentile_edges() -> None:
    assert percentile([], 95) == 0.0
    assert percentile([5.0], 95) == 5.0
    assert percentile([1.0, 2.0], 50) == 1.5


def test_compare_names_the_case_and_field() -> None:
    before = [_case("a", {"x": "correct", "y": "wrong"}), _case("b", {"x": "correct"})]
    now = [_case("a", {"x": "wrong", "y": "correct"}), _case("b", {"x": "correct"})]
    worse, better = compare_models("m", now, before)
    assert [str(c) for c in worse] == ["[m] a / x: correct -> wrong"]
    assert [(c.case, c.field) for c in better] == [("a", "y")]

"""The cost ledger: per-request pricing, tiers, cache, retries and the run total."""

from __future__ import annotations

import math
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.agent.cost import (
    SERVICE_TIER_MIXED,
    RetryAccumulator,
    RetryAttemptCost,
    normalize_token_source,
    summarize_served_tiers,
)
from doc_processing_toolkit.domain.costs.ledger import (
    CostRecord,
    Ledger,
    attach_retry_summary,
    price_attempt,
    price_is_unknown,
    price_request,
    pricing_snapshot,
    tier_was_downgraded,
)
from doc_processing_toolkit.domain.registry import ModelInfo, Pricing
from doc_processing_toolkit.domain.requests import Usage

CLAUDE = ModelInfo(
    model="claude-test",
    provider="anthropic",
    pricing=Pricing(
        input_per_mtok=3.0,
        output_per_mtok=15.0,
        cache_read_per_mtok=0.30,
        cache_write_5m_per_mtok=3.75,
        cache_write_1h_per_mtok=6.0,
    ),
)
BARE = ModelInfo(
    model="bare-test",
    provider="anthropic",
    pricing=Pricing(input_per_mtok=2.0, output_per_mtok=10.0),
)
GPT = ModelInfo(
    model="gpt-test",
    provider="openai",
    pricing=Pricing(input_per_mtok=1.25, output_per_mtok=10.0, cache_read_per_mtok=0.125),
    service_tiers={
        "priority": Pricing(input_per_mtok=2.5, output_per_mtok=20.0, cache_read_per_mtok=0.25),
        "flex": Pricing(input_per_mtok=0.625, output_per_mtok=5.0),
    },
    cache_write_billing="subset",
    cache_write_input_multiplier=1.25,
)
LONG = ModelInfo(
    model="long-test",
    provider="google",
    pricing=Pricing(
        input_per_mtok=3.0,
        output_per_mtok=15.0,
        cache_read_per_mtok=0.3,
        long_context_threshold_tokens=200_000,
        long_context_input_per_mtok=6.0,
        long_context_output_per_mtok=22.5,
    ),
)


def close(a: float, b: float) -> bool:
    return abs(a - b) < 1e-12


# --- pricing -------------------------------------------------------------------------


def test_additive_cache_reads_subset_and_writes_on_top_5m_and_1h() -> None:
    usage = Usage(
        input_tokens=10_000,
        output_tokens=2_000,
        reasoning_tokens=500,
        cached_input_tokens=4_000,
        cache_write_tokens=1_000,
        cache_write_1h_tokens=400,
    )
    record = price_request(usage, CLAUDE)
    # 6000 uncached x 3 + 4000 reads x 0.3 + 600 5m writes x 3.75 + 400 1h writes x 6
    # + 2000 output x 15, per million.
    assert close(record.cost, (18_000 + 1_200 + 2_250 + 2_400 + 30_000) / 1e6)
    assert record.cost_estimated is False
    assert record.price_known is True
    assert record.served_model == "claude-test"


def test_additive_write_defaults_are_125_and_2x_input_and_reads_fall_back_to_input() -> None:
    usage = Usage(
        input_tokens=1_000,
        cached_input_tokens=200,
        cache_write_tokens=200,
        cache_write_1h_tokens=100,
    )
    # 800 x 2 + 200 reads x 2 (no read rate) + 100 x 2.5 + 100 x 4
    assert close(price_request(usage, BARE).cost, (1_600 + 400 + 250 + 400) / 1e6)


def test_cache_ttl_1h_prices_unsplit_writes_at_2x() -> None:
    usage = Usage(input_tokens=0, cache_write_tokens=100)
    assert close(price_request(usage, BARE, cache_ttl="5m").cost, 100 * 2.5 / 1e6)
    assert close(price_request(usage, BARE, cache_ttl="1h").cost, 100 * 4.0 / 1e6)


def test_subset_cache_writes_are_repriced_inside_input() -> None:
    usage = Usage(
        input_tokens=10_000,
        output_tokens=1_000,
        cached_input_tokens=3_000,
        cache_write_tokens=2_000,
    )
    # 5000 x 1.25 + 3000 x 0.125 + 2000 x (1.25 x 1.25) + 1000 x 10
    assert close(price_request(usage, GPT).cost, (6_250 + 375 + 3_125 + 10_000) / 1e6)


def test_reasoning_is_a_subset_of_output_and_never_added() -> None:
    plain = price_request(Usage(input_tokens=100, output_tokens=1_000), CLAUDE)
    thinking = price_request(
        Usage(input_tokens=100, output_tokens=1_000, reasoning_tokens=800), CLAUDE
    )
    assert thinking.cost == plain.cost
    assert thinking.reasoning_tokens == 800


def test_billing_follows_the_served_tier() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    served_priority = price_request(usage, GPT, requested_tier="priority", served_tier="priority")
    downgraded = price_request(usage, GPT, requested_tier="priority", served_tier="default")
    flex = price_request(usage, GPT, requested_tier="flex", served_tier="flex")
    assert close(served_priority.cost, 22.5)
    assert close(downgraded.cost, 11.25)  # billed at standard, not at the asked priority row
    assert close(flex.cost, 5.625)
    assert tier_was_downgraded(downgraded) and not tier_was_downgraded(served_priority)
    assert downgraded.to_dict()["requested_tier"] == "priority"
    assert downgraded.to_dict()["served_tier"] == "default"


def test_tier_row_without_cache_read_prices_reads_at_that_tiers_input() -> None:
    usage = Usage(input_tokens=1_000, cached_input_tokens=1_000)
    assert close(price_request(usage, GPT, served_tier="flex").cost, 1_000 * 0.625 / 1e6)


@pytest.mark.parametrize(
    "row",
    [
        None,
        ModelInfo(model="mystery", provider="openai"),
        ModelInfo(model="half", provider="openai", pricing=Pricing(input_per_mtok=1.0)),
    ],
)
def test_unknown_price_costs_zero_and_is_estimated(row: ModelInfo | None) -> None:
    record = price_request(Usage(input_tokens=5_000, output_tokens=5_000), row, served_model="x")
    assert record.cost == 0.0
    assert record.cost_estimated is True
    assert record.price_known is False
    assert price_is_unknown(row)
    assert record.to_dict()["price_known"] is False


def test_known_price_helpers() -> None:
    assert not price_is_unknown(CLAUDE)
    assert pricing_snapshot(GPT, "priority")["input_per_mtok"] == 2.5
    assert pricing_snapshot(None) == {}


def test_estimated_tokens_mark_the_record_estimated() -> None:
    record = price_request(Usage(input_tokens=10), CLAUDE, estimated=True)
    assert record.cost_estimated and record.price_known


def test_long_context_rates_and_scaled_cache_reads() -> None:
    usage = Usage(input_tokens=250_000, output_tokens=1_000, cached_input_tokens=50_000)
    # 200k x 6 + 50k reads x (0.3 x 2) + 1k x 22.5
    assert close(price_request(usage, LONG).cost, (1_200_000 + 30_000 + 22_500) / 1e6)


def test_the_cached_rates_switch_at_the_long_context_threshold_either_way() -> None:
    """A row's rates are computed once per (row, long-context flag): pricing the same row
    below, above and below the threshold again still bills each at its own rates."""
    from doc_processing_toolkit.domain.costs import pricing

    short, long = Usage(input_tokens=1_000, output_tokens=10), Usage(input_tokens=300_000)
    hits = pricing._rates_of.cache_info().hits
    assert close(price_request(short, LONG).cost, (1_000 * 3 + 10 * 15) / 1e6)
    assert close(price_request(long, LONG).cost, 300_000 * 6 / 1e6)
    assert close(price_request(short, LONG).cost, (1_000 * 3 + 10 * 15) / 1e6)
    assert pricing._rates_of.cache_info().hits >= hits + 1  # the short rates, once


def test_record_dict_shape_and_round_trip() -> None:
    record = price_request(
        Usage(input_tokens=10, output_tokens=5, cached_input_tokens=2),
        CLAUDE,
        requested_tier=None,
        purpose="tool_followup",
        request_index=3,
        iteration=2,
        extra={"served_tier_source": "body"},
    )
    data = record.to_dict()
    for key in (
        "input_tokens",
        "output_tokens",
        "cached_input_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "served_model",
        "requested_tier",
        "served_tier",
        "cost",
        "cost_estimated",
        "purpose",
        "request_index",
        "iteration",
    ):
        assert key in data
    assert data["served_tier_source"] == "body"
    assert CostRecord.from_dict(data) == record


# --- the ledger ----------------------------------------------------------------------


def test_run_cost_is_the_sum_of_records_not_a_costing_of_summed_tokens() -> None:
    ledger = Ledger()
    usage = Usage(input_tokens=150_000, output_tokens=1_000)
    ledger.record(price_request(usage, LONG))
    ledger.record(price_request(usage, LONG))
    per_request = (150_000 * 3 + 1_000 * 15) / 1e6
    assert close(ledger.total_cost, 2 * per_request)
    summed = price_request(usage + usage, LONG)  # crosses the 200k threshold
    assert summed.cost > ledger.total_cost + 0.5


def test_per_record_served_tiers_sum_differs_from_any_single_costing() -> None:
    ledger = Ledger()
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    ledger.record(price_request(usage, GPT, requested_tier="priority", served_tier="priority"))
    ledger.record(price_request(usage, GPT, requested_tier="priority", served_tier="standard"))
    assert close(ledger.total_cost, 22.5 + 11.25)
    assert ledger.tier_downgraded
    assert ledger.service_tier_served == SERVICE_TIER_MIXED
    assert ledger.priority_request_count == 1
    assert [r.request_index for r in ledger.records] == [1, 2]


def test_ledger_totals_by_model_and_flags() -> None:
    ledger = Ledger()
    ledger.record(
        price_request(
            Usage(input_tokens=100, output_tokens=10, cached_input_tokens=40, reasoning_tokens=3),
            CLAUDE,
        )
    )
    ledger.record(
        price_request(Usage(input_tokens=50, output_tokens=5, cache_write_tokens=7), CLAUDE)
    )
    ledger.record(price_request(Usage(input_tokens=1, output_tokens=1), None, served_model="ghost"))
    assert ledger.input_tokens == 151
    assert ledger.output_tokens == 16
    assert ledger.cached_input_tokens == 40
    assert ledger.cache_write_tokens == 7
    assert ledger.reasoning_tokens == 3
    assert ledger.token_totals_by_model == {
        "claude-test": {"input_tokens": 150, "output_tokens": 15},
        "ghost": {"input_tokens": 1, "output_tokens": 1},
    }
    assert ledger.cost_estimated
    assert ledger.unknown_price_models == ("ghost",)
    assert not ledger.tier_downgraded
    assert ledger.service_tier_served is None
    assert len(ledger.record_dicts()) == 3


def test_ledger_includes_billed_retries_in_totals() -> None:
    ledger = Ledger()
    ledger.record(price_request(Usage(input_tokens=1_000, output_tokens=100), CLAUDE))
    failed = price_attempt(
        Usage(input_tokens=1_000, output_tokens=20),
        CLAUDE,
        attempt_number=1,
        token_source="stream_partial",
        error="overloaded",
    )
    rejected = price_attempt(
        Usage(input_tokens=1_000),
        CLAUDE,
        attempt_number=2,
        token_source="rejected_before_stream",
        error="429",
    )
    ledger.record_retry(failed, model="claude-test")
    ledger.record_retry(rejected, model="claude-test")
    assert rejected.cost == 0.0 and rejected.input_tokens == 0
    assert close(failed.cost, (1_000 * 3 + 20 * 15) / 1e6)
    assert close(ledger.total_cost, ledger.request_cost + failed.cost)
    assert ledger.input_tokens == 2_000
    assert ledger.token_totals_by_model["claude-test"] == {
        "input_tokens": 2_000,
        "output_tokens": 120,
    }
    assert ledger.retry_summary == (2, failed.cost, 1_000, 20)


# --- retries -------------------------------------------------------------------------


def test_rejected_before_stream_attempt_costs_zero() -> None:
    attempt = RetryAttemptCost(
        attempt_number=1, input_tokens=500, cost=0.25, token_source="rejected_before_stream"
    )
    assert attempt.cost == 0.0
    assert not attempt.billed
    acc = RetryAccumulator()
    acc.add_attempt(attempt)
    assert acc.total_cost == 0.0
    assert acc.total_input_tokens == 0


def test_accumulator_totals_and_serialisation() -> None:
    acc = RetryAccumulator()
    acc.add_attempt(
        RetryAttemptCost(
            attempt_number=1,
            input_tokens=100,
            output_tokens=7,
            cached_input_tokens=60,
            cost=0.1,
            token_source="stream_partial",
            error="boom",
        )
    )
    acc.add_attempt(
        RetryAttemptCost(
            attempt_number=2,
            input_tokens=100,
            cost=0.2,
            token_source="billable_error_input_only",
            cost_estimated=True,
        )
    )
    assert close(acc.total_cost, 0.3)
    assert acc.total_input_tokens == 200
    assert acc.total_output_tokens == 7
    assert acc.total_cached_input_tokens == 60
    assert acc.cost_estimated
    rows = acc.to_list()
    assert rows[0] == {
        "attempt_number": 1,
        "input_tokens": 100,
        "output_tokens": 7,
        "reasoning_tokens": 0,
        "cached_input_tokens": 60,
        "cost": 0.1,
        "token_source": "stream_partial",
        "error": "boom",
        "duration_ms": 0,
        "cost_estimated": False,
    }
    assert RetryAttemptCost.from_dict(rows[1]) == acc.attempts[1]


def test_attach_retry_summary_on_dicts_objects_and_none() -> None:
    acc = RetryAccumulator()
    acc.add_attempt(RetryAttemptCost(attempt_number=1, input_tokens=10, output_tokens=2, cost=0.5))
    target: dict[str, Any] = {"retry_count": 99, "cost": 1.0}
    summary = attach_retry_summary(target, acc)
    assert target == {
        "retry_count": 1,
        "retry_cost": 0.5,
        "retry_input_tokens": 10,
        "retry_output_tokens": 2,
        "cost": 1.0,
    }
    obj = SimpleNamespace()
    attach_retry_summary(obj, acc)
    assert obj.retry_cost == 0.5 and summary.retry_count == 1
    assert attach_retry_summary(None, None) == (0, 0.0, 0, 0)


# --- vocabulary and tiers ------------------------------------------------------------


def test_normalize_token_source() -> None:
    assert normalize_token_source("api_metadata") == "api_response"
    for value in (None, "api_response", "stream_partial", "estimated", "google_metadata_missing"):
        assert normalize_token_source(value) == value


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([], (None, 0)),
        ([{"requested_tier": None, "served_tier": "standard"}], (None, 0)),
        (
            [
                {"requested_tier": "priority", "served_tier": "priority"},
                {"requested_tier": "priority", "served_tier": "priority"},
            ],
            ("priority", 2),
        ),
        (
            [
                {"requested_tier": "priority", "served_tier": "priority"},
                {"requested_tier": "priority", "served_tier": "standard"},
            ],
            ("mixed", 1),
        ),
        ([{"requested_tier": "priority", "served_tier": "unverifiable"}], ("unverifiable", 0)),
        ([{"requested_tier": "priority", "served_tier": None}], ("unverifiable", 0)),
        (
            [
                {"requested_tier": None, "served_tier": "standard"},
                {"requested_tier": "flex", "served_tier": "flex"},
            ],
            ("flex", 0),
        ),
    ],
)
def test_summarize_served_tiers(
    records: list[dict[str, Any]], expected: tuple[str | None, int]
) -> None:
    assert summarize_served_tiers(records) == expected


def test_unverifiable_served_tier_is_not_a_downgrade_and_bills_standard() -> None:
    usage = Usage(input_tokens=1_000_000)
    record = price_request(usage, GPT, requested_tier="priority", served_tier="unverifiable")
    assert close(record.cost, 1.25)
    assert not tier_was_downgraded(record)


# --- property ------------------------------------------------------------------------

_usages = st.builds(
    lambda inp, out, cached, writes, one_hour, reasoning: Usage(
        input_tokens=inp,
        output_tokens=out,
        cached_input_tokens=min(cached, inp),
        cache_write_tokens=writes,
        cache_write_1h_tokens=min(one_hour, writes),
        reasoning_tokens=min(reasoning, out),
    ),
    st.integers(0, 400_000),
    st.integers(0, 64_000),
    st.integers(0, 400_000),
    st.integers(0, 50_000),
    st.integers(0, 50_000),
    st.integers(0, 64_000),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            _usages,
            st.sampled_from([CLAUDE, BARE, GPT, LONG, None]),
            st.sampled_from([None, "priority", "flex", "standard"]),
        ),
        max_size=12,
    )
)
def test_ledger_total_is_the_sum_of_record_costs(
    requests: list[tuple[Usage, ModelInfo | None, str | None]],
) -> None:
    ledger = Ledger()
    for usage, row, tier in requests:
        record = ledger.record(price_request(usage, row, requested_tier=tier, served_tier=tier))
        assert record.cost >= 0.0
    costs = [record.to_dict()["cost"] for record in ledger.records]
    assert ledger.total_cost == math.fsum(costs)
    exact = sum((Decimal(repr(cost)) for cost in costs), Decimal(0))
    assert abs(Decimal(repr(ledger.total_cost)) - exact) < Decimal("1e-12")


def test_result_costs_are_rounded_to_the_nano_dollar() -> None:
    from doc_processing_toolkit.domain.costs.pricing import round_usd

    assert round_usd(9.999999999999999e-05) == 0.0001
    assert repr(round_usd(0.1 + 0.2)) == "0.3"
    assert round_usd(0.0000000014) == 0.000000001

"""Batch prices: registry rows carry them, and the ledger bills served_tier="batch" at them."""

from __future__ import annotations

import pytest

from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.domain.costs.pricing import BATCH_TIER, price_request, resolve_pricing
from doc_processing_toolkit.domain.registry import ModelInfo, Pricing
from doc_processing_toolkit.domain.requests import Usage

USAGE = Usage(input_tokens=10_000, output_tokens=2_000, cached_input_tokens=4_000)


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "gpt-4o", "gemini-2.5-flash"])
def test_a_batch_record_costs_the_rows_batch_price(model: str) -> None:
    row = registry().row(model)
    assert row is not None and row.batch is not None
    batch = price_request(USAGE, row, served_tier=BATCH_TIER)
    standard = price_request(USAGE, row)
    assert resolve_pricing(row, BATCH_TIER) is row.batch
    assert batch.served_tier == "batch" and not batch.cost_estimated
    assert batch.cost == pytest.approx(standard.cost / 2)
    pricing = row.batch
    assert pricing.input_per_mtok is not None and pricing.output_per_mtok is not None
    read = (
        pricing.cache_read_per_mtok
        if pricing.cache_read_per_mtok is not None
        else pricing.input_per_mtok
    )
    expected = (
        6_000 * pricing.input_per_mtok + 4_000 * read + 2_000 * pricing.output_per_mtok
    ) / 1e6
    assert batch.cost == pytest.approx(expected)


def test_batch_prices_are_half_the_standard_rates_where_the_provider_sells_batches() -> None:
    rows = registry().models()
    priced = [r for r in rows if r.provider != "fireworks" and r.pricing.known]
    assert priced
    for row in priced:
        assert row.batch is not None, row.model
        assert row.batch.input_per_mtok == pytest.approx(row.pricing.input_per_mtok / 2)  # type: ignore[operator]
        assert row.batch.output_per_mtok == pytest.approx(row.pricing.output_per_mtok / 2)  # type: ignore[operator]
    assert all(r.batch is None for r in rows if r.provider == "fireworks")


def test_a_row_without_batch_prices_bills_standard_and_says_it_is_estimated() -> None:
    row = ModelInfo(model="m", provider="p", pricing=Pricing(input_per_mtok=1, output_per_mtok=2))
    record = price_request(USAGE, row, served_tier="batch")
    assert record.cost == pytest.approx(price_request(USAGE, row).cost)
    assert record.cost_estimated and record.price_known
    assert not price_request(USAGE, row).cost_estimated

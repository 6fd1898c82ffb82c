"""Estimate arithmetic: per-page tokens from the row (or the documented assumption),
chunk request counts, prices through the ledger's rules with the long-context tier."""

from __future__ import annotations

from doc_processing_toolkit.domain.documents.estimate import (
    ASSUMED_PDF_PAGE_TOKENS,
    RequestEstimate,
    chunk_request_count,
    pdf_page_tokens,
    price_requests,
    text_tokens,
)
from doc_processing_toolkit.domain.registry import ModelInfo, Pricing

ROW = ModelInfo(
    model="m",
    provider="p",
    pdf_tokens_per_page=258,
    pricing=Pricing(
        input_per_mtok=2.0,
        output_per_mtok=8.0,
        long_context_threshold_tokens=200_000,
        long_context_input_per_mtok=4.0,
    ),
)


def test_page_tokens_come_from_the_row_or_a_stated_assumption() -> None:
    assert pdf_page_tokens(ROW) == (258, None)
    tokens, note = pdf_page_tokens(ModelInfo(model="x", provider="p"))
    assert tokens == ASSUMED_PDF_PAGE_TOKENS and note is not None and "x" in note


def test_chunk_requests_match_run_document() -> None:
    assert chunk_request_count(300, 100, reduce=False) == 3
    assert chunk_request_count(300, 100, reduce=True) == 4
    assert chunk_request_count(300, 1000, reduce=True) == 1
    assert chunk_request_count(301, 100, reduce=False) == 4


def test_prices_follow_the_row_and_its_long_context_tier() -> None:
    cost, long_context = price_requests([RequestEstimate(100_000)], ROW)
    assert (cost, long_context) == (0.2, False)
    cost, long_context = price_requests([RequestEstimate(100_000), RequestEstimate(300_000)], ROW)
    assert (cost, long_context) == (0.2 + 1.2, True)
    assert price_requests([RequestEstimate(10)], ModelInfo(model="u", provider="p")) == (
        None,
        False,
    )


def test_text_is_four_characters_a_token_rounded_up() -> None:
    assert (text_tokens(0), text_tokens(1), text_tokens(8), text_tokens(9)) == (0, 1, 2, 3)

"""Agent.estimate: pages from the document, tokens from the row's pdf_tokens_per_page (or
the stated assumption, or the text layer for a model that takes no PDF), prices from the
row with the long-context tier, and the request count run_document then really makes; no
request is sent."""

from __future__ import annotations

import pytest
from document_samples import numbered_pdf
from pydantic import BaseModel

from doc_processing_toolkit import Agent
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.domain.documents.estimate import ASSUMED_PDF_PAGE_TOKENS
from doc_processing_toolkit.testing import FakeModel, reply


class Terms(BaseModel):
    parties: list[str]


def _agent(model: str, fake: FakeModel | None = None) -> Agent:
    return Agent(model, client=fake or FakeModel([]), log_to_file=False)


def test_gemini_counts_258_tokens_a_page_and_prices_the_long_context_tier() -> None:
    agent = _agent("gemini-2.5-pro")
    row = agent.document_planner.row
    assert row is not None and row.pricing.long_context_input_per_mtok is not None
    estimate = agent.estimate("", files=[numbered_pdf(1000)])
    assert (estimate.pages, estimate.requests, estimate.input_tokens) == (1000, 1, 258_000)
    assert estimate.long_context and estimate.over_limits == () and estimate.assumptions == ()
    assert estimate.cost_usd == pytest.approx(
        258_000 * row.pricing.long_context_input_per_mtok / 1e6
    )
    short = agent.estimate("", files=[Document(numbered_pdf(1000), pages="1-100")])
    assert short.input_tokens == 25_800 and not short.long_context
    assert short.cost_usd == pytest.approx(25_800 * (row.pricing.input_per_mtok or 0) / 1e6)


def test_an_over_limit_pdf_counts_the_requests_run_document_makes() -> None:
    pdf = numbered_pdf(300)
    fake = FakeModel(default=reply("x"))
    agent = _agent("claude-haiku-4-5", fake)
    estimate = agent.estimate("Summarise.", files=[pdf])
    assert [o.limit_name for o in estimate.over_limits] == ["max_pdf_pages"]
    assert estimate.requests == 4 and estimate.pages == 300  # three chunks and the reduce
    assert ASSUMED_PDF_PAGE_TOKENS * 300 < estimate.input_tokens
    assert any("1,500 per page assumed" in a for a in estimate.assumptions)
    assert fake.requests == []
    agent.run_document_sync(pdf, "Summarise.")
    assert len(fake.requests) == estimate.requests
    structured = agent.estimate("Summarise.", files=[pdf], output_schema=Terms)
    assert structured.requests == 3


def test_a_text_only_model_counts_the_text_layer() -> None:
    estimate = _agent("glm-5").estimate("", files=[numbered_pdf(3)])
    text = sum(len(f"This is page {n} of the contract.") for n in (1, 2, 3))
    assert estimate.pages == 3 and estimate.input_tokens == pytest.approx(text / 4, abs=3)
    assert any("text layer" in a for a in estimate.assumptions)

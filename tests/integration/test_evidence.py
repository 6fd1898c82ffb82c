"""Evidence for structured output, and the re-ask on invalid output, end to end: a real
Agent, the provider emulator on loopback, an invoice PDF made in the test and read
through pypdf (issue 36, acceptance bullets 2 and 3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from document_samples import text_pdf
from pydantic import BaseModel

from doc_processing_toolkit import Agent, StructuredOutputError
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, Reply

CLAUDE, OPENAI, GEMINI = "claude-haiku-4-5", "gpt-5.4", "gemini-2.5-flash"

INVOICE_PAGES = [
    "Cover letter\nDear customer, please find the invoice enclosed.",
    "Terms and conditions\nPayment within 30 days.",
    "INVOICE INV-2041\nVendor: Acme Industrial Supply Ltd.\nDate: March 15, 2024",
    "Line items\nSteel bolts 1,200 units\nTotal due: $12,480.50",
]


class Invoice(BaseModel):
    vendor: str
    invoice_date: str
    total: float
    po_number: str


def _leaf(value: Any, quote: str, page: int) -> dict[str, Any]:
    return {"value": value, "quote": quote, "page": page}


def _agent(model: str, emu: ProviderEmulator, **kwargs: Any) -> Agent:
    provider = registry().detect_provider(model)
    return Agent(
        model,
        api_key="offline-test-key",
        base_url=getattr(emu, f"{provider}_base_url"),
        log_to_file=False,
        **kwargs,
    )


@pytest.mark.parametrize("model", [CLAUDE, OPENAI, GEMINI])
def test_true_quotes_are_verified_on_their_original_pages_and_an_invented_one_is_not(
    model: str, emu: ProviderEmulator
) -> None:
    # The model was sent pages 3-4 as a 2-page PDF: it numbers them 1 and 2.
    answer = {
        "vendor": _leaf("Acme Industrial Supply Ltd.", "Vendor: Acme Industrial Supply Ltd.", 1),
        "invoice_date": _leaf("2024-03-15", "Date: March 15, 2024", 1),
        "total": _leaf(12480.5, "Total due: $12,480.50", 2),
        "po_number": _leaf("PO-7781", "Purchase order PO-7781", 2),  # invented
    }
    emu.reset([Reply(json.dumps(answer))])
    agent = _agent(model, emu)
    pdf = Document(text_pdf(INVOICE_PAGES), pages="3-4", name="invoice.pdf")
    result = agent.run_sync(
        "Extract the invoice.", files=[pdf], output_schema=Invoice, evidence=True
    )

    assert result.output == {
        "vendor": "Acme Industrial Supply Ltd.",
        "invoice_date": "2024-03-15",
        "total": 12480.5,
        "po_number": "PO-7781",
    }
    ev = result.evidence
    assert ev["vendor"].verified and ev["vendor"].page == 3
    assert ev["vendor"].document == "invoice.pdf" and ev["vendor"].score == 100.0
    assert ev["invoice_date"].verified and ev["invoice_date"].page == 3  # dates normalised
    assert ev["total"].verified and ev["total"].page == 4  # numbers normalised
    assert not ev["po_number"].verified and ev["po_number"].method == "not_found"
    assert result.unverified_fields == ["po_number"]
    # The schema the model was given asked for each leaf's quote and page.
    sent = json.dumps(emu.requests[-1].body)
    assert "quote" in sent and "page" in sent


def test_without_a_page_selection_the_pages_are_the_documents_own(emu: ProviderEmulator) -> None:
    answer = {
        "vendor": _leaf("Acme Industrial Supply Ltd.", "Acme Industrial Supply Ltd", 3),
        "invoice_date": _leaf("2024-03-15", "Date: March 15, 2024", 3),
        "total": _leaf(12480.5, "Total due: $12,480.50", 3),  # on the next page: ±1
        "po_number": _leaf("PO-1", "", 1),  # an empty quote
    }
    emu.reset([Reply(json.dumps(answer))])
    result = _agent(CLAUDE, emu).run_sync(
        "Extract.", files=[text_pdf(INVOICE_PAGES)], output_schema=Invoice, evidence=True
    )
    assert result.evidence["total"].page == 4 and result.evidence["total"].verified
    assert result.evidence["po_number"].method == "empty_quote"
    assert result.unverified_fields == ["po_number"]
    assert result.to_dict()["evidence"]["total"]["page"] == 4


def test_without_evidence_the_output_is_unchanged(emu: ProviderEmulator) -> None:
    plain = {"vendor": "A", "invoice_date": "2024-01-01", "total": 1.0, "po_number": "P"}
    emu.reset([Reply(json.dumps(plain))])
    result = _agent(CLAUDE, emu).run_sync("Extract.", output_schema=Invoice)
    assert result.output == plain and result.evidence == {} and result.unverified_fields == []
    assert "quote" not in json.dumps(emu.requests[-1].body)


MISSING_FIELD = {"vendor": "Acme", "invoice_date": "2024-03-15", "total": 12.5}
VALID = {**MISSING_FIELD, "po_number": "PO-1"}


@pytest.mark.parametrize("model", [CLAUDE, OPENAI, GEMINI])
def test_output_retries_re_asks_once_and_the_re_ask_is_its_own_cost_record(
    model: str, emu: ProviderEmulator
) -> None:
    emu.reset([Reply(json.dumps(MISSING_FIELD)), Reply(json.dumps(VALID))])
    result = _agent(model, emu, output_retries=1).run_sync("Extract.", output_schema=Invoice)
    assert result.output == VALID
    purposes = [r["purpose"] for r in result.request_cost_records]
    assert purposes == ["generation", "output_retry"]
    assert result.cost == pytest.approx(sum(r["cost"] for r in result.request_cost_records))
    assert result.cost > 0
    # The errors went back as field path and message, never an exception repr.
    resent = json.dumps(emu.requests[-1].body)
    assert "po_number" in resent and "Field required" in resent
    assert "ValidationError" not in resent and "Traceback" not in resent


def test_with_no_retries_an_invalid_answer_raises_as_before(emu: ProviderEmulator) -> None:
    emu.reset([Reply(json.dumps(MISSING_FIELD)), Reply(json.dumps(VALID))])
    with pytest.raises(StructuredOutputError, match="po_number") as info:
        _agent(CLAUDE, emu).run_sync("Extract.", output_schema=Invoice)
    assert emu.request_count == 1
    assert info.value.attempts == [[{"path": "po_number", "message": "Field required"}]]


def test_every_attempts_errors_are_on_the_error_after_the_last_retry(
    emu: ProviderEmulator,
) -> None:
    emu.reset([Reply(json.dumps(MISSING_FIELD)), Reply("not json"), Reply("{}")])
    with pytest.raises(StructuredOutputError) as info:
        _agent(CLAUDE, emu).run_sync("Extract.", output_schema=Invoice, output_retries=2)
    attempts = info.value.attempts
    assert len(attempts) == 3 and emu.request_count == 3
    assert attempts[0] == [{"path": "po_number", "message": "Field required"}]
    assert "not valid JSON" in attempts[1][0]["message"]
    assert {e["path"] for e in attempts[2]} == {"vendor", "invoice_date", "total", "po_number"}
    partial = info.value.partial_result
    assert [r["purpose"] for r in partial.request_cost_records] == [
        "generation",
        "output_retry",
        "output_retry",
    ]


def test_a_value_missing_from_its_own_quote_is_re_asked(emu: ProviderEmulator) -> None:
    wrong = {
        "vendor": _leaf("Acme Industrial Supply Ltd.", "Vendor: Acme Industrial Supply Ltd.", 1),
        "invoice_date": _leaf("2024-03-15", "Date: March 15, 2024", 1),
        "total": _leaf(999.0, "Total due: $12,480.50", 2),  # not in its quote
        "po_number": _leaf("INV-2041", "INVOICE INV-2041", 1),
    }
    right = {**wrong, "total": _leaf(12480.5, "Total due: $12,480.50", 2)}
    emu.reset([Reply(json.dumps(wrong)), Reply(json.dumps(right))])
    pdf = Document(text_pdf(INVOICE_PAGES), pages="3-4", name="invoice.pdf")
    result = _agent(CLAUDE, emu, output_retries=1).run_sync(
        "Extract.", files=[pdf], output_schema=Invoice, evidence=True
    )
    assert result.output["total"] == 12480.5
    assert result.unverified_fields == []
    assert [r["purpose"] for r in result.request_cost_records] == ["generation", "output_retry"]
    # Without re-asks left, the mismatch is kept and the field ends unverified.
    emu.reset([Reply(json.dumps(wrong))])
    result = _agent(CLAUDE, emu).run_sync(
        "Extract.", files=[pdf], output_schema=Invoice, evidence=True
    )
    assert result.output["total"] == 999.0
    assert result.evidence["total"].method == "value_not_in_quote"
    assert result.unverified_fields == ["total"]


class Memo(BaseModel):
    growth: str


def test_a_converted_office_file_is_checked_against_its_markdown(emu: ProviderEmulator) -> None:
    from document_samples import docx_bytes

    answer = {"growth": _leaf("12 percent", "Revenue grew by 12 percent.", 1)}
    emu.reset([Reply(json.dumps(answer))])
    memo = Document(docx_bytes(["Quarterly memo", "Revenue grew by 12 percent."]), name="m.docx")
    result = _agent("claude-sonnet-5-5", emu, on_unsupported_part="convert").run_sync(
        "Extract.", files=[memo], output_schema=Memo, evidence=True
    )
    assert result.output == {"growth": "12 percent"}
    ev = result.evidence["growth"]
    assert ev.verified and ev.document == "m.docx" and ev.page == 1


@pytest.mark.anyio
async def test_stream_and_session_turns_carry_evidence(emu: ProviderEmulator) -> None:
    answer = {
        "vendor": _leaf("Acme Industrial Supply Ltd.", "Vendor: Acme Industrial Supply Ltd.", 1),
        "invoice_date": _leaf("2024-03-15", "Date: March 15, 2024", 1),
        "total": _leaf(12480.5, "Total due: $12,480.50", 2),
        "po_number": _leaf("PO-7781", "Purchase order PO-7781", 2),
    }
    emu.reset([Reply(json.dumps(answer)), Reply(json.dumps(answer))])
    agent = _agent(CLAUDE, emu)
    pdf = Document(text_pdf(INVOICE_PAGES), pages="3-4", name="invoice.pdf")
    events = [
        e async for e in agent.stream("Extract.", files=[pdf], output_schema=Invoice, evidence=True)
    ]
    complete = events[-1]
    assert complete.event_type == "complete" and complete.metadata is not None
    assert complete.metadata["output"]["total"] == 12480.5
    assert complete.metadata["evidence"]["total"]["page"] == 4
    assert complete.metadata["unverified_fields"] == ["po_number"]
    session = agent.session()
    result = await session.run("Extract.", files=[pdf], output_schema=Invoice, evidence=True)
    assert result.evidence["vendor"].page == 3 and result.unverified_fields == ["po_number"]
    await agent.close()


def test_run_document_maps_chunk_pages_back_and_merges_evidence(emu: ProviderEmulator) -> None:
    # Two chunks of two pages (pages 1-2 and 3-4): each numbers its pages 1 and 2.
    first = {
        "vendor": None,
        "invoice_date": None,
        "total": None,
        "po_number": _leaf("30 days", "Payment within 30 days.", 2),
    }
    second = {
        "vendor": _leaf("Acme Industrial Supply Ltd.", "Vendor: Acme Industrial Supply Ltd.", 1),
        "invoice_date": _leaf("2024-03-15", "Date: March 15, 2024", 1),
        "total": _leaf(12480.5, "Total due: $12,480.50", 2),
        "po_number": _leaf("30 days", "Payment within 30 days.", 2),
    }

    class Loose(BaseModel):
        vendor: str | None = None
        invoice_date: str | None = None
        total: float | None = None
        po_number: str | None = None

    emu.reset([Reply(json.dumps(first)), Reply(json.dumps(second))])
    doc = _agent(CLAUDE, emu).run_document_sync(
        Document(text_pdf(INVOICE_PAGES), name="invoice.pdf"),
        "Extract.",
        output_schema=Loose,
        chunk_pages=2,
        concurrency=1,
        evidence=True,
    )
    assert doc.chunks[0].evidence["po_number"].page == 2
    assert doc.chunks[1].evidence["total"].page == 4  # chunk page 2 is original page 4
    assert doc.evidence["vendor"].page == 3 and doc.evidence["total"].page == 4
    assert doc.evidence["po_number"].page == 2 and doc.evidence["po_number"].verified
    assert doc.unverified_fields == []


def test_a_pdf_path_on_a_row_without_page_limits_is_read_too(
    emu: ProviderEmulator, tmp_path: Path
) -> None:
    from doc_processing_toolkit.application.grounding import document_texts

    path = tmp_path / "invoice.pdf"
    path.write_bytes(text_pdf(INVOICE_PAGES))
    agent = _agent(CLAUDE, emu)
    # files as the run hands them over when nothing needed preparing: the path itself
    (text,) = document_texts([str(path)], [str(path)], {}, [], agent.document_planner)
    assert text.name == "invoice.pdf" and list(text.original_pages) == [1, 2, 3, 4]
    assert "Total due" in text.pages[3]

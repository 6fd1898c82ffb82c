"""Issue 35 acceptance, through each provider's real SDK against the loopback emulator: a
generated 300-page contract to a 200K Claude row is refused before any request, a page
selection sends only its pages, ``run_document`` makes one request per chunk of the row's
page limit (3 on Claude and OpenAI, 1 on Gemini: emulator-counted), merges a list in page
order, reports a disagreeing scalar with its original pages, and its cost is the sum of
its records; ``estimate`` predicts the pages, the requests and the cost without a
request."""

from __future__ import annotations

import base64
import io
import json
import re
from typing import Any

import pypdf
import pytest
from document_samples import numbered_pdf
from pydantic import BaseModel

from doc_processing_toolkit import Agent, DocumentLimitError
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.domain.costs.pricing import price_request, round_usd
from doc_processing_toolkit.domain.documents.estimate import ASSUMED_PDF_PAGE_TOKENS
from doc_processing_toolkit.domain.requests import Usage
from doc_processing_toolkit.testing import ProviderEmulator, Reply

CLAUDE_200K, OPENAI, GEMINI = "claude-haiku-4-5", "gpt-5.4", "gemini-2.5-flash"
GENERATE_PATHS = ("/v1/messages", "/v1/responses", ":streamGenerateContent", ":generateContent")
IN_TOKENS, OUT_TOKENS = 1_000, 50


class Contract(BaseModel):
    parties: list[str]
    governing_law: str


@pytest.fixture(scope="module")
def contract() -> bytes:
    return numbered_pdf(300)


def _agent(model: str, emu: ProviderEmulator) -> Agent:
    provider = registry().detect_provider(model)
    return Agent(
        model,
        api_key="offline-test-key",
        base_url=getattr(emu, f"{provider}_base_url"),
        log_to_file=False,
    )


def _generations(emu: ProviderEmulator) -> list[dict[str, Any]]:
    return [r.body for r in emu.requests if r.path.endswith(GENERATE_PATHS)]


def _pdfs(body: dict[str, Any]) -> list[bytes]:
    """Every base64 PDF in a request body, decoded (whatever the wire shape)."""
    text = json.dumps(body)
    found = re.findall(r"(?:base64,)?(JVBERi[A-Za-z0-9+/=_-]+)", text)
    return [base64.b64decode(b.replace("-", "+").replace("_", "/")) for b in found]


def _page_count(pdf: bytes) -> int:
    return len(pypdf.PdfReader(io.BytesIO(pdf)).pages)


def _chunk_answer(body: dict[str, Any]) -> Reply:
    """Each chunk's answer, read off the pages its prompt names: parties per chunk (one
    repeated), and a governing law that the last chunk answers differently."""
    match = re.search(r"its pages (\d+)-(\d+)", json.dumps(body))
    first = int(match.group(1)) if match else 1
    answers = {
        1: {"parties": ["Acme Corp", "Beta LLC"], "governing_law": "Delaware"},
        101: {"parties": ["Beta LLC", "Gamma SA"], "governing_law": ""},
        201: {"parties": ["Delta GmbH"], "governing_law": "New York"},
    }
    data = answers.get(first, answers[1])
    return Reply(json.dumps(data), input_tokens=IN_TOKENS, output_tokens=OUT_TOKENS)


def test_a_300_page_pdf_to_a_200k_claude_row_is_refused_before_any_request(
    emu: ProviderEmulator, contract: bytes, tmp_path: Any
) -> None:
    path = tmp_path / "contract.pdf"
    path.write_bytes(contract)
    agent = _agent(CLAUDE_200K, emu)
    with pytest.raises(DocumentLimitError) as caught:
        agent.run_sync("Summarise the contract.", files=[str(path)])
    error = caught.value
    assert (error.document, error.actual, error.limit, error.model) == (
        "contract.pdf",
        300,
        100,
        CLAUDE_200K,
    )
    for needle in (
        "contract.pdf",
        "300 pages",
        "100-page limit",
        CLAUDE_200K,
        "pages=",
        "run_document",
    ):
        assert needle in str(error)
    with pytest.raises(DocumentLimitError):
        agent.run_sync("Summarise.", files=[Document(path)])
    assert emu.request_count == 0


@pytest.mark.parametrize("model", [CLAUDE_200K, OPENAI, GEMINI])
def test_a_page_selection_sends_only_its_pages(
    model: str, emu: ProviderEmulator, contract: bytes
) -> None:
    emu.default = Reply("pages 41 to 60 read")
    agent = _agent(model, emu)
    result = agent.run_sync("Summarise.", files=[Document(contract, pages="41-60", name="c.pdf")])
    assert result.output == "pages 41 to 60 read"
    (body,) = _generations(emu)
    (sent,) = _pdfs(body)
    assert _page_count(sent) == 20
    reader = pypdf.PdfReader(io.BytesIO(sent))
    assert (
        "page 41 " in reader.pages[0].extract_text()
        and "page 60 " in reader.pages[19].extract_text()
    )


@pytest.mark.parametrize(("model", "requests"), [(CLAUDE_200K, 3), (OPENAI, 3), (GEMINI, 1)])
def test_run_document_chunks_merges_and_costs_exactly(
    model: str, requests: int, emu: ProviderEmulator, contract: bytes
) -> None:
    emu.responder = _chunk_answer
    agent = _agent(model, emu)
    estimate = agent.estimate(
        "Extract the contract terms.", files=[contract], output_schema=Contract
    )
    assert emu.request_count == 0
    result = agent.run_document_sync(
        Document(contract, name="contract.pdf"),
        "Extract the contract terms.",
        output_schema=Contract,
    )
    bodies = _generations(emu)
    assert len(bodies) == requests == estimate.requests
    assert estimate.pages == 300 and len(estimate.request_tokens) == requests
    row = registry().row(model)
    assert row is not None
    per_page = row.pdf_tokens_per_page or ASSUMED_PDF_PAGE_TOKENS
    assert estimate.input_tokens - sum(estimate.request_tokens) == 0
    assert min(estimate.request_tokens) >= per_page * 300 // requests
    priced = [price_request(Usage(input_tokens=t), row).cost for t in estimate.request_tokens]
    assert estimate.cost_usd == pytest.approx(sum(priced))
    assert (
        sorted(_page_count(pdf) for body in bodies for pdf in _pdfs(body))
        == [300 // requests] * requests
    )
    assert [c.page_range for c in result.chunks] == (
        ["1-100", "101-200", "201-300"] if requests == 3 else ["1-300"]
    )
    records = result.request_records
    assert len(records) == requests
    assert {r["purpose"] for r in records} == {"document_chunk"}
    assert result.cost == round_usd(sum(r["cost"] for r in records))
    one = price_request(Usage(input_tokens=IN_TOKENS, output_tokens=OUT_TOKENS), row).cost
    assert result.cost == pytest.approx(one * requests)
    assert result.missing_pages == ()
    if requests == 3:
        assert result.output.parties == ["Acme Corp", "Beta LLC", "Gamma SA", "Delta GmbH"]
        assert result.output.governing_law == "Delaware"
        (conflict,) = result.conflicts
        assert conflict.path == "governing_law"
        assert [(v.value, v.pages[0], v.pages[-1]) for v in conflict.values] == [
            ("Delaware", 1, 100),
            ("New York", 201, 300),
        ]
        assert result.provenance["parties[3]"] == tuple(range(201, 301))
    else:
        assert result.output.parties == ["Acme Corp", "Beta LLC"] and result.conflicts == ()

"""Issue 35 acceptance for Office files and scanned pages, on the wire (real SDKs against the
loopback emulator): a .docx goes to OpenAI natively as ``input_file``; to Anthropic it is
dropped by default and sent as Markdown with ``on_unsupported_part="convert"``; a PDF
whose page 2 is scanned reaches a text-only Fireworks row as page 1's text layer and page
2's OCR text, and ``converted_parts`` says which engine read which page."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from document_samples import docx_bytes, scanned_pdf, zip_bomb_docx

from doc_processing_toolkit import Agent
from doc_processing_toolkit.application.container import default_deps, registry
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, Reply

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
MEMO = ["Quarterly memo", "Revenue grew by 12 percent."]


def _agent(model: str, emu: ProviderEmulator, **kwargs: Any) -> Agent:
    provider = registry().detect_provider(model)
    return Agent(
        model,
        api_key="offline-test-key",
        base_url=getattr(emu, f"{provider}_base_url"),
        log_to_file=False,
        **kwargs,
    )


def _body(emu: ProviderEmulator) -> str:
    (request,) = [r for r in emu.requests if r.body.get("model")]
    return json.dumps(request.body)


def test_a_docx_goes_to_openai_as_input_file(emu: ProviderEmulator) -> None:
    emu.default = Reply("read")
    result = _agent("gpt-5.4", emu).run_sync(
        "Summarise.", files=[Document(docx_bytes(MEMO), name="memo.docx")]
    )
    body = json.loads(_body(emu))
    (file_item,) = [
        c for m in body["input"] for c in m.get("content", []) if c.get("type") == "input_file"
    ]
    assert file_item["filename"] == "memo.docx"
    assert file_item["file_data"].startswith(f"data:{DOCX};base64,")
    assert result.dropped_parts == [] and result.converted_parts == []


def test_a_docx_to_anthropic_is_dropped_by_default(emu: ProviderEmulator) -> None:
    emu.default = Reply("nothing to read")
    result = _agent("claude-sonnet-5-5", emu).run_sync(
        "Summarise.", files=[Document(docx_bytes(MEMO), name="memo.docx")]
    )
    assert "Revenue grew" not in _body(emu)
    (dropped,) = result.dropped_parts
    assert 'on_unsupported_part="convert"' in dropped["reason"]
    assert result.converted_parts == []


def test_a_docx_to_anthropic_with_convert_arrives_as_markdown(emu: ProviderEmulator) -> None:
    emu.default = Reply("read")
    agent = _agent("claude-sonnet-5-5", emu, on_unsupported_part="convert")
    result = agent.run_sync("Summarise.", files=[Document(docx_bytes(MEMO), name="memo.docx")])
    body = json.loads(_body(emu))
    texts = [c["text"] for m in body["messages"] for c in m["content"] if c["type"] == "text"]
    assert any("Revenue grew by 12 percent." in t and 'name="memo.docx"' in t for t in texts)
    assert not any(c["type"] == "document" for m in body["messages"] for c in m["content"])
    (entry,) = result.converted_parts
    assert (entry["name"], entry["from_type"], entry["converter"]) == (
        "memo.docx",
        DOCX,
        "markitdown",
    )
    assert entry["characters"] > 0 and entry["lost"] == [] and result.dropped_parts == []


def test_a_failed_conversion_is_reported_and_the_other_parts_still_go(
    emu: ProviderEmulator,
) -> None:
    emu.default = Reply("read")
    agent = _agent("claude-sonnet-5-5", emu, on_unsupported_part="convert")
    result = agent.run_sync(
        "Summarise.",
        files=[
            Document(zip_bomb_docx(), name="bomb.docx"),
            Document(docx_bytes(MEMO), name="memo.docx"),
        ],
    )
    assert "Revenue grew" in _body(emu)
    bomb, memo = result.converted_parts
    assert bomb["name"] == "bomb.docx" and "zip bomb" in bomb["error"]
    assert memo["name"] == "memo.docx" and "error" not in memo
    assert [d["index"] for d in result.dropped_parts] == [0]


def test_a_scanned_page_reaches_a_text_only_row_through_ocr(emu: ProviderEmulator) -> None:
    pytest.importorskip("rapidocr")
    emu.default = Reply("read")
    pdf = scanned_pdf(["Invoice number 4711", "TOTAL DUE 1250 EUR"], scanned=[2])
    agent = _agent("glm-5", emu, on_unsupported_part="convert")
    result = agent.run_sync("What is due?", files=[Document(pdf, name="invoice.pdf")])
    body = _body(emu)
    assert "Invoice number 4711" in body and "## Page 2" in body
    assert "1250" in body and "TOTAL" in body.upper()
    (entry,) = result.converted_parts
    assert entry["converter"] == "pypdf" and entry["lost"] == []
    assert entry["ocr"] == [{"page": 2, "engine": "rapidocr"}]


def test_without_ocr_a_scanned_page_is_reported_lost(emu: ProviderEmulator) -> None:
    emu.default = Reply("read")
    pdf = scanned_pdf(["Page one text", "TOTAL DUE 1250 EUR"], scanned=[2])
    no_ocr = dataclasses.replace(default_deps(), ocr=None)  # as without the ocr extra
    agent = _agent("glm-5", emu, on_unsupported_part="convert", deps=no_ocr)
    result = agent.run_sync("Read.", files=[Document(pdf, name="scan.pdf", pages="2")])
    (entry,) = result.converted_parts
    assert entry["lost"] and entry["lost"][0].startswith("page 2: no text layer")
    assert "could not be read" in _body(emu)


def test_a_scanned_page_goes_as_a_page_image_to_a_row_that_takes_images(
    emu: ProviderEmulator,
) -> None:
    emu.default = Reply("read")
    pdf = scanned_pdf(["Page one text", "TOTAL DUE 1250 EUR"], scanned=[2])
    agent = _agent("kimi-k2p5", emu, on_unsupported_part="convert")
    result = agent.run_sync("Read.", files=[Document(pdf, name="scan.pdf")])
    body = _body(emu)
    assert "Page one text" in body and "data:image/png;base64," in body
    (entry,) = result.converted_parts
    assert entry["page_images"] == [2] and "ocr" not in entry and entry["lost"] == []


def test_a_conversion_is_cached_by_content_within_the_agent(emu: ProviderEmulator) -> None:
    emu.default = Reply("read")
    agent = _agent("claude-sonnet-5-5", emu, on_unsupported_part="convert")
    memo = docx_bytes(MEMO)
    first = agent.run_sync("One.", files=[Document(memo, name="memo.docx")])
    second = agent.run_sync("Two.", files=[Document(memo, name="memo.docx")])
    assert "cached" not in first.converted_parts[0]
    assert second.converted_parts[0]["cached"] is True

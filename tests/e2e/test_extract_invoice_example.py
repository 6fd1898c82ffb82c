"""examples/extract_invoice.py runs offline on all four providers, and the PDF it sends
is a well-formed multi-page PDF."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from doc_processing_toolkit.application.media.detect import sniff_media_type
from doc_processing_toolkit.testing.pdf import text_pdf

ROOT = Path(__file__).resolve().parents[2]


def test_text_pdf_is_well_formed() -> None:
    data = text_pdf([["INVOICE (draft)", "Total: 10"], ["page two"], ["page three"]])
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert sniff_media_type(data) == "application/pdf"
    # every cross-reference entry points at the object it names
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))  # type: ignore[union-attr]
    table = data[xref:].split(b"trailer")[0].splitlines()[3:]
    for number, line in enumerate(table, start=1):
        offset = int(line.split()[0])
        assert data[offset:].startswith(f"{number} 0 obj".encode())
    assert data.count(b"/Type /Page ") == 3 and b"/Count 3" in data
    assert b"(INVOICE \\(draft\\)) Tj" in data  # parentheses escaped
    with pytest.raises(ValueError, match="page"):
        text_pdf([])


def test_extract_invoice_example_runs_on_every_provider(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(ROOT / "examples" / "extract_invoice.py"), run_name="__main__")
    lines = [line for line in capsys.readouterr().out.splitlines() if "total=" in line]
    assert len(lines) == 4
    assert all("total=296.00 items=3" in line for line in lines)
    [fireworks] = [line for line in lines if "fireworks" in line]
    assert "dropped=" in fireworks and "pdf" in fireworks


def _docx() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>")
    return buffer.getvalue()


def test_an_office_document_is_refused_with_the_supported_types_and_the_ways_in() -> None:
    from doc_processing_toolkit import Agent, UnsupportedPartError
    from doc_processing_toolkit.testing import FakeModel, reply

    fake = FakeModel([reply("ok")])
    agent = Agent("claude-sonnet-5-5", client=fake, log_to_file=False)
    result = agent.run_sync("Summarise", files=[_docx()])
    [dropped] = result.dropped_parts
    assert "wordprocessingml" in dropped["kind"]
    assert "image, pdf" in dropped["reason"] and "convert the docx file to PDF" in dropped["reason"]
    assert (
        "tool_files=" in dropped["reason"] and 'on_unsupported_part="convert"' in dropped["reason"]
    )
    # gpt-4o takes a .docx natively (OpenAI input_file, registry O-FILES); Gemini does not
    strict = Agent(
        "gemini-2.5-flash", client=FakeModel([]), on_unsupported_part="raise", log_to_file=False
    )
    with pytest.raises(UnsupportedPartError, match="convert the docx file to PDF"):
        strict.run_sync("Summarise", files=[_docx()])

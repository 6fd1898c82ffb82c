"""Documents in files= through the real container and FakeModel: only the selected pages
are sent, limits and bad documents fail before any request, and a Document goes wherever
files= does (run, stream, session turns)."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pytest
from document_samples import docx_bytes, encrypted_pdf, numbered_pdf, scanned_pdf, zip_bomb_docx

from doc_processing_toolkit import Agent, DocumentError, DocumentLimitError
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.testing import FakeModel, reply

CLAUDE_200K = "claude-haiku-4-5"


def _agent(fake: FakeModel, model: str = CLAUDE_200K) -> Agent:
    return Agent(model, client=fake, log_to_file=False)


def _sent_pdf(fake: FakeModel) -> bytes:
    (part,) = [p for p in fake.requests[-1].messages[-1].parts if isinstance(p, MediaPart)]
    assert part.mime_type == "application/pdf" and part.data is not None
    return part.data


def _pages_text(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def test_only_the_selected_pages_are_sent() -> None:
    fake = FakeModel([reply("ok")])
    _agent(fake).run_sync("Read.", files=[Document(numbered_pdf(300), pages="41-60,75")])
    texts = _pages_text(_sent_pdf(fake))
    assert len(texts) == 21
    assert "page 41 " in texts[0] and "page 60 " in texts[19] and "page 75 " in texts[20]


def test_a_whole_document_within_the_limit_is_sent_as_it_is() -> None:
    pdf = numbered_pdf(12)
    fake = FakeModel([reply("ok")])
    _agent(fake).run_sync("Read.", files=[Document(pdf)])
    assert _sent_pdf(fake) == pdf


@pytest.mark.parametrize("files", ["path", "document", "two"])
def test_over_the_page_limit_nothing_is_sent(tmp_path: Path, files: str) -> None:
    path = tmp_path / "contract.pdf"
    path.write_bytes(numbered_pdf(101 if files != "two" else 60))
    given = {
        "path": [path],
        "document": [Document(path)],
        "two": [path, Document(numbered_pdf(60), name="annex.pdf")],
    }[files]
    fake = FakeModel([reply("never")])
    with pytest.raises(DocumentLimitError) as caught:
        _agent(fake).run_sync("Read.", files=given)
    assert "contract.pdf" in str(caught.value) and "100-page limit" in str(caught.value)
    assert fake.requests == []


def test_a_selection_within_the_limit_passes_a_document_over_it() -> None:
    fake = FakeModel([reply("ok")])
    _agent(fake).run_sync("Read.", files=[Document(numbered_pdf(300), pages=range(201, 301))])
    assert len(_pages_text(_sent_pdf(fake))) == 100


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (Document(numbered_pdf(30), pages="25-31", name="c.pdf"), "page 31 is beyond the end"),
        (Document(b"", name="empty.pdf", mime_type="application/pdf"), "empty (0 bytes)"),
        (Document(docx_bytes(["Hello"]), pages="1", name="memo.docx"), "pages= applies to PDFs"),
        (Document("https://example.com/c.pdf?sig=secret", pages="1"), "URL"),
        (Document(b"%PDF-1.4 not really", name="broken.pdf"), "broken.pdf"),
        (Document(encrypted_pdf(["x"]), name="locked.pdf"), "locked.pdf"),
    ],
)
def test_a_bad_document_fails_before_any_request(document: Document, problem: str) -> None:
    fake = FakeModel([reply("never")])
    with pytest.raises(DocumentError) as caught:
        _agent(fake).run_sync("Read.", files=[document])
    assert problem in str(caught.value) and "secret" not in str(caught.value)
    assert fake.requests == []


@pytest.mark.parametrize("pages", ["0", "30-10", "", [0], "x"])
def test_a_bad_selection_fails_when_the_document_is_made(pages: object) -> None:
    with pytest.raises(DocumentError, match=r"c\.pdf"):
        Document(b"%PDF", pages=pages, name="c.pdf")  # type: ignore[arg-type]


def test_info_reads_pages_and_scanned_pages_without_a_request(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(scanned_pdf(["one", "two", "three"], scanned=[2]))
    info = Document(path).info()
    assert (info.kind, info.mime_type, info.pages) == ("pdf", "application/pdf", 3)
    assert info.text_pages == (1, 3) and info.image_only_pages == (2,)
    assert info.bytes == path.stat().st_size
    with pytest.raises(DocumentError, match="URL"):
        Document("https://example.com/x.pdf").info()


def test_a_url_document_is_sent_as_a_url_and_never_shows_its_query() -> None:
    doc = Document("https://example.com/files/c.pdf?token=secret")
    assert "secret" not in repr(doc) and doc.name == "c.pdf"
    fake = FakeModel([reply("ok")])
    _agent(fake, "claude-sonnet-5-5").run_sync("Read.", files=[doc])
    (part,) = [p for p in fake.requests[-1].messages[-1].parts if isinstance(p, MediaPart)]
    assert part.url == "https://example.com/files/c.pdf?token=secret" and part.data is None


@pytest.mark.anyio
async def test_stream_and_session_turns_take_documents() -> None:
    fake = FakeModel([reply("one"), reply("two")])
    agent = _agent(fake)
    events = [e async for e in agent.stream("Read.", files=[Document(numbered_pdf(5), pages="2")])]
    assert events[-1].event_type == "complete"
    assert len(_pages_text(_sent_pdf(fake))) == 1
    session = agent.session()
    result = await session.run("Again.", files=[Document(numbered_pdf(5), pages="3-4")])
    assert result.output == "two"
    assert len(_pages_text(_sent_pdf(fake))) == 2


@pytest.mark.parametrize("as_document", [True, False])
def test_a_zip_bomb_docx_to_a_row_that_takes_docx_fails_before_any_request(
    as_document: bool,
) -> None:
    bomb = zip_bomb_docx()
    fake = FakeModel([reply("never")])
    given = Document(bomb, name="bomb.docx") if as_document else bomb
    with pytest.raises(DocumentError, match="zip bomb"):
        _agent(fake, "gpt-5.4").run_sync("Read.", files=[given])
    assert fake.requests == []


def test_a_docx_to_a_row_that_takes_docx_is_sent_as_it_is() -> None:
    memo = docx_bytes(["Hello"])
    fake = FakeModel([reply("ok")])
    _agent(fake, "gpt-5.4").run_sync("Read.", files=[Document(memo, name="memo.docx")])
    (part,) = [p for p in fake.requests[-1].messages[-1].parts if isinstance(p, MediaPart)]
    assert part.data == memo and part.filename == "memo.docx"

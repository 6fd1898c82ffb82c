"""Test documents made in the tests: text PDFs, image-only (scanned) pages, encrypted PDFs,
.docx/.pptx/.xlsx files and zip bombs. Nothing is read from disk or the network.

Imported by its top-level name (``from document_samples import text_pdf``: ``tests/`` is on
``sys.path``), by the unit, integration and bench tests of the documents rooms.

The PDFs are written by hand (a few objects and an xref table, PDF 1.4), so a 1,000-page
document takes milliseconds; pypdf and pypdfium2 read them as any PDF.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "GrayImage",
    "docx_bytes",
    "encrypted_pdf",
    "numbered_pdf",
    "pdf_bytes",
    "pptx_bytes",
    "render_gray",
    "scanned_pdf",
    "text_pdf",
    "xlsx_bytes",
    "zip_bomb_docx",
]


@dataclass(frozen=True)
class GrayImage:
    """An 8-bit grayscale raster (one byte per pixel, rows top to bottom, no padding)."""

    width: int
    height: int
    pixels: bytes


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _text_stream(text: str) -> bytes:
    lines = text.split("\n") or [""]
    ops = ["BT", "/F1 14 Tf", "18 TL", "72 720 Td"]
    for index, line in enumerate(lines):
        if index:
            ops.append("T*")
        ops.append(f"({_escape(line)}) Tj")
    ops.append("ET")
    return "\n".join(ops).encode("latin-1")


def pdf_bytes(pages: Sequence[str | GrayImage]) -> bytes:
    """A PDF (US Letter pages) whose page ``i`` shows ``pages[i]``: a string is set as text
    in Helvetica (a text layer; ``\\n`` starts a new line; latin-1 only), a `GrayImage`
    fills the page as a picture with no text layer (a scanned page)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below, once the page tree's number is known
    pages_id = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids: list[int] = []
    for page in pages:
        if isinstance(page, GrayImage):
            data = zlib.compress(page.pixels)
            image = add(
                b"<< /Type /XObject /Subtype /Image /Width %d /Height %d "
                b"/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode "
                b"/Length %d >>\nstream\n"
                % (page.width, page.height, len(data))
                + data
                + b"\nendstream"
            )
            content = b"q 612 0 0 792 0 0 cm /Im0 Do Q"
            resources = b"<< /XObject << /Im0 %d 0 R >> >>" % image
        else:
            content = _text_stream(page)
            resources = b"<< /Font << /F1 %d 0 R >> >>" % font
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources %s /Contents %d 0 R >>" % (pages_id, resources, stream)
            )
        )
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids),
    )
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
        % (len(objects) + 1, catalog, xref)
    )
    return out.getvalue()


def text_pdf(pages: Sequence[str]) -> bytes:
    """A PDF of text pages (each page has a text layer)."""
    return pdf_bytes(list(pages))


def numbered_pdf(count: int, *, template: str = "This is page {n} of the contract.") -> bytes:
    """A ``count``-page text PDF whose page ``n`` reads ``template.format(n=n)``."""
    return text_pdf([template.format(n=n) for n in range(1, count + 1)])


def render_gray(pdf: bytes, page: int = 1, *, dpi: int = 150) -> GrayImage:
    """Page ``page`` (1-based) of ``pdf`` rendered by pypdfium2 as a grayscale raster."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        bitmap = document[page - 1].render(scale=dpi / 72, grayscale=True)
        raw = bytes(bitmap.buffer)
        rows = [
            raw[row * bitmap.stride : row * bitmap.stride + bitmap.width]
            for row in range(bitmap.height)
        ]
        return GrayImage(bitmap.width, bitmap.height, b"".join(rows))
    finally:
        document.close()


def scanned_pdf(pages: Sequence[str], *, scanned: Sequence[int], dpi: int = 150) -> bytes:
    """A PDF of ``pages`` where the 1-based pages in ``scanned`` are pictures of their text
    (rendered with pypdfium2, no text layer), as a scanner would make them."""
    out: list[str | GrayImage] = []
    for number, text in enumerate(pages, start=1):
        if number in scanned:
            out.append(render_gray(text_pdf([text]), dpi=dpi))
        else:
            out.append(text)
    return pdf_bytes(out)


def encrypted_pdf(pages: Sequence[str], *, user_password: str = "secret") -> bytes:
    """A text PDF encrypted with pypdf (RC4-128, no extra dependency); an empty
    ``user_password`` makes one that opens without a password."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(text_pdf(pages))))
    writer.encrypt(user_password, "owner-password", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# --- Office Open XML, written by hand (the smallest files Word/PowerPoint/Excel open) ---

_RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
_IMAGE_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"
_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

# A 1x1 white PNG: the embedded images of the generated Office files.
_PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b55"
    "0000000a49444154789c6360000000020001e221bc330000000049454e44ae426082"
)


def _content_types(main_part: str, main_type: str, extra: str = "") -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" '
        'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Default Extension="png" ContentType="image/png"/>'
        f'<Override PartName="/{main_part}" ContentType="{main_type}"/>'
        f"{extra}</Types>"
    )


def _root_rels(main_part: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<Relationships xmlns="{_RELS_NS}">'
        f'<Relationship Id="rId1" Type="{_DOC_REL}" Target="{main_part}"/>'
        "</Relationships>"
    )


def docx_bytes(paragraphs: Sequence[str], *, images: int = 0) -> bytes:
    """A .docx whose body holds ``paragraphs`` (a paragraph ``"\\f"`` is a page break), and
    ``images`` embedded PNG files in ``word/media/``, referenced from the document's
    relationships."""
    body = "".join(
        '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'
        if text == "\f"
        else f'<w:p><w:r><w:t xml:space="preserve">{_xml(text)}</w:t></w:r></w:p>'
        for text in paragraphs
    )
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<w:document xmlns:w="{_W_NS}" xmlns:r="{_R_NS}"><w:body>{body}</w:body></w:document>'
    )
    rels = "".join(
        f'<Relationship Id="rIdImg{i}" Type="{_IMAGE_REL}" Target="media/image{i}.png"/>'
        for i in range(1, images + 1)
    )
    files = {
        "[Content_Types].xml": _content_types(
            "word/document.xml",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
        ),
        "_rels/.rels": _root_rels("word/document.xml"),
        "word/document.xml": document,
        "word/_rels/document.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            f'<Relationships xmlns="{_RELS_NS}">{rels}</Relationships>'
        ),
    }
    media = {f"word/media/image{i}.png": _PNG_1X1 for i in range(1, images + 1)}
    return _zip(files, media)


def pptx_bytes(slides: Sequence[str], *, images: int = 0) -> bytes:
    """A .pptx with one title per slide (made with python-pptx, which the ``documents``
    extra installs), and ``images`` pictures on the first slide."""
    from pptx import Presentation
    from pptx.util import Inches

    presentation = Presentation()
    for index, title in enumerate(slides):
        slide = presentation.slides.add_slide(presentation.slide_layouts[5])
        slide.shapes.title.text = title
        if index == 0:
            for n in range(images):
                slide.shapes.add_picture(io.BytesIO(_PNG_1X1), Inches(1 + n), Inches(3))
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def xlsx_bytes(rows: Sequence[Sequence[object]], *, sheet: str = "Sheet1") -> bytes:
    """A .xlsx with one sheet of ``rows`` (made with openpyxl, from the ``documents``
    extra)."""
    from openpyxl import Workbook

    workbook = Workbook()
    worksheet = workbook.active
    assert worksheet is not None
    worksheet.title = sheet
    for row in rows:
        worksheet.append(list(row))
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def zip_bomb_docx(*, uncompressed_mb: int = 300) -> bytes:
    """A .docx-shaped zip with one member of ``uncompressed_mb`` MB of zeros (it compresses
    about 1000:1): opened naively it inflates far beyond what it weighs."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            _content_types(
                "word/document.xml",
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
            ),
        )
        archive.writestr("_rels/.rels", _root_rels("word/document.xml"))
        chunk = b"\x00" * (1 << 20)
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            for _ in range(uncompressed_mb):
                member.write(chunk)
    return out.getvalue()


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _zip(files: Mapping[str, str], media: Mapping[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text.encode("utf-8"))
        for name, data in media.items():
            archive.writestr(name, data)
    return out.getvalue()


def write_large_pdf(path: Path, megabytes: int) -> Path:
    """A valid one-page PDF of ``megabytes`` MiB: its bulk one stream object (an attached
    file's data) written in 1 MiB blocks, the cross-reference table after it."""
    block = bytes(range(256)) * 4096
    content = b"BT /F1 24 Tf 72 720 Td (Master Services Agreement) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> "
        b">> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
    ]
    offsets = []
    with open(path, "wb") as handle:
        handle.write(b"%PDF-1.7\n")
        for number, body in enumerate(objects, start=1):
            offsets.append(handle.tell())
            handle.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
        offsets.append(handle.tell())
        size = megabytes * len(block)
        handle.write(b"5 0 obj\n<< /Type /EmbeddedFile /Length %d >>\nstream\n" % size)
        for _ in range(megabytes):
            handle.write(block)
        handle.write(b"\nendstream\nendobj\n")
        xref = handle.tell()
        handle.write(b"xref\n0 6\n0000000000 65535 f \n")
        for offset in offsets:
            handle.write(b"%010d 00000 n \n" % offset)
        handle.write(b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return path

"""A minimal PDF writer for tests and examples: real multi-page PDFs, no dependency.

`text_pdf` lays lines of text out on Letter pages in Helvetica and writes a
conforming PDF 1.4 file (catalog, page tree, one content stream per page, a cross-
reference table with exact byte offsets), so any PDF reader - and every provider that
takes PDFs - can open it. It is meant for generating test documents such as invoices,
not for typesetting.
"""

from __future__ import annotations

from collections.abc import Sequence

from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = ["text_pdf"]

_PAGE_WIDTH, _PAGE_HEIGHT = 612, 792
_MARGIN, _LEADING, _FONT_SIZE = 72, 16, 11


def _escape(text: str) -> str:
    safe = text.encode("latin-1", "replace").decode("latin-1")
    return safe.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content(lines: Sequence[str]) -> bytes:
    ops = ["BT", f"/F1 {_FONT_SIZE} Tf", f"{_LEADING} TL", f"{_MARGIN} {_PAGE_HEIGHT - _MARGIN} Td"]
    for line in lines:
        ops.append(f"({_escape(line)}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode("latin-1")


def _info(title: str | None) -> bytes:
    text = f"<< /Title ({_escape(title or 'Document')}) /Producer (doc-processing-toolkit) >>"
    return text.encode("latin-1")


def text_pdf(pages: Sequence[Sequence[str]], *, title: str | None = None) -> bytes:
    """The bytes of a PDF with one page per entry of ``pages`` (each a list of lines).

    Raises:
        ConfigurationError: no pages.
    """
    if not pages:
        raise ConfigurationError("text_pdf: at least one page is required")
    count = len(pages)
    # objects: 1 catalog, 2 page tree, 3 font, 4 info, then (page, content) per page
    page_ids = [5 + 2 * i for i in range(count)]
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: (
            f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] /Count {count} >>"
        ).encode(),
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        4: _info(title),
    }
    for page_id, lines in zip(page_ids, pages, strict=True):
        stream = _content(lines)
        objects[page_id] = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_PAGE_WIDTH} {_PAGE_HEIGHT}] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {page_id + 1} 0 R >>"
        ).encode()
        objects[page_id + 1] = (
            f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream"
        )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, int] = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += f"{number} 0 obj\n".encode() + objects[number] + b"\nendobj\n"
    xref = len(out)
    size = max(objects) + 1
    out += f"xref\n0 {size}\n0000000000 65535 f \n".encode()
    for number in range(1, size):
        out += f"{offsets[number]:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {size} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)

"""The document figures of the bench: splitting a long PDF, reading its text layers, and
MarkItDown converting a .docx, in pages per second (absolute: there is no SDK baseline).

    python tests/bench/documents.py            # these rows alone
    python tests/bench/documents.py --smoke    # one short round

The documents are generated (tests/document_samples.py): a 1,000-page text PDF, split into
ten 100-page chunks by a fresh ``PypdfPages`` each round (parsing included), and a .docx of
100 pages (40 paragraphs a page, page breaks between them) converted by MarkItDown after
one warm-up conversion (MarkItDown loads its file-type model once per process). Medians of
the rounds; measurements, never assertions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: document_samples

from document_samples import docx_bytes, numbered_pdf

from doc_processing_toolkit.adapters.documents import PypdfPages
from doc_processing_toolkit.domain.documents.kinds import DOCX_MIME as DOCX

Row = tuple[str, str, float, str]
"""(figure, unit, value, note)."""

PARAGRAPHS_PER_PAGE = 40


def _median_seconds(fn: Callable[[], Any], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _docx(pages: int) -> bytes:
    paragraphs: list[str] = []
    for page in range(1, pages + 1):
        if page > 1:
            paragraphs.append("\f")
        paragraphs += [
            f"Page {page}, clause {n}: the tenant pays the rent on the first day of the month."
            for n in range(1, PARAGRAPHS_PER_PAGE + 1)
        ]
    return docx_bytes(paragraphs)


def document_rows(*, smoke: bool = False) -> list[Row]:
    """The document figures: PDF split, PDF text layers, MarkItDown .docx conversion."""
    rounds = 1 if smoke else 5
    total, chunk = (100, 10) if smoke else (1000, 100)
    pdf = numbered_pdf(total)

    def split() -> None:
        pages = PypdfPages()  # a fresh adapter: the parse is part of the figure
        for start in range(1, total + 1, chunk):
            pages.cut(pdf, range(start, start + chunk), "bench.pdf")

    def text_layers() -> None:
        PypdfPages().info(pdf, "bench.pdf")

    rows: list[Row] = [
        (
            f"split a {total:,}-page PDF into {chunk}-page chunks (pypdf)",
            "pages/s",
            total / _median_seconds(split, rounds),
            f"{len(pdf) / 1e6:.1f} MB, parsed once",
        ),
        (
            f"page count + text layers of a {total:,}-page PDF (info)",
            "pages/s",
            total / _median_seconds(text_layers, rounds),
            "pypdf extract_text per page",
        ),
    ]
    try:
        from doc_processing_toolkit.adapters.documents.markitdown import MarkItDownConverter
    except ImportError:  # pragma: no cover - without the documents extra
        return rows
    doc_pages = 10 if smoke else 100
    data = _docx(doc_pages)
    converter = MarkItDownConverter()
    converter.convert(_docx(1), DOCX, "warm-up.docx")
    seconds = _median_seconds(lambda: converter.convert(data, DOCX, "bench.docx"), rounds)
    rows.append(
        (
            f"MarkItDown .docx -> Markdown, {doc_pages} pages",
            "pages/s",
            doc_pages / seconds,
            f"{PARAGRAPHS_PER_PAGE} paragraphs a page, {len(data) / 1e3:.0f} kB",
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="one short round")
    args = parser.parse_args()
    for figure, unit, value, note in document_rows(smoke=args.smoke):
        print(f"| {figure} | {value:,.0f} {unit} | {note} |")


if __name__ == "__main__":
    main()

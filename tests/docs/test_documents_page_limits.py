"""The page-limit table of docs/guide/documents.md is generated from the registry: this test
renders it from the rows and fails when the page differs. To regenerate the page:

    .venv/bin/python tests/docs/test_documents_page_limits.py --write
"""

from __future__ import annotations

import sys
from pathlib import Path

from doc_processing_toolkit.adapters.registry.json_file import default_registry

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "guide" / "documents.md"
START, END = "<!-- page-limits:start -->", "<!-- page-limits:end -->"
OFFICE = ("docx", "pptx", "xlsx")


def _number(value: int | None, unit: str = "") -> str:
    return "—" if value is None else f"{value:,}{unit}"


def _megabytes(value: int | None) -> str:
    return "—" if value is None else f"{value / 1_000_000:g} MB"


def render_table() -> str:
    """The table, one line per current registry row that takes PDFs (provider, then model;
    deprecated rows and rows with a retirement date are left out)."""
    registry = default_registry()
    lines = [
        "| provider | model | PDF pages per request | tokens per page | request bytes "
        "| inline bytes | Office input |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = sorted(registry.models(), key=lambda row: (row.provider, row.model))
    for row in rows:
        if "pdf" not in row.input_types or row.deprecated or row.retirement_date:
            continue
        office = ", ".join(t for t in OFFICE if t in row.input_types) or "—"
        lines.append(
            f"| {row.provider} | `{row.model}` | {_number(row.max_pdf_pages)} "
            f"| {_number(row.pdf_tokens_per_page)} | {_megabytes(row.max_request_bytes)} "
            f"| {_megabytes(row.max_inline_bytes)} | {office} |"
        )
    return "\n".join(lines)


def _current() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def test_the_page_limit_table_is_the_registry() -> None:
    assert _current() == render_table(), (
        "docs/guide/documents.md is out of date: run "
        ".venv/bin/python tests/docs/test_documents_page_limits.py --write"
    )


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    text = PAGE.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(f"{head}{START}\n{render_table()}\n{END}{tail}", encoding="utf-8")

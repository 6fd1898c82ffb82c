"""A generated invoice eval dataset and an emulator responder that answers per model and per
case (shared by the evals acceptance tests and tests/bench/evals.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from doc_processing_toolkit.testing import Fault, ScriptStep, reply
from doc_processing_toolkit.testing.pdf import text_pdf

SCHEMA = """
from pydantic import BaseModel


class Invoice(BaseModel):
    number: str
    date: str
    total: float
    vendor: str | None = None
    items: list[str] = []
"""

_CASE = re.compile(r"invoice case (\d+)\.")


def truth(i: int) -> dict[str, Any]:
    """Case ``i``'s expected fields."""
    items = ["widget", f"part-{i}"] + (["bolt"] if i % 2 else [])
    return {
        "number": f"INV-{i:03d}",
        "date": f"2026-03-{i % 28 + 1:02d}",
        "total": round(100 + i * 10.5, 2),
        "vendor": f"Vendor {i % 4}",
        "items": items,
    }


def write_dataset(folder: Path, cases: int, *, with_files: bool = True) -> Path:
    """``cases`` invoices as PDFs and a YAML dataset beside them; returns its path."""
    (folder / "eval_invoice_schema.py").write_text(SCHEMA)
    entries = []
    for i in range(cases):
        fields = truth(i)
        entry: dict[str, Any] = {
            "name": f"invoice-{i:03d}",
            "prompt": f"Extract the fields of invoice case {i}.",
            "expected": fields,
        }
        if with_files:
            pdf = folder / f"invoice-{i:03d}.pdf"
            pdf.write_bytes(
                text_pdf(
                    [
                        [
                            f"Invoice {fields['number']}",
                            f"Date {fields['date']}",
                            f"Vendor {fields['vendor']}",
                        ],
                        [f"Items: {', '.join(fields['items'])}", f"Total {fields['total']}"],
                    ]
                )
            )
            entry["files"] = [pdf.name]
        entries.append(entry)
    path = folder / "invoices.yaml"
    document = {"output_schema": "eval_invoice_schema:Invoice", "cases": entries}
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def responder(
    answers: dict[str, Callable[[int], dict[str, Any] | None]],
    *,
    input_tokens: int = 100,
    output_tokens: int = 20,
) -> Callable[[dict[str, Any]], ScriptStep | None]:
    """Answers a request by its model (``answers[model](case)``; None: an HTTP 400)."""

    def answer(body: dict[str, Any]) -> ScriptStep | None:
        found = _CASE.search(json.dumps(body))
        model = str(body.get("model", ""))
        if found is None or model not in answers:
            return None
        fields = answers[model](int(found.group(1)))
        if fields is None:
            return Fault(status=400, message=f"case {found.group(1)} cannot be read")
        return reply(json.dumps(fields), input_tokens=input_tokens, output_tokens=output_tokens)

    return answer

"""Extract an invoice with evidence: every field with the page it was found on, and a
✓ or ✗ for whether its quote is really in the document, on all four providers.

    python examples/grounded_invoice.py

A three-page invoice PDF is generated here (``doc_processing_toolkit.testing.pdf``) and
sent with ``output_schema=Invoice, evidence=True``: the model is asked, through the
schema it is given, for each field's value, a supporting quote and its page; the
toolkit checks every quote against the PDF's own text (the page named and the pages on
either side, rapidfuzz, ``evidence_threshold``) and that the value occurs in its quote.
``result.output`` is the plain validated dict; ``result.evidence`` holds one `Evidence`
per field path and ``result.unverified_fields`` the fields that did not check out.

Only pages 2-3 are sent (``Document(pages="2-3")``): the model numbers them 1 and 2,
and the pages printed are the ORIGINAL ones, 2 and 3. The emulated model answers with
two true quotes and one invented one (the PO number), which is printed with ✗.
Fireworks' text-only model cannot read a PDF: ``on_unsupported_part="convert"`` sends
it the text layer as Markdown, and its quotes are checked against that.

Runs offline against the loopback ProviderEmulator. Leave the emulator out and set the
provider keys to run it for real.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from doc_processing_toolkit import Agent
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, reply, tool_call
from doc_processing_toolkit.testing.pdf import text_pdf

MODELS = ["claude-sonnet-5-5", "gpt-5.4", "gemini-2.5-flash", "kimi-k2p6"]


class Invoice(BaseModel):
    vendor: str
    total: float
    po_number: str


PAGES = [
    ["Cover letter", "Dear customer, please find our invoice enclosed."],
    [
        "ACME Supplies Ltd. - INVOICE INV-2026-0042",
        "Vendor: ACME Supplies Ltd.",
        "Date: 2026-11-30",
    ],
    ["Printer paper (box)   3   24.00", "Toner cartridge   2   89.50", "Total due: 296.00 EUR"],
]


def answer(sent_page_of: dict[int, int]) -> dict[str, object]:
    """The emulated model's answer; ``sent_page_of`` maps an original page to the page
    number the model sees (the cut PDF's own numbering, or the Markdown's headings)."""
    return {
        "vendor": {
            "value": "ACME Supplies Ltd.",
            "quote": "Vendor: ACME Supplies Ltd.",
            "page": sent_page_of[2],
        },
        "total": {"value": 296.0, "quote": "Total due: 296.00 EUR", "page": sent_page_of[3]},
        "po_number": {  # invented: no such line in the document
            "value": "PO-7781",
            "quote": "Purchase order: PO-7781",
            "page": sent_page_of[3],
        },
    }


def extract(model: str, pdf: bytes, emulator: ProviderEmulator) -> dict[str, str]:
    probe = Agent(model, api_key="offline-example-key", log_to_file=False)
    if probe.provider == "fireworks":  # no native structured output: the final_result tool
        emulator.push(tool_call("final_result", answer({2: 2, 3: 3})))  # "## Page 2", "## Page 3"
    else:
        emulator.push(reply(json.dumps(answer({2: 1, 3: 2})), input_tokens=900, output_tokens=80))
    agent = Agent(
        model,
        instructions="Extract the invoice exactly as printed.",
        api_key="offline-example-key",
        base_url=getattr(emulator, f"{probe.provider}_base_url"),
        on_unsupported_part="convert",
        log_to_file=False,
    )
    document = Document(pdf, pages="2-3", name="invoice.pdf")
    result = agent.run_sync(
        "Extract this invoice.", files=[document], output_schema=Invoice, evidence=True
    )
    print(f"{model} ({agent.provider})")
    marks: dict[str, str] = {}
    for field, value in result.output.items():
        evidence = result.evidence[field]
        marks[field] = "✓" if evidence.verified else "✗"
        print(
            f"  {marks[field]} {field:<10} {value!s:<20} page {evidence.page}  "
            f"score {evidence.score:5.1f}  ({evidence.method})"
        )
    print(f"  unverified: {result.unverified_fields}")
    return marks


def main() -> None:
    pdf = text_pdf(PAGES, title="INV-2026-0042")
    with ProviderEmulator() as emulator:
        for model in MODELS:
            marks = extract(model, pdf, emulator)
            assert marks == {"vendor": "✓", "total": "✓", "po_number": "✗"}, marks


if __name__ == "__main__":
    main()
